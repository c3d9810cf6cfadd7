package lease

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/runtime/fence"
)

var bg = context.Background()

func mustAcquire(t *testing.T, c *Client, resource string, ttl time.Duration) *Lease {
	t.Helper()
	l, err := c.Acquire(bg, resource, ttl)
	if err != nil {
		t.Fatalf("Acquire(%q): %v", resource, err)
	}
	return l
}

func TestTokensStrictlyIncrease(t *testing.T) {
	e := newEnv(t)
	c := New(e.rdb, nil)
	var prev fence.Token
	for i := range 5 {
		l := mustAcquire(t, c, e.resource, time.Second)
		if l.Token() <= prev {
			t.Fatalf("acquisition %d: token %d, previous %d", i, l.Token(), prev)
		}
		prev = l.Token()
		if err := l.Release(bg); err != nil {
			t.Fatalf("Release: %v", err)
		}
	}
	if ttl, err := e.rdb.TTL(bg, e.counter).Result(); err != nil || ttl != -1 {
		t.Fatalf("counter TTL = %v, %v; want -1 (no TTL)", ttl, err)
	}
	if got := e.get(t, e.counter); got != prev.String() {
		t.Fatalf("counter = %q, want %q", got, prev)
	}
}

func TestSecondAcquirerNotAcquired(t *testing.T) {
	e := newEnv(t)
	c := New(e.rdb, nil)
	a := mustAcquire(t, c, e.resource, time.Second)
	defer a.Release(bg)
	value := e.get(t, e.lockKey)

	b, err := c.Acquire(bg, e.resource, time.Second)
	if !errors.Is(err, ErrNotAcquired) || b != nil {
		t.Fatalf("second Acquire = %v, %v; want ErrNotAcquired", b, err)
	}
	if !strings.HasPrefix(err.Error(), "lease: ") {
		t.Fatalf("error %q lacks the lease: prefix", err)
	}
	if got := e.get(t, e.lockKey); got != value {
		t.Fatalf("lock value changed from %q to %q", value, got)
	}
	if got := e.get(t, e.counter); got != a.Token().String() {
		t.Fatalf("counter = %s after refused acquire, want %d (nothing minted)", got, a.Token())
	}
}

