package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// TestGuardMigrationUpgrade applies, to real PostgreSQL and in the order
// dbmate applies them, the schema, a guard migration as the previous
// fencegen wrote it (testdata/script/guard_outdated.txtar: its trigger
// raises without DETAIL, SCHEMA, TABLE and COLUMN), and the new migration
// fencegen guard writes next to it after generate and check reported the
// old one: the
// trigger then raises FN001 with the new fields; check passes.
func TestGuardMigrationUpgrade(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/script/guard_outdated.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		if f.Name == "query.sql" || f.Name == "old.yaml" || strings.HasPrefix(f.Name, "old/") {
			p := filepath.Join(dir, filepath.FromSlash(f.Name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Chdir(dir)
	cli := func(want int, args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(args, nil, &stdout, &stderr); code != want {
			t.Fatalf("fencegen %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, stdout.String(), stderr.String())
		}
		return stdout.String() + stderr.String()
	}
	for _, cmd := range []string{"generate", "check"} {
		if got := cli(exitError, cmd, "-f", "old.yaml"); !strings.Contains(got, "older fencegen (guard template 1") {
			t.Fatalf("%s before the new migration:\n%s", cmd, got)
		}
	}
	cli(exitOK, "guard", "-f", "old.yaml", "-format", "dbmate", "-dir", "old", "-version", "20260102150407")
	cli(exitOK, "generate", "-f", "old.yaml")
	cli(exitOK, "check", "-f", "old.yaml")

	// dbmate runs each file's up section as one multi-statement query.
	up := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("old", name))
		if err != nil {
			t.Fatal(err)
		}
		_, s, ok := strings.Cut(string(b), "-- migrate:up\n")
		s, _, ok2 := strings.Cut(s, "-- migrate:down\n")
		if !ok || !ok2 {
			t.Fatalf("%s: no dbmate sections", name)
		}
		return s
	}
	pool := testenv.Database(t, up("20260102150405_init.sql"))
	ctx := context.Background()
	exec := func(sql string) error {
		_, err := pool.Exec(ctx, sql)
		return err
	}
	if err := exec(up("20260102150406_fencegen_guard.sql")); err != nil {
		t.Fatalf("old guard migration: %v", err)
	}
	if err := exec("INSERT INTO leases VALUES (1, 5)"); err != nil {
		t.Fatal(err)
	}
	var pe *pgconn.PgError
	if err := exec("UPDATE leases SET tok = 4 WHERE id = 1"); !errors.As(err, &pe) || pe.Code != fenceimpl.SQLState || pe.Detail != "" || pe.TableName != "" {
		t.Fatalf("under the old guard: %v (%+v); want SQLSTATE %s without DETAIL or TABLE", err, pe, fenceimpl.SQLState)
	}
	if err := exec(up("20260102150407_fencegen_guard.sql")); err != nil {
		t.Fatalf("new guard migration over the old: %v", err)
	}
	err = exec("UPDATE leases SET tok = 4 WHERE id = 1")
	if !errors.As(err, &pe) || pe.Code != fenceimpl.SQLState {
		t.Fatalf("under the new guard: %v; want SQLSTATE %s", err, fenceimpl.SQLState)
	}
	if pe.Detail != "presented=4 stored=5 mode=non-strict" || pe.SchemaName != "public" || pe.TableName != "leases" || pe.ColumnName != "tok" {
		t.Errorf("under the new guard: DETAIL %q SCHEMA %q TABLE %q COLUMN %q; want presented=4 stored=5 mode=non-strict, public, leases, tok",
			pe.Detail, pe.SchemaName, pe.TableName, pe.ColumnName)
	}
	if err := exec("UPDATE leases SET tok = 6 WHERE id = 1"); err != nil {
		t.Errorf("raising the token under the new guard: %v", err)
	}
	// Its down section brings back the guard of the old migration.
	b, err := os.ReadFile(filepath.Join("old", "20260102150407_fencegen_guard.sql"))
	if err != nil {
		t.Fatal(err)
	}
	_, down, _ := strings.Cut(string(b), "-- migrate:down\n")
	if err := exec(down); err != nil {
		t.Fatalf("down: %v", err)
	}
	if err := exec("UPDATE leases SET tok = 5 WHERE id = 1"); !errors.As(err, &pe) || pe.Code != fenceimpl.SQLState || pe.Detail != "" {
		t.Fatalf("after down: %v (%+v); want the old guard's SQLSTATE %s without DETAIL", err, pe, fenceimpl.SQLState)
	}
	if err := exec(up("20260102150407_fencegen_guard.sql")); err != nil {
		t.Fatalf("up again: %v", err)
	}
	var triggers int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM pg_trigger WHERE tgname = 'fencegen_guard'").Scan(&triggers); err != nil || triggers != 1 {
		t.Errorf("fencegen_guard triggers: %d, %v; want 1", triggers, err)
	}
}

// TestGuardDocShowsCheckOutput keeps the check output that
// docs/database-guard.md shows equal to what guard_outdated.txtar and
// guard_life.txtar compare check's output with.
func TestGuardDocShowsCheckOutput(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/script/guard_outdated.txtar")
	if err != nil {
		t.Fatal(err)
	}
	doc := readDoc(t, filepath.Join("..", "..", "docs", "database-guard.md"))
	shown := 0
	for _, f := range ar.Files {
		switch f.Name {
		case "missing.txt", "removed.txt", "old.txt":
			shown++
			if !strings.Contains(doc, "```\n"+string(f.Data)+"```\n") {
				t.Errorf("docs/database-guard.md does not show %s:\n%s", f.Name, f.Data)
			}
		}
	}
	if shown != 3 {
		t.Errorf("guard_outdated.txtar has %d of missing.txt, removed.txt, old.txt", shown)
	}
	life, err := txtar.ParseFile("testdata/script/guard_life.txtar")
	if err != nil {
		t.Fatal(err)
	}
	shown = 0
	for _, f := range life.Files {
		if f.Name == "rename.txt" || f.Name == "recreate.txt" || f.Name == "recreate_older.txt" || f.Name == "shadow.txt" || f.Name == "unmarked.txt" {
			shown++
			if !strings.Contains(doc, "```\n"+string(f.Data)+"```\n") {
				t.Errorf("docs/database-guard.md does not show guard_life.txtar's %s:\n%s", f.Name, f.Data)
			}
		}
	}
	if shown != 5 {
		t.Errorf("guard_life.txtar has %d of rename.txt, recreate.txt, recreate_older.txt, shadow.txt, unmarked.txt", shown)
	}
	if line := fmt.Sprintf("`-- fencegen guard template: %d`", gen.GuardTemplateVersion); !strings.Contains(doc, line) {
		t.Errorf("docs/database-guard.md does not quote the header line %s", line)
	}
}

// nextVersion numbers after every file a migration tool counts as a
// migration, whatever its extension: goose's Go migrations and
// golang-migrate's up and down files (issue 24, trial-pg3 finding 14);
// files without a version and hidden ones do not count.
func TestNextVersionCountsEveryMigration(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{"00001_init.sql", "00002_backfill.go"}, "00003"},
		{[]string{"00001_init.sql", "00002_backfill.go", "00007_helpers_test.go"}, "00008"},
		{[]string{"000001_init.up.sql", "000001_init.down.sql", "000002_seed.up.json", "000002_seed.down.json"}, "000003"},
		{[]string{"20260101000000_init.sql", "20270101000000_later.go"}, "20270101000001"},
		{[]string{"20250101000000_init.sql"}, "20260102030405"},
		{[]string{"schema.sql", ".00009_swap.sql", "atlas.sum"}, "20260102030405"},
	} {
		dir := t.TempDir()
		for _, f := range tc.files {
			if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := nextVersion(dir, nil, now)
		if err != nil || got != tc.want {
			t.Errorf("%v: nextVersion = %q, %v; want %q", tc.files, got, err, tc.want)
		}
	}
}
