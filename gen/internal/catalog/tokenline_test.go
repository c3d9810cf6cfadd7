package catalog_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/sqlparse/mysqlparse"
	"github.com/fencegen/fencegen/internal/testenv"
)

// tokenLineCase is a life of fenced table jobs over migrations: the first
// creates it, a holder then stores token 7 in row 1, the others follow.
type tokenLineCase struct {
	name  string
	files []string
	// ack is set when a migration acknowledges the reset
	// (catalog.ResetTokensMark): no error although the token is lowered.
	ack bool
	// at is where the error is, "file:line" ("" for none expected when
	// the server keeps the token).
	at string
}

const pgJobs = `CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'new', tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';`

var pgTokenLineCases = []tokenLineCase{
	{name: "drop-then-add", files: []string{"ALTER TABLE jobs DROP COLUMN tok;", "ALTER TABLE jobs ADD COLUMN tok bigint NOT NULL DEFAULT 0;\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';"}, at: "m3.sql:2"},
	{name: "drop-add-one-file", files: []string{"ALTER TABLE jobs DROP COLUMN tok;\nALTER TABLE jobs ADD COLUMN tok bigint NOT NULL DEFAULT 0;\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';"}, at: "m2.sql:3"},
	{name: "move-mark", files: []string{"ALTER TABLE jobs ADD COLUMN fence bigint NOT NULL DEFAULT 0;\nCOMMENT ON COLUMN jobs.tok IS NULL;\nCOMMENT ON COLUMN jobs.fence IS 'fencegen:token';"}, at: "m2.sql:3"},
	{name: "move-mark-carried", files: []string{"ALTER TABLE jobs ADD COLUMN fence bigint NOT NULL DEFAULT 0;\nUPDATE jobs SET fence = tok;\nCOMMENT ON COLUMN jobs.tok IS NULL;\nCOMMENT ON COLUMN jobs.fence IS 'fencegen:token';\nALTER TABLE jobs DROP COLUMN tok;"}},
	{name: "move-mark-carried-later", files: []string{"ALTER TABLE jobs ADD COLUMN fence bigint NOT NULL DEFAULT 0;\nCOMMENT ON COLUMN jobs.tok IS NULL;\nCOMMENT ON COLUMN jobs.fence IS 'fencegen:token';\nUPDATE jobs SET fence = tok;"}},
	{name: "move-mark-some-rows", files: []string{"ALTER TABLE jobs ADD COLUMN fence bigint NOT NULL DEFAULT 0;\nUPDATE jobs SET fence = tok WHERE id > 1;\nCOMMENT ON COLUMN jobs.tok IS NULL;\nCOMMENT ON COLUMN jobs.fence IS 'fencegen:token';"}, at: "m2.sql:4"},
	{name: "rename", files: []string{"ALTER TABLE jobs RENAME COLUMN tok TO fence;"}},
	{name: "retype-lossless", files: []string{"ALTER TABLE jobs ALTER COLUMN tok TYPE bigint USING tok::numeric;"}},
	{name: "unmark-remark", files: []string{"COMMENT ON COLUMN jobs.tok IS NULL;", "COMMENT ON COLUMN jobs.tok IS 'fencegen:token strict';"}},
	{name: "swap-without-token", files: []string{`CREATE TABLE jobs_new (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'new', tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN jobs_new.tok IS 'fencegen:token';
INSERT INTO jobs_new (id, state) SELECT id, state FROM jobs;
ALTER TABLE jobs RENAME TO jobs_old;
ALTER TABLE jobs_new RENAME TO jobs;
DROP TABLE jobs_old;`}, at: "m2.sql:3"},
	{name: "swap-with-token", files: []string{`CREATE TABLE jobs_new (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'new', tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN jobs_new.tok IS 'fencegen:token';
INSERT INTO jobs_new (id, tok, state) SELECT id, tok, state FROM jobs;
ALTER TABLE jobs RENAME TO jobs_old;
ALTER TABLE jobs_new RENAME TO jobs;`}},
	{name: "swap-star", files: []string{`CREATE TABLE jobs_new (LIKE jobs INCLUDING ALL);
INSERT INTO jobs_new SELECT * FROM jobs;
DROP TABLE jobs;
ALTER TABLE jobs_new RENAME TO jobs;`}},
	{name: "re-created-empty", files: []string{"DROP TABLE jobs;\n" + pgJobs}},
	{name: "acknowledged", ack: true, files: []string{"ALTER TABLE jobs DROP COLUMN tok;\nALTER TABLE jobs ADD COLUMN tok bigint NOT NULL DEFAULT 0;\n-- " + catalog.ResetTokensMark + ": the leases restart too\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';"}},
}

