package lease

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/faults"
)

// renewSpy wraps a redis.Scripter and records, for every renew-script call,
// whether the lease in l had already ended when the call was made; onRenew,
// if set, decides the call's fate (n is its index from 0): send it or not,
// and how long to hold its reply.
type renewSpy struct {
	redis.Scripter
	l       atomic.Pointer[Lease]
	mu      sync.Mutex
	calls   int
	late    int // calls made after the lease had ended
	onRenew func(n int, l *Lease) (send bool, hold func())
}

func (s *renewSpy) EvalSha(ctx context.Context, sha string, keys []string, args ...any) *redis.Cmd {
	if sha != renewScript.Hash() {
		return s.Scripter.EvalSha(ctx, sha, keys, args...)
	}
	l := s.l.Load()
	s.mu.Lock()
	n := s.calls
	s.calls++
	if l != nil && l.Context().Err() != nil {
		s.late++
	}
	s.mu.Unlock()
	send, hold := true, func() {}
	if s.onRenew != nil {
		send, hold = s.onRenew(n, l)
	}
	if !send {
		cmd := redis.NewCmd(ctx)
		cmd.SetErr(errTimeout)
		return cmd
	}
	cmd := s.Scripter.EvalSha(ctx, sha, keys, args...)
	hold()
	return cmd
}

func (s *renewSpy) lateCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.late
}

// Issue 12, class 2: with MaxRenewFailures above 2 the local deadline ends
// the lease before the failures do; the heartbeat must not send the
// renewal that was queued for after the deadline (it would extend the key
// by a full TTL for nobody).
func TestNoRenewalSentAfterLocalDeadline(t *testing.T) {
	e := newEnv(t)
	spy := &renewSpy{Scripter: e.rdb}
	spy.onRenew = func(int, *Lease) (bool, func()) { return false, func() {} } // every renewal fails unsent
	c := New(spy, &Options{UnsafeNoReplicas: true, MaxRenewFailures: 5})
	l := mustAcquire(t, c, e.resource, 600*time.Millisecond)
	spy.l.Store(l)
	defer l.Release(bg)
	waitDone(t, l.Context(), 2*time.Second)
	if r := l.lostCause().(*LostError).Reason; r != ReasonDeadline {
		t.Fatalf("lost by %q, want the local deadline", r)
	}
	time.Sleep(500 * time.Millisecond) // past the next renewal the heartbeat had queued
	if n := spy.lateCalls(); n > 0 {
		t.Fatalf("%d renewals sent after the lease context ended", n)
	}
}

