package lease

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/fencegen/fencegen/runtime/fence"
)

// Lease is one acquisition of a resource, created by [Client.Acquire]. It
// carries the fencing token minted for it and a context that is cancelled
// when the lease ends. Its methods are safe for concurrent use.
//
// A Lease that is never released keeps its heartbeat renewing it until it is
// lost; always call [Lease.Release], or use [Client.Do].
type Lease struct {
	c        *Client
	resource string
	token    fence.Token
	owner    string
	lockKey  string
	tm       timing

	ctx    context.Context
	cancel context.CancelCauseFunc

	mu       sync.Mutex
	ended    bool        // ctx cancelled (lost or released)
	lastSend time.Time   // send time of the last successful acquire/renew; monotonic
	deadline *time.Timer // fires at lastSend + TTL − margin
	lastErr  error       // last renewal error since the last success

	hbCtx  context.Context // cancelled by Release to stop the heartbeat
	stopHB context.CancelFunc
	hbDone chan struct{} // closed when the heartbeat goroutine exits; nil without heartbeat

	relMu    sync.Mutex
	released bool // Release got a definitive answer
}

func (c *Client) newLease(resource string, token fence.Token, owner, lockKey string, send time.Time, tm timing) *Lease {
	l := &Lease{c: c, resource: resource, token: token, owner: owner, lockKey: lockKey, tm: tm, lastSend: send}
	// The lease outlives the ctx given to Acquire (etcd Session, pglock#5).
	l.ctx, l.cancel = context.WithCancelCause(context.Background())
	l.hbCtx, l.stopHB = context.WithCancel(context.Background())
	l.mu.Lock()
	l.deadline = time.AfterFunc(time.Until(send.Add(tm.ttl-tm.margin)), l.onDeadline)
	l.mu.Unlock()
	if tm.interval > 0 {
		l.hbDone = make(chan struct{})
		go l.heartbeat()
	}
	return l
}

// Token returns the fencing token minted for this acquisition. Pass it to
// every fenced write made under the lease.
func (l *Lease) Token() fence.Token { return l.token }

// Resource returns the resource name passed to Acquire.
func (l *Lease) Resource() string { return l.resource }

// TTL returns the lease's time-to-live: how long Redis keeps the lock key
// after each acquire or renewal.
func (l *Lease) TTL() time.Duration { return l.tm.ttl }

// Context returns the lease context. It is not derived from the ctx passed
// to Acquire, and it is cancelled:
//   - with a [*LostError] cause when the lease is lost: at once on a "not
//     owner" renewal, after MaxRenewFailures consecutive failed renewals,
//     or at the local deadline (send time of the last successful acquire
//     or renew + TTL − SafetyMargin, on the monotonic clock), whichever
//     comes first;
//   - with cause [ErrReleased] by [Lease.Release] if the lease was still
//     valid.
//
// Use context.Cause to tell these apart; derive the work context from it
// (or use [Client.Do]) so that fenced writes stop when the lease ends.
func (l *Lease) Context() context.Context { return l.ctx }

// Done is shorthand for l.Context().Done().
func (l *Lease) Done() <-chan struct{} { return l.ctx.Done() }

// Err returns nil while the lease is valid, otherwise the cause of the
// lease context's cancellation: a [*LostError] or [ErrReleased].
func (l *Lease) Err() error {
	if l.ctx.Err() == nil {
		return nil
	}
	return context.Cause(l.ctx)
}

// Remaining returns the local validity left: the time until the send time of
// the last successful acquire or renew + TTL − SafetyMargin, measured on the
// monotonic clock. It is 0 once the lease context is done.
func (l *Lease) Remaining() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return 0
	}
	return max(time.Until(l.lastSend.Add(l.tm.ttl-l.tm.margin)), 0)
}

// Renew extends the lease to TTL from now with one compare-and-PEXPIRE
// round trip, bounded by Options.CallTimeout, and on success moves the local
// deadline. The heartbeat calls the same code; call Renew yourself only when
// the heartbeat is disabled or before a long step.
//
// If Redis answers that the lock key is missing or belongs to another owner,
// Renew cancels the lease context at once and returns the [*LostError] (it
// never re-creates the key). May also return the cause of an earlier end
// ([*LostError] or [ErrReleased]) without a round trip, or a Redis or
// context error, which leaves the lease as it was.
func (l *Lease) Renew(ctx context.Context) error {
	if err := l.Err(); err != nil {
		return err
	}
	return l.renew(ctx)
}

func (l *Lease) renew(ctx context.Context) error {
	callCtx, cancel := context.WithTimeout(ctx, l.tm.callTimeout)
	defer cancel()
	send := time.Now()
	ok, err := l.c.renew(callCtx, l.lockKey, l.owner, l.tm.ttl)
	if err != nil {
		return fmt.Errorf("lease: renew %q (token %d): %w", l.resource, l.token, err)
	}
	if !ok {
		return l.lose(ReasonNotOwner, ErrNotOwner)
	}
	l.extend(send)
	l.c.log(slog.LevelDebug, "lease renewed", l.resource, l.token)
	if f := l.c.opts.observer().OnRenewed; f != nil {
		f(l.resource, l.token)
	}
	return nil
}

