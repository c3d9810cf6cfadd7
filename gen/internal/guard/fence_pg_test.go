package guard_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/gen/internal/guard"
	"github.com/fencegen/fencegen/internal/testenv"
)

// The statements FenceWrite builds must be accepted by PostgreSQL itself:
// in particular the UNION ALL of the written rows (fence_write.*) with the
// refused row's untyped NULLs must resolve for enum and jsonb columns, and
// every parameter's type must be inferred. And they must be all or
// nothing: a refused write changes no row. These tests run each rewritten
// statement against a fresh database (testenv.Database skips loudly when
// PostgreSQL is unreachable, and fails under CI=true).

const pgSchema = `
CREATE TYPE mood AS ENUM ('calm', 'angry');
CREATE TABLE groups (id int PRIMARY KEY, active bool NOT NULL);
CREATE TABLE items (
    id    bigint PRIMARY KEY,
    grp   int NOT NULL REFERENCES groups (id),
    m     mood NOT NULL,
    doc   jsonb NOT NULL,
    tok   bigint NOT NULL DEFAULT 0
);
CREATE TABLE small (id int PRIMARY KEY, tok int NOT NULL);
CREATE TABLE lines (
    "OrderID" int NOT NULL,
    line_no   int NOT NULL,
    qty       int NOT NULL,
    "Tok"     bigint NOT NULL,
    PRIMARY KEY ("OrderID", line_no)
);
CREATE TABLE labels (item_id bigint NOT NULL, label text NOT NULL);
`

const pgRows = `
DELETE FROM items; DELETE FROM groups; DELETE FROM small; DELETE FROM lines; DELETE FROM labels;
INSERT INTO groups VALUES (1, true), (2, false);
INSERT INTO items VALUES
    (1, 1, 'calm',  '{"n": 1}', 20),
    (2, 1, 'calm',  '{"n": 2}', 25),
    (3, 2, 'angry', '{"n": 3}', 30);
INSERT INTO small VALUES (1, 5);
INSERT INTO lines VALUES (7, 1, 1, 10), (7, 2, 1, 12), (8, 1, 1, 10);
INSERT INTO labels VALUES (1, 'red'), (1, 'rose'), (2, 'blue');
`

// outcome is what one run of a rewritten statement returned.
type outcome struct {
	written [][]any // the query's own columns of each written row
	stored  *int64  // set on a refusal: the highest stored token
	refused int64   // the number of rows refused
	rows    int     // the number of rows returned in all
}

func run(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := pool.Query(ctx, sql, args...)
	if err != nil {
		t.Fatalf("query: %v\n%s", err, sql)
	}
	defer rows.Close()
	var o outcome
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatalf("values: %v\n%s", err, sql)
		}
		o.rows++
		if vals[0] == nil {
			if vals[1] != nil {
				t.Errorf("written row has fence_rows = %v, want NULL", vals[1])
			}
			o.written = append(o.written, vals[2:])
			continue
		}
		s, ok1 := vals[0].(int64)
		n, ok2 := vals[1].(int64)
		if !ok1 || !ok2 {
			t.Fatalf("refused row has fence_stored %T, fence_rows %T; want int64s", vals[0], vals[1])
		}
		for i, v := range vals[2:] {
			if v != nil {
				t.Errorf("refused row column %d = %v, want NULL", i+3, v)
			}
		}
		o.stored, o.refused = &s, n
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("rows: %v\n%s", err, sql)
	}
	return o
}

func reset(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), pgRows); err != nil {
		t.Fatal(err)
	}
}

// state renders every row of every table, to tell whether a statement
// changed anything.
func state(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var s string
	err := pool.QueryRow(context.Background(), `SELECT concat_ws(' | ',
		(SELECT string_agg(x::text, ';' ORDER BY id) FROM items x),
		(SELECT string_agg(x::text, ';' ORDER BY id) FROM small x),
		(SELECT string_agg(x::text, ';' ORDER BY "OrderID", line_no) FROM lines x))`).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func count(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%v\n%s", err, sql)
	}
	return n
}

func fenceWrite(t *testing.T, sql string, spec guard.Spec) string {
	t.Helper()
	out, err := guard.FenceWrite(sql, spec)
	if err != nil {
		t.Fatalf("FenceWrite(%q): %v", sql, err)
	}
	return out
}

