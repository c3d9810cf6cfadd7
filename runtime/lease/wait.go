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
// it returns the last attempt's error (e.g. [ErrNotAcquired]) joined with
// ctx.Err(), so test for both with errors.Is.
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
			if errors.Is(err, ctx.Err()) {
				return nil, err
			}
			return nil, errors.Join(err, ctx.Err())
		}
		ceiling := hi
		if attempt < 30 {
			ceiling = min(hi, lo<<attempt)
		}
		if !sleep(ctx, rand.N(ceiling)) {
			return nil, errors.Join(err, ctx.Err())
		}
	}
}
