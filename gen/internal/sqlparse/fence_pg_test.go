package sqlparse_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/internal/testenv"
)

// The statements FenceWrite builds must be accepted by PostgreSQL itself:
// in particular the UNION ALL of the written rows (fence_write.*) with the
// refused row's untyped NULLs must resolve for enum and jsonb columns, and
// every parameter's type must be inferred. These tests run each rewritten
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
`

const pgRows = `
DELETE FROM items; DELETE FROM groups; DELETE FROM small;
INSERT INTO groups VALUES (1, true), (2, false);
INSERT INTO items VALUES
    (1, 1, 'calm',  '{"n": 1}', 20),
    (2, 1, 'calm',  '{"n": 2}', 20),
    (3, 2, 'angry', '{"n": 3}', 30);
INSERT INTO small VALUES (1, 5);
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

func fenceWrite(t *testing.T, sql string, spec sqlparse.FenceSpec) string {
	t.Helper()
	out, err := sqlparse.FenceWrite(sql, spec)
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
		spec sqlparse.FenceSpec
		// args builds the arguments for the given token.
		args func(token int64) []any
		// cols is the width of the query's own RETURNING list.
		cols int
		// matchMin and matchMax are the lowest and highest tokens among
		// the rows the statement matches, and matches their number.
		matchMin, matchMax int64
		matches            int
		// noMatch are arguments (for token 1000) that match no row.
		noMatch []any
	}{
		{
			name:     "update alias returning enum and jsonb",
			sql:      "UPDATE items AS x SET m = $1, doc = x.doc || $2 WHERE x.id = $3 RETURNING x.id, x.m, x.doc",
			spec:     sqlparse.FenceSpec{Column: "tok", Param: 4, Columns: 3},
			args:     func(tok int64) []any { return []any{"angry", []byte(`{"touched": true}`), int64(2), tok} },
			cols:     3,
			matchMin: 20, matchMax: 20, matches: 1,
			noMatch: []any{"angry", []byte(`{}`), int64(99), int64(1000)},
		},
		{
			name:     "update from",
			sql:      "UPDATE items SET doc = '{}' FROM groups g WHERE g.id = items.grp AND g.active = $1 RETURNING items.m, g.active",
			spec:     sqlparse.FenceSpec{Column: "tok", Param: 2, Columns: 2},
			args:     func(tok int64) []any { return []any{true, tok} },
			cols:     2,
			matchMin: 20, matchMax: 20, matches: 2,
			noMatch: []any{nil, int64(1000)},
		},
		{
			name:     "delete using returning enum",
			sql:      "DELETE FROM items i USING groups g WHERE g.id = i.grp AND g.id = $1 RETURNING i.m, i.doc",
			spec:     sqlparse.FenceSpec{Column: "tok", Param: 2, Columns: 2},
			args:     func(tok int64) []any { return []any{int32(1), tok} },
			cols:     2,
			matchMin: 20, matchMax: 20, matches: 2,
			noMatch: []any{int32(3), int64(1000)},
		},
		{
			name:     "update no returning",
			sql:      "UPDATE items SET m = 'calm' WHERE grp = $1",
			spec:     sqlparse.FenceSpec{Column: "tok", Param: 2},
			args:     func(tok int64) []any { return []any{int32(2), tok} },
			matchMin: 30, matchMax: 30, matches: 1,
			noMatch: []any{int32(7), int64(1000)},
		},
		{
			name:     "delete no where",
			sql:      "DELETE FROM items",
			spec:     sqlparse.FenceSpec{Column: "tok", Param: 1},
			args:     func(tok int64) []any { return []any{tok} },
			matchMin: 20, matchMax: 30, matches: 3,
		},
		{
			name:     "int4 token column",
			sql:      "UPDATE small SET id = id WHERE id = $1 RETURNING tok",
			spec:     sqlparse.FenceSpec{Column: "tok", Param: 2, Columns: 1},
			args:     func(tok int64) []any { return []any{int32(1), tok} },
			cols:     1,
			matchMin: 5, matchMax: 5, matches: 1,
			noMatch: []any{int32(2), int64(1000)},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sql := fenceWrite(t, tc.sql, tc.spec)
			strictSQL := fenceWrite(t, tc.sql, sqlparse.FenceSpec{Column: tc.spec.Column, Param: tc.spec.Param, Columns: tc.spec.Columns, Strict: true})

			// PostgreSQL infers every parameter's type on its own.
			for i, s := range []string{sql, strictSQL} {
				if _, err := pool.Exec(ctx, fmt.Sprintf("PREPARE fence_check_%d AS %s", i, s)); err != nil {
					t.Fatalf("PREPARE rejected the rewritten statement: %v\n%s", err, s)
				}
				if _, err := pool.Exec(ctx, fmt.Sprintf("DEALLOCATE fence_check_%d", i)); err != nil {
					t.Fatal(err)
				}
			}

			// Refused: a token below every stored one.
			reset(t, pool)
			o := run(t, pool, sql, tc.args(tc.matchMin-1)...)
			if o.rows != 1 || o.stored == nil || *o.stored != tc.matchMax || o.refused != int64(tc.matches) {
				t.Errorf("stale token: %d rows, stored %v, refused %d; want 1 row, stored %d, refused %d", o.rows, deref(o.stored), o.refused, tc.matchMax, tc.matches)
			}

			// Strict: a token equal to the stored one is refused;
			// non-strict accepts it.
			if tc.matchMin == tc.matchMax {
				reset(t, pool)
				o = run(t, pool, strictSQL, tc.args(tc.matchMax)...)
				if o.stored == nil || *o.stored != tc.matchMax {
					t.Errorf("strict, equal token: stored %v, want a refusal with %d", deref(o.stored), tc.matchMax)
				}
				reset(t, pool)
				o = run(t, pool, sql, tc.args(tc.matchMax)...)
				if o.stored != nil || len(o.written) != tc.matches {
					t.Errorf("non-strict, equal token: stored %v, %d rows written; want %d written", deref(o.stored), len(o.written), tc.matches)
				}
			}

			// Written: fence_stored is NULL on every row, the query's own
			// columns follow, and the token is stored.
			reset(t, pool)
			o = run(t, pool, sql, tc.args(1000)...)
			if o.stored != nil || len(o.written) != tc.matches {
				t.Errorf("fresh token: stored %v, %d rows written; want %d written", deref(o.stored), len(o.written), tc.matches)
			}
			for _, w := range o.written {
				if len(w) != tc.cols {
					t.Errorf("written row has %d own columns, want %d: %v", len(w), tc.cols, w)
				}
			}
			if tc.cols == 0 {
				for _, w := range o.written {
					if len(w) != 0 {
						t.Errorf("written row without RETURNING has extra columns %v", w)
					}
				}
			}

			// Not found: no rows at all.
			if tc.noMatch != nil {
				reset(t, pool)
				o = run(t, pool, sql, tc.noMatch...)
				if o.rows != 0 {
					t.Errorf("no matching row: got %d rows (stored %v), want none", o.rows, deref(o.stored))
				}
			}
		})
	}
}

