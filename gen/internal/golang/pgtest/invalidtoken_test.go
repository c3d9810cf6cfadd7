package pgtest_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/gen/internal/golang/pgtest/pgtestdb"
	"github.com/fencegen/fencegen/internal/tokentest"
	"github.com/fencegen/fencegen/runtime/fence"
)

// TestInvalidTokenRefusedBeforeAnyRoundTrip: every generated method that
// takes a token (guarded writes of every form, INSERTs that store the
// token, COPY FROM, batches) refuses token 0 and a negative token with a
// *fence.InvalidTokenError, and sends nothing (a pgx tracer on a real
// PostgreSQL connection counts what is sent); token 1 is sent.
func TestInvalidTokenRefusedBeforeAnyRoundTrip(t *testing.T) {
	pool, _ := setup(t)
	cfg := pool.Config()
	tr := &tokentest.Tracer{}
	cfg.ConnConfig.Tracer = tr
	traced, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer traced.Close()
	n := tokentest.Refused(t, pgtestdb.New(traced), tr.Sent)
	if n < 30 {
		t.Fatalf("checked %d methods taking a token; pgtestdb has more than 30", n)
	}
	t.Logf("%d methods taking a token", n)
}

// The two writes of issue 24 that token 0 and a negative token made: an
// UPDATE of a row no fenced write has touched (it stores 0, which token 0
// passes) and an INSERT storing -5. Both now return the error and leave the
// table as it was.
func TestInvalidTokenWritesNothing(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	exec(t, pool, `INSERT INTO jobs (id, status) VALUES (1, 'failed')`)
	if err := q.RequeueFailed(ctx, 1, 0); err == nil || !isInvalid(err, 0) {
		t.Fatalf("RequeueFailed(token 0) on a never-written row: %v", err)
	}
	if _, err := q.CopyJobs(ctx, []pgtestdb.CopyJobsParams{{ID: 2, Status: "new"}}, -5); !isInvalid(err, -5) {
		t.Fatalf("CopyJobs(token -5): %v", err)
	}
	if got := text(t, pool, `SELECT string_agg(format('%s:%s:%s', id, status, tok), ' ' ORDER BY id) FROM jobs`); got != "1:failed:0" {
		t.Fatalf("jobs after the refused writes: %s", got)
	}
}

func isInvalid(err error, tok fence.Token) bool {
	ie, ok := err.(*fence.InvalidTokenError)
	return ok && ie.Token == tok
}
