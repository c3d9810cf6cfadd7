package guard_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fencegen/fencegen/gen/internal/guard"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// An INSERT ... ON CONFLICT DO UPDATE on a fenced table: the insert stores
// the token, the DO UPDATE branch is guarded and stores the token, and a
// refused update is reported with the stored token, against real
// PostgreSQL.
func TestFenceUpsertPostgreSQL(t *testing.T) {
	pool := testenv.Database(t, `CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL, tok bigint NOT NULL DEFAULT 0)`)
	ctx := context.Background()
	upsert := func(t *testing.T, sql string, strict bool, id int64, state string, tok fence.Token) (int64, error) {
		t.Helper()
		mode := fence.NonStrict
		if strict {
			mode = fence.Strict
		}
		got, err := guard.FenceWrite(sql, guard.Spec{Column: "tok", Param: 3, Strict: strict, Columns: 0})
		if err != nil {
			t.Fatal(err)
		}
		return fenceimpl.WriteUpsert("Upsert", "jobs", mode, tok, 0, func() (fenceimpl.Rows, error) {
			return pool.Query(ctx, got, id, state, int64(tok))
		}, nil)
	}
	const plain = `INSERT INTO jobs (id, state) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state`
	const guarded = `INSERT INTO jobs AS j (id, state) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state WHERE j.state <> 'done'`
	row := func(t *testing.T) (string, int64) {
		t.Helper()
		var s string
		var tok int64
		if err := pool.QueryRow(ctx, `SELECT state, tok FROM jobs WHERE id = 1`).Scan(&s, &tok); err != nil {
			t.Fatal(err)
		}
		return s, tok
	}
	steps := []struct {
		name   string
		sql    string
		strict bool
		state  string
		tok    fence.Token
		stale  fence.Token // stored token in the expected StaleError, 0 for success
		notFnd bool
		want   string
		wantT  int64
	}{
		{name: "insert stores the token", sql: plain, state: "new", tok: 5, want: "new", wantT: 5},
		{name: "conflict with a newer token updates", sql: plain, state: "running", tok: 7, want: "running", wantT: 7},
		{name: "conflict with an older token is stale", sql: plain, state: "old", tok: 6, stale: 7, want: "running", wantT: 7},
		{name: "same token again applies (non-strict)", sql: plain, state: "done", tok: 7, want: "done", wantT: 7},
		{name: "same token is stale when strict", sql: plain, strict: true, state: "x", tok: 7, stale: 7, want: "done", wantT: 7},
		{name: "own WHERE refuses: not found, not stale", sql: guarded, state: "again", tok: 9, notFnd: true, want: "done", wantT: 7},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			n, err := upsert(t, st.sql, st.strict, 1, st.state, st.tok)
			var se *fence.StaleError
			switch {
			case st.stale != 0:
				if !errors.As(err, &se) || se.Stored != st.stale {
					t.Fatalf("err = %v, want stale with stored %d", err, st.stale)
				}
			case st.notFnd:
				// The conflicting row exists: the message says no row
				// was written, never that none matched.
				var nf *fence.NotFoundError
				if !errors.Is(err, fence.ErrNotFound) || !errors.As(err, &nf) || !nf.Upsert ||
					strings.Contains(err.Error(), "no row matched") || !strings.Contains(err.Error(), "no row was written") {
					t.Fatalf("err = %v, want a *fence.NotFoundError with Upsert set saying no row was written", err)
				}
			default:
				if err != nil || n != 1 {
					t.Fatalf("= %d, %v; want 1 row written", n, err)
				}
			}
			if s, tok := row(t); s != st.want || tok != st.wantT {
				t.Fatalf("row = %s/%d, want %s/%d", s, tok, st.want, st.wantT)
			}
		})
	}
}

func TestFenceUpsertNeedsConflictColumns(t *testing.T) {
	for _, sql := range []string{
		`INSERT INTO jobs (id, state) VALUES ($1, $2) ON CONFLICT ON CONSTRAINT jobs_pkey DO UPDATE SET state = EXCLUDED.state`,
		`INSERT INTO jobs (id, state) VALUES ($1, $2), ($1 + 1, $2) ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state`,
		`INSERT INTO jobs (id, state) VALUES ($1, $2) ON CONFLICT (lower(state)) DO UPDATE SET state = EXCLUDED.state`,
	} {
		if _, err := guard.FenceWrite(sql, guard.Spec{Column: "tok", Param: 3}); err == nil {
			t.Errorf("FenceWrite(%q) succeeded; want an error", sql)
		}
	}
}