func TestSameOwnerRetryReturnsSameToken(t *testing.T) {
	e := newEnv(t)
	keys := []string{e.lockKey, e.counter, mintKey(e.lockKey)}
	run := func(owner string) int64 {
		t.Helper()
		n, err := acquireScript.Run(bg, e.rdb, keys, owner, 1000, 0, "0").Int64()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	owner := newOwner()
	first := run(owner)
	if err := e.rdb.PExpire(bg, e.lockKey, 200*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	if again := run(owner); again != first {
		t.Fatalf("same-owner retry returned token %d, want %d", again, first)
	}
	if d := e.pttl(t); d < 800*time.Millisecond {
		t.Fatalf("same-owner retry left PTTL %v, want the TTL refreshed to ~1s", d)
	}
	if got := e.get(t, e.counter); got != fence.Token(first).String() {
		t.Fatalf("counter = %s, want %d: a retry must not mint", got, first)
	}
	if other := run(newOwner()); other != 0 {
		t.Fatalf("other owner got %d, want 0", other)
	}
	// The first attempt landed, its reply was lost, and the lock key
	// vanished (expired or deleted) before the retry: the retry takes the
	// lease again with the same token, minting nothing.
	if err := e.rdb.Del(bg, e.lockKey).Err(); err != nil {
		t.Fatal(err)
	}
	if again := run(owner); again != first {
		t.Fatalf("retry after the key vanished returned token %d, want %d (one token per acquisition)", again, first)
	}
	if got := e.get(t, e.counter); got != fence.Token(first).String() {
		t.Fatalf("counter = %s, want %d: a retry must not mint", got, first)
	}
	// Once another owner has minted, the old owner's retry mints afresh:
	// its token is no longer the newest.
	if err := e.rdb.Del(bg, e.lockKey).Err(); err != nil {
		t.Fatal(err)
	}
	second := run(newOwner())
	if err := e.rdb.Del(bg, e.lockKey).Err(); err != nil {
		t.Fatal(err)
	}
	if third := run(owner); third <= second {
		t.Fatalf("retry after another owner minted got token %d, want above %d", third, second)
	}
}

// A release writes nothing but the DEL of the lock key (issue 26) and
// leaves :minted naming the released lease: a retry of the released
// lease's Acquire that reaches Redis after the release (the lock key gone,
// :minted and the counter still its own) would take that lease again with
// the released token. Release sets the owner's abandon mark whenever an
// attempt of its Acquire may still arrive (Lease.mark), and the retry,
// which names its mark, writes nothing: -2, the counter and :minted as
// the release left them, no lock. Without the mark the retry takes the
// key back (checked first, so that the test fails if the script's
// take-back stops being what the mark guards against).
func TestRetryAfterReleaseDoesNotRetakeReleasedToken(t *testing.T) {
	e := newEnv(t)
	mint := mintKey(e.lockKey)
	owner := newOwner()
	t.Cleanup(func() { e.rdb.Del(bg, mint, abandonKey(e.lockKey, owner)) })
	acquire := func(retry string) int64 {
		t.Helper()
		keys := []string{e.lockKey, e.counter, mint, abandonKey(e.lockKey, owner)}
		n, err := acquireScript.Run(bg, e.rdb, keys, owner, 1000, 0, "0", retry).Int64()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	release := func(keys []string, args ...any) {
		t.Helper()
		n, err := releaseScript.Run(bg, e.rdb, keys, append([]any{owner}, args...)...).Int64()
		if err != nil || n != 1 {
			t.Fatalf("release = %d, %v; want 1", n, err)
		}
	}
	first := acquire("0")
	value := owner + ":" + fence.Token(first).String()
	release([]string{e.lockKey})
	if got := e.get(t, mint); got != value {
		t.Fatalf(":minted = %q after release, want %q (release does not write it)", got, value)
	}
	if again := acquire("1"); again != first {
		t.Fatalf("retry after a release without the mark = %d, want the released token %d taken back (what the mark guards against)", again, first)
	}
	release([]string{e.lockKey, abandonKey(e.lockKey, owner), mint}, abandonLife(time.Second).Milliseconds())
	counter, minted := e.get(t, e.counter), e.get(t, mint)
	if n := acquire("1"); n != -2 {
		t.Fatalf("retry after the release that set the mark = %d, want -2", n)
	}
	if v := e.get(t, e.lockKey); v != "" {
		t.Fatalf("the retry after the release took the lock (%q)", v)
	}
	if got := e.get(t, e.counter); got != counter {
		t.Fatalf("counter = %s after the refused retry, want %s", got, counter)
	}
	if got := e.get(t, mint); got != minted {
		t.Fatalf(":minted = %q after the refused retry, want %q", got, minted)
	}
}

// TestAcquireRetriesAmbiguousReply loses the reply of an acquire that
// landed; Acquire's retry with the same owner gets the same token back.
func TestAcquireRetriesAmbiguousReply(t *testing.T) {
	e := newEnv(t)
	var calls atomic.Int32
	f := &flaky{Scripter: e.rdb, fault: func(sha string) (error, bool) {
		if sha == acquireScript.Hash() && calls.Add(1) == 1 {
			return errTimeout, true // sent, reply lost
		}
		return nil, false
	}}
	c := New(f, &Options{UnsafeNoReplicas: true})
	l := mustAcquire(t, c, e.resource, time.Second)
	defer l.Release(bg)
	if got := c.Stats().Acquires; got != 2 {
		t.Fatalf("acquire calls = %d, want 2 (one retry)", got)
	}
	if got := e.get(t, e.counter); got != l.Token().String() {
		t.Fatalf("counter = %s, lease token %d: the retry minted a second token", got, l.Token())
	}
	if lock, minted := e.get(t, e.lockKey), e.get(t, mintKey(e.lockKey)); minted != lock+":"+l.Token().String() {
		t.Fatalf("lock value %q, :minted %q: want :minted to record the lock's owner with token %d", lock, minted, l.Token())
	}
}

// TestAcquireAmbiguousFailureCleansUp: every attempt lands but every reply
// is lost; Acquire fails and leaves no ghost lock behind.
func TestAcquireAmbiguousFailureCleansUp(t *testing.T) {
	e := newEnv(t)
	f := &flaky{Scripter: e.rdb, fault: func(sha string) (error, bool) {
		if sha == acquireScript.Hash() {
			return errTimeout, true
		}
		return nil, false
	}}
	c := New(f, &Options{UnsafeNoReplicas: true})
	_, err := c.Acquire(bg, e.resource, time.Second)
	if err == nil || errors.Is(err, ErrNotAcquired) {
		t.Fatalf("Acquire = %v, want a timeout error", err)
	}
	if got := c.Stats(); got.Acquires != 3 || got.Releases != 1 {
		t.Fatalf("stats = %+v, want 3 acquire attempts and 1 cleanup", got)
	}
	if n := e.rdb.Exists(bg, e.lockKey).Val(); n != 0 {
		t.Fatalf("lock key left behind after failed Acquire")
	}
}

func TestScriptErrorIsNotNotAcquired(t *testing.T) {
	e := newEnv(t)
	t.Run("CROSSSLOT", func(t *testing.T) {
		f := &flaky{Scripter: e.rdb, fault: func(string) (error, bool) { return redis.ErrCrossSlot, false }}
		c := New(f, &Options{UnsafeNoReplicas: true})
		_, err := c.Acquire(bg, e.resource, time.Second)
		if !errors.Is(err, redis.ErrCrossSlot) || errors.Is(err, ErrNotAcquired) {
			t.Fatalf("Acquire = %v, want the CROSSSLOT error", err)
		}
		if got := c.Stats().Acquires; got != 1 {
			t.Fatalf("acquire calls = %d, want 1: a definitive error is not retried", got)
		}
	})
	t.Run("WRONGTYPE", func(t *testing.T) {
		if err := e.rdb.RPush(bg, e.counter, "x").Err(); err != nil {
			t.Fatal(err)
		}
		defer e.rdb.Del(bg, e.counter)
		_, err := New(e.rdb, nil).Acquire(bg, e.resource, time.Second)
		if err == nil || errors.Is(err, ErrNotAcquired) || !strings.Contains(err.Error(), "WRONGTYPE") {
			t.Fatalf("Acquire = %v, want the WRONGTYPE error", err)
		}
	})
}

func TestInvalidArguments(t *testing.T) {
	e := newEnv(t)
	c := New(e.rdb, nil)
	for _, r := range []string{"", "a{b", "a}b"} {
		if _, err := c.Acquire(bg, r, time.Second); !errors.Is(err, ErrInvalidResource) {
			t.Errorf("Acquire(%q) = %v, want ErrInvalidResource", r, err)
		}
	}
	if _, err := New(e.rdb, &Options{SafetyMargin: time.Second}).Acquire(bg, e.resource, time.Second); err == nil {
		t.Errorf("SafetyMargin = TTL accepted")
	}
	if _, err := New(e.rdb, &Options{HeartbeatInterval: time.Second}).Acquire(bg, e.resource, time.Second); err == nil {
		t.Errorf("HeartbeatInterval = TTL accepted")
	}
	if got := c.Stats().Acquires; got != 0 {
		t.Fatalf("invalid arguments reached Redis (%d calls)", got)
	}
}

func TestRenewExtendsTTL(t *testing.T) {
	e := newEnv(t)
	c := New(e.rdb, &Options{HeartbeatInterval: -1})
	l := mustAcquire(t, c, e.resource, time.Second)
	defer l.Release(bg)
	time.Sleep(400 * time.Millisecond)
	if d := e.pttl(t); d > 650*time.Millisecond {
		t.Fatalf("PTTL before renew = %v, want ≤ 600ms", d)
	}
	before := l.Remaining()
	if err := l.Renew(bg); err != nil {
		t.Fatalf("Renew: %v", err)
	}
	if d := e.pttl(t); d < 900*time.Millisecond {
		t.Fatalf("PTTL after renew = %v, want ~1s", d)
	}
	if after := l.Remaining(); after <= before {
		t.Fatalf("local validity %v → %v after renew, want it extended", before, after)
	}
	if got := c.Stats().Renewals; got != 1 {
		t.Fatalf("renew calls = %d, want 1 (heartbeat disabled)", got)
	}
}

func TestHeartbeatKeepsLeaseAlive(t *testing.T) {
	e := newEnv(t)
	var renewed atomic.Int32
	c := New(e.rdb, &Options{Observer: &Observer{OnRenewed: func(string, fence.Token) { renewed.Add(1) }}})
	const ttl = 300 * time.Millisecond
	l := mustAcquire(t, c, e.resource, ttl)
	value := e.get(t, e.lockKey)
	select {
	case <-l.Done():
		t.Fatalf("lease ended: %v", context.Cause(l.Context()))
	case <-time.After(4 * ttl):
	}
	if got := e.get(t, e.lockKey); got != value {
		t.Fatalf("lock value %q after 4 TTLs, want %q", got, value)
	}
	if n := renewed.Load(); n < 9 {
		t.Fatalf("%d renewals in 4 TTLs, want ≥ 9 (every TTL/3)", n)
	}
	if err := l.Release(bg); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if n := e.rdb.Exists(bg, e.lockKey).Val(); n != 0 {
		t.Fatalf("lock key survives Release")
	}
}

// TestAcquireContextDoesNotBoundLease: the ctx given to Acquire ends at
// once; the lease lives on (pglock#5).
func TestAcquireContextDoesNotBoundLease(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(bg, 200*time.Millisecond)
	l, err := New(e.rdb, nil).Acquire(ctx, e.resource, 300*time.Millisecond)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(bg)
	select {
	case <-l.Done():
		t.Fatalf("lease ended with the acquire context: %v", context.Cause(l.Context()))
	case <-time.After(700 * time.Millisecond):
	}
}

func TestTakeoverCancelsLeaseAndReleaseSparesNewOwner(t *testing.T) {
	e := newEnv(t)
	lostSeen := make(chan *LostError, 1)
	c := New(e.rdb, &Options{Observer: &Observer{OnLost: func(err *LostError) { lostSeen <- err }}})
	const ttl = 600 * time.Millisecond
	l := mustAcquire(t, c, e.resource, ttl)
	const other = "ffffffffffffffffffffffffffffffff:999"
	if err := e.rdb.Set(bg, e.lockKey, other, 10*time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	took := waitDone(t, l.Context(), ttl)
	if took > ttl/3+ttl/6+100*time.Millisecond {
		t.Fatalf("lease context cancelled %v after takeover, want within one heartbeat + call timeout", took)
	}
	var lost *LostError
	if err := context.Cause(l.Context()); !errors.As(err, &lost) || lost.Reason != ReasonNotOwner ||
		!errors.Is(err, ErrLost) || !errors.Is(err, ErrNotOwner) || errors.Is(err, ErrReleased) {
		t.Fatalf("cause = %v, want *LostError{Reason: not owner}", err)
	}
	if lost.Token != l.Token() || lost.Resource != e.resource {
		t.Fatalf("LostError = %+v", lost)
	}
	// OnLost runs after the context is cancelled (its documented order),
	// so it is waited for, not read at once.
	select {
	case got := <-lostSeen:
		if got != lost {
			t.Fatalf("OnLost got %v, want %v", got, lost)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("OnLost not called within 5s of the lease context's end")
	}
	if err := l.Release(bg); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Release after takeover = %v, want ErrNotHeld", err)
	}
	if got := e.get(t, e.lockKey); got != other {
		t.Fatalf("other owner's key = %q, want %q untouched", got, other)
	}
	if d := e.pttl(t); d < 9*time.Second {
		t.Fatalf("other owner's PTTL = %v, want ~10s untouched", d)
	}
	if err := context.Cause(l.Context()); !errors.As(err, &lost) {
		t.Fatalf("cause after Release = %v, want still the *LostError", err)
	}
}

func TestDeletedKeyIsNotRecreated(t *testing.T) {
	e := newEnv(t)
	c := New(e.rdb, nil)
	l := mustAcquire(t, c, e.resource, 600*time.Millisecond)
	defer l.Release(bg)
	if err := e.rdb.Del(bg, e.lockKey).Err(); err != nil {
		t.Fatal(err)
	}
	waitDone(t, l.Context(), 600*time.Millisecond)
	if !errors.Is(l.Err(), ErrNotOwner) {
		t.Fatalf("cause = %v, want not owner", l.Err())
	}
	if n := e.rdb.Exists(bg, e.lockKey).Val(); n != 0 {
		t.Fatalf("renewal re-created a deleted lock key")
	}
	if err := l.Renew(bg); !errors.Is(err, ErrLost) {
		t.Fatalf("Renew after loss = %v, want ErrLost", err)
	}
	l2 := mustAcquire(t, c, e.resource, 600*time.Millisecond)
	defer l2.Release(bg)
	if l2.Token() <= l.Token() {
		t.Fatalf("re-acquire token %d, want > %d", l2.Token(), l.Token())
	}
}

// TestRenewFailurePolicy: one failed renewal is survived (and the count
// resets after a success); two in a row cancel the lease.
func TestRenewFailurePolicy(t *testing.T) {
	e := newEnv(t)
	var fail atomic.Bool
	f := &flaky{Scripter: e.rdb, fault: func(sha string) (error, bool) {
		if sha == renewScript.Hash() && fail.Load() {
			return errTimeout, false
		}
		return nil, false
	}}
	var keepFailing atomic.Bool
	var failedAt atomic.Pointer[time.Time]
	failed := make(chan int, 10)
	renewed := make(chan struct{}, 10)
	const ttl = 600 * time.Millisecond
	c := New(f, &Options{UnsafeNoReplicas: true, Observer: &Observer{
		OnRenewFailed: func(_ string, _ fence.Token, _ error, consecutive int) {
			if keepFailing.Load() {
				now := time.Now()
				failedAt.Store(&now)
				return
			}
			fail.Store(false) // the next renewal succeeds
			failed <- consecutive
		},
		OnRenewed: func(string, fence.Token) { renewed <- struct{}{} },
	}})
	l := mustAcquire(t, c, e.resource, ttl)
	defer l.Release(bg)

	for range 2 { // two isolated failures, each followed by a success
		for len(renewed) > 0 {
			<-renewed
		}
		fail.Store(true)
		if n := <-failed; n != 1 {
			t.Fatalf("consecutive failures = %d, want 1: the count did not reset after a success", n)
		}
		<-renewed
	}
	if l.Err() != nil {
		t.Fatalf("lease ended after isolated failures: %v", l.Err())
	}

	keepFailing.Store(true)
	fail.Store(true) // keep failing from now on
	waitDone(t, l.Context(), ttl)
	took := time.Since(*failedAt.Load())
	var lost *LostError
	if !errors.As(l.Err(), &lost) || lost.Reason != ReasonRenewFailed || !errors.Is(lost, errTimeout) {
		t.Fatalf("cause = %v, want renewals failed wrapping the timeout", l.Err())
	}
	if took > ttl/3+100*time.Millisecond {
		t.Fatalf("cancelled %v after the first of two failures, want right after the second", took)
	}
}

// TestUnresponsiveRedisCancelsByLocalDeadline stops a private redis-server
// (SIGSTOP: connections are accepted, nothing is answered) and checks that
// the lease context ends within the TTL measured from before Acquire, and
// that a Release after the server resumed leaves no lock key behind.
func TestUnresponsiveRedisCancelsByLocalDeadline(t *testing.T) {
	srv := faults.StartRedis(t, faults.RedisOptions{})
	rdb := srv.Client(nil)
	const ttl = time.Second
	start := time.Now()
	a := mustAcquire(t, New(rdb, nil), "blackhole:a", ttl) // default: 2 failures
	b := mustAcquire(t, New(rdb, &Options{MaxRenewFailures: 100}), "blackhole:b", ttl)
	srv.Pause()
	waitDone(t, a.Context(), 2*ttl)
	tookA := time.Since(start)
	waitDone(t, b.Context(), 2*ttl)
	tookB := time.Since(start)
	var lost *LostError
	if !errors.As(a.Err(), &lost) || lost.Reason != ReasonRenewFailed {
		t.Errorf("a: cause = %v, want renewals failed", a.Err())
	}
	if !errors.As(b.Err(), &lost) || lost.Reason != ReasonDeadline {
		t.Errorf("b: cause = %v, want local deadline", b.Err())
	}
	if tookA >= ttl || tookB >= ttl {
		t.Errorf("lease contexts ended %v and %v after Acquire was called, want < TTL %v", tookA, tookB, ttl)
	}
	if margin := ttl / 10; tookB < ttl-margin-50*time.Millisecond {
		t.Errorf("b ended after %v, before its local deadline TTL − margin", tookB)
	}
	srv.Resume()
	// Both leases are lost. Whether their keys still exist at the
	// release depends on timing (a renewal queued in the paused server
	// lands on resume and extends the key, and the heartbeat then deletes
	// it again; or the key expires first): Release deletes the key or
	// says it was not held, and either way no key is left behind.
	for _, l := range []*Lease{a, b} {
		if err := l.Release(bg); err != nil && !errors.Is(err, ErrNotHeld) {
			t.Errorf("Release after resume: %v, want nil or ErrNotHeld", err)
		}
		lock, _ := l.c.Keys(l.resource)
		if n, err := rdb.Exists(bg, lock).Result(); err != nil || n != 0 {
			t.Errorf("lock key %s after Release: EXISTS = %d, %v; want 0", lock, n, err)
		}
	}
}

// TestReleaseWaitsForInFlightRenewal calls Release while a heartbeat
// renewal is in flight (its reply delayed): Release returns only after the
// renewal was applied, no renewal follows, and the interrupted renewal is
// not reported as a loss (pglock#36, pglock#175). S09.
func TestReleaseWaitsForInFlightRenewal(t *testing.T) {
	e := newEnv(t)
	var slow atomic.Bool
	sent := make(chan struct{}, 1)
	f := &flaky{Scripter: e.rdb, fault: func(sha string) (error, bool) {
		if sha == renewScript.Hash() && slow.Load() {
			select {
			case sent <- struct{}{}:
			default:
			}
			time.Sleep(80 * time.Millisecond) // reply in flight
		}
		return nil, false
	}}
	var lost atomic.Int32
	c := New(f, &Options{UnsafeNoReplicas: true, Observer: &Observer{OnLost: func(*LostError) { lost.Add(1) }}})
	l := mustAcquire(t, c, e.resource, 900*time.Millisecond)
	slow.Store(true)
	<-sent
	start := time.Now()
	if err := l.Release(bg); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Fatalf("Release returned after %v, before the in-flight renewal was applied", d)
	}
	renewals := c.Stats().Renewals
	time.Sleep(400 * time.Millisecond)
	if got := c.Stats().Renewals; got != renewals {
		t.Fatalf("%d renewals after Release", got-renewals)
	}
	if !errors.Is(l.Err(), ErrReleased) || errors.Is(l.Err(), ErrLost) || lost.Load() != 0 {
		t.Fatalf("cause = %v (lost callbacks %d), want ErrReleased", l.Err(), lost.Load())
	}
	if n := e.rdb.Exists(bg, e.lockKey).Val(); n != 0 {
		t.Fatalf("lock key survives Release")
	}
}

// Release honours its context (issue 12): with ctx already over nothing is
// sent, the lease ends locally and the key stays until a later Release with
// a live context deletes it; once deleted, Release is idempotent.
func TestReleaseIdempotentAndHonoursContext(t *testing.T) {
	e := newEnv(t)
	c := New(e.rdb, nil)
	l := mustAcquire(t, c, e.resource, time.Second)
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if err := l.Release(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Release with cancelled ctx = %v, want context.Canceled", err)
	}
	if got := c.Stats().Releases; got != 0 {
		t.Fatalf("release calls = %d after a cancelled Release, want 0 (nothing sent)", got)
	}
	if !errors.Is(l.Err(), ErrReleased) {
		t.Fatalf("lease Err = %v after Release, want ErrReleased", l.Err())
	}
	if err := l.Release(bg); err != nil {
		t.Fatalf("Release with a live ctx: %v", err)
	}
	if n := e.rdb.Exists(bg, e.lockKey).Val(); n != 0 {
		t.Fatalf("lock key survives Release")
	}
	if err := l.Release(bg); err != nil {
		t.Fatalf("third Release = %v, want nil", err)
	}
	if got := c.Stats().Releases; got != 1 {
		t.Fatalf("release calls = %d, want 1", got)
	}
	if err := l.Renew(bg); !errors.Is(err, ErrReleased) {
		t.Fatalf("Renew after Release = %v, want ErrReleased", err)
	}

	// A Release whose ctx ends during the round trip returns ctx's error.
	s := &stall{Scripter: e.rdb, shas: map[string]bool{releaseScript.Hash(): true}}
	l = mustAcquire(t, New(s, &Options{UnsafeNoReplicas: true}), e.resource, time.Second)
	ctx, cancel = context.WithTimeout(bg, 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := l.Release(ctx); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrRedisTimeout) {
		t.Fatalf("Release = %v, want the caller's DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Fatalf("Release took %v with a 50ms context (ReleaseTimeout 1s)", d)
	}
}

func TestAcquireTooSlowReleases(t *testing.T) {
	e := newEnv(t)
	const ttl = 300 * time.Millisecond
	c := New(e.rdb, &Options{hooks: &testHooks{afterAcquireReply: func() { time.Sleep(ttl - ttl/10) }}})
	l, err := c.Acquire(bg, e.resource, ttl)
	if !errors.Is(err, ErrAcquireTooSlow) || l != nil {
		t.Fatalf("Acquire = %v, %v; want ErrAcquireTooSlow", l, err)
	}
	if n := e.rdb.Exists(bg, e.lockKey).Val(); n != 0 {
		t.Fatalf("lock key left behind after a too-slow acquire")
	}
}

func TestCauseDistinguishesLostReleasedAndCaller(t *testing.T) {
	e := newEnv(t)
	c := New(e.rdb, nil)
	const ttl = 600 * time.Millisecond

	released := mustAcquire(t, c, e.resource, ttl)
	work, cancelWork := context.WithCancel(released.Context())
	cancelWork() // the caller's own cancellation
	if err := context.Cause(work); !errors.Is(err, context.Canceled) || errors.Is(err, ErrLost) || errors.Is(err, ErrReleased) {
		t.Fatalf("caller cancellation cause = %v", err)
	}
	if released.Err() != nil {
		t.Fatalf("caller's cancel ended the lease: %v", released.Err())
	}
	work2, cancel2 := context.WithCancel(released.Context())
	defer cancel2()
	if err := released.Release(bg); err != nil {
		t.Fatal(err)
	}
	if err := context.Cause(work2); !errors.Is(err, ErrReleased) || errors.Is(err, ErrLost) {
		t.Fatalf("released cause = %v", err)
	}

	lost := mustAcquire(t, c, e.resource, ttl)
	defer lost.Release(bg)
	work3, cancel3 := context.WithCancel(lost.Context())
	defer cancel3()
	e.rdb.Del(bg, e.lockKey)
	waitDone(t, work3, ttl)
	if err := context.Cause(work3); !errors.Is(err, ErrLost) || errors.Is(err, ErrReleased) {
		t.Fatalf("lost cause = %v", err)
	}
}

func TestDoReleasesOnPanic(t *testing.T) {
	e := newEnv(t)
	c := New(e.rdb, nil)
	var got fence.Token
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want the original panic", r)
			}
		}()
		_ = c.Do(bg, e.resource, time.Second, func(ctx context.Context, token fence.Token) error {
			got = token
			panic("boom")
		})
	}()
	if got == 0 {
		t.Fatal("fn not called")
	}
	if n := e.rdb.Exists(bg, e.lockKey).Val(); n != 0 {
		t.Fatalf("lock key survives a panicking Do")
	}
	if s := c.Stats(); s.Releases != 1 {
		t.Fatalf("stats = %+v, want 1 release", s)
	}
}

func TestDoReportsLoss(t *testing.T) {
	e := newEnv(t)
	c := New(e.rdb, nil)
	const ttl = 600 * time.Millisecond
	errWork := errors.New("work failed")
	err := c.Do(bg, e.resource, ttl, func(ctx context.Context, _ fence.Token) error {
		e.rdb.Set(bg, e.lockKey, "someone-else:1", 10*time.Second)
		waitDone(t, ctx, ttl)
		if !errors.Is(context.Cause(ctx), ErrLost) {
			t.Errorf("work context cause = %v, want ErrLost", context.Cause(ctx))
		}
		return errWork // completed after loss
	})
	if !errors.Is(err, errWork) || !errors.Is(err, ErrLost) || errors.Is(err, ErrNotHeld) {
		t.Fatalf("Do = %v, want the work error joined with ErrLost", err)
	}
	if got := e.get(t, e.lockKey); got != "someone-else:1" {
		t.Fatalf("Do's release touched the new owner's key: %q", got)
	}
	e.rdb.Del(bg, e.lockKey)

	// Success after loss is still an error.
	err = c.Do(bg, e.resource, ttl, func(ctx context.Context, _ fence.Token) error {
		e.rdb.Del(bg, e.lockKey)
		waitDone(t, ctx, ttl)
		return nil
	})
	if !errors.Is(err, ErrLost) {
		t.Fatalf("Do = %v, want ErrLost", err)
	}

	// Held by someone else: fn is not called.
	e.rdb.Set(bg, e.lockKey, "someone-else:2", 10*time.Second)
	err = c.Do(bg, e.resource, ttl, func(context.Context, fence.Token) error {
		t.Error("fn called without the lease")
		return nil
	})
	if !errors.Is(err, ErrNotAcquired) {
		t.Fatalf("Do = %v, want ErrNotAcquired", err)
	}
}

// TestOneRoundTripEach counts the commands the client sends: acquire, renew
// and release are one EVALSHA each once the scripts are cached.
func TestOneRoundTripEach(t *testing.T) {
	e := newEnv(t)
	var cnt cmdCounter
	e.rdb.AddHook(&cnt)
	c := New(e.rdb, &Options{HeartbeatInterval: -1})
	warm := mustAcquire(t, c, e.resource, time.Second) // loads the scripts (EVALSHA → NOSCRIPT → EVAL at most once each)
	_ = warm.Renew(bg)
	_ = warm.Release(bg)
	cnt.take()

	l := mustAcquire(t, c, e.resource, time.Second)
	if got := cnt.take(); len(got) != 1 || got["evalsha"] != 1 {
		t.Fatalf("Acquire sent %v, want one evalsha", got)
	}
	if err := l.Renew(bg); err != nil {
		t.Fatal(err)
	}
	if got := cnt.take(); len(got) != 1 || got["evalsha"] != 1 {
		t.Fatalf("Renew sent %v, want one evalsha", got)
	}
	if err := l.Release(bg); err != nil {
		t.Fatal(err)
	}
	if got := cnt.take(); len(got) != 1 || got["evalsha"] != 1 {
		t.Fatalf("Release sent %v, want one evalsha", got)
	}
	if s := c.Stats(); s != (Stats{Acquires: 2, Renewals: 2, Releases: 2}) {
		t.Fatalf("Stats = %+v", s)
	}
}

func TestDecodeBool(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		n       int64
		err     error
		ok      bool
		wantErr bool
	}{
		{1, nil, true, false},
		{0, nil, false, false}, // the only "not owner"
		{2, nil, false, true},
		{-1, nil, false, true},
		{0, redis.Nil, false, true},
		{0, boom, false, true},
	}
	for _, tt := range tests {
		ok, err := decodeBool("renew", tt.n, tt.err)
		if ok != tt.ok || (err != nil) != tt.wantErr {
			t.Errorf("decodeBool(%d, %v) = %v, %v", tt.n, tt.err, ok, err)
		}
	}
}

