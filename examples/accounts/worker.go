package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fencegen/fencegen/examples/accounts/accountsdb"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
)

// WorkerConfig configures RunWorker.
type WorkerConfig struct {
	// Account is the account the worker credits; its lease resource is
	// "account:<Account>".
	Account int64
	// TTL is the lease TTL; the heartbeat renews it every TTL/3.
	TTL time.Duration
	// Every is the time between two credits.
	Every time.Duration
	// Drain bounds how long shutdown waits for credits in flight before it
	// cancels them.
	Drain time.Duration
	// Log receives one line per event; RunWorker serializes its writes.
	Log io.Writer
}

// RunWorker holds the lease on one account and credits it every cfg.Every
// until ctx ends (SIGTERM in main) or the lease is lost. Shutdown follows
// the order that keeps the fencing guarantee useful:
//
//  1. stop taking work: no new credit starts once ctx is done;
//  2. drain: credits in flight get up to cfg.Drain to finish;
//  3. cancel: whatever is still running is cancelled;
//  4. release: only then is the lease released (compare-and-delete), so no
//     write of ours can follow the next holder's.
//
// Every credit runs under a context derived from the lease context, so a
// lost lease cancels it at once; a write that is already on its way is
// refused by PostgreSQL's fencing guard instead. A credit refused as stale
// means a newer holder wrote the account: [lease.Lease.Observe] marks the
// lease lost, and the worker stops as for any lost lease. The first failed
// credit is logged. A credit that fails for any other reason (the account
// does not exist, schema.sql was not loaded, the database went away) stops
// the worker the same way: stop, drain, cancel, release.
//
// RunWorker returns nil after a graceful shutdown, the lease's
// *lease.LostError if it was lost, or the first credit error other than a
// stale token. It returns the number of credits applied.
func RunWorker(ctx context.Context, locker *lease.Client, q *accountsdb.Queries, cfg WorkerConfig) (applied int64, err error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	// The credit goroutines log too: log.Logger serializes the writes.
	lg := log.New(cfg.Log, "worker: ", 0)
	resource := fmt.Sprintf("account:%d", cfg.Account)
	var l *lease.Lease
	for {
		l, err = locker.Acquire(ctx, resource, cfg.TTL)
		if err == nil {
			break
		}
		if !errors.Is(err, lease.ErrNotAcquired) {
			return 0, err
		}
		select {
		case <-ctx.Done():
			return 0, nil // shut down before we ever held the lease
		case <-time.After(cfg.TTL / 10):
		}
	}
	lg.Printf("holding %s with fencing token %d", resource, l.Token())

	// work is cancelled by lease loss (through l.Context()) or by shutdown
	// once draining is over.
	work, cancelWork := context.WithCancel(l.Context())
	defer cancelWork()
	var (
		wg          sync.WaitGroup
		mu          sync.Mutex
		firstErr    error
		loggedStale bool                  // the first stale refusal was logged
		failed      = make(chan struct{}) // closed when firstErr is set
	)
	tick := time.NewTicker(cfg.Every)
	defer tick.Stop()
loop:
	for {
		select {
		case <-ctx.Done():
			lg.Print("shutdown requested: taking no new work")
			break loop
		case <-l.Done():
			lg.Printf("%v", context.Cause(l.Context()))
			break loop
		case <-failed:
			lg.Print("stopping after the failed credit: taking no new work")
			break loop
		case <-tick.C:
			wg.Add(1)
			go func(token fence.Token) {
				defer wg.Done()
				err := q.CreditAccount(work, accountsdb.CreditAccountParams{Amount: numeric("1.00"), ID: cfg.Account}, token)
				// A stale refusal: a newer holder wrote the account, so this
				// lease is no longer the latest; Observe cancels it.
				err = l.Observe(work, err)
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					applied++
					return
				}
				if errors.Is(err, context.Canceled) {
					return // we are stopping, or the lease was lost: not a failure
				}
				if errors.Is(err, fence.ErrStaleToken) {
					if !loggedStale {
						loggedStale = true
						lg.Printf("credit refused: %v", err)
					}
					return
				}
				if firstErr == nil {
					firstErr = creditError(cfg.Account, err)
					lg.Printf("credit failed: %v", firstErr)
					close(failed)
				}
			}(l.Token())
		}
	}
	drained := make(chan struct{})
	go func() { wg.Wait(); close(drained) }()
	select {
	case <-drained:
		lg.Print("drained credits in flight")
	case <-time.After(cfg.Drain):
		lg.Print("drain timeout: cancelling credits in flight")
		cancelWork()
		<-drained
	}
	cancelWork()
	rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	lost := l.Err()
	if rerr := l.Release(rctx); rerr != nil && !errors.Is(rerr, lease.ErrNotHeld) {
		return applied, rerr
	}
	lg.Printf("released %s after %d credits", resource, applied)
	mu.Lock()
	defer mu.Unlock()
	if lost != nil && !errors.Is(lost, lease.ErrReleased) {
		return applied, lost
	}
	return applied, firstErr
}

// creditError says what a failed credit of account means for whoever runs
// the worker: a missing account or a missing table is a set-up step left
// out, not a fault of the worker.
func creditError(account int64, err error) error {
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, fence.ErrNotFound):
		return fmt.Errorf("credit account %d: %w: account %d does not exist; insert it first, e.g. INSERT INTO account_balances (id, balance) VALUES (%d, 0)", account, err, account, account)
	case errors.As(err, &pgErr) && pgErr.Code == undefinedTable:
		return fmt.Errorf("credit account %d: %w: is examples/accounts/schema.sql loaded into the database at DATABASE_URL?", account, err)
	}
	return fmt.Errorf("credit account %d: %w", account, err)
}

// undefinedTable is SQLSTATE 42P01, undefined_table (PostgreSQL docs,
// Appendix A "PostgreSQL Error Codes").
const undefinedTable = "42P01"
