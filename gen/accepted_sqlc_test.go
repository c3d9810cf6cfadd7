package gen_test

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAcceptedWhereSqlcRefuses runs sqlc v1.31.1 and fencegen on the
// inputs docs/sqlc.md's "What fencegen accepts that sqlc refuses" lists,
// and on those both refuse: sqlc must fail with the message the table
// gives (so a row that sqlc starts to accept is seen), fencegen must
// generate the declaration the input means, or fail with its error. Every
// input must be in the table (as written here) and sqlc's output for
// "*time.Time" must be fencegen's.
func TestAcceptedWhereSqlcRefuses(t *testing.T) {
	needSqlc(t) // one skip line, not one a row
	doc, err := os.ReadFile(filepath.Join("..", "docs", "sqlc.md"))
	if err != nil {
		t.Fatal(err)
	}
	const query = "-- name: GetT :one\nSELECT * FROM t WHERE id = $1;\n"
	for _, tt := range []struct {
		doc      string // as docs/sqlc.md spells the input
		goType   string // the tags override's go_type, or "" for none
		goOpt    string // a gen.go option line, or ""
		yaml     string // the whole sqlc.yaml (entry: sqlcEntry), or ""
		query    string // "" for query
		schema   string // "" for the PostgreSQL table t
		sqlcErr  string // a part of sqlc's error
		want     string // a line of fencegen's output, or
		wantErr  string // a part of fencegen's error
		sameCode bool   // sqlc generates: the line is sqlc's too
	}{
		{doc: `"[]string"`, goType: `"[]string"`, sqlcErr: `specifier "[]string" is not a Go basic type`, want: "\tTags []string\n"},
		{doc: `"*string"`, goType: `"*string"`, sqlcErr: `specifier "*string" is not a Go basic type`, want: "\tTags *string\n"},
		{doc: `"map[string]string"`, goType: `"map[string]string"`, sqlcErr: `is not a Go basic type`, want: "\tTags map[string]string\n"},
		{doc: `"any"`, goType: `"any"`, sqlcErr: `is not a Go basic type`, want: "\tTags any\n"},
		{doc: `"gopkg.in/yaml.v3.Node"`, goType: `"gopkg.in/yaml.v3.Node"`, sqlcErr: `expected ';', found '.'`, want: "\tTags yaml.Node\n"},
		{doc: `"inet.af/netaddr.v4.Addr"`, goType: `"inet.af/netaddr.v4.Addr"`, sqlcErr: `expected ';', found '.'`, want: "\tTags netaddr.Addr\n"},
		{doc: "`-- name:  GetT :one`", query: "-- name:  GetT :one\nSELECT * FROM t WHERE id = $1;\n", sqlcErr: "invalid query comment", want: "func (q *Queries) GetT(ctx context.Context, id int64) (T, error) {\n"},
		{doc: "`-- name: GetT  :one`", query: "-- name: GetT  :one\nSELECT * FROM t WHERE id = $1;\n", sqlcErr: "invalid query comment", want: "func (q *Queries) GetT(ctx context.Context, id int64) (T, error) {\n"},
		{doc: "`--name: GetT :one`", query: "--name: GetT :one\nSELECT * FROM t WHERE id = $1;\n", sqlcErr: "invalid metadata", want: "func (q *Queries) GetT(ctx context.Context, id int64) (T, error) {\n"},
		{doc: "`--  name: GetT :one`", query: "--  name: GetT :one\nSELECT * FROM t WHERE id = $1;\n", sqlcErr: "invalid metadata", want: "func (q *Queries) GetT(ctx context.Context, id int64) (T, error) {\n"},
		{doc: "`-- name:GetT :one`", query: "-- name:GetT :one\nSELECT * FROM t WHERE id = $1;\n", sqlcErr: "invalid metadata", want: "func (q *Queries) GetT(ctx context.Context, id int64) (T, error) {\n"},
		{doc: "`-- name: GetT<tab>:one`", query: "-- name: GetT\t:one\nSELECT * FROM t WHERE id = $1;\n", sqlcErr: "missing query type", want: "func (q *Queries) GetT(ctx context.Context, id int64) (T, error) {\n"},
		{doc: "`postgresql_types: true`", goOpt: "postgresql_types: true", sqlcErr: "field postgresql_types not found", want: "func (q *Queries) GetT(ctx context.Context, id int64) (T, error) {\n"},
		{doc: "`sqlc_untyped_params: true`", goOpt: "sqlc_untyped_params: true", sqlcErr: "field sqlc_untyped_params not found", want: "func (q *Queries) GetT(ctx context.Context, id int64) (T, error) {\n"},
		{doc: "`sqlc.arg(\"1bad\")`", query: "-- name: GetT :one\nSELECT * FROM t WHERE id = sqlc.arg(\"1bad\");\n", sqlcErr: "edited query syntax is invalid", want: "func (q *Queries) GetT(ctx context.Context, _1bad int64) (T, error) {\n"},
		{doc: "`-- name: Select :one`", query: "-- name: Select :one\nSELECT * FROM t WHERE id = $1;\n", sqlcErr: "expected 'IDENT', found 'select'", want: "const selectQuery = `-- name: Select :one\n"},
		{doc: "`:batchexec` without parameters", query: "-- name: BatchT :batchexec\nDELETE FROM t;\n", sqlcErr: ":batch* commands require parameters", want: "func (q *Queries) BatchT(ctx context.Context) *BatchTBatchResults {\n"},
		// PostgreSQL resolves a name in the innermost query's tables
		// first, which sqlc calls ambiguous (issue 23, trial t23a F4).
		{doc: "`SELECT id FROM t WHERE id = (SELECT max(id) FROM t) - $1`", query: "-- name: Latest :many\nSELECT id FROM t WHERE id = (SELECT max(id) FROM t) - $1;\n", sqlcErr: `column reference "id" is ambiguous`, want: "func (q *Queries) Latest(ctx context.Context, max int64) ([]int64, error) {\n"},
		// MySQL (issue 27, trial-my3 F4): a name MySQL resolves in the
		// innermost SELECT's tables, which sqlc calls ambiguous, and a
		// parameter's alias sqlc looks up as a column.
		{doc: "`INSERT INTO books (id, author_id, title) SELECT id + 1000, id, LEFT(name, 10) FROM authors WHERE id = ?`", yaml: mysqlEntry, schema: mysqlSchema,
			query: "-- name: InsertSelect :exec\nINSERT INTO books (id, author_id, title) SELECT id + 1000, id, LEFT(name, 10) FROM authors WHERE id = ?;\n", sqlcErr: `column reference "id" is ambiguous`, want: "func (q *Queries) InsertSelect(ctx context.Context, id int64) error {\n"},
		{doc: "`SELECT id, ? AS extra FROM authors`", yaml: mysqlEntry, schema: mysqlSchema,
			query: "-- name: Extra :many\nSELECT id, ? AS extra FROM authors;\n", sqlcErr: `column "extra" does not exist`, want: "func (q *Queries) Extra(ctx context.Context, dollar_1 interface{}) ([]ExtraRow, error) {\n"},
		{doc: "`SELECT id FROM authors a WHERE a.id = (SELECT MAX(id) FROM authors WHERE score > ?)`", yaml: mysqlEntry, schema: mysqlSchema,
			query: "-- name: MaxScore :many\nSELECT id FROM authors a WHERE a.id = (SELECT MAX(id) FROM authors WHERE score > ?);\n", sqlcErr: `column reference "score" is ambiguous`, want: "func (q *Queries) MaxScore(ctx context.Context, score int32) ([]int64, error) {\n"},
		// Refused by both.
		{doc: "`output_query_files_directory: q`", goOpt: "output_query_files_directory: q", sqlcErr: "field output_query_files_directory not found", wantErr: "output_query_files_directory is not an sqlc v1.31.1 option"},
		{doc: "`{import: time, type: time1.Time}`", goType: "{import: time, type: time1.Time}", sqlcErr: `expected ';', found '.'`, wantErr: `go_type: type "time1.Time" with import or package is the type's name in that package`},
		{doc: "`{package: time1, type: Time}`", goType: "{package: time1, type: Time}", sqlcErr: "package name requires an import path", wantErr: `go_type: package "time1" requires an import path`},
		{doc: "`-- name: GetT :one -- x`", query: "-- name: GetT :one -- x\nSELECT * FROM t WHERE id = $1;\n", sqlcErr: "invalid query comment", wantErr: `query GetT: unexpected text "-- x" after the command`},
		// sqlc's checks of plugins, codegen items, gen.json and database.
		{doc: "`plugins` item without `name`", yaml: "version: \"2\"\nplugins: [{process: {cmd: x}}]\n" + sqlcEntry, sqlcErr: "missing plugin name", wantErr: "plugin: missing name"},
		{doc: "named `go` or `json`", yaml: "version: \"2\"\nplugins: [{name: go, process: {cmd: x}}]\n" + sqlcEntry, sqlcErr: "a built-in plugin with that name already exists", wantErr: `plugin name "go" is sqlc's built-in gen.go`},
		{doc: "named twice", yaml: "version: \"2\"\nplugins: [{name: a, process: {cmd: x}}, {name: a, process: {cmd: y}}]\n" + sqlcEntry, sqlcErr: "a plugin with that name already exists", wantErr: `plugin "a": a plugin with that name already exists`},
		{doc: "with neither `process` nor `wasm`", yaml: "version: \"2\"\nplugins: [{name: a}]\n" + sqlcEntry, sqlcErr: "field `process` or `wasm` required", wantErr: `plugin "a": field process or wasm required`},
		{doc: "with both", yaml: "version: \"2\"\nplugins: [{name: a, process: {cmd: x}, wasm: {url: \"https://x/y.wasm\", sha256: z}}]\n" + sqlcEntry, sqlcErr: "cannot both be defined", wantErr: `plugin "a": process and wasm cannot both be defined`},
		{doc: "`process` without `cmd`", yaml: "version: \"2\"\nplugins: [{name: a, process: {}}]\n" + sqlcEntry, sqlcErr: "missing process command", wantErr: `plugin "a": missing process command`},
		{doc: "a `codegen` item without `out`", yaml: "version: \"2\"\nplugins: [{name: a, process: {cmd: x}}]\n" + sqlcEntry + "    codegen: [{plugin: a}]\n", sqlcErr: "no output path", wantErr: `codegen: missing key "out"`},
		{doc: "`gen.json` without `out`", yaml: "version: \"2\"\n" + strings.Replace(sqlcEntry, "{go: {out: db}}", "{go: {out: db}, json: {indent: \"  \"}}", 1), sqlcErr: "no output path", wantErr: `gen.json: missing key "out"`},
		{doc: "`database: {}`", yaml: "version: \"2\"\n" + sqlcEntry + "    database: {}\n", sqlcErr: "database must be managed or have a non-empty URI", wantErr: "database: set uri or managed: true"},
		{doc: "`go_struct_tag: 'a: \"b\"'`", yaml: "version: \"2\"\n" + strings.Replace(sqlcEntry, "{go: {out: db}}", "{go: {out: db, overrides: [{column: t.tags, go_struct_tag: 'a: \"b\"'}]}}", 1), sqlcErr: "bad syntax for struct tag", wantErr: `go_struct_tag "a: \"b\"": bad syntax for struct tag pair`},
		{doc: "`output_models_file_name: ../m.go`", goOpt: "output_models_file_name: ../m.go", sqlcErr: "invalid file output path", wantErr: `output_models_file_name "../m.go": the file must be inside out`},
		{doc: "`a..b.go`", goOpt: "output_models_file_name: a..b.go", sqlcErr: "invalid file output path", wantErr: `output_models_file_name "a..b.go": the file must be inside out`},
		{doc: "a global override without `engine`", yaml: "version: \"2\"\noverrides: {go: {overrides: [{db_type: text, go_type: string}]}}\n" + sqlcEntry +
			"  - {engine: mysql, schema: my.sql, queries: my.sql, gen: {go: {out: dbm}}}\n", sqlcErr: `the "engine" field is required for global type overrides`, wantErr: "global override: set engine"},
		// sqlc generates: its output is fencegen's.
		{doc: "an override with neither `go_type` nor `go_struct_tag`", yaml: "version: \"2\"\n" + strings.Replace(sqlcEntry, "{go: {out: db}}", "{go: {out: db, overrides: [{column: t.tags, nullable: false}]}}", 1), want: "\tTags []string\n", sameCode: true},
		{doc: `"*time.Time"`, goType: `"*time.Time"`, want: "\tTags **time.Time\n", sameCode: true},
		{doc: `"*github.com/google/uuid.UUID"`, goType: `"*github.com/google/uuid.UUID"`, want: "\tTags *uuid.UUID\n", sameCode: true},
	} {
		t.Run(tt.doc, func(t *testing.T) {
			if flat := strings.Join(strings.Fields(string(doc)), " "); !strings.Contains(flat, strings.Join(strings.Fields(tt.doc), " ")) {
				t.Errorf("docs/sqlc.md does not list %s", tt.doc)
			}
			cfg := "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: schema.sql\n    queries: query.sql\n    gen:\n      go:\n        out: db\n        sql_package: pgx/v5\n"
			if tt.goOpt != "" {
				cfg += "        " + tt.goOpt + "\n"
			}
			if tt.yaml != "" {
				cfg = tt.yaml
			}
			if tt.goType != "" {
				cfg += "        overrides:\n          - column: t.tags\n            go_type: " + tt.goType + "\n"
			}
			q := tt.query
			if q == "" {
				q = query
			}
			r := sqlcAndFencegen(t, map[string]string{
				"sqlc.yaml":  cfg,
				"schema.sql": cmp.Or(tt.schema, "CREATE TABLE t (id bigint PRIMARY KEY, tags text[] NOT NULL);\n"),
				"query.sql":  q,
			}, "sqlc.yaml")
			switch {
			case tt.sameCode && r.sqlcErr != nil:
				t.Fatalf("sqlc generate: %v\n%s", r.sqlcErr, r.sqlcOut)
			case tt.sameCode:
				b, err := os.ReadFile(filepath.Join(r.dir, "db", "models.go"))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(b), tt.want) {
					t.Errorf("sqlc's models.go has no %q:\n%s", tt.want, b)
				}
			case r.sqlcErr == nil || !strings.Contains(string(r.sqlcOut), tt.sqlcErr):
				t.Errorf("sqlc generate: %v, %q; want a failure with %q", r.sqlcErr, r.sqlcOut, tt.sqlcErr)
			}
			o, err := r.out, cmp.Or(r.cfgErr, r.err)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("fencegen: %v; want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("fencegen: %v", err)
			}
			var all strings.Builder
			for _, b := range o.Files {
				all.Write(b)
			}
			if !strings.Contains(all.String(), tt.want) {
				t.Errorf("fencegen's output has no %q:\n%s", tt.want, all.String())
			}
		})
	}
}

