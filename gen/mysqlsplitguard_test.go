package gen_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestMySQLSplitGuardMigrationsInterleaved (issue 27, trial t27h F2): sqlc
// v1.31.1 cannot parse a trigger, so a project that keeps running sqlc
// keeps its guard migrations in a directory only fencegen reads (the
// schema key of a fencegen.yaml extending sqlc.yaml). Those files were
// read after sqlc's whole schema: with the guard migration 002 between
// sqlc's 001 and a 003 that re-creates the fenced table (dropping its
// triggers), check passed and guard said the guard was installed, while
// on MariaDB the table had no triggers and a stale UPDATE landed. The
// files are now read among sqlc's by version, as the migration tool
// applies them: check fails at 003, once (not once per trigger), and
// fencegen guard writes 004 after it, not into 003, which sqlc reads
// (trial t27h F1). MariaDB is the oracle: the migrations applied in that
// order leave the table without triggers (a stale UPDATE lands) until
// 004 is applied (then it is refused).
func TestMySQLSplitGuardMigrationsInterleaved(t *testing.T) {
	dir := t.TempDir()
	gen.WriteTree(t, dir, map[string]string{
		"sqlc.yaml":     "version: \"2\"\nsql:\n  - engine: mysql\n    schema: schema\n    queries: q.sql\n    gen: {go: {package: db, out: db}}\n",
		"fencegen.yaml": "extends: sqlc.yaml\nschema: triggers\nfence:\n  tables:\n    - {table: archive, column: tok}\n",
		"q.sql":         "-- name: GetArchive :one\nSELECT id, total FROM archive WHERE id = ?;\n",
		"schema/001_init.sql": "-- +goose Up\nCREATE TABLE archive (id BIGINT NOT NULL PRIMARY KEY, total BIGINT NOT NULL, tok BIGINT NOT NULL DEFAULT 0);\n" +
			"-- +goose Down\nDROP TABLE archive;\n",
		"triggers/.keep": "",
	})
	ctx := context.Background()
	load := func() *gen.Config {
		t.Helper()
		cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	out, err := gen.GenerateGuard(ctx, load())
	if err != nil {
		t.Fatal(err)
	}
	guard002, err := out.Guards[0].Migration("goose", "002")
	if err != nil {
		t.Fatal(err)
	}
	gen.WriteTree(t, dir, map[string]string{"triggers/002_fencegen_guard.sql": string(guard002["002_fencegen_guard.sql"])})
	if _, err := gen.Generate(ctx, load()); err != nil {
		t.Fatalf("with the guard installed after 001: %v", err)
	}

	recreate := "-- +goose Up\nCREATE TABLE archive_new (id BIGINT NOT NULL PRIMARY KEY, total BIGINT NOT NULL, tok BIGINT NOT NULL DEFAULT 0);\n" +
		"INSERT INTO archive_new (id, total, tok) SELECT id, total, tok FROM archive;\nDROP TABLE archive;\nRENAME TABLE archive_new TO archive;\n" +
		"-- +goose Down\nSELECT 1;\n"
	gen.WriteTree(t, dir, map[string]string{"schema/003_recreate.sql": recreate})
	_, err = gen.Generate(ctx, load())
	if err == nil {
		t.Fatal("003 re-creates fenced table archive after guard migration 002 (in triggers/): generate passed")
	}
	msg := err.Error()
	want := "schema/003_recreate.sql:4:1: DROP TABLE archive drops table archive and its guard triggers with it; table archive is fenced, and "
	if strings.Count(msg, want) != 1 {
		t.Errorf("error has %d findings %q, want one (for the table, not one per trigger):\n%s", strings.Count(msg, want), want, msg)
	}
	if want := "lets a stale token's UPDATE, DELETE or INSERT of archive from any writer through"; !strings.Contains(msg, want) {
		t.Errorf("error lacks %q:\n%s", want, msg)
	}
	var f gen.GuardFinding
	if !errors.As(err, &f) || !f.SqlcReadsInto || filepath.Base(f.Into) != "003_recreate.sql" {
		t.Errorf("finding %+v: want Into 003_recreate.sql, which sqlc reads", f)
	}

	// fencegen guard -dir triggers: a new migration after 003, not
	// "already installed"; into sqlc's schema directory, or -into 003,
	// refused.
	out, err = gen.GenerateGuard(ctx, load())
	if err != nil {
		t.Fatal(err)
	}
	g := out.Guards[0]
	ups := []string{filepath.Join(dir, "triggers", "002_fencegen_guard.sql")}
	current, files, err := g.NextMigration(ups, out.Guards, "goose", "004")
	if err != nil || current != "" || files["004_fencegen_guard.sql"] == nil {
		t.Fatalf("NextMigration = %q, %d files, %v; want 004_fencegen_guard.sql", current, len(files), err)
	}
	if err := g.Writable(filepath.Join(dir, "triggers", "004_fencegen_guard.sql")); err != nil {
		t.Errorf("triggers/ (only fencegen reads it): %v", err)
	}
	for _, p := range []string{filepath.Join(dir, "schema", "004_fencegen_guard.sql"), filepath.Join(dir, "schema", "004_fencegen_guard.up.sql")} {
		err := g.Writable(p)
		if err == nil || !strings.Contains(err.Error(), "sqlc reads it as a schema file of the engine mysql entry of sqlc.yaml (schema: schema)") || !strings.Contains(err.Error(), "-dir ") {
			t.Errorf("Writable(%s) = %v, want sqlc's refusal naming -dir of fencegen.yaml's schema", p, err)
		}
	}
	if _, err := g.Inline(ups, filepath.Join(dir, "schema", "003_recreate.sql"), out.Guards, "goose"); err == nil || !strings.Contains(err.Error(), "sqlc reads it") {
		t.Errorf("-into 003 (sqlc reads it): %v", err)
	}

	// MariaDB, the migrations in the order the tool applies them.
	db := testenv.MySQL(t, "")
	apply := func(name string) {
		t.Helper()
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		up, _ := gooseStatements(t, string(src))
		for _, s := range up {
			if _, err := db.Exec(s); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, s)
			}
		}
	}
	apply("schema/001_init.sql")
	apply("triggers/002_fencegen_guard.sql")
	if _, err := db.Exec("INSERT INTO archive VALUES (1, 10, 9)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE archive SET total = 0, tok = 2 WHERE id = 1"); err == nil {
		t.Fatal("after 002, MariaDB took a stale UPDATE")
	}
	apply("schema/003_recreate.sql")
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.triggers WHERE trigger_schema = DATABASE() AND event_object_table = 'archive'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("after 003, archive has %d triggers (%v): the replay says none", n, err)
	}
	if _, err := db.Exec("UPDATE archive SET total = 1, tok = 2 WHERE id = 1"); err != nil {
		t.Fatalf("after 003 (no triggers), the stale UPDATE: %v", err)
	}
	gen.WriteTree(t, dir, map[string]string{"triggers/004_fencegen_guard.sql": string(files["004_fencegen_guard.sql"])})
	apply("triggers/004_fencegen_guard.sql")
	if _, err := db.Exec("UPDATE archive SET total = 0, tok = 1 WHERE id = 1"); err == nil || !strings.Contains(err.Error(), "1644") {
		t.Fatalf("after 004, a stale UPDATE: %v, want error 1644", err)
	}
	if _, err := gen.Generate(ctx, load()); err != nil {
		t.Fatalf("with 004 after 003: %v", err)
	}
}

