package etcdlease

import (
	"context"
	"errors"
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
// the heartbeat keeps the lease for up to TTL/2 and then stops, so the
// lease expires by itself if fn ignores its context. Do returns fn's
// error joined with the *lease.LostError when the lease was lost before
// fn returned (a Release that finds the key gone counts as lost), and
// with any other Release error.
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

func (c *Client) hold(ctx context.Context, l *Lease, fn func(ctx context.Context, token fence.Token) error) (err error) {
	work, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(l.Context(), func() { cancel(context.Cause(l.Context())) })
	drain := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(l.tm.ttl/2, l.stopHeartbeat)
		context.AfterFunc(l.Context(), func() { t.Stop() })
	})
	returned := false
	defer func() {
		stop()
		drain()
		if returned {
			err = l.Observe(ctx, err)
		}
		lost := l.lostCause()
		cancel(context.Canceled)
		relErr := l.Release(context.WithoutCancel(ctx))
		if !returned {
			return
		}
		if lost == nil && errors.Is(relErr, lease.ErrNotHeld) {
			lost = &lease.LostError{Resource: l.resource, Token: l.token, Reason: lease.ReasonNotOwner, Err: lease.ErrNotOwner}
		}
		if lost != nil {
			if errors.Is(relErr, lease.ErrNotHeld) {
				relErr = nil
			}
			if errors.Is(err, lease.ErrLost) {
				lost = nil
			} else if le := lost.(*lease.LostError); le.Err != nil && le.Err == err {
				err = nil
			}
		}
		err = errors.Join(err, lost, relErr)
	}()
	err = fn(work, l.Token())
	returned = true
	return err
}
