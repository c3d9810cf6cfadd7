package lease

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/runtime/fence"
)

// Issue 12, class 4: an Acquire against a stalled Redis gives up, but its
// request sits in the server's socket and runs when the server resumes,
// setting a lock key for an owner nobody has. The cleanup's abandon mark
// and its background retry free the resource as soon as the server is back
// instead of a TTL later. go-redis defaults: retries on, no context
// deadlines on sockets.
func TestStalledRedisLeavesNoGhostAfterRecovery(t *testing.T) {
	r := faults.StartRedis(t, faults.RedisOptions{})
	rdb := r.Client(&redis.Options{}) // go-redis defaults
	c := New(rdb, nil)
	const ttl = 3 * time.Second
	// A pooled connection (and the script loaded), so that the attempt is
	// written to the stalled server rather than waiting in a dial.
	if err := c.Check(bg); err != nil && !errors.Is(err, ErrUnsafeConfig) {
		t.Fatal(err)
	}
	resumed := r.PauseFor(2500 * time.Millisecond) // longer than the 1s ReleaseTimeout
	ctx, cancel := context.WithTimeout(bg, 300*time.Millisecond)
	_, err := c.Acquire(ctx, "res", ttl)
	cancel()
	if err == nil {
		t.Fatal("Acquire succeeded against a stalled Redis")
	}
	<-resumed
	back := time.Now()
	other := New(r.Client(&redis.Options{ContextTimeoutEnabled: true}), nil)
	for {
		l, err := other.Acquire(bg, "res", ttl)
		if err == nil {
			_ = l.Release(bg)
			break
		}
		if !errors.Is(err, ErrNotAcquired) {
			t.Fatal(err)
		}
		if time.Since(back) > 1500*time.Millisecond {
			t.Fatalf("resource still held by a ghost %v after Redis came back (TTL %v)", time.Since(back), ttl)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if v := getKey(t, r.Admin(), "fencegen:{res}:lock"); v != "" {
		t.Fatalf("lock key %q after release", v)
	}
}

// Issue 12, class 4: the cleanup of an attempt abandoned at its deadline
// runs on a context of its own, not the expired one of the attempt: the
// compare-and-delete is sent (and only then counted in Stats), so an
// attempt that landed leaves no key behind.
func TestAbandonedAttemptCleanupIsSentOnFreshContext(t *testing.T) {
	r := faults.StartRedis(t, faults.RedisOptions{})
	p := faults.StartProxy(t, r.Addr())
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr()}) // no socket deadlines from ctx
	t.Cleanup(func() { _ = rdb.Close() })
	c := New(rdb, &Options{AcquireRetries: -1})
	if err := c.Check(bg); err != nil && !errors.Is(err, ErrUnsafeConfig) {
		t.Fatal(err)
	}
	r.ResetStats()
	// The attempt lands; its reply comes after CallTimeout (167ms) and
	// after ReleaseTimeout (1s).
	p.SetLatency(faults.Downstream, 1500*time.Millisecond)
	_, err := c.Acquire(bg, "res", time.Second)
	if !errors.Is(err, ErrRedisTimeout) {
		t.Fatalf("Acquire = %v, want a timeout", err)
	}
	p.Heal()
	deadline := time.Now().Add(2 * time.Second)
	for getKey(t, r.Admin(), "fencegen:{res}:lock") != "" {
		if time.Now().After(deadline) {
			t.Fatal("ghost lock key left by the abandoned attempt")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // a counted call still in flight has run
	s := c.Stats()
	sent := r.CommandCalls()["evalsha"] - 1 // minus the acquire
	if int64(s.Releases) != sent || s.Releases == 0 {
		t.Fatalf("Stats.Releases = %d, but Redis ran %d release calls", s.Releases, sent)
	}
}

// An Acquire whose first attempt is cut off at its deadline and whose
// retry takes the lease: the first attempt is still on its way (here on a
// connection whose requests take 700ms through a slow proxy), and lands
// after the caller has released the lease. It must write nothing then: the
// release left this owner's mark, which lives as long as an abandon mark
// because an attempt had been cut off. Otherwise it would mint a token and
// lock the resource for an owner nobody has, for a whole TTL.
func TestLateAttemptAfterReleaseWritesNothing(t *testing.T) {
	r := faults.StartRedis(t, faults.RedisOptions{})
	slow, fast := faults.StartProxy(t, r.Addr()), faults.StartProxy(t, r.Addr())
	var dials atomic.Int64
	rdb := redis.NewClient(&redis.Options{ // go-redis defaults otherwise
		Addr: "unused:0",
		Dialer: func(ctx context.Context, network, _ string) (net.Conn, error) {
			to := slow.Addr() // odd dials take the slow path
			if dials.Add(1)%2 == 0 {
				to = fast.Addr()
			}
			var d net.Dialer
			return d.DialContext(ctx, network, to)
		},
	})
	t.Cleanup(func() { _ = rdb.Close() })
	// Two pooled connections, slow then fast, the scripts loaded.
	if err := New(r.Client(nil), nil).Check(bg); err != nil && !errors.Is(err, ErrUnsafeConfig) {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	ping := func() { wg.Go(func() { _ = rdb.Ping(bg).Err() }) }
	ping()
	time.Sleep(20 * time.Millisecond)
	ping()
	wg.Wait()
	slow.SetLatency(faults.Upstream, 700*time.Millisecond)
	// The slow connection back on top of the (LIFO) pool: it returns last.
	ping()
	time.Sleep(20 * time.Millisecond)
	ping()
	wg.Wait()

	c := New(rdb, nil)
	const ttl = 3 * time.Second // CallTimeout 500ms: the first attempt is cut off
	start := time.Now()
	l := mustAcquire(t, c, "res", ttl)
	if n := c.Stats().Acquires; n < 2 {
		t.Fatalf("acquired in %d attempt: the first attempt was not cut off", n)
	}
	if err := l.Release(bg); err != nil {
		t.Fatal(err)
	}
	// Wait for the first attempt to land (its connection's handshake and
	// then its request each take 700ms through the slow proxy).
	for r.CommandCalls()["evalsha"] < 4 && time.Since(start) < 5*time.Second { // Check's probe, both attempts, release
		time.Sleep(20 * time.Millisecond)
	}
	lockKey := "fencegen:{res}:lock"
	if v := r.Admin().Get(bg, lockKey).Val(); v != "" {
		t.Fatalf("resource released by its only holder is locked by %q (PTTL %v): the late first attempt took it", v, r.Admin().PTTL(bg, lockKey).Val())
	}
	if calls := r.CommandCalls()["evalsha"]; calls < 4 {
		t.Fatalf("evalsha calls = %d after 5s: the late attempt did not reach Redis", calls)
	}
}

// A first attempt names no abandon mark (acquire.lua's hot path, three
// keys): the cleanup of its Acquire lists the owner in the :minted
// record's abandon list, which the attempt's own :minted write returns. An
// attempt of that owner arriving after the cleanup, now or after other
// owners' leases, undoes its writes (lock, counter, :minted) and returns
// -2; every other acquisition carries the list over while the owner's
// mark lives, and drops the owner once the mark is gone.
func TestLateFirstAttemptAfterCleanupWritesNothing(t *testing.T) {
	e := newEnv(t)
	mint := mintKey(e.lockKey)
	c := New(e.rdb, &Options{UnsafeNoReplicas: true})
	late := newOwner()
	t.Cleanup(func() { e.rdb.Del(bg, mint, abandonKey(e.lockKey, late)) })
	first := func(owner string) int64 {
		t.Helper()
		n, err := acquireScript.Run(bg, e.rdb, []string{e.lockKey, e.counter, mint}, owner, 1000).Int64()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	release := func(owner string) {
		t.Helper()
		if n, err := releaseScript.Run(bg, e.rdb, []string{e.lockKey}, owner).Int64(); err != nil || n != 1 {
			t.Fatalf("release = %d, %v; want 1", n, err)
		}
	}
	unchanged := func(when string, counter, minted string) {
		t.Helper()
		if v := e.get(t, e.lockKey); v != "" {
			t.Fatalf("%s: the late attempt locked the resource (%q)", when, v)
		}
		if v := e.get(t, e.counter); v != counter {
			t.Fatalf("%s: counter %q, want %q (the late attempt's INCR undone)", when, v, counter)
		}
		if v := e.get(t, mint); v != minted {
			t.Fatalf("%s: :minted %q, want %q", when, v, minted)
		}
	}
	a := first(newOwner())
	if _, err := c.abandon(bg, e.lockKey, late, time.Second); err != nil {
		t.Fatal(err)
	}
	// a's lease still holds the lock: the late attempt is refused as
	// any other owner's.
	if n := first(late); n != 0 {
		t.Fatalf("late attempt while another lease holds the lock = %d, want 0", n)
	}
	lock := e.get(t, e.lockKey)
	release(lock)
	counter, minted := e.get(t, e.counter), e.get(t, mint)
	if want := lock + ":" + fence.Token(a).String() + "|" + late; minted != want {
		t.Fatalf(":minted = %q after the cleanup, want %q", minted, want)
	}
	if n := first(late); n != -2 {
		t.Fatalf("late attempt after the cleanup = %d, want -2", n)
	}
	unchanged("after the cleanup", counter, minted)

	b := newOwner()
	tb := first(b)
	if want := b + ":" + fence.Token(tb).String() + "|" + late; e.get(t, mint) != want {
		t.Fatalf(":minted = %q, want %q: the abandon list carried over while the mark lives", e.get(t, mint), want)
	}
	release(b)
	counter, minted = e.get(t, e.counter), e.get(t, mint)
	if n := first(late); n != -2 {
		t.Fatalf("late attempt after another lease = %d, want -2", n)
	}
	unchanged("after another lease", counter, minted)

	// The mark expired: the next acquisition drops the owner from the list.
	if err := e.rdb.Del(bg, abandonKey(e.lockKey, late)).Err(); err != nil {
		t.Fatal(err)
	}
	d := newOwner()
	td := first(d)
	if want := d + ":" + fence.Token(td).String(); e.get(t, mint) != want {
		t.Fatalf(":minted = %q, want %q: the owner whose mark expired still listed", e.get(t, mint), want)
	}
	release(d)
}
