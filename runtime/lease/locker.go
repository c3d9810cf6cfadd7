package lease

import (
	"context"
	"time"

	"github.com/fencegen/fencegen/runtime/fence"
)

// Held is one acquisition of a resource, whatever coordinator granted it:
// [*Lease] (Redis) and *etcdlease.Lease (etcd) both implement it, with the
// same meaning for every method (see [Lease]).
type Held interface {
	Token() fence.Token
	Resource() string
	TTL() time.Duration
	Context() context.Context
	Done() <-chan struct{}
	Err() error
	Remaining() time.Duration
	Renew(ctx context.Context) error
	Release(ctx context.Context) error
	Observe(ctx context.Context, err error) error
}

// Locker is the lease client a worker is written against, L being the
// coordinator's lease type: [*Client] is a Locker[*Lease], and
// *etcdlease.Client a Locker[*etcdlease.Lease]. A worker written as
//
//	func run[L lease.Held](ctx context.Context, locker lease.Locker[L]) error
//
// switches coordinator by changing how its Locker is constructed, nothing
// else. Every method returns the same sentinel errors ([ErrNotAcquired],
// [ErrLost], [ErrNotHeld], ...) on both.
type Locker[L Held] interface {
	Acquire(ctx context.Context, resource string, ttl time.Duration) (L, error)
	AcquireWait(ctx context.Context, resource string, ttl time.Duration) (L, error)
	Do(ctx context.Context, resource string, ttl time.Duration, fn func(ctx context.Context, token fence.Token) error) error
	DoWait(ctx context.Context, resource string, ttl time.Duration, fn func(ctx context.Context, token fence.Token) error) error
}

var _ Locker[*Lease] = (*Client)(nil)
