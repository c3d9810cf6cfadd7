package lease

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/runtime/fence"
)

// lastRenewal records, per lease, the time each successful renewal was
// observed (never earlier than its send time).
type lastRenewal struct {
	mu sync.Mutex
	at time.Time
}

func (r *lastRenewal) observer() *Observer {
	return &Observer{OnRenewed: func(string, fence.Token) {
		r.mu.Lock()
		r.at = time.Now()
		r.mu.Unlock()
	}}
}

func (r *lastRenewal) get() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.at
}

// S02 (etcd#10811, CURATOR-206, CURATOR-604): A is partitioned from Redis
// (blackhole through the proxy) for 2×TTL while PostgreSQL stays reachable;
// B acquires over a healthy path and writes. A's context ends no later than
// its last successful renewal + TTL − margin (in practice after two failed
// renewals); A's writes after B's acquisition are stale; when the
// partition heals A does not come back as holder.
func TestPartitionedHolderStopsBeforeTakeover(t *testing.T) {
	const ttl = 900 * time.Millisecond
	r, p, viaProxy := proxied(t)
	direct := r.Client(nil)
	db := newAccounts(t, 10)
	var rec lastRenewal
	a := mustAcquire(t, New(viaProxy, &Options{Observer: rec.observer()}), "acct:10", ttl)
	defer a.Release(bg)
	time.Sleep(ttl / 2) // at least one renewal went through
	p.Blackhole(faults.Both, true)
	cut := time.Now()

	waitDone(t, a.Context(), 2*ttl)
	ended := time.Now()
	last := rec.get()
	if last.IsZero() {
		last = cut
	}
	margin := ttl / 10
	if late := ended.Sub(last.Add(ttl - margin)); late > 30*time.Millisecond {
		t.Fatalf("A's context ended %v after last renewal + TTL − margin", late)
	}
	var lost *LostError
	if !errors.As(a.Err(), &lost) || lost.Reason != ReasonRenewFailed {
		t.Fatalf("A's cause = %v, want renewals failed", a.Err())
	}

	b, err := New(direct, nil).AcquireWait(context.Background(), "acct:10", ttl)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release(bg)
	if acquired := time.Since(ended); acquired < 0 {
		t.Fatal("B acquired before A stopped")
	}
	if err := db.credit(b.Context(), 10, 3, b.Token()); err != nil {
		t.Fatal(err)
	}
	if err := db.credit(bg, 10, 1, a.Token()); !errors.Is(err, fence.ErrStaleToken) {
		t.Fatalf("A's write after B's acquisition = %v, want stale", err)
	}
	if time.Since(cut) < 2*ttl {
		time.Sleep(2*ttl - time.Since(cut))
	}
	p.Blackhole(faults.Both, false)
	if err := a.Renew(bg); !errors.Is(err, ErrLost) {
		t.Fatalf("A's Renew after the partition healed = %v, want the loss", err)
	}
	if a.Err() == nil || b.Err() != nil {
		t.Fatalf("after healing: A %v, B %v", a.Err(), b.Err())
	}
}

// S06 (redisson#775, iceberg#2034, pglock#40/#42, consul#830/#1162): a
// renewal failure policy that neither dies on one error nor hides a
// persistent one, on the pipelined heartbeat path through a real proxy:
// (a) one renewal blackholed, then healed; (c) renewals answered with
// LOADING and READONLY errors; (d) a restart that keeps the data and ends
// within one heartbeat period (standing in for a quick failover). The
// context stays live, a warning callback fires, the failure count resets.
// (b) two consecutive failures lose the lease: see TestRenewFailurePolicy.
func TestTransientRenewalFailuresAreSurvived(t *testing.T) {
	const ttl = 1200 * time.Millisecond
	t.Run("one timeout", func(t *testing.T) {
		_, p, rdb := proxied(t)
		failed := make(chan int, 10)
		c := New(rdb, &Options{Observer: &Observer{OnRenewFailed: func(_ string, _ fence.Token, _ error, n int) { failed <- n }}})
		l := mustAcquire(t, c, "s06a", ttl)
		defer l.Release(bg)
		l2 := mustAcquire(t, c, "s06a-2", ttl) // two leases: a pipelined batch
		defer l2.Release(bg)
		p.Blackhole(faults.Both, true)
		if n := <-failed; n != 1 {
			t.Fatalf("consecutive = %d", n)
		}
		// The partition heals with the connections open, as a short one
		// does: resetting them here (ResetAll) would be a second fault, and
		// a renewal in flight at that moment a second failure in a row.
		p.Blackhole(faults.Both, false)
		time.Sleep(ttl)
		if l.Err() != nil || l2.Err() != nil {
			t.Fatalf("lease ended after one failed renewal: %v / %v", l.Err(), l2.Err())
		}
		if l.Remaining() < ttl/3 {
			t.Fatalf("validity %v after recovery: renewals did not resume", l.Remaining())
		}
	})
	t.Run("LOADING and READONLY", func(t *testing.T) {
		e := newEnv(t)
		var n atomic.Int32
		f := &flaky{Scripter: e.rdb, fault: func(sha string) (error, bool) {
			if sha == renewScript.Hash() {
				switch n.Add(1) {
				case 1:
					return replyErr(loadingErr), false
				case 3:
					return replyErr(readonlyErr), false
				}
			}
			return nil, false
		}}
		// Only the two injected error replies are counted: on a loaded
		// machine a renewal may also time out, which is another failure
		// the lease survives, not the one this test is about.
		var failures atomic.Int32
		c := New(f, &Options{UnsafeNoReplicas: true, Observer: &Observer{OnRenewFailed: func(_ string, _ fence.Token, err error, k int) {
			if err == nil || !(strings.Contains(err.Error(), "LOADING") || strings.Contains(err.Error(), "READONLY")) {
				return
			}
			if k != 1 {
				t.Errorf("consecutive failures = %d at %v, want 1 (reset after each success)", k, err)
			}
			failures.Add(1)
		}}})
		l := mustAcquire(t, c, e.resource, 600*time.Millisecond)
		defer l.Release(bg)
		time.Sleep(1500 * time.Millisecond)
		if l.Err() != nil || failures.Load() != 2 {
			t.Fatalf("lease %v after 2 isolated error replies (failures seen %d)", l.Err(), failures.Load())
		}
	})
	t.Run("quick restart keeping data", func(t *testing.T) {
		r, rdb := private(t, privateOpts)
		c := New(rdb, nil)
		l := mustAcquire(t, c, "s06d", ttl)
		defer l.Release(bg)
		time.Sleep(ttl / 6)
		r.Restart(true)
		time.Sleep(ttl)
		if l.Err() != nil {
			t.Fatalf("lease lost across a quick restart that kept the key: %v", l.Err())
		}
	})
}