const myJobs = "CREATE TABLE jobs (id BIGINT PRIMARY KEY, state VARCHAR(16) NOT NULL DEFAULT 'new', tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');"

var myTokenLineCases = []tokenLineCase{
	{name: "drop-then-add", files: []string{"ALTER TABLE jobs DROP COLUMN tok;", "ALTER TABLE jobs ADD COLUMN tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token';"}, at: "m3.sql:1"},
	{name: "drop-add-one-file", files: []string{"ALTER TABLE jobs DROP COLUMN tok;\nALTER TABLE jobs ADD COLUMN tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token';"}, at: "m2.sql:2"},
	{name: "move-mark", files: []string{"ALTER TABLE jobs ADD COLUMN fence BIGINT NOT NULL DEFAULT 0;\nALTER TABLE jobs MODIFY tok BIGINT NOT NULL DEFAULT 0 COMMENT '';\nALTER TABLE jobs MODIFY fence BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token';"}, at: "m2.sql:3"},
	{name: "move-mark-carried", files: []string{"ALTER TABLE jobs ADD COLUMN fence BIGINT NOT NULL DEFAULT 0;\nUPDATE jobs SET fence = tok;\nALTER TABLE jobs DROP COLUMN tok, MODIFY fence BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token';"}},
	{name: "modify", files: []string{"ALTER TABLE jobs MODIFY tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token strict';"}},
	{name: "change", files: []string{"ALTER TABLE jobs CHANGE tok fence BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token';"}},
	{name: "swap-without-token", files: []string{`CREATE TABLE jobs_new (id BIGINT PRIMARY KEY, state VARCHAR(16) NOT NULL DEFAULT 'new', tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
INSERT INTO jobs_new (id, state) SELECT id, state FROM jobs;
RENAME TABLE jobs TO jobs_old, jobs_new TO jobs;
DROP TABLE jobs_old;`}, at: "m2.sql:2"},
	{name: "swap-with-token", files: []string{`CREATE TABLE jobs_new (id BIGINT PRIMARY KEY, state VARCHAR(16) NOT NULL DEFAULT 'new', tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
INSERT INTO jobs_new (id, state, tok) SELECT id, state, tok FROM jobs;
RENAME TABLE jobs TO jobs_old, jobs_new TO jobs;
DROP TABLE jobs_old;`}},
	{name: "swap-star", files: []string{`CREATE TABLE jobs_new LIKE jobs;
INSERT INTO jobs_new SELECT * FROM jobs;
RENAME TABLE jobs TO jobs_old, jobs_new TO jobs;`}},
	{name: "acknowledged", ack: true, files: []string{"ALTER TABLE jobs DROP COLUMN tok;\n-- " + catalog.ResetTokensMark + "\nALTER TABLE jobs ADD COLUMN tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token';"}},
}

