package etcdlease

import (
	"context"
	"fmt"
	"time"

	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
)

// Do runs fn while holding the lease on resource, as the Redis lease's
// Client.Do does: Acquire without waiting (lease.ErrNotAcquired if held),
// fn's context cancelled when ctx or the lease ends, a *fence.StaleError
// from fn passed through [Lease.Observe], and Release however fn ends
// (also by panic), never before fn returned. When ctx ends while fn runs,
// the heartbeat keeps the lease for up to DrainTimeout (default TTL/2)
// and then stops, so the
// lease expires by itself if fn ignores its context. Do returns fn's
// error joined with the *lease.LostError when the lease was lost before
// fn returned (a Release that finds the key gone counts as lost), and
// with any other Release error; when fn returned nil under a lease valid
// until then and only the release call failed (a *TimeoutError, the
// client closed), an error wrapping lease.ErrReleaseUnconfirmed: the job
// is done, do not re-run it; the etcd lease expires within its TTL.
func (c *Client) Do(ctx context.Context, resource string, ttl time.Duration, fn func(ctx context.Context, token fence.Token) error) error {
	if fn == nil {
		return &opError{op: fmt.Sprintf("do %q", resource), err: fmt.Errorf("%w: fn is nil", lease.ErrConfig)}
	}
	l, err := c.Acquire(ctx, resource, ttl)
	if err != nil {
		return err
	}
	return c.hold(ctx, l, fn)
}

// DoWait is [Client.Do] with [Client.AcquireWait].
func (c *Client) DoWait(ctx context.Context, resource string, ttl time.Duration, fn func(ctx context.Context, token fence.Token) error) error {
	if fn == nil {
		return &opError{op: fmt.Sprintf("do %q", resource), err: fmt.Errorf("%w: fn is nil", lease.ErrConfig)}
	}
	l, err := c.AcquireWait(ctx, resource, ttl)
	if err != nil {
		return err
	}
	return c.hold(ctx, l, fn)
}

// hold keeps the lease for DrainTimeout after ctx ends while fn runs.
func (c *Client) hold(ctx context.Context, l *Lease, fn func(ctx context.Context, token fence.Token) error) error {
	return lease.Hold(ctx, l, l.tm.drain, l.stopHeartbeat, fn)
}
