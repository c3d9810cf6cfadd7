package golang_test

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// generate writes a configuration (cfg, a YAML file whose schema is
// schema.sql and whose queries are query.sql), the schema and the queries
// to a temporary directory and returns the generated files by base name.
func generate(t *testing.T, cfg, schema, queries string) map[string]string {
	t.Helper()
	out, err := tryGenerate(t, cfg, schema, queries)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	return out
}

func tryGenerate(t *testing.T, cfg, schema, queries string) (map[string]string, error) {
	t.Helper()
	dir := t.TempDir()
	for name, src := range map[string]string{"sqlc.yaml": cfg, "schema.sql": schema, "query.sql": queries} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	c, err := gen.LoadConfig(filepath.Join(dir, "sqlc.yaml"))
	if err != nil {
		return nil, err
	}
	o, err := gen.Generate(context.Background(), c)
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	for name, b := range o.Files {
		files[filepath.Base(name)] = string(b)
	}
	return files, nil
}

// goConfig is a version 2 configuration with the given gen.go options
// (a YAML flow-mapping body, e.g. "emit_interface: true"), for pgx/v5
// unless they name a sql_package.
func goConfig(opts string) string {
	if !strings.Contains(opts, "sql_package") {
		opts = strings.TrimPrefix(opts+", sql_package: pgx/v5", ", ")
	}
	if opts != "" {
		opts = ", " + opts
	}
	return `version: "2"
sql:
  - engine: postgresql
    schema: schema.sql
    queries: query.sql
    gen:
      go: {package: db, out: out` + opts + `}
`
}

// api is the exported API of generated files: one line per declaration,
// "func (*Queries).Name(params) results", "Querier.Name(params) results",
// "type Name ...", "const Name", "field Type.Field Type `tag`".
type api struct {
	lines map[string]bool
	// methods and iface map method names to their signatures.
	methods, iface map[string]string
	// decls maps top-level names to their kind ("type", "const", "var",
	// "func").
	decls map[string]string
}

func parseAPI(t *testing.T, files map[string]string) *api {
	t.Helper()
	a := &api{lines: map[string]bool{}, methods: map[string]string{}, iface: map[string]string{}, decls: map[string]string{}}
	fset := token.NewFileSet()
	str := func(n ast.Node) string {
		var b bytes.Buffer
		if err := printer.Fprint(&b, fset, n); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	// sig prints a func type without parameter names.
	sig := func(ft *ast.FuncType) string {
		list := func(fl *ast.FieldList) string {
			if fl == nil {
				return ""
			}
			var parts []string
			for _, f := range fl.List {
				n := max(len(f.Names), 1)
				for range n {
					parts = append(parts, str(f.Type))
				}
			}
			return strings.Join(parts, ", ")
		}
		return "(" + list(ft.Params) + ") (" + list(ft.Results) + ")"
	}
	for name, src := range files {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, src)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					a.decls[d.Name.Name] = "func"
					continue
				}
				if recv := str(d.Recv.List[0].Type); recv == "*Queries" {
					a.methods[d.Name.Name] = sig(d.Type)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						a.decls[s.Name.Name] = "type"
						switch tt := s.Type.(type) {
						case *ast.StructType:
							for _, fld := range tt.Fields.List {
								tag := ""
								if fld.Tag != nil {
									tag = " " + fld.Tag.Value
								}
								for _, n := range fld.Names {
									a.lines["field "+s.Name.Name+"."+n.Name+" "+str(fld.Type)+tag] = true
								}
							}
						case *ast.InterfaceType:
							if s.Name.Name == "Querier" {
								for _, m := range tt.Methods.List {
									a.iface[m.Names[0].Name] = sig(m.Type.(*ast.FuncType))
								}
							}
						default:
							a.lines["type "+s.Name.Name+" "+str(s.Type)] = true
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							a.decls[n.Name] = d.Tok.String()
						}
					}
				}
			}
		}
	}
	return a
}

func (a *api) has(t *testing.T, line string) {
	t.Helper()
	if !a.lines[line] {
		var all []string
		for l := range a.lines {
			all = append(all, l)
		}
		sort.Strings(all)
		t.Errorf("missing %q; have:\n%s", line, strings.Join(all, "\n"))
	}
}

// checkQuerier checks that the Querier interface declares exactly the
// methods of *Queries, with the same signatures.
func checkQuerier(t *testing.T, a *api) {
	t.Helper()
	if len(a.iface) == 0 {
		t.Fatal("no Querier interface")
	}
	for name, s := range a.methods {
		if name == "WithTx" {
			continue
		}
		if a.iface[name] != s {
			t.Errorf("Querier.%s = %q, (*Queries).%s = %q", name, a.iface[name], name, s)
		}
	}
	for name := range a.iface {
		if _, ok := a.methods[name]; !ok {
			t.Errorf("Querier.%s has no method on *Queries", name)
		}
	}
}

const authorsSchema = `
CREATE TABLE authors (id BIGSERIAL PRIMARY KEY, name text NOT NULL, bio text);
CREATE TABLE leases (name text PRIMARY KEY, holder text NOT NULL, fence bigint NOT NULL);
COMMENT ON COLUMN leases.fence IS 'fencegen:token';
`