// TestMySQLSplitGuardKeyAddedLater (trial t27h): in the split layout, a
// unique key a later migration of sqlc's adds, which the guard's BEFORE
// INSERT trigger does not look up, was blamed on the trigger as "edited
// by hand". Read in version order, the ALTER TABLE is the cause; a guard
// file without a version, whose place among the migrations is unknown
// (read after them), is told to look up other keys than the schema's.
func TestMySQLSplitGuardKeyAddedLater(t *testing.T) {
	for _, tc := range []struct{ guardFile, want string }{
		{"triggers/002_fencegen_guard.sql", "schema/003_key.sql:1:1: ALTER TABLE adds a primary or unique key to table jobs, after guard trigger fencegen_bi_jobs that "},
		{"triggers/fencegen_guard.sql", "the guard trigger fencegen_bi_jobs of table jobs looks up the row a REPLACE or INSERT ... ON DUPLICATE KEY UPDATE conflicts with by other keys than the table has in the schema"},
	} {
		t.Run(tc.guardFile, func(t *testing.T) {
			dir := t.TempDir()
			gen.WriteTree(t, dir, map[string]string{
				"sqlc.yaml":           "version: \"2\"\nsql:\n  - engine: mysql\n    schema: schema\n    queries: q.sql\n    gen: {go: {package: db, out: db}}\n",
				"fencegen.yaml":       "extends: sqlc.yaml\nschema: triggers\nfence:\n  tables:\n    - {table: jobs, column: tok}\n",
				"q.sql":               "-- name: GetJob :one\nSELECT id FROM jobs WHERE id = ?;\n",
				"schema/001_init.sql": "CREATE TABLE jobs (id BIGINT NOT NULL PRIMARY KEY, code VARCHAR(20) NOT NULL, tok BIGINT NOT NULL DEFAULT 0);\n",
				"triggers/.keep":      "",
			})
			cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			out, err := gen.GenerateGuard(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			files, err := out.Guards[0].Migration("goose", "002")
			if err != nil {
				t.Fatal(err)
			}
			gen.WriteTree(t, dir, map[string]string{
				tc.guardFile:         string(files["002_fencegen_guard.sql"]),
				"schema/003_key.sql": "ALTER TABLE jobs ADD UNIQUE KEY jobs_code (code);\n",
			})
			_, err = gen.Generate(context.Background(), cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "edited by hand") {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
