package guard_test

import (
	"context"
	"errors"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/guard"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// A fenced UPDATE or DELETE that is a data-modifying WITH entry is guarded
// all or nothing in place, and the statement's own rows come back, against
// real PostgreSQL.
func TestFenceInWithPostgreSQL(t *testing.T) {
	pool := testenv.Database(t, `
		CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL, grp int NOT NULL, tok bigint NOT NULL DEFAULT 0);
		CREATE TABLE job_log (id bigserial PRIMARY KEY, job_id bigint NOT NULL);
		INSERT INTO jobs (id, state, grp, tok) VALUES (1, 'new', 1, 1), (2, 'new', 1, 1), (3, 'new', 1, 5), (4, 'new', 2, 0);`)
	ctx := context.Background()
	run := func(t *testing.T, sql string, cols int, args ...any) ([]int64, error) {
		t.Helper()
		got, err := guard.FenceWrite(sql, guard.Spec{Column: "tok", Key: []string{"id"}, Param: len(args), Columns: cols, CTE: "w"})
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		_, err = fenceimpl.WriteInCTE("Q", "jobs", fence.NonStrict, fence.Token(args[len(args)-1].(int64)), cols, func() (fenceimpl.Rows, error) {
			return pool.Query(ctx, got, args...)
		}, func(r fenceimpl.Rows) error {
			if cols == 0 {
				return nil
			}
			var id int64
			if err := r.Scan(nil, nil, &id); err != nil {
				return err
			}
			ids = append(ids, id)
			return nil
		})
		return ids, err
	}
	state := func(t *testing.T) (done, total int64) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE state = 'done'), count(*) FROM jobs`).Scan(&done, &total); err != nil {
			t.Fatal(err)
		}
		return
	}
	const update = `WITH w AS (UPDATE jobs SET state = 'done' WHERE grp = $1 RETURNING id) SELECT id FROM w ORDER BY id`
	// Row 3 holds token 5: token 3 writes none of group 1.
	_, err := run(t, update, 1, int32(1), int64(3))
	var se *fence.StaleError
	if !errors.As(err, &se) || se.Stored != 5 || se.Rows != 1 {
		t.Fatalf("stale group update: %v, want stale with stored 5 and 1 refused row", err)
	}
	if done, _ := state(t); done != 0 {
		t.Fatalf("%d rows written by a refused statement", done)
	}
	// Token 5 writes all three and returns them.
	ids, err := run(t, update, 1, int32(1), int64(5))
	if err != nil || len(ids) != 3 {
		t.Fatalf("group update with token 5: ids %v, %v", ids, err)
	}
	// No match: no rows, no error (the main query decides what that means).
	if ids, err := run(t, update, 1, int32(9), int64(5)); err != nil || len(ids) != 0 {
		t.Fatalf("no match: %v, %v", ids, err)
	}
	// A main statement that writes an unfenced table.
	const logged = `WITH w AS (UPDATE jobs SET state = 'logged' WHERE id = $1 RETURNING id) INSERT INTO job_log (job_id) SELECT id FROM w`
	if _, err := run(t, logged, 0, int64(4), int64(2)); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM job_log`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("job_log rows %d, %v", n, err)
	}
	if _, err := run(t, logged, 0, int64(4), int64(1)); !errors.As(err, &se) || se.Stored != 2 {
		t.Fatalf("stale logged update: %v", err)
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM job_log`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("a refused statement logged anyway: %d rows", n)
	}
	// DELETE in WITH.
	const del = `WITH w AS (DELETE FROM jobs WHERE grp = $1 RETURNING id) SELECT count(*) FROM w`
	if _, err := run(t, del, 1, int32(1), int64(4)); !errors.As(err, &se) || se.Stored != 5 {
		t.Fatalf("stale delete: %v", err)
	}
	if _, total := state(t); total != 4 {
		t.Fatalf("refused delete removed rows: %d left", total)
	}
}

// An upsert that is a data-modifying WITH entry is guarded like an upsert
// of many rows: a conflicting row with a newer token refuses the whole
// statement (the log entry is not written either), and otherwise the
// inserted and updated rows store the token.
func TestFenceUpsertInWithPostgreSQL(t *testing.T) {
	pool := testenv.Database(t, `
		CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL, tok bigint NOT NULL DEFAULT 0);
		CREATE TABLE job_log (id bigserial PRIMARY KEY, job_id bigint NOT NULL);
		INSERT INTO jobs VALUES (1, 'new', 5);`)
	ctx := context.Background()
	sql, err := guard.FenceWrite(`WITH w AS (INSERT INTO jobs (id, state) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state RETURNING id)
		INSERT INTO job_log (job_id) SELECT id FROM w`,
		guard.Spec{Column: "tok", Key: []string{"id"}, Param: 3, CTE: "w", InsertTypes: []string{"pg_catalog.int8", "pg_catalog.text"}})
	if err != nil {
		t.Fatal(err)
	}
	upsert := func(id int64, state string, tok int64) error {
		_, err := fenceimpl.WriteInCTE("Q", "jobs", fence.NonStrict, fence.Token(tok), 0, func() (fenceimpl.Rows, error) {
			return pool.Query(ctx, sql, id, state, tok)
		}, nil)
		return err
	}
	logged := func() (n int64) {
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM job_log`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var se *fence.StaleError
	if err := upsert(1, "old", 4); !errors.As(err, &se) || se.Stored != 5 {
		t.Fatalf("token 4 against 5: %v, want stale with stored 5", err)
	}
	if n := logged(); n != 0 {
		t.Fatalf("a refused statement wrote %d log rows", n)
	}
	if err := upsert(1, "running", 6); err != nil {
		t.Fatal(err)
	}
	if err := upsert(2, "new", 6); err != nil {
		t.Fatal(err)
	}
	var s string
	var tok int64
	if err := pool.QueryRow(ctx, `SELECT string_agg(format('%s:%s:%s', id, state, tok), ' ' ORDER BY id), max(tok) FROM jobs`).Scan(&s, &tok); err != nil {
		t.Fatal(err)
	}
	if s != "1:running:6 2:new:6" || logged() != 2 {
		t.Fatalf("after two upserts with token 6: %s, %d log rows", s, logged())
	}
}

