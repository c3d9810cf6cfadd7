package writeoracle

import (
	"context"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// TestRunnerRecordsWrites checks the oracle's own instruments without the
// generator: statements classified here by hand run against the shapes
// schema's scratch database, and the audit must record every write to a
// fenced table (also through an INHERITS parent, a partitioned parent and
// a schema change), none for a read, and a stale token's write only when
// the statement's own condition lets it through.
func TestRunnerRecordsWrites(t *testing.T) {
	ctx := context.Background()
	opt := Options{AdminURL: adminURL(t)}
	ch, err := NewChecker(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	cfg, err := gen.LoadConfig("testdata/shapes/sqlc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ses, err := openSession(ctx, opt, ch.dsn, cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ses.close(ctx)
	fenced := descendants(ses.db.tables, nil)
	for _, tb := range ses.db.tables {
		if ses.db.own[tb.Qualified()] {
			fenced[tb.Qualified()] = true
		}
	}
	for _, want := range []string{"public.jobs", "public.child", "public.ppart"} {
		if !fenced[want] {
			t.Fatalf("fenced tables %v: want %s (the schema's own mark)", fenced, want)
		}
	}
	plain := []binding{kBinding(1, nil, 0), kBinding(2, nil, 0), nullBinding(nil, 0)}
	for _, tc := range []struct {
		sql  string
		want string // describe() of the fenced writes
	}{
		{"UPDATE jobs SET state = $1 WHERE id = $2", "ROW UPDATE on public.jobs (stored token 1000000, new 1000000); STATEMENT UPDATE on public.jobs"},
		{"UPDATE jobs SET state = 'x' WHERE false", "STATEMENT UPDATE on public.jobs"},
		{"UPDATE parent SET v = 'p' WHERE id = $1", "ROW UPDATE on public.child (stored token 1000000, new 1000000)"},
		{"DELETE FROM pparent WHERE id = $1", "ROW DELETE on public.ppart (stored token 1000000)"},
		{"TRUNCATE pparent", "STATEMENT TRUNCATE on public.ppart"},
		{"ALTER TABLE jobs ALTER COLUMN tok TYPE bigint USING 0", "DDL ALTER TABLE on public.jobs"},
		{"WITH u AS (UPDATE jobs SET state = 'w' WHERE id = $1 RETURNING id) SELECT id INTO TEMP TABLE t FROM u", "ROW UPDATE on public.jobs (stored token 1000000, new 1000000); STATEMENT UPDATE on public.jobs"},
		{"SELECT id, state FROM jobs WHERE id = $1", ""},
		{"UPDATE events SET note = $1 WHERE id = $2", ""},
	} {
		o := ses.db.r.run(ctx, tc.sql, plain)
		if o.ran == 0 {
			t.Errorf("%s: PostgreSQL rejected every binding: %v", tc.sql, o.err)
			continue
		}
		if got := describe(fencedWrites(o.writes, fenced)); got != tc.want {
			t.Errorf("%s: recorded %q, want %q", tc.sql, got, tc.want)
		}
	}

	// The stale token: a guard's condition keeps the row; without it the
	// write of a row that stores a newer token is a stale write.
	guarded := "UPDATE jobs SET state = 'g', tok = $2 WHERE id = $1 AND tok <= $2"
	if o := ses.db.r.run(ctx, guarded, []binding{kBinding(1, []int{2}, staleToken)}); o.ran != 1 || len(staleWrites(o.writes, fenced)) != 0 {
		t.Errorf("%s with the stale token: ran %d, stale writes %q (%v)", guarded, o.ran, describe(staleWrites(o.writes, fenced)), o.err)
	}
	if o := ses.db.r.run(ctx, guarded, []binding{kBinding(1, []int{2}, 2*staleStored)}); len(staleWrites(o.writes, fenced)) != 1 {
		t.Errorf("%s with a newer token: recorded %q, want the row's update (%v)", guarded, describe(o.writes), o.err)
	}
	unguarded := "UPDATE jobs SET state = 'g', tok = $2 WHERE id = $1"
	if o := ses.db.r.run(ctx, unguarded, []binding{kBinding(1, []int{2}, staleToken)}); len(staleWrites(o.writes, fenced)) != 1 {
		t.Errorf("%s with the stale token: recorded %q, want a stale write (%v)", unguarded, describe(o.writes), o.err)
	}

	// Rejected statements are counted as such, never as passes; the
	// transaction is rolled back, so nothing above stayed.
	if o := ses.db.r.run(ctx, "UPDATE jobs SET nope = 1", plain); o.ran != 0 || o.err == nil {
		t.Errorf("a statement PostgreSQL rejects: ran %d, err %v", o.ran, o.err)
	}
	if o := ses.db.r.run(ctx, "SELECT count(*) FROM jobs WHERE state IN ('g', 'w', 'p')", plain); len(o.writes) != 0 || o.ran == 0 {
		t.Errorf("after the runs: %+v", o)
	}
	var n int
	if err := ses.db.r.conn.QueryRow(ctx, "SELECT count(*) FROM jobs WHERE state IN ('g', 'w', 'p') OR tok <> 1000000").Scan(&n); err != nil || n != 0 {
		t.Errorf("rows changed by the runs stayed: %d (%v)", n, err)
	}
	if o := ses.db.r.run(ctx, "COMMIT", plain); o.skipped == "" {
		t.Errorf("COMMIT was sent")
	}
}
