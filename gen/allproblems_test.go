package gen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// TestLoadConfigReportsEveryProblem is trial tnew F1: a configuration's
// problems do not hide the problems of its schemas and queries, nor those
// of the sqlc configuration a fencegen.yaml extends. One run reports
// them all, sorted by file, line and column: a fence mode typo and a
// fenced table typo on one line, a query kind typo, and a misspelled key
// of the extended sqlc.yaml (read as its suggestion, so no "missing key"
// follows from it).
func TestLoadConfigReportsEveryProblem(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("schema.sql", "CREATE TABLE inventory (product_id BIGINT PRIMARY KEY, quantity INT NOT NULL, fence_token BIGINT NOT NULL DEFAULT 0);\n")
	write("query.sql", "-- name: Adjust :exex\nUPDATE inventory SET quantity = quantity + @delta WHERE product_id = @id;\n")
	write("sqlc.yaml", "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: schema.sql\n    queries: query.sql\n    gen:\n      go: {package: db, out: db, sql_pakage: pgx/v5}\n")
	write("fencegen.yaml", "extends: sqlc.yaml\nfence:\n  tables:\n    - {table: inventroy, column: fence_token, mode: stirct}\n")
	t.Chdir(dir)
	_, err := gen.LoadConfig("fencegen.yaml")
	if err == nil {
		t.Fatal("LoadConfig succeeded, want every problem")
	}
	var got []string
	for _, p := range gen.Problems(err) {
		got = append(got, p.Error())
	}
	want := []string{
		`fencegen.yaml:4:15: fence: table "inventroy" does not exist in the schema of any sql entry of sqlc.yaml (did you mean inventory?)`,
		`fencegen.yaml:4:53: fence mode "stirct": want "strict", "non-strict" or "required"`,
		`query.sql:1:17: query Adjust: unknown command ":exex" (want one of :one, :many, :exec, :execrows, :execresult, :copyfrom, :batchexec, :batchmany, :batchone)`,
		`sqlc.yaml:7:34: unknown key "sql_pakage" (did you mean "sql_package"?)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLoadConfigChecksNoDoubtfulEntry: an entry whose own problem may
// change how its files are read (the engine left out or misspelled as a
// value, an unknown sql_package) is not generated in the checking run,
// so MySQL queries read as PostgreSQL give no syntax errors that follow
// from the missing engine; a misspelled key (engin:) is read as its
// suggestion, and the queries' own problems are reported with it.
func TestLoadConfigChecksNoDoubtfulEntry(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("schema.sql", "CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, v TEXT);\n")
	write("query.sql", "-- name: GetT :one\nSELECT * FROM t WHERE id = ?;\n-- name: Up :exex\nUPDATE t SET v = ? WHERE id = ?;\n")
	t.Chdir(dir)
	for _, tc := range []struct{ engine, want string }{
		{"", `sqlc.yaml:3:5: missing key "engine": want "postgresql"`},
		{"engine: mysqll", `sqlc.yaml:4:13: engine "mysqll" not supported: fencegen generates code for postgresql and mysql only`},
		{"engin: mysql", `query.sql:3:13: query Up: unknown command ":exex" (want one of :one, :many, :exec, :execrows, :execresult, :copyfrom, :batchexec, :batchmany, :batchone)
sqlc.yaml:4:5: unknown key "engin" (did you mean "engine"?)`},
	} {
		write("sqlc.yaml", "version: \"2\"\nsql:\n  - schema: schema.sql\n    "+tc.engine+"\n    queries: query.sql\n    gen:\n      go: {package: ov, out: ov}\n")
		_, err := gen.LoadConfig("sqlc.yaml")
		var got []string
		for _, p := range gen.Problems(err) {
			got = append(got, p.Error())
		}
		if strings.Join(got, "\n") != tc.want {
			t.Errorf("%q: problems:\n%s\nwant:\n%s", tc.engine, strings.Join(got, "\n"), tc.want)
		}
	}
}