// Issue 12, class 2: a renewal sent while the lease was valid whose reply
// comes after the local deadline has extended the key for nobody; the
// heartbeat deletes the key (compare-and-delete) so that the next holder
// does not wait a TTL.
func TestRenewalLandingAfterDeadlineIsUndone(t *testing.T) {
	e := newEnv(t)
	spy := &renewSpy{Scripter: e.rdb}
	spy.onRenew = func(n int, l *Lease) (bool, func()) {
		if n == 0 {
			return false, func() {} // the first renewal fails unsent
		}
		// The second is applied by Redis, and its reply held until the
		// lease has ended.
		return true, func() {
			select {
			case <-l.Done():
			case <-time.After(2 * time.Second):
			}
		}
	}
	c := New(spy, &Options{UnsafeNoReplicas: true, MaxRenewFailures: 5, HeartbeatInterval: 250 * time.Millisecond, CallTimeout: 590 * time.Millisecond})
	l := mustAcquire(t, c, e.resource, 600*time.Millisecond)
	spy.l.Store(l)
	defer l.Release(bg)
	waitDone(t, l.Context(), 2*time.Second)
	// Well below the TTL (600ms) the renewal gave the key.
	deadline := time.Now().Add(250 * time.Millisecond)
	for e.get(t, e.lockKey) != "" {
		if time.Now().After(deadline) {
			t.Fatalf("lock key still held 250ms after the lease ended (PTTL %v)", e.pttl(t))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// As above, but the renewal's reply comes after the heartbeat stopped
// waiting for it (its call was abandoned at its bound, as with go-redis's
// defaults, where the lease runs each call in a goroutine of its own), and
// after the lease ended: the reply still reaches the lease, which deletes
// the key it extended for nobody. Before, such a reply was dropped and the
// key lived a TTL from the renewal.
func TestRenewalLandingAfterItWasAbandonedIsUndone(t *testing.T) {
	e := newEnv(t)
	spy := &renewSpy{Scripter: e.rdb}
	const ttl, heldPastEnd = 2 * time.Second, 300 * time.Millisecond
	spy.onRenew = func(n int, l *Lease) (bool, func()) {
		if n != 1 {
			return false, func() {} // fails unsent
		}
		// Applied by Redis (the key now lives a TTL from here); its reply
		// held past the call's bound, until after the lease ended.
		return true, func() {
			select {
			case <-l.Done():
				time.Sleep(heldPastEnd)
			case <-time.After(5 * time.Second):
			}
		}
	}
	c := New(spy, &Options{UnsafeNoReplicas: true, MaxRenewFailures: 5, HeartbeatInterval: ttl / 4, CallTimeout: ttl / 5})
	l := mustAcquire(t, c, e.resource, ttl)
	spy.l.Store(l)
	defer l.Release(bg)
	waitDone(t, l.Context(), 3*ttl)
	ended := time.Now()
	for e.get(t, e.lockKey) != "" {
		if time.Since(ended) > heldPastEnd+400*time.Millisecond {
			t.Fatalf("lock key still held %v after the lease ended (PTTL %v): the late renewal was not undone",
				time.Since(ended).Round(time.Millisecond), e.pttl(t))
		}
		time.Sleep(10 * time.Millisecond)
	}
	spy.mu.Lock()
	defer spy.mu.Unlock()
	if spy.calls < 2 {
		t.Fatalf("%d renewals: the held one was never sent", spy.calls)
	}
}

// The heartbeat's undo of a renewal that landed after the lease ended is
// no release: a later Release of that lease says it was not held
// (ErrNotHeld), whether or not another owner took the lock in between,
// and leaves another owner's lock alone.
func TestReleaseAfterAnUndoneRenewalIsNotHeld(t *testing.T) {
	for _, takenOver := range []bool{false, true} {
		t.Run(map[bool]string{false: "free", true: "taken over"}[takenOver], func(t *testing.T) {
			e := newEnv(t)
			c := New(e.rdb, &Options{HeartbeatInterval: -1})
			l := mustAcquire(t, c, e.resource, 5*time.Second)
			c.undoRenewal(l)
			if v := e.get(t, e.lockKey); v != "" {
				t.Fatalf("lock key %q after the undo", v)
			}
			var other *Lease
			if takenOver {
				other = mustAcquire(t, New(e.rdb, nil), e.resource, 5*time.Second)
				defer other.Release(bg)
			}
			if err := l.Release(bg); !errors.Is(err, ErrNotHeld) {
				t.Fatalf("Release after the undo = %v, want ErrNotHeld", err)
			}
			if other != nil && e.get(t, e.lockKey) != other.value {
				t.Fatalf("lock key %q, want the other owner's %q", e.get(t, e.lockKey), other.value)
			}
		})
	}
}

// Lease.Renew under a context cancelled while the renewal is on its way
// (here delayed 130ms by a proxy, on a client with ContextTimeoutEnabled):
// Renew returns at the cancellation, and the renewal, which still lands,
// is handled as the heartbeat handles a late reply: the lease ends at its
// local deadline meanwhile, so the key the renewal extended is deleted.
func TestCancelledRenewThatLandsAfterTheEndIsUndone(t *testing.T) {
	r := faults.StartRedis(t, faults.RedisOptions{})
	p := faults.StartProxy(t, r.Addr())
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = rdb.Close() })
	c := New(rdb, &Options{HeartbeatInterval: -1})
	if err := c.Check(bg); err != nil && !errors.Is(err, ErrUnsafeConfig) { // loads the scripts
		t.Fatal(err)
	}
	start := time.Now()
	l := mustAcquire(t, c, "res", time.Second) // local deadline 900ms
	time.Sleep(800 * time.Millisecond)
	p.SetLatency(faults.Upstream, 130*time.Millisecond)
	ctx, cancel := context.WithCancel(bg)
	time.AfterFunc(40*time.Millisecond, cancel)
	if err := l.Renew(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Renew = %v, want context.Canceled", err)
	}
	time.Sleep(time.Until(start.Add(1250 * time.Millisecond)))
	p.SetLatency(faults.Upstream, 0)
	waitDone(t, l.Context(), time.Second)
	deadline := time.Now().Add(500 * time.Millisecond)
	for r.Admin().Exists(bg, "fencegen:{res}:lock").Val() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("lock key of the ended lease kept by its cancelled renewal (PTTL %v)", r.Admin().PTTL(bg, "fencegen:{res}:lock").Val())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