// replyErr is a Redis error reply (it implements redis.Error).
type replyErr string

func (e replyErr) Error() string { return string(e) }
func (replyErr) RedisError()     {}

var (
	loadingErr  = "LOADING Redis is loading the dataset in memory"
	readonlyErr = "READONLY You can't write against a read only replica."
)

// S07 (etcd#5571, etcd#6922, dynamolock#446): Redis stops answering in
// three ways: blackhole (connections accepted, nothing returned), every
// connection reset, DEBUG SLEEP on the server. Every renewal has its own
// deadline; the lease context ends within 2 heartbeat periods + 2 call
// timeouts (+ slack) of the last successful renewal, and never after the
// local deadline.
func TestUnreachableRedisEndsLeaseInTime(t *testing.T) {
	const ttl = 600 * time.Millisecond
	interval, call, margin := ttl/3, ttl/6, ttl/10
	check := func(t *testing.T, l *Lease, rec *lastRenewal, broke time.Time) {
		t.Helper()
		waitDone(t, l.Context(), 2*ttl)
		ended := time.Now()
		last := rec.get()
		if last.IsZero() || last.After(broke) {
			last = broke
		}
		if took := ended.Sub(last); took > 2*interval+2*call+60*time.Millisecond {
			t.Fatalf("context ended %v after the last renewal, want ≤ 2 periods + 2 call timeouts", took)
		}
		if late := ended.Sub(last.Add(ttl - margin)); late > 30*time.Millisecond {
			t.Fatalf("context ended %v after the local deadline", late)
		}
		if !errors.Is(l.Err(), ErrLost) {
			t.Fatalf("cause = %v", l.Err())
		}
	}
	t.Run("blackhole", func(t *testing.T) {
		_, p, rdb := proxied(t)
		var rec lastRenewal
		l := mustAcquire(t, New(rdb, &Options{Observer: rec.observer()}), "s07", ttl)
		defer l.Release(bg)
		time.Sleep(ttl / 2)
		p.Blackhole(faults.Downstream, true)
		check(t, l, &rec, time.Now())
		p.Heal()
	})
	t.Run("connection resets", func(t *testing.T) {
		_, p, rdb := proxied(t)
		var rec lastRenewal
		l := mustAcquire(t, New(rdb, &Options{Observer: rec.observer()}), "s07", ttl)
		defer l.Release(bg)
		time.Sleep(ttl / 2)
		p.ResetNew(true)
		p.ResetAll()
		check(t, l, &rec, time.Now())
		p.Heal()
	})
	t.Run("DEBUG SLEEP", func(t *testing.T) {
		r, rdb := private(t, faults.RedisOptions{Args: []string{"--enable-debug-command", "yes"}})
		var rec lastRenewal
		l := mustAcquire(t, New(rdb, &Options{Observer: rec.observer()}), "s07", ttl)
		defer l.Release(bg)
		time.Sleep(ttl / 2)
		slept := make(chan error, 1)
		go func() { _, err := r.Do("DEBUG", "SLEEP", "1.5"); slept <- err }()
		time.Sleep(20 * time.Millisecond)
		check(t, l, &rec, time.Now().Add(-20*time.Millisecond))
		if err := <-slept; err != nil {
			t.Fatalf("DEBUG SLEEP: %v", err)
		}
	})
}
