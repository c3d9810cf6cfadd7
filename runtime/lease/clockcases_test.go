package lease

import (
	"context"
	"errors"
	"testing"
	"time"
)

// With a test clock the local deadline is exact: valid 1ns before send +
// TTL − SafetyMargin, lost at that instant with ReasonDeadline, Remaining
// counting down on the same clock; and no renewal is sent for the lease
// once it has ended.
func TestLocalDeadlineIsExactOnTestClock(t *testing.T) {
	e := newEnv(t)
	clk := newFakeClock(1)
	spy := &renewSpy{Scripter: e.rdb, onRenew: func(int, *Lease) (bool, func()) { return false, func() {} }}
	c := newClockClient(t, spy, &Options{MaxRenewFailures: 100}, clk)
	const ttl = time.Second // margin 100ms: deadline at 900ms
	l := mustAcquire(t, c, e.resource, ttl)
	spy.l.Store(l)
	defer l.Release(bg)
	if r := l.Remaining(); r != 900*time.Millisecond {
		t.Fatalf("Remaining = %v at acquire, want exactly 900ms", r)
	}
	clk.Advance(900*time.Millisecond - time.Nanosecond)
	// The renewals this woke (sent while the lease was valid) run on the
	// scheduler's goroutines: let them be sent before the deadline is
	// crossed, so that a late one below is one sent after the lease ended.
	time.Sleep(50 * time.Millisecond)
	if err := l.Err(); err != nil {
		t.Fatalf("lost 1ns before the deadline: %v", err)
	}
	if r := l.Remaining(); r != time.Nanosecond {
		t.Fatalf("Remaining = %v, want 1ns", r)
	}
	clk.Advance(time.Nanosecond)
	var lost *LostError
	if !errors.As(l.Err(), &lost) || lost.Reason != ReasonDeadline {
		t.Fatalf("at the deadline Err = %v, want the local deadline", l.Err())
	}
	if l.Remaining() != 0 {
		t.Fatal("Remaining not 0 after the deadline")
	}
	// Far past any renewal the heartbeat had queued.
	clk.Advance(5 * ttl)
	time.Sleep(50 * time.Millisecond) // the scheduler goroutine runs what the clock woke
	if n := spy.lateCalls(); n > 0 {
		t.Fatalf("%d renewals sent after the lease ended", n)
	}
}

// A process suspended past its lease (the clock jumps by 2·TTL at once, as
// after SIGSTOP or a VM pause) finds the lease lost by the local deadline
// on resuming, before any renewal is sent: the overdue renewal that the
// scheduler would otherwise send first never goes out.
func TestSuspendedClockLosesLeaseBeforeRenewing(t *testing.T) {
	e := newEnv(t)
	clk := newFakeClock(2)
	spy := &renewSpy{Scripter: e.rdb}
	c := newClockClient(t, spy, nil, clk)
	l := mustAcquire(t, c, e.resource, time.Second)
	spy.l.Store(l)
	defer l.Release(bg)
	clk.Advance(2 * time.Second)
	if !errors.Is(l.Err(), ErrLost) {
		t.Fatalf("after a 2s jump Err = %v, want lost", l.Err())
	}
	time.Sleep(50 * time.Millisecond)
	if n := spy.lateCalls(); n > 0 {
		t.Fatalf("%d renewals sent after the suspension ended the lease", n)
	}
}