const bulkQueries = `
-- name: CopyAuthors :copyfrom
INSERT INTO authors (name, bio) VALUES ($1, $2);
-- name: CopyNames :copyfrom
INSERT INTO authors (name) VALUES ($1);
-- name: BatchIns :batchexec
INSERT INTO authors (name, bio) VALUES ($1, $2);
-- name: BatchGet :batchone
SELECT * FROM authors WHERE id = $1;
-- name: BatchMany :batchmany
SELECT id, name FROM authors WHERE name = $1 AND bio = $2;
-- name: GetAuthor :one
SELECT * FROM authors WHERE id = $1;
-- name: CopyLeases :copyfrom
INSERT INTO leases (name, holder) VALUES ($1, $2);
-- name: BatchLeases :batchexec
INSERT INTO leases (name, holder) VALUES ($1, $2);
`

func TestQuerierMatchesMethods(t *testing.T) {
	for _, opts := range []string{
		"emit_interface: true",
		"emit_interface: true, emit_methods_with_db_argument: true",
		"emit_interface: true, emit_params_struct_pointers: true, emit_result_struct_pointers: true",
		"emit_interface: true, emit_methods_with_db_argument: true, emit_params_struct_pointers: true, query_parameter_limit: 0",
	} {
		t.Run(opts, func(t *testing.T) {
			a := parseAPI(t, generate(t, goConfig(opts), authorsSchema, bulkQueries))
			checkQuerier(t, a)
			db := ""
			if strings.Contains(opts, "db_argument") {
				db = "DBTX, "
			}
			ptr := ""
			if strings.Contains(opts, "params_struct_pointers") {
				ptr = "*"
			}
			want := map[string]string{
				"CopyAuthors": "(context.Context, " + db + "[]" + ptr + "CopyAuthorsParams) (int64, error)",
				"CopyNames":   "(context.Context, " + db + "[]string) (int64, error)",
				"BatchIns":    "(context.Context, " + db + "[]" + ptr + "BatchInsParams) (*BatchInsBatchResults)",
				"BatchGet":    "(context.Context, " + db + "[]int64) (*BatchGetBatchResults)",
				"CopyLeases":  "(context.Context, " + db + "[]" + ptr + "CopyLeasesParams, fence.Token) (int64, error)",
				"BatchLeases": "(context.Context, " + db + "[]" + ptr + "BatchLeasesParams, fence.Token) (*BatchLeasesBatchResults)",
			}
			if strings.Contains(opts, "query_parameter_limit: 0") {
				want["CopyNames"] = "(context.Context, " + db + "[]" + ptr + "CopyNamesParams) (int64, error)"
				want["BatchGet"] = "(context.Context, " + db + "[]" + ptr + "BatchGetParams) (*BatchGetBatchResults)"
			}
			for name, s := range want {
				if got := a.iface[name]; got != s {
					t.Errorf("Querier.%s = %q, want %q", name, got, s)
				}
			}
		})
	}
}

func TestEnumConstNames(t *testing.T) {
	schema := `
CREATE SCHEMA other;
CREATE TYPE digit AS ENUM ('0', '1');
CREATE TYPE ip_protocol AS ENUM ('tcp', 'ip', 'icmp');
CREATE TYPE mood AS ENUM ('happy-go', 'sad/very', 'x:y', 'foo bar', '', 'a-b', 'a_b', 'ID', 'id');
CREATE TYPE other.color_kind AS ENUM ('dark_blue');
CREATE TABLE t (d digit NOT NULL, p ip_protocol NOT NULL, m mood NOT NULL, c other.color_kind NOT NULL);
`
	cfg := `version: "1"
packages:
  - {path: out, name: db, engine: postgresql, sql_package: pgx/v5, schema: schema.sql, queries: query.sql}
rename:
  ip_protocol: IPProtocol
  ip_protocol_tcp: IPProtocolTCP
`
	a := parseAPI(t, generate(t, cfg, schema, "-- name: ListT :many\nSELECT * FROM t;\n"))
	for _, c := range []string{
		"Digit0", "Digit1",
		// A rename applies to the whole SQL name it names: the type and
		// one constant, the other constants keep the enum's own name.
		"IPProtocolTCP", "IpProtocolIp", "IpProtocolIcmp",
		"MoodHappyGo", "MoodSadVery", "MoodXY", "MoodFoobar", "MoodValue4", "MoodAB", "MoodValue6",
		// sqlc declares MoodID twice; the second gets a value_<i> name.
		"MoodID", "MoodValue8",
		"OtherColorKindDarkBlue",
	} {
		if a.decls[c] != "const" {
			t.Errorf("no constant %s", c)
		}
	}
	if a.decls["IPProtocol"] != "type" {
		t.Errorf("no type IPProtocol")
	}
}

// TestEnumLabelsDoc checks docs/sqlc.md's example of enum labels whose
// constants sqlc declares twice: the const block it shows is the one
// generated for its CREATE TYPE, line for line. The labels sqlc numbers
// itself ('a_b' after 'a-b') are checked against sqlc's own output by
// TestNamesMatchSqlc (gen/testdata/names, enum dupe_label).
func TestEnumLabelsDoc(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "sqlc.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	const create = "CREATE TYPE weird AS ENUM ('a-b', 'a_b',\n  'A_B', 'value_1', '-')"
	i := strings.Index(doc, create)
	if i < 0 {
		t.Fatalf("docs/sqlc.md does not show %q", create)
	}
	schema := strings.ReplaceAll(create, "\n  ", " ") + ";\nCREATE TABLE t (w weird NOT NULL);\n"
	files := generate(t, goConfig(""), schema, "-- name: ListT :many\nSELECT * FROM t;\n")
	models := files["models.go"]
	start := strings.Index(models, "const (\n\tWeird")
	if start < 0 {
		t.Fatalf("no const block of Weird in models.go:\n%s", models)
	}
	block := models[start : start+strings.Index(models[start:], "\n)\n")+2]
	var shown []string
	for _, l := range strings.Split(block, "\n") {
		shown = append(shown, "  "+l)
	}
	if !strings.Contains(doc[i:], "```go\n"+strings.Join(shown, "\n")+"\n  ```") {
		t.Errorf("docs/sqlc.md's enum label example is not what is generated; generated:\n%s", block)
	}
}

