package lease

import (
	"context"
	"errors"
	"time"

	"github.com/fencegen/fencegen/runtime/fence"
)

// Do runs fn while holding the lease on resource: it acquires the lease
// (see [Client.Acquire]; ttl 0 means Options.TTL), calls fn with a context
// that is cancelled when either ctx or the lease context ends, then releases
// the lease. Release runs however fn ends, including by panic (the panic
// continues after the release) or runtime.Goexit.
//
// Inside fn, context.Cause(ctx) is the [*LostError] when the lease was lost,
// or ctx's own cause when the caller cancelled.
//
// Do returns the Acquire error (for example [ErrNotAcquired]) without
// calling fn, or else fn's error joined with the [*LostError] if the lease
// was lost before fn returned (so work that completed after losing the lease
// is reported as an error, never as success) and with the Release error
// other than [ErrNotHeld] after a loss.
func (c *Client) Do(ctx context.Context, resource string, ttl time.Duration, fn func(ctx context.Context, token fence.Token) error) (err error) {
	l, err := c.Acquire(ctx, resource, ttl)
	if err != nil {
		return err
	}
	work, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(l.Context(), func() { cancel(context.Cause(l.Context())) })
	returned := false
	defer func() {
		stop()
		lost := l.lostCause()
		cancel(context.Canceled)
		relErr := l.Release(ctx)
		if !returned {
			return // panicking or Goexit: the lease is released, let it continue
		}
		if lost != nil {
			if errors.Is(relErr, ErrNotHeld) {
				relErr = nil
			}
			if errors.Is(err, ErrLost) {
				lost = nil // fn already returned the cause
			}
		}
		err = errors.Join(err, lost, relErr)
	}()
	err = fn(work, l.Token())
	returned = true
	return err
}
