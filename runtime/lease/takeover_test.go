package lease

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fencegen/fencegen/runtime/fence"
)

// S01 (redisson#5698, #5697, #2665): worker A, a child process writing row R
// in a loop with context-ignoring guarded UPDATEs, is frozen with SIGSTOP for
// 2×TTL. B cannot acquire before A's key expires, gets a higher token and
// writes R; when A resumes, its next UPDATE is refused as stale, R keeps B's
// write and token, and A's release leaves B's key alone.
func TestFrozenProcessIsFencedOutAfterTakeover(t *testing.T) {
	const ttl = 900 * time.Millisecond
	r, rdb := private(t, privateOpts)
	db := newAccounts(t, 1)
	a := startWorker(t, r.Addr(), db.dsn, "acct:1", 1, ttl, 50*time.Millisecond)
	tA := tokenOf(t, a.Expect("acquired ", 10*time.Second))
	a.Expect("write "+tA.String()+" ok", 5*time.Second)

	a.Pause()
	paused := time.Now()
	c := New(rdb, nil)
	ctx, cancel := context.WithTimeout(bg, 3*ttl)
	defer cancel()
	b, err := c.AcquireWait(ctx, "acct:1", 10*time.Second)
	if err != nil {
		t.Fatalf("B AcquireWait: %v", err)
	}
	defer b.Release(bg)
	if waited := time.Since(paused); waited < ttl-ttl/3-ttl/10 {
		t.Fatalf("B acquired %v after A froze: before A's key (renewed at most TTL/3 earlier) could expire", waited)
	}
	if b.Token() <= tA {
		t.Fatalf("tB = %d, not above tA = %d", b.Token(), tA)
	}
	if err := db.credit(b.Context(), 1, 100, b.Token()); err != nil {
		t.Fatalf("B's write: %v", err)
	}
	time.Sleep(2*ttl - time.Since(paused)) // A stays frozen for 2×TTL in all
	bBalance, _ := db.row(t, 1)
	bValue := getKey(t, rdb, b.lockKey)

	a.Resume()
	a.Expect("write "+tA.String()+" stale", 5*time.Second)
	if l := a.Expect("done ", 5*time.Second); !strings.Contains(l, "stale token") {
		t.Fatalf("worker A ended with %q, want the stale-token error", l)
	}
	balance, stored := db.row(t, 1)
	if stored != b.Token() || balance != bBalance {
		t.Fatalf("row = balance %d token %d after A resumed, want B's %d and %d", balance, stored, bBalance, b.Token())
	}
	if got := getKey(t, rdb, b.lockKey); got != bValue {
		t.Fatalf("B's lock value %q after A's release, want %q", got, bValue)
	}
	if b.Err() != nil {
		t.Fatalf("B's lease ended: %v", b.Err())
	}
}

// S01, in process: A's heartbeat alone is frozen (test hook); the local
// deadline cancels A before its key expires in Redis, so A has stopped
// before B can acquire; A's late write is stale, its Release is ErrNotHeld.
func TestFrozenHeartbeatCancelsBeforeTakeover(t *testing.T) {
	const ttl = 600 * time.Millisecond
	e := newEnv(t)
	db := newAccounts(t, 2)
	c := New(e.rdb, nil)
	a := mustAcquire(t, c, e.resource, ttl)
	if err := db.credit(a.Context(), 2, 1, a.Token()); err != nil {
		t.Fatal(err)
	}
	a.pauseHeartbeat(true)
	waitDone(t, a.Context(), ttl)
	lostAt := time.Now()
	var lost *LostError
	if !errors.As(a.Err(), &lost) || lost.Reason != ReasonDeadline {
		t.Fatalf("A's cause = %v, want the local deadline", a.Err())
	}
	b, err := c.AcquireWait(context.Background(), e.resource, ttl)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release(bg)
	if time.Since(lostAt) <= 0 || b.Token() <= a.Token() {
		t.Fatalf("tB = %d, tA = %d", b.Token(), a.Token())
	}
	if err := db.credit(b.Context(), 2, 10, b.Token()); err != nil {
		t.Fatal(err)
	}
	// A's loop ignores its context (a bug) and writes once more.
	if err := db.credit(bg, 2, 1000, a.Token()); !errors.Is(err, fence.ErrStaleToken) {
		t.Fatalf("A's write after takeover = %v, want ErrStaleToken", err)
	}
	if err := db.credit(a.Context(), 2, 1000, a.Token()); !errors.Is(err, context.Canceled) || !errors.Is(context.Cause(a.Context()), ErrLost) {
		t.Fatalf("A's write on its lease context = %v, want context.Canceled", err)
	}
	if bal, tok := db.row(t, 2); bal != 11 || tok != b.Token() {
		t.Fatalf("row = %d, %d; want 11, %d", bal, tok, b.Token())
	}
	if err := a.Release(bg); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("A's Release = %v, want ErrNotHeld", err)
	}
	if b.Err() != nil || e.pttl(t) <= 0 {
		t.Fatalf("B's lease harmed by A's release: %v", b.Err())
	}
}

