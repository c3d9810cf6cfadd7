package main

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fencegen/fencegen/examples/accounts/accountsdb"
	"github.com/fencegen/fencegen/runtime/fence"
)

// The ABA of deleting fenced rows (README, "Deleting fenced rows"): holder
// A (token 1) pauses; holder B (token 2) takes over and closes the
// account; A wakes up and writes again. These two tests replay it with a
// hard DELETE and with a tombstone.

// TestHardDeleteLetsStaleHolderReinsert shows the hole a tombstone closes:
// after B's fenced DELETE the row, and the token it stored, are gone, so
// A's stale INSERT has nothing to be checked against and brings the
// account back, with A's stale token.
func TestHardDeleteLetsStaleHolderReinsert(t *testing.T) {
	ctx := context.Background()
	_, q := setup(t)
	const tokA, tokB fence.Token = 1, 2
	if _, err := q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: 1, Balance: numeric("10.00")}, tokA); err != nil {
		t.Fatal(err)
	}
	// B closes the account: a guarded DELETE, accepted (2 beats 1).
	if n, err := q.CloseAccount(ctx, 1, tokB); err != nil || n != 1 {
		t.Fatalf("CloseAccount with B's token = %d, %v; want 1 row", n, err)
	}
	// A, stale, re-creates it: the INSERT succeeds. This is the ABA.
	if _, err := q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: 1, Balance: numeric("10.00")}, tokA); err != nil {
		t.Fatalf("stale re-INSERT after a hard DELETE = %v; the test expects it to succeed (the ABA a tombstone prevents)", err)
	}
	b, tok := balance(t, q, 1)
	if b != "10.00" || tok != tokA {
		t.Fatalf("after the stale re-INSERT: balance %s, token %d; want 10.00 and A's stale token %d", b, tok, tokA)
	}
	// Worse, the resurrected row now carries A's old token: every later
	// write by A is accepted again.
	if err := q.CreditAccount(ctx, accountsdb.CreditAccountParams{Amount: numeric("5.00"), ID: 1}, tokA); err != nil {
		t.Fatalf("stale credit on the resurrected row = %v; want it accepted (the row forgot B's token)", err)
	}
}

// TestTombstoneRefusesStaleHolder is the safe path: B closes the account
// with a fenced UPDATE that sets closed_at, and the row keeps B's token.
// Every write A tries afterwards is refused: its credit, its re-open and
// its upsert re-create with a *fence.StaleError naming B's token, its
// plain re-INSERT by the primary key.
func TestTombstoneRefusesStaleHolder(t *testing.T) {
	ctx := context.Background()
	_, q := setup(t)
	const tokA, tokB fence.Token = 1, 2
	if _, err := q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: 1, Balance: numeric("10.00")}, tokA); err != nil {
		t.Fatal(err)
	}
	if err := q.SoftCloseAccount(ctx, 1, tokB); err != nil {
		t.Fatalf("SoftCloseAccount with B's token: %v", err)
	}
	a, err := q.GetAccount(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !a.ClosedAt.Valid || a.LastFencingToken != tokB {
		t.Fatalf("after SoftCloseAccount: closed_at %v, token %d; want set, and B's token %d", a.ClosedAt, a.LastFencingToken, tokB)
	}

	stale := func(what string, err error) {
		t.Helper()
		var se *fence.StaleError
		if !errors.As(err, &se) || se.Stored != tokB || se.Presented != tokA {
			t.Fatalf("%s with A's stale token = %v; want a *fence.StaleError with stored %d, presented %d", what, err, tokB, tokA)
		}
	}
	// A's re-open (the tombstone form of a re-insert): refused.
	_, err = q.ReopenAccount(ctx, accountsdb.ReopenAccountParams{Balance: numeric("10.00"), ID: 1}, tokA)
	stale("ReopenAccount", err)
	// A's upsert re-create: its DO UPDATE branch is refused.
	_, err = q.RecreateAccount(ctx, accountsdb.RecreateAccountParams{ID: 1, Balance: numeric("10.00")}, tokA)
	stale("RecreateAccount", err)
	// A's update of the closed account: refused.
	stale("CreditAccount", q.CreditAccount(ctx, accountsdb.CreditAccountParams{Amount: numeric("5.00"), ID: 1}, tokA))
	// A's closing again: refused too.
	stale("SoftCloseAccount", q.SoftCloseAccount(ctx, 1, tokA))
	// A's plain re-INSERT hits the row that is still there.
	_, err = q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: 1, Balance: numeric("10.00")}, tokA)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		t.Fatalf("stale re-INSERT over a tombstone = %v; want unique_violation (23505)", err)
	}
	a, err = q.GetAccount(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !a.ClosedAt.Valid || a.LastFencingToken != tokB {
		t.Fatalf("A's stale writes changed the closed row: closed_at %v, token %d", a.ClosedAt, a.LastFencingToken)
	}

	// The current holder (or a later one) may re-open it.
	row, err := q.ReopenAccount(ctx, accountsdb.ReopenAccountParams{Balance: numeric("1.00"), ID: 1}, tokB+1)
	if err != nil || row.ClosedAt.Valid || row.LastFencingToken != tokB+1 {
		t.Fatalf("ReopenAccount with a newer token = %+v, %v; want reopened with token %d", row, err, tokB+1)
	}
}