// extend moves the local deadline after a renewal sent at send succeeded.
func (l *Lease) extend(send time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended || send.Before(l.lastSend) {
		return
	}
	l.lastSend, l.lastErr = send, nil
	l.deadline.Reset(time.Until(send.Add(l.tm.ttl - l.tm.margin)))
}

func (l *Lease) onDeadline() {
	l.mu.Lock()
	err := l.lastErr
	l.mu.Unlock()
	_ = l.lose(ReasonDeadline, err)
}

// lose cancels the lease context with a *LostError and returns it; if the
// lease had already ended it returns the existing cause.
func (l *Lease) lose(reason Reason, err error) error {
	l.mu.Lock()
	if l.ended {
		l.mu.Unlock()
		return context.Cause(l.ctx)
	}
	l.ended = true
	l.deadline.Stop()
	lost := &LostError{Resource: l.resource, Token: l.token, Reason: reason, Err: err}
	l.cancel(lost)
	l.mu.Unlock()
	l.c.log(slog.LevelWarn, "lease lost", l.resource, l.token, "reason", string(reason), "err", err)
	if f := l.c.opts.observer().OnLost; f != nil {
		f(lost)
	}
	return lost
}

// end cancels the lease context with cause if it is still valid.
func (l *Lease) end(cause error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return
	}
	l.ended = true
	l.deadline.Stop()
	l.cancel(cause)
}

// heartbeat renews the lease every interval, measured from the start of the
// previous attempt (a timer re-armed per attempt, not a ticker, so slow
// calls never queue up). It exits when the lease ends or Release stops it;
// it never stops while the lease context is still live, except on Release.
func (l *Lease) heartbeat() {
	defer close(l.hbDone)
	t := time.NewTimer(l.tm.interval)
	defer t.Stop()
	hooks := l.c.opts.testHooks()
	failures := 0
	for {
		select {
		case <-l.hbCtx.Done():
			return
		case <-l.ctx.Done():
			return
		case <-t.C:
		}
		if hooks.beforeRenew != nil {
			hooks.beforeRenew(l.hbCtx)
		}
		if l.hbCtx.Err() != nil || l.ctx.Err() != nil {
			return
		}
		start := time.Now()
		err := l.renew(l.hbCtx)
		switch {
		case err == nil:
			failures = 0
		case l.ctx.Err() != nil:
			return // lost ("not owner" or local deadline)
		case l.hbCtx.Err() != nil:
			return // interrupted by our own Release: not a loss (pglock#175)
		default:
			failures++
			l.mu.Lock()
			l.lastErr = err
			l.mu.Unlock()
			if failures >= l.tm.maxFailures {
				_ = l.lose(ReasonRenewFailed, err)
				return
			}
			l.c.log(slog.LevelWarn, "lease renewal failed", l.resource, l.token, "consecutive", failures, "err", err)
			if f := l.c.opts.observer().OnRenewFailed; f != nil {
				f(l.resource, l.token, err, failures)
			}
		}
		t.Reset(max(l.tm.interval-time.Since(start), 0))
	}
}

// Release ends the lease. In order, it:
//  1. stops the heartbeat and waits for its goroutine to exit;
//  2. cancels the lease context with cause [ErrReleased], unless it was
//     already lost (the cause then stays the [*LostError]);
//  3. deletes the lock key with one compare-and-delete round trip, which
//     touches the key only if it still holds this lease's owner value.
//
// Release uses ctx only for its values: the round trip runs on
// context.WithoutCancel(ctx) bounded by Options.ReleaseTimeout, so a
// deferred Release after the caller's context ended still deletes the key.
//
// Returns nil when the key was deleted, or an error wrapping [ErrNotHeld]
// when it was already missing or held by another owner (the lease had
// expired or been taken over; nothing was deleted). A Redis or network error
// is returned as is; the lease has still ended locally, the key expires
// within TTL, and a later Release tries the delete again. Once a call has
// returned nil or ErrNotHeld, later calls return nil without a round trip.
func (l *Lease) Release(ctx context.Context) error {
	l.relMu.Lock()
	defer l.relMu.Unlock()
	if l.released {
		return nil
	}
	l.stopHB()
	if l.hbDone != nil {
		<-l.hbDone
	}
	l.end(ErrReleased)

	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.tm.releaseTimeout)
	defer cancel()
	deleted, err := l.c.release(rctx, l.lockKey, l.owner)
	if err != nil {
		err = fmt.Errorf("lease: release %q (token %d): %w", l.resource, l.token, err)
		l.c.log(slog.LevelWarn, "lease release failed", l.resource, l.token, "err", err)
		return err
	}
	l.released = true
	if !deleted {
		err = fmt.Errorf("lease: release %q (token %d): %w", l.resource, l.token, ErrNotHeld)
	}
	l.c.log(slog.LevelDebug, "lease released", l.resource, l.token, "deleted", deleted)
	if f := l.c.opts.observer().OnReleased; f != nil {
		f(l.resource, l.token, err)
	}
	return err
}

// lostCause returns the *LostError if the lease was lost, else nil.
func (l *Lease) lostCause() error {
	var lost *LostError
	if err := l.Err(); errors.As(err, &lost) {
		return lost
	}
	return nil
}