// The guard is per row: when a write matches rows of which only some hold
// a newer token, the others are written and the statement reports written
// rows only (no refusal row), so generated code reports success. This
// test pins that behaviour down; see the report of the golden tests.
func TestFenceWritePostgreSQLPartialWrite(t *testing.T) {
	pool := testenv.Database(t, pgSchema)
	reset(t, pool)
	sql := fenceWrite(t, "DELETE FROM items RETURNING id", sqlparse.FenceSpec{Column: "tok", Param: 1, Columns: 1})
	o := run(t, pool, sql, int64(25)) // rows hold 20, 20 and 30
	if o.stored != nil || len(o.written) != 2 {
		t.Errorf("token between stored tokens: stored %v, %d written; want 2 written and no refusal row", deref(o.stored), len(o.written))
	}
}

// A refused write must leave the rows alone, and a written one must store
// the presented token.
func TestFenceWritePostgreSQLStoresToken(t *testing.T) {
	pool := testenv.Database(t, pgSchema)
	ctx := context.Background()
	reset(t, pool)
	sql := fenceWrite(t, "UPDATE items SET m = 'angry' WHERE id = $1", sqlparse.FenceSpec{Column: "tok", Param: 2})
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
		spec sqlparse.FenceSpec
		args []any
	}{
		{"INSERT INTO items (id, grp, m, doc) VALUES ($1, 1, $2, '{}'), ($3, 1, $2, '{}')", sqlparse.FenceSpec{Column: "tok", Param: 4}, []any{int64(10), "calm", int64(11), int64(77)}},
		{"INSERT INTO items (id, grp, m, doc) SELECT id + 100, grp, m, doc FROM items WHERE grp = $1 RETURNING id, tok", sqlparse.FenceSpec{Column: "tok", Param: 2, Columns: 2}, []any{int32(2), int64(77)}},
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
	if n != 3 {
		t.Errorf("%d rows hold the inserted token 77, want 3", n)
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
