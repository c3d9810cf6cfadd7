package lease

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
)

// idle reports whether c's heartbeat scheduler holds no lease and no
// goroutine.
func (c *Client) idle() bool {
	c.hb.mu.Lock()
	defer c.hb.mu.Unlock()
	return len(c.hb.q) == 0 && !c.hb.running
}

// nextRenewal returns when the heartbeat renews l next (its group's
// renewal time), or the zero time if l is not scheduled.
func (l *Lease) nextRenewal() time.Time {
	l.c.hb.mu.Lock()
	defer l.c.hb.mu.Unlock()
	if g := l.hb.g; g != nil {
		return g.next
	}
	return time.Time{}
}

// S05 (dynamolock#15, flamingo-commerce#290, projecteru2#399): 10,000
// iterations mixing acquired / not acquired / cancelled / timed out
// acquires, successful and failing releases and panicking work. Afterwards
// no goroutine is left (goleak), the heartbeat scheduler is idle, and within
// one TTL no lock key with the test's prefix remains (none is renewed).
func TestNoLeakAcrossTenThousandMixedLifecycles(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	rdb := testenv.Redis(t)
	prefix := testenv.Key(t, "p")
	var failRelease atomic.Bool
	f := &flaky{Scripter: rdb, fault: func(sha string) (error, bool) {
		if failRelease.Load() && sha == releaseScript.Hash() {
			return errTimeout, false
		}
		return nil, false
	}}
	const ttl = 500 * time.Millisecond
	c := New(f, &Options{UnsafeNoReplicas: true, KeyPrefix: prefix})
	blocker := mustAcquire(t, c, "held", ttl)
	cancelled, cancel := context.WithCancel(bg)
	cancel()
	n := 10000
	if testing.Short() {
		n = 1000
	}
	for i := range n {
		res := fmt.Sprint("r", i%50)
		switch i % 6 {
		case 0: // acquired, released
			l := mustAcquire(t, c, res, ttl)
			if err := l.Release(bg); err != nil {
				t.Fatal(err)
			}
		case 1: // not acquired
			if _, err := c.Acquire(bg, "held", ttl); !errors.Is(err, ErrNotAcquired) {
				t.Fatal(err)
			}
		case 2: // context cancelled before the call
			if _, err := c.Acquire(cancelled, res, ttl); !errors.Is(err, context.Canceled) {
				t.Fatal(err)
			}
		case 3: // timed out
			ctx, cancel := context.WithTimeout(bg, time.Nanosecond)
			_, err := c.Acquire(ctx, res, ttl)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatal(err)
			}
		case 4: // release fails: the key must expire on its own
			l := mustAcquire(t, c, fmt.Sprint("relfail", i), ttl)
			failRelease.Store(true)
			if err := l.Release(bg); err == nil {
				t.Fatal("injected release failure not reported")
			}
			failRelease.Store(false)
		case 5: // work panics
			func() {
				defer func() { _ = recover() }()
				_ = c.Do(bg, res, ttl, func(context.Context, fence.Token) error { panic("boom") })
			}()
		}
	}
	if err := blocker.Release(bg); err != nil {
		t.Fatal(err)
	}
	time.Sleep(ttl + 50*time.Millisecond)
	if !c.idle() {
		t.Fatal("heartbeat scheduler still holds leases")
	}
	keys, err := rdb.Keys(bg, prefix+":*:lock").Result()
	if err != nil || len(keys) != 0 {
		t.Fatalf("lock keys alive one TTL after the loop: %v %v", keys, err)
	}
	counters, _ := rdb.Keys(bg, prefix+":*").Result()
	if len(counters) > 0 {
		rdb.Del(bg, counters...)
	}
}