func TestFenceWritePostgreSQL(t *testing.T) {
	pool := testenv.Database(t, pgSchema)
	ctx := context.Background()

	for _, tc := range []struct {
		name string
		sql  string
		spec guard.Spec
		// args builds the arguments for the given token.
		args func(token int64) []any
		// cols is the width of the query's own RETURNING list.
		cols int
		// tokens are the tokens stored in the rows the statement matches
		// (after reset).
		tokens []int64
		// table is the target table and tok its token column, to check
		// what a write stored; del says the statement deletes.
		table, tok string
		del        bool
		// noMatch are arguments (for token 1000) that match no row.
		noMatch []any
	}{
		{
			name:   "update alias returning enum and jsonb",
			sql:    "UPDATE items AS x SET m = $1, doc = x.doc || $2 WHERE x.id = $3 RETURNING x.id, x.m, x.doc",
			spec:   guard.Spec{Column: "tok", Key: []string{"id"}, Param: 4, Columns: 3},
			args:   func(tok int64) []any { return []any{"angry", []byte(`{"touched": true}`), int64(2), tok} },
			cols:   3,
			tokens: []int64{25},
			table:  "items", tok: "tok",
			noMatch: []any{"angry", []byte(`{}`), int64(99), int64(1000)},
		},
		{
			name:   "update from",
			sql:    "UPDATE items SET doc = '{}' FROM groups g WHERE g.id = items.grp AND g.active = $1 RETURNING items.m, g.active",
			spec:   guard.Spec{Column: "tok", Key: []string{"id"}, Param: 2, Columns: 2},
			args:   func(tok int64) []any { return []any{true, tok} },
			cols:   2,
			tokens: []int64{20, 25},
			table:  "items", tok: "tok",
			noMatch: []any{nil, int64(1000)},
		},
		{
			name:   "delete using returning enum",
			sql:    "DELETE FROM items i USING groups g WHERE g.id = i.grp AND g.id = $1 RETURNING i.m, i.doc",
			spec:   guard.Spec{Column: "tok", Key: []string{"id"}, Param: 2, Columns: 2},
			args:   func(tok int64) []any { return []any{int32(1), tok} },
			cols:   2,
			tokens: []int64{20, 25},
			table:  "items", tok: "tok", del: true,
			noMatch: []any{int32(3), int64(1000)},
		},
		{
			name:   "update no returning",
			sql:    "UPDATE items SET m = 'calm' WHERE grp = $1",
			spec:   guard.Spec{Column: "tok", Key: []string{"id"}, Param: 2},
			args:   func(tok int64) []any { return []any{int32(2), tok} },
			tokens: []int64{30},
			table:  "items", tok: "tok",
			noMatch: []any{int32(7), int64(1000)},
		},
		{
			name:   "update no where",
			sql:    "UPDATE items SET doc = doc || '{\"all\": 1}'",
			spec:   guard.Spec{Column: "tok", Key: []string{"id"}, Param: 1},
			args:   func(tok int64) []any { return []any{tok} },
			tokens: []int64{20, 25, 30},
			table:  "items", tok: "tok",
		},
		{
			name:   "delete no where",
			sql:    "DELETE FROM items",
			spec:   guard.Spec{Column: "tok", Key: []string{"id"}, Param: 1},
			args:   func(tok int64) []any { return []any{tok} },
			tokens: []int64{20, 25, 30},
			table:  "items", tok: "tok", del: true,
		},
		{
			name:   "int4 token column",
			sql:    "UPDATE small SET id = id WHERE id = $1 RETURNING tok",
			spec:   guard.Spec{Column: "tok", Key: []string{"id"}, Param: 2, Columns: 1},
			args:   func(tok int64) []any { return []any{int32(1), tok} },
			cols:   1,
			tokens: []int64{5},
			table:  "small", tok: "tok",
			noMatch: []any{int32(2), int64(1000)},
		},
		{
			name:   "composite key with quoted mixed-case column",
			sql:    `UPDATE lines l SET qty = l.qty + 1 WHERE l."OrderID" = $1 RETURNING l.line_no, l."Tok"`,
			spec:   guard.Spec{Column: "Tok", Key: []string{"OrderID", "line_no"}, Param: 2, Columns: 2},
			args:   func(tok int64) []any { return []any{int32(7), tok} },
			cols:   2,
			tokens: []int64{10, 12},
			table:  "lines", tok: `"Tok"`,
			noMatch: []any{int32(9), int64(1000)},
		},
		{
			name:   "composite key delete",
			sql:    `DELETE FROM lines WHERE line_no = $1`,
			spec:   guard.Spec{Column: "Tok", Key: []string{"OrderID", "line_no"}, Param: 2},
			args:   func(tok int64) []any { return []any{int32(1), tok} },
			tokens: []int64{10, 10},
			table:  "lines", tok: `"Tok"`, del: true,
			noMatch: []any{int32(9), int64(1000)},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			strictSpec := tc.spec
			strictSpec.Strict = true
			sqls := map[bool]string{false: fenceWrite(t, tc.sql, tc.spec), true: fenceWrite(t, tc.sql, strictSpec)}

			// PostgreSQL infers every parameter's type on its own.
			for strict, s := range sqls {
				if _, err := pool.Exec(ctx, fmt.Sprintf("PREPARE fence_prep AS %s", s)); err != nil {
					t.Fatalf("PREPARE rejected the rewritten statement (strict %v): %v\n%s", strict, err, s)
				}
				if _, err := pool.Exec(ctx, "DEALLOCATE fence_prep"); err != nil {
					t.Fatal(err)
				}
			}

			// Probe tokens below, at, between and above the stored ones.
			probes := map[int64]bool{1000: true}
			for _, k := range tc.tokens {
				probes[k-1], probes[k], probes[k+1] = true, true, true
			}
			for _, strict := range []bool{false, true} {
				for p := range probes {
					var refused int64
					var stored int64
					for _, k := range tc.tokens {
						if k > p || (strict && k == p) {
							refused++
						}
						stored = max(stored, k)
					}
					unchanged := 0 // matched rows that already hold p
					for _, k := range tc.tokens {
						if k == p {
							unchanged++
						}
					}

					reset(t, pool)
					before := state(t, pool)
					rowsBefore := count(t, pool, "SELECT count(*) FROM "+tc.table)
					holdBefore := count(t, pool, "SELECT count(*) FROM "+tc.table+" WHERE "+tc.tok+" = $1", p)
					o := run(t, pool, sqls[strict], tc.args(p)...)
					what := fmt.Sprintf("token %d (strict %v) against %v", p, strict, tc.tokens)
					if refused > 0 {
						// Refused: exactly one row, the highest stored
						// token and the number of refused rows, and
						// nothing written.
						if o.rows != 1 || o.stored == nil || *o.stored != stored || o.refused != refused {
							t.Errorf("%s: %d rows, stored %v, refused %d; want 1 row, stored %d, refused %d", what, o.rows, deref(o.stored), o.refused, stored, refused)
						}
						if after := state(t, pool); after != before {
							t.Errorf("%s: a refused write changed the data:\nbefore %s\nafter  %s", what, before, after)
						}
						continue
					}
					// Written: every matched row, fence_stored NULL, the
					// query's own columns follow.
					if o.stored != nil || len(o.written) != len(tc.tokens) || o.rows != len(tc.tokens) {
						t.Errorf("%s: stored %v, %d rows, %d written; want %d written", what, deref(o.stored), o.rows, len(o.written), len(tc.tokens))
					}
					for _, w := range o.written {
						if len(w) != tc.cols {
							t.Errorf("%s: written row has %d own columns, want %d: %v", what, len(w), tc.cols, w)
						}
					}
					if tc.del {
						if n := count(t, pool, "SELECT count(*) FROM "+tc.table); rowsBefore-n != len(tc.tokens) {
							t.Errorf("%s: %d rows deleted, want %d", what, rowsBefore-n, len(tc.tokens))
						}
					} else if n := count(t, pool, "SELECT count(*) FROM "+tc.table+" WHERE "+tc.tok+" = $1", p); n-holdBefore != len(tc.tokens)-unchanged {
						t.Errorf("%s: %d more rows hold the token, want %d", what, n-holdBefore, len(tc.tokens)-unchanged)
					}
				}
			}

			// Not found: no rows at all, and nothing changed.
			if tc.noMatch != nil {
				for strict, s := range sqls {
					reset(t, pool)
					before := state(t, pool)
					o := run(t, pool, s, tc.noMatch...)
					if o.rows != 0 {
						t.Errorf("no matching row (strict %v): got %d rows (stored %v), want none", strict, o.rows, deref(o.stored))
					}
					if after := state(t, pool); after != before {
						t.Errorf("no matching row (strict %v) changed the data:\nbefore %s\nafter  %s", strict, before, after)
					}
				}
			}
		})
	}
}

