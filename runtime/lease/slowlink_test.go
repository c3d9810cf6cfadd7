package lease

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/runtime/fence"
)

// renewTally counts renewals and failed renewals per resource.
type renewTally struct {
	mu              sync.Mutex
	renewed, failed map[string]int
}

func (r *renewTally) observer() *Observer {
	r.renewed, r.failed = map[string]int{}, map[string]int{}
	return &Observer{
		OnRenewed: func(res string, _ fence.Token) {
			r.mu.Lock()
			r.renewed[res]++
			r.mu.Unlock()
		},
		OnRenewFailed: func(res string, _ fence.Token, _ error, _ int) {
			r.mu.Lock()
			r.failed[res]++
			r.mu.Unlock()
		},
	}
}

func (r *renewTally) get(res string) (renewed, failed int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.renewed[res], r.failed[res]
}

// Issue 26 (trial N5): a link whose round trip is TTL/5 (600ms at TTL 3s)
// keeps every lease: the first renewal included (the first Acquire, which
// found the scripts missing on a fresh server, loaded all of them, so the
// renewal is one EVALSHA, not NOSCRIPT then EVAL), and after a renewal
// whose reply came a round trip late, past its bound (TTL/3): the call is
// cut off and counted as failed, but it keeps its connection and its late
// reply moves the local deadline, and the next renewal, the last before a
// loss, is waited for until the local deadline. A round trip beyond
// TTL − SafetyMargin − HeartbeatInterval loses the leases, by renewals
// that timed out. All figures are ratios of the TTL.
func TestSlowLinkKeepsLeases(t *testing.T) {
	const ttl = 3 * time.Second
	rtt := ttl / 5
	r := faults.StartRedis(t, faults.RedisOptions{})
	p := faults.StartProxy(t, r.Addr())
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), MaxRetries: -1, ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = rdb.Close() })
	var tally renewTally
	c := New(rdb, &Options{TTL: ttl, Observer: tally.observer()})

	// A fresh server (no Check): the first Acquire finds no script. One
	// lease renewed alone (the renew script), then two renewed together
	// (renew_many, in a pipeline).
	alone := mustAcquire(t, c, "alone", ttl)
	defer alone.Release(bg)
	time.Sleep(100 * time.Millisecond) // past the grouping window
	pair := []*Lease{mustAcquire(t, c, "pair0", ttl), mustAcquire(t, c, "pair1", ttl)}
	for _, l := range pair {
		defer l.Release(bg)
	}
	all := append([]*Lease{alone}, pair...)
	held := func(phase string) {
		t.Helper()
		for _, l := range all {
			n, failed := tally.get(l.Resource())
			if err := l.Err(); err != nil {
				t.Fatalf("%s: lease %s lost at a round trip of TTL/%d: %v (%d renewals, %d failed)", phase, l.Resource(), ttl/rtt, err, n, failed)
			}
		}
	}

	// A client in service has connections open: the heartbeat makes up
	// to two renewal calls at a time (maxBatchesInFlight), and a renewal
	// sent while one cut off at its bound is still on its way takes
	// another. Each is one round trip on an open connection; a call that
	// has to open one pays go-redis's handshake first, two or three
	// round trips more (see docs/lease.md).
	var wg sync.WaitGroup
	for range maxBatchesInFlight + 2 {
		wg.Go(func() {
			if err := rdb.Do(bg, "ping").Err(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	p.SetLatency(faults.Both, rtt/2)
	time.Sleep(2 * ttl) // about six renewals, the first one included
	held("steady")
	for _, l := range all {
		if n, _ := tally.get(l.Resource()); n < 3 {
			t.Fatalf("lease %s renewed %d times in 2×TTL, want at least 3", l.Resource(), n)
		}
	}

	// One renewal call of each kind (a lease whose group has no other
	// member is renewed by the renew script) answers a round trip later
	// than usual: past its bound (TTL/3), so it is cut off and counted as
	// failed.
	p.DelayReply([]byte(renewScript.Hash()), 1, rtt)
	p.DelayReply([]byte(renewManyScript.Hash()), 1, rtt)
	time.Sleep(2 * ttl)
	held("after one renewal timed out")
	failed := 0
	for _, l := range all {
		_, f := tally.get(l.Resource())
		failed += f
	}
	if failed == 0 {
		t.Fatal("no renewal failed: the delayed replies did not time out")
	}

	// Negative control: a round trip of 0.7·TTL, beyond TTL − SafetyMargin
	// − HeartbeatInterval (about 0.57·TTL): every reply comes after the
	// local deadline it could have moved. The lease is lost by its
	// renewals that timed out, or at its local deadline, whichever comes
	// first; the cause names the timeout either way.
	p.SetLatency(faults.Both, 7*ttl/20)
	select {
	case <-alone.Context().Done():
	case <-time.After(2 * ttl):
		t.Fatalf("lease kept at a round trip of %v, above TTL − SafetyMargin − HeartbeatInterval", 7*ttl/10)
	}
	err := alone.Err()
	var lost *LostError
	if !errors.As(err, &lost) || (lost.Reason != ReasonRenewFailed && lost.Reason != ReasonDeadline) || !errors.Is(err, ErrTimeout) {
		t.Fatalf("lost with %v, want failed renewals or the local deadline, after renewals that timed out", err)
	}
	t.Logf("lost as documented: %v", err)
}

// A NOSCRIPT reply to any script loads every script of the package in
// the same round trip (SCRIPT LOAD, then the call again), so that the
// first renewal after the first Acquire on a fresh server, or the first
// call after a SCRIPT FLUSH, is not the one that pays NOSCRIPT and EVAL
// (issue 26, trial N5): after an Acquire on a server without scripts, and
// again after a flush and a Release, every script exists.
func TestNoScriptLoadsEveryScript(t *testing.T) {
	r := faults.StartRedis(t, faults.RedisOptions{})
	rdb := r.Client(&redis.Options{ContextTimeoutEnabled: true})
	c := New(rdb, nil)
	var shas []string
	for sha := range leaseScripts {
		shas = append(shas, sha)
	}
	loaded := func(when string) {
		t.Helper()
		got, err := r.Admin().ScriptExists(bg, shas...).Result()
		if err != nil {
			t.Fatal(err)
		}
		for i, ok := range got {
			if !ok {
				t.Errorf("%s: script %s not loaded", when, shas[i])
			}
		}
	}
	if err := r.Admin().ScriptFlush(bg).Err(); err != nil {
		t.Fatal(err)
	}
	l := mustAcquire(t, c, "noscript", 10*time.Second)
	loaded("after the first Acquire")
	if err := r.Admin().ScriptFlush(bg).Err(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(bg); err != nil {
		t.Fatal(err)
	}
	loaded("after a flush and a Release")
	if err := r.Admin().ScriptFlush(bg).Err(); err != nil {
		t.Fatal(err)
	}
	l = mustAcquire(t, c, "noscript", 10*time.Second)
	defer l.Release(bg)
	if err := r.Admin().ScriptFlush(bg).Err(); err != nil {
		t.Fatal(err)
	}
	if err := l.Renew(bg); err != nil {
		t.Fatal(err)
	}
	loaded("after a flush and a Renew")
}
