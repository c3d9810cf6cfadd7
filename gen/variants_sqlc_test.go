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
