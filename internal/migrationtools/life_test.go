package migrationtools

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-migrate/migrate/v4"
	_ "github.com/golang-migrate/migrate/v4/database/pgx/v5" // pgx5:// URLs
	_ "github.com/golang-migrate/migrate/v4/source/file"     // file:// URLs
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", for goose
	_ "github.com/lib/pq"              // database/sql driver "postgres", which the lifedriver's database/sql code runs on
	"github.com/pressly/goose/v3"

	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// fencegenBin is the fencegen command built from this checkout (TestMain).
var fencegenBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fencegen-migrationtools")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fencegenBin = filepath.Join(dir, "fencegen")
	build := exec.Command("go", "build", "-o", fencegenBin, "./cmd/fencegen")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build ./cmd/fencegen: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// state is what holds after a prefix of the migrations is applied: the
// fenced table and its token column ("" when the table has none), and
// whether a hand-written UPDATE that lowers the token is refused (FN001,
// with the table named in the error's TABLE field) or passes.
type state struct {
	table, column string
	refused       bool
	// required is set for a guard of mode required: an UPDATE that does
	// not set the token column is refused too.
	required bool
}

// lifeCase is a migration of the team's that changes the token column or
// its table after the guard migration (docs/database-guard.md, "check
// sees the guard migrations"): the cause fencegen reports at it, and the
// state after it (between: before the fix fencegen guard writes; after:
// with the fix).
type lifeCase struct {
	name, change, cause string
	// mark is the token column's comment ("" for 'fencegen:token').
	mark string
	// refused is set when PostgreSQL refuses the change itself, as the
	// cause says: the tool's up fails with an error saying refused.
	refused string
	// between checks what fencegen's error says happens once the change
	// is applied and the fix is not: conn is the session that has run the
	// guard trigger before.
	between func(t *testing.T, conn *pgx.Conn, id int)
	after   state
	// down, when set, is the state after the fix's down migration, where
	// it is not the between state: the down migration re-creates the
	// earlier guard function, which every session then plans again.
	down *state
	// into is set when fencegen names guard -into the change's file as
	// the fix: the change then installs the guard itself (between is
	// unused; the change's down migration leaves the after state).
	into bool
	// key is set when a fence key of the configuration marks the token
	// column instead of a column comment; the team points it at the
	// column's new name (after.column) before running the fix.
	key bool
	// unfence is set for a fenced table that the change re-creates
	// without its mark, on purpose: the fix is fencegen guard -unfence.
	unfence bool
	// changeDown is the change's down section ("" for SELECT 1); with
	// into, it undoes the change, and fencegen guard -into adds the
	// earlier guard after it: its down migration then leaves the state
	// before the change.
	changeDown string
	// later, with into, is a newer migration written after the change
	// before either is applied anywhere (laterDown its down section):
	// the guard still goes into the change, from which on the table
	// needs it (fencegen guard -into of a migration that is not the
	// newest), and the state after later is after too. With laterInto,
	// later re-creates the table again, and needs its own guard -into
	// once the change has its.
	later, laterDown string
	laterInto        bool
	// laterFix, with later, is set when later changes the re-created
	// table further (drops its token column, unmarks it, renames it):
	// after guard -into of the change, a new guard migration after later
	// fixes it, and laterBetween checks the state between later and that
	// fix; the code before the change runs up to later (the re-created
	// table is as before), the code after it from later on.
	laterFix     bool
	laterBetween func(t *testing.T, conn *pgx.Conn, id int)
	// changed, with later and laterInto, is the state after the change
	// when later changes it further (nil: after).
	changed *state
	// extra is schema the first migration creates after jobs (another
	// fenced table, which the change drops).
	extra string
	// quiet is set for a change that leaves the guard as strong as it
	// was: every command exits 0, fencegen guard writes nothing, and
	// after (the state from the change on) holds in a session whose
	// session_replication_role is replica too.
	quiet bool
}

