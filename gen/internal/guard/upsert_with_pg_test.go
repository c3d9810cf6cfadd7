package guard_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/gen/internal/guard"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// runGuarded runs g through the runtime reader its form names
// (Form.Reader), with args and the token last, as generated code does.
func runGuarded(t *testing.T, pool *pgxpool.Pool, g *guard.Guarded, tok fence.Token, args ...any) (int64, error) {
	t.Helper()
	ctx := context.Background()
	args = append(args, int64(tok))
	run := func() (fenceimpl.Rows, error) { return pool.Query(ctx, g.SQL, args...) }
	switch r := g.Form.Reader(); r {
	case "Write":
		return fenceimpl.Write("Q", "jobs", fence.NonStrict, tok, 0, run, nil)
	case "WriteUpsert":
		return fenceimpl.WriteUpsert("Q", "jobs", fence.NonStrict, tok, 0, run, nil)
	case "WriteUpsertMany":
		return fenceimpl.WriteUpsertMany("Q", "jobs", fence.NonStrict, tok, 0, run, nil)
	case "WriteInCTE":
		return fenceimpl.WriteInCTE("Q", "jobs", fence.NonStrict, tok, 0, run, nil)
	default:
		t.Fatalf("form %v: reader %q not run by this test", g.Form, r)
	}
	return 0, nil
}