func TestOptionDefaults(t *testing.T) {
	var o *Options
	const ttl = 3 * time.Second
	if o.keyPrefix() != "fencegen" || o.ttl() != 10*time.Second || o.heartbeatInterval(ttl) != time.Second ||
		o.callTimeout(ttl) != 500*time.Millisecond || o.safetyMargin(ttl) != 300*time.Millisecond ||
		o.releaseTimeout(ttl) != time.Second || o.maxRenewFailures() != 2 || o.acquireRetries() != 2 ||
		o.logger() != nil {
		t.Fatal("nil Options defaults differ from the documented ones")
	}
	if (&Options{HeartbeatInterval: -1}).heartbeatInterval(ttl) != 0 || (&Options{AcquireRetries: -1}).acquireRetries() != 0 {
		t.Fatal("negative values do not disable")
	}
	lock, counter := New(&flaky{}, &Options{UnsafeNoReplicas: true}).Keys("job:42")
	if lock != "fencegen:{job:42}:lock" || counter != "fencegen:{job:42}:token" {
		t.Fatalf("Keys = %q, %q", lock, counter)
	}
}

// TestCancelledAcquireLeavesNoGhost: the acquire lands but ctx ends before
// its reply; Acquire fails with ctx's error, starts no heartbeat (goleak)
// and compare-and-deletes the key it may have set (redisson#2714).
func TestCancelledAcquireLeavesNoGhost(t *testing.T) {
	e := newEnv(t)
	c := New(&slowReply{Scripter: e.rdb, delay: 150 * time.Millisecond}, &Options{UnsafeNoReplicas: true})
	ctx, cancel := context.WithTimeout(bg, 50*time.Millisecond)
	defer cancel()
	l, err := c.Acquire(ctx, e.resource, time.Second)
	if !errors.Is(err, context.DeadlineExceeded) || l != nil {
		t.Fatalf("Acquire = %v, %v; want context.DeadlineExceeded", l, err)
	}
	if s := c.Stats(); s.Acquires != 1 || s.Releases != 1 {
		t.Fatalf("stats = %+v, want 1 acquire and 1 cleanup release", s)
	}
	if n := e.rdb.Exists(bg, e.lockKey).Val(); n != 0 {
		t.Fatalf("ghost lock key left behind by a cancelled Acquire")
	}
	if e.get(t, e.counter) != "1" {
		t.Fatalf("counter = %q, want 1: the acquire did land", e.get(t, e.counter))
	}
}

