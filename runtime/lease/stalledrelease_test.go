package lease

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/runtime/fence"
)

// waitUntil polls cond every 10ms until it holds, failing t after 30s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting after 30s for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A release that stalls (a stalled link here: the proxy holds every byte
// to Redis) until the lock key has expired by its TTL, on a lease that was
// valid when Release was called (for Do: when fn returned): with a TTL
// below about 1.5s the default ReleaseTimeout of 1s outlasts what the key
// has left, so a short stall does this (a README-only trial, t26h F1).
// The key is gone, nobody else holds the resource, and the job finished
// under a valid lease: Release and Do return nil, as on etcd, not
// ErrNotHeld and ErrLost. When another owner took the resource after the
// expiry, before the delete ran, Release still says ErrNotHeld and Do
// ErrLost, and nothing of the other owner's is deleted.
func TestReleaseStalledPastTheKeysExpiry(t *testing.T) {
	for _, tc := range []struct {
		name  string
		do    bool // through Do, else Acquire and Release
		taken bool // another owner takes the resource during the stall
	}{
		{"Release", false, false},
		{"Do", true, false},
		{"Release/taken", false, true},
		{"Do/taken", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := faults.StartRedis(t, faults.RedisOptions{})
			p := faults.StartProxy(t, r.Addr())
			// The heartbeat off (no renewal in flight to wait for), and a
			// long ReleaseTimeout and no go-redis read timeout: what
			// decides is where the release's reply falls, not how long
			// the stall is.
			rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), ContextTimeoutEnabled: true, ReadTimeout: -1})
			t.Cleanup(func() { _ = rdb.Close() })
			c := New(rdb, &Options{HeartbeatInterval: -1, ReleaseTimeout: time.Minute})
			const res, ttl = "stalled", 2 * time.Second
			lockKey, _ := c.Keys(res)
			var other *Lease
			l := mustAcquire(t, c, res, ttl)
			stalled := func() {
				// Redis expires the key, and the release's bytes, held
				// in the proxy meanwhile, arrive after that.
				waitUntil(t, "the release to be sent", l.releasing.Load)
				waitUntil(t, "the lock key to expire", func() bool { return r.Admin().Exists(bg, lockKey).Val() == 0 })
				if tc.taken {
					other = mustAcquire(t, New(r.Client(nil), nil), res, time.Minute)
					t.Cleanup(func() { _ = other.Release(bg) })
				}
				p.Blackhole(faults.Upstream, false)
			}
			done := make(chan error, 1)
			if tc.do {
				// Do is Acquire, then hold.
				go func() {
					done <- c.hold(bg, l, func(ctx context.Context, _ fence.Token) error {
						if err := context.Cause(ctx); err != nil {
							t.Errorf("lease not valid when fn returned: %v", err)
						}
						p.Blackhole(faults.Upstream, true)
						return nil
					})
				}()
			} else {
				p.Blackhole(faults.Upstream, true)
				go func() { done <- l.Release(bg) }()
			}
			stalled()
			err := <-done
			if tc.taken {
				want := ErrNotHeld
				if tc.do {
					want = ErrLost
				}
				if !errors.Is(err, want) {
					t.Fatalf("err = %v, want %v: another owner took the resource before the delete ran", err, want)
				}
				if v := r.Admin().Get(bg, lockKey).Val(); v != other.value {
					t.Fatalf("lock key %q, want the other owner's %q", v, other.value)
				}
				var lost *LostError
				if cause := context.Cause(l.Context()); !errors.As(cause, &lost) {
					t.Fatalf("cause %v, want a *LostError", cause)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v, want nil: the job finished under a valid lease and the key expired during the release, nobody else holding it", err)
			}
			if cause := context.Cause(l.Context()); errors.Is(cause, ErrNotOwner) {
				t.Fatalf("cause %v: the lease reads as taken over", cause)
			}
			if err := l.Release(bg); err != nil {
				t.Fatalf("second Release = %v, want nil", err)
			}
		})
	}
}

// A Release whose round trip timed out during a stall (ReleaseTimeout
// shorter than the stall), called again once the key has expired by its
// TTL: the lease was valid when Release was first called and nobody else
// holds the resource, so the retry returns nil, not ErrNotHeld.
func TestReleaseRetriedAfterTheKeyExpiredDuringItsStall(t *testing.T) {
	r := faults.StartRedis(t, faults.RedisOptions{})
	p := faults.StartProxy(t, r.Addr())
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), ContextTimeoutEnabled: true, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	c := New(rdb, &Options{HeartbeatInterval: -1, ReleaseTimeout: 100 * time.Millisecond})
	l := mustAcquire(t, c, "stalled", 2*time.Second)
	lockKey, _ := c.Keys("stalled")
	p.Blackhole(faults.Upstream, true)
	if err := l.Release(bg); !errors.Is(err, ErrTimeout) {
		t.Fatalf("Release through a stalled link = %v, want a timeout", err)
	}
	waitUntil(t, "the lock key to expire", func() bool { return r.Admin().Exists(bg, lockKey).Val() == 0 })
	p.Blackhole(faults.Upstream, false)
	if err := l.Release(bg); err != nil {
		t.Fatalf("Release again after the key expired during the first one's stall = %v, want nil", err)
	}
}