var lifeCases = []lifeCase{
	{
		name:   "rename",
		change: "ALTER TABLE jobs RENAME COLUMN tok TO fence;\n",
		cause:  `:1:1: renames column tok of fenced table jobs to fence, which the guard trigger that `,
		between: func(t *testing.T, conn *pgx.Conn, id int) {
			// The trigger finds the column by its mark, which moved
			// with it: every write works, the stale one is refused.
			writes(t, conn, state{table: "jobs", column: "fence", refused: true}, id)
		},
		after: state{table: "jobs", column: "fence", refused: true},
	},
	{
		name:   "required-rename",
		mark:   "fencegen:token required",
		change: "ALTER TABLE jobs RENAME COLUMN tok TO fence;\n",
		cause:  `:1:1: renames column tok of fenced table jobs to fence, which the guard trigger that `,
		between: func(t *testing.T, conn *pgx.Conn, id int) {
			writes(t, conn, state{table: "jobs", column: "fence", refused: true, required: true}, id)
		},
		after: state{table: "jobs", column: "fence", refused: true, required: true},
	},
	{
		name:   "drop",
		change: "ALTER TABLE jobs DROP COLUMN tok;\n",
		cause:  `:1:1: drops column tok of fenced table jobs, which the guard trigger that `,
		between: func(t *testing.T, conn *pgx.Conn, id int) {
			// No token column is left: the trigger lets every
			// UPDATE through (the table is no longer fenced).
			writes(t, conn, state{table: "jobs"}, id)
		},
		after: state{table: "jobs"},
	},
	{
		name:   "retype",
		change: "ALTER TABLE jobs ALTER COLUMN tok TYPE integer;\n",
		cause:  `:1:1: changes the type of column tok of fenced table jobs, which the guard trigger that `,
		between: func(t *testing.T, conn *pgx.Conn, id int) {
			// conn ran the trigger before, planned for bigint: it
			// reads the column by name instead, and still guards it.
			writes(t, conn, state{table: "jobs", column: "tok", refused: true}, id)
		},
		after: state{table: "jobs", column: "tok", refused: true},
		down:  &state{table: "jobs", column: "tok", refused: true},
	},
	{
		name: "recreate",
		change: "DROP TABLE jobs;\n" +
			"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n" +
			"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n",
		cause: `:1:1: drops fenced table jobs, and with it the guard trigger that `,
		// fencegen guard -into adds the guard to the change itself:
		// there is no state between.
		into: true,
		changeDown: "DROP TABLE jobs;\n" +
			"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n" +
			"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n",
		after: state{table: "jobs", column: "tok", refused: true},
	},
	{
		// Re-created in a migration that a newer one follows, both not
		// applied anywhere yet: the guard goes into the re-creating
		// migration, not into a new one after the newest (which would
		// leave the states from the change on unguarded).
		name: "recreate-older",
		change: "DROP TABLE jobs;\n" +
			"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n" +
			"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n",
		cause: `:1:1: drops fenced table jobs, and with it the guard trigger that `,
		into:  true,
		changeDown: "DROP TABLE jobs;\n" +
			"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n" +
			"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n",
		later:     "ALTER TABLE notes ADD COLUMN x integer;\n",
		laterDown: "ALTER TABLE notes DROP COLUMN x;\n",
		after:     state{table: "jobs", column: "tok", refused: true},
	},
	{
		// Re-created twice: the first re-creation's guard is missing
		// first (the table is unguarded from it on), then the second's.
		name: "recreate-twice",
		change: "DROP TABLE jobs;\n" +
			"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n" +
			"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n",
		cause: `:1:1: drops fenced table jobs, and with it the guard trigger that `,
		into:  true,
		changeDown: "DROP TABLE jobs;\n" +
			"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n" +
			"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n",
		later: "DROP TABLE jobs;\n" +
			"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n" +
			"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n",
		laterDown: "DROP TABLE jobs;\n" +
			"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n" +
			"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n",
		laterInto: true,
		after:     state{table: "jobs", column: "tok", refused: true},
	},
	{
		// Re-created under a fence key, then its token column renamed
		// by a newer migration (the key names the new name): the guard
		// added to the re-creation reads the column by the name it has
		// there, and the rename takes the guard again (-into).
		name: "key-recreate-then-rename",
		key:  true,
		change: "DROP TABLE jobs;\n" +
			"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n",
		cause: `:1:1: drops fenced table jobs, and with it the guard trigger that `,
		into:  true,
		changeDown: "DROP TABLE jobs;\n" +
			"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n",
		later:     "ALTER TABLE jobs RENAME COLUMN tok TO fence;\n",
		laterDown: "ALTER TABLE jobs RENAME COLUMN fence TO tok;\n",
		laterInto: true,
		changed:   &state{table: "jobs", column: "tok", refused: true},
		after:     state{table: "jobs", column: "fence", refused: true},
	},
	{
		// Re-created with its mark, then its token column dropped by a
		// newer migration: fenced from the re-creation to the drop, so
		// its guard goes into the re-creation all the same (the final
		// schema does not fence it), and a new guard migration removes
		// it after the drop.
		name: "recreate-then-drop",
		change: "DROP TABLE jobs;\n" +
			"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n" +
			"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n",
		cause:        `:1:1: drops fenced table jobs, and with it the guard trigger that `,
		into:         true,
		later:        "ALTER TABLE jobs DROP COLUMN tok;\n",
		laterFix:     true,
		laterBetween: func(t *testing.T, conn *pgx.Conn, id int) { writes(t, conn, state{table: "jobs"}, id) },
		after:        state{table: "jobs"},
	},
	{
		// Re-created with its mark, then renamed by a newer migration:
		// its trigger (added to the re-creation) moves with it.
		name: "recreate-then-rename-table",
		change: "DROP TABLE jobs;\n" +
			"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n" +
			"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n",
		cause:    `:1:1: drops fenced table jobs, and with it the guard trigger that `,
		into:     true,
		later:    "ALTER TABLE jobs RENAME TO tasks;\n",
		laterFix: true,
		laterBetween: func(t *testing.T, conn *pgx.Conn, id int) {
			writesNamed(t, conn, state{table: "tasks", column: "tok", refused: true}, id, "jobs")
		},
		after: state{table: "tasks", column: "tok", refused: true},
	},
	{
		// Re-created with its mark, then unmarked by a newer migration.
		name: "recreate-then-unmark",
		change: "DROP TABLE jobs;\n" +
			"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n" +
			"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n",
		cause:    `:1:1: drops fenced table jobs, and with it the guard trigger that `,
		into:     true,
		later:    "COMMENT ON COLUMN jobs.tok IS NULL;\n",
		laterFix: true,
		laterBetween: func(t *testing.T, conn *pgx.Conn, id int) {
			writes(t, conn, state{table: "jobs", column: "tok", refused: true}, id)
		},
		after: state{table: "jobs", column: "tok"},
	},
	{
		// A fence key's token column renamed in a migration that a
		// newer one follows: the guard added to the rename is the one
		// of the schema as the rename leaves it.
		name:       "key-rename-older",
		key:        true,
		change:     "ALTER TABLE jobs RENAME COLUMN tok TO fence;\n",
		cause:      `:1:1: renames column tok of fenced table jobs to fence, which the guard trigger that `,
		into:       true,
		changeDown: "ALTER TABLE jobs RENAME COLUMN fence TO tok;\n",
		later:      "ALTER TABLE notes ADD COLUMN x integer;\n",
		laterDown:  "ALTER TABLE notes DROP COLUMN x;\n",
		after:      state{table: "jobs", column: "fence", refused: true},
	},
	{
		// No comment moves with the column: the trigger would find no
		// token column once the rename is applied, so the guard goes
		// into the rename's own migration.
		name:       "key-rename",
		key:        true,
		change:     "ALTER TABLE jobs RENAME COLUMN tok TO fence;\n",
		cause:      `:1:1: renames column tok of fenced table jobs to fence, which the guard trigger that `,
		into:       true,
		changeDown: "ALTER TABLE jobs RENAME COLUMN fence TO tok;\n",
		after:      state{table: "jobs", column: "fence", refused: true},
	},
	{
		// A fence key names the table, not the column object: the
		// re-created table stays fenced, and its guard goes into the
		// re-creating migration.
		name: "key-recreate",
		key:  true,
		change: "DROP TABLE jobs;\n" +
			"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n",
		cause: `:1:1: drops fenced table jobs, and with it the guard trigger that `,
		into:  true,
		changeDown: "DROP TABLE jobs;\n" +
			"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n",
		after: state{table: "jobs", column: "tok", refused: true},
	},
	{
		// A new column of the token column's old name: the trigger
		// reads the column by that name, so it would check the new one.
		name:       "rename-shadow",
		change:     "ALTER TABLE jobs RENAME COLUMN tok TO fence;\nALTER TABLE jobs ADD COLUMN tok bigint NOT NULL DEFAULT 0;\n",
		cause:      `:2:1: adds column tok to fenced table jobs, the name its token column had before `,
		into:       true,
		changeDown: "ALTER TABLE jobs DROP COLUMN tok;\nALTER TABLE jobs RENAME COLUMN fence TO tok;\n",
		after:      state{table: "jobs", column: "fence", refused: true},
	},
	{
		// Another column renamed to the token column's old name: as a
		// new column of that name, the trigger would check it (issue 24).
		name:       "rename-into",
		change:     "ALTER TABLE jobs ADD COLUMN other bigint NOT NULL DEFAULT 0;\nALTER TABLE jobs RENAME COLUMN tok TO fence;\nALTER TABLE jobs RENAME COLUMN other TO tok;\n",
		cause:      `:3:1: renames column other of fenced table jobs to tok, the name its token column had before `,
		into:       true,
		changeDown: "ALTER TABLE jobs RENAME COLUMN tok TO other;\nALTER TABLE jobs RENAME COLUMN fence TO tok;\nALTER TABLE jobs DROP COLUMN other;\n",
		after:      state{table: "jobs", column: "fence", refused: true},
	},
	{
		// The mark moved to a new column while the old one stays: the
		// trigger reads the old column by name, which the generated
		// writes no longer set, so the guard goes into the move's own
		// migration, located at the new mark (trial r24 F9).
		name: "move-mark",
		// The new column is given the stored tokens first (issue 24, x24
		// F3: without it every token is its default).
		change:     "ALTER TABLE jobs ADD COLUMN fence bigint NOT NULL DEFAULT 0;\nUPDATE jobs SET fence = tok;\nCOMMENT ON COLUMN jobs.tok IS NULL;\nCOMMENT ON COLUMN jobs.fence IS 'fencegen:token';\n",
		cause:      `:4:1: marks column fence of table jobs for fencing: the guard trigger that `,
		into:       true,
		changeDown: "COMMENT ON COLUMN jobs.fence IS NULL;\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';\nALTER TABLE jobs DROP COLUMN fence;\n",
		after:      state{table: "jobs", column: "fence", refused: true},
	},
	{
		// The mark of the same column changed to mode required: the
		// non-strict trigger keeps guarding it until the new guard
		// migration, and the error is at the mark (trial r24 F9).
		name:   "mark-required",
		change: "COMMENT ON COLUMN jobs.tok IS 'fencegen:token required';\n",
		cause:  `:1:1: marks column tok of table jobs for fencing again: the guard trigger that `,
		between: func(t *testing.T, conn *pgx.Conn, id int) {
			writes(t, conn, state{table: "jobs", column: "tok", refused: true}, id)
		},
		after: state{table: "jobs", column: "tok", refused: true, required: true},
	},
	{
		// Re-created without its mark, and unfenced on purpose: no
		// state guards it after the change, and the fix's migration
		// removes the guard function left behind.
		name: "recreate-unmarked",
		change: "DROP TABLE jobs;\n" +
			"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n",
		cause:   `:2:1: creates table jobs again without the fencing mark of its token column tok, after `,
		unfence: true,
		between: func(t *testing.T, conn *pgx.Conn, id int) {
			writes(t, conn, state{table: "jobs", column: "tok"}, id)
		},
		after: state{table: "jobs", column: "tok"},
	},
	{
		// A copy swapped in under the fenced table's name, without the
		// mark: a re-created table (the trigger went with the dropped
		// one), unfenced on purpose.
		name: "swap-unmarked",
		change: "CREATE TABLE jobs_new (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n" +
			"INSERT INTO jobs_new SELECT * FROM jobs;\n" +
			"DROP TABLE jobs;\n" +
			"ALTER TABLE jobs_new RENAME TO jobs;\n",
		cause:   `:4:1: renames table jobs_new to jobs, which takes the place of fenced table jobs, without the fencing mark of its token column tok, after `,
		unfence: true,
		between: func(t *testing.T, conn *pgx.Conn, id int) {
			writes(t, conn, state{table: "jobs", column: "tok"}, id)
		},
		after: state{table: "jobs", column: "tok"},
	},
	{
		// A view takes the name: writes through it reach a table
		// without a trigger.
		name: "swap-view",
		change: "CREATE TABLE jobs_new (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n" +
			"INSERT INTO jobs_new SELECT * FROM jobs;\n" +
			"DROP TABLE jobs;\n" +
			"CREATE VIEW jobs AS SELECT * FROM jobs_new;\n",
		cause:   `:4:1: creates view jobs in place of fenced table jobs, without the fencing mark of its token column tok, after `,
		unfence: true,
		between: func(t *testing.T, conn *pgx.Conn, id int) {
			writes(t, conn, state{table: "jobs", column: "tok"}, id)
		},
		after: state{table: "jobs", column: "tok"},
	},
	{
		// The same swap with the copy marked, the fenced table renamed
		// away (its trigger goes with it) and dropped: the guard goes
		// into the swapping migration.
		name: "swap-marked",
		change: "CREATE TABLE jobs_new (LIKE jobs INCLUDING ALL);\n" +
			"COMMENT ON COLUMN jobs_new.tok IS 'fencegen:token';\n" +
			"INSERT INTO jobs_new SELECT * FROM jobs;\n" +
			"ALTER TABLE jobs RENAME TO jobs_old;\n" +
			"ALTER TABLE jobs_new RENAME TO jobs;\n" +
			"DROP TABLE jobs_old;\n",
		cause: `:4:1: renames fenced table jobs to jobs_old; table jobs is fenced, so its guard belongs in the migration that creates it again, `,
		into:  true,
		changeDown: "DROP TABLE jobs;\n" +
			"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n" +
			"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n",
		after: state{table: "jobs", column: "tok", refused: true},
	},
	{
		name:   "tblrename",
		change: "ALTER TABLE jobs RENAME TO tasks;\n",
		cause:  `:1:1: renames fenced table jobs to tasks: its guard trigger moves with it, but its function `,
		between: func(t *testing.T, conn *pgx.Conn, id int) {
			// Still guarded; the error names the old table.
			writesNamed(t, conn, state{table: "tasks", column: "tok", refused: true}, id, "jobs")
		},
		after: state{table: "tasks", column: "tok", refused: true},
	},
	{
		// The hint is -into: the migration itself drops the guard
		// triggers before the change and installs them again after it
		// (TestInlineRequiredRetype in gen/internal/guard applies that);
		// as written, PostgreSQL refuses the change.
		name:    "required-retype",
		mark:    "fencegen:token required",
		change:  "ALTER TABLE jobs ALTER COLUMN tok TYPE integer;\n",
		cause:   `:1:1: changes the type of column tok of fenced table jobs: PostgreSQL refuses it, since the guard trigger that `,
		into:    true,
		refused: "cannot alter type of a column used in a trigger definition",
	},
	{
		// The change as written, with its fix: guard -into drops the
		// guard triggers before the change (which PostgreSQL refuses
		// while they depend on the column) and installs the guard after
		// it; its down migration (golang-migrate: the .down.sql file)
		// has the same shape around the change's undoing (issue 24).
		name:       "required-retype-into",
		mark:       "fencegen:token required",
		change:     "ALTER TABLE jobs ALTER COLUMN tok TYPE integer;\n",
		changeDown: "ALTER TABLE jobs ALTER COLUMN tok TYPE bigint;\n",
		cause:      `:1:1: changes the type of column tok of fenced table jobs: PostgreSQL refuses it, since the guard trigger that `,
		into:       true,
		after:      state{table: "jobs", column: "tok", refused: true, required: true},
	},
	{
		// Dropping the token column of a guard of mode required: the
		// fix is guard -into too (trial t24 F5: it named a new
		// migration, which PostgreSQL never reaches).
		name:       "required-drop-into",
		mark:       "fencegen:token required",
		change:     "ALTER TABLE jobs DROP COLUMN tok;\n",
		changeDown: "ALTER TABLE jobs ADD COLUMN tok bigint NOT NULL DEFAULT 1;\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token required';\n",
		cause:      `:1:1: drops column tok of fenced table jobs: PostgreSQL refuses it, since the guard trigger that `,
		into:       true,
		after:      state{table: "jobs"},
	},
	{
		name: "required-retype-triggers-dropped",
		mark: "fencegen:token required",
		change: "DROP TRIGGER IF EXISTS fencegen_guard ON jobs;\nDROP TRIGGER IF EXISTS fencegen_guard_token ON jobs;\n" +
			"ALTER TABLE jobs ALTER COLUMN tok TYPE integer;\n",
		cause: `:1:1: drops the guard trigger of table jobs that `,
		between: func(t *testing.T, conn *pgx.Conn, id int) {
			// "the database lets a stale token's UPDATE of jobs from
			// any writer through"
			writes(t, conn, state{table: "jobs", column: "tok"}, id)
		},
		after: state{table: "jobs", column: "tok", refused: true},
	},
	{
		// The guard trigger set to fire only in replica sessions: no
		// ordinary writer's session runs it.
		name:   "enable-replica",
		change: "ALTER TABLE jobs ENABLE REPLICA TRIGGER fencegen_guard;\n",
		cause:  `:1:1: makes the guard trigger of fenced table jobs that `,
		between: func(t *testing.T, conn *pgx.Conn, id int) {
			writes(t, conn, state{table: "jobs", column: "tok"}, id)
		},
		after: state{table: "jobs", column: "tok", refused: true},
		// The fix's down section restores the earlier guard
		// migrations' trigger, which fires in every ordinary session.
		down: &state{table: "jobs", column: "tok", refused: true},
	},
	{
		name:   "disable-trigger",
		change: "ALTER TABLE jobs DISABLE TRIGGER fencegen_guard;\n",
		cause:  `:1:1: disables the guard trigger of fenced table jobs that `,
		between: func(t *testing.T, conn *pgx.Conn, id int) {
			writes(t, conn, state{table: "jobs", column: "tok"}, id)
		},
		after: state{table: "jobs", column: "tok", refused: true},
		// The fix's down section restores the earlier guard
		// migrations' trigger, which fires in every ordinary session.
		down: &state{table: "jobs", column: "tok", refused: true},
	},
	{
		// ENABLE ALWAYS: the trigger fires in replica sessions too, so
		// the guard is no weaker (the next guard migration's CREATE
		// TRIGGER makes it fire as before, in every ordinary session).
		name:       "enable-always",
		change:     "ALTER TABLE jobs ENABLE ALWAYS TRIGGER fencegen_guard;\n",
		changeDown: "ALTER TABLE jobs ENABLE TRIGGER fencegen_guard;\n",
		quiet:      true,
		after:      state{table: "jobs", column: "tok", refused: true},
	},
	{
		// Another fenced table dropped for good: its trigger goes with
		// it, its guard function would stay; the fix removes it.
		name: "drop-table",
		extra: "CREATE TABLE old_jobs (id bigint PRIMARY KEY, tok bigint NOT NULL DEFAULT 1);\n" +
			"COMMENT ON COLUMN old_jobs.tok IS 'fencegen:token';\n",
		change: "DROP TABLE old_jobs;\n",
		cause:  `:1:1: drops fenced table old_jobs, and with it the guard trigger that `,
		between: func(t *testing.T, conn *pgx.Conn, id int) {
			writes(t, conn, state{table: "jobs", column: "tok", refused: true}, id)
		},
		after: state{table: "jobs", column: "tok", refused: true},
	},
	{
		name:   "unmark",
		change: "COMMENT ON COLUMN jobs.tok IS NULL;\n",
		cause:  `:1:1: removes the fencing mark of column tok of table jobs, but the guard trigger that `,
		between: func(t *testing.T, conn *pgx.Conn, id int) {
			// "it refuses every UPDATE of jobs that lowers tok"
			writes(t, conn, state{table: "jobs", column: "tok", refused: true}, id)
		},
		after: state{table: "jobs", column: "tok"},
	},
}