// The renewal scheduler sleeps until the next lease is due and is woken
// only for a lease due sooner: a short-TTL lease acquired while it sleeps
// for a long-TTL one, or while it lingers with no lease at all, is still
// renewed in time; and releasing the others does not stop it.
func TestShortLeaseAddedWhileSchedulerSleepsIsRenewed(t *testing.T) {
	e := newEnv(t)
	c := New(e.rdb, nil)
	long := mustAcquire(t, c, e.resource+":long", 10*time.Second) // next renewal in ~3.3 s
	time.Sleep(20 * time.Millisecond)                             // the scheduler is asleep for it
	short := mustAcquire(t, c, e.resource+":short", 300*time.Millisecond)
	other := mustAcquire(t, c, e.resource+":other", 10*time.Second)
	if err := other.Release(bg); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // more than three TTLs of the short lease
	if err := short.Err(); err != nil {
		t.Fatalf("short lease lost while the scheduler slept for a long one: %v", err)
	}
	_ = long.Release(bg)
	_ = short.Release(bg)

	// No lease left: the scheduler lingers; a lease acquired then is due
	// before the linger ends only if its TTL is short.
	time.Sleep(10 * time.Millisecond)
	tiny := mustAcquire(t, c, e.resource+":tiny", 120*time.Millisecond)
	time.Sleep(500 * time.Millisecond)
	if err := tiny.Err(); err != nil {
		t.Fatalf("short lease lost while the scheduler lingered: %v", err)
	}
	_ = tiny.Release(bg)
}