func TestNullEnumPointers(t *testing.T) {
	schema := "CREATE TYPE mood AS ENUM ('a');\nCREATE TABLE t (m mood, n text);\n"
	for _, tt := range []struct{ opts, mood, text string }{
		{"", "NullMood", "pgtype.Text"},
		{"emit_pointers_for_null_types: true", "*Mood", "*string"},
		{"emit_pointers_for_null_enum_types: true", "*Mood", "pgtype.Text"},
		{"emit_pointers_for_null_types: true, emit_pointers_for_null_enum_types: false", "NullMood", "*string"},
	} {
		a := parseAPI(t, generate(t, goConfig(tt.opts), schema, "-- name: ListT :many\nSELECT * FROM t;\n"))
		a.has(t, "field T.M "+tt.mood)
		a.has(t, "field T.N "+tt.text)
	}
}

func TestJSONTags(t *testing.T) {
	schema := `
CREATE SCHEMA other;
CREATE TYPE other.color_kind AS ENUM ('red');
CREATE TABLE t (id int NOT NULL, user_id int NOT NULL, "createdAt" int NOT NULL, c other.color_kind);
`
	q := "-- name: GetT :one\nSELECT * FROM t WHERE user_id = $1 AND id = $2;\n"
	for _, tt := range []struct {
		opts string
		want []string
	}{
		{"emit_json_tags: true, emit_db_tags: true", []string{
			"field T.UserID int32 `db:\"user_id\" json:\"user_id\"`",
			"field GetTParams.UserID int32 `db:\"user_id\" json:\"user_id\"`",
			// The Null<Enum> structs get json tags only.
			"field NullOtherColorKind.OtherColorKind OtherColorKind `json:\"other_color_kind\"`",
			"field NullOtherColorKind.Valid bool `json:\"valid\"`",
		}},
		{"emit_json_tags: true, json_tags_case_style: camel", []string{
			"field T.ID int32 `json:\"id\"`",
			"field T.UserID int32 `json:\"userId\"`",
			"field T.CreatedAt int32 `json:\"createdAt\"`",
			"field NullOtherColorKind.OtherColorKind OtherColorKind `json:\"otherColorKind\"`",
		}},
		{"emit_json_tags: true, json_tags_case_style: camel, json_tags_id_uppercase: true", []string{
			"field T.ID int32 `json:\"id\"`",
			"field T.UserID int32 `json:\"userID\"`",
		}},
		{"emit_json_tags: true, json_tags_case_style: pascal", []string{
			"field T.ID int32 `json:\"ID\"`",
			"field T.UserID int32 `json:\"UserID\"`",
			"field NullOtherColorKind.Valid bool `json:\"Valid\"`",
		}},
		{"emit_json_tags: true, json_tags_case_style: snake", []string{
			"field T.CreatedAt int32 `json:\"created_at\"`",
			"field T.UserID int32 `json:\"user_id\"`",
		}},
		{"emit_json_tags: true, json_tags_case_style: none", []string{
			"field T.CreatedAt int32 `json:\"createdAt\"`",
		}},
		{"emit_db_tags: true", []string{
			"field T.CreatedAt int32 `db:\"createdAt\"`",
			"field NullOtherColorKind.Valid bool",
		}},
	} {
		t.Run(tt.opts, func(t *testing.T) {
			a := parseAPI(t, generate(t, goConfig(tt.opts), schema, q))
			for _, w := range tt.want {
				a.has(t, w)
			}
		})
	}
}

func TestExportedQueries(t *testing.T) {
	files := generate(t, goConfig("emit_exported_queries: true"), authorsSchema,
		"-- name: GetAuthor :one\nSELECT * FROM authors WHERE id = $1;\n-- name: deleteAuthor :exec\nDELETE FROM authors WHERE id = $1;\n")
	a := parseAPI(t, files)
	// As sqlc: the constant is the query's name with its first letter
	// upper-cased, even for an unexported method.
	for _, c := range []string{"GetAuthor", "DeleteAuthor"} {
		if a.decls[c] != "const" {
			t.Errorf("no exported constant %s", c)
		}
	}
	if !strings.Contains(files["query.sql.go"], "q.db.QueryRow(ctx, GetAuthor, id)") {
		t.Errorf("the method does not use the exported constant:\n%s", files["query.sql.go"])
	}
}

