package gen

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
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

// TestNamedFilesReadAsSqlcReadsThem names, in schema, files sqlc v1.31.1
// does not read although named (a golang-migrate down migration, a
// hidden file, one not ending in .sql): they are not read, and vet says
// so at the entry, so the query on the up migration's table generates as
// with sqlc.
func TestNamedFilesReadAsSqlcReadsThem(t *testing.T) {
	out := generateTree(t, map[string]string{
		"sqlc.yaml":    "version: \"2\"\nsql:\n  - {engine: postgresql, schema: [s.psql, m/1.up.sql, m/1.down.sql, .hidden.sql], queries: q.sql, gen: {go: {package: db, out: db, sql_package: pgx/v5}}}\n",
		"s.psql":       "CREATE TABLE a (id int);",
		"m/1.up.sql":   "CREATE TABLE b (id int);",
		"m/1.down.sql": "DROP TABLE b;",
		".hidden.sql":  "CREATE TABLE h (id int);",
		"q.sql":        "-- name: B :many\nSELECT id FROM b;\n",
	})
	if got, want := modelTypes(out), []string{"B"}; !slices.Equal(got, want) {
		t.Errorf("models %q, want %q (sqlc's)", got, want)
	}
	var notes []string
	for _, v := range out.Vet {
		if strings.Contains(v, "is not read") {
			notes = append(notes, v)
		}
	}
	if len(notes) != 3 {
		t.Fatalf("%d notes of files not read, want 3: %q", len(notes), out.Vet)
	}
	for i, want := range []string{"s.psql is not read: its name does not end in .sql", "m/1.down.sql is not read: it is a golang-migrate down migration", ".hidden.sql is not read: it is hidden"} {
		if !strings.Contains(notes[i], want) || !strings.Contains(notes[i], "sqlc.yaml:3:") {
			t.Errorf("note %d = %q, want it at sqlc.yaml:3 saying %q", i, notes[i], want)
		}
	}
}

// TestDownSectionsCut writes migrations whose down sections drop what
// the up sections create, each with a marker spelled as its tool accepts
// it: the down section is not read, so the columns remain. sqlc cuts the
// first spelling of each tool only (a line starting "-- +goose down",
// "-- +migrate down", "-- migrate:down" or "---- create above / drop
// below ----", ignoring case) and fails on the others ("column c does
// not exist"), where the tool, and so the database, leaves them. Near
// misses that neither the tool nor sqlc cuts at are read to the end, as
// both read them: the column is dropped.
func TestDownSectionsCut(t *testing.T) {
	markers := []string{
		"-- +goose Down\n",
		"-- +goose down\n",
		"--+goose Down\n",                            // goose: "--" then "+goose" then the annotation, spaces trimmed
		"-- +goose  Down\n",                          // goose
		"-- +goose Down\n-- +goose StatementBegin\n", // goose, a statement block in the down section
		"-- migrate:down\n",
		"--migrate:down\n",                    // dbmate: ^--\s*migrate:down
		"-- migrate:down transaction:false\n", // dbmate options
		"-- +migrate Down\n",
		"-- +migrate Down notransaction\n", // sql-migrate options
		"---- create above / drop below ----\n",
		// Any case: the search for a marker's words (readAndParse)
		// must find these too.
		"-- +GOOSE DOWN\n",
		"-- MIGRATE:DOWN\n",
		"-- +Migrate DOWN\n",
		"---- CREATE ABOVE / DROP BELOW ----\n",
		// goose removes every "--" and the first "+goose" before it
		// compares the rest with Down.
		"---- +goose Down\n",
		"-- +gooseDown\n",
		"--\t+goose\tdown \n",
		// tern splits at its divider anywhere in the file.
		"-- tern: ---- create above / drop below ----\n",
	}
	uncut := []string{
		"----  create above / drop below ----\n", // tern and sqlc: exact text
		"-- + goose Down\n",
		" -- +goose Down\n",   // goose refuses a leading blank
		"--  +migrate Down\n", // two spaces: neither sql-migrate nor sqlc
		"-- migrate: down\n",
		"-- +migrate\n",
	}
	files := map[string]string{"sqlc.yaml": sqlcYAML}
	var q strings.Builder
	for i, m := range uncut {
		name := fmt.Sprintf("u%d", i)
		files[fmt.Sprintf("schema/%03d_%s.sql", len(files), name)] = fmt.Sprintf("CREATE TABLE %s (id int, c int);\n%sALTER TABLE %s DROP COLUMN c;\n", name, m, name)
		fmt.Fprintf(&q, "-- name: Get%s :many\nSELECT id FROM %s;\n\n", name, name)
	}
	for i, m := range markers {
		for _, eol := range []string{"\n", "\r\n"} {
			name := fmt.Sprintf("t%d_%d", i, len(eol))
			src := fmt.Sprintf("CREATE TABLE %s (id int, c int);\n%sALTER TABLE %s DROP COLUMN c;\nDROP TABLE %s;\n", name, m, name, name)
			files[fmt.Sprintf("schema/%03d_%s.sql", len(files), name)] = strings.ReplaceAll(src, "\n", eol)
			fmt.Fprintf(&q, "-- name: Get%s :many\nSELECT c FROM %s;\n\n", strings.ReplaceAll(name, "_", "x"), name)
		}
	}
	files["q.sql"] = q.String()
	out := generateTree(t, files)
	if n := strings.Count(string(out.Files["db/models.go"]), "\tC "); n != 2*len(markers) {
		t.Errorf("%d models with column c, want %d:\n%s", n, 2*len(markers), out.Files["db/models.go"])
	}
}