// Cancelling the context of Renew, Release, Advance or Check ends the call at
// once, also against a Redis that has stopped answering (SIGSTOP) and on
// a go-redis client with ContextTimeoutEnabled, which bounds a socket read
// by a context's deadline but not by its cancellation: the call must not
// wait for its own timeout (5s at TTL 30s). Acquire and AcquireWait may
// add their cleanup, bounded by ReleaseTimeout. Each returns ctx's error.
func TestCancellationEndsCallsOnAStalledRedis(t *testing.T) {
	for _, cte := range []bool{false, true} {
		t.Run(fmt.Sprintf("ContextTimeoutEnabled=%v", cte), func(t *testing.T) {
			r, c, l1, l2 := pausedWithLeases(t, cte, nil) // CallTimeout and ReleaseTimeout 5s
			const ttl = pausedTTL
			const cancelAt, slack = 100 * time.Millisecond, time.Second
			bounded := func(name string, cleanup time.Duration, f func(ctx context.Context) error) {
				ctx, cancel := context.WithCancel(bg)
				defer cancel()
				time.AfterFunc(cancelAt, cancel)
				start := time.Now()
				err := f(ctx)
				took := time.Since(start)
				if !errors.Is(err, context.Canceled) {
					t.Errorf("%s = %v, want context.Canceled", name, err)
				}
				if took > cancelAt+cleanup+slack {
					t.Errorf("%s returned %v after its context was cancelled at %v", name, took.Round(time.Millisecond), cancelAt)
				}
			}
			bounded("Renew", 0, l2.Renew)
			bounded("Release", 0, l1.Release)
			bounded("Advance", 0, func(ctx context.Context) error {
				_, err := c.Advance(ctx, "a", 5)
				return err
			})
			bounded("Check", 0, c.Check)
			rt := c.opts.releaseTimeout(ttl)
			bounded("Acquire", rt, func(ctx context.Context) error {
				_, err := c.Acquire(ctx, "c", ttl)
				return err
			})
			bounded("AcquireWait", rt, func(ctx context.Context) error {
				_, err := c.AcquireWait(ctx, "d", ttl)
				return err
			})
			r.Resume()
			if err := l2.Release(bg); err != nil {
				t.Errorf("Release after the server resumed: %v", err)
			}
		})
	}
}