func TestGoTypes(t *testing.T) {
	schema := `CREATE TABLE t (
  r int4range, r8 int8range NOT NULL, nr numrange, tr tsrange, tzr tstzrange, dr daterange,
  mr int4multirange, dmr datemultirange NOT NULL, ra int4range[],
  tags text[][], ints int4[][][] NOT NULL, blobs bytea[], vecs tsvector[],
  o oid, x xid NOT NULL, tz TIME WITH TIME ZONE, tzn TIME WITH TIME ZONE NOT NULL, c "char"
);`
	a := parseAPI(t, generate(t, goConfig(""), schema, "-- name: ListT :many\nSELECT * FROM t;\n"))
	for _, w := range []string{
		"field T.R pgtype.Range[pgtype.Int4]",
		"field T.R8 pgtype.Range[pgtype.Int8]",
		"field T.Nr pgtype.Range[pgtype.Numeric]",
		"field T.Tr pgtype.Range[pgtype.Timestamp]",
		"field T.Tzr pgtype.Range[pgtype.Timestamptz]",
		"field T.Dr pgtype.Range[pgtype.Date]",
		"field T.Mr pgtype.Multirange[pgtype.Range[pgtype.Int4]]",
		"field T.Dmr pgtype.Multirange[pgtype.Range[pgtype.Date]]",
		"field T.Ra []pgtype.Range[pgtype.Int4]",
		"field T.Tags [][]string",
		"field T.Ints [][][]int32",
		"field T.Blobs [][]byte",
		"field T.Vecs []interface{}",
		"field T.O pgtype.Uint32",
		"field T.X pgtype.Uint32",
		"field T.Tz sql.NullTime",
		"field T.Tzn time.Time",
		"field T.C interface{}",
	} {
		a.has(t, w)
	}
	a = parseAPI(t, generate(t, goConfig("emit_pointers_for_null_types: true"), schema, "-- name: ListT :many\nSELECT * FROM t;\n"))
	a.has(t, "field T.Tz *time.Time")
	a.has(t, "field T.R pgtype.Range[pgtype.Int4]")
}

func TestRowStructs(t *testing.T) {
	q := `
-- name: ResetAuthor :exec
UPDATE authors SET bio = NULL WHERE id = $1 RETURNING id, name;
-- name: CountRows :execrows
DELETE FROM authors WHERE id = $1 RETURNING id, name;
-- name: Empty :many
SELECT FROM authors;
-- name: Pair :one
SELECT id, name FROM authors WHERE id = $1;
`
	a := parseAPI(t, generate(t, goConfig(""), authorsSchema, q))
	for _, name := range []string{"ResetAuthorRow", "CountRowsRow"} {
		if _, ok := a.decls[name]; ok {
			t.Errorf("%s declared: a command that returns no rows needs no row type", name)
		}
	}
	if a.decls["PairRow"] != "type" || a.decls["EmptyRow"] != "type" {
		t.Errorf("PairRow, EmptyRow: %q, %q, want types", a.decls["PairRow"], a.decls["EmptyRow"])
	}
	if got := a.methods["Empty"]; got != "(context.Context) ([]EmptyRow, error)" {
		t.Errorf("Empty = %s", got)
	}
}

func TestOverrides(t *testing.T) {
	schema := `
CREATE SCHEMA s2;
CREATE TABLE authors (id bigint PRIMARY KEY, name text NOT NULL, title text, meta jsonb, updated timestamptz);
CREATE TABLE s2.books (id bigint PRIMARY KEY, title text NOT NULL, tags text[]);
`
	q := `
-- name: FindAuthors :many
SELECT id, name, updated FROM authors WHERE name = $1 AND meta = $2;
-- name: ListBooks :many
SELECT * FROM s2.books;
`
	cfg := `version: "2"
sql:
  - engine: postgresql
    schema: schema.sql
    queries: query.sql
    gen:
      go:
        package: db
        out: out
        sql_package: pgx/v5
        emit_json_tags: true
        overrides:
          - {db_type: timestamptz, nullable: true, go_type: {type: time.Time, pointer: true}}
          - {column: "authors.meta*", go_type: {import: encoding/json, type: RawMessage}, go_struct_tag: 'validate:"json"'}
          - {column: "s2.books.tags", go_type: {type: string, slice: true}}
          - {column: "*.title", go_type: {type: string, pointer: true}}
          - {column: authors.name, go_struct_tag: 'validate:"required" x:"a b"'}
`
	a := parseAPI(t, generate(t, cfg, schema, q))
	for _, w := range []string{
		"field Author.Name string `json:\"name\" validate:\"required\" x:\"a b\"`",
		"field Author.Meta json.RawMessage `json:\"meta\" validate:\"json\"`",
		"field Author.Updated *time.Time `json:\"updated\"`",
		"field Author.Title *string `json:\"title\"`",
		// "table.column" patterns match the default schema only.
		"field S2Book.Title string `json:\"title\"`",
		"field S2Book.Tags []string `json:\"tags\"`",
		"field FindAuthorsParams.Name string `json:\"name\" validate:\"required\" x:\"a b\"`",
		"field FindAuthorsParams.Meta json.RawMessage `json:\"meta\" validate:\"json\"`",
		"field FindAuthorsRow.Name string `json:\"name\" validate:\"required\" x:\"a b\"`",
	} {
		a.has(t, w)
	}
}

