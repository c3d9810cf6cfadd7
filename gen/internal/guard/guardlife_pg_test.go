package guard

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/internal/testenv"
)

// lifeSchema has a fenced table (jobs), one in mode required (reqs), a
// fenced partitioned table with a partition (parts, parts_1) and a fenced
// table with an inheritance child (base, base_arch).
const lifeSchema = `CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT 'q', tok bigint NOT NULL DEFAULT 0, other bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';
CREATE TABLE reqs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT 'q', tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN reqs.tok IS 'fencegen:token required';
CREATE TABLE parts (id bigint, region int, tok bigint NOT NULL DEFAULT 0, PRIMARY KEY (id, region)) PARTITION BY LIST (region);
CREATE TABLE parts_1 PARTITION OF parts FOR VALUES IN (1);
COMMENT ON COLUMN parts.tok IS 'fencegen:token';
CREATE TABLE base (id bigint PRIMARY KEY, tok bigint NOT NULL DEFAULT 0);
CREATE TABLE base_arch (PRIMARY KEY (id)) INHERITS (base);
COMMENT ON COLUMN base.tok IS 'fencegen:token';
`

// TestGuardReplayWeakens replays, after the guard migration, a migration
// of the team's that weakens the guard trigger without dropping it
// (issue 24): each is a finding at its statement, and PostgreSQL shows
// why: with the guard applied and then the migration, the stale write
// the trigger refused before passes (or, stale, every write fails). A
// migration that leaves the guard whole is no finding, and the stale
// write stays refused.
func TestGuardReplayWeakens(t *testing.T) {
	dir := t.TempDir()
	g := guardOf(t, dir, lifeSchema)
	mig, err := g.Migration("goose", "2")
	if err != nil {
		t.Fatal(err)
	}
	// The schema is the first migration: the replay follows which
	// tables are partitions and children from it on.
	files := parseFiles(t, filepath.Join(dir, "schema.sql"), writeFile(t, dir, "m/2_fencegen_guard.sql", string(mig["2_fencegen_guard.sql"])))
	fn := map[string]string{}
	for _, tb := range g.data.Tables {
		fn[tb.QualifiedTable] = tb.Function
	}
	guardSQL, err := g.SQL()
	if err != nil {
		t.Fatal(err)
	}
	const rows = `INSERT INTO jobs (id, tok) VALUES (1, 5); INSERT INTO reqs (id, tok) VALUES (1, 5); INSERT INTO parts VALUES (1, 1, 5); INSERT INTO base_arch VALUES (1, 5);`
	// passes is set when stale (sent after the migration) must succeed:
	// the guard no longer holds; otherwise it must fail.
	for _, tc := range []struct {
		sql, want string
		stale     string
		passes    bool
	}{
		{"ALTER TABLE jobs ENABLE REPLICA TRIGGER fencegen_guard;", "3:1: makes the guard trigger of fenced table jobs that", "UPDATE jobs SET tok = 1 WHERE id = 1", true},
		{"ALTER TABLE jobs ENABLE ALWAYS TRIGGER fencegen_guard;", "", "UPDATE jobs SET tok = 1 WHERE id = 1", false},
		{"ALTER TABLE jobs DISABLE TRIGGER fencegen_guard;\nALTER TABLE jobs ENABLE ALWAYS TRIGGER fencegen_guard;", "", "UPDATE jobs SET tok = 1 WHERE id = 1", false},
		{"ALTER TABLE reqs DISABLE TRIGGER fencegen_guard_token;", "3:1: disables the guard trigger of fenced table reqs", "UPDATE reqs SET status = 'none' WHERE id = 1", true},
		{"CREATE OR REPLACE FUNCTION " + fn["jobs"] + "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;", "3:1: replaces the guard function " + fn["jobs"] + " of fenced table jobs", "UPDATE jobs SET tok = 1 WHERE id = 1", true},
		{"ALTER FUNCTION " + fn["jobs"] + "() RENAME TO old_guard;\nCREATE FUNCTION " + fn["jobs"] + "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;", "3:1: renames (to old_guard) the guard function", "UPDATE jobs SET tok = 1 WHERE id = 1", false},
		{"ALTER FUNCTION public." + fn["jobs"] + "() SECURITY DEFINER;", "3:1: alters the guard function", "", false},
		{"ALTER FUNCTION " + fn["jobs"] + " OWNER TO CURRENT_USER;", "3:1: changes the owner of the guard function", "", false},
		{"CREATE FUNCTION noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;\nCREATE OR REPLACE TRIGGER fencegen_guard BEFORE UPDATE ON jobs FOR EACH ROW EXECUTE FUNCTION noop();", "4:1: replaces the guard trigger fencegen_guard of fenced table jobs", "UPDATE jobs SET tok = 1 WHERE id = 1", true},
		{"ALTER TABLE jobs RENAME COLUMN tok TO fence;\nALTER TABLE jobs RENAME COLUMN other TO tok;", "4:1: renames column other of fenced table jobs to tok, the name its token column had before", "UPDATE jobs SET fence = 1 WHERE id = 1", true},
		{"ALTER TABLE jobs RENAME COLUMN tok TO fence;\nALTER TABLE jobs RENAME COLUMN fence TO f2;\nALTER TABLE jobs RENAME COLUMN f2 TO tok;", "", "UPDATE jobs SET tok = 1 WHERE id = 1", false},
		// Required: renamed, fencegen_guard runs after fencegen_guard_token,
		// and every UPDATE that sets the token fails (a fresh one here);
		// the other way round, an UPDATE without a token passes.
		{"ALTER TRIGGER fencegen_guard ON reqs RENAME TO zz_guard;", "3:1: renames the guard trigger fencegen_guard of fenced table reqs", "UPDATE reqs SET tok = 9 WHERE id = 1", false},
		{"ALTER TRIGGER fencegen_guard_token ON reqs RENAME TO a_guard_token;", "3:1: renames the guard trigger fencegen_guard_token of fenced table reqs", "UPDATE reqs SET status = 'none' WHERE id = 1", true},
		{"ALTER TRIGGER fencegen_guard ON reqs RENAME TO zz_guard;\nALTER TRIGGER zz_guard ON reqs RENAME TO fencegen_guard;", "", "UPDATE reqs SET status = 'none' WHERE id = 1", false},
		{"ALTER TABLE parts DETACH PARTITION parts_1;", "3:1: detaches partition parts_1 from fenced table parts", "UPDATE parts_1 SET tok = 1 WHERE id = 1", true},
		{"DROP TABLE parts_1;\nCREATE TABLE parts_1 (id bigint, region int, tok bigint NOT NULL DEFAULT 0, PRIMARY KEY (id, region));", "4:1: creates table parts_1 again without the fencing mark", "INSERT INTO parts_1 VALUES (1, 1, 5); UPDATE parts_1 SET tok = 1 WHERE id = 1", true},
		{"DROP TABLE parts_1;\nCREATE TABLE parts_1 PARTITION OF parts FOR VALUES IN (1);", "", "INSERT INTO parts VALUES (1, 1, 5); UPDATE parts_1 SET tok = 1 WHERE id = 1", false},
		// The child keeps its own trigger, but not the mark: fencing it
		// or not is the team's choice (-into or -unfence).
		{"ALTER TABLE base_arch NO INHERIT base;", "3:1: makes table base_arch no longer inherit from fenced table base", "UPDATE base_arch SET tok = 1 WHERE id = 1", false},
		{"ALTER TABLE jobs ALTER COLUMN tok TYPE bigint USING 0;", "3:1: changes the type of token column tok of fenced table jobs with a USING expression", "UPDATE jobs SET tok = 1 WHERE id = 1", true},
		{"ALTER TABLE jobs ALTER COLUMN tok TYPE numeric USING tok::numeric;", "3:1: changes the type of column tok of fenced table jobs, which", "UPDATE jobs SET tok = 1 WHERE id = 1", false},
		{"SET session_replication_role = replica;", "3:1: sets session_replication_role to replica for the migration's session", "", false},
		{"ALTER DATABASE app SET session_replication_role = replica;", "3:1: sets session_replication_role to replica for every session of database app", "", false},
		{"SET session_replication_role = replica;\nUPDATE jobs SET status = 'x';\nRESET session_replication_role;", "", "", false},
		{"SET LOCAL session_replication_role = replica;", "", "", false},
		{"ALTER SYSTEM SET session_replication_role = replica;", "3:1: sets session_replication_role to replica for every session of the server", "", false},
		{"DROP OWNED BY app;", "3:1: DROP OWNED drops every object of the roles it names", "", false},
		{"REASSIGN OWNED BY app TO other;", "3:1: REASSIGN OWNED gives another owner every object", "", false},
		{"ALTER EXTENSION ext ADD FUNCTION " + fn["jobs"] + "();", "3:1: makes an extension's drop drop the guard function", "", false},
	} {
		later := parseFiles(t, writeFile(t, dir, "m/3_change.sql", "-- +goose Up\n-- change\n"+tc.sql+"\n"))[0]
		found := g.compare(replayGuard(append(slices.Clip(files), later)), nil)
		if tc.want == "" {
			for _, f := range found {
				if f.Cause {
					t.Errorf("%s: %v, want no cause", tc.sql, f)
				}
			}
		} else if !slices.ContainsFunc(found, func(f Finding) bool {
			return f.Cause && strings.HasPrefix(f.String(), later.Name+":"+tc.want) && (f.Refused || !strings.Contains(tc.sql, "USING 0"))
		}) {
			t.Errorf("%s:\n%v\nwant %s:%s...", tc.sql, found, later.Name, tc.want)
		}
		if tc.stale == "" {
			continue
		}
		pool := testenv.Database(t, lifeSchema, string(guardSQL), rows)
		// A fresh write (zz_guard) passes before; a stale one is refused.
		fresh := strings.HasSuffix(tc.sql, "RENAME TO zz_guard;")
		if err := exec(pool, tc.stale); (err == nil) != fresh {
			t.Errorf("%s: %v before the migration", tc.stale, err)
			pool.Close()
			continue
		}
		if err := exec(pool, tc.sql); err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		if fresh {
			if _, err := pool.Exec(context.Background(), "UPDATE reqs SET tok = 5 WHERE id = 1"); err == nil {
				t.Errorf("%s: the write of the stored token passes twice", tc.sql)
			}
		}
		if err := exec(pool, tc.stale); (err == nil) != tc.passes {
			t.Errorf("after %s\n%s: %v, want it to pass: %v", tc.sql, tc.stale, err, tc.passes)
		}
		pool.Close()
	}
}

// exec runs sql (several statements) on a connection of its own.
func exec(pool *pgxpool.Pool, sql string) error {
	_, err := pool.Exec(context.Background(), sql)
	return err
}