// S08 (marin#8107, harness#1889, Immediate.Jobs#65): a work function writes
// every 100ms on the lease context; the key is deleted. The next write
// fails with context.Canceled (cause ErrLost) without reaching PostgreSQL;
// in the variant that ignores its context, every write after B's
// acquisition is stale; Do reports completion after loss as an error.
func TestLossStopsWorkAndIsReported(t *testing.T) {
	const ttl = 600 * time.Millisecond
	e := newEnv(t)
	db := newAccounts(t, 20)
	c := New(e.rdb, nil)
	var writes int
	err := c.Do(bg, e.resource, ttl, func(ctx context.Context, token fence.Token) error {
		for i := 0; ; i++ {
			if i == 2 {
				// The next write starts after the loss is noticed: a write
				// already in flight when the context ends may still commit
				// (cancelling cannot undo it), which this test is not about.
				e.rdb.Del(bg, e.lockKey)
				select {
				case <-ctx.Done():
				case <-time.After(5 * time.Second):
					t.Error("lease not lost within 5s of its key's deletion")
				}
			}
			err := db.credit(ctx, 20, 1, token)
			if err != nil {
				if !errors.Is(err, context.Canceled) || !errors.Is(context.Cause(ctx), ErrLost) {
					t.Errorf("write after loss = %v (cause %v)", err, context.Cause(ctx))
				}
				return nil // the work "completes"
			}
			writes++
			time.Sleep(100 * time.Millisecond)
		}
	})
	if !errors.Is(err, ErrLost) {
		t.Fatalf("Do = %v, want ErrLost: completing after loss is not success", err)
	}
	if bal, _ := db.row(t, 20); bal != int64(writes) {
		t.Fatalf("balance %d, %d successful writes: a write after loss reached PostgreSQL", bal, writes)
	}

	// The context-ignoring variant.
	err = c.Do(bg, e.resource, ttl, func(ctx context.Context, token fence.Token) error {
		e.rdb.Del(bg, e.lockKey)
		b := mustAcquire(t, New(e.rdb, nil), e.resource, ttl)
		defer b.Release(bg)
		if err := db.credit(b.Context(), 20, 100, b.Token()); err != nil {
			t.Error(err)
		}
		for range 3 {
			if err := db.credit(context.Background(), 20, 1, token); !errors.Is(err, fence.ErrStaleToken) {
				t.Errorf("write after B acquired = %v, want stale", err)
			}
		}
		return nil
	})
	if !errors.Is(err, ErrLost) {
		t.Fatalf("Do = %v, want ErrLost", err)
	}
}

// S11 (redisson#2714): the acquire's reply is delayed (proxy latency) past
// the caller's deadline, many times. Acquire returns the context error,
// starts no heartbeat, waits for the request and compare-and-deletes: the
// key is gone when Acquire returns.
func TestAbandonedAcquireLeavesNoGhost(t *testing.T) {
	_, p, rdb := proxied(t)
	c := New(rdb, nil)
	if err := c.Check(bg); err != nil && !errors.Is(err, ErrUnsafeConfig) {
		t.Fatal(err) // loads the scripts
	}
	p.SetLatency(faults.Downstream, 60*time.Millisecond)
	lockKey, _ := c.Keys("s11")
	for i := range 8 {
		ctx, cancel := context.WithTimeout(bg, 20*time.Millisecond)
		l, err := c.Acquire(ctx, "s11", time.Second)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || l != nil {
			t.Fatalf("iteration %d: Acquire = %v, %v", i, l, err)
		}
		if !c.idle() {
			t.Fatal("a heartbeat started for an abandoned acquire")
		}
		if n := rdb.Exists(bg, lockKey).Val(); n != 0 {
			t.Fatalf("iteration %d: ghost lock key after Acquire returned", i)
		}
	}
}

