package lease

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease/internal/notify"
)

// Lease is one acquisition of a resource, created by [Client.Acquire]. It
// carries the fencing token minted for it and a context that is cancelled
// when the lease ends. Its methods are safe for concurrent use.
//
// A Lease that is never released keeps its heartbeat renewing it until it is
// lost, even after the goroutine that acquired it has exited: always call
// [Lease.Release] (a deferred call also runs on panic), or use [Client.Do].
type Lease struct {
	// The fields the heartbeat reads and writes for every renewal come
	// first, in 120 bytes (two or three cache lines, as the allocation
	// falls): with 100,000 leases the renewal of each lease is a cache miss
	// per line it touches, and touch (scheduler.go) reads ahead the first,
	// ttlArg and c, no more than 64 bytes apart, so that every line is in
	// the cache when the renewal's outcome is applied.

	// over is set with ended, for the heartbeat to read without a lock.
	over atomic.Bool
	// hb is the heartbeat state, guarded by c.hb.mu except failures
	// (touched only by the one renewal in flight), stopped and paused.
	hb struct {
		stopped  atomic.Bool
		paused   atomic.Bool // test hook: renewals are skipped while set
		added    bool        // scheduled by the heartbeat
		gone     bool        // stopped or dropped since
		g        *group      // the renewal group l is in, if any
		failures int         // consecutive failed renewals
		// failedSince is lastSend when failures was last counted: a
		// lastSend that moved since means a renewal landed in between.
		failedSince time.Time
	}
	mu    sync.Mutex
	ended bool // ctx cancelled (lost or released)
	// ttlArg is the TTL in milliseconds as a command argument, boxed once.
	ttlArg   any
	lastSend time.Time // send time of the last successful acquire/renew; monotonic
	lastErr  error     // last renewal error since the last success
	c        *Client

	// keyArg and valueArg are lockKey (as a *keyStr) and value
	// (&ownerArg) as command arguments, made once (not per renewal or
	// release, and without boxing a string); mark, set only when an
	// attempt of the Acquire was cut off or may have landed unseen (also
	// one go-redis wrote twice), holds this owner's mark (the abandon
	// mark's key), the :minted key and the mark's lifetime, which Release
	// then sets (see release.lua): a rare path, kept out of line so that
	// the Lease of every Acquire is smaller.
	keyArg, valueArg any
	mark             *markArgs
	// ownerArg is the owner as a command argument that counts its writes
	// (see sentArg): the acquire's, then the renewals'.
	ownerArg sentArg
	// deadline, when not nil, fires at lastSend + TTL − margin: the
	// lease's own timer, for a lease without heartbeat or whose heartbeat
	// was stopped; the heartbeat's group watches the deadlines of the
	// leases it renews (see group).
	deadline timer

	resource string
	token    fence.Token
	owner    string
	// value is the lock key's value while this lease holds it, the owner
	// (the token is recorded in the :minted key, see acquire.lua): the
	// renewal and release scripts compare it whole.
	value   string
	lockKey string
	// tm is the timing of the lease's TTL, shared by every lease of that
	// TTL (the Client's cached timingEntry, never changed once made).
	tm *timing

	// ctxp is the lease context once made (see Context), cancel its
	// cancel function (set under mu); cause is why l ended (set with
	// ended, under mu), which the context is cancelled with.
	ctxp   atomic.Pointer[context.Context]
	cancel context.CancelCauseFunc
	cause  error
	// vals carries the values (not the cancellation) of the ctx given to
	// Acquire, for the logs and Observer events of the heartbeat.
	vals context.Context

	relMu    sync.Mutex
	released bool // Release got a definitive answer
	// relCalled: Release was called; relValid: the lease was valid then
	// (both under relMu). A later Release, after a failed round trip,
	// retries the same release.
	relCalled, relValid bool
	// releasing is set by Release before its compare-and-delete is sent:
	// from then on a renewal that finds the key gone does not lose the
	// lease (it may be the release's own delete), and Renew returns
	// ErrReleased; the release's answer decides the cause.
	releasing atomic.Bool
}