// TestGuardLifePostgres is issue 24's "token column's life" with the
// migration tools: for goose and golang-migrate (their Go APIs), dbmate
// and Atlas (applySection, as they send a file), a migrations directory
// that creates a fenced table (marked by a column comment, or by a fence
// key), the guard migration fencegen guard writes, then a migration that
// renames, drops or retypes the token column, renames it and adds a column
// of its old name, drops and re-creates the table (with its mark, or
// without it and then unfenced on purpose), swaps a copy in under its name
// (ALTER TABLE ... RENAME TO, with the mark or without), renames it,
// removes the mark, disables its guard trigger or makes it fire only in
// replica sessions (ENABLE REPLICA), or drops another fenced table for good
// (its guard function stays). fencegen generate, vet and check fail with that migration's
// statement first and name the fix: fencegen guard writes a new
// migration, adds the guard to that migration with -into, or removes the
// guard with -unfence; ENABLE ALWAYS, no weaker, is no error (quietCheck).
// The migrations are then applied one by one to a
// fresh PostgreSQL database; after each, a session (the same throughout,
// as a pooled connection is) inserts, updates, updates with a lower token
// by hand and deletes, and the repository code fencegen generated for that
// state (before the change; after the fix, which is also the code of the
// change's state, where generate fails), compiled and run over one pgx
// session kept across the migrations, writes with a fresh and a stale
// token: every write works, a stale one gives fence.ErrStaleToken, and a
// fenced table refuses the hand-written stale UPDATE, at every applied
// migration, including between the change and the fix. The fix's down
// migration (with -into, the change's own, which restores the earlier
// guard) and the fix again apply too (not with Atlas, which has no down
// migrations).
func TestGuardLifePostgres(t *testing.T) {
	for _, tool := range []string{"goose", "golang-migrate", "dbmate", "atlas"} {
		cases := lifeCases
		if tool != "atlas" { // Atlas has no down migrations
			cases = append(slices.Clone(lifeCases), requiredIntoCases()...)
		}
		for _, c := range cases {
			t.Run(tool+"/"+c.name, func(t *testing.T) { lifeCheck(t, tool, c) })
		}
	}
}