// jobsState is "id:state:tok ..." for every row of jobs, in id order.
func jobsState(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var s string
	if err := pool.QueryRow(context.Background(), `SELECT coalesce(string_agg(format('%s:%s:%s', id, state, tok), ' ' ORDER BY id), '') FROM jobs`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// An upsert whose INSERT has a WITH clause of its own is guarded, not
// refused: the INSERT's entries join the front of the guard's WITH list,
// where the guard's own queries (the refusal row's lookup, fence_input)
// can read them. Against real PostgreSQL, in each form an upsert takes:
// one VALUES row (Upsert), many rows (UpsertMany, all or nothing), and the
// upsert as a WITH entry of its own (InWith).
func TestFenceUpsertOwnWithPostgreSQL(t *testing.T) {
	pool := testenv.Database(t, `CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL, tok bigint NOT NULL DEFAULT 0);
		CREATE TABLE job_log (job_id bigint NOT NULL);`)
	ctx := context.Background()
	types := []string{"pg_catalog.int8", "pg_catalog.text"}
	for _, tc := range []struct {
		name string
		sql  string
		spec guard.Spec
		form guard.Form
		// ids are the rows one statement writes, for id $1.
		ids []int64
	}{
		{
			name: "one VALUES row",
			sql: `WITH src AS (SELECT $1::bigint AS id, $2::text AS state)
				INSERT INTO jobs (id, state) VALUES ((SELECT id FROM src), (SELECT state FROM src))
				ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state`,
			spec: guard.Spec{Table: "jobs", Column: "tok", Key: []string{"id"}, Param: 3},
			form: guard.Upsert, ids: []int64{0},
		},
		{
			name: "many rows",
			sql: `WITH src (id, state) AS (VALUES ($1::bigint, $2::text), ($1 + 1, $2))
				INSERT INTO jobs (id, state) SELECT id, state FROM src
				ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state`,
			spec: guard.Spec{Table: "jobs", Column: "tok", Key: []string{"id"}, Param: 3, InsertTypes: types},
			form: guard.UpsertMany, ids: []int64{0, 1},
		},
		{
			name: "recursive WITH of many rows",
			sql: `WITH RECURSIVE src (id, state) AS (SELECT $1::bigint, $2::text UNION ALL SELECT id + 1, state FROM src WHERE id < $1 + 1)
				INSERT INTO jobs (id, state) SELECT id, state FROM src
				ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state`,
			spec: guard.Spec{Table: "jobs", Column: "tok", Key: []string{"id"}, Param: 3, InsertTypes: types},
			form: guard.UpsertMany, ids: []int64{0, 1},
		},
		{
			name: "as a WITH entry",
			sql: `WITH w AS (
					WITH src AS (SELECT $1::bigint AS id)
					INSERT INTO jobs (id, state) SELECT id, $2 FROM src
					ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state RETURNING id)
				INSERT INTO job_log (job_id) SELECT id FROM w`,
			spec: guard.Spec{Table: "jobs", Column: "tok", Key: []string{"id"}, Param: 3, CTE: "w", InsertTypes: types},
			form: guard.InWith, ids: []int64{0},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := pool.Exec(ctx, `TRUNCATE jobs, job_log`); err != nil {
				t.Fatal(err)
			}
			g, err := guard.Rewrite(tc.sql, tc.spec)
			if err != nil {
				t.Fatalf("Rewrite: %v", err)
			}
			if g.Form != tc.form {
				t.Fatalf("form %v, want %v:\n%s", g.Form, tc.form, g.SQL)
			}
			rows := func(state string, tok int) string {
				var parts []string
				for _, d := range tc.ids {
					parts = append(parts, fmt.Sprintf("%d:%s:%d", 10+d, state, tok))
				}
				return strings.Join(parts, " ")
			}
			// Inserted, storing the token.
			if _, err := runGuarded(t, pool, g, 5, int64(10), "new"); err != nil {
				t.Fatalf("insert: %v\n%s", err, g.SQL)
			}
			if got, want := jobsState(t, pool), rows("new", 5); got != want {
				t.Fatalf("after the insert: %s, want %s", got, want)
			}
			// A newer token updates.
			if _, err := runGuarded(t, pool, g, 7, int64(10), "running"); err != nil {
				t.Fatalf("update: %v", err)
			}
			if got, want := jobsState(t, pool), rows("running", 7); got != want {
				t.Fatalf("after the newer token: %s, want %s", got, want)
			}
			// An older token is stale, and nothing is written.
			_, err = runGuarded(t, pool, g, 6, int64(10), "stale")
			var se *fence.StaleError
			if !errors.As(err, &se) || se.Stored != 7 {
				t.Fatalf("older token: %v, want a stale-token error with stored 7", err)
			}
			if got, want := jobsState(t, pool), rows("running", 7); got != want {
				t.Fatalf("a stale upsert wrote: %s, want %s", got, want)
			}
			if len(tc.ids) > 1 {
				// All or nothing: one row with a newer token refuses the
				// whole statement, the other row included.
				if _, err := pool.Exec(ctx, `UPDATE jobs SET tok = 9 WHERE id = 11`); err != nil {
					t.Fatal(err)
				}
				_, err = runGuarded(t, pool, g, 8, int64(10), "partial")
				if !errors.As(err, &se) || se.Stored != 9 {
					t.Fatalf("token 8 against 7 and 9: %v, want a stale-token error with stored 9", err)
				}
				if got := jobsState(t, pool); got != "10:running:7 11:running:9" {
					t.Fatalf("a refused upsert of many rows wrote part: %s", got)
				}
			}
		})
	}
}

// An upsert's own WITH entries are refused, as a located error from the
// analyser's caller, where merging them into the guard's WITH list would
// change what the statement does: an entry that writes (it would run even
// when the write is refused), a name of the guard's (fence_*), the fenced
// table's name, an entry of the outer WITH list's name, and a RECURSIVE
// clause inside a WITH list that is not.
func TestFenceUpsertOwnWithRefusals(t *testing.T) {
	types := []string{"pg_catalog.int8", "pg_catalog.text"}
	for _, tc := range []struct {
		sql, cte, want string
	}{
		{`WITH l AS (INSERT INTO job_log VALUES ($1) RETURNING job_id) INSERT INTO jobs (id, state) SELECT job_id, $2 FROM l ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state`,
			"", "WITH entry l writes"},
		{`WITH fence_input AS (SELECT $1::bigint AS id) INSERT INTO jobs (id, state) SELECT id, $2 FROM fence_input ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state`,
			"", "fence_input is reserved"},
		{`WITH jobs AS (SELECT $1::bigint AS id) INSERT INTO jobs (id, state) VALUES ((SELECT id FROM jobs), $2) ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state`,
			"", "hides table jobs"},
		{`WITH src AS (SELECT 1), w AS (WITH src AS (SELECT $1::bigint AS id) INSERT INTO jobs (id, state) SELECT id, $2 FROM src ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state RETURNING id) SELECT count(*) FROM w`,
			"w", "WITH entry src has the name of an entry"},
		{`WITH l AS (SELECT 1), w AS (WITH l2 AS (INSERT INTO job_log VALUES ($1) RETURNING job_id) INSERT INTO jobs (id, state) SELECT job_id, $2 FROM l2 ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state RETURNING id) SELECT count(*) FROM w`,
			"w", "WITH entry l2 writes"},
		{`WITH w AS (WITH RECURSIVE src (id) AS (SELECT $1::bigint UNION ALL SELECT id + 1 FROM src WHERE id < 3) INSERT INTO jobs (id, state) SELECT id, $2 FROM src ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state RETURNING id) SELECT count(*) FROM w`,
			"w", "WITH RECURSIVE clause cannot join"},
	} {
		_, err := guard.Rewrite(tc.sql, guard.Spec{Table: "jobs", Column: "tok", Key: []string{"id"}, Param: 3, CTE: tc.cte, InsertTypes: types})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\nerr = %v, want it to say %q", tc.sql, err, tc.want)
		}
	}
}