// markArgs are the abandon mark's key, the :minted key and the mark's
// lifetime in milliseconds, as command arguments: see Lease.mark.
type markArgs struct{ key, mint, life any }

// start makes l, prepared by Client.prepare, the lease of the acquisition
// that minted token with the acquire sent at send, and starts its
// heartbeat (or its own deadline timer).
func (c *Client) start(l *Lease, ctx context.Context, token fence.Token, send time.Time) {
	l.token, l.lastSend = token, send
	l.value = l.owner
	l.vals = context.Background()
	if c.observed {
		l.vals = context.WithoutCancel(ctx)
	}
	// The lease outlives the ctx given to Acquire (etcd Session, pglock#5);
	// its context is made on first use (see Context).
	if l.tm.interval > 0 {
		c.hb.add(l, send) // its group watches the deadline
		return
	}
	l.armDeadline()
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
//     comes first, or by [Lease.Release] when it finds the key taken from
//     the lease;
//   - with cause [ErrReleased] by [Lease.Release] if the lease was still
//     valid.
//
// Use context.Cause to tell these apart; derive the work context from it
// (or use [Client.Do]) so that fenced writes stop when the lease ends.
func (l *Lease) Context() context.Context {
	if c := l.ctxp.Load(); c != nil {
		return *c
	}
	// Made on first use, not by Acquire: a worker that never asks for it
	// (Acquire, a write with the token, Release) pays for no context and
	// no cancellation (bench/redislock CycleInterleaved).
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.ctxp.Load(); c != nil {
		return *c
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	if l.ended {
		cancel(l.cause)
	}
	l.cancel = cancel
	l.ctxp.Store(&ctx)
	return ctx
}

// Done is shorthand for l.Context().Done().
func (l *Lease) Done() <-chan struct{} { return l.Context().Done() }

// Err returns nil while the lease is valid, otherwise the cause of the
// lease context's cancellation: a [*LostError] or [ErrReleased].
//
// Err reads the clock itself: once the local deadline has passed it loses
// the lease (cancelling its context, cause a [*LostError] with
// [ReasonDeadline]) and returns that, even if the deadline timer has not
// run yet, as right after this process was paused (a GC pause, SIGSTOP)
// past the deadline. The Context's Done channel closes when the timer runs
// or Err notices, whichever is first: check Err, not only Done, right
// before a step that must not run on an expired lease (and pass the token
// for the database to check).
func (l *Lease) Err() error {
	if !l.over.Load() {
		if _, ended := l.expire(); !ended {
			return nil
		}
	}
	return l.endCause()
}

// endCause is the cause l ended with, nil while it is valid.
func (l *Lease) endCause() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cause
}

// finish records cause as the end of l and cancels its context, if made.
// l.mu is held and l had not ended.
func (l *Lease) finish(cause error) {
	l.ended, l.cause = true, cause
	l.over.Store(true)
	if l.deadline != nil {
		l.deadline.Stop()
	}
	if l.cancel != nil {
		l.cancel(cause)
	}
}

// Remaining returns the local validity left: the time until the send time of
// the last successful acquire or renew + TTL − SafetyMargin, measured on the
// monotonic clock. It is 0 once the lease context is done.
//
// It is local knowledge only: what this process can promise from its own
// clock, not what Redis holds. Redis may already have dropped the key (a
// failover to a replica that never saw the last renewal, eviction, a
// FLUSHALL), and a process paused after reading it can act on a stale
// value; only the fencing token, checked by the database, makes a write
// safe.
func (l *Lease) Remaining() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return 0
	}
	return max(until(l.c.clk, l.lastSend.Add(l.tm.ttl-l.tm.margin)), 0)
}

