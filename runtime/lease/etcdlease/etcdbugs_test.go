package etcdlease_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fencegen/fencegen/internal/faults/etcdfaults"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
	"github.com/fencegen/fencegen/runtime/lease/etcdlease"
)

// etcd-io/etcd#9715: concurrency.Mutex.Lock returned ErrCompacted when the
// revision its waiter watched from was compacted, and left its lock node
// behind, blocking every later locker until its session ended. Here the
// history is compacted (and the member defragmented, which rewrites the
// backend but keeps the revision) between the waiter's read of the held
// key and its watch, so the watch starts from a compacted revision. The
// waiter neither fails nor leaves a key or an etcd lease behind: it gets
// the lock once the holder releases it, with a token above the holder's
// and above the compacted revision, and a later acquisition's token is
// higher again.
func TestCompactionUnderWaiterLeavesNoStaleLock(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	cli := e.Client()
	ctx := ctxT(t, 30*time.Second)
	holder, err := etcdlease.New(cli, &etcdlease.Options{TTL: ttl}).Acquire(ctx, "r", 0)
	if err != nil {
		t.Fatal(err)
	}
	c := etcdlease.New(cli, &etcdlease.Options{TTL: ttl})
	var once sync.Once
	var compactedTo, watchedFrom atomic.Int64
	hooked := make(chan struct{})
	etcdlease.BeforeWatch(c, func(from int64) {
		once.Do(func() {
			defer close(hooked)
			for range 5 {
				if _, err := cli.Put(ctx, "other", "x"); err != nil {
					t.Error(err)
					return
				}
			}
			g, err := cli.Get(ctx, "other")
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := cli.Compact(ctx, g.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
				t.Error(err)
				return
			}
			if _, err := cli.Defragment(ctx, e.Members[0].Endpoint()); err != nil {
				t.Error(err)
				return
			}
			watchedFrom.Store(from)
			compactedTo.Store(g.Header.Revision)
		})
	})
	type result struct {
		l   *etcdlease.Lease
		err error
	}
	got := make(chan result, 1)
	go func() {
		l, err := c.AcquireWait(ctx, "r", 0)
		got <- result{l, err}
	}()
	select {
	case <-hooked:
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter never watched")
	}
	if watchedFrom.Load() > compactedTo.Load() {
		t.Fatalf("watch from %d, compacted to %d: the watch did not start from a compacted revision", watchedFrom.Load(), compactedTo.Load())
	}
	// The watch from a compacted revision ends at once; a waiter that
	// returned or retried by writing would show here.
	time.Sleep(300 * time.Millisecond)
	select {
	case r := <-got:
		t.Fatalf("waiter returned while the lock was held: %v", r.err)
	default:
	}
	keys, err := cli.Get(ctx, "fencegen/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil || len(keys.Kvs) != 1 {
		t.Fatalf("keys while the waiter waits: %v %v, want the holder's lock only", keys, err)
	}
	if err := holder.Release(ctx); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("waiter not woken after the release")
	}
	if r.err != nil {
		t.Fatalf("AcquireWait after a compaction of its watched revision: %v", r.err)
	}
	if r.l.Token() <= holder.Token() || int64(r.l.Token()) <= compactedTo.Load() {
		t.Fatalf("waiter's token %d: holder's %d, compacted to %d", r.l.Token(), holder.Token(), compactedTo.Load())
	}
	// The failed attempts' etcd leases are revoked (in the background):
	// only the waiter's is left.
	deadline := time.Now().Add(5 * time.Second)
	for {
		ls, err := cli.Leases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ls.Leases) == 1 && ls.Leases[0].ID == r.l.ID() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("etcd leases %v, want the waiter's %x only", ls.Leases, r.l.ID())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := r.l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	next, err := c.Acquire(ctx, "r", 0)
	if err != nil {
		t.Fatal(err)
	}
	if next.Token() <= r.l.Token() {
		t.Fatalf("token %d after %d across a compaction and a defrag", next.Token(), r.l.Token())
	}
	_ = next.Release(ctx)
}