// An UPDATE or DELETE that is a WITH entry with a WITH clause of its own:
// the entry's own entries join the statement's WITH list ahead of
// fence_lock, which reads the same rows as the write. Against real
// PostgreSQL: a lower token refuses the whole statement (the main query's
// log row included), a higher one writes.
func TestFenceInWithOwnWithPostgreSQL(t *testing.T) {
	pool := testenv.Database(t, `CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL, tok bigint NOT NULL DEFAULT 0);
		CREATE TABLE job_log (job_id bigint NOT NULL);`)
	ctx := context.Background()
	spec := guard.Spec{Table: "jobs", Name: "jobs", Column: "tok", Key: []string{"id"}, Param: 3, CTE: "w"}
	for _, tc := range []struct{ name, sql, after string }{
		{"update", `WITH w AS (WITH src AS (SELECT $1::bigint AS id) UPDATE jobs SET state = $2 WHERE id IN (SELECT id FROM src) RETURNING id)
			INSERT INTO job_log (job_id) SELECT id FROM w`, "10:done:7 11:new:5"},
		{"delete", `WITH w AS (WITH src AS (SELECT $1::bigint AS id, $2::text AS why) DELETE FROM jobs WHERE id IN (SELECT id FROM src) RETURNING id)
			INSERT INTO job_log (job_id) SELECT id FROM w`, "11:new:5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := pool.Exec(ctx, `TRUNCATE jobs, job_log; INSERT INTO jobs VALUES (10, 'new', 5), (11, 'new', 5)`); err != nil {
				t.Fatal(err)
			}
			g, err := guard.Rewrite(tc.sql, spec)
			if err != nil {
				t.Fatalf("Rewrite: %v", err)
			}
			if g.Form != guard.InWith {
				t.Fatalf("form %v, want InWith", g.Form)
			}
			logged := func() (n int) {
				if err := pool.QueryRow(ctx, `SELECT count(*) FROM job_log`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			_, err = runGuarded(t, pool, g, 4, int64(10), "done")
			var se *fence.StaleError
			if !errors.As(err, &se) || se.Stored != 5 {
				t.Fatalf("token 4 against 5: %v, want a stale-token error with stored 5\n%s", err, g.SQL)
			}
			if got := jobsState(t, pool); got != "10:new:5 11:new:5" || logged() != 0 {
				t.Fatalf("a refused statement wrote: %s, %d log rows", got, logged())
			}
			if _, err := runGuarded(t, pool, g, 7, int64(10), "done"); err != nil {
				t.Fatalf("token 7: %v", err)
			}
			if got := jobsState(t, pool); got != tc.after || logged() != 1 {
				t.Fatalf("after token 7: %s, %d log rows; want %s, 1", got, logged(), tc.after)
			}
		})
	}
}

// The guard refuses to guard a write into another table than the fenced
// one (Spec.Name): guarding it would leave the fenced write, which the
// analyser found elsewhere in the statement, without the guard.
func TestRewriteChecksTarget(t *testing.T) {
	for _, tc := range []struct{ sql, cte string }{
		{"INSERT INTO job_log (job_id) VALUES ($1)", ""},
		{"UPDATE job_log SET job_id = $1 WHERE job_id = 3", ""},
		{"UPDATE job_log SET job_id = $1 WHERE id = 3", ""}, // by key
		{"DELETE FROM job_log WHERE job_id > $1", ""},
		{"WITH w AS (UPDATE job_log SET job_id = $1 RETURNING 1) SELECT count(*) FROM w", "w"},
	} {
		_, err := guard.Rewrite(tc.sql, guard.Spec{Table: "jobs", Name: "jobs", Column: "tok", Key: []string{"id"}, Param: 2, CTE: tc.cte})
		if err == nil || !strings.Contains(err.Error(), "not into fenced table jobs") {
			t.Errorf("%s: err = %v, want a refusal naming the fenced table", tc.sql, err)
		}
	}
	if _, err := guard.Rewrite("UPDATE jobs SET state = $1 WHERE id = 3", guard.Spec{Table: "jobs", Name: "jobs", Column: "tok", Key: []string{"id"}, Param: 2}); err != nil {
		t.Errorf("the fenced table itself: %v", err)
	}
}
