package gen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// apiAsSqlc generates files (name to text; config names the sqlc
// configuration among them) with sqlc v1.31.1 and with fencegen, and
// fails the test unless both generate and the Go files under out declare
// the same API (declared, import lines left out: sqlc's import blocks
// are wrong in places where its code does not compile).
func apiAsSqlc(t *testing.T, files map[string]string, config string) {
	t.Helper()
	r := sqlcAndFencegen(t, files, config)
	r.mustBoth(t)
	want := map[string][]byte{}
	err := filepath.WalkDir(r.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(r.dir, p)
		want[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	for n, b := range r.out.Files {
		if strings.HasSuffix(n, ".go") {
			got[n] = b
		}
	}
	api := func(files map[string][]byte) []string {
		var out []string
		for _, l := range declared(t, files, false) {
			if !strings.HasPrefix(l, "import ") {
				out = append(out, l)
			}
		}
		return out
	}
	w, g := strings.Join(api(want), "\n"), strings.Join(api(got), "\n")
	if w != g {
		t.Errorf("API differs from sqlc's\nsqlc:\n%s\nfencegen:\n%s", w, g)
	}
}

// TestMySQLCopyfromNotInQuerierAsSqlc (issue 23 trial e2e4 F5): sqlc's
// database/sql interface template has no :copyfrom case, so a MySQL
// :copyfrom method is on Queries but not in Querier.
func TestMySQLCopyfromNotInQuerierAsSqlc(t *testing.T) {
	apiAsSqlc(t, map[string]string{
		"schema.sql": "CREATE TABLE foo (a text, b integer);\n",
		"q.sql": "-- name: InsertValues :copyfrom\nINSERT INTO foo (a, b) VALUES (?, ?);\n\n" +
			"-- name: CountFoo :one\nSELECT count(*) FROM foo;\n",
		"sqlc.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, sql_driver: github.com/go-sql-driver/mysql, emit_interface: true}}}\n",
	}, "sqlc.yaml")
}

// TestRenameReusesModelAsSqlc (issue 23, trial e2e4 F8): sqlc returns a
// table's model when every result column has the model field's Go name
// (after rename), Go type and table, so an alias renamed to the field's
// name, or another column of the table under a field's name, reads into
// the model; on PostgreSQL and MySQL.
func TestRenameReusesModelAsSqlc(t *testing.T) {
	schema := "CREATE TABLE authors (id bigint PRIMARY KEY, name text NOT NULL, bio text, note text);\n"
	queries := "-- name: ListAuthors :many\nSELECT id, name AS full_name, bio, note FROM authors;\n\n" +
		"-- name: ListNm :many\nSELECT id, name AS nm, bio, note FROM authors;\n\n" +
		"-- name: Swapped :many\nSELECT id, name, note AS bio, bio AS note FROM authors;\n\n" +
		"-- name: NotSameType :many\nSELECT id, name, bio, name AS note FROM authors;\n\n" +
		"-- name: Plain :many\nSELECT id, name, bio, note FROM authors;\n"
	for _, engine := range []string{"postgresql", "mysql"} {
		for _, rename := range []string{"{name: FullName}", "{full_name: Name}", "{nm: Name, name: Name}"} {
			t.Run(engine+" "+rename, func(t *testing.T) {
				pkg := ", sql_package: pgx/v5"
				if engine == "mysql" {
					pkg = ""
				}
				apiAsSqlc(t, map[string]string{
					"schema.sql": schema,
					"q.sql":      queries,
					"sqlc.yaml": "version: \"2\"\nsql:\n  - {engine: " + engine + ", schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out" + pkg +
						", rename: " + rename + "}}}\n",
				}, "sqlc.yaml")
			})
		}
	}
}

// TestRoutineOverridesAsSqlc (issue 23, trial e2e4 F9 and F6): sqlc
// matches a db_type override against a user function's or procedure's
// parameters and result with the type as its parser records the
// declaration (int is pg_catalog.int4, bool is bool, boolean is
// pg_catalog.bool; on MySQL the type's name), as for a table column; so
// an override applies to a routine's parameter exactly where it applies
// to a column declared with the same type.
func TestRoutineOverridesAsSqlc(t *testing.T) {
	pg := [][2]string{ // declared type, override's db_type
		{"int", "int4"}, {"int", "integer"}, {"int", "pg_catalog.int4"},
		{"text", "text"}, {"text", "pg_catalog.text"}, {"varchar", "varchar"}, {"varchar", "pg_catalog.varchar"},
		{"timestamptz", "timestamptz"}, {"timestamptz", "pg_catalog.timestamptz"},
		{"bool", "bool"}, {"bool", "boolean"}, {"bool", "pg_catalog.bool"}, {"boolean", "pg_catalog.bool"},
		{"int8", "bigint"}, {"int8", "pg_catalog.int8"}, {"bigint", "pg_catalog.int8"},
		{"numeric", "numeric"}, {"numeric", "pg_catalog.numeric"}, {"uuid", "uuid"}, {"uuid", "pg_catalog.uuid"},
		{"jsonb", "jsonb"}, {"jsonb", "pg_catalog.jsonb"},
	}
	for _, c := range pg {
		t.Run("postgresql "+c[0]+" "+c[1], func(t *testing.T) {
			apiAsSqlc(t, map[string]string{
				"schema.sql": "CREATE TABLE tbl (v " + c[0] + " NOT NULL);\n" +
					"CREATE FUNCTION f(a " + c[0] + ") RETURNS " + c[0] + " AS $$ SELECT a $$ LANGUAGE sql;\n" +
					"CREATE PROCEDURE p(a " + c[0] + ", b " + c[0] + ") LANGUAGE sql AS $$ INSERT INTO tbl VALUES (a); $$;\n",
				"q.sql": "-- name: CallF :one\nSELECT f($1);\n\n-- name: CallP :exec\nCALL p($1, $2);\n\n" +
					"-- name: GetV :many\nSELECT v FROM tbl WHERE v = $1;\n",
				"sqlc.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, sql_package: pgx/v5" +
					", overrides: [{db_type: \"" + c[1] + "\", go_type: \"github.com/x/custom.T\"}]}}}\n",
			}, "sqlc.yaml")
		})
	}
	my := [][2]string{
		{"int", "int"}, {"integer", "int"}, {"int", "integer"}, {"bigint", "bigint"}, {"varchar(20)", "varchar"},
		{"char(36)", "char"}, {"decimal(10,2)", "decimal"}, {"timestamp", "timestamp"}, {"json", "json"},
		{"text", "text"}, {"bigint unsigned", "bigint"}, {"int unsigned", "int"}, {"tinyint(1)", "tinyint"},
		{"boolean", "tinyint"}, {"datetime", "datetime"}, {"double", "double"}, {"year", "year"},
	}
	for _, c := range my {
		t.Run("mysql "+c[0]+" "+c[1], func(t *testing.T) {
			apiAsSqlc(t, map[string]string{
				"schema.sql": "CREATE TABLE tbl (id bigint NOT NULL PRIMARY KEY, v " + c[0] + " NOT NULL, w " + c[0] + ");\n" +
					"CREATE PROCEDURE p(a " + c[0] + ")\nBEGIN\n  SELECT a;\nEND;\n",
				"q.sql": "-- name: GetV :many\nSELECT v, w FROM tbl WHERE v = ?;\n\n-- name: CallP :exec\nCALL p(?);\n\n" +
					"-- name: Ins :exec\nINSERT INTO tbl (id, v, w) VALUES (?, ?, ?);\n",
				"sqlc.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out" +
					", overrides: [{db_type: \"" + c[1] + "\", go_type: \"github.com/x/custom.T\"}, {db_type: \"" + c[1] + "\", nullable: true, go_type: \"github.com/x/custom.N\"}]}}}\n",
			}, "sqlc.yaml")
		})
	}
}

// TestSystemViewOverridesAsSqlc (issue 23, trial e2e4 F7): sqlc's
// pg_catalog spells a system catalog's or view's column type by its
// unqualified name, so db_type bool matches pg_timezone_names.is_dst
// and pg_catalog.bool does not (nullable and not).
func TestSystemViewOverridesAsSqlc(t *testing.T) {
	for _, ov := range []string{
		"{db_type: pg_catalog.bool, nullable: true, go_type: database/sql.NullBool}",
		"{db_type: bool, nullable: true, go_type: database/sql.NullBool}",
		"{db_type: pg_catalog.text, nullable: true, go_type: github.com/x/custom.T}",
		"{db_type: text, nullable: true, go_type: github.com/x/custom.T}",
		"{db_type: pg_catalog.int8, go_type: github.com/x/custom.T}",
		"{db_type: int8, go_type: github.com/x/custom.T}",
		"{db_type: pg_catalog.oid, go_type: github.com/x/custom.T}",
		"{db_type: oid, go_type: github.com/x/custom.T}",
	} {
		t.Run(ov, func(t *testing.T) {
			apiAsSqlc(t, map[string]string{
				"schema.sql": "CREATE TABLE t (id bigint PRIMARY KEY, flag boolean);\n",
				"q.sql": "-- name: GetTimezones :many\nSELECT name, is_dst FROM pg_catalog.pg_timezone_names;\n\n" +
					"-- name: GetClass :many\nSELECT oid, relname, reltuples, relhasindex FROM pg_catalog.pg_class WHERE relname = $1;\n\n" +
					"-- name: GetStat :many\nSELECT pid, xact_start FROM pg_catalog.pg_stat_activity;\n",
				"sqlc.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, sql_package: pgx/v5" +
					", overrides: [" + ov + "]}}}\n",
			}, "sqlc.yaml")
		})
	}
}

// TestArraySubscriptAssignAsSqlc (issue 23, trial e2e4 F4): in SET
// names[$1] = $2, sqlc types both parameters as the whole column
// ([]string), where PostgreSQL types them int4 and text; on every
// sql_package.
func TestArraySubscriptAssignAsSqlc(t *testing.T) {
	for _, pkg := range []string{"pgx/v5", "pgx/v4", "database/sql"} {
		t.Run(pkg, func(t *testing.T) {
			apiAsSqlc(t, map[string]string{
				"schema.sql": "CREATE TABLE authors (id BIGSERIAL PRIMARY KEY, names text[] NOT NULL, tags int[]);\n",
				"q.sql": "-- name: UpdateAuthor :one\nupdate authors set names[$1] = $2 where id=$3 RETURNING *;\n\n" +
					"-- name: UpdateTag :exec\nUPDATE authors SET tags[@idx] = @tag WHERE id = @id;\n\n" +
					"-- name: UpdateBoth :exec\nUPDATE authors SET tags[$1] = COALESCE($2, 0), names = $3 WHERE id = $4;\n",
				"sqlc.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, sql_package: " + pkg + "}}}\n",
			}, "sqlc.yaml")
		})
	}
}

// TestMySQLRepeatedArgNoted (issue 23, trial e2e4 F1): a MySQL named
// parameter used twice, with query_parameter_limit 2 so that the
// parameters are the method's arguments, is one argument in fencegen's
// method, where sqlc v1.31.1 declares it twice (which does not
// compile); fencegen vet says so at the query. With the default
// limit both merge it into one Params field, and there is no note.
func TestMySQLRepeatedArgNoted(t *testing.T) {
	for _, limit := range []string{"2", "1"} {
		t.Run("query_parameter_limit "+limit, func(t *testing.T) {
			r := sqlcAndFencegen(t, map[string]string{
				"schema.sql": "CREATE TABLE users (id integer NOT NULL PRIMARY KEY, first_name varchar(255));\n",
				"q.sql":      "/* name: SelectUserByID :many */\nSELECT first_name FROM users WHERE (sqlc.arg(id) = id OR sqlc.arg(id) = 0);\n",
				"sqlc.yaml":  "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, query_parameter_limit: " + limit + "}}}\n",
			}, "sqlc.yaml")
			r.mustBoth(t)
			want, err := os.ReadFile(filepath.Join(r.dir, "out", "q.sql.go"))
			if err != nil {
				t.Fatal(err)
			}
			got := string(r.out.Files["out/q.sql.go"])
			var notes []string
			for _, n := range r.out.Vet {
				if strings.Contains(n, "named parameter id is used 2 times") {
					notes = append(notes, n)
				}
			}
			if limit == "2" {
				if !strings.Contains(string(want), "iD int32, iD int32") {
					t.Fatalf("sqlc no longer repeats the argument; the note is wrong:\n%s", want)
				}
				if !strings.Contains(got, "SelectUserByID(ctx context.Context, id int32)") {
					t.Errorf("want one argument id int32:\n%s", got)
				}
				if len(notes) != 1 || !strings.Contains(notes[0], "q.sql:1:1: note: query SelectUserByID:") {
					t.Errorf("want one note at the query's annotation, q.sql:1:1, vet says:\n%s", strings.Join(r.out.Vet, "\n"))
				}
				return
			}
			if len(notes) != 0 {
				t.Errorf("want no note with a Params struct, vet says:\n%s", strings.Join(notes, "\n"))
			}
		})
	}
}
