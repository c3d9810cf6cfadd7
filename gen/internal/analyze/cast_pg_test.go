package analyze

import (
	"context"
	"testing"
	"time"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestCastContextAgainstPostgreSQL: a cast whose function writes a fenced
// table is followed where PostgreSQL applies it. An explicit-only cast
// (no AS IMPLICIT, no AS ASSIGNMENT) to a type of the schema applies only
// where a statement casts to that type by name (x::t, CAST(x AS t), an
// array of t, a domain over t): a query that names no such cast is not
// refused, and PostgreSQL writes nothing when it runs; each query that
// casts is refused, and PostgreSQL writes the fenced table when it runs.
// An implicit cast may apply to any value: every query stays refused.
func TestCastContextAgainstPostgreSQL(t *testing.T) {
	pool := testenv.Database(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	const wrap = "create type wrapped as (n int);\n" +
		"create function wrap(int) returns wrapped language sql as $$ update jobs set k = k + 1 where id = 1 returning row($1)::wrapped $$;\n" +
		"create domain dw as wrapped;\n"
	explicit := pgJobs + wrap + "create cast (int as wrapped) with function wrap(int);\n"
	implicit := pgJobs + wrap + "create cast (int as wrapped) with function wrap(int) as implicit;\n"
	for _, tc := range []struct {
		schema, query string
		writes        bool
	}{
		{explicit, "select n from logs where id = 1", false},
		{explicit, "select k::bigint from jobs where id = 1", false},
		{explicit, "select (id::int)::wrapped from logs where id = 1", true},
		{explicit, "select cast(n as wrapped) from logs where id = 1", true},
		{explicit, "select array[n]::wrapped[] from logs where id = 1", true},
		{explicit, "select array[n]::_wrapped from logs where id = 1", true},
		{explicit, "select n::dw from logs where id = 1", true},
		{implicit, "select n from logs where id = 1", false},
	} {
		got, cat := soundVerdict(t, tc.schema, tc.query)
		wrote, err := pgWritesFenced(ctx, conn.Conn(), cat, tc.schema, tc.query, false, "")
		if err != nil {
			t.Errorf("%s: PostgreSQL: %v", tc.query, err)
			continue
		}
		if wrote != tc.writes {
			t.Errorf("%s: PostgreSQL wrote the fenced table: %v, want %v", tc.query, wrote, tc.writes)
		}
		want := "plain"
		if tc.writes || tc.schema == implicit {
			// An implicit cast is refused wherever it may apply.
			want = "refused"
		}
		if got != want {
			t.Errorf("%s: fencegen: %s, want %s", tc.query, got, want)
		}
	}
}