// TestSchemaStatementsSqlcPasses generates from a schema whose
// statements PostgreSQL refuses and sqlc v1.31.1 passes over, because it
// does not apply them (ALTER TABLE OWNER TO or SET DEFAULT of a table or
// column that does not exist, ALTER and DROP SEQUENCE of one that does
// not exist): each is a vet note, and the run succeeds; ADD COLUMN to a
// table that does not exist, which sqlc applies, stays an error.
func TestSchemaStatementsSqlcPasses(t *testing.T) {
	out := generateTree(t, map[string]string{
		"sqlc.yaml": sqlcYAML,
		"schema/1.sql": `CREATE TABLE t (id bigint PRIMARY KEY);
ALTER TABLE nope OWNER TO someone;
ALTER TABLE t ALTER COLUMN gone SET DEFAULT 1;
ALTER SEQUENCE nope_seq RESTART WITH 1;
DROP SEQUENCE nope_seq;
`,
		"q.sql": "-- name: Get :one\nSELECT id FROM t WHERE id = $1;\n",
	})
	var notes []string
	for _, v := range out.Vet {
		if strings.Contains(v, "PostgreSQL refuses this statement") {
			notes = append(notes, v)
		}
	}
	if len(notes) != 4 {
		t.Errorf("%d notes of refused statements, want 4: %q", len(notes), out.Vet)
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"sqlc.yaml":    sqlcYAML,
		"schema/1.sql": "CREATE TABLE t (id bigint PRIMARY KEY);\nALTER TABLE nope ADD COLUMN x int;\n",
		"q.sql":        "-- name: Get :one\nSELECT id FROM t WHERE id = $1;\n",
	})
	cfg, err := LoadConfig(filepath.Join(dir, "sqlc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), `relation "nope" does not exist`) {
		t.Errorf("ADD COLUMN to a missing table: err = %v, want relation \"nope\" does not exist", err)
	}
}

// TestInSlicePgxAsSqlc generates IN (sqlc.slice(ids)) for pgx/v5 from a
// configuration sqlc reads: as sqlc generates it (IN ($1), ids []int64),
// with a vet note that PostgreSQL refuses it when it runs (pgx sends the
// slice as one array); in a fenced write it stays an error
// (gen/testdata/cases/in_slice_pgx_refused has fencegen's own file, which
// refuses it too).
func TestInSlicePgxAsSqlc(t *testing.T) {
	schema := "CREATE TABLE items (id bigint PRIMARY KEY, owner text NOT NULL);\n"
	out := generateTree(t, map[string]string{
		"sqlc.yaml":    sqlcYAML,
		"schema/1.sql": schema,
		"q.sql":        "-- name: ItemsIn :many\nSELECT id FROM items WHERE id IN (sqlc.slice(ids));\n",
	})
	src := string(out.Files["db/q.sql.go"])
	if !strings.Contains(src, "WHERE id IN ($1)") || !strings.Contains(src, "ids []int64") {
		t.Errorf("want sqlc's IN ($1) and ids []int64:\n%s", src)
	}
	if len(out.Vet) != 1 || !strings.Contains(out.Vet[0], "q.sql:2:35: note: query ItemsIn: PostgreSQL refuses this query when it runs") {
		t.Errorf("vet %q, want one note at the slice", out.Vet)
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"sqlc.yaml":    sqlcYAML,
		"schema/1.sql": schema + "CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n",
		"q.sql":        "-- name: Del :exec\nDELETE FROM jobs WHERE id IN (sqlc.slice(ids));\n",
	})
	cfg, err := LoadConfig(filepath.Join(dir, "sqlc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "IN (sqlc.slice(ids))") {
		t.Errorf("fenced: err = %v, want the IN (sqlc.slice) error", err)
	}
}
