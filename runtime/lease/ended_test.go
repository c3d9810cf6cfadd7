package lease

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
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
	if l != nil && l.ctx.Err() != nil {
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
	c := New(spy, &Options{MaxRenewFailures: 5})
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
	c := New(spy, &Options{MaxRenewFailures: 5, HeartbeatInterval: 250 * time.Millisecond, CallTimeout: 590 * time.Millisecond})
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
	c := New(spy, &Options{MaxRenewFailures: 5, HeartbeatInterval: ttl / 4, CallTimeout: ttl / 5})
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
