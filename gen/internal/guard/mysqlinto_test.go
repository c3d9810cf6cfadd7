package guard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/sqlparse/mysqlparse"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// TestMySQLGuardIntoOnMariaDB: a migration renames the token column of a
// fenced table, which breaks the guard triggers an earlier guard
// migration installed (a MySQL trigger names the column). The replay
// reports it at the rename with Into set to that migration; fencegen
// guard -into (Inline, and InlineDown for golang-migrate) adds the guard
// to it, after which the replay reports nothing. Applied to MariaDB as
// the tool sends it, the migration leaves a guard that refuses a stale
// UPDATE and lets a fresh one through; its down section, after undoing
// the rename, brings back the earlier guard, which refuses a stale
// UPDATE of the old column again.
//
// The same for a migration that swaps a copy in under the fenced table's
// name (the copy has no triggers): after it, with -into, a stale UPDATE of
// the copy is refused and a fresh one passes.
func TestMySQLGuardIntoOnMariaDB(t *testing.T) {
	before := []mysqlGuardTable{{Table: "jobs", Column: "tok"}}
	const create = "CREATE TABLE jobs (id BIGINT PRIMARY KEY, status VARCHAR(20) NOT NULL DEFAULT '', tok BIGINT NOT NULL DEFAULT 0);"
	for _, sc := range []struct {
		name, change, undo, cause string
		after                     []mysqlGuardTable
		col, oldCol               string // the token column after the change, and after its down section ("": not checked)
	}{
		{
			name: "rename", change: "ALTER TABLE jobs RENAME COLUMN tok TO fence_tok;", undo: "ALTER TABLE jobs RENAME COLUMN fence_tok TO tok;",
			cause: "ALTER TABLE renames column tok of jobs to fence_tok",
			after: []mysqlGuardTable{{Table: "jobs", Column: "fence_tok"}}, col: "fence_tok", oldCol: "tok",
		},
		{
			name:   "swap",
			change: "CREATE TABLE jobs_new (id BIGINT PRIMARY KEY, status VARCHAR(20) NOT NULL DEFAULT '', tok BIGINT NOT NULL DEFAULT 0);\nRENAME TABLE jobs TO jobs_old;\nDROP TABLE jobs_old;\nRENAME TABLE jobs_new TO jobs;",
			undo:   "SELECT 1;",
			cause:  "RENAME TABLE renames table jobs to jobs_old",
			after:  before, col: "tok",
		},
	} {
		for _, format := range []string{"goose", "dbmate", "golang-migrate"} {
			t.Run(sc.name+"/"+format, func(t *testing.T) {
				mysqlIntoScenario(t, format, create, sc.change, sc.undo, sc.cause, before, sc.after, sc.col, sc.oldCol)
			})
		}
	}
}

func mysqlIntoScenario(t *testing.T, format, create, rename, undo, cause string, before, after []mysqlGuardTable, col, oldCol string) {
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	team := func(up, down string) string {
		switch format {
		case "goose":
			return "-- +goose Up\n" + up + "\n-- +goose Down\n" + down + "\n"
		case "dbmate":
			return "-- migrate:up\n" + up + "\n\n-- migrate:down\n" + down + "\n"
		}
		return up + "\n"
	}
	var ups []string
	var downs []string // golang-migrate's .down.sql, by ups index
	add := func(version, name, up, down string) {
		if format == "golang-migrate" {
			ups = append(ups, write(version+"_"+name+".up.sql", up))
			downs = append(downs, write(version+"_"+name+".down.sql", down))
			return
		}
		ups = append(ups, write(version+"_"+name+".sql", team(up, down)))
	}
	add("000001", "init", create, "DROP TABLE jobs;")
	guardUp := string(mysqlSQL(before, mysqlRemoval{}, format, false))
	if format == "golang-migrate" {
		add("000002", "fencegen_guard", guardUp, string(mysqlSQL(before, mysqlRemoval{}, format, true)))
	} else {
		ups = append(ups, write("000002_fencegen_guard.sql", guardUp))
	}
	add("000003", "rename", rename, undo)
	into := ups[2]

	guardOf := func() *DatabaseGuard {
		var parsed []*sqlparse.File
		for _, p := range ups {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f, err := mysqlparse.ParseSchema(p, src)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			parsed = append(parsed, f)
		}
		return (&DatabaseGuard{data: &guardData{}, mysql: after}).WithMySQLSchema(parsed)
	}
	g := guardOf()
	findings := g.GuardMigrations(nil)
	named := false
	for _, f := range findings {
		named = named || f.Into == filepath.ToSlash(into) && strings.Contains(f.Msg, cause)
	}
	if !named {
		t.Fatalf("no finding at the rename with Into %s: %v", into, findings)
	}
	text, err := g.Inline(ups, into, nil, format)
	if err != nil || text == nil {
		t.Fatalf("Inline: %q, %v", text, err)
	}
	downName, downText, err := g.InlineDown(ups, into, format)
	if err != nil {
		t.Fatal(err)
	}
	if (downText != nil) != (format == "golang-migrate") {
		t.Fatalf("InlineDown for %s: %q", format, downText)
	}
	write(filepath.Base(into), string(text))
	if downText != nil {
		write(filepath.Base(downName), string(downText))
	}
	if again := guardOf().GuardMigrations(nil); len(again) > 0 {
		t.Fatalf("findings after -into:\n%v\n%s", again, text)
	}
	if _, err := guardOf().Inline(ups, into, nil, format); err == nil || !strings.Contains(err.Error(), "added already") {
		t.Fatalf("-into twice: %v", err)
	}

	db := testenv.MySQL(t, "multiStatements=true")
	apply := func(p string, up bool) {
		t.Helper()
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range mysqlStatements(t, format, string(src), up) {
			if _, err := db.ExecContext(ctx, s); err != nil {
				t.Fatalf("%s:\n%s\n: %v", p, s, err)
			}
		}
	}
	for _, p := range ups {
		apply(p, true)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO jobs (id, "+col+") VALUES (1, 5)"); err != nil {
		t.Fatal(err)
	}
	stale := func(col string, presented, stored int64) {
		t.Helper()
		_, err := db.ExecContext(ctx, "UPDATE jobs SET status = 'stale', "+col+" = ? WHERE id = 1", presented)
		var se *fence.StaleError
		if !errors.As(fenceimpl.TriggerError("Outside", err, "jobs"), &se) || int64(se.Presented) != presented || int64(se.Stored) != stored {
			t.Fatalf("stale UPDATE of %s (%d over %d): %v, want a *fence.StaleError", col, presented, stored, err)
		}
	}
	stale(col, 4, 5)
	if _, err := db.ExecContext(ctx, "UPDATE jobs SET status = 'fresh', "+col+" = 6 WHERE id = 1"); err != nil {
		t.Fatalf("fresh UPDATE after the change: %v", err)
	}
	if oldCol == "" {
		return
	}

	// Down: the rename undone, the earlier guard back.
	if format == "golang-migrate" {
		apply(downName, true)
	} else {
		apply(into, false)
	}
	stale(oldCol, 5, 6)
	if _, err := db.ExecContext(ctx, "UPDATE jobs SET status = 'fresh', "+oldCol+" = 7 WHERE id = 1"); err != nil {
		t.Fatalf("fresh UPDATE after the down migration: %v", err)
	}
	var status string
	if err := db.QueryRowContext(ctx, "SELECT status FROM jobs WHERE id = 1").Scan(&status); err != nil || status != "fresh" {
		t.Fatalf("status = %q (%v), want fresh", status, err)
	}
}
