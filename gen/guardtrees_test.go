package gen_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// TestGuardReadsLaterAlterTable: Generate keeps pg_query's parse tree of a
// schema's ALTER TABLE statements only (the others are dropped once the
// catalog is built), and the guard's replay still reads them: a migration
// after the guard migration that disables the guard trigger is a finding
// at its statement, and one that also enables it again is none.
func TestGuardReadsLaterAlterTable(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("q.sql", "-- name: Get :one\nSELECT id FROM jobs WHERE id = $1;\n")
	write("fencegen.yaml", "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: migrations\n    queries: q.sql\n    gen: {go: {package: x, out: out}}\n    fence:\n      tables:\n        - {table: jobs, column: tok}\n")
	write("migrations/00001_init.sql", "-- +goose Up\nCREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL);\n-- +goose Down\nDROP TABLE jobs;\n")
	guard := func() *gen.Guard {
		t.Helper()
		cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		out, err := gen.GenerateGuard(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Guards) != 1 {
			t.Fatalf("%d guards, want 1", len(out.Guards))
		}
		return out.Guards[0]
	}
	_, mig, err := guard().NextMigration(nil, nil, "goose", "00002")
	if err != nil || len(mig) != 1 {
		t.Fatalf("NextMigration: %d files, %v", len(mig), err)
	}
	for name, b := range mig {
		write("migrations/"+name, string(b))
	}
	if found := guard().GuardMigrations(nil); len(found) != 0 {
		t.Fatalf("after the guard migration: %v, want none", found)
	}

	write("migrations/00003_change.sql", "-- +goose Up\nALTER TABLE jobs DISABLE TRIGGER ALL;\n")
	found := guard().GuardMigrations(nil)
	if len(found) == 0 || !strings.Contains(found[0].String(), "00003_change.sql:2:1: disables the guard trigger of fenced table jobs") {
		t.Errorf("after a migration that disables the trigger: %v", found)
	}

	write("migrations/00003_change.sql", "-- +goose Up\nALTER TABLE jobs DISABLE TRIGGER ALL;\nALTER TABLE jobs ENABLE TRIGGER ALL;\n")
	if found := guard().GuardMigrations(nil); len(found) != 0 {
		t.Errorf("after a migration that disables and enables the trigger: %v, want none", found)
	}
}
