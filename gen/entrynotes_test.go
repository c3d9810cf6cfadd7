package gen_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestNotesNameTheirEntry: two sql entries that read the same query file
// each get their notes for it; where both have a note at one place, each
// note names its entry, so that a reader tells the pgx/v5 note from the
// pgx/v4 one at the same file:line:col. A note only one entry has is
// left as it is.
func TestNotesNameTheirEntry(t *testing.T) {
	dir := t.TempDir()
	for n, s := range map[string]string{
		"schema.sql": "CREATE TABLE k (id bigint PRIMARY KEY, atn timestamptz NOT NULL, total int NOT NULL);\n",
		"query.sql":  "-- name: Days :many\nSELECT date_trunc('day', atn) AS day FROM k;\n-- name: Total :one\nSELECT sum(total::bigint) FROM k;\n",
		"sqlc.yaml": `version: "2"
sql:
  - {engine: postgresql, schema: schema.sql, queries: query.sql, gen: {go: {package: v5, out: v5, sql_package: pgx/v5}}}
  - {engine: postgresql, schema: schema.sql, queries: query.sql, gen: {go: {package: v4, out: v4, sql_package: pgx/v4}}}
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := gen.LoadConfig(filepath.Join(dir, "sqlc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	vet := strings.Join(out.Vet, "\n")
	for _, want := range []string{
		"query.sql:1:1: note: sql entry v5: query Days: result column day is pgtype.Interval, as sqlc declares it; postgresql_types: true declares pgtype.Timestamptz",
		"query.sql:1:1: note: sql entry v4: query Days: result column day is int64, as sqlc declares it; postgresql_types: true declares time.Time",
		"query.sql:1:1: note: sql entry v4: query Days: result column day is declared int64, as sqlc declares it for pgx/v4, reading it as an interval",
	} {
		if !strings.Contains(vet, want) {
			t.Errorf("vet notes:\n%s\nwant one starting %q", vet, want)
		}
	}
	if i := slices.IndexFunc(out.Vet, func(n string) bool {
		return strings.HasPrefix(n, "query.sql:") && !strings.Contains(n, ": note: sql entry v")
	}); i >= 0 {
		t.Errorf("a note at a place both entries have notes at does not name its entry: %s", out.Vet[i])
	}
}

// TestModelNotesNameTheirEntry (issue 23, trial-sw3 F10): two MySQL
// entries share a schema, one overriding courses.id to []byte. The note
// about courses.id is true only for the other entry, and says so; the
// type it gives as sqlc's is the field sqlc v1.31.1 writes for that
// entry, and the overriding entry has no note for the column.
func TestModelNotesNameTheirEntry(t *testing.T) {
	sqlc := testenv.SqlcBinary()
	if sqlc == "" {
		testenv.UnavailableAt(t, "sqlc v1.31.1 (go install github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1)", "SQLC", "", errors.New("not in $SQLC, GOPATH/bin or PATH"))
	}
	dir := t.TempDir()
	for n, s := range map[string]string{
		"schema.sql": "CREATE TABLE courses (\n  `id` BINARY(16),\n  name text NOT NULL,\n  PRIMARY KEY (`id`)\n);\n",
		"a.sql":      "-- name: ListA :many\nSELECT name FROM courses;\n",
		"b.sql":      "-- name: ListB :many\nSELECT name FROM courses;\n",
		"sqlc.yaml": `version: "2"
sql:
  - {engine: mysql, name: plain, schema: schema.sql, queries: a.sql, gen: {go: {package: a, out: a}}}
  - {engine: mysql, name: bytes, schema: schema.sql, queries: b.sql, gen: {go: {package: b, out: b, overrides: [{column: courses.id, go_type: {type: "[]byte"}}]}}}
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(sqlc, "generate")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sqlc generate: %v\n%s", err, b)
	}
	cfg, err := gen.LoadConfig(filepath.Join(dir, "sqlc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var idNotes []string
	for _, n := range out.Vet {
		if strings.Contains(n, "column courses.id") {
			idNotes = append(idNotes, n)
		}
	}
	const want = "schema.sql:1:1: note: sql entry plain: column courses.id is sql.NullString, as sqlc declares it; mysql_types: true declares []byte"
	if len(idNotes) != 1 || !strings.HasSuffix(idNotes[0], want) {
		t.Fatalf("notes on courses.id: %q, want one ending %q; all notes:\n%s", idNotes, want, strings.Join(out.Vet, "\n"))
	}
	for entry, field := range map[string]string{"a": "ID   sql.NullString", "b": "ID   []byte"} {
		b, err := os.ReadFile(filepath.Join(dir, entry, "models.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "\t"+field+"\n") {
			t.Errorf("sqlc's %s/models.go has no field %q:\n%s", entry, field, b)
		}
		if !strings.Contains(string(out.Files[entry+"/models.go"]), "\t"+field+"\n") {
			t.Errorf("fencegen's %s/models.go has no field %q:\n%s", entry, field, out.Files[entry+"/models.go"])
		}
	}
}

// Trial sw4 F1: a function in FROM that sqlc and PostgreSQL read to the
// same result columns gives no note (before, vet listed two identical
// column lists); one they read differently still does.
func TestFromClauseNoteOnlyWhereTheAPIDiffers(t *testing.T) {
	dir := t.TempDir()
	for n, s := range map[string]string{
		"schema.sql": "CREATE FUNCTION parts(d date) RETURNS TABLE(partition_name text) LANGUAGE sql AS $$ SELECT 'x'::text $$;\n" +
			"CREATE FUNCTION pair() RETURNS TABLE(a int, b text) LANGUAGE sql AS $$ SELECT 1, 'x'::text $$;\n",
		"query.sql": "-- name: ListParts :many\nSELECT p::text AS partition_name FROM parts(@d::date) AS p;\n" +
			"-- name: Pair :many\nSELECT * FROM pair();\n",
		"sqlc.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: query.sql, gen: {go: {package: db, out: db, sql_package: pgx/v5}}}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := gen.LoadConfig(filepath.Join(dir, "sqlc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	vet := strings.Join(out.Vet, "\n")
	if strings.Contains(vet, "query ListParts: result columns") {
		t.Errorf("vet notes:\n%s\nwant no note for ListParts, whose columns are the same either way", vet)
	}
	if !strings.Contains(vet, "query Pair: result columns") {
		t.Errorf("vet notes:\n%s\nwant the note for Pair, whose column names differ", vet)
	}
}

// Trial sw4 F4: a configuration sqlc reads under another name
// (sqlc generate -f sqlc-pg.yaml) is read as sqlc reads it: a column
// override that matches no column is a note, as in sqlc.yaml, not an
// error; in fencegen.yaml it stays an error.
func TestUnmatchedOverrideInAnyNamedSqlcConfig(t *testing.T) {
	conf := "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: schema.sql\n    queries: query.sql\n    gen:\n      go:\n        package: db\n        out: db\n        sql_package: pgx/v5\n        overrides:\n          - {column: t.workspace_id, go_type: github.com/google/uuid.UUID}\n"
	for name, wantErr := range map[string]bool{"sqlc-pg.yaml": false, "sqlc.yaml": false, "fencegen.yaml": true} {
		dir := t.TempDir()
		for n, s := range map[string]string{
			"schema.sql": "CREATE TABLE t (id bigint PRIMARY KEY, name text NOT NULL);\n",
			"query.sql":  "-- name: GetT :one\nSELECT * FROM t WHERE id = $1;\n",
			name:         conf,
		} {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cfg, err := gen.LoadConfig(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out, err := gen.Generate(context.Background(), cfg)
		switch {
		case wantErr && (err == nil || !strings.Contains(err.Error(), `column "t.workspace_id" matches no column`)):
			t.Errorf("%s: err = %v, want the unmatched override as an error", name, err)
		case !wantErr && err != nil:
			t.Errorf("%s: %v, want the file generated with a note, as sqlc generates it", name, err)
		case !wantErr && !strings.Contains(strings.Join(out.Vet, "\n"), `column "t.workspace_id" matches no column in the schema`):
			t.Errorf("%s: vet notes %q, want the unmatched override noted", name, out.Vet)
		}
	}
}