// TestTokenLineOnServers: a migration after which the fenced table's
// token column holds less than the token a holder stored (the server,
// given the same migrations, is the oracle) is an error at the statement
// that breaks the line, unless acknowledged; one that keeps it is not
// (issues 24 and 27: x24 F3, x27 F3).
func TestTokenLineOnServers(t *testing.T) {
	t.Run("postgresql", func(t *testing.T) {
		pool := testenv.Database(t)
		for _, tc := range pgTokenLineCases {
			t.Run(tc.name, func(t *testing.T) {
				files := append([]string{pgJobs}, tc.files...)
				exec, stored := pgTokenLineTx(t, pool)
				checkTokenLine(t, tc, files, sqlparse.Parse, exec, stored, false)
			})
		}
	})
	// Issue 24 item 5: a table fenced by the configuration's fence key
	// (no COMMENT) has its token line checked the same way, the error at
	// the statement that gave it the new column.
	t.Run("postgresql fence key", func(t *testing.T) {
		pool := testenv.Database(t)
		const jobs = `CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'new', tok bigint NOT NULL DEFAULT 0);`
		for _, tc := range []tokenLineCase{
			{name: "drop-then-add", files: []string{"ALTER TABLE jobs DROP COLUMN tok;", "ALTER TABLE jobs ADD COLUMN tok bigint NOT NULL DEFAULT 0;"}, at: "m3.sql:1"},
			{name: "drop-add-one-file", files: []string{"ALTER TABLE jobs DROP COLUMN tok;\nALTER TABLE jobs ADD COLUMN tok bigint NOT NULL DEFAULT 0;"}, at: "m2.sql:2"},
			{name: "replaced-carried", files: []string{"ALTER TABLE jobs RENAME COLUMN tok TO old_tok;\nALTER TABLE jobs ADD COLUMN tok bigint NOT NULL DEFAULT 0;\nUPDATE jobs SET tok = old_tok;\nALTER TABLE jobs DROP COLUMN old_tok;"}},
			{name: "retype-lossless", files: []string{"ALTER TABLE jobs ALTER COLUMN tok TYPE bigint USING tok::numeric;"}},
			{name: "swap-without-token", files: []string{`CREATE TABLE jobs_new (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'new', tok bigint NOT NULL DEFAULT 0);
INSERT INTO jobs_new (id, state) SELECT id, state FROM jobs;
ALTER TABLE jobs RENAME TO jobs_old;
ALTER TABLE jobs_new RENAME TO jobs;
DROP TABLE jobs_old;`}, at: "m2.sql:2"},
			{name: "acknowledged", ack: true, files: []string{"ALTER TABLE jobs DROP COLUMN tok;\n-- " + catalog.ResetTokensMark + "\nALTER TABLE jobs ADD COLUMN tok bigint NOT NULL DEFAULT 0;"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				exec, stored := pgTokenLineTx(t, pool)
				checkTokenLine(t, tc, append([]string{jobs}, tc.files...), sqlparse.Parse, exec, stored, true)
			})
		}
	})
	t.Run("mysql", func(t *testing.T) {
		db := testenv.MySQL(t, "")
		for _, tc := range myTokenLineCases {
			t.Run(tc.name, func(t *testing.T) {
				for _, s := range []string{"DROP TABLE IF EXISTS jobs, jobs_new, jobs_old"} {
					if _, err := db.Exec(s); err != nil {
						t.Fatal(err)
					}
				}
				files := append([]string{myJobs}, tc.files...)
				stored := func(col string) (int64, bool) {
					var v int64
					err := db.QueryRow(fmt.Sprintf("SELECT %s FROM jobs WHERE id = 1", col)).Scan(&v)
					if errors.Is(err, sql.ErrNoRows) {
						return 0, false
					}
					if err != nil {
						t.Fatal(err)
					}
					return v, true
				}
				exec := func(s string) {
					if _, err := db.Exec(s); err != nil {
						t.Fatalf("%s: %v", s, err)
					}
				}
				checkTokenLine(t, tc, files, mysqlparse.ParseSchema, exec, stored, false)
			})
		}
	})
}