// sqlcEntry is a version 2 sql list of one entry, for the rows of
// TestAcceptedWhereSqlcRefuses that write the whole configuration.
const sqlcEntry = "sql:\n  - engine: postgresql\n    schema: schema.sql\n    queries: query.sql\n    gen: {go: {out: db}}\n"

// mysqlEntry and mysqlSchema are the configuration and schema of the
// MySQL rows of TestAcceptedWhereSqlcRefuses.
const (
	mysqlEntry  = "version: \"2\"\nsql:\n  - engine: mysql\n    schema: schema.sql\n    queries: query.sql\n    gen: {go: {out: db}}\n"
	mysqlSchema = "CREATE TABLE authors (id BIGINT PRIMARY KEY, name VARCHAR(100) NOT NULL, score INT NOT NULL);\n" +
		"CREATE TABLE books (id INT PRIMARY KEY, author_id BIGINT, title VARCHAR(10));\n"
)

// TestPreparedSliceDbGo compares db.go with sqlc's for
// emit_prepared_queries and a query with IN (sqlc.slice(ids)) on
// database/sql: the one intended difference (docs/guard.md, "Not generated
// yet"; docs/sqlc.md's first paragraph) is that Prepare does not prepare
// the slice query, whose text holds /*SLICE:ids*/? until the method
// expands it, which PostgreSQL cannot prepare (sqlc prepares its IN ($1)
// text and never uses the statement). Every other line is sqlc's, the
// statement's field and its Close included. stdlibtest's sqlprepdb runs
// Prepare and the slice queries against PostgreSQL.
func TestPreparedSliceDbGo(t *testing.T) {
	r := sqlcAndFencegen(t, map[string]string{
		"sqlc.yaml":  "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: schema.sql\n    queries: query.sql\n    gen:\n      go: {out: db, emit_prepared_queries: true, emit_interface: true}\n",
		"schema.sql": "CREATE TABLE t (id bigint PRIMARY KEY, name text NOT NULL);\n",
		"query.sql": "-- name: ListIn :many\nSELECT id, name FROM t WHERE id IN (sqlc.slice(ids));\n\n" +
			"-- name: GetT :one\nSELECT * FROM t WHERE id = $1;\n\n" +
			"-- name: ZapIn :execrows\nDELETE FROM t WHERE name = @name AND id IN (sqlc.slice(ids));\n",
	}, "sqlc.yaml")
	r.mustBoth(t)
	b, err := os.ReadFile(filepath.Join(r.dir, "db", "db.go"))
	if err != nil {
		t.Fatal(err)
	}
	o := r.out
	body := func(s string) string { // less the header, up to the package clause
		return s[strings.Index(s, "\npackage "):]
	}
	want := body(string(b))
	for _, q := range []string{"listIn", "zapIn"} {
		block := "\tif q." + q + "Stmt, err = db.PrepareContext(ctx, " + q + "); err != nil {\n" +
			"\t\treturn nil, fmt.Errorf(\"error preparing query " + strings.ToUpper(q[:1]) + q[1:] + ": %w\", err)\n\t}\n"
		if !strings.Contains(want, block) {
			t.Fatalf("sqlc's db.go does not prepare %s as expected:\n%s", q, b)
		}
		want = strings.Replace(want, block, "", 1)
	}
	if got := body(string(o.Files["db/db.go"])); got != want {
		t.Errorf("db.go differs from sqlc's beyond the slice queries' Prepare:\n--- got\n%s\n--- want (sqlc's, less those)\n%s", got, want)
	}
}
