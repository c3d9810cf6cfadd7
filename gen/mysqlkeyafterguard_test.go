package gen_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// TestMySQLCheckBlamesKeyAddedAfterGuard (issue 27, trial t27s F3): a
// migration after the guard migration that gives the fenced table a new
// unique or primary key (CREATE UNIQUE INDEX, ADD CONSTRAINT ... UNIQUE,
// a column's UNIQUE in CHANGE or ADD COLUMN) makes generate and check
// fail at that statement, saying the guard's BEFORE INSERT trigger does
// not look rows up by the new key, not at the guard migration as if it
// had been edited; a new guard migration after it passes.
func TestMySQLCheckBlamesKeyAddedAfterGuard(t *testing.T) {
	for _, tc := range []struct{ stmt, what string }{
		{"CREATE UNIQUE INDEX ux_status ON accounts (status);", "CREATE UNIQUE INDEX ux_status adds a unique key to table accounts"},
		{"ALTER TABLE accounts ADD CONSTRAINT ux_status UNIQUE (status);", "ALTER TABLE adds a primary or unique key to table accounts"},
		{"ALTER TABLE accounts CHANGE status state VARCHAR(20) NOT NULL UNIQUE;", "ALTER TABLE adds a primary or unique key to table accounts"},
		{"ALTER TABLE accounts ADD COLUMN email VARCHAR(50) UNIQUE KEY;", "ALTER TABLE adds a primary or unique key to table accounts"},
	} {
		t.Run(tc.stmt, func(t *testing.T) {
			dir := t.TempDir()
			write := func(name, s string) {
				t.Helper()
				gen.WriteTree(t, dir, map[string]string{name: s})
			}
			write("migrations/00001_init.sql", "-- +goose Up\nCREATE TABLE accounts (id BIGINT PRIMARY KEY, status VARCHAR(20) NOT NULL DEFAULT 'new', tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n")
			write("q.sql", "-- name: Get :one\nSELECT id FROM accounts WHERE id = ?;\n")
			write("fencegen.yaml", "version: \"2\"\nsql:\n  - {engine: mysql, schema: migrations, queries: q.sql, gen: {go: {package: x, out: out}}}\n")
			load := func() *gen.Config {
				t.Helper()
				cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
				if err != nil {
					t.Fatal(err)
				}
				return cfg
			}
			writeGuardMigration(t, dir, "00002")
			if _, err := gen.Generate(context.Background(), load()); err != nil {
				t.Fatalf("the current guard migration is reported: %v", err)
			}
			write("migrations/00003_team.sql", "-- +goose Up\n"+tc.stmt+"\n")
			_, err := gen.Generate(context.Background(), load())
			msg := ""
			if err != nil {
				msg = regexp.MustCompile(`(?m)^\S*migrations/`).ReplaceAllString(err.Error(), "migrations/")
			}
			want := "migrations/00003_team.sql:2:1: " + tc.what + ", after guard trigger fencegen_bi_accounts that "
			if !strings.Contains(msg, want) || !strings.Contains(msg, "passes the database guard") || strings.Contains(msg, "another token column or mode") {
				t.Errorf("error %q: want it at the new key, %q, and not the guard migration's", msg, want)
			}
			writeGuardMigration(t, dir, "00004")
			if _, err := gen.Generate(context.Background(), load()); err != nil {
				t.Fatalf("after the new guard migration: %v", err)
			}
		})
	}
}