func TestOmitUnusedStructs(t *testing.T) {
	schema := `
CREATE TYPE mood AS ENUM ('a');
CREATE TYPE unused_e AS ENUM ('x');
CREATE TYPE param_e AS ENUM ('p');
CREATE TYPE arr_e AS ENUM ('q');
CREATE TABLE returned (id int PRIMARY KEY, m mood NOT NULL);
CREATE TABLE partial (id int PRIMARY KEY, p param_e, u unused_e, a arr_e[]);
CREATE TABLE unused_t (id int PRIMARY KEY);
CREATE TABLE exec_ret (id int PRIMARY KEY, x text);
`
	q := `
-- name: GetReturned :one
SELECT * FROM returned WHERE id = $1;
-- name: GetPartial :many
SELECT id FROM partial WHERE p = $1;
-- name: GetArr :many
SELECT a FROM partial;
-- name: ExecRet :exec
UPDATE exec_ret SET x = 'y' RETURNING *;
`
	a := parseAPI(t, generate(t, goConfig("omit_unused_structs: true"), schema, q))
	for name, want := range map[string]bool{
		"Returned": true, "Mood": true, "ParamE": true, "ArrE": true,
		"Partial": false, "UnusedT": false, "UnusedE": false, "ExecRet": false, "NullUnusedE": false,
	} {
		if got := a.decls[name] == "type"; got != want {
			t.Errorf("type %s declared: %v, want %v", name, got, want)
		}
	}
	a = parseAPI(t, generate(t, goConfig(""), schema, q))
	for _, name := range []string{"Partial", "UnusedT", "UnusedE", "ExecRet"} {
		if a.decls[name] != "type" {
			t.Errorf("without omit_unused_structs, type %s missing", name)
		}
	}
}

func TestOutputFiles(t *testing.T) {
	q := "-- name: GetAuthor :one\nSELECT * FROM authors WHERE id = $1;\n-- name: CopyNames :copyfrom\nINSERT INTO authors (name) VALUES ($1);\n"
	for _, tt := range []struct {
		opts  string
		files []string
	}{
		{"output_files_suffix: _gen", []string{"copyfrom.go", "db.go", "models.go", "query.sql_gen.go"}},
		{"output_files_suffix: _gen.go, emit_interface: true", []string{"copyfrom.go", "db.go", "models.go", "querier.go", "query.sql_gen.go"}},
		{"output_db_file_name: d.go, output_models_file_name: m.go, output_querier_file_name: q.go, output_copyfrom_file_name: c.go, emit_interface: true",
			[]string{"c.go", "d.go", "m.go", "q.go", "query.sql.go"}},
	} {
		files := generate(t, goConfig(tt.opts), authorsSchema, q)
		var got []string
		for name := range files {
			if strings.HasSuffix(name, ".go") {
				got = append(got, name)
			}
		}
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(tt.files, " ") {
			t.Errorf("%s: files %v, want %v", tt.opts, got, tt.files)
		}
	}
	files := generate(t, goConfig(`build_tags: "integration && linux"`), authorsSchema, q)
	for name, src := range files {
		if strings.HasSuffix(name, ".go") && !strings.HasPrefix(src, "//go:build integration && linux\n\n// Code generated by fencegen. DO NOT EDIT.\n") {
			t.Errorf("%s starts:\n%s", name, src[:min(len(src), 120)])
		}
	}
}

func TestRepeatedAndEmbeddedFieldTags(t *testing.T) {
	schema := `
CREATE TYPE pair AS (x int, y int);
CREATE TABLE user_accounts (id int PRIMARY KEY, name text NOT NULL, p pair, q pair NOT NULL);
CREATE TABLE books (id int PRIMARY KEY, owner_id int NOT NULL);
`
	q := `
-- name: GetEmbed :many
SELECT sqlc.embed(user_accounts), sqlc.embed(b) FROM user_accounts JOIN books b ON b.owner_id = user_accounts.id;
-- name: Dup :many
SELECT u.id, b.id, u.name FROM user_accounts u JOIN books b ON b.owner_id = u.id WHERE u.id = $1 AND b.id = $2;
`
	a := parseAPI(t, generate(t, goConfig("emit_json_tags: true, emit_db_tags: true, json_tags_case_style: camel"), schema, q))
	for _, w := range []string{
		"field DupRow.ID_2 int32 `db:\"id_2\" json:\"id2\"`",
		"field DupParams.ID_2 int32 `db:\"id_2\" json:\"id2\"`",
		// An embedded model's tags name the model, not the alias.
		"field GetEmbedRow.UserAccount UserAccount `db:\"user_account\" json:\"userAccount\"`",
		"field GetEmbedRow.Book Book `db:\"book\" json:\"book\"`",
		// Composite types travel as text.
		"field UserAccount.P sql.NullString `db:\"p\" json:\"p\"`",
		"field UserAccount.Q string `db:\"q\" json:\"q\"`",
	} {
		a.has(t, w)
	}
}

// A query file without queries (only DDL) gives no output file, and query
// files that share a base name share one output file, their queries in
// file order under the first file's name (as sqlc does).
func TestQueryFilesOutput(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"sqlc.yaml": `version: "2"
sql:
  - engine: postgresql
    schema: [query.sql, sql]
    queries: [query.sql, sql, ddl.sql]
    gen:
      go: {package: db, out: out, sql_package: pgx/v5}
`,
		"query.sql":     "CREATE TABLE bar (id serial not null);\n-- name: ListBar :many\nSELECT * FROM bar;\n",
		"sql/query.sql": "-- name: ListFoo :many\nSELECT * FROM foo;\n",
		"sql/a.sql":     "CREATE TABLE foo (id serial not null, bar serial);\n",
		"ddl.sql":       "CREATE TABLE other (id int);\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	c, err := gen.LoadConfig(filepath.Join(dir, "sqlc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	o, err := gen.Generate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range o.Files {
		names = append(names, filepath.Base(name))
	}
	sort.Strings(names)
	if got := strings.Join(names, " "); got != "db.go models.go query.sql.go" {
		t.Fatalf("files: %s", got)
	}
	src := string(o.Files["out/query.sql.go"])
	bar, foo := strings.Index(src, ") ListBar("), strings.Index(src, ") ListFoo(")
	if bar < 0 || foo < bar || !strings.Contains(src, "// source: query.sql\n") {
		t.Errorf("query.sql.go: want ListBar then ListFoo under source query.sql:\n%s", src)
	}
}

