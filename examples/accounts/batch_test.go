package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fencegen/fencegen/examples/accounts/accountsdb"
	"github.com/fencegen/fencegen/runtime/fence"
)

// TestFencedBatchReportsEachItem sends one :batchexec mixing items that
// are written, refused for a stale token and not found: each item's
// callback gets its own outcome, and a refused item does not stop the
// others.
func TestFencedBatchReportsEachItem(t *testing.T) {
	ctx := context.Background()
	_, q := setup(t)
	for id, tok := range map[int64]fence.Token{1: 1, 2: 9} {
		if _, err := q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: id, Balance: numeric("10.00")}, tok); err != nil {
			t.Fatal(err)
		}
	}
	const token fence.Token = 5
	items := []accountsdb.CreditAccountsParams{
		{ID: 1, Amount: numeric("1.00")}, // written
		{ID: 2, Amount: numeric("1.00")}, // stale: account 2 stores token 9
		{ID: 3, Amount: numeric("1.00")}, // not found
		{ID: 1, Amount: numeric("2.00")}, // written again under the same lease
	}
	errs := make([]error, len(items))
	calls := 0
	q.CreditAccounts(ctx, items, token).Exec(func(i int, err error) {
		calls++
		errs[i] = err
	})
	if calls != len(items) {
		t.Fatalf("callback called %d times, want %d", calls, len(items))
	}
	if errs[0] != nil || errs[3] != nil {
		t.Errorf("written items: %v, %v; want nil", errs[0], errs[3])
	}
	var se *fence.StaleError
	if !errors.As(errs[1], &se) || se.Stored != 9 || se.Presented != token || se.Query != "CreditAccounts" {
		t.Errorf("item 1 = %v; want a *fence.StaleError with stored 9, presented %d", errs[1], token)
	}
	var nf *fence.NotFoundError
	if !errors.As(errs[2], &nf) || errors.Is(errs[2], fence.ErrStaleToken) {
		t.Errorf("item 2 = %v; want a *fence.NotFoundError", errs[2])
	}
	if b, tok := balance(t, q, 1); b != "13.00" || tok != token {
		t.Errorf("account 1: balance %s, token %d; want 13.00 and %d", b, tok, token)
	}
	if b, tok := balance(t, q, 2); b != "10.00" || tok != 9 {
		t.Errorf("account 2: balance %s, token %d; want unchanged 10.00 and 9", b, tok)
	}

	// :batchone returns each item's row or its error.
	type res struct {
		row accountsdb.AccountBalance
		err error
	}
	var got []res
	q.SetBalances(ctx, []accountsdb.SetBalancesParams{
		{ID: 1, Balance: numeric("50.00")},
		{ID: 2, Balance: numeric("50.00")},
		{ID: 4, Balance: numeric("50.00")},
	}, token).QueryRow(func(_ int, row accountsdb.AccountBalance, err error) {
		got = append(got, res{row, err})
	})
	if len(got) != 3 {
		t.Fatalf("QueryRow callbacks: %d, want 3", len(got))
	}
	if got[0].err != nil || got[0].row.ID != 1 || got[0].row.LastFencingToken != token {
		t.Errorf("item 0 = %+v, %v; want account 1 with token %d", got[0].row, got[0].err, token)
	}
	if !errors.Is(got[1].err, fence.ErrStaleToken) || got[1].row.ID != 0 {
		t.Errorf("item 1 = %+v, %v; want ErrStaleToken and no row", got[1].row, got[1].err)
	}
	if !errors.Is(got[2].err, fence.ErrNotFound) {
		t.Errorf("item 2 = %v; want ErrNotFound", got[2].err)
	}
}

// TestFencedBatchConcurrentChange: a batch item blocked on a row that a
// concurrent transaction then commits with a newer token writes nothing.
// Its statement's snapshot still shows the old, acceptable token, so the
// item reports a *fence.ConcurrentChangeError (not retried inside the
// batch); sending it again reports the stale token.
func TestFencedBatchConcurrentChange(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	if _, err := q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: 1, Balance: numeric("10.00")}, 1); err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE account_balances SET last_fencing_token = 9 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		q.CreditAccounts(ctx, []accountsdb.CreditAccountsParams{{ID: 1, Amount: numeric("1.00")}}, 5).Exec(func(_ int, err error) {
			done <- err
		})
	}()
	// Wait until the batch waits for tx's row lock, then commit.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'").Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the batch never waited for the row lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	err = <-done
	var ce *fence.ConcurrentChangeError
	if !errors.As(err, &ce) || !errors.Is(err, fence.ErrConcurrentChange) || errors.Is(err, fence.ErrStaleToken) || errors.Is(err, fence.ErrNotFound) {
		t.Fatalf("item blocked by a concurrent writer = %v; want a *fence.ConcurrentChangeError", err)
	}
	if b, tok := balance(t, q, 1); b != "10.00" || tok != 9 {
		t.Fatalf("account 1: balance %s, token %d; want 10.00 and 9 (nothing written)", b, tok)
	}
	q.CreditAccounts(ctx, []accountsdb.CreditAccountsParams{{ID: 1, Amount: numeric("1.00")}}, 5).Exec(func(_ int, err error) {
		if !errors.Is(err, fence.ErrStaleToken) {
			t.Errorf("sent again: %v; want ErrStaleToken", err)
		}
	})
}

// A fenced upsert in a batch: each item is inserted (storing the token),
// updated when the stored token is beaten, or refused as stale.
func TestFencedUpsertBatch(t *testing.T) {
	ctx := context.Background()
	_, q := setup(t)
	if _, err := q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: 2, Balance: numeric("10.00")}, 9); err != nil {
		t.Fatal(err)
	}
	if _, err := q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: 3, Balance: numeric("10.00")}, 1); err != nil {
		t.Fatal(err)
	}
	items := []accountsdb.RecreateAccountsParams{
		{ID: 1, Balance: numeric("5.00")}, // inserted
		{ID: 2, Balance: numeric("5.00")}, // stale: stores token 9
		{ID: 3, Balance: numeric("5.00")}, // updated: token 1 is beaten
	}
	errs := make([]error, len(items))
	q.RecreateAccounts(ctx, items, 5).Exec(func(i int, err error) { errs[i] = err })
	var stale *fence.StaleError
	if errs[0] != nil || errs[2] != nil || !errors.As(errs[1], &stale) || stale.Stored != 9 {
		t.Fatalf("item errors %v; want nil, stale (stored 9), nil", errs)
	}
	for id, want := range map[int64]struct {
		bal string
		tok fence.Token
	}{1: {"5.00", 5}, 2: {"10.00", 9}, 3: {"5.00", 5}} {
		if b, tok := balance(t, q, id); b != want.bal || tok != want.tok {
			t.Errorf("account %d: %s/%d, want %s/%d", id, b, tok, want.bal, want.tok)
		}
	}
}