// etcd-io/etcd#9395, #9888 (a new leader resets every lease to its full
// TTL) and #2660 (TTL keys lost during an election); etcd-io/etcd#21126
// (keep-alives that require a leader): the cluster loses its quorum while
// a lease is held. The holder cannot renew, and its lease context ends
// within TTL − SafetyMargin of its last renewal; etcd, which has no
// leader, expires nothing, and once the quorum is back its new leader
// gives the orphaned etcd lease a fresh TTL. Another client then gets
// the lock only after that lease expired, with a higher token, after the
// holder had stopped; the holder's late Release leaves the new lock
// alone.
func TestQuorumLossWhileHeld(t *testing.T) {
	e := etcdfaults.Start(t, 3)
	// The last renewal etcd granted: a leader that has not yet noticed
	// the lost quorum (it steps down after an election timeout) still
	// answers keep-alives, and the lease's local deadline counts from
	// the renewal it was granted last, which may be after the cut.
	var renewedAt atomic.Int64
	holder := etcdlease.New(e.Client(), &etcdlease.Options{TTL: ttl, Observer: &lease.Observer{Event: func(_ context.Context, ev lease.Event) {
		if ev.Kind == lease.EventRenewed || ev.Kind == lease.EventAcquired {
			renewedAt.Store(time.Now().UnixNano())
		}
	}}})
	ctx := ctxT(t, 60*time.Second)
	l, err := holder.Acquire(ctx, "r", 0)
	if err != nil {
		t.Fatal(err)
	}
	var lostAt atomic.Int64
	context.AfterFunc(l.Context(), func() { lostAt.Store(time.Now().UnixNano()) })
	cut := time.Now()
	e.Members[1].Kill()
	e.Members[2].Kill()
	lost := waitLost(t, l, 2*ttl)
	lostBy := time.Now()
	if lost.Reason != lease.ReasonRenewFailed && lost.Reason != lease.ReasonDeadline {
		t.Fatalf("lost without a quorum: %v, want failed renewals or the local deadline", lost)
	}
	last := time.Unix(0, renewedAt.Load())
	if d := lostBy.Sub(last); d > ttl-ttl/10+200*time.Millisecond {
		t.Fatalf("lease lost %v after its last granted renewal (%v after the quorum went), past TTL − SafetyMargin", d, lostBy.Sub(cut))
	}
	// Past the etcd lease's TTL from the cut (the last renewal was
	// earlier still): a leader would have expired it.
	time.Sleep(ttl + 200*time.Millisecond - time.Since(cut))
	e.Members[1].Start()
	e.Members[2].Start()
	e.WaitHealthy()
	if r, err := e.Client().TimeToLive(ctx, l.ID()); err != nil || r.TTL <= 0 {
		t.Logf("the holder's etcd lease after the quorum came back: %+v %v (etcd-io/etcd#9395 expects it refreshed)", r, err)
	}
	other := etcdlease.New(e.Client(), &etcdlease.Options{TTL: ttl})
	l2, err := other.AcquireWait(ctx, "r", 0)
	if err != nil {
		t.Fatal(err)
	}
	got := time.Now()
	if at := time.Unix(0, lostAt.Load()); !at.Before(got) {
		t.Fatalf("holder lost at %v, after the next holder acquired at %v", at.Sub(cut), got.Sub(cut))
	}
	if l2.Token() <= l.Token() {
		t.Fatalf("token %d after %d across a quorum loss", l2.Token(), l.Token())
	}
	if err := l.Release(ctx); !errors.Is(err, lease.ErrNotHeld) {
		t.Fatalf("the lost holder's Release after the takeover: %v, want ErrNotHeld", err)
	}
	if !lockExists(t, e.Client(), other, "r") || l2.Err() != nil {
		t.Fatalf("the new holder's lock is gone after the old holder's release (%v)", l2.Err())
	}
	_ = l2.Release(ctx)
}