// sqlc v1.31.1 knows bpchar and timetz only by their SQL spellings: the
// internal names, written bare, map to interface{} (pg_catalog.bpchar and
// CHAR(n) do not).
func TestBareInternalTypeNames(t *testing.T) {
	schema := `CREATE TABLE t (
  a bpchar NOT NULL, b bpchar, c char(3) NOT NULL, d character(2),
  e timetz NOT NULL, f timetz, g time with time zone NOT NULL, h time with time zone,
  k bpchar(4) NOT NULL, l timetz(3) NOT NULL, m pg_catalog.bpchar NOT NULL, n pg_catalog.timetz NOT NULL,
  o bpchar[] NOT NULL, p timetz[] NOT NULL, q char NOT NULL
);`
	a := parseAPI(t, generate(t, goConfig(""), schema, "-- name: ListT :many\nSELECT * FROM t WHERE a = $1;\n"))
	for _, w := range []string{
		"field T.A interface{}", "field T.B interface{}", "field T.C string", "field T.D pgtype.Text",
		"field T.E interface{}", "field T.F interface{}", "field T.G time.Time", "field T.H sql.NullTime",
		"field T.K interface{}", "field T.L interface{}", "field T.M string", "field T.N time.Time",
		"field T.O []interface{}", "field T.P []interface{}", "field T.Q string",
	} {
		a.has(t, w)
	}
	if got := a.methods["ListT"]; got != "(context.Context, interface{}) ([]T, error)" {
		t.Errorf("ListT%s", got)
	}
}

// Every method that writes a fenced table reports the database-side
// guard's SQLSTATE through fenceimpl.TriggerError when no guarded reader of
// package fenceimpl reads its result (fenced INSERTs, :copyfrom, opted-out
// writes, their batches); the other methods keep sqlc's form. The
// behaviour is tested against PostgreSQL in the pgtest package.
func TestTriggerErrorMapped(t *testing.T) {
	q := bulkQueries + `
-- name: FixLease :execresult
-- @fence off: operator repair
UPDATE leases SET holder = $1 WHERE name = $2;
-- name: FixAuthor :execresult
UPDATE authors SET bio = $1 WHERE id = $2;
`
	files := generate(t, goConfig(""), authorsSchema, q)
	all := files["query.sql.go"] + files["copyfrom.go"] + files["batch.go"]
	for _, want := range []string{
		`return result, fenceimpl.TriggerError("CopyLeases", err, "leases")`,
		`err = fenceimpl.TriggerError("BatchLeases", err, "leases")`,
		`return result, fenceimpl.TriggerError("FixLease", err, "leases")`,
		"return q.db.CopyFrom(ctx, []string{\"authors\"}",
		"return q.db.Exec(ctx, fixAuthor, arg.Bio, arg.ID)",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("generated code lacks %s", want)
		}
	}
	for _, unfenced := range []string{"CopyAuthors", "CopyNames", "BatchIns", "BatchGet", "BatchMany", "GetAuthor", "FixAuthor"} {
		if strings.Contains(all, `fenceimpl.TriggerError("`+unfenced+`"`) {
			t.Errorf("%s writes no fenced table, but maps the guard's SQLSTATE", unfenced)
		}
	}
}

// fieldType returns the type (and tag) of struct field typ.field, or
// "nothing" when the API has no such field.
func (a *api) fieldType(typ, field string) string {
	prefix := "field " + typ + "." + field + " "
	for l := range a.lines {
		if strings.HasPrefix(l, prefix) {
			return l[len(prefix):]
		}
	}
	return "nothing"
}

// TestModelNames checks sqlc's singular forms, inflection_exclude_table_names
// (matched case-insensitively against the schema-prefixed name), renames
// keyed by the singular name, and sqlc.embed fields' tags (the snake case of
// the model's Go name). The expected names are sqlc v1.31.1's output for
// the same input.
func TestModelNames(t *testing.T) {
	schema := `CREATE SCHEMA s2;
CREATE TABLE users (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE campus (id int); CREATE TABLE meta (id int); CREATE TABLE my_meta (id int);
CREATE TABLE calories (id int); CREATE TABLE waves (id int); CREATE TABLE metadata (id int);
CREATE TABLE s2.meta (id int); CREATE TABLE s2.news_items (id int); CREATE TABLE news_items (id int);
CREATE TABLE api_keys (id int, key text NOT NULL); CREATE TABLE player_data (id int, v text);
`
	queries := `-- name: GetUser :one
SELECT * FROM users WHERE id = $1;
-- name: EmbedKeys :many
SELECT sqlc.embed(api_keys), sqlc.embed(player_data), users.name FROM api_keys, player_data, users;
`
	cfg := goConfig(`emit_json_tags: true, emit_db_tags: true, json_tags_case_style: camel, initialisms: [id, api],
        inflection_exclude_table_names: [news_items, S2_NEWS_ITEMS], rename: {user: Person, player_datum: PlayerData, users: Nobody}`)
	a := parseAPI(t, generate(t, cfg, schema, queries))
	for _, typ := range []string{"Campus", "Meta", "MyMetum", "Calorie", "Wave", "Metadata", "S2Metum", "S2NewsItems", "NewsItems", "Person", "APIKey", "PlayerData"} {
		if a.decls[typ] != "type" {
			t.Errorf("no type %s", typ)
		}
	}
	if a.methods["GetUser"] != "(context.Context, int32) (Person, error)" {
		t.Errorf("GetUser %s, want it to return Person", a.methods["GetUser"])
	}
	a.has(t, "field EmbedKeysRow.APIKey APIKey `db:\"apikey\" json:\"apikey\"`")
	a.has(t, "field EmbedKeysRow.PlayerData PlayerData `db:\"player_data\" json:\"playerData\"`")
}