// Issue 12, class 6: leases taken at the same instant by different
// processes (one Client each) get their renewals spread over the interval
// instead of renewing in lockstep, reproducibly under a seeded test clock,
// and never later than HeartbeatInterval.
func TestHeartbeatsOfLeasesTakenTogetherAreJittered(t *testing.T) {
	e := newEnv(t)
	clk := newFakeClock(3)
	const ttl = 3 * time.Second
	interval := ttl / 3
	start := clk.Now()
	var leases []*Lease
	for i := range 8 {
		c := newClockClient(t, e.rdb, &Options{KeyPrefix: e.resource + "-" + string(rune('a'+i))}, clk)
		l := mustAcquire(t, c, "res", ttl)
		defer l.Release(bg)
		leases = append(leases, l)
	}
	next := func(l *Lease) time.Time {
		return l.nextRenewal()
	}
	seen := map[time.Time]bool{}
	for _, l := range leases {
		n := next(l)
		if d := n.Sub(start); d > interval || d < interval/2 {
			t.Fatalf("first renewal %v after the acquire, want within [%v, %v]", d, interval/2, interval)
		}
		seen[n] = true
	}
	if len(seen) < len(leases)-1 {
		t.Fatalf("%d distinct first renewal times for %d leases taken together", len(seen), len(leases))
	}
	// The same seed gives the same schedule.
	clk2 := newFakeClock(3)
	c := newClockClient(t, e.rdb, &Options{KeyPrefix: e.resource + "-a2"}, clk2)
	l := mustAcquire(t, c, "res", ttl)
	defer l.Release(bg)
	if got, want := next(l).Sub(clk2.Now()), next(leases[0]).Sub(start); got != want {
		t.Fatalf("seeded schedule not reproducible: %v then %v", want, got)
	}
}

// Issue 12, class 5: AcquireWait after nothing but timeouts says so; it
// does not match ErrNotAcquired, so the "someone else holds it" branch of
// a caller never skips work that nobody holds.
func TestAcquireWaitAfterOnlyTimeoutsIsNotNotAcquired(t *testing.T) {
	e := newEnv(t)
	c := New(&stall{Scripter: e.rdb, shas: map[string]bool{acquireScript.Hash(): true}}, &Options{UnsafeNoReplicas: true, AcquireRetries: -1})
	ctx, cancel := context.WithTimeout(bg, 500*time.Millisecond)
	defer cancel()
	_, err := c.AcquireWait(ctx, e.resource, 600*time.Millisecond) // CallTimeout 100ms
	if errors.Is(err, ErrNotAcquired) {
		t.Fatalf("AcquireWait after only timeouts = %v, matches ErrNotAcquired", err)
	}
	if !errors.Is(err, ErrRedisTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AcquireWait = %v, want a Redis timeout and the context's deadline", err)
	}

	// Held by another owner until the context ends: ErrNotAcquired.
	holder := mustAcquire(t, New(e.rdb, nil), e.resource, 10*time.Second)
	defer holder.Release(bg)
	ctx, cancel = context.WithTimeout(bg, 200*time.Millisecond)
	defer cancel()
	if _, err := New(e.rdb, nil).AcquireWait(ctx, e.resource, time.Second); !errors.Is(err, ErrNotAcquired) {
		t.Fatalf("AcquireWait on a held lease = %v, want ErrNotAcquired", err)
	}
}

// Right after a suspension past the local deadline, before the deadline
// timer has run (the clock jumped, no timer fired), Err already reports
// the lease lost by the deadline, its context is cancelled, and Remaining
// is 0: "check Err, then write" never sees a valid lease past its deadline.
func TestErrSeesThePassedDeadlineBeforeItsTimer(t *testing.T) {
	e := newEnv(t)
	clk := newFakeClock(4)
	c := newClockClient(t, e.rdb, &Options{HeartbeatInterval: -1}, clk)
	l := mustAcquire(t, c, e.resource, time.Second) // deadline at 900ms
	defer l.Release(bg)
	clk.Jump(900*time.Millisecond - time.Nanosecond)
	if err := l.Err(); err != nil {
		t.Fatalf("lost before the deadline: %v", err)
	}
	clk.Jump(time.Nanosecond)
	if l.Context().Err() != nil {
		t.Fatal("the context ended without anyone looking: the timer ran")
	}
	var lost *LostError
	if err := l.Err(); !errors.As(err, &lost) || lost.Reason != ReasonDeadline {
		t.Fatalf("Err at the deadline, timer not run = %v, want lost by the local deadline", err)
	}
	if l.Context().Err() == nil || l.Remaining() != 0 {
		t.Fatalf("after Err: context %v, Remaining %v", l.Context().Err(), l.Remaining())
	}
}
