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
// It returns at once on [ErrConfig] and [ErrInvalidResource]. When ctx ends
// it returns an error for which errors.Is holds with both [ErrNotAcquired]
// and ctx.Err(), even when ctx ended during an attempt (that attempt's
// possibly-landed request is cleaned up by Acquire, so nothing is held), and
// which also wraps the last attempt's error.
func (c *Client) AcquireWait(ctx context.Context, resource string, ttl time.Duration) (*Lease, error) {
	tm, err := c.timing(ttl)
	if ttl == 0 {
		ttl = tm.ttl
	}
	if err != nil {
		return nil, fmt.Errorf("lease: acquire %q: %w", resource, err)
	}
	lo, hi := c.opts.retryMin(), c.opts.retryMax(ttl)
	for attempt := 0; ; attempt++ {
		l, err := c.Acquire(ctx, resource, ttl)
		switch {
		case err == nil:
			return l, nil
		case errors.Is(err, ErrConfig), errors.Is(err, ErrInvalidResource):
			return nil, err
		case ctx.Err() != nil:
			return nil, waitEnded(ctx, err)
		}
		ceiling := hi
		if attempt < 30 {
			ceiling = min(hi, lo<<attempt)
		}
		if !sleep(ctx, rand.N(ceiling)) {
			return nil, waitEnded(ctx, err)
		}
	}
}

// waitEnded is AcquireWait's error when ctx ends: always [ErrNotAcquired] and
// ctx.Err(), plus the last attempt's error.
func waitEnded(ctx context.Context, last error) error {
	errs := []error{last}
	if !errors.Is(last, ErrNotAcquired) {
		errs = append(errs, ErrNotAcquired)
	}
	if !errors.Is(last, ctx.Err()) {
		errs = append(errs, ctx.Err())
	}
	return errors.Join(errs...)
}