// TestNameConflicts checks that, as sqlc does, a model named as an enum's
// type is refused with sqlc's message, rather than declared twice.
func TestNameConflicts(t *testing.T) {
	schema := "CREATE TYPE status AS ENUM ('a');\nCREATE TABLE statuses (id int);\n"
	_, err := tryGenerate(t, goConfig(""), schema, "-- name: ListStatuses :many\nSELECT * FROM statuses;\n")
	if err == nil || !strings.Contains(err.Error(), "struct name conflicts with enum name: Status") {
		t.Errorf("got %v, want the conflict reported", err)
	}
	_, err = tryGenerate(t, goConfig("emit_exported_queries: true"), "CREATE TABLE users (id int);\n", "-- name: User :many\nSELECT * FROM users;\n")
	if err == nil || !strings.Contains(err.Error(), "query constant name conflicts with struct name: User") {
		t.Errorf("got %v, want the conflict reported", err)
	}
}

// TestSQLAsComment checks emit_sql_as_comment: as sqlc, the method's doc
// is its comment lines (or its name), an empty line and the statement,
// on the method and on the Querier's method.
func TestSQLAsComment(t *testing.T) {
	schema := "CREATE TABLE t (id int NOT NULL, v text);\n"
	queries := "-- name: GetT :one\nSELECT v FROM t\nWHERE id = $1;\n\n-- name: DelT :exec\n-- DelT deletes.\nDELETE FROM t WHERE id = @id;\n"
	files := generate(t, goConfig("emit_sql_as_comment: true, emit_interface: true"), schema, queries)
	for _, want := range []string{
		"// GetT\n//\n//\tSELECT v FROM t\n//\tWHERE id = $1\nfunc (q *Queries) GetT(",
		"// DelT deletes.\n//\n//\tDELETE FROM t WHERE id = $1\nfunc (q *Queries) DelT(",
	} {
		if !strings.Contains(files["query.sql.go"], want) {
			t.Errorf("query.sql.go lacks %q:\n%s", want, files["query.sql.go"])
		}
	}
	// As in sqlc's querier.go, where gofmt leaves an interface method's
	// comment as written: "//" and the name.
	if !strings.Contains(files["querier.go"], "\t//GetT\n\t//\n\t//  SELECT v FROM t\n") {
		t.Errorf("querier.go lacks the SQL comment:\n%s", files["querier.go"])
	}
	files = generate(t, goConfig(""), schema, queries)
	if strings.Contains(files["query.sql.go"], "// GetT\n") {
		t.Errorf("SQL comment without emit_sql_as_comment:\n%s", files["query.sql.go"])
	}
}

// TestDBTypeStructTags checks that, as sqlc, a db_type override's
// go_struct_tag tags every struct field of that type and nullability (an
// array as its NOT NULL element), models, Params and Row structs alike,
// merged with column overrides' tags in configuration order.
func TestDBTypeStructTags(t *testing.T) {
	schema := "CREATE TABLE items (id uuid PRIMARY KEY, tags uuid[], name text NOT NULL, note text, n int);\n"
	queries := `-- name: Upd :exec
UPDATE items SET name = $1, note = $2 WHERE id = $3;
-- name: Some :many
SELECT id, note FROM items WHERE n = $1;
`
	cfg := goConfig(`emit_json_tags: true, overrides: [
        {db_type: uuid, go_type: github.com/google/uuid.UUID, go_struct_tag: 'validate:"uuid"'},
        {db_type: text, nullable: true, go_type: {type: string, pointer: true}, go_struct_tag: 'ntext:"1"'},
        {column: "items.*", go_struct_tag: 'all:"1" validate:"col"'}]`)
	a := parseAPI(t, generate(t, cfg, schema, queries))
	for _, w := range []string{
		"field Item.ID uuid.UUID `all:\"1\" json:\"id\" validate:\"col\"`",
		"field Item.Tags []uuid.UUID `all:\"1\" json:\"tags\" validate:\"col\"`",
		"field Item.Name string `all:\"1\" json:\"name\" validate:\"col\"`",
		"field Item.Note *string `all:\"1\" json:\"note\" ntext:\"1\" validate:\"col\"`",
		"field UpdParams.Note *string `all:\"1\" json:\"note\" ntext:\"1\" validate:\"col\"`",
		"field UpdParams.ID uuid.UUID `all:\"1\" json:\"id\" validate:\"col\"`",
		"field SomeRow.ID uuid.UUID `all:\"1\" json:\"id\" validate:\"col\"`",
	} {
		a.has(t, w)
	}
	// Without column overrides the db_type tags stand alone.
	cfg = goConfig(`overrides: [{db_type: uuid, go_type: github.com/google/uuid.UUID, go_struct_tag: 'validate:"uuid"'}]`)
	a = parseAPI(t, generate(t, cfg, schema, queries))
	a.has(t, "field Item.Tags []uuid.UUID `validate:\"uuid\"`")
	a.has(t, "field SomeRow.ID uuid.UUID `validate:\"uuid\"`")
	a.has(t, "field Item.Note pgtype.Text")
}