// Renew extends the lease to TTL from now with one compare-and-PEXPIRE
// round trip, bounded by Options.CallTimeout, and on success moves the local
// deadline. The heartbeat calls the same code; call Renew yourself only when
// the heartbeat is disabled or before a long step.
//
// If Redis answers that the lock key is missing or belongs to another owner,
// Renew cancels the lease context at once and returns the [*LostError] (it
// never re-creates the key). May also return the cause of an earlier end
// ([*LostError] or [ErrReleased]) without a round trip, or an error that
// leaves the lease as it was: a Redis error, a [*TimeoutError] when
// CallTimeout (or a go-redis timeout) cut the call off, or ctx's error
// (with the Redis error, if any) when ctx ended first.
func (l *Lease) Renew(ctx context.Context) error {
	if err := l.Err(); err != nil {
		return err
	}
	if l.releasing.Load() {
		return ErrReleased // Release's answer decides the cause
	}
	return l.renew(ctx)
}

func (l *Lease) renew(ctx context.Context) error {
	callCtx, cs, inline := l.c.callContext(ctx, l.tm.callTimeout)
	defer cs.stop()
	send := l.c.clk.Now()
	// Cut off by ctx while on its way, the renewal may still land.
	r := l.c.renew(callCtx, inline, l.lockKey, l.valueArg, l.ttlArg, func(r renewResult) { l.lateRenewal(send, r) })
	ok, err := r.ok, r.err
	if err != nil {
		err = opFailed(l.op("renew"), ctx, callCtx, "renew", l.tm.callTimeout, err)
		if errors.Is(err, ErrClientClosed) && ctxEnded(ctx) == nil {
			// No renewal can be sent any more: lost at once, as on etcd.
			return l.lose(ReasonRenewFailed, err)
		}
		return l.c.withDialCause(err)
	}
	if !ok {
		if l.releasing.Load() {
			// Perhaps Release's own delete: its answer decides.
			return ErrReleased
		}
		return l.lose(ReasonNotOwner, l.notOwner(r.foreign))
	}
	if !l.renewed(send) {
		// The lease ended while the renewal was in flight: the key was
		// extended for nobody.
		l.c.undoRenewal(l)
		return l.Err()
	}
	return nil
}

// renewed records a successful renewal sent at send; it reports false,
// changing nothing, if the lease had ended meanwhile.
func (l *Lease) renewed(send time.Time) bool {
	if !l.extend(send) {
		return false
	}
	// The log record and the events read more of l (vals, resource,
	// token): only when someone gets them, since with 100,000 leases each
	// further field is a cache miss per renewal.
	c := l.c
	if c.observed {
		c.log(l.vals, slog.LevelDebug, "lease renewed", l.resource, l.token)
		c.emit(l.vals, Event{Kind: EventRenewed, Resource: l.resource, Token: l.token})
	}
	if f := c.opts.observer().OnRenewed; f != nil {
		resource, token := l.resource, l.token
		c.notes.Post(func() { f(resource, token) }, notify.About{Hook: "Observer.OnRenewed", Event: string(EventRenewed), Resource: resource, Token: int64(token)})
	}
	return true
}

// lateRenewal applies the outcome r of a renewal sent at send whose reply
// came after its caller stopped waiting: a renewal that landed moves the
// local deadline of a valid lease like any other (extend); if the lease
// has ended, it extended a key nobody holds, and undoRenewal deletes it.
func (l *Lease) lateRenewal(send time.Time, r renewResult) {
	if r.ok && r.err == nil && !l.extend(send) {
		l.c.undoRenewal(l)
	}
}

// notOwner is the error of a renewal that Redis answered "not owner",
// saying what happened to the lock key, as the etcd lease's does: it held
// another value (foreign: overwritten by hand, or taken by another owner
// after it expired), or it was missing (deleted by hand, expired early,
// evicted, or lost in a restart or flush), which call for different
// checks (trial t26s F3).
func (l *Lease) notOwner(foreign bool) error {
	if foreign {
		return fmt.Errorf("%w: the lock key %q was overwritten: it held another owner's value (a SET by hand, or another owner took it after it expired or was deleted)", ErrNotOwner, l.lockKey)
	}
	return fmt.Errorf("%w: the lock key %q was missing (deleted, e.g. a DEL by hand, expired early, evicted, or lost in a restart or flush)", ErrNotOwner, l.lockKey)
}