// A fenced UPDATE or DELETE is all or nothing: when one matched row holds
// a token the presented one does not beat, no row is written, and the
// single result row reports the highest stored token and how many rows
// refused.
func TestFenceWritePostgreSQLAllOrNothing(t *testing.T) {
	pool := testenv.Database(t, pgSchema)
	const setup = `UPDATE items SET grp = 1, tok = CASE id WHEN 1 THEN 5 ELSE 1 END`
	upd := "UPDATE items SET doc = doc || '{\"w\": true}' WHERE grp = $1 RETURNING id, tok"
	spec := guard.Spec{Column: "tok", Key: []string{"id"}, Param: 2, Columns: 2}
	sql := fenceWrite(t, upd, spec)
	spec.Strict = true
	strictSQL := fenceWrite(t, upd, spec)
	del := fenceWrite(t, "DELETE FROM items WHERE grp = $1", guard.Spec{Column: "tok", Key: []string{"id"}, Param: 2})

	prepare := func(t *testing.T) string {
		t.Helper()
		reset(t, pool)
		if _, err := pool.Exec(context.Background(), setup); err != nil {
			t.Fatal(err)
		}
		return state(t, pool)
	}
	refusal := func(t *testing.T, what string, o outcome, before string) {
		t.Helper()
		if o.rows != 1 || len(o.written) != 0 || o.stored == nil || *o.stored != 5 || o.refused != 1 {
			t.Errorf("%s: %d rows (%d written), stored %v, refused %d; want one refusal row with stored 5, refused 1", what, o.rows, len(o.written), deref(o.stored), o.refused)
		}
		if after := state(t, pool); after != before {
			t.Errorf("%s wrote although refused:\nbefore %s\nafter  %s", what, before, after)
		}
	}

	t.Run("token 3 writes nothing", func(t *testing.T) {
		before := prepare(t)
		refusal(t, "UPDATE with token 3 against (5,1,1)", run(t, pool, sql, int32(1), int64(3)), before)
	})
	t.Run("delete with token 3 deletes nothing", func(t *testing.T) {
		before := prepare(t)
		refusal(t, "DELETE with token 3 against (5,1,1)", run(t, pool, del, int32(1), int64(3)), before)
	})
	t.Run("strict token 5 writes nothing", func(t *testing.T) {
		before := prepare(t)
		refusal(t, "strict UPDATE with token 5 against (5,1,1)", run(t, pool, strictSQL, int32(1), int64(5)), before)
	})
	t.Run("token 5 writes all", func(t *testing.T) {
		prepare(t)
		o := run(t, pool, sql, int32(1), int64(5))
		if o.stored != nil || len(o.written) != 3 {
			t.Fatalf("UPDATE with token 5 against (5,1,1): stored %v, %d written; want all 3 written", deref(o.stored), len(o.written))
		}
		for _, w := range o.written {
			if tok, _ := w[1].(int64); tok != 5 {
				t.Errorf("written row %v returns token %v, want 5", w[0], w[1])
			}
		}
		if n := count(t, pool, `SELECT count(*) FROM items WHERE tok = 5 AND doc ? 'w'`); n != 3 {
			t.Errorf("%d rows hold token 5 and the change, want 3", n)
		}
	})
}

