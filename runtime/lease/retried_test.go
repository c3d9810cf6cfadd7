package lease

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/runtime/fence"
)

// Issue 12, class 3: the connection closes after the release script ran;
// go-redis with its default retries sends it again, and the second
// compare-and-delete finds the key gone. That is this owner's own release,
// not a lost lease: Release returns nil and Do reports no loss.
func TestReleaseResentByClientRetryIsNotNotHeld(t *testing.T) {
	r := faults.StartRedis(t, faults.RedisOptions{})
	p := faults.StartProxy(t, r.Addr())
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr()}) // go-redis defaults: MaxRetries 3
	t.Cleanup(func() { _ = rdb.Close() })
	c := New(rdb, nil)
	if err := c.Check(bg); err != nil && !errors.Is(err, ErrUnsafeConfig) {
		t.Fatal(err)
	}

	l := mustAcquire(t, c, "res", 2*time.Second)
	closed := p.CloseAfterReply([]byte(releaseScript.Hash()), 1)
	if err := l.Release(bg); err != nil {
		t.Fatalf("Release after a retried compare-and-delete: %v", err)
	}
	if closed() != 1 {
		t.Fatalf("the proxy closed %d connections after the release, want 1: the fault did not happen", closed())
	}
	if calls := r.CommandCalls()["evalsha"]; calls < 3 { // acquire, release, release again
		t.Fatalf("evalsha calls = %d: the release was not sent twice", calls)
	}
	if v, _ := r.Admin().Get(bg, "fencegen:{res}:lock").Result(); v != "" {
		t.Fatalf("lock key still %q", v)
	}

	// The same through Do: no loss reported.
	p.CloseAfterReply([]byte(releaseScript.Hash()), 1)
	err := c.Do(bg, "res", 2*time.Second, func(ctx context.Context, _ fence.Token) error { return nil })
	if err != nil {
		t.Fatalf("Do: %v", err)
	}

	// A release whose key expired unreleased is still ErrNotHeld.
	l = mustAcquire(t, c, "res", 2*time.Second)
	r.Del("fencegen:{res}:lock")
	if err := l.Release(bg); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Release of a vanished key = %v, want ErrNotHeld", err)
	}
}

// dialHook runs before, when set, before each dial of the client it is
// added to.
type dialHook struct{ before func() }

func (h dialHook) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		h.before()
		return next(ctx, network, addr)
	}
}
func (dialHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (dialHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// Class 3 under contention: the release ran, the connection closed before
// its reply, and before go-redis sends it again (on a new connection)
// another owner takes the lock, which rewrites :minted. The resend is
// still this owner's own completed release: Release returns nil (the
// :released record names it), and the new owner's lock is untouched. Under
// both go-redis configurations, retries on.
func TestReleaseResentAfterAnotherOwnerTookTheLockIsNotNotHeld(t *testing.T) {
	for _, cte := range []bool{false, true} {
		t.Run(fmt.Sprintf("ContextTimeoutEnabled=%v", cte), func(t *testing.T) {
			r := faults.StartRedis(t, faults.RedisOptions{})
			p := faults.StartProxy(t, r.Addr())
			rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), ContextTimeoutEnabled: cte}) // MaxRetries 3
			t.Cleanup(func() { _ = rdb.Close() })
			other := New(r.Client(nil), nil)
			var armed atomic.Bool
			var taken *Lease
			var takeErr error
			rdb.AddHook(dialHook{before: func() {
				if armed.CompareAndSwap(true, false) {
					taken, takeErr = other.Acquire(bg, "res", 2*time.Second)
				}
			}})
			c := New(rdb, nil)
			if err := c.Check(bg); err != nil && !errors.Is(err, ErrUnsafeConfig) { // loads the scripts
				t.Fatal(err)
			}
			l := mustAcquire(t, c, "res", 2*time.Second)
			armed.Store(true)
			closed := p.CloseAfterReply([]byte(releaseScript.Hash()), 1)
			err := l.Release(bg)
			if closed() != 1 || taken == nil {
				t.Fatalf("the fault did not happen: %d connections closed after the release, dialled again %v, other owner's Acquire: %v", closed(), !armed.Load(), takeErr)
			}
			defer taken.Release(bg)
			if err != nil {
				t.Fatalf("Release resent after another owner took the lock: %v", err)
			}
			if v := r.Admin().Get(bg, "fencegen:{res}:lock").Val(); v != taken.value {
				t.Fatalf("lock key = %q, want the other owner's %q", v, taken.value)
			}
			if err := taken.Err(); err != nil {
				t.Fatalf("the other owner's lease ended: %v", err)
			}
		})
	}
}

