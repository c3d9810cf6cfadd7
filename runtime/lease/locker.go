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
// [ErrLost], [ErrNotHeld], [ErrTimeout], [ErrClientClosed], ...) on both.
type Locker[L Held] interface {
	Acquire(ctx context.Context, resource string, ttl time.Duration) (L, error)
	AcquireWait(ctx context.Context, resource string, ttl time.Duration) (L, error)
	Do(ctx context.Context, resource string, ttl time.Duration, fn func(ctx context.Context, token fence.Token) error) error
	DoWait(ctx context.Context, resource string, ttl time.Duration, fn func(ctx context.Context, token fence.Token) error) error
}

var _ Locker[*Lease] = (*Client)(nil)

// Doer is the part of [Locker] whose signatures do not name the lease
// type: Do and DoWait, which hand fn the fencing token and release the
// lease themselves. [*Client] and *etcdlease.Client are both Doers, so a
// worker that only runs work under a lease can hold either in one field
// of this plain (not generic) interface, the coordinator chosen at run
// time from configuration:
//
//	var locker lease.Doer = lease.New(rdb, nil)
//	if cfg.Coordinator == "etcd" {
//		locker = etcdlease.New(cli, nil)
//	}
//
// A worker that holds the lease itself (Acquire, Renew, Release) is
// written against Locker[L] and instantiated once per coordinator in the
// same branch.
type Doer interface {
	Do(ctx context.Context, resource string, ttl time.Duration, fn func(ctx context.Context, token fence.Token) error) error
	DoWait(ctx context.Context, resource string, ttl time.Duration, fn func(ctx context.Context, token fence.Token) error) error
}

var _ Doer = (*Client)(nil)

// Coordinator is the whole client surface the two coordinators share:
// [Locker] plus the start-up probe, the recovery of a regressed token and
// the call counters. [*Client] is a Coordinator[*Lease], and
// *etcdlease.Client a Coordinator[*etcdlease.Lease] (both checked at
// compile time), so a program that also calls Check, Advance or Stats
// switches coordinator by its construction alone:
//
//   - Check(ctx) is the start-up probe: nil, an error wrapping
//     [ErrConfig] (options, permissions: fix and restart), or errors
//     wrapping [ErrUnsafeConfig] (the server can lose lease state: log and
//     go on), never both in one error; else a server or context error.
//   - Advance(ctx, resource, atLeast) makes the next Acquire of resource
//     mint a token above atLeast and returns a value, at least atLeast,
//     that the next token exceeds (Redis: raises the counter and returns
//     it; etcd: raises the base added to revisions).
//   - Stats() counts acquire calls, renewals and releases sent.
//   - Keys(resource) returns the lock key and the key that orders tokens
//     (Redis: the counter; etcd: the base).
type Coordinator[L Held] interface {
	Locker[L]
	Check(ctx context.Context) error
	Advance(ctx context.Context, resource string, atLeast fence.Token) (fence.Token, error)
	Stats() Stats
	Keys(resource string) (lock, counter string)
}

var _ Coordinator[*Lease] = (*Client)(nil)
