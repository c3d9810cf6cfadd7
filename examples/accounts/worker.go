package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

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
	// Log receives one line per event.
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
// refused by PostgreSQL's fencing guard instead. RunWorker returns nil
// after a graceful shutdown, the lease's *lease.LostError if it was lost,
// or the first credit error other than a stale token. It returns the
// number of credits applied.
func RunWorker(ctx context.Context, locker *lease.Client, q *accountsdb.Queries, cfg WorkerConfig) (applied int64, err error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
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
	fmt.Fprintf(cfg.Log, "worker: holding %s with fencing token %d\n", resource, l.Token())

	// work is cancelled by lease loss (through l.Context()) or by shutdown
	// once draining is over.
	work, cancelWork := context.WithCancel(l.Context())
	defer cancelWork()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	tick := time.NewTicker(cfg.Every)
	defer tick.Stop()
loop:
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintln(cfg.Log, "worker: shutdown requested: taking no new work")
			break loop
		case <-l.Done():
			fmt.Fprintf(cfg.Log, "worker: %v\n", context.Cause(l.Context()))
			break loop
		case <-tick.C:
			wg.Add(1)
			go func(token fence.Token) {
				defer wg.Done()
				err := q.CreditAccount(work, accountsdb.CreditAccountParams{Amount: numeric("1.00"), ID: cfg.Account}, token)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					applied++
				case errors.Is(err, fence.ErrStaleToken), errors.Is(err, context.Canceled):
					// A newer holder wrote, or we are stopping: not a failure.
				case firstErr == nil:
					firstErr = err
				}
			}(l.Token())
		}
	}
	drained := make(chan struct{})
	go func() { wg.Wait(); close(drained) }()
	select {
	case <-drained:
		fmt.Fprintln(cfg.Log, "worker: drained credits in flight")
	case <-time.After(cfg.Drain):
		fmt.Fprintln(cfg.Log, "worker: drain timeout: cancelling credits in flight")
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
	fmt.Fprintf(cfg.Log, "worker: released %s after %d credits\n", resource, applied)
	mu.Lock()
	defer mu.Unlock()
	if lost != nil && !errors.Is(lost, lease.ErrReleased) {
		return applied, lost
	}
	return applied, firstErr
}