// TestCallsWithoutCancellationAreBoundedByTheirTimeoutsOnAStalledRedis: on
// a client with ContextTimeoutEnabled, a call under a context that cannot
// be cancelled is made inline, bounded by a deadline that arms no timer of
// its own (deadlineCtx). Against a paused redis-server (connections
// accepted, nothing answered), with go-redis's default retries, each call
// still returns a *TimeoutError carrying its own bound, at that bound, and
// the lease keeps working once the server resumes.
func TestCallsWithoutCancellationAreBoundedByTheirTimeoutsOnAStalledRedis(t *testing.T) {
	const ttl, callTimeout, releaseTimeout = pausedTTL, 300 * time.Millisecond, 400 * time.Millisecond
	r, c, l1, l2 := pausedWithLeases(t, true, &Options{CallTimeout: callTimeout, ReleaseTimeout: releaseTimeout})
	const slack = 500 * time.Millisecond
	bounded := func(name, op string, timeout time.Duration, f func() error) {
		t.Helper()
		start := time.Now()
		err := f()
		took := time.Since(start)
		var te *TimeoutError
		if !errors.As(err, &te) || te.Op != op || te.Timeout != timeout || !errors.Is(err, ErrRedisTimeout) {
			t.Errorf("%s = %#v, want a *TimeoutError of the %s call after %v", name, err, op, timeout)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s = %v matches context.DeadlineExceeded, but the caller set no deadline", name, err)
		}
		t.Logf("%s: %v after %v", name, err, took.Round(time.Millisecond))
		if took < timeout || took > timeout+slack {
			t.Errorf("%s returned after %v, want its bound %v", name, took.Round(time.Millisecond), timeout)
		}
	}
	bounded("Renew", "renew", callTimeout, func() error { return l2.Renew(bg) })
	bounded("Advance", "advance", releaseTimeout, func() error {
		_, err := c.Advance(bg, "a", 5)
		return err
	})
	bounded("Release", "release", releaseTimeout, func() error { return l1.Release(bg) })
	r.Resume()
	if err := l2.Release(bg); err != nil {
		t.Errorf("Release after the server resumed: %v", err)
	}
	l3, err := c.Acquire(bg, "c", ttl)
	if err != nil {
		t.Fatalf("Acquire after the server resumed: %v", err)
	}
	if err := l3.Release(bg); err != nil {
		t.Errorf("Release after the server resumed: %v", err)
	}
}