// A write whose FROM/USING items match one target row several times
// refuses (and reports) that row once.
func TestFenceWritePostgreSQLJoinDuplicates(t *testing.T) {
	pool := testenv.Database(t, pgSchema)
	sql := fenceWrite(t, "UPDATE items SET doc = '{}' FROM labels l WHERE l.item_id = items.id AND l.label LIKE $1 RETURNING items.id",
		guard.Spec{Column: "tok", Key: []string{"id"}, Param: 2, Columns: 1})
	reset(t, pool) // item 1 (token 20) has the labels red and rose
	before := state(t, pool)
	o := run(t, pool, sql, "r%", int64(10))
	if o.rows != 1 || o.stored == nil || *o.stored != 20 || o.refused != 1 {
		t.Errorf("one row matched twice, stale token: %d rows, stored %v, refused %d; want 1 row, stored 20, refused 1 (one row)", o.rows, deref(o.stored), o.refused)
	}
	if after := state(t, pool); after != before {
		t.Errorf("refused write changed the data:\nbefore %s\nafter  %s", before, after)
	}
	o = run(t, pool, sql, "r%", int64(21))
	if o.stored != nil || len(o.written) != 1 {
		t.Errorf("one row matched twice, fresh token: stored %v, %d written; want 1 written", deref(o.stored), len(o.written))
	}

	// The same with a composite key: every line of order 7 (tokens 10
	// and 12) is matched twice.
	sql = fenceWrite(t, `UPDATE lines SET qty = qty + g FROM generate_series(1, 2) g WHERE lines."OrderID" = $1 RETURNING lines.line_no`,
		guard.Spec{Column: "Tok", Key: []string{"OrderID", "line_no"}, Param: 2, Columns: 1})
	for _, tc := range []struct{ token, refused int64 }{{5, 2}, {11, 1}} {
		reset(t, pool)
		before := state(t, pool)
		o = run(t, pool, sql, int32(7), tc.token)
		if o.rows != 1 || o.stored == nil || *o.stored != 12 || o.refused != tc.refused {
			t.Errorf("composite key, rows matched twice, token %d: %d rows, stored %v, refused %d; want 1 row, stored 12, refused %d", tc.token, o.rows, deref(o.stored), o.refused, tc.refused)
		}
		if after := state(t, pool); after != before {
			t.Errorf("refused write changed the data:\nbefore %s\nafter  %s", before, after)
		}
	}
	reset(t, pool)
	o = run(t, pool, sql, int32(7), int64(12))
	if o.stored != nil || len(o.written) != 2 {
		t.Errorf("composite key, rows matched twice, token 12: stored %v, %d written; want 2 written", deref(o.stored), len(o.written))
	}
}

