package guard

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/internal/testenv"
)

// resetSchema has fenced table jobs, whose rows owners' rows delete
// (ON DELETE CASCADE), and fenced partitioned table parts.
const resetSchema = `CREATE TABLE owners (id bigint PRIMARY KEY);
CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT 'q', tok bigint NOT NULL DEFAULT 0, owner bigint REFERENCES owners ON DELETE CASCADE);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';
CREATE TABLE parts (id bigint, region int, tok bigint NOT NULL DEFAULT 0, PRIMARY KEY (id, region)) PARTITION BY LIST (region);
CREATE TABLE parts_1 PARTITION OF parts FOR VALUES IN (1);
COMMENT ON COLUMN parts.tok IS 'fencegen:token';
`

// asGenerated parses files as gen reads a schema: the parse tree of a
// statement the replay does not read (CREATE TABLE) let go.
func asGenerated(t *testing.T, files ...string) []*sqlparse.File {
	t.Helper()
	out := parseFiles(t, files...)
	for _, f := range out {
		for _, st := range f.Stmts {
			if st.Raw != nil && !ReadsRaw(st.Raw) {
				st.Raw = nil
			}
		}
	}
	return out
}

// TestGuardReplayTokenResets (trial t24f C): after a guard migration,
// rows of a fenced table removed and rows inserted into it whose token
// column is not shown to carry the stored tokens are a finding at the
// removal (one migration) or at the insert (a later migration), however
// the rows go (DELETE, TRUNCATE, a foreign key's cascade, through a
// view, a partition) and come (INSERT from a copy whose tokens were
// zeroed, a table filled without them, a view of constant tokens, COPY
// FROM, MERGE, a function, a trigger, a copy renamed in place); an
// INSERT ... SELECT of the token column from a copy the migration made
// of the table, untouched since, is none. PostgreSQL shows each: row 1
// stores token 5 before the migrations, and a lower one after them
// exactly when the replay finds a reset (but for the one acknowledged).
func TestGuardReplayTokenResets(t *testing.T) {
	dir := t.TempDir()
	g := guardOf(t, dir, resetSchema)
	mig, err := g.Migration("goose", "2")
	if err != nil {
		t.Fatal(err)
	}
	guardFile := writeFile(t, dir, "m/2_fencegen_guard.sql", string(mig["2_fencegen_guard.sql"]))
	guardSQL, err := g.SQL()
	if err != nil {
		t.Fatal(err)
	}
	const rows = `INSERT INTO owners VALUES (1), (2); INSERT INTO jobs (id, status, tok, owner) VALUES (1, 'a', 5, 1), (2, 'b', 7, 2); INSERT INTO parts VALUES (1, 1, 5);`
	const keep = "CREATE TABLE keep AS SELECT id, status, owner FROM jobs;\n"
	for _, tc := range []struct {
		name string
		migs []string // the migrations after the guard migration, each from line 3
		want string   // the finding, as file:line:col: text; "" for no reset
		tok  string   // row 1's token after the migrations; "" skips PostgreSQL
		ack  bool     // acknowledged: PostgreSQL lowers the token, the replay finds nothing
	}{
		{"copy zeroed", []string{"CREATE TABLE keep AS SELECT * FROM jobs;\nDELETE FROM jobs;\nUPDATE keep SET tok = 0;\nINSERT INTO jobs SELECT * FROM keep;"},
			"3.sql:4:1: deletes rows of fenced table jobs, and m/3.sql:6:1 inserts rows into fenced table jobs without their tokens", "jobs", false},
		{"zero-filled table", []string{"CREATE TABLE zeros (id bigint, status text, tok bigint NOT NULL DEFAULT 0, owner bigint);\nINSERT INTO zeros (id, status, owner) SELECT id, status, owner FROM jobs;\nTRUNCATE jobs;\nINSERT INTO jobs SELECT * FROM zeros;"},
			"3.sql:5:1: truncates fenced table jobs, and m/3.sql:6:1 inserts rows", "jobs", false},
		{"view of constant tokens", []string{"CREATE VIEW jz AS SELECT id, status, 0::bigint AS tok, owner FROM jobs;\nCREATE TABLE keep AS SELECT * FROM jz;\nDELETE FROM jobs;\nINSERT INTO jobs SELECT * FROM keep;"},
			"3.sql:5:1: deletes rows of fenced table jobs, and m/3.sql:6:1 inserts rows", "jobs", false},
		{"COPY FROM", []string{"DELETE FROM jobs;\nCOPY jobs (id, status) FROM STDIN;"},
			"3.sql:3:1: deletes rows of fenced table jobs, and m/3.sql:4:1 copies rows (COPY ... FROM) into fenced table jobs", "", false},
		{"MERGE", []string{keep + "DELETE FROM jobs;\nMERGE INTO jobs USING keep ON jobs.id = keep.id WHEN NOT MATCHED THEN INSERT (id, status) VALUES (keep.id, keep.status);"},
			"3.sql:4:1: deletes rows of fenced table jobs, and m/3.sql:5:1 inserts rows (MERGE ... INSERT) into fenced table jobs", "jobs", false},
		{"function", []string{keep + "CREATE FUNCTION restore_jobs() RETURNS void LANGUAGE sql AS $$ INSERT INTO jobs (id, status) SELECT id, status FROM keep $$;\nDELETE FROM jobs;\nSELECT restore_jobs();"},
			"3.sql:5:1: deletes rows of fenced table jobs, and m/3.sql:6:1 calls restore_jobs, whose body inserts rows into fenced table jobs", "jobs", false},
		{"trigger", []string{keep + "CREATE TABLE feed (id bigint, status text);\nCREATE FUNCTION put_job() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO jobs (id, status) VALUES (NEW.id, NEW.status); RETURN NEW; END $$;\nCREATE TRIGGER put AFTER INSERT ON feed FOR EACH ROW EXECUTE FUNCTION put_job();\nDELETE FROM jobs;\nINSERT INTO feed SELECT id, status FROM keep;"},
			"3.sql:7:1: deletes rows of fenced table jobs, and m/3.sql:8:1 writes table feed, whose trigger calls put_job, whose body inserts rows", "jobs", false},
		{"two migrations", []string{keep + "TRUNCATE jobs;", "INSERT INTO jobs (id, status) SELECT id, status FROM keep;"},
			"4.sql:3:1: inserts rows into fenced table jobs without their tokens, after m/3.sql:4:1 truncates fenced table jobs", "jobs", false},
		{"copy of an earlier migration", []string{"CREATE TABLE keep AS SELECT * FROM jobs;", "DELETE FROM jobs;\nINSERT INTO jobs SELECT * FROM keep;"},
			"4.sql:3:1: deletes rows of fenced table jobs, and m/4.sql:4:1 inserts rows", "", false},
		{"TRUNCATE CASCADE", []string{keep + "TRUNCATE owners CASCADE;\nINSERT INTO owners VALUES (1), (2);\nINSERT INTO jobs (id, status, owner) SELECT id, status, owner FROM keep;"},
			"3.sql:4:1: truncates table owners with CASCADE, which (a foreign key of jobs references it) truncates fenced table jobs, and m/3.sql:6:1 inserts rows", "jobs", false},
		{"ON DELETE CASCADE", []string{keep + "DELETE FROM owners;\nINSERT INTO owners VALUES (1), (2);\nINSERT INTO jobs (id, status, owner) SELECT id, status, owner FROM keep;"},
			"3.sql:4:1: deletes rows of table owners, which (ON DELETE CASCADE of a foreign key of jobs) deletes rows of fenced table jobs, and m/3.sql:6:1 inserts rows", "jobs", false},
		{"through a view", []string{"CREATE VIEW jv AS SELECT * FROM jobs;\nDELETE FROM jv;\nINSERT INTO jobs (id, status) VALUES (1, 'a');"},
			"3.sql:4:1: writes view jv, which deletes rows of fenced table jobs, and m/3.sql:5:1 inserts rows", "jobs", false},
		{"WITH entry", []string{keep + "WITH d AS (DELETE FROM jobs RETURNING id) SELECT count(*) FROM d;\nINSERT INTO jobs (id, status) SELECT id, status FROM keep;"},
			"3.sql:4:1: deletes rows of fenced table jobs, and m/3.sql:5:1 inserts rows", "jobs", false},
		{"partition", []string{"DELETE FROM parts_1;\nINSERT INTO parts_1 (id, region) VALUES (1, 1);"},
			"3.sql:3:1: deletes rows of partition parts_1 of fenced table parts, and m/3.sql:4:1 inserts rows into fenced table parts", "parts", false},
		{"dropped and created again", []string{keep + "DROP TABLE jobs;\nCREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT 'q', tok bigint NOT NULL DEFAULT 0, owner bigint);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';\nINSERT INTO jobs (id, status) SELECT id, status FROM keep;"},
			"3.sql:7:1: inserts rows into fenced table jobs without their tokens, after m/3.sql:4:1 drops fenced table jobs", "jobs", false},
		{"copy renamed in place", []string{keep + "CREATE TABLE jobs_new (LIKE jobs INCLUDING ALL);\nINSERT INTO jobs_new (id, status) SELECT id, status FROM keep;\nDROP TABLE jobs;\nALTER TABLE jobs_new RENAME TO jobs;"},
			"3.sql:7:1: renames table jobs_new to jobs, whose rows take the place of the rows of fenced table jobs without their tokens, after m/3.sql:6:1 drops fenced table jobs", "jobs", false},
		// Kept: the token column copied and put back, a copy's other
		// columns changed or some of its rows deleted, new rows only.
		{"copy kept", []string{"CREATE TABLE keep AS SELECT * FROM jobs;\nTRUNCATE jobs CASCADE;\nINSERT INTO jobs SELECT * FROM keep;"}, "", "jobs", false},
		{"copy filled", []string{"CREATE TABLE keep (LIKE jobs);\nINSERT INTO keep SELECT * FROM jobs;\nDELETE FROM keep WHERE id > 10;\nUPDATE keep SET status = 'x';\nDELETE FROM jobs;\nINSERT INTO jobs (id, status, tok, owner) SELECT id, status, tok, owner FROM keep;"}, "", "jobs", false},
		{"MERGE kept", []string{"CREATE TABLE keep AS SELECT * FROM jobs;\nDELETE FROM jobs;\nMERGE INTO jobs USING keep k ON jobs.id = k.id WHEN NOT MATCHED THEN INSERT (id, status, tok, owner) VALUES (k.id, k.status, k.tok, k.owner);"}, "", "jobs", false},
		{"swapped with tokens", []string{"CREATE TABLE jobs_new (LIKE jobs INCLUDING ALL);\nINSERT INTO jobs_new SELECT * FROM jobs;\nDROP TABLE jobs;\nALTER TABLE jobs_new RENAME TO jobs;"}, "", "jobs", false},
		{"new rows", []string{"INSERT INTO jobs (id, status) VALUES (3, 'c');\nINSERT INTO owners VALUES (3);"}, "", "jobs", false},
		{"other rows", []string{"CREATE TABLE other (id int);\nINSERT INTO other VALUES (1);\nDELETE FROM other;\nINSERT INTO other VALUES (2);\nDELETE FROM jobs WHERE id = 2;"}, "", "jobs", false},
		// Every row put back, or swapped in, as of before the removal: new
		// rows after it are new; a copy made after a DELETE lacks the
		// deleted rows, which come back without their tokens.
		{"swapped, then new rows", []string{"CREATE TABLE jobs_new (LIKE jobs INCLUDING ALL);\nINSERT INTO jobs_new SELECT * FROM jobs;\nDROP TABLE jobs;\nALTER TABLE jobs_new RENAME TO jobs;", "INSERT INTO jobs (id, status) VALUES (3, 'c');"}, "", "jobs", false},
		{"put back, then new rows", []string{"CREATE TABLE keep AS SELECT * FROM jobs;\nTRUNCATE jobs;\nINSERT INTO jobs SELECT * FROM keep;", "INSERT INTO jobs (id, status) VALUES (3, 'c');"}, "", "jobs", false},
		{"partial copy put back", []string{"DELETE FROM jobs WHERE id = 1;\nCREATE TABLE keep AS SELECT * FROM jobs;\nTRUNCATE jobs;\nINSERT INTO jobs SELECT * FROM keep;", "INSERT INTO jobs (id, status) VALUES (1, 'a');"},
			"4.sql:3:1: inserts rows into fenced table jobs without their tokens, after m/3.sql:3:1 deletes rows of fenced table jobs", "jobs", false},
		{"acknowledged", []string{"-- fencegen:reset-tokens\nDELETE FROM jobs;\nINSERT INTO jobs (id, status) VALUES (1, 'a');"}, "", "jobs", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub := t.TempDir()
			paths := []string{writeFile(t, sub, "schema.sql", resetSchema), guardFile}
			for i, m := range tc.migs {
				paths = append(paths, writeFile(t, sub, fmt.Sprintf("m/%d.sql", i+3), "-- +goose Up\n-- change\n"+m+"\n"))
			}
			found := g.compare(replayGuard(asGenerated(t, paths...)), nil)
			reset := false
			for _, f := range found {
				if f.Refused {
					reset = true
					if tc.want == "" {
						t.Errorf("%v, want no reset found", f)
					}
				}
			}
			if tc.want != "" && !slices.ContainsFunc(found, func(f Finding) bool {
				return f.Refused && strings.HasPrefix(strings.ReplaceAll(f.String(), sub+string(filepath.Separator), ""), "m/"+tc.want)
			}) {
				t.Errorf("%v\nwant m/%s...", found, tc.want)
			}
			if tc.tok == "" {
				return
			}
			pool := testenv.Database(t, resetSchema, string(guardSQL), rows)
			for _, m := range tc.migs {
				if _, err := pool.Exec(context.Background(), m); err != nil {
					t.Fatalf("%s: %v", m, err)
				}
			}
			var tok int64
			if err := pool.QueryRow(context.Background(), "SELECT tok FROM "+tc.tok+" WHERE id = 1").Scan(&tok); err != nil {
				t.Fatal(err)
			}
			if lowered := tok < 5; lowered != (reset || tc.ack) {
				t.Errorf("row 1 of %s stores token %d after the migrations (5 before), and the replay found a reset: %v", tc.tok, tok, reset)
			}
		})
	}
}