// etcd-io/etcd#11886 and etcd-io/jetcd#749: with tens of thousands of
// leases, keep-alives stopped keeping them (etcd-io/etcd#7323: clientv3's
// renewal schedule; clientv3's KeepAlive also drops responses when its
// channel is full and nobody reads it). Here 200 leases of one Client,
// renewed on its one shared keep-alive stream, live through two TTLs,
// each renewed about every TTL/3, and all of their lock keys exist.
func TestManyLeasesOnOneStream(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	cli := e.Client()
	ev := &events{}
	// A TTL three times the package's: the test is about the renewal
	// schedule of many leases on one stream, not about how fast a call
	// returns, and under -race on a loaded machine a renewal took longer
	// than the package TTL's call timeout (TTL/6).
	const manyTTL = 3 * ttl
	c := etcdlease.New(cli, &etcdlease.Options{TTL: manyTTL, Observer: ev.observer()})
	ctx := ctxT(t, 90*time.Second)
	const n = 200
	ls := make([]*etcdlease.Lease, n)
	for i := range ls {
		// AcquireWait retries a grant cut off by CallTimeout (TTL/6) on
		// a loaded machine.
		l, err := c.AcquireWait(ctx, fmt.Sprint("r", i), 0)
		if err != nil {
			t.Fatal(err)
		}
		ls[i] = l
	}
	before := c.Stats().Renewals
	time.Sleep(2 * manyTTL)
	for _, l := range ls {
		if err := l.Err(); err != nil {
			t.Fatalf("lease %s lost: %v (%d renewals failed)", l.Resource(), err, len(ev.kinds(lease.EventRenewFailed)))
		}
	}
	// 2 TTLs at one renewal per TTL/3: about 6 per lease.
	if got := c.Stats().Renewals - before; got < n*4 {
		t.Fatalf("%d renewals of %d leases in 2 TTLs, want at least %d", got, n, n*4)
	}
	g, err := cli.Get(ctx, "fencegen/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil || g.Count != n {
		t.Fatalf("%d lock keys (%v), want %d", g.Count, err, n)
	}
	for _, l := range ls {
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// etcd-io/etcd#5214 (a put sent to a follower as the leader died waited
// forever), etcd-io/etcd#5832 (a compare-and-swap reported failed whose
// key was stored) and abronan/libkv#50 (a failed lock write retried, and
// two clients held the lock): the leader is killed between an Acquire's
// grant and its transaction. Acquire returns within its CallTimeout
// (plus a dial check), either with a lease whose lock key etcd holds at
// its token, or with an error and nothing held for longer than the TTL:
// another client's AcquireWait then gets the lock, with a higher token,
// and never while the first holds it.
func TestLeaderKilledDuringAcquire(t *testing.T) {
	e := etcdfaults.Start(t, 3)
	const ttl3 = 3 * time.Second
	c := etcdlease.New(e.Client(), &etcdlease.Options{TTL: ttl3})
	ctx := ctxT(t, 60*time.Second)
	var killed *etcdfaults.EtcdMember
	etcdlease.AfterGrant(c, func(clientv3.LeaseID) {
		if killed == nil {
			killed = e.Leader()
			killed.Kill()
		}
	})
	start := time.Now()
	l, err := c.Acquire(ctx, "r", 0)
	if took := time.Since(start); took > ttl3/6+2*time.Second {
		t.Fatalf("Acquire returned %v after the leader died (%v): it waited past its CallTimeout", took, err)
	}
	t.Logf("acquire with the leader killed: %v", err)
	killed.Start()
	e.WaitHealthy()
	other := etcdlease.New(e.Client(), &etcdlease.Options{TTL: ttl3})
	if err == nil {
		lock, _ := c.Keys("r")
		g, gerr := e.Client().Get(ctx, lock)
		if gerr != nil || len(g.Kvs) != 1 || fence.Token(g.Kvs[0].CreateRevision) != l.Token() || clientv3.LeaseID(g.Kvs[0].Lease) != l.ID() {
			t.Fatalf("acquired token %d, lease %x; lock key %v %v", l.Token(), l.ID(), g, gerr)
		}
		if _, err := other.Acquire(ctx, "r", 0); !errors.Is(err, lease.ErrNotAcquired) {
			t.Fatalf("a second client while the first holds the lease: %v, want ErrNotAcquired", err)
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 2*ttl3+2*time.Second)
	defer cancel()
	l2, err2 := other.AcquireWait(wctx, "r", 0)
	if err2 != nil {
		t.Fatalf("resource still held %v after an Acquire that returned %v", 2*ttl3+2*time.Second, err)
	}
	if l != nil && l2.Token() <= l.Token() {
		t.Fatalf("token %d after %d", l2.Token(), l.Token())
	}
	_ = l2.Release(ctx)
}

// etcd-io/etcd#15247: a leader stuck on a slow fdatasync or a busy CPU
// answered no keep-alive, and when it came back it revoked every lease at
// once, while their holders, which had heard nothing, worked on. Here the
// only member is frozen with SIGSTOP past the TTL: the holder's context
// ends by its local deadline (or two failed renewals) while etcd is
// still frozen, so it has stopped before etcd can expire its lease; once
// etcd resumes, another client gets the lock with a higher token, and the
// holder's late Release leaves that lock alone.
func TestStalledMemberExpiresLeaseAfterHolderStopped(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	m := e.Members[0]
	holder := etcdlease.New(e.Client(), &etcdlease.Options{TTL: ttl})
	other := etcdlease.New(e.Client(), &etcdlease.Options{TTL: ttl})
	ctx := ctxT(t, 60*time.Second)
	l, err := holder.Acquire(ctx, "r", 0)
	if err != nil {
		t.Fatal(err)
	}
	m.Pause()
	paused := time.Now()
	lost := waitLost(t, l, ttl)
	if lost.Reason != lease.ReasonRenewFailed && lost.Reason != lease.ReasonDeadline {
		t.Fatalf("lost while etcd was frozen: %v", lost)
	}
	time.Sleep(ttl + 500*time.Millisecond - time.Since(paused)) // frozen past the TTL
	m.Resume()
	l2, err := other.AcquireWait(ctx, "r", 0)
	if err != nil {
		t.Fatal(err)
	}
	if l2.Token() <= l.Token() {
		t.Fatalf("token %d after %d", l2.Token(), l.Token())
	}
	// A keep-alive the frozen member received before its stall may still
	// have renewed the old etcd lease: Release then revokes it (nil);
	// else the lease is gone (ErrNotHeld). Either way l2 keeps its lock.
	if err := l.Release(ctx); err != nil && !errors.Is(err, lease.ErrNotHeld) {
		t.Fatalf("the stalled holder's Release: %v", err)
	}
	if !lockExists(t, e.Client(), other, "r") || l2.Err() != nil {
		t.Fatalf("the new holder's lock is gone after the old holder's release (%v)", l2.Err())
	}
	_ = l2.Release(ctx)
}