// TestSerialOverrides checks that, as sqlc (which types a column by the
// name it was declared with), a db_type override for serial matches serial
// columns and the parameters compared with them only, and one for int4
// does not match them.
func TestSerialOverrides(t *testing.T) {
	schema := "CREATE TABLE a (id serial PRIMARY KEY, n int NOT NULL, b bigserial NOT NULL);\n"
	queries := "-- name: GetA :many\nSELECT * FROM a WHERE id = $1;\n"
	a := parseAPI(t, generate(t, goConfig(`overrides: [{db_type: serial, go_type: int}, {db_type: pg_catalog.int8, go_type: uint64}]`), schema, queries))
	a.has(t, "field A.ID int")
	a.has(t, "field A.N int32")
	a.has(t, "field A.B int64")
	if got := a.methods["GetA"]; got != "(context.Context, int) ([]A, error)" {
		t.Errorf("GetA %s, want an int parameter", got)
	}
	a = parseAPI(t, generate(t, goConfig(`overrides: [{db_type: pg_catalog.int4, go_type: int}, {db_type: bigserial, go_type: uint64}]`), schema, queries))
	a.has(t, "field A.ID int32")
	a.has(t, "field A.N int")
	a.has(t, "field A.B uint64")
}

// TestUnexportedFieldTags checks that a column whose Go name is unexported
// (2fa gives _2fa, as in sqlc) keeps its json tag, as sqlc writes it
// (encoding/json ignores it and go vet reports it, in sqlc's code too),
// and its db tag (issue 23; TestNonASCIINamesAsSqlc compares with sqlc).
func TestUnexportedFieldTags(t *testing.T) {
	schema := "CREATE TABLE t (id int NOT NULL, \"2fa\" bool);\n"
	queries := "-- name: ListT :many\nSELECT * FROM t;\n-- name: Two :many\nSELECT \"2fa\", id + 1 AS n FROM t WHERE \"2fa\" = $1 AND id = $2;\n"
	a := parseAPI(t, generate(t, goConfig("emit_json_tags: true, emit_db_tags: true"), schema, queries))
	a.has(t, "field T._2fa pgtype.Bool `db:\"2fa\" json:\"2fa\"`")
	a.has(t, "field T.ID int32 `db:\"id\" json:\"id\"`")
	a.has(t, "field TwoRow._2fa pgtype.Bool `db:\"2fa\" json:\"2fa\"`")
	a.has(t, "field TwoParams._2fa pgtype.Bool `db:\"2fa\" json:\"2fa\"`")
}

// TestOverrideKnownTypeWithoutImport checks that an override's object
// form naming a type sqlc knows without its import ({type: time.Time})
// imports its package, as sqlc does; it compiled without it nowhere.
func TestOverrideKnownTypeWithoutImport(t *testing.T) {
	cfg := goConfig(`overrides: [{db_type: timestamptz, go_type: {type: time.Time}}, {db_type: inet, go_type: {type: pgtype.Text}}]`)
	files := generate(t, cfg, "CREATE TABLE t (at timestamptz NOT NULL, ip inet NOT NULL);\n", "-- name: ListT :many\nSELECT * FROM t;\n")
	for _, want := range []string{"import (\n\t\"time\"\n\n\t\"github.com/jackc/pgx/v5/pgtype\"\n)\n", "\tAt time.Time\n", "\tIp pgtype.Text\n"} {
		if !strings.Contains(files["models.go"], want) {
			t.Errorf("models.go lacks %q:\n%s", want, files["models.go"])
		}
	}
}

// TestSQLConstantBackquote checks that a backquote in a query's text is
// written as sqlc writes it, in the raw string: ` + "`" + `.
func TestSQLConstantBackquote(t *testing.T) {
	files := generate(t, goConfig(""), "CREATE TABLE t (id int NOT NULL);\n", "-- name: GetT :one\n-- uses `id`\nSELECT id FROM t -- `id`\nWHERE id = $1;\n")
	want := "const getT = `-- name: GetT :one\nSELECT id FROM t -- ` + \"`\" + `id` + \"`\" + `\nWHERE id = $1\n`\n"
	if !strings.Contains(files["query.sql.go"], want) {
		t.Errorf("query.sql.go lacks %q:\n%s", want, files["query.sql.go"])
	}
	if !strings.Contains(files["query.sql.go"], "// uses `id`\nfunc (q *Queries) GetT(") {
		t.Errorf("query.sql.go lacks the comment:\n%s", files["query.sql.go"])
	}
}

// TestSqlcLocalNames checks names sqlc gives in a method's text: a
// COALESCE whose first argument is no column is coalesce (not the column
// inside MAX), and unnamed parameters of a method with several arguments
// are column<N>.
func TestSqlcLocalNames(t *testing.T) {
	files := generate(t, goConfig("query_parameter_limit: 3"), "CREATE TABLE t (id int NOT NULL, v text);\n",
		"-- name: MaxID :one\nSELECT COALESCE(MAX(id), 0) FROM t;\n\n-- name: Between :many\nSELECT id FROM t WHERE v LIKE '%' || $1 || '%' AND id < $2;\n")
	for _, want := range []string{
		"\tvar coalesce interface{}\n\terr := row.Scan(&coalesce)\n",
		// sqlc v1.31.1's text for this query.
		"func (q *Queries) Between(ctx context.Context, column1 pgtype.Text, iD int32) ([]int32, error) {",
	} {
		if !strings.Contains(files["query.sql.go"], want) {
			t.Errorf("query.sql.go lacks %q:\n%s", want, files["query.sql.go"])
		}
	}
}
