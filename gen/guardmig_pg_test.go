package gen_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// TestGuardNextMigrationGoose applies, as goose does (statement by
// statement, StatementBegin/End blocks whole), a first guard migration
// for leases, then the next one NextMigration writes after jobs is fenced
// and leases made strict, then that one's down section: up, both tables
// refuse a stale token with the current mode; down, jobs has no trigger
// and leases' non-strict guard is back.
func TestGuardNextMigrationGoose(t *testing.T) {
	tables := "CREATE TABLE leases (id bigint PRIMARY KEY, tok bigint NOT NULL);\nCREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL);\n"
	dir := t.TempDir()
	mig := filepath.Join(dir, "migrations")
	if err := os.MkdirAll(mig, 0o755); err != nil {
		t.Fatal(err)
	}
	guardOf := func(fence string) *gen.Guard {
		t.Helper()
		files := map[string]string{
			"q.sql":                     "-- name: Get :one\nSELECT id FROM leases WHERE id = $1;\n",
			"fencegen.yaml":             "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: migrations\n    queries: q.sql\n    gen: {go: {package: x, out: out}}\n    fence:\n      tables:\n" + fence,
			"migrations/00001_init.sql": "-- +goose Up\n" + tables + "-- +goose Down\nDROP TABLE jobs;\nDROP TABLE leases;\n",
		}
		for n, s := range files {
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(n)), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		out, err := gen.GenerateGuard(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return out.Guards[0]
	}
	next := func(g *gen.Guard, version string) string {
		t.Helper()
		ents, _ := os.ReadDir(mig)
		var files []string
		for _, e := range ents {
			files = append(files, filepath.Join(mig, e.Name()))
		}
		current, out, err := g.NextMigration(files, nil, "goose", version)
		if err != nil || current != "" || len(out) != 1 {
			t.Fatalf("NextMigration: %q, %d files, %v", current, len(out), err)
		}
		name := version + "_fencegen_guard.sql"
		if err := os.WriteFile(filepath.Join(mig, name), out[name], 0o644); err != nil {
			t.Fatal(err)
		}
		return string(out[name])
	}
	up1, _ := gooseStatements(t, next(guardOf("        - {table: leases, column: tok}\n"), "00002"))
	fence2 := "        - {table: leases, column: tok, mode: strict}\n        - {table: jobs, column: tok}\n"
	up2, down2 := gooseStatements(t, next(guardOf(fence2), "00003"))
	if found := guardOf(fence2).GuardMigrations(nil); len(found) != 0 {
		t.Fatalf("after the next migration: %v; want it current", found)
	}

	pool := testenv.Database(t, tables)
	ctx := context.Background()
	apply := func(stmts []string) {
		t.Helper()
		for _, s := range stmts {
			if _, err := pool.Exec(ctx, s); err != nil {
				t.Fatalf("%v in:\n%s", err, s)
			}
		}
	}
	refused := func(sql, detail string) {
		t.Helper()
		_, err := pool.Exec(ctx, sql)
		var pe *pgconn.PgError
		if detail == "" {
			if err != nil {
				t.Fatalf("%s: %v, want it to succeed", sql, err)
			}
			return
		}
		if !errors.As(err, &pe) || pe.Code != fenceimpl.SQLState || pe.Detail != detail {
			t.Fatalf("%s: %v; want SQLSTATE %s with DETAIL %s", sql, err, fenceimpl.SQLState, detail)
		}
	}
	apply(up1)
	apply([]string{"INSERT INTO leases VALUES (1, 5)", "INSERT INTO jobs VALUES (1, 5)"})
	refused("UPDATE leases SET tok = 5 WHERE id = 1", "") // non-strict: an equal token passes
	refused("UPDATE jobs SET tok = 4 WHERE id = 1", "")   // not fenced yet
	apply(up2)
	refused("UPDATE leases SET tok = 5 WHERE id = 1", "presented=5 stored=5 mode=strict")
	refused("UPDATE jobs SET tok = 3 WHERE id = 1", "presented=3 stored=4 mode=non-strict")
	apply(down2)
	refused("UPDATE leases SET tok = 5 WHERE id = 1", "")
	refused("UPDATE leases SET tok = 4 WHERE id = 1", "presented=4 stored=5 mode=non-strict")
	refused("UPDATE jobs SET tok = 3 WHERE id = 1", "")
	var fns int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM pg_proc WHERE proname LIKE 'fencegen_guard_jobs_%'").Scan(&fns); err != nil || fns != 0 {
		t.Errorf("jobs' guard functions after down: %d, %v; want 0", fns, err)
	}
	if !strings.Contains(strings.Join(down2, ""), "Back to the guard") {
		t.Errorf("down section:\n%s", strings.Join(down2, ""))
	}
}