// An upsert of many rows (several VALUES rows, or INSERT ... SELECT of
// unnest arrays) is all or nothing like an UPDATE of many rows: if any
// existing row it conflicts with holds a token the presented one does not
// beat, nothing is inserted or updated and the refusal says how many rows
// were stale; otherwise new rows and updated rows all store the token.
func TestFenceUpsertManyRowsPostgreSQL(t *testing.T) {
	pool := testenv.Database(t, `CREATE TYPE st AS ENUM ('new', 'running', 'done');
CREATE TABLE jobs (id bigint, part int, state st NOT NULL, tok bigint NOT NULL DEFAULT 0, PRIMARY KEY (id, part))`)
	ctx := context.Background()
	values := fenceWrite(t, `INSERT INTO jobs (id, part, state) VALUES ($1, 1, $2), ($3, 1, $2) ON CONFLICT (id, part) DO UPDATE SET state = EXCLUDED.state`,
		guard.Spec{Column: "tok", Param: 4, InsertTypes: []string{"pg_catalog.int8", "pg_catalog.int4", "public.st"}})
	unnest := fenceWrite(t, `INSERT INTO jobs (id, part, state) SELECT unnest($1::bigint[]), 1, $2 ON CONFLICT (id, part) DO UPDATE SET state = EXCLUDED.state RETURNING id, state`,
		guard.Spec{Column: "tok", Param: 3, Columns: 2, InsertTypes: []string{"pg_catalog.int8", "pg_catalog.int4", "public.st"}})
	snapshot := func() string {
		var s string
		if err := pool.QueryRow(ctx, `SELECT coalesce(string_agg(format('%s:%s:%s', id, state, tok), ' ' ORDER BY id), '') FROM jobs`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if o := run(t, pool, values, int64(1), "new", int64(2), int64(5)); o.stored != nil || o.rows != 2 {
		t.Fatalf("insert of two new rows: %+v", o)
	}
	if got := snapshot(); got != "1:new:5 2:new:5" {
		t.Fatalf("after insert: %s", got)
	}
	if _, err := pool.Exec(ctx, `UPDATE jobs SET tok = 9 WHERE id = 2`); err != nil {
		t.Fatal(err)
	}
	before := snapshot()
	o := run(t, pool, unnest, []int64{1, 2, 3}, "running", int64(7))
	if o.stored == nil || *o.stored != 9 || o.refused != 1 || len(o.written) != 0 {
		t.Fatalf("token 7 against stored 5 and 9 (and a new row 3): %+v; want refused, stored 9, 1 row", o)
	}
	if got := snapshot(); got != before {
		t.Fatalf("a refused upsert wrote: %s, was %s", got, before)
	}
	o = run(t, pool, unnest, []int64{1, 2, 3}, "done", int64(9))
	if o.stored != nil || len(o.written) != 3 {
		t.Fatalf("token 9: %+v; want 3 rows written", o)
	}
	if got := snapshot(); got != "1:done:9 2:done:9 3:done:9" {
		t.Fatalf("after token 9: %s", got)
	}
}

// ON CONFLICT ON CONSTRAINT name is guarded like ON CONFLICT (columns),
// with the constraint's columns (resolved from the catalog).
func TestFenceUpsertOnConstraintPostgreSQL(t *testing.T) {
	pool := testenv.Database(t, `CREATE TABLE jobs (id bigint PRIMARY KEY, code text NOT NULL UNIQUE, state text NOT NULL, tok bigint NOT NULL DEFAULT 0);
INSERT INTO jobs VALUES (1, 'a', 'new', 5)`)
	sql := fenceWrite(t, `INSERT INTO jobs (id, code, state) VALUES ($1, $2, $3) ON CONFLICT ON CONSTRAINT jobs_code_key DO UPDATE SET state = EXCLUDED.state`,
		guard.Spec{Column: "tok", Param: 4, ConflictColumns: []string{"code"}})
	if o := run(t, pool, sql, int64(9), "a", "old", int64(4)); o.stored == nil || *o.stored != 5 {
		t.Fatalf("token 4 against 5 by constraint jobs_code_key: %+v; want refused with stored 5", o)
	}
	if o := run(t, pool, sql, int64(9), "a", "running", int64(6)); o.stored != nil || o.rows != 1 {
		t.Fatalf("token 6: %+v; want written", o)
	}
	if n := count(t, pool, `SELECT count(*) FROM jobs WHERE code = 'a' AND state = 'running' AND tok = 6`); n != 1 {
		t.Fatal("the row does not hold the new state and token")
	}
}

// A row that a concurrent transaction inserts after an upsert of many rows
// locked and checked the rows it conflicts with (READ COMMITTED: ON
// CONFLICT sees it, the statement's snapshot does not) and that holds a
// newer token fails the whole statement: a stale-token error with its
// stored token, and none of the other rows written.
func TestFenceUpsertManyRowsConcurrentInsertPostgreSQL(t *testing.T) {
	pool := testenv.Database(t, `CREATE TABLE items (id bigint PRIMARY KEY, qty int NOT NULL, tok bigint NOT NULL DEFAULT 0)`)
	ctx := context.Background()
	sql := fenceWrite(t, `INSERT INTO items (id, qty) SELECT unnest($1::bigint[]), 1 ON CONFLICT (id) DO UPDATE SET qty = items.qty + 1`,
		guard.Spec{Column: "tok", Param: 2, InsertTypes: []string{"pg_catalog.int8", "pg_catalog.int4"}})
	other, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Rollback(ctx)
	if _, err := other.Exec(ctx, `INSERT INTO items VALUES (100, 1, 10)`); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := fenceimpl.Write("UpsertItems", "items", fence.NonStrict, 5, 0, func() (fenceimpl.Rows, error) {
			return pool.Query(ctx, sql, []int64{50, 100}, int64(5))
		}, nil)
		done <- err
	}()
	// Commit only once the upsert waits for the other transaction's
	// insert of id 100: past its lock and check, in its INSERT.
	for deadline := time.Now().Add(10 * time.Second); ; {
		if count(t, pool, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%fence_input%'`) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the upsert never waited for the concurrent insert")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := other.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	err = <-done
	var se *fence.StaleError
	if !errors.As(err, &se) || se.Stored != 10 {
		t.Fatalf("upsert racing a concurrent insert with token 10: %v; want a stale-token error with stored 10", err)
	}
	if n := count(t, pool, `SELECT count(*) FROM items WHERE tok = 5`); n != 0 {
		t.Fatalf("%d rows written by a refused upsert", n)
	}
}