// requiredIntoCases are cases fixed by guard -into, one of each kind of
// change (re-created table, renamed token column, mark moved to another
// column), with the mark of mode required (trial N17: the down section
// goose ran of a required guard -into failed): the guard written into
// the change, its down migration and the change again apply in every
// tool with down migrations, for both modes. (Every -into case in mode
// required passed too, but ran the module past go test's 10 minutes.)
func requiredIntoCases() []lifeCase {
	const plain, required = "'fencegen:token'", "'fencegen:token required'"
	var out []lifeCase
	for _, c := range lifeCases {
		if !slices.Contains([]string{"recreate", "rename-into", "move-mark"}, c.name) {
			continue
		}
		c.name += "-required"
		c.mark = "fencegen:token required"
		c.change = strings.ReplaceAll(c.change, plain, required)
		c.changeDown = strings.ReplaceAll(c.changeDown, plain, required)
		c.later = strings.ReplaceAll(c.later, plain, required)
		c.laterDown = strings.ReplaceAll(c.laterDown, plain, required)
		c.after.required = true
		out = append(out, c)
	}
	return out
}

func lifeCheck(t *testing.T, tool string, c lifeCase) {
	project := newLifeProject(t, tool)
	dir, write, fencegen := project.dir, project.write, project.fencegen
	// config writes the configuration, with a fence key on column when
	// the case marks the token column by one; stdlib.yaml is the same
	// entry with sqlc's database/sql code (no sql_package), out dbsql:
	// the team's other service, generated beside.
	config := func(column string) {
		fence := ""
		if c.key {
			fence = "    fence: {tables: [{table: jobs, column: " + column + "}]}\n"
		}
		write("fencegen.yaml", "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: migrations\n    queries: query.sql\n"+
			"    gen: {go: {package: db, out: db, sql_package: pgx/v5}}\n"+fence)
		write("stdlib.yaml", "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: migrations\n    queries: query.sql\n"+
			"    gen: {go: {package: db, out: dbsql}}\n"+fence)
	}
	config("tok")
	write("query.sql", lifeQueries("jobs"))
	mark := c.mark
	if mark == "" {
		mark = "fencegen:token"
	}
	init := "CREATE TABLE notes (id bigint PRIMARY KEY, body text NOT NULL);\n" +
		"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n"
	if !c.key {
		init += "COMMENT ON COLUMN jobs.tok IS '" + mark + "';\n"
	}
	init += c.extra
	project.initMigration(init, "DROP TABLE jobs;\nDROP TABLE notes;\n")
	changeFile := project.changeFile()
	// The repository code as the team generates it before the change,
	// with the schema alone and with the guard migration (the same).
	// generated generates with both configurations and returns the
	// pgx/v5 code and the database/sql code.
	generated := func() (pgx5, stdlib map[string]string) {
		t.Helper()
		fencegen(0, "generate")
		fencegen(0, "check")
		fencegen(0, "generate", "-f", "stdlib.yaml")
		fencegen(0, "check", "-f", "stdlib.yaml")
		return readGenerated(t, filepath.Join(dir, "db")), readGenerated(t, filepath.Join(dir, "dbsql"))
	}
	before, beforeSQL := generated()
	fencegen(0, "guard", "-format", tool, "-dir", "migrations")
	if got, gotSQL := generated(); !maps.Equal(got, before) || !maps.Equal(gotSQL, beforeSQL) {
		t.Errorf("the generated Go code differs with the guard migration applied: %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(before)))
	}

	// The change, and the queries as the team changes them with it: every
	// command fails, the change's statement first.
	c.cause = atLine(c.cause, map[string]int{"goose": 2, "dbmate": 1}[tool])
	changeDown := c.changeDown
	if changeDown == "" {
		changeDown = "SELECT 1;\n"
	}
	migration := project.migration
	migration(changeFile, c.change, changeDown)
	laterFile := ""
	if c.later != "" {
		laterFile = strings.Replace(changeFile, "3_change", "4_later", 1)
		migration(laterFile, c.later, c.laterDown)
	}
	afterTable := c.after.table
	if afterTable == "" {
		afterTable = "jobs"
	}
	write("query.sql", lifeQueries(afterTable))
	base := "fencegen guard -format " + tool + " -dir migrations"
	if c.quiet {
		quietCheck(t, tool, c, dir, fencegen, before, beforeSQL)
		return
	}
	for _, cmd := range []string{"generate", "vet", "check"} {
		stderr := fencegen(1, cmd)
		first, _, _ := strings.Cut(stderr, "\n")
		if !strings.HasPrefix(first, changeFile+c.cause) {
			t.Errorf("fencegen %s: first line\n%s\nwant it to start %s%s", cmd, first, changeFile, c.cause)
		}
		want := "write a new one with: " + base + "\n"
		switch {
		case c.unfence:
			want = "add its guard with: " + base + " -into " + changeFile + "; or stop fencing it with: " + base + " -unfence jobs\n"
		case c.into && c.later != "":
			want = "add it with: " + base + " -into " + changeFile + "; once it is applied anywhere, write a new one after the newest with: " + base + " -applied " + changeFile + "\n"
		case c.into:
			want = "add it with: " + base + " -into " + changeFile + "\n"
		}
		// With laterFix, the later change's own finding may follow.
		if !strings.HasSuffix(stderr, want) && !(c.laterFix && strings.Contains(stderr, want)) {
			t.Errorf("fencegen %s: last line of\n%s\nwant ...%s", cmd, stderr, want)
		}
	}
	if c.refused != "" {
		// PostgreSQL refuses the change itself: applied by the tool
		// after the schema and the guard migration, it fails.
		url := testenv.NewDatabase(t)
		up, _ := migrator(t, tool, url, filepath.Join(dir, "migrations"))
		up()
		up()
		if err := up3(tool, url, filepath.Join(dir, "migrations")); err == nil || !strings.Contains(err.Error(), c.refused) {
			t.Errorf("the change: %v; want PostgreSQL to refuse it (%s)", err, c.refused)
		}
		return
	}
	if c.key {
		config(c.after.column) // the fence key names the column's new name
	}
	switch {
	case c.into:
		// The command without -into refuses, and writes nothing: a new
		// migration after the newest would leave the states from the
		// change to it unguarded (trial r24 F3); it names both commands.
		files, _ := os.ReadDir(filepath.Join(dir, "migrations"))
		stderr := fencegen(1, "guard", "-format", tool, "-dir", "migrations")
		want := "add it with: " + base + " -into " + changeFile + "; once it is applied anywhere, write a new one after the newest with: " + base + " -applied " + changeFile + "\n"
		if strings.Contains(c.cause, "PostgreSQL refuses it") {
			// A change PostgreSQL refuses while a guard of mode required
			// depends on the column is applied nowhere: no -applied.
			want = "add the guard to it with -into " + changeFile + "\n"
		}
		if !strings.HasPrefix(stderr, "fencegen: guard: "+changeFile+":") || !strings.HasSuffix(stderr, want) {
			t.Errorf("fencegen %s:\n%s\nwant it to start fencegen: guard: %s: and end ...%s", base, stderr, changeFile, want)
		}
		if again, _ := os.ReadDir(filepath.Join(dir, "migrations")); len(again) != len(files) {
			t.Errorf("fencegen %s refused but wrote a migration (%d files, %d before)", base, len(again), len(files))
		}
		fencegen(0, "guard", "-format", tool, "-dir", "migrations", "-into", changeFile)
		if c.laterInto {
			// The later re-creation's guard is missing now.
			stderr := fencegen(1, "check")
			if want := "add it with: " + base + " -into " + laterFile + "\n"; !strings.HasPrefix(stderr, laterFile+":") || !strings.HasSuffix(stderr, want) {
				t.Errorf("fencegen check after guard -into %s:\n%s\nwant it to start %s: and end ...%s", changeFile, stderr, laterFile, want)
			}
			fencegen(0, "guard", "-format", tool, "-dir", "migrations", "-into", laterFile)
		}
		if c.laterFix {
			// The later change is a finding of its own now, fixed by
			// a new guard migration after it.
			if stderr := fencegen(1, "check"); !strings.HasPrefix(stderr, laterFile+":") || !strings.HasSuffix(stderr, "write a new one with: "+base+"\n") {
				t.Errorf("fencegen check after guard -into %s:\n%s\nwant it to start %s: and end ...write a new one with: %s", changeFile, stderr, laterFile, base)
			}
			fencegen(0, "guard", "-format", tool, "-dir", "migrations")
		}
	case c.unfence:
		fencegen(0, "guard", "-format", tool, "-dir", "migrations", "-unfence", "jobs")
	default:
		fencegen(0, "guard", "-format", tool, "-dir", "migrations")
	}
	// The repository code after the change, generated once the fix is
	// written (generate fails until then): it runs from the change on.
	after, afterSQL := generated()
	fenced := c.after.refused // the after state is guarded: the table is fenced
	drv := lifeDriver(t, map[string]map[string]string{"before": before, "after": after, "beforesql": beforeSQL, "aftersql": afterSQL}, fenced)

	// The migrations, applied one by one by the tool.
	url := testenv.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	code := startDriver(t, drv, url)
	up, down := migrator(t, tool, url, filepath.Join(dir, "migrations"))
	guarded := state{table: "jobs", column: "tok", refused: true}
	changed, changedCode := c.after, "after"
	if c.changed != nil {
		// The re-created table is as before the change.
		changed, changedCode = *c.changed, "before"
	}
	steps := []struct {
		name  string
		code  string // the generated code that runs in this state
		check func(id int)
	}{
		{"the schema", "before", func(id int) { writes(t, conn, state{table: "jobs", column: "tok"}, id) }}, // no guard yet
		{"the guard migration", "before", func(id int) { writes(t, conn, guarded, id) }},
		{"the change", "after", func(id int) { c.between(t, conn, id) }},
		{"the fix", "after", func(id int) { writes(t, conn, c.after, id); guardObjects(t, conn, c.after) }},
	}
	if c.into {
		steps = append(steps[:2], struct {
			name  string
			code  string
			check func(id int)
		}{"the change with the guard", changedCode, func(id int) { writes(t, conn, changed, id); guardObjects(t, conn, changed) }})
		if c.later != "" {
			steps = append(steps, struct {
				name  string
				code  string
				check func(id int)
			}{"the later migration", "after", func(id int) { writes(t, conn, c.after, id); guardObjects(t, conn, c.after) }})
		}
		if c.laterFix {
			steps[2].code = "before"
			steps[2].check = func(id int) { writes(t, conn, guarded, id); guardObjects(t, conn, guarded) }
			steps[3].check = func(id int) { c.laterBetween(t, conn, id) }
			steps = append(steps, struct {
				name  string
				code  string
				check func(id int)
			}{"the fix", "after", func(id int) { writes(t, conn, c.after, id); guardObjects(t, conn, c.after) }})
		}
	}
	for i, s := range steps {
		up()
		t.Run(fmt.Sprintf("%d_%s", i+1, strings.ReplaceAll(s.name, " ", "_")), func(t *testing.T) {
			s.check(100 + i)
			code(t, s.code, 150+i)
		})
	}
	if tool == "atlas" {
		return // Atlas's versioned migrations have no down section
	}
	// The fix's down migration brings back the state of the change (with
	// into, the change's down section the state before it, with the
	// earlier guard -into added to it); up again, the fix's.
	if c.laterFix {
		// The fix's down: the state after later; up again, the fix's.
		down()
		c.laterBetween(t, conn, 198)
		code(t, "after", 248)
		up()
		writes(t, conn, c.after, 201)
		guardObjects(t, conn, c.after)
		code(t, "after", 251)
		return
	}
	if c.later != "" {
		// The later migration's down: the state of the change.
		down()
		writes(t, conn, changed, 199)
		guardObjects(t, conn, changed)
		code(t, changedCode, 249)
	}
	down()
	switch {
	case c.into:
		writes(t, conn, state{table: "jobs", column: "tok", refused: true, required: c.mark == "fencegen:token required"}, 200)
		guardObjects(t, conn, guarded)
		code(t, "before", 250)
	case c.down != nil:
		writes(t, conn, *c.down, 200)
		code(t, "after", 250)
	default:
		c.between(t, conn, 200)
		code(t, "after", 250)
	}
	up()
	if c.later != "" {
		up()
	}
	writes(t, conn, c.after, 201)
	guardObjects(t, conn, c.after)
	code(t, "after", 251)
}

// quietCheck is lifeCheck's rest for a quiet case: with the change
// written, every command exits 0 and fencegen guard writes nothing; the
// migrations applied one by one keep the table guarded (from the change
// on in a replica session too), as after the change's down migration and
// the change again.
func quietCheck(t *testing.T, tool string, c lifeCase, dir string, fencegen func(int, ...string) string, before, beforeSQL map[string]string) {
	t.Helper()
	for _, cmd := range []string{"generate", "vet", "check"} {
		fencegen(0, cmd)
	}
	files, err := os.ReadDir(filepath.Join(dir, "migrations"))
	if err != nil {
		t.Fatal(err)
	}
	fencegen(0, "guard", "-format", tool, "-dir", "migrations")
	if again, err := os.ReadDir(filepath.Join(dir, "migrations")); err != nil || len(again) != len(files) {
		t.Errorf("fencegen guard wrote a migration (%d files, %d before; %v); the guard is as strong as before", len(again), len(files), err)
	}
	drv := lifeDriver(t, map[string]map[string]string{"before": before, "after": before, "beforesql": beforeSQL, "aftersql": beforeSQL}, true)
	url := testenv.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	code := startDriver(t, drv, url)
	up, down := migrator(t, tool, url, filepath.Join(dir, "migrations"))
	replica := func(id int) {
		t.Helper()
		if _, err := conn.Exec(ctx, "SET session_replication_role = replica"); err != nil {
			t.Fatal(err)
		}
		writes(t, conn, c.after, id)
		if _, err := conn.Exec(ctx, "RESET session_replication_role"); err != nil {
			t.Fatal(err)
		}
	}
	guarded := state{table: "jobs", column: "tok", refused: true}
	for i, s := range []struct {
		name  string
		check func(id int)
	}{
		{"the schema", func(id int) { writes(t, conn, state{table: "jobs", column: "tok"}, id) }},
		{"the guard migration", func(id int) { writes(t, conn, guarded, id) }},
		{"the change", func(id int) { writes(t, conn, c.after, id); replica(id + 10); guardObjects(t, conn, c.after) }},
	} {
		up()
		t.Run(fmt.Sprintf("%d_%s", i+1, strings.ReplaceAll(s.name, " ", "_")), func(t *testing.T) {
			s.check(100 + i)
			code(t, "before", 150+i)
		})
	}
	if tool == "atlas" {
		return
	}
	down()
	writes(t, conn, guarded, 200)
	code(t, "before", 250)
	up()
	writes(t, conn, c.after, 201)
	replica(211)
	code(t, "before", 251)
}

// atLine is cause (":N:1: ...") with N moved down by n lines (the section
// lines of a goose or dbmate migration before the change's statements).
func atLine(cause string, n int) string {
	var line int
	if _, err := fmt.Sscanf(cause, ":%d:", &line); err != nil || n == 0 {
		return cause
	}
	return strings.Replace(cause, fmt.Sprintf(":%d:", line), fmt.Sprintf(":%d:", line+n), 1)
}

// lifeQueries are the team's queries on the fenced table (named table)
// and on an unfenced one.
func lifeQueries(table string) string {
	return "-- name: SetNote :exec\nUPDATE notes SET body = $1 WHERE id = $2;\n" +
		"-- name: InsertJob :exec\nINSERT INTO " + table + " (id, status) VALUES ($1, $2);\n" +
		"-- name: SetStatus :exec\nUPDATE " + table + " SET status = $1 WHERE id = $2;\n" +
		"-- name: DeleteJob :exec\nDELETE FROM " + table + " WHERE id = $1;\n" +
		"-- name: UpsertJob :exec\nINSERT INTO " + table + " (id, status) VALUES (@id, @status) ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status;\n" +
		"-- name: SetStatusMany :exec\nUPDATE " + table + " SET status = @status WHERE id = ANY(@ids::bigint[]);\n"
}

// readGenerated returns the Go files fencegen generated in dir, by name.
func readGenerated(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("generated Go files in %s: %v, %v", dir, files, err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = string(b)
	}
	return out
}

// drivers caches the driver programs lifeDriver builds, by the hash of
// their sources: the generated code does not depend on the migration tool.
var drivers = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// driverPkg is the import path under which lifeDriver's packages are
// built (go build -overlay: nothing is written into this directory).
const driverPkg = "github.com/fencegen/fencegen/internal/migrationtools/lifedriver"

// lifeDriver builds a program that runs the writes of the generated code
// before and after the change (packages before and after, fencegen's
// pgx/v5 output as is, beforesql and aftersql its database/sql output;
// the after code's table fenced or not) over one pgx connection and one
// database/sql connection (lib/pq), kept across the migrations as a
// pooled connection is: it reads "<package> <id>" lines and answers "ok"
// or "FAIL <what>" (writes, in lifeDriverMain). It returns the program's
// path.
func lifeDriver(t *testing.T, pkgs map[string]map[string]string, fenced bool) string {
	t.Helper()
	files := map[string]string{"main.go": lifeDriverMain(fenced)}
	for pkg, gen := range pkgs {
		for name, text := range gen {
			files[pkg+"/"+name] = text
		}
	}
	h := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(h, "%s\x00%s\x00", name, files[name])
	}
	sum := hex.EncodeToString(h.Sum(nil))[:16]
	drivers.Lock()
	defer drivers.Unlock()
	if bin, ok := drivers.m[sum]; ok {
		return bin
	}
	src := filepath.Join(filepath.Dir(fencegenBin), "driver-"+sum)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	overlay := map[string]map[string]string{"Replace": {}}
	for name, text := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		overlay["Replace"][filepath.Join(wd, "lifedriver", filepath.FromSlash(name))] = p
	}
	ov, err := json.Marshal(overlay)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src+".json", ov, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := src + ".bin"
	if out, err := exec.Command("go", "build", "-overlay", src+".json", "-o", bin, "./lifedriver").CombinedOutput(); err != nil {
		t.Fatalf("go build (the generated code with its driver): %v\n%s", err, out)
	}
	drivers.m[sum] = bin
	return bin
}

