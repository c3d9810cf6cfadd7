package lease

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// AcquireWait takes the lease on resource like [Client.Acquire], but when it
// is held by another owner, or an attempt failed transiently, it waits and
// tries again until it succeeds or ctx ends. ctx bounds the whole wait (and
// not the lease's lifetime). Attempt n sleeps a uniformly random duration in
// [0, min(RetryMax, RetryMin·2ⁿ)) ("full jitter"), so waiters spread out
// instead of retrying in lockstep.
//
// It returns at once on [ErrConfig] (including a TTL below the minimum the
// options allow) and [ErrInvalidResource]. When ctx ends it returns an
// error that matches ctx.Err() (errors.Is), even when ctx ended during an
// attempt, and also wraps the last attempt's error; it matches
// [ErrNotAcquired] only if the last attempt that got an answer found the
// lease held by another owner. After nothing but timeouts, refused
// connections or other failures (Redis never said who holds it) the error
// does not match ErrNotAcquired, so "someone else holds it" is never
// inferred from an outage: it matches the last failure instead, e.g.
// [ErrRedisTimeout]. Its message is one line:
//
//	lease: acquire "x": not acquired before the context ended: context deadline exceeded (last attempt: held by another owner)
//	lease: acquire "x": no answer from Redis before the context ended: context deadline exceeded (last attempt: Redis acquire call timed out after 167ms)
//
// How long after ctx ends: an attempt that ctx cuts off may have landed, and
// Acquire then cleans up (see [Client.Acquire]) on a context of its own,
// bounded by ReleaseTimeout, so AcquireWait can return up to ReleaseTimeout
// after ctx ended; nothing is left held.
func (c *Client) AcquireWait(ctx context.Context, resource string, ttl time.Duration) (*Lease, error) {
	tm, err := c.timing(ttl)
	if err != nil {
		return nil, &opError{op: acquireOp(resource), err: err}
	}
	ttl = tm.ttl
	lo, hi := c.opts.retryMin(), c.opts.retryMax(ttl)
	// answered is the error of the last attempt that Redis answered or
	// that failed on its own (not merely cut off by ctx); held says it
	// found the lease held.
	var answered error
	for attempt := 0; ; attempt++ {
		l, err := c.Acquire(ctx, resource, ttl)
		switch {
		case err == nil:
			return l, nil
		case errors.Is(err, ErrConfig), errors.Is(err, ErrInvalidResource), errors.Is(err, ErrClientClosed) && ctx.Err() == nil:
			// No retry can fix these; a closed client cannot reopen.
			return nil, err
		}
		if d := attemptError(ctx, err); d != nil {
			answered = d
		}
		if ctx.Err() != nil {
			return nil, c.waitEnded(ctx, resource, answered)
		}
		ceiling := hi
		if attempt < 30 {
			ceiling = min(hi, lo<<attempt)
		}
		if !sleepOn(ctx, c.clk, c.clk.N(ceiling)) {
			return nil, c.waitEnded(ctx, resource, answered)
		}
	}
}

// attemptError is what Acquire's error err says about Redis: err without
// its "lease: acquire <resource>: " part, its last attempt's error when it
// reports ctx's end, or nil when the attempt was only cut off by ctx.
func attemptError(ctx context.Context, err error) error {
	ended := ctx.Err()
	detail := err
	if oe, ok := err.(*opError); ok {
		detail = oe.err
		if ended != nil && errors.Is(oe.err, ended) {
			detail = oe.detail
		}
	}
	if detail == nil || (ended != nil && errors.Is(detail, ended)) {
		return nil
	}
	return detail
}

// errHeld is how AcquireWait's error shows a last attempt that found the
// lease held ([ErrNotAcquired], which the error wraps anyway).
var errHeld = errors.New("held by another owner")

// waitEnded is AcquireWait's error when ctx ends, given the error of the
// last attempt that got an answer or failed on its own (nil if none did):
// "lease: acquire <resource>: not acquired before the context ended:
// <ctx.Err()> (last attempt: held by another owner)", matching
// [ErrNotAcquired], when that attempt found the lease held; otherwise "...:
// no answer from Redis before the context ended: <ctx.Err()> (last
// attempt: <last>)", matching ctx.Err() and last but not ErrNotAcquired,
// where the words before "before" say what last was (see noLeaseBecause).
// With no such attempt, last is the dial error of a Redis that refuses
// connections (see dialFailure), if it does.
func (c *Client) waitEnded(ctx context.Context, resource string, last error) error {
	ended := ctx.Err()
	if last == nil {
		last = c.dialFailure()
	}
	if errors.Is(last, ErrNotAcquired) {
		return &opError{
			op:     acquireOp(resource),
			err:    fmt.Errorf("%w before the context ended: %w", ErrNotAcquired, ended),
			label:  "last attempt",
			detail: errHeld,
		}
	}
	return &opError{
		op:     acquireOp(resource),
		err:    fmt.Errorf("%s before the context ended: %w", noLeaseBecause(last), ended),
		label:  "last attempt",
		detail: last,
	}
}

// noLeaseBecause says in a few words why the last attempt, which failed
// with last, got no lease: Redis did not answer (a timeout, a transport
// error, or none), or it answered: with an error reply (LOADING,
// READONLY, ...), without the replicas' acknowledgement
// ([ErrNotReplicated]), or too late ([ErrAcquireTooSlow]).
func noLeaseBecause(last error) string {
	var rerr redis.Error
	switch {
	case errors.Is(last, ErrNotReplicated):
		return "not acknowledged by the replicas"
	case errors.Is(last, ErrAcquireTooSlow):
		return "no reply in time"
	case errors.As(last, &rerr):
		return "refused by Redis"
	}
	return "no answer from Redis"
}
