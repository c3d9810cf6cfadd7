package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/examples/payouts/payoutsdb"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
)

// The tests in this file are the ones docs/testing.md ("Testing the
// refusal in your own tests") quotes; TestTestingDocQuotesRefusalTests
// keeps the quotes equal to them.

// newLocker returns a lease client whose keys start with a prefix of this
// test's own, so that its tokens start at 1 whatever ran before, and
// deletes the test's keys when it ends.
func newLocker(t *testing.T, rdb *redis.Client) *lease.Client {
	prefix := fmt.Sprintf("test-%d", time.Now().UnixNano())
	t.Cleanup(func() {
		ctx := context.Background()
		iter := rdb.Scan(ctx, 0, prefix+":*", 100).Iterator()
		for iter.Next(ctx) {
			rdb.Del(ctx, iter.Val())
		}
	})
	return lease.New(rdb, &lease.Options{KeyPrefix: prefix})
}

// TestStaleTokenRefused presents a stale token directly: the write with
// the newer token lands, the one with the older token is refused by
// PostgreSQL, and the row keeps the newer write.
func TestStaleTokenRefused(t *testing.T) {
	ctx := context.Background()
	q := payoutsdb.New(testenv.Database(t, schemaSQL))
	if err := q.CreatePayout(ctx, payoutsdb.CreatePayoutParams{ID: 1, AmountCents: 100_00}); err != nil {
		t.Fatal(err)
	}
	if err := q.MarkPaid(ctx, payoutsdb.MarkPaidParams{ID: 1, ProviderRef: "new"}, 8); err != nil {
		t.Fatal(err)
	}
	err := q.MarkPaid(ctx, payoutsdb.MarkPaidParams{ID: 1, ProviderRef: "old"}, 7)
	var stale *fence.StaleError
	if !errors.As(err, &stale) || stale.Stored != 8 || stale.Presented != 7 {
		t.Fatalf("write with token 7 after 8: %v; want a *fence.StaleError, stored 8", err)
	}
	if p, _ := q.GetPayout(ctx, 1); p.ProviderRef.String != "new" || p.LastFencingToken != 8 {
		t.Fatalf("row: ref %q, token %d; want the newer write's", p.ProviderRef.String, p.LastFencingToken)
	}
}

// TestFrozenWorkersWriteRefusedAfterTakeover replays a pause: worker 1's
// lease expires while it is frozen (deleting the lock key is what expiry
// does), worker 2 takes the lease and writes, then worker 1's write, which
// was already on its way, reaches PostgreSQL with the old token. It is
// sent with a context that the lease does not cancel: one derived from
// the lease's context would be cancelled in the client and never reach
// PostgreSQL, which is safe, but would not test the database's refusal.
// Tokens are compared with each other, never with fixed numbers.
func TestFrozenWorkersWriteRefusedAfterTakeover(t *testing.T) {
	ctx := context.Background()
	q := payoutsdb.New(testenv.Database(t, schemaSQL))
	rdb := testenv.Redis(t)
	locker := newLocker(t, rdb)
	if err := q.CreatePayout(ctx, payoutsdb.CreatePayoutParams{ID: 1, AmountCents: 100_00}); err != nil {
		t.Fatal(err)
	}

	l1, err := locker.Acquire(ctx, "payout:1", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l1.Release(ctx)
	lockKey, _ := locker.Keys("payout:1")
	rdb.Del(ctx, lockKey) // worker 1 is frozen past its TTL

	l2, err := locker.Acquire(ctx, "payout:1", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Release(ctx)
	if err := q.MarkPaid(l2.Context(), payoutsdb.MarkPaidParams{ID: 1, ProviderRef: "worker 2"}, l2.Token()); err != nil {
		t.Fatal(err)
	}

	inFlight := context.WithoutCancel(l1.Context())
	err = q.MarkPaid(inFlight, payoutsdb.MarkPaidParams{ID: 1, ProviderRef: "worker 1"}, l1.Token())
	var stale *fence.StaleError
	if !errors.As(err, &stale) || stale.Stored != l2.Token() || stale.Presented != l1.Token() {
		t.Fatalf("worker 1's write: %v; want a *fence.StaleError with worker 2's token %d stored", err, l2.Token())
	}
	if l2.Token() <= l1.Token() {
		t.Fatalf("worker 2's token %d is not above worker 1's %d", l2.Token(), l1.Token())
	}
}

// TestWriteWaitingInPostgreSQLRefused sends worker 1's write while worker
// 2's transaction, with the newer token, holds the row uncommitted: worker
// 1's UPDATE is already in PostgreSQL, waiting for the row lock, when the
// newer write commits. PostgreSQL then re-checks the guard against the
// committed row (READ COMMITTED re-evaluates the WHERE clause of an UPDATE
// on the row's newest version) and the write is refused.
func TestWriteWaitingInPostgreSQLRefused(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Database(t, schemaSQL)
	q := payoutsdb.New(pool)
	if err := q.CreatePayout(ctx, payoutsdb.CreatePayoutParams{ID: 1, AmountCents: 100_00}); err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if err := q.WithTx(tx).MarkPaid(ctx, payoutsdb.MarkPaidParams{ID: 1, ProviderRef: "worker 2"}, 2); err != nil {
		t.Fatal(err)
	}

	done := make(chan error, 1)
	go func() {
		done <- q.MarkPaid(ctx, payoutsdb.MarkPaidParams{ID: 1, ProviderRef: "worker 1"}, 1)
	}()
	// Wait until worker 1's UPDATE waits for the row lock in PostgreSQL.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var waiting bool
		err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '-- name: MarkPaid%')`).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("worker 1's UPDATE never waited for the row lock")
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	err = <-done
	var stale *fence.StaleError
	if !errors.As(err, &stale) || stale.Stored != 2 || stale.Presented != 1 {
		t.Fatalf("worker 1's write: %v; want a *fence.StaleError, stored 2", err)
	}
	if p, _ := q.GetPayout(ctx, 1); p.ProviderRef.String != "worker 2" {
		t.Fatalf("row written by %q; want worker 2", p.ProviderRef.String)
	}
}

// TestTestingDocQuotesRefusalTests keeps docs/testing.md's Go blocks equal
// to this file's code, and its SQL blocks to queries.sql, so that what the page tells a team to copy is what
// runs here.
func TestTestingDocQuotesRefusalTests(t *testing.T) {
	doc, err := os.ReadFile("../../docs/testing.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("refusal_test.go")
	if err != nil {
		t.Fatal(err)
	}
	queries, err := os.ReadFile("queries.sql")
	if err != nil {
		t.Fatal(err)
	}
	quoted := 0
	for _, b := range fencedBlocks(string(doc)) {
		if b.lang == "sql" && !strings.Contains(string(queries), b.body) {
			t.Errorf("docs/testing.md quotes SQL that is not in examples/payouts/queries.sql:\n%s", b.body)
		}
	}
	for _, block := range codeBlocks(string(doc)) {
		if !strings.HasPrefix(block, "func ") && !strings.HasPrefix(block, "// ") {
			continue
		}
		quoted++
		if !strings.Contains(string(src), block) {
			t.Errorf("docs/testing.md quotes code that is not in examples/payouts/refusal_test.go:\n%s", block)
		}
	}
	if quoted < 3 {
		t.Errorf("docs/testing.md quotes %d blocks of refusal_test.go, want two tests and the helper", quoted)
	}
}