// S03 (redsync#61, redis-semaphore#175, redlock-rb#36): the key is deleted
// between two heartbeat ticks, or already taken by B. The renewal decodes
// the script's 0 as "not owner": the lease context is cancelled at once
// (one renewal, not two failures), the key is not re-created, B's key is
// not extended. The reply decoding itself is TestDecodeBool.
func TestRenewOfMissingOrForeignKeyIsLostAtOnce(t *testing.T) {
	for _, variant := range []string{"deleted", "taken over"} {
		t.Run(variant, func(t *testing.T) {
			e := newEnv(t)
			var failed atomic.Int32
			c := New(e.rdb, &Options{Observer: &Observer{OnRenewFailed: func(string, fence.Token, error, int) { failed.Add(1) }}})
			const ttl = 600 * time.Millisecond
			a := mustAcquire(t, c, e.resource, ttl)
			defer a.Release(bg)
			e.rdb.Del(bg, e.lockKey)
			var b *Lease
			if variant == "taken over" {
				b = mustAcquire(t, New(e.rdb, &Options{HeartbeatInterval: -1}), e.resource, 5*time.Second)
				defer b.Release(bg)
				e.rdb.PExpire(bg, e.lockKey, 4*time.Second)
			}
			renewals := c.Stats().Renewals
			waitDone(t, a.Context(), ttl/3+ttl/6+200*time.Millisecond)
			var lost *LostError
			if !errors.As(a.Err(), &lost) || lost.Reason != ReasonNotOwner || failed.Load() != 0 {
				t.Fatalf("cause = %v (failures %d), want not owner at the first renewal", a.Err(), failed.Load())
			}
			if n := c.Stats().Renewals - renewals; n != 1 {
				t.Fatalf("%d renewals before the loss, want 1", n)
			}
			// Release reports it and deletes nothing (B keeps its key;
			// the etcd lease's TestLockKeyTakenFromHolderIsLost).
			if err := a.Release(bg); !errors.Is(err, ErrNotHeld) {
				t.Fatalf("release after the key was taken: %v, want ErrNotHeld", err)
			}
			if variant == "taken over" {
				if n := e.rdb.Exists(bg, e.lockKey).Val(); n != 1 {
					t.Fatal("A's release deleted B's key")
				}
			}
			switch variant {
			case "deleted":
				if n := e.rdb.Exists(bg, e.lockKey).Val(); n != 0 {
					t.Fatal("the renewal re-created the deleted key")
				}
			default:
				if d := e.pttl(t); d > 4*time.Second {
					t.Fatalf("B's PTTL = %v: A's renewal extended B's key", d)
				}
			}
		})
	}
}

