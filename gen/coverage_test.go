package gen

import (
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// generateTree writes files under a temporary directory (one of them
// sqlc.yaml) and generates from its sqlc.yaml.
func generateTree(t *testing.T, files map[string]string) *Output {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, files)
	cfg, err := LoadConfig(filepath.Join(dir, "sqlc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// modelTypes lists the struct types models.go declares.
func modelTypes(out *Output) []string {
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^type (\w+) struct`).FindAllStringSubmatch(string(out.Files["db/models.go"]), -1) {
		names = append(names, m[1])
	}
	slices.Sort(names)
	return names
}

const sqlcYAML = "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema, queries: q.sql, gen: {go: {package: db, out: db, sql_package: pgx/v5}}}\n"

// TestTemporaryTables builds a schema whose migrations create temporary
// tables (CREATE TEMP TABLE, CREATE TEMP TABLE ... AS), alter and drop
// them by their unqualified names, as PostgreSQL resolves those names
// (pg_temp first), and names the models of those that remain as sqlc
// v1.31.1 names them: without the pg_temp schema, unless it was written.
func TestTemporaryTables(t *testing.T) {
	out := generateTree(t, map[string]string{
		"sqlc.yaml": sqlcYAML,
		"schema/1.sql": `CREATE TABLE docs (id bigint PRIMARY KEY, title text NOT NULL);
CREATE TEMP TABLE tmp_docs AS SELECT id, title FROM docs;
ALTER TABLE tmp_docs ADD COLUMN note text;
CREATE TABLE doc_copy AS SELECT * FROM tmp_docs;
DROP TABLE tmp_docs;
CREATE TEMPORARY TABLE scratch (a int);
DROP TABLE IF EXISTS scratch;
CREATE TEMP TABLE kept (k int);
CREATE TABLE pg_temp.qualified (z int);
CREATE TEMP VIEW tv AS SELECT id FROM docs;
DROP VIEW tv;
`,
		"q.sql": "-- name: Copies :many\nSELECT * FROM doc_copy;\n\n-- name: Kept :copyfrom\nINSERT INTO kept (k) VALUES ($1);\n",
	})
	want := []string{"Doc", "DocCopy", "Kept", "PgTempQualified"}
	if got := modelTypes(out); !slices.Equal(got, want) {
		t.Errorf("models %q, want %q (sqlc's)", got, want)
	}
	if cf := string(out.Files["db/copyfrom.go"]); !regexp.MustCompile(`(pgx\.Identifier|\[\]string)\{"kept"\}`).MatchString(cf) {
		t.Errorf("copyfrom.go does not copy into {\"kept\"}, the name as written, as sqlc does:\n%s", cf)
	}
}