// startDriver starts the driver program bin on the database url and
// returns a function that runs the writes of the generated code named
// code ("before" or "after") on row id: the pgx/v5 code's, then the
// database/sql code's on row id+1000.
func startDriver(t *testing.T, bin, url string) func(t *testing.T, code string, id int) {
	t.Helper()
	cmd := exec.Command(bin, url)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("the driver of the generated code: %v\n%s", err, stderr.String())
		}
	})
	lines := bufio.NewScanner(out)
	return func(t *testing.T, code string, id int) {
		t.Helper()
		for _, run := range []struct {
			pkg, api string
			id       int
		}{{code, "pgx/v5", id}, {code + "sql", "database/sql", id + 1000}} {
			if _, err := fmt.Fprintf(in, "%s %d\n", run.pkg, run.id); err != nil {
				t.Fatalf("the driver of the generated code: %v\n%s", err, stderr.String())
			}
			if !lines.Scan() {
				t.Fatalf("the driver of the generated code stopped: %v\n%s", lines.Err(), stderr.String())
			}
			if got := lines.Text(); got != "ok" {
				t.Errorf("the %s code's generated methods (%s), row %d: %s", code, run.api, run.id, got)
			}
		}
	}
}

// lifeDriverMain is the driver's main package: for each line "<code>
// <id>" it runs, with the generated methods of package code (before and
// after over pgx/v5, beforesql and aftersql over database/sql) on row id,
// an INSERT with token 5, an UPDATE by key with token 6 (fresh), one with
// token 4, which the guard must refuse as a fence.ErrStaleToken with the
// stored token 6, the same with an upsert and with an UPDATE of the rows
// of an id list (the locking form), a DELETE with token 4 (refused the
// same way) and a DELETE with token 6. The before code is fenced; the after code is when
// afterFenced is set, otherwise its methods take no token and every write
// must work.
func lifeDriverMain(afterFenced bool) string {
	fencedRun := func(pkg string) string {
		return `func run` + strings.ToUpper(pkg[:1]) + pkg[1:] + `(ctx context.Context, q *` + pkg + `.Queries, id int64) error {
	if err := q.InsertJob(ctx, ` + pkg + `.InsertJobParams{ID: id, Status: "new"}, 5); err != nil {
		return fmt.Errorf("InsertJob with token 5: %w", err)
	}
	if err := q.SetStatus(ctx, ` + pkg + `.SetStatusParams{Status: "run", ID: id}, 6); err != nil {
		return fmt.Errorf("SetStatus with token 6 (fresh): %w", err)
	}
	if err := stale(q.SetStatus(ctx, ` + pkg + `.SetStatusParams{Status: "stale", ID: id}, 4)); err != nil {
		return fmt.Errorf("SetStatus with token 4 (stale): %w", err)
	}
	if err := q.UpsertJob(ctx, ` + pkg + `.UpsertJobParams{ID: id, Status: "upsert"}, 6); err != nil {
		return fmt.Errorf("UpsertJob with token 6 (fresh): %w", err)
	}
	if err := stale(q.UpsertJob(ctx, ` + pkg + `.UpsertJobParams{ID: id, Status: "stale"}, 4)); err != nil {
		return fmt.Errorf("UpsertJob with token 4 (stale): %w", err)
	}
	if err := q.SetStatusMany(ctx, ` + pkg + `.SetStatusManyParams{Status: "many", Ids: []int64{id}}, 6); err != nil {
		return fmt.Errorf("SetStatusMany with token 6 (fresh): %w", err)
	}
	if err := stale(q.SetStatusMany(ctx, ` + pkg + `.SetStatusManyParams{Status: "stale", Ids: []int64{id}}, 4)); err != nil {
		return fmt.Errorf("SetStatusMany with token 4 (stale): %w", err)
	}
	if err := stale(q.DeleteJob(ctx, id, 4)); err != nil {
		return fmt.Errorf("DeleteJob with token 4 (stale): %w", err)
	}
	if err := q.DeleteJob(ctx, id, 6); err != nil {
		return fmt.Errorf("DeleteJob with token 6: %w", err)
	}
	return nil
}
`
	}
	unfencedRun := func(pkg string) string {
		return `func run` + strings.ToUpper(pkg[:1]) + pkg[1:] + `(ctx context.Context, q *` + pkg + `.Queries, id int64) error {
	if err := q.InsertJob(ctx, ` + pkg + `.InsertJobParams{ID: id, Status: "new"}); err != nil {
		return fmt.Errorf("InsertJob: %w", err)
	}
	if err := q.SetStatus(ctx, ` + pkg + `.SetStatusParams{Status: "run", ID: id}); err != nil {
		return fmt.Errorf("SetStatus: %w", err)
	}
	if err := q.UpsertJob(ctx, ` + pkg + `.UpsertJobParams{ID: id, Status: "upsert"}); err != nil {
		return fmt.Errorf("UpsertJob: %w", err)
	}
	if err := q.SetStatusMany(ctx, ` + pkg + `.SetStatusManyParams{Status: "many", Ids: []int64{id}}); err != nil {
		return fmt.Errorf("SetStatusMany: %w", err)
	}
	if err := q.DeleteJob(ctx, id); err != nil {
		return fmt.Errorf("DeleteJob: %w", err)
	}
	return nil
}
`
	}
	after := fencedRun("after") + "\n" + fencedRun("aftersql")
	if !afterFenced {
		after = unfencedRun("after") + "\n" + unfencedRun("aftersql")
	}
	return `// Command lifedriver runs the writes of fencegen's generated code
// (internal/migrationtools, TestGuardLifePostgres).
package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	_ "github.com/lib/pq"

	"github.com/fencegen/fencegen/runtime/fence"

	after "` + driverPkg + `/after"
	aftersql "` + driverPkg + `/aftersql"
	before "` + driverPkg + `/before"
	beforesql "` + driverPkg + `/beforesql"
)

// stale checks that err is the guard's refusal of token 4 over the
// stored 6.
func stale(err error) error {
	var se *fence.StaleError
	if !errors.Is(err, fence.ErrStaleToken) || !errors.As(err, &se) {
		return fmt.Errorf("got %v, want a fence.ErrStaleToken", err)
	}
	if se.Presented != 4 || se.Stored != 6 {
		return fmt.Errorf("%v: want presented 4, stored 6", se)
	}
	return nil
}

` + fencedRun("before") + "\n" + fencedRun("beforesql") + "\n" + after + `
func main() {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer conn.Close(ctx)
	// The database/sql code's one connection (lib/pq), kept as conn is.
	db, err := sql.Open("postgres", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer db.Close()
	sqlConn, err := db.Conn(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer sqlConn.Close()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		code, idText, _ := strings.Cut(in.Text(), " ")
		id, err := strconv.ParseInt(idText, 10, 64)
		if err == nil {
			switch code {
			case "before":
				err = runBefore(ctx, before.New(conn), id)
			case "after":
				err = runAfter(ctx, after.New(conn), id)
			case "beforesql":
				err = runBeforesql(ctx, beforesql.New(sqlConn), id)
			case "aftersql":
				err = runAftersql(ctx, aftersql.New(sqlConn), id)
			default:
				err = fmt.Errorf("unknown code %q", code)
			}
		}
		if err != nil {
			fmt.Println("FAIL", strings.ReplaceAll(err.Error(), "\n", " "))
		} else {
			fmt.Println("ok")
		}
	}
}
`
}