// S16 (etcd#17470, redisson#3521, #6198, dynamolock#560): the scoped helper
// releases on return and on panic (TestDoReleasesOnPanic); a raw lease whose
// goroutine exited keeps renewing as documented until released; a crashed
// process's key is gone within one TTL.
func TestDeadWorkerDoesNotKeepLease(t *testing.T) {
	const ttl = 900 * time.Millisecond
	r, rdb := private(t, privateOpts)
	c := New(rdb, nil)

	ch := make(chan *Lease)
	go func() { ch <- mustAcquire(t, c, "raw", ttl); runtime.Goexit() }()
	raw := <-ch
	time.Sleep(ttl + ttl/2)
	if raw.Err() != nil {
		t.Fatalf("raw lease ended although documented to renew until released: %v", raw.Err())
	}
	if err := raw.Release(bg); err != nil {
		t.Fatal(err)
	}

	if err := c.Do(bg, "scoped", ttl, func(context.Context, fence.Token) error { return nil }); err != nil {
		t.Fatal(err)
	}
	lockKey, _ := c.Keys("scoped")
	if n := rdb.Exists(bg, lockKey).Val(); n != 0 {
		t.Fatal("key survives a clean return from Do")
	}

	db := newAccounts(t, 21)
	w := startWorker(t, r.Addr(), db.dsn, "crash", 21, ttl, 0)
	w.Expect("write ", 10*time.Second)
	w.Kill()
	killed := time.Now()
	crashKey, _ := c.Keys("crash")
	for rdb.Exists(bg, crashKey).Val() != 0 {
		if time.Since(killed) > ttl+100*time.Millisecond {
			t.Fatal("crashed worker's key alive after one TTL")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// S17 (machine-config-operator#3185, KubeUser#77, external-attacher#609):
// a worker child process holding a lease with guarded writes in flight gets
// SIGTERM. It cancels its work, drains, then releases, so B acquires
// within about one retry interval rather than one TTL; when the work
// ignores its context longer than the drain deadline, the lease is not
// released before the work has returned.
func TestSigtermDrainsThenReleases(t *testing.T) {
	const ttl = 1500 * time.Millisecond
	for _, ignore := range []time.Duration{0, 800 * time.Millisecond} {
		t.Run(fmt.Sprint("ignore ", ignore), func(t *testing.T) {
			r, rdb := private(t, privateOpts)
			db := newAccounts(t, 22)
			w := startWorker(t, r.Addr(), db.dsn, "s17", 22, ttl, ignore)
			tA := tokenOf(t, w.Expect("acquired ", 10*time.Second))
			w.Expect("write ", 5*time.Second)
			time.Sleep(ttl / 2)
			c := New(rdb, &Options{RetryMax: 50 * time.Millisecond})
			w.Signal(syscall.SIGTERM)
			term := time.Now()
			b, err := c.AcquireWait(bg, "s17", ttl)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Release(bg)
			took := time.Since(term)
			if took < ignore {
				t.Fatalf("B acquired %v after SIGTERM, before the work (ignoring its context for %v) returned", took, ignore)
			}
			if took > ignore+ttl/3 {
				t.Fatalf("B acquired %v after SIGTERM: the lease was not released after the drain", took)
			}
			if l := w.Expect("done ", 5*time.Second); l != "done <nil>" && l != "done context canceled" {
				t.Fatalf("worker ended with %q", l)
			}
			if err := w.Wait(5 * time.Second); err != nil {
				t.Fatalf("worker exit: %v", err)
			}
			if err := db.credit(b.Context(), 22, 1, b.Token()); err != nil {
				t.Fatal(err)
			}
			if err := db.credit(bg, 22, 1, tA); !errors.Is(err, fence.ErrStaleToken) {
				t.Fatalf("write with A's token after release = %v, want stale", err)
			}
		})
	}
}

var _ redis.Scripter = (*flaky)(nil)

// AcquireWait whose context ends while an attempt's reply is still on the
// wire (proxy latency) reports the same thing as one that ends between
// attempts: not acquired, plus the context error; nothing is left held.
func TestAcquireWaitEndingMidAttemptIsNotAcquired(t *testing.T) {
	_, p, rdb := proxied(t)
	c := New(rdb, nil)
	if err := c.Check(bg); err != nil && !errors.Is(err, ErrUnsafeConfig) {
		t.Fatal(err) // loads the scripts
	}
	p.SetLatency(faults.Downstream, 60*time.Millisecond)
	lockKey, _ := c.Keys("wait-mid-attempt")
	ctx, cancel := context.WithTimeout(bg, 20*time.Millisecond)
	defer cancel()
	l, err := c.AcquireWait(ctx, "wait-mid-attempt", time.Second)
	if l != nil || errors.Is(err, ErrNotAcquired) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AcquireWait = %v, %v; want DeadlineExceeded, not ErrNotAcquired (no attempt was answered)", l, err)
	}
	if n := rdb.Exists(bg, lockKey).Val(); n != 0 {
		t.Fatal("ghost lock key after AcquireWait returned")
	}
}

// pauseHeartbeat freezes (or thaws) l's heartbeat: the scheduler sends no
// renewal for it while frozen (the hb.paused test hook).
func (l *Lease) pauseHeartbeat(on bool) {
	l.c.hb.pausing.Store(true)
	l.hb.paused.Store(on)
}