// The acquire's first attempt ran, the connection closed before its reply,
// and go-redis sent it again (MaxRetries): the second write found the key
// holding this owner and returned the same token. The first write could
// as well have been held up (a stalled server or socket) and arrive after
// the lease is released, where, with the lock key free, it would lock the
// resource for a TTL with nobody holding it. Acquire sees the owner
// written twice (sentArg), so Release sets the owner's abandon mark and
// lists it in :minted, as the cleanup of a failed Acquire does: that write
// replayed after the Release writes nothing. Without the count, Release
// sets no mark and the replayed write takes the lock.
func TestAcquireWrittenTwiceReleaseLeavesTheMark(t *testing.T) {
	r := faults.StartRedis(t, faults.RedisOptions{})
	p := faults.StartProxy(t, r.Addr())
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), ContextTimeoutEnabled: true}) // MaxRetries 3
	t.Cleanup(func() { _ = rdb.Close() })
	c := New(rdb, nil)
	if err := c.Check(bg); err != nil && !errors.Is(err, ErrUnsafeConfig) { // loads the scripts
		t.Fatal(err)
	}
	closed := p.CloseAfterReply([]byte(acquireScript.Hash()), 1)
	l := mustAcquire(t, c, "res", 2*time.Second)
	if closed() != 1 {
		t.Fatalf("the proxy closed %d connections after the acquire, want 1: the fault did not happen", closed())
	}
	if got := r.Admin().Get(bg, "fencegen:{res}:token").Val(); got != l.Token().String() {
		t.Fatalf("counter = %s, lease token %d: the second write minted again", got, l.Token())
	}
	if err := l.Release(bg); err != nil {
		t.Fatalf("Release: %v", err)
	}
	lockKey := "fencegen:{res}:lock"
	if n := r.Admin().Exists(bg, abandonKey(lockKey, l.owner)).Val(); n != 1 {
		t.Fatalf("the Release of a lease whose acquire was written twice left no abandon mark")
	}
	// The first write, replayed now: the hot path's three keys.
	n, err := acquireScript.Run(bg, r.Admin(), []string{lockKey, "fencegen:{res}:token", mintKey(lockKey)}, l.owner, 2000).Int64()
	if err != nil || n != -2 {
		t.Fatalf("the acquire's first write replayed after the Release = %d, %v; want -2", n, err)
	}
	if v := r.Admin().Get(bg, lockKey).Val(); v != "" {
		t.Fatalf("the replayed first write locked the released resource (%q)", v)
	}
}

// A release resent by go-redis is taken for this lease's own earlier run
// only while the lease's local deadline has not passed when the reply
// arrives (Lease.releasedBefore): until then the key cannot have expired in
// Redis, so the earlier write found it. Here the resend is held until after
// the deadline (in the dial of its new connection): the earlier write may
// then have found the key expired and another owner's. When the resend
// finds the key another owner's, the release is reported as ErrNotHeld, as
// a lease lost before its release is. When it finds the key missing, the
// lease, valid when Release was called, ended during its release with the
// resource free, whichever write deleted the key or whether it expired:
// nil (see Lease.Release; a README-only trial, t26h F1).
func TestReleaseResentAfterTheDeadlineIsNotHeld(t *testing.T) {
	for _, taken := range []bool{true, false} {
		t.Run(map[bool]string{true: "taken", false: "missing"}[taken], func(t *testing.T) {
			r := faults.StartRedis(t, faults.RedisOptions{})
			p := faults.StartProxy(t, r.Addr())
			rdb := redis.NewClient(&redis.Options{Addr: p.Addr()}) // MaxRetries 3
			t.Cleanup(func() { _ = rdb.Close() })
			const ttl = 300 * time.Millisecond
			var armed atomic.Bool
			var l, other *Lease
			rdb.AddHook(dialHook{before: func() {
				if armed.CompareAndSwap(true, false) {
					at, _ := l.localDeadline()
					time.Sleep(time.Until(at) + 20*time.Millisecond)
					if taken {
						other = mustAcquire(t, New(r.Client(nil), nil), "res", time.Minute)
					}
				}
			}})
			c := New(rdb, &Options{TTL: ttl, ReleaseTimeout: 2 * time.Second})
			if err := c.Check(bg); err != nil && !errors.Is(err, ErrUnsafeConfig) { // loads the scripts
				t.Fatal(err)
			}
			l = mustAcquire(t, c, "res", ttl)
			armed.Store(true)
			closed := p.CloseAfterReply([]byte(releaseScript.Hash()), 1)
			err := l.Release(bg)
			if closed() != 1 || armed.Load() {
				t.Fatalf("the fault did not happen: %d connections closed after the release, dialled again %v", closed(), !armed.Load())
			}
			if taken {
				defer other.Release(bg)
				if !errors.Is(err, ErrNotHeld) {
					t.Fatalf("Release resent after the local deadline, the key another owner's = %v, want ErrNotHeld", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Release resent after the local deadline, the key missing = %v, want nil", err)
			}
		})
	}
}