// up3 applies the third migration of dir, after the first two, and
// returns the tool's error.
func up3(tool, url, dir string) error {
	ctx := context.Background()
	if tool == "dbmate" || tool == "atlas" {
		files, err := filepath.Glob(filepath.Join(dir, "*.sql"))
		if err != nil || len(files) < 3 {
			return fmt.Errorf("migrations %v: %v", files, err)
		}
		return applySection(ctx, url, tool, files[2], true)
	}
	if tool == "goose" {
		db, err := sql.Open("pgx", url)
		if err != nil {
			return err
		}
		defer db.Close()
		p, err := goose.NewProvider(goose.DialectPostgres, db, os.DirFS(dir))
		if err != nil {
			return err
		}
		_, err = p.UpByOne(ctx)
		return err
	}
	m, err := migrate.New("file://"+filepath.ToSlash(dir), "pgx5"+strings.TrimPrefix(url, "postgres"))
	if err != nil {
		return err
	}
	defer m.Close()
	return m.Steps(1)
}

// migrator returns functions that apply the next migration of dir with
// the tool and roll the last one back.
func migrator(t *testing.T, tool, url, dir string) (up, down func()) {
	t.Helper()
	ctx := context.Background()
	if tool == "dbmate" || tool == "atlas" {
		applied := 0
		files := func() []string {
			t.Helper()
			fs, err := filepath.Glob(filepath.Join(dir, "*.sql")) // sorted: the versions are as wide
			if err != nil {
				t.Fatal(err)
			}
			return fs
		}
		return func() {
				t.Helper()
				fs := files()
				if applied >= len(fs) {
					t.Fatalf("%s up: no migration left", tool)
				}
				if err := applySection(ctx, url, tool, fs[applied], true); err != nil {
					t.Fatalf("%s up %s: %v", tool, fs[applied], err)
				}
				applied++
			}, func() {
				t.Helper()
				applied--
				if err := applySection(ctx, url, tool, files()[applied], false); err != nil {
					t.Fatalf("%s down: %v", tool, err)
				}
			}
	}
	if tool == "goose" {
		db, err := sql.Open("pgx", url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		p, err := goose.NewProvider(goose.DialectPostgres, db, os.DirFS(dir))
		if err != nil {
			t.Fatal(err)
		}
		return func() {
				t.Helper()
				if _, err := p.UpByOne(ctx); err != nil {
					t.Fatalf("goose up: %v", err)
				}
			}, func() {
				t.Helper()
				if _, err := p.Down(ctx); err != nil {
					t.Fatalf("goose down: %v", err)
				}
			}
	}
	m, err := migrate.New("file://"+filepath.ToSlash(dir), "pgx5"+strings.TrimPrefix(url, "postgres"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	step := func(n int) {
		t.Helper()
		if err := m.Steps(n); err != nil {
			t.Fatalf("golang-migrate steps %d: %v", n, err)
		}
	}
	return func() { step(1) }, func() { step(-1) }
}

// applySection applies the up (or down) section of migration file as
// dbmate or Atlas does, neither of which has a Go API this module uses:
// dbmate sends the text after -- migrate:up (up to -- migrate:down), or
// after -- migrate:down, as one query in a transaction; Atlas sends the
// file's statements in a transaction (PostgreSQL's simple query
// protocol runs a multi-statement query as one).
func applySection(ctx context.Context, url, tool, file string, up bool) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	text := string(b)
	if tool == "dbmate" {
		_, rest, ok1 := strings.Cut(text, "-- migrate:up\n")
		u, d, ok2 := strings.Cut(rest, "-- migrate:down\n")
		if !ok1 || !ok2 {
			return fmt.Errorf("%s: no dbmate sections", file)
		}
		text = u
		if !up {
			text = d
		}
	} else if !up {
		return errors.New("atlas: no down migrations")
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, text); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// writes runs, on conn, an INSERT of row id, an UPDATE that raises its
// token (or sets another column when the table has no token column), an
// UPDATE that lowers it, refused or not as s says, and a DELETE.
func writes(t *testing.T, conn *pgx.Conn, s state, id int) {
	t.Helper()
	writesNamed(t, conn, s, id, s.table)
}

// writesNamed is writes where the refusal names table errTable (a
// trigger that moved with its renamed table names the old one).
func writesNamed(t *testing.T, conn *pgx.Conn, s state, id int, errTable string) {
	t.Helper()
	ctx := context.Background()
	exec := func(sql string) error {
		_, err := conn.Exec(ctx, sql)
		return err
	}
	must := func(sql string) {
		t.Helper()
		if err := exec(sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	if s.column == "" {
		must(fmt.Sprintf("INSERT INTO %s (id, status) VALUES (%d, 'new')", s.table, id))
		must(fmt.Sprintf("UPDATE %s SET status = 'run' WHERE id = %d", s.table, id))
	} else {
		must(fmt.Sprintf("INSERT INTO %s (id, status, %s) VALUES (%d, 'new', 5)", s.table, s.column, id))
		must(fmt.Sprintf("UPDATE %s SET status = 'run', %s = 6 WHERE id = %d", s.table, s.column, id))
		stale := fmt.Sprintf("UPDATE %s SET status = 'stale', %s = 4 WHERE id = %d", s.table, s.column, id)
		err := exec(stale)
		var pe *pgconn.PgError
		switch {
		case s.refused && (!errors.As(err, &pe) || pe.Code != fenceimpl.SQLState || pe.TableName != errTable || pe.ColumnName != s.column):
			t.Errorf("%s: %v; want SQLSTATE %s from the guard trigger of %s, column %s", stale, err, fenceimpl.SQLState, errTable, s.column)
		case !s.refused && err != nil:
			t.Errorf("%s: %v; want it to pass (the table is not guarded)", stale, err)
		}
		if s.required {
			// A write that presents no token.
			none := fmt.Sprintf("UPDATE %s SET status = 'none' WHERE id = %d", s.table, id)
			if err := exec(none); !errors.As(err, &pe) || pe.Code != fenceimpl.MissingTokenSQLState || pe.ColumnName != s.column {
				t.Errorf("%s: %v; want SQLSTATE %s (required), column %s", none, err, fenceimpl.MissingTokenSQLState, s.column)
			}
			must(fmt.Sprintf("UPDATE %s SET status = 'same', %s = 6 WHERE id = %d", s.table, s.column, id))
		}
	}
	must(fmt.Sprintf("DELETE FROM %s WHERE id = %d", s.table, id))
}

// updateFails inserts row id into table, then requires an UPDATE of it
// to fail with PostgreSQL's error saying want, and deletes the row.
func updateFails(t *testing.T, conn *pgx.Conn, table string, id int, want string) {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.Exec(ctx, fmt.Sprintf("INSERT INTO %s (id, status) VALUES (%d, 'new')", table, id)); err != nil {
		t.Fatal(err)
	}
	update := fmt.Sprintf("UPDATE %s SET status = 'x' WHERE id = %d", table, id)
	_, err := conn.Exec(ctx, update)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: %v; want the error fencegen predicted: %s", update, err, want)
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE id = %d", table, id)); err != nil {
		t.Fatal(err)
	}
}

// guardObjects checks that the database holds exactly the guard of s:
// one fencegen_guard trigger, on s.table, when it is guarded, and no
// guard function that no trigger runs.
func guardObjects(t *testing.T, conn *pgx.Conn, s state) {
	t.Helper()
	ctx := context.Background()
	var triggers []string
	rows, err := conn.Query(ctx, "SELECT tgrelid::regclass::text FROM pg_trigger WHERE tgname = 'fencegen_guard' ORDER BY 1")
	if err == nil {
		triggers, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil {
		t.Fatal(err)
	}
	want := []string{}
	if s.refused {
		want = []string{s.table}
	}
	if fmt.Sprint(triggers) != fmt.Sprint(want) {
		t.Errorf("fencegen_guard triggers on %v, want %v", triggers, want)
	}
	var orphans int
	err = conn.QueryRow(ctx, `SELECT count(*) FROM pg_proc p WHERE p.proname LIKE 'fencegen_guard_%'
		AND NOT EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgfoid = p.oid)`).Scan(&orphans)
	if err != nil || orphans != 0 {
		t.Errorf("guard functions no trigger runs: %d, %v; want none", orphans, err)
	}
}