// Key columns and tables whose names are SQL keywords must be quoted in
// the lock and the key match.
func TestFenceWritePostgreSQLKeywordNames(t *testing.T) {
	pool := testenv.Database(t, `
CREATE TABLE accounts ("user" text PRIMARY KEY, note text NOT NULL, tok bigint NOT NULL);
INSERT INTO accounts VALUES ('alice', '', 1);
CREATE TABLE "order" (id int PRIMARY KEY, note text NOT NULL, tok bigint NOT NULL);
INSERT INTO "order" VALUES (1, '', 1);
`)
	for _, tc := range []struct {
		name, sql, check string
		key              []string
	}{
		{"key column user", `UPDATE accounts SET note = 'x' WHERE "user" = $1`, `SELECT count(*) FROM accounts WHERE note = 'x' AND tok = 2`, []string{"user"}},
		{"table order", `UPDATE "order" SET note = 'x' WHERE id = $1`, `SELECT count(*) FROM "order" WHERE note = 'x' AND tok = 2`, []string{"id"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sql, err := guard.FenceWrite(tc.sql, guard.Spec{Column: "tok", Key: tc.key, Param: 2})
			if err != nil {
				t.Fatalf("FenceWrite(%q): %v", tc.sql, err)
			}
			var arg any = "alice"
			if tc.key[0] == "id" {
				arg = int32(1)
			}
			o := run(t, pool, sql, arg, int64(2))
			if o.stored != nil || len(o.written) != 1 {
				t.Errorf("fresh token: %d rows, stored %v, %d written; want the one row written\n%s", o.rows, deref(o.stored), len(o.written), sql)
			}
			if n := count(t, pool, tc.check); n != 1 {
				t.Errorf("%d rows written, want 1\n%s", n, sql)
			}
		})
	}
}

