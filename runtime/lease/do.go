package lease

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fencegen/fencegen/runtime/fence"
)

// Do runs fn while holding the lease on resource, the scoped way to use a
// lease: it acquires the lease without waiting (see [Client.Acquire]; ttl 0
// means Options.TTL), calls fn with a context that is cancelled when either
// ctx or the lease context ends, then releases the lease. Release runs
// however fn ends, including by panic (the panic continues after the
// release) or runtime.Goexit, and never before fn has returned.
//
// Shutdown order (for SIGTERM, cancel ctx, e.g. with signal.NotifyContext):
// fn's context is cancelled at once; the heartbeat keeps the lease for up to
// Options.DrainTimeout while fn drains; if fn is still running then, the
// heartbeat stops so that the lease expires by itself within TTL (it is
// never released while fn runs); when fn returns, the lease is released
// with a compare-and-delete, so the next holder can acquire at once.
//
// Inside fn, context.Cause(ctx) is the [*LostError] when the lease was lost,
// or ctx's own cause when the caller cancelled. If fn returns a
// *fence.StaleError with a stored token above the lease's, Do applies
// [Lease.Observe] to it (the lease is superseded; the fence counter is
// raised above the stored token).
//
// Do returns the Acquire error (for example [ErrNotAcquired]) without
// calling fn, or else fn's error joined with the [*LostError] if the lease
// was lost before fn returned (so work that completed after losing the lease
// is reported as an error, never as success; a Release that finds the key
// gone or taken over counts as such a loss, but not a key that expired by
// its TTL while the release of a lease valid when fn returned was stalled,
// which Release reports as nil, see [Lease.Release]) and with any other
// Release error; when fn returned nil under a lease valid until then and only the
// release call failed, an error wrapping [ErrReleaseUnconfirmed] and the
// release's error: the job is done, do not re-run it; the lock expires
// within its TTL. When fn's error is itself the *fence.StaleError by which Observe
// found the lease superseded, Do returns the [*LostError] alone, which
// wraps it: one message, and errors.Is(err, fence.ErrStaleToken) and
// errors.Is(err, ErrLost) both hold. A nil fn is an error wrapping [ErrConfig], returned before
// anything is acquired.
func (c *Client) Do(ctx context.Context, resource string, ttl time.Duration, fn func(ctx context.Context, token fence.Token) error) (err error) {
	if fn == nil {
		return nilFn(resource)
	}
	l, err := c.Acquire(ctx, resource, ttl)
	if err != nil {
		return err
	}
	return c.hold(ctx, l, fn)
}

// nilFn is the error of Do and DoWait called without a function.
func nilFn(resource string) error {
	return &opError{op: fmt.Sprintf("do %q", resource), err: fmt.Errorf("%w: fn is nil", ErrConfig)}
}

// DoWait is [Client.Do] with [Client.AcquireWait]: it waits, bounded by
// ctx, for the lease instead of returning [ErrNotAcquired].
func (c *Client) DoWait(ctx context.Context, resource string, ttl time.Duration, fn func(ctx context.Context, token fence.Token) error) (err error) {
	if fn == nil {
		return nilFn(resource)
	}
	l, err := c.AcquireWait(ctx, resource, ttl)
	if err != nil {
		return err
	}
	return c.hold(ctx, l, fn)
}

func (c *Client) hold(ctx context.Context, l *Lease, fn func(ctx context.Context, token fence.Token) error) error {
	return Hold(ctx, l, c.opts.drainTimeout(l.tm.ttl), l.stopHeartbeat, fn)
}

// Hold is the body of Do and DoWait for a lease l already acquired, by any
// coordinator (the Redis [Client.Do] and etcdlease's Client.Do both run
// it): it calls fn with l's token and a context cancelled when either ctx
// or l's context ends (its cause is the [*LostError] when the lease was
// lost, or ctx's own cause), and releases l however fn ends, including by
// panic or runtime.Goexit, never before fn has returned.
//
// drain is how long the heartbeat keeps l after ctx ends while fn is still
// running; then stopHeartbeat is called (it must stop l's renewals and
// return), so that l expires by itself within its TTL if fn ignores its
// context. A negative or zero drain stops the heartbeat as soon as ctx
// ends.
//
// Hold returns fn's error after [Held.Observe], joined with the
// *LostError if l was lost before fn returned (a Release that returns
// [ErrNotHeld] counts as such a loss) and with any other Release error.
// When fn returned nil and l was valid until then, a Release error
// alone is returned wrapping [ErrReleaseUnconfirmed]: the job is done.
// When fn's error is itself the error by which Observe found l superseded,
// the *LostError, which wraps it, is returned alone.
func Hold(ctx context.Context, l Held, drain time.Duration, stopHeartbeat func(), fn func(ctx context.Context, token fence.Token) error) (err error) {
	work, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(l.Context(), func() { cancel(context.Cause(l.Context())) })
	stopDrain := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(drain, stopHeartbeat)
		context.AfterFunc(l.Context(), func() { t.Stop() })
	})
	returned := false
	defer func() {
		stop()
		stopDrain()
		if returned {
			err = l.Observe(ctx, err)
		}
		var lost *LostError
		if !errors.As(l.Err(), &lost) {
			lost = nil
		}
		cancel(context.Canceled)
		relErr := l.Release(context.WithoutCancel(ctx)) // also after ctx ended (shutdown)
		if !returned {
			return // panicking or Goexit: the lease is released, let it continue
		}
		if lost == nil && errors.Is(relErr, ErrNotHeld) {
			// Lost before fn returned, though the heartbeat had not
			// noticed: Release found out, and its cause says how.
			if !errors.As(l.Err(), &lost) {
				lost = &LostError{Resource: l.Resource(), Token: l.Token(), Reason: ReasonNotOwner, Err: ErrNotOwner}
			}
		}
		var lostErr error
		if lost != nil {
			lostErr = lost
			if errors.Is(relErr, ErrNotHeld) {
				relErr = nil
			}
			if errors.Is(err, ErrLost) {
				lostErr = nil // fn already returned the cause
			} else if lost.Err != nil && lost.Err == err {
				// Observe found fn's own stale-token error superseding the
				// lease: the *LostError wraps it (errors.Is and errors.As
				// still find it), and repeating it would print it twice.
				err = nil
			}
		}
		if err == nil && lostErr == nil && relErr != nil {
			// fn's work is done under a valid lease: only the lock
			// lingers until its TTL (trial t26 F6).
			err = releaseUnconfirmed{relErr}
			return
		}
		err = errors.Join(err, lostErr, relErr)
	}()
	err = fn(work, l.Token())
	returned = true
	return err
}