// S04 (redsync#147, #149): only the lock key vanishes (a volatile-*
// eviction); B acquires, writes R and releases in the gap; then A's
// heartbeat ticks. A is lost, nothing re-creates its key, a new Acquire
// gets a token above B's, and R keeps B's write.
func TestVanishedKeyIsNeverResurrected(t *testing.T) {
	const ttl = 900 * time.Millisecond
	e := newEnv(t)
	db := newAccounts(t, 3)
	c := New(e.rdb, nil)
	a := mustAcquire(t, c, e.resource, ttl)
	defer a.Release(bg)
	e.rdb.Del(bg, e.lockKey)
	err := New(e.rdb, nil).Do(bg, e.resource, ttl, func(ctx context.Context, tB fence.Token) error {
		if tB <= a.Token() {
			t.Errorf("tB = %d, tA = %d", tB, a.Token())
		}
		return db.credit(ctx, 3, 5, tB)
	})
	if err != nil {
		t.Fatalf("B: %v", err)
	}
	_, tB := db.row(t, 3)
	waitDone(t, a.Context(), ttl)
	if !errors.Is(a.Err(), ErrNotOwner) {
		t.Fatalf("A's cause = %v, want not owner", a.Err())
	}
	if n := e.rdb.Exists(bg, e.lockKey).Val(); n != 0 {
		t.Fatal("A's key was re-created")
	}
	if err := db.credit(bg, 3, 1, a.Token()); !errors.Is(err, fence.ErrStaleToken) {
		t.Fatalf("A's write = %v, want stale", err)
	}
	again := mustAcquire(t, c, e.resource, ttl)
	defer again.Release(bg)
	if again.Token() <= tB {
		t.Fatalf("A's new token %d not above B's %d", again.Token(), tB)
	}
	if bal, tok := db.row(t, 3); bal != 5 || tok != tB {
		t.Fatalf("row = %d, %d; want B's 5, %d", bal, tok, tB)
	}
}

// S10 (jedis-lock#2, go_redis_lock#1, redis/docs#2772): A's lease expires
// while it is paused, B acquires, A releases, also racing a renewal: A gets
// ErrNotHeld and B's value and TTL are unchanged.
func TestLateReleaseSparesNewHolder(t *testing.T) {
	const ttl = 300 * time.Millisecond
	e := newEnv(t)
	for i := range 20 {
		c := New(e.rdb, nil)
		a := mustAcquire(t, c, e.resource, ttl)
		a.pauseHeartbeat(true)
		e.rdb.PExpire(bg, e.lockKey, time.Millisecond) // A's key expires
		time.Sleep(2 * time.Millisecond)
		b := mustAcquire(t, New(e.rdb, &Options{HeartbeatInterval: -1}), e.resource, 10*time.Second)
		value := e.get(t, e.lockKey)
		a.pauseHeartbeat(false)
		done := make(chan error, 1)
		go func() { done <- a.Renew(bg) }() // a renewal racing the release
		if i%2 == 0 {
			time.Sleep(time.Millisecond)
		}
		if err := a.Release(bg); !errors.Is(err, ErrNotHeld) && err != nil {
			t.Fatalf("A's Release = %v, want ErrNotHeld", err)
		}
		if err := <-done; err == nil {
			t.Fatal("A's renewal of B's key succeeded")
		}
		if got := e.get(t, e.lockKey); got != value {
			t.Fatalf("B's value %q became %q", value, got)
		}
		if d := e.pttl(t); d < 9*time.Second {
			t.Fatalf("B's PTTL %v changed", d)
		}
		if err := b.Release(bg); err != nil {
			t.Fatal(err)
		}
	}
}

// S14 (valkey#2651, redis#416, redis#8474): the server expires the key early
// (PEXPIRE 1 stands in for a forward clock step or a skewed promoted
// replica). The holder's next renewal reports lost and cancels it; B
// acquires and writes; A's writes are refused. The runtime derives no
// validity from the server (see TestMonotonicClockOnly).
func TestServerSideEarlyExpiryIsDetected(t *testing.T) {
	const ttl = 900 * time.Millisecond
	e := newEnv(t)
	db := newAccounts(t, 4)
	c := New(e.rdb, nil)
	a := mustAcquire(t, c, e.resource, ttl)
	defer a.Release(bg)
	e.rdb.PExpire(bg, e.lockKey, time.Millisecond)
	b, err := c.AcquireWait(bg, e.resource, ttl)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release(bg)
	if err := db.credit(b.Context(), 4, 7, b.Token()); err != nil {
		t.Fatal(err)
	}
	waitDone(t, a.Context(), ttl/3+ttl/6+200*time.Millisecond)
	if !errors.Is(a.Err(), ErrNotOwner) {
		t.Fatalf("A's cause = %v, want not owner", a.Err())
	}
	if err := db.credit(bg, 4, 1, a.Token()); !errors.Is(err, fence.ErrStaleToken) {
		t.Fatalf("A's write = %v, want stale", err)
	}
}

func tokenOf(t *testing.T, line string) fence.Token {
	t.Helper()
	f := strings.Fields(line)
	n, err := strconv.ParseInt(f[len(f)-1], 10, 64)
	if err != nil {
		t.Fatalf("no token in %q", line)
	}
	return fence.Token(n)
}