// TestCallsWithoutCancellationAreBoundedWhereGoRedisWaitsOnDone: go-redis
// dials a new connection in a goroutine of its own with a context of its
// own, and waits for a free pool connection, each in a select on the
// call's Done; it retries both. A call under a context that cannot be
// cancelled, made inline on a client with ContextTimeoutEnabled, still
// ends at its own bound there, as a *TimeoutError carrying it: while every
// new connection's dial hangs, and while the pool's only connection is
// held by another command.
func TestCallsWithoutCancellationAreBoundedWhereGoRedisWaitsOnDone(t *testing.T) {
	const ttl, callTimeout, releaseTimeout = 30 * time.Second, 300 * time.Millisecond, 400 * time.Millisecond
	opts := &Options{CallTimeout: callTimeout, ReleaseTimeout: releaseTimeout}
	const slack = 500 * time.Millisecond
	bounded := func(t *testing.T, name, op string, timeout time.Duration, f func() error) {
		t.Helper()
		start := time.Now()
		err := f()
		took := time.Since(start)
		var te *TimeoutError
		if !errors.As(err, &te) || te.Op != op || te.Timeout != timeout || !errors.Is(err, ErrRedisTimeout) || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s = %v, want a *TimeoutError of the %s call after %v", name, err, op, timeout)
		}
		if took > timeout+slack {
			t.Errorf("%s returned after %v, want its bound %v", name, took.Round(time.Millisecond), timeout)
		}
	}
	t.Run("dial hangs", func(t *testing.T) {
		r := faults.StartRedis(t, faults.RedisOptions{})
		hole := faults.DialHole(t)
		var target atomic.Value
		target.Store(r.Addr())
		rdb := redis.NewClient(&redis.Options{Addr: r.Addr(), ContextTimeoutEnabled: true, DialTimeout: 5 * time.Second,
			Dialer: func(ctx context.Context, network, _ string) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, network, target.Load().(string))
			}})
		t.Cleanup(func() { _ = rdb.Close() })
		c := New(rdb, opts)
		l := mustAcquire(t, c, "a", ttl)
		if _, err := c.Advance(bg, "b", 0); err != nil { // loads its script
			t.Fatal(err)
		}
		target.Store(hole)
		if err := r.Admin().ClientKillByFilter(bg, "TYPE", "normal", "SKIPME", "yes").Err(); err != nil {
			t.Fatal(err)
		}
		bounded(t, "Renew", "renew", callTimeout, func() error { return l.Renew(bg) })
		bounded(t, "Advance", "advance", releaseTimeout, func() error {
			_, err := c.Advance(bg, "b", 5)
			return err
		})
		bounded(t, "Release", "release", releaseTimeout, func() error { return l.Release(bg) })
	})
	t.Run("pool held", func(t *testing.T) {
		r := faults.StartRedis(t, faults.RedisOptions{})
		rdb := r.Client(&redis.Options{ContextTimeoutEnabled: true, PoolSize: 1, PoolTimeout: 5 * time.Second})
		c := New(rdb, opts)
		l := mustAcquire(t, c, "a", ttl)
		held := make(chan struct{})
		go func() {
			defer close(held)
			_ = rdb.BLPop(bg, 3*time.Second, "nothing").Err()
		}()
		time.Sleep(100 * time.Millisecond) // BLPOP has the connection
		bounded(t, "Renew", "renew", callTimeout, func() error { return l.Renew(bg) })
		bounded(t, "Release", "release", releaseTimeout, func() error { return l.Release(bg) })
		<-held
	})
}

// pausedTTL is the TTL of pausedWithLeases' leases.
const pausedTTL = 30 * time.Second

// pausedWithLeases starts a private redis-server, takes leases "a" and "b"
// (TTL pausedTTL) on a Client with opts over a go-redis client with
// ContextTimeoutEnabled cte (go-redis's defaults otherwise), loads
// Advance's script, and pauses the server (SIGSTOP: connections accepted,
// nothing answered) until t ends.
func pausedWithLeases(t *testing.T, cte bool, opts *Options) (*faults.Redis, *Client, *Lease, *Lease) {
	t.Helper()
	r := faults.StartRedis(t, faults.RedisOptions{})
	c := New(r.Client(&redis.Options{ContextTimeoutEnabled: cte}), opts)
	l1 := mustAcquire(t, c, "a", pausedTTL)
	l2 := mustAcquire(t, c, "b", pausedTTL)
	if _, err := c.Advance(bg, "a", 0); err != nil { // loads its script
		t.Fatal(err)
	}
	r.Pause()
	t.Cleanup(r.Resume)
	return r, c, l1, l2
}