// A refused write must leave the rows alone, and a written one must store
// the presented token.
func TestFenceWritePostgreSQLStoresToken(t *testing.T) {
	pool := testenv.Database(t, pgSchema)
	ctx := context.Background()
	reset(t, pool)
	sql := fenceWrite(t, "UPDATE items SET m = 'angry' WHERE id = $1", guard.Spec{Column: "tok", Key: []string{"id"}, Param: 2})
	run(t, pool, sql, int64(1), int64(19)) // stale: stored 20
	var m string
	var tok int64
	if err := pool.QueryRow(ctx, "SELECT m::text, tok FROM items WHERE id = 1").Scan(&m, &tok); err != nil {
		t.Fatal(err)
	}
	if m != "calm" || tok != 20 {
		t.Errorf("after a refused write: m = %s, tok = %d; want calm, 20", m, tok)
	}
	run(t, pool, sql, int64(1), int64(21))
	if err := pool.QueryRow(ctx, "SELECT m::text, tok FROM items WHERE id = 1").Scan(&m, &tok); err != nil {
		t.Fatal(err)
	}
	if m != "angry" || tok != 21 {
		t.Errorf("after a written write: m = %s, tok = %d; want angry, 21", m, tok)
	}
}

// INSERT rewrites store the token; PostgreSQL must infer the token
// parameter's type in VALUES lists and in INSERT ... SELECT.
func TestFenceWritePostgreSQLInsert(t *testing.T) {
	pool := testenv.Database(t, pgSchema)
	ctx := context.Background()
	reset(t, pool)
	for _, tc := range []struct {
		sql  string
		spec guard.Spec
		args []any
	}{
		{"INSERT INTO items (id, grp, m, doc) VALUES ($1, 1, $2, '{}'), ($3, 1, $2, '{}')", guard.Spec{Column: "tok", Key: []string{"id"}, Param: 4}, []any{int64(10), "calm", int64(11), int64(77)}},
		{"INSERT INTO items (id, grp, m, doc) SELECT id + 100, grp, m, doc FROM items WHERE grp = $1 RETURNING id, tok", guard.Spec{Column: "tok", Key: []string{"id"}, Param: 2, Columns: 2}, []any{int32(2), int64(77)}},
		{"INSERT INTO items (id, grp, m, doc) SELECT 200, 1, 'calm'::mood, '{}'::jsonb UNION ALL SELECT $1::bigint, 2, 'angry', '{}'", guard.Spec{Column: "tok", Key: []string{"id"}, Param: 2}, []any{int64(201), int64(77)}},
	} {
		sql := fenceWrite(t, tc.sql, tc.spec)
		if _, err := pool.Exec(ctx, sql, tc.args...); err != nil {
			t.Errorf("insert rejected: %v\n%s", err, sql)
		}
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM items WHERE tok = 77").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 5 {
		t.Errorf("%d rows hold the inserted token 77, want 5", n)
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// Columns of the target table may be named like the columns the
// rewrite introduces (fence_token, stored, refused): the statement must
// still be valid.
func TestFenceWritePostgreSQLColumnNamesOfTheRewrite(t *testing.T) {
	pool := testenv.Database(t, `
CREATE TABLE k (fence_token int PRIMARY KEY, stored int NOT NULL, refused int NOT NULL, tok bigint NOT NULL);
INSERT INTO k VALUES (1, 0, 0, 5);
`)
	sql := fenceWrite(t, `UPDATE k SET stored = stored + 1, refused = refused + 1 WHERE fence_token = $1 RETURNING stored, refused`,
		guard.Spec{Column: "tok", Key: []string{"fence_token"}, Param: 2, Columns: 2})
	if _, err := pool.Exec(context.Background(), "PREPARE p AS "+sql); err != nil {
		t.Fatalf("PostgreSQL rejects the rewritten statement: %v\n%s", err, sql)
	}
	if o := run(t, pool, sql, int32(1), int64(4)); o.rows != 1 || o.stored == nil || *o.stored != 5 || o.refused != 1 {
		t.Errorf("stale token: %d rows, stored %v, refused %d; want 1 row, stored 5, refused 1", o.rows, deref(o.stored), o.refused)
	}
	if o := run(t, pool, sql, int32(1), int64(6)); o.stored != nil || len(o.written) != 1 {
		t.Errorf("fresh token: stored %v, %d written; want 1 written", deref(o.stored), len(o.written))
	}
}

// On a table with INHERITS children, a write that pins the parent's key
// also matches the children's rows with that key: one of them holding a
// newer token refuses the whole write (nothing written, two rows counted)
// instead of writing the parent's row alone.
func TestFenceWriteInheritedTableOnPostgres(t *testing.T) {
	pool := testenv.Database(t, `
CREATE TABLE base (id bigint PRIMARY KEY, v text NOT NULL, tok bigint NOT NULL);
CREATE TABLE child (extra text) INHERITS (base);
INSERT INTO base VALUES (1, 'p', 5);
INSERT INTO child VALUES (1, 'c', 9, 'x'), (2, 'c', 1, 'y');
`)
	spec := guard.Spec{Column: "tok", Key: id, Param: 3, Inherited: true}
	sql := fenceWrite(t, "UPDATE base SET v = $1 WHERE id = $2", spec)
	o := run(t, pool, sql, "new", int64(1), int64(7))
	if o.stored == nil || *o.stored != 9 || o.refused != 1 || len(o.written) != 0 {
		t.Fatalf("token 7 against stored 5 (base) and 9 (child): %+v, want refused, stored 9, 1 row", o)
	}
	if n := count(t, pool, "SELECT count(*) FROM base WHERE v = 'new'"); n != 0 {
		t.Fatalf("%d rows written by a refused write", n)
	}
	if o := run(t, pool, sql, "new", int64(1), int64(10)); o.stored != nil || o.rows != 2 {
		t.Fatalf("token 10: %+v, want both rows written", o)
	}
	if n := count(t, pool, "SELECT count(*) FROM base WHERE v = 'new' AND tok = 10"); n != 2 {
		t.Fatalf("%d rows hold the new value and token, want 2", n)
	}
}

// A fenced UPDATE or DELETE with its own WITH clause (plain and RECURSIVE)
// keeps it: the guard's lock, check and refusal queries see the same
// entries as the write, and the write is still all or nothing.
func TestFenceWriteOwnWithClauseOnPostgres(t *testing.T) {
	pool := testenv.Database(t, pgSchema)
	multi := fenceWrite(t, "WITH g AS (SELECT id FROM groups WHERE active) UPDATE items SET doc = '{}' WHERE grp IN (SELECT id FROM g) RETURNING id",
		guard.Spec{Column: "tok", Key: id, Param: 1, Columns: 1})
	single := fenceWrite(t, "WITH v AS (SELECT '{\"k\": 1}'::jsonb AS d) UPDATE items SET doc = (SELECT d FROM v) WHERE id = $1",
		guard.Spec{Column: "tok", Key: id, Param: 2})
	rec := fenceWrite(t, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 2) DELETE FROM items WHERE id IN (SELECT n FROM r)",
		guard.Spec{Column: "tok", Key: id, Param: 1})

	reset(t, pool) // items 1 and 2 in active group 1 hold tokens 20 and 25
	before := state(t, pool)
	if o := run(t, pool, multi, int64(22)); o.stored == nil || *o.stored != 25 || o.refused != 1 || state(t, pool) != before {
		t.Errorf("multi-row, token 22: %+v; want refused (stored 25, 1 row) and nothing written", o)
	}
	if o := run(t, pool, multi, int64(25)); o.stored != nil || len(o.written) != 2 {
		t.Errorf("multi-row, token 25: %+v; want items 1 and 2 written", o)
	}
	if o := run(t, pool, single, int64(3), int64(29)); o.stored == nil || *o.stored != 30 || o.refused != 1 {
		t.Errorf("by key, token 29 against 30: %+v; want refused with stored 30", o)
	}
	if o := run(t, pool, single, int64(3), int64(30)); o.stored != nil || o.rows != 1 {
		t.Errorf("by key, token 30: %+v; want written", o)
	}
	if n := count(t, pool, `SELECT count(*) FROM items WHERE id = 3 AND doc = '{"k": 1}' AND tok = 30`); n != 1 {
		t.Errorf("by key: the row does not hold the new value and token")
	}
	if o := run(t, pool, rec, int64(24)); o.stored == nil || o.refused != 2 {
		t.Errorf("recursive DELETE, token 24 against 25, 25: %+v; want both refused", o)
	}
	if o := run(t, pool, rec, int64(25)); o.stored != nil || o.rows != 2 {
		t.Errorf("recursive DELETE, token 25: %+v; want 2 rows deleted", o)
	}
}
