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