// applyRenewal applies the outcome of a heartbeat renewal sent at send. A
// definitive "not owner" loses the lease at once; an error counts as one
// failure, and MaxRenewFailures in a row lose it; a success resets the
// count. An error for a lease whose heartbeat Release has stopped is our own
// shutdown, not a failure (pglock#175).
//
// It reports whether the lease was still valid when the outcome was applied;
// false means the lease had ended (so a successful renewal extended a key
// that nobody holds any more).
func (l *Lease) applyRenewal(send time.Time, r renewResult, stopped bool) bool {
	if l.over.Load() {
		return false
	}
	switch {
	case r.err == nil && r.ok:
		l.hb.failures = 0
		return l.renewed(send)
	case r.err == nil:
		_ = l.lose(ReasonNotOwner, l.notOwner(r.foreign))
	case stopped:
	case errors.Is(r.err, redis.ErrClosed):
		// No renewal can be sent any more, which is known at once: lost
		// now, not after MaxRenewFailures periods, as on etcd.
		_ = l.lose(ReasonRenewFailed, &opError{op: l.op("renew"), err: closedCause(r.err)})
		return false
	default:
		err := &opError{op: l.op("renew"), err: r.err}
		l.mu.Lock()
		if l.lastSend != l.hb.failedSince {
			// A renewal sent since the last failure counted here landed,
			// its reply late (lateRenewal): the failures are not
			// consecutive any more.
			l.hb.failures, l.hb.failedSince = 0, l.lastSend
		}
		l.lastErr = err
		l.mu.Unlock()
		l.hb.failures++
		if l.hb.failures >= l.tm.maxFailures {
			_ = l.lose(ReasonRenewFailed, err)
			return false
		}
		l.c.log(l.vals, slog.LevelWarn, "lease renewal failed", l.resource, l.token, "consecutive", l.hb.failures, "err", err)
		l.c.emit(l.vals, Event{Kind: EventRenewFailed, Resource: l.resource, Token: l.token, Err: err, Consecutive: l.hb.failures})
		if f := l.c.opts.observer().OnRenewFailed; f != nil {
			resource, token, n := l.resource, l.token, l.hb.failures
			l.c.notes.Post(func() { f(resource, token, err, n) }, notify.About{Hook: "Observer.OnRenewFailed", Event: string(EventRenewFailed), Resource: resource, Token: int64(token)})
		}
	}
	return !l.over.Load()
}

// extend moves the local deadline after a renewal sent at send succeeded.
// It reports false if the lease had ended.
func (l *Lease) extend(send time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return false
	}
	if send.Before(l.lastSend) {
		return true
	}
	// The deadline timer is not reset here (a timer operation per renewal,
	// per lease): when it fires, onDeadline re-arms it for the moved
	// deadline.
	l.lastSend, l.lastErr = send, nil
	return true
}

// localDeadline returns the local deadline, lastSend + TTL − margin, and
// whether the lease has ended.
func (l *Lease) localDeadline() (at time.Time, ended bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lastSend.Add(l.tm.ttl - l.tm.margin), l.ended
}

// expire loses the lease if its local deadline (from the last successful
// acquire or renew) has passed, and reports whether it has ended; else it
// returns the deadline.
func (l *Lease) expire() (at time.Time, ended bool) {
	l.mu.Lock()
	at = l.lastSend.Add(l.tm.ttl - l.tm.margin)
	if l.ended {
		l.mu.Unlock()
		return at, true
	}
	if until(l.c.clk, at) > 0 {
		l.mu.Unlock()
		return at, false
	}
	err := l.lastErr
	l.mu.Unlock()
	_ = l.lose(ReasonDeadline, err)
	return at, true
}