// A statement that writes elsewhere besides its fenced write in WITH (a
// sibling WITH entry, or a main query that does not read the fenced
// entry) fails as a whole when the fenced write refuses: none of its
// writes stays, and the error is the stale-token error with the stored
// token and the refused rows.
func TestFenceInWithOtherWritesPostgreSQL(t *testing.T) {
	pool := testenv.Database(t, `
		CREATE TABLE accounts (id text PRIMARY KEY, balance int NOT NULL, tok bigint NOT NULL DEFAULT 0);
		CREATE TABLE audit (id bigserial PRIMARY KEY, what text NOT NULL);
		INSERT INTO accounts VALUES ('a', 100, 5), ('b', 100, 1);`)
	ctx := context.Background()
	for _, tc := range []struct{ name, sql string }{
		{"sibling", `WITH d AS (UPDATE accounts SET balance = balance - $1 WHERE id >= $2 RETURNING id), a AS (INSERT INTO audit (what) VALUES ('debit') RETURNING id) SELECT d.id FROM d`},
		{"main", `WITH d AS (UPDATE accounts SET balance = balance - $1 WHERE id >= $2 RETURNING id) INSERT INTO audit (what) VALUES ('debit')`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sql, err := guard.FenceWrite(tc.sql, guard.Spec{Column: "tok", Key: []string{"id"}, Param: 3, CTE: "d"})
			if err != nil {
				t.Fatal(err)
			}
			write := func(tok int64) error {
				_, err := fenceimpl.WriteInCTE("Debit", "accounts", fence.NonStrict, fence.Token(tok), 0, func() (fenceimpl.Rows, error) {
					return pool.Query(ctx, sql, 10, "a", tok)
				}, nil)
				return err
			}
			var se *fence.StaleError
			if err := write(4); !errors.As(err, &se) || se.Stored != 5 || se.Rows != 1 {
				t.Fatalf("token 4 against 5 and 1: %v; want a stale-token error, stored 5, 1 row", err)
			}
			var audits, balance int
			if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM audit), (SELECT sum(balance) FROM accounts)`).Scan(&audits, &balance); err != nil {
				t.Fatal(err)
			}
			if audits != 0 || balance != 200 {
				t.Fatalf("a refused statement wrote: %d audit rows, balances %d", audits, balance)
			}
		})
	}
}
