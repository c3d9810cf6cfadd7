package lease

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
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
// error for which errors.Is holds with both [ErrNotAcquired] and ctx.Err(),
// even when ctx ended during an attempt, and which also wraps the last
// attempt's error. Its message is one line:
//
//	lease: acquire "x": not acquired before the context ended: context deadline exceeded (last attempt: held by another owner)
//
// How long after ctx ends: an attempt that ctx cuts off may have landed, and
// Acquire then cleans up before returning (see [Client.Acquire]), so
// AcquireWait can return up to ReleaseTimeout after ctx ended; nothing is
// left held. When its attempts provably never reached Redis (connection
// refused with a single-attempt go-redis client) there is nothing to clean
// up, and it returns as ctx ends.
func (c *Client) AcquireWait(ctx context.Context, resource string, ttl time.Duration) (*Lease, error) {
	tm, err := c.timing(ttl)
	if err != nil {
		return nil, &opError{op: acquireOp(resource), err: err}
	}
	ttl = tm.ttl
	lo, hi := c.opts.retryMin(), c.opts.retryMax(ttl)
	for attempt := 0; ; attempt++ {
		l, err := c.Acquire(ctx, resource, ttl)
		switch {
		case err == nil:
			return l, nil
		case errors.Is(err, ErrConfig), errors.Is(err, ErrInvalidResource):
			return nil, err
		case ctx.Err() != nil:
			return nil, waitEnded(ctx, resource, err)
		}
		ceiling := hi
		if attempt < 30 {
			ceiling = min(hi, lo<<attempt)
		}
		if !sleep(ctx, rand.N(ceiling)) {
			return nil, waitEnded(ctx, resource, err)
		}
	}
}

// errHeld is how AcquireWait's error shows a last attempt that found the
// lease held ([ErrNotAcquired], which the error wraps anyway).
var errHeld = errors.New("held by another owner")

// waitEnded is AcquireWait's error when ctx ends: "lease: acquire <resource>:
// not acquired before the context ended: <ctx.Err()> (last attempt:
// <last>)", matching [ErrNotAcquired], ctx.Err() and the last attempt's
// error. last, Acquire's error, is shown without its "lease: acquire
// <resource>: " part, and without ctx's error when that is what it reports.
func waitEnded(ctx context.Context, resource string, last error) error {
	ended := ctx.Err()
	detail := last
	if oe, ok := last.(*opError); ok {
		detail = oe.err
		if errors.Is(oe.err, ended) {
			detail = oe.detail // Acquire's ctx-ended error: its last attempt
		}
	}
	switch {
	case detail == nil, errors.Is(detail, ended):
		detail = nil
	case errors.Is(detail, ErrNotAcquired):
		detail = errHeld
	}
	return &opError{
		op:     acquireOp(resource),
		err:    fmt.Errorf("%w before the context ended: %w", ErrNotAcquired, ended),
		label:  "last attempt",
		detail: detail,
	}
}