// armDeadline gives l its own deadline timer, unless it has one or has
// ended.
func (l *Lease) armDeadline() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended || l.deadline != nil {
		return
	}
	l.deadline = l.c.clk.AfterFunc(until(l.c.clk, l.lastSend.Add(l.tm.ttl-l.tm.margin)), l.onDeadline)
}

// onDeadline runs when the lease's own deadline timer fires: the lease is
// lost if its local deadline has passed, else the timer is re-armed for it.
func (l *Lease) onDeadline() {
	at, ended := l.expire()
	if ended {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ended {
		l.deadline.Reset(until(l.c.clk, at))
	}
}

// lose cancels the lease context with a *LostError and returns it; if the
// lease had already ended it returns the existing cause.
func (l *Lease) lose(reason Reason, err error) error {
	return l.loseWith(&LostError{Resource: l.resource, Token: l.token, Reason: reason, Err: err})
}

// loseWith is lose with the *LostError made by the caller.
func (l *Lease) loseWith(lost *LostError) error {
	reason, err := lost.Reason, lost.Err
	l.mu.Lock()
	if l.ended {
		l.mu.Unlock()
		return l.cause
	}
	l.finish(lost)
	l.mu.Unlock()
	l.c.hb.drop(l) // a lost lease is never renewed again
	if err != nil {
		l.c.log(l.vals, slog.LevelWarn, "lease lost", l.resource, l.token, "reason", string(reason), "err", err)
	} else {
		// A loss at the local deadline with no failed renewal before it
		// (the heartbeat disabled, or this process paused): the reason
		// says all, and an err=<nil> would read as a missing cause.
		l.c.log(l.vals, slog.LevelWarn, "lease lost", l.resource, l.token, "reason", string(reason))
	}
	l.c.emit(l.vals, Event{Kind: EventLost, Resource: l.resource, Token: l.token, Err: lost})
	if f := l.c.opts.observer().OnLost; f != nil {
		l.c.notes.Post(func() { f(lost) }, notify.About{Hook: "Observer.OnLost", Event: string(EventLost), Resource: l.resource, Token: int64(l.token)})
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
	l.finish(cause)
}

// endedByRelease reports whether Release ended l while it was valid (its
// context's cause is ErrReleased, not a *LostError).
func (l *Lease) endedByRelease() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended && l.cause == ErrReleased
}

// stopHeartbeat takes l off the heartbeat schedule, gives it its own
// deadline timer (its group no longer watches it), and waits until a
// renewal of l that is in flight (bounded by the larger of CallTimeout and
// HeartbeatInterval) has been applied.
func (l *Lease) stopHeartbeat() {
	ch := l.c.hb.stop(l)
	l.armDeadline()
	if ch != nil {
		<-ch
	}
}

// Release ends the lease. In order, it:
//  1. stops the heartbeat and waits for a renewal in flight, if any, to
//     be applied (at most HeartbeatInterval, or CallTimeout if longer);
//  2. deletes the lock key with one compare-and-delete round trip, which
//     touches the key only if it still holds this lease's owner value;
//  3. cancels the lease context, unless it was already lost (the cause
//     then stays the [*LostError]): with cause [ErrReleased] when the key
//     was deleted, or when the round trip failed or was not sent; with a
//     [*LostError] when the key had been taken from the lease before
//     (missing or another owner's, [ReasonNotOwner] saying which, as a
//     renewal would have; [ReasonDeadline] once the local deadline had
//     passed), so that context.Cause tells a lease released from one
//     lost before its Release, as on etcd.
//
// The lease context stays live during that round trip (at most
// ReleaseTimeout), and [Lease.Err] nil unless the local deadline passes;
// a [Lease.Renew] meanwhile returns ErrReleased without a round trip.
//
// Release honours ctx: the wait for a renewal in flight and the round trip
// are bounded by ctx (and the round trip by Options.ReleaseTimeout too).
// Neither waits for an Observer callback or a Logger handler; before
// returning, Release waits up to 1s for its own events' callbacks to have
// run, not at all while a callback is already slow (see [Observer]). If
// ctx has ended before the round trip, nothing is sent and Release returns
// ctx's error: the lease has still ended locally, the key expires within
// TTL, and a later Release with a live context deletes it. Pass
// context.Background() (or context.WithoutCancel(ctx)) to a deferred
// Release that must run after the caller's context ended; [Client.Do] does.
//
// Returns nil when the key was deleted, or an error wrapping [ErrNotHeld]
// when it was already missing or held by another owner (the lease had
// expired or been taken over, and its cause is that [*LostError]; nothing
// was deleted), with two exceptions, both nil. This lease's own release
// sent twice (a client library retrying after the connection closed)
// whose reply arrives before the lease's local deadline (see
// releasedBefore and "Redis layout" in the package documentation). And a
// lease that was valid when Release was first called (a later call retries
// a release whose round trip failed) whose key the delete found
// missing (not another owner's) with the reply after the local deadline:
// the key expired by its TTL while the release was on its way (a stalled
// Redis or link; with a TTL below about 1.5s the default ReleaseTimeout
// of 1s outlasts what the key has left), so the lease ended while being
// released, the resource is free and nothing of another holder's was
// touched; its context's cause is then the [*LostError] of
// [ReasonDeadline] if the local deadline passed while Release waited,
// else [ErrReleased]. The etcd lease answers the same stall with nil. A
// key deleted by hand before such a stalled release is taken for this
// expiry; one found another owner's is always [ErrNotHeld], since the lease
// may have been taken over before Release was called. A Redis or network error is returned
// wrapped (a [*TimeoutError] when ReleaseTimeout or a go-redis timeout cut
// the call off; ctx's error when ctx ended first); the lease has still ended
// locally ([ErrReleased]), the key expires within TTL, and a later Release tries the delete
// again. Once a call has returned nil or ErrNotHeld, later calls return nil
// without a round trip.
func (l *Lease) Release(ctx context.Context) error {
	defer l.c.sync() // its events and records before it returns
	l.relMu.Lock()
	defer l.relMu.Unlock()
	if l.released {
		return nil
	}
	ch := l.c.hb.stop(l)
	at, ended := l.localDeadline()
	left := until(l.c.clk, at)
	// valid: the lease was valid when Release was first called (for Do:
	// when fn had returned), which decides what a key found gone means
	// below.
	if !l.relCalled {
		l.relCalled, l.relValid = true, !ended && left > 0
	}
	valid := l.relValid
	if !ended && left <= max(l.tm.interval, l.tm.callTimeout)+l.tm.releaseTimeout {
		// The heartbeat no longer watches the deadline, and the context
		// stays live until the release's answer: a deadline that can
		// pass before it gets a timer (one only then: a Release
		// allocates none on the hot path).
		l.armDeadline()
	}
	if ch != nil {
		select {
		case <-ch:
		case <-ctx.Done():
		}
	}
	if err := ctx.Err(); err != nil {
		// Not sent: the key expires within the TTL, or a later Release
		// deletes it.
		l.end(ErrReleased)
		err = &opError{op: l.op("release"), err: err}
		l.c.log(ctx, slog.LevelWarn, "lease release not sent: context ended", l.resource, l.token, "err", err)
		return err
	}
	// The command and the call context share one allocation, made for
	// this call only (an abandoned call may still be writing it out when
	// Release is called again).
	call := new(struct {
		args  [5]any
		owner sentArg
		dc    deadlineCtx
	})
	call.owner.s = l.owner
	rctx, cs, inline := l.c.callContextIn(&call.dc, ctx, time.Time{}, l.tm.releaseTimeout)
	defer cs.stop()
	l.releasing.Store(true)
	deleted, foreign, err := l.c.release(rctx, inline, l, &call.owner, &call.args)
	if err != nil {
		l.end(ErrReleased) // unknown: ended here, the key expires within its TTL
		err = l.c.withDialCause(opFailed(l.op("release"), ctx, rctx, "release", l.tm.releaseTimeout, err))
		msg := "lease release failed"
		if errors.Is(err, ErrClientClosed) && ctxEnded(ctx) == nil {
			// go-redis sends nothing on a closed client: worded as the
			// etcd lease words it (r26 N6).
			msg = "lease release not sent: Redis client closed"
		}
		l.c.log(ctx, slog.LevelWarn, msg, l.resource, l.token, "err", err)
		return err
	}
	l.released = true
	expired := false // the key expired by its TTL while this Release waited
	if !deleted && !l.releasedBefore(call.owner.writes.Load()) {
		if expired = valid && !foreign && l.pastDeadline(); !expired {
			// Taken from the lease before its Release: lost, saying what
			// happened to the key as a renewal would have, had it run
			// first (the etcd lease's watch does; a README-only trial,
			// F2). A key gone after the local deadline passed expired:
			// that is the loss.
			if _, ended := l.expire(); !ended {
				_ = l.lose(ReasonNotOwner, l.notOwner(foreign))
			}
			err = &opError{op: l.op("release"), err: ErrNotHeld}
		}
	}
	l.end(ErrReleased)
	if expired {
		// Valid when Release was called, the key missing (nobody else's)
		// and the reply after the local deadline: the key can have
		// expired by its TTL while the release was on its way (a stalled
		// server or link), so the lease ended while it was being
		// released, with the resource free: released, as on etcd, not
		// "not held" (a README-only trial, t26h F1). A reply before the
		// deadline cannot follow an expiry: the key was taken (ErrNotHeld).
		l.c.log(ctx, slog.LevelDebug, "lease released: its lock key expired while the release was on its way", l.resource, l.token)
	} else {
		l.c.log(ctx, slog.LevelDebug, "lease released", l.resource, l.token, "deleted", deleted)
	}
	l.c.emit(ctx, Event{Kind: EventReleased, Resource: l.resource, Token: l.token, Err: err})
	if f := l.c.opts.observer().OnReleased; f != nil {
		l.c.notes.Post(func() { f(l.resource, l.token, err) }, notify.About{Hook: "Observer.OnReleased", Event: string(EventReleased), Resource: l.resource, Token: int64(l.token)})
	}
	return err
}

// pastDeadline reports whether l's local deadline (the last successful
// acquire or renewal's send + TTL − SafetyMargin) has passed: from then on
// Redis may have expired its lock key by the TTL.
func (l *Lease) pastDeadline() bool {
	at, _ := l.localDeadline()
	return until(l.c.clk, at) <= 0
}

// releasedBefore reports whether a release that found the lock key missing
// or another owner's, written writes times by go-redis, was this lease's
// own release run twice: go-redis wrote it more than once (it sends a
// command again when the connection failed before the reply), and the
// reply came back before the lease's local deadline (the last successful
// acquire or renewal's send + TTL − SafetyMargin). Until that deadline the
// key cannot have expired in Redis, so the earlier write, which reached
// Redis before the reply of the later one, found it and deleted it; a
// lease whose key expired or was taken over after the deadline is not
// recognised (ErrNotHeld). Nothing is written in Redis for this: a release
// costs the server what bsm/redislock's does (issue 26). The one case
// misread is a key deleted by something else (by hand, a failover that
// lost it) before a release whose earlier write never ran (a connection
// that failed first, a cluster redirect): nil, not ErrNotHeld.
func (l *Lease) releasedBefore(writes int32) bool {
	if writes < 2 {
		return false
	}
	at, _ := l.localDeadline()
	return until(l.c.clk, at) > 0
}

// op names an operation on l in errors: `renew "account:42" (token 7)`.
func (l *Lease) op(name string) string {
	return fmt.Sprintf("%s %q (token %d)", name, l.resource, l.token)
}

// lostCause returns the *LostError if the lease was lost, else nil.
func (l *Lease) lostCause() error {
	var lost *LostError
	if err := l.Err(); errors.As(err, &lost) {
		return lost
	}
	return nil
}