// checkTokenLine applies tc's migrations to the catalog and, with a
// holder's write of token 7 after the first, to the server (exec), and
// compares the catalog's errors with the token the server stores then.
// With key, jobs is fenced by a fence key of the configuration (jobs,
// tok) instead of a COMMENT, given to the catalog before the migrations
// and marked after them, as generate does.
func checkTokenLine(t *testing.T, tc tokenLineCase, files []string, parse func(string, []byte) (*sqlparse.File, error), exec func(string), stored func(col string) (int64, bool), key bool) {
	t.Helper()
	cat := catalog.New(catalog.WithColumnGenerator(analyze.ColumnGenerator{}))
	if key {
		cat.ExpectFenceKeys([]catalog.FenceKey{{Table: "jobs", Column: "tok", File: "sqlc.yaml", Line: 10, Col: 11}})
	}
	for i, src := range files {
		f, err := parse(fmt.Sprintf("m%d.sql", i+1), []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range f.Stmts {
			cat.Update(f, s)
			exec(src[s.Start:s.End])
		}
		if i == 0 {
			exec("INSERT INTO jobs (id, tok) VALUES (1, 7)")
		}
	}
	if key {
		if jobs := cat.Table("", "jobs"); jobs != nil && jobs.Column("tok") != nil {
			cat.MarkFence(jobs, "tok", false, "config", "sqlc.yaml", 10, 11)
		}
	}
	var lineErrs []string
	for _, e := range cat.Validate().Sort() {
		if !strings.Contains(e.Error(), catalog.ResetTokensMark) {
			t.Errorf("unexpected problem: %v", e)
			continue
		}
		lineErrs = append(lineErrs, e.Error())
	}
	fence := cat.Table("", "jobs").Fence
	if fence == nil {
		t.Fatal("jobs is not fenced after the migrations")
	}
	v, ok := stored(fence.Column)
	lowered := ok && v < 7
	switch {
	case lowered && !tc.ack && len(lineErrs) == 0:
		t.Errorf("the server stores token %d in jobs.%s after the migrations (7 before), but the catalog reports nothing", v, fence.Column)
	case (!lowered || tc.ack) && len(lineErrs) > 0:
		t.Errorf("the server keeps the token (stored %d, row there: %v) or the reset is acknowledged, but the catalog reports:\n%s", v, ok, strings.Join(lineErrs, "\n"))
	case len(lineErrs) > 0 && !strings.HasPrefix(lineErrs[0], tc.at+":"):
		t.Errorf("error at %s, want %s:\n%s", strings.SplitN(lineErrs[0], ": ", 2)[0], tc.at, lineErrs[0])
	case len(lineErrs) > 1:
		t.Errorf("%d errors, want one:\n%s", len(lineErrs), strings.Join(lineErrs, "\n"))
	case tc.at != "" && len(lineErrs) == 0:
		t.Errorf("no error, want one at %s", tc.at)
	}
}

// pgTokenLineTx is checkTokenLine's exec and stored on a PostgreSQL
// transaction of pool, rolled back when the test ends.
func pgTokenLineTx(t *testing.T, pool *pgxpool.Pool) (exec func(string), stored func(col string) (int64, bool)) {
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback(ctx) })
	stored = func(col string) (int64, bool) {
		var v int64
		err := tx.QueryRow(ctx, fmt.Sprintf("SELECT %s FROM jobs WHERE id = 1", col)).Scan(&v)
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, false
		}
		if err != nil {
			t.Fatal(err)
		}
		return v, true
	}
	exec = func(s string) {
		if _, err := tx.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return exec, stored
}

// TestStrayMarkText: on PostgreSQL, a column of a fenced table whose
// comment holds "fencegen:token" without being a mark is an error at its
// COMMENT, as the guard trigger's rename fallback would read it as the
// mark (x24 F6); the mark itself and comments elsewhere are not.
func TestStrayMarkText(t *testing.T) {
	_, errs := build(t, pgJobs+`
ALTER TABLE jobs ADD COLUMN attempts bigint NOT NULL DEFAULT 0;
COMMENT ON COLUMN jobs.attempts IS 'legacy_fencegen:token';
CREATE TABLE other (id bigint, note text);
COMMENT ON COLUMN other.note IS 'legacy_fencegen:token';`)
	if len(errs) != 1 || !strings.HasPrefix(errs[0], "schema.sql:4:1: the comment of column attempts of table jobs contains 'fencegen:token' but is no fencing mark") {
		t.Errorf("got %q, want one error at the COMMENT of jobs.attempts", errs)
	}
}
