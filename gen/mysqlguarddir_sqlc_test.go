package gen_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// TestMySQLGuardMigrationOutsideSqlcSchema (issue 27, trial t27h F1): a
// guard migration written into the schema directory of an engine mysql
// entry that sqlc reads makes sqlc generate fail (its MySQL parser stops
// at CREATE TRIGGER), so fencegen guard refuses that directory, naming
// the one fencegen.yaml's schema key lists; there sqlc never reads it,
// and fencegen reads it among sqlc's migrations.
func TestMySQLGuardMigrationOutsideSqlcSchema(t *testing.T) {
	bin := needSqlc(t)
	dir := t.TempDir()
	gen.WriteTree(t, dir, map[string]string{
		"sqlc.yaml":           "version: \"2\"\nsql:\n  - engine: mysql\n    schema: schema\n    queries: q.sql\n    gen: {go: {package: db, out: db}}\n",
		"fencegen.yaml":       "extends: sqlc.yaml\nschema: triggers\nfence:\n  tables:\n    - {table: jobs, column: tok}\n",
		"q.sql":               "-- name: GetJob :one\nSELECT id FROM jobs WHERE id = ?;\n",
		"schema/001_init.sql": "-- +goose Up\nCREATE TABLE jobs (id BIGINT NOT NULL PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);\n-- +goose Down\nDROP TABLE jobs;\n",
		"triggers/.keep":      "",
	})
	sqlc := func() ([]byte, error) {
		cmd := exec.Command(bin, "generate")
		cmd.Dir = dir
		return cmd.CombinedOutput()
	}
	cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.GenerateGuard(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	g := out.Guards[0]
	files, err := g.Migration("goose", "002")
	if err != nil {
		t.Fatal(err)
	}
	mig := files["002_fencegen_guard.sql"]

	// In sqlc's schema directory: sqlc fails, and guard refuses it.
	inSchema := filepath.Join(dir, "schema", "002_fencegen_guard.sql")
	if err := os.WriteFile(inSchema, mig, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := sqlc(); err == nil || !strings.Contains(string(b), "syntax error") {
		t.Fatalf("sqlc generate with the guard migration in its schema: %v\n%s", err, b)
	}
	want := "sqlc reads it as a schema file of the engine mysql entry of sqlc.yaml (schema: schema), and sqlc v1.31.1 cannot parse the CREATE TRIGGER statements of a guard migration (syntax error), so sqlc generate would fail: write them to a directory that the schema key of fencegen.yaml lists, which only fencegen reads (in version order among the migrations of sqlc.yaml): -dir "
	if err := g.Writable(inSchema); err == nil || !strings.Contains(err.Error(), want) || !strings.HasSuffix(err.Error(), "triggers") {
		t.Errorf("Writable(schema/...) = %v, want %q... triggers", err, want)
	}
	if err := os.Remove(inSchema); err != nil {
		t.Fatal(err)
	}

	// In the directory only fencegen reads: sqlc generates, and so does
	// fencegen, which reads it after 001.
	inTriggers := filepath.Join(dir, "triggers", "002_fencegen_guard.sql")
	if err := g.Writable(inTriggers); err != nil {
		t.Errorf("Writable(triggers/...): %v", err)
	}
	if err := os.WriteFile(inTriggers, mig, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := sqlc(); err != nil {
		t.Fatalf("sqlc generate with the guard migration in triggers/: %v\n%s", err, b)
	}
	if _, err := gen.Generate(context.Background(), cfg); err != nil {
		t.Fatalf("fencegen generate: %v", err)
	}

	// fencegen's own configuration, which sqlc never reads: its schema
	// directory takes the guard migrations.
	own := filepath.Join(dir, "own.yaml")
	if err := os.WriteFile(own, []byte("version: \"2\"\nsql:\n  - engine: mysql\n    schema: schema\n    queries: q.sql\n    gen: {go: {package: db, out: db}}\nfence:\n  tables:\n    - {table: jobs, column: tok}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err = gen.LoadConfig(own)
	if err != nil {
		t.Fatal(err)
	}
	if out, err = gen.GenerateGuard(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if err := out.Guards[0].Writable(inSchema); err != nil {
		t.Errorf("own.yaml: Writable(schema/...) = %v, want nil", err)
	}
}
