package lease

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/faults"
)

// r26 N6: a closed go-redis client is reported as etcdlease reports a closed
// etcd client: every call fails at once with an error matching
// ErrClientClosed (and go-redis's redis.ErrClosed) that says "the Redis
// client is closed", and a held lease is lost at its first renewal on the
// closed client, with ReasonRenewFailed wrapping ErrClientClosed, not
// after MaxRenewFailures failures (no "renew failed" event comes first).
func TestClosedClientIsErrClientClosed(t *testing.T) {
	e := newEnv(t)
	rdb := redis.NewClient(&redis.Options{Addr: e.rdb.Options().Addr, MaxRetries: -1})
	var evs eventLog
	c := New(rdb, &Options{Observer: &Observer{Event: evs.add}})
	held := mustAcquire(t, c, e.resource, 6*time.Second)
	renewed := mustAcquire(t, c, e.resource+":renew", 6*time.Second)
	if err := rdb.Close(); err != nil {
		t.Fatal(err)
	}
	closedErr := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrClientClosed) || !errors.Is(err, redis.ErrClosed) || !strings.Contains(err.Error(), "the Redis client is closed") || errors.Is(err, ErrRedisTimeout) {
			t.Errorf("%s on a closed client = %v, want ErrClientClosed saying the Redis client is closed", what, err)
		}
	}
	_, err := c.Acquire(bg, e.resource+":new", time.Second)
	closedErr("Acquire", err)
	_, err = c.Advance(bg, e.resource, 5)
	closedErr("Advance", err)
	closedErr("Check", c.Check(bg))

	// Renew finds the client closed: the lease is lost at once.
	err = renewed.Renew(bg)
	var lost *LostError
	if !errors.As(err, &lost) || lost.Reason != ReasonRenewFailed {
		t.Fatalf("Renew on a closed client = %v, want a *LostError (renewals failed)", err)
	}
	closedErr("Renew", err)
	closedErr("Release after Renew", renewed.Release(bg))

	// The heartbeat finds it closed: lost at its first renewal.
	waitDone(t, held.Context(), 30*time.Second)
	err = context.Cause(held.Context())
	if !errors.As(err, &lost) || lost.Reason != ReasonRenewFailed {
		t.Fatalf("cause after the heartbeat met a closed client = %v, want a *LostError (renewals failed)", err)
	}
	closedErr("the heartbeat's loss", err)
	c.sync()
	for _, ev := range evs.all() {
		if ev.Kind == EventRenewFailed {
			t.Errorf("event %+v: a closed client counted as a transient renewal failure", ev)
		}
	}
	closedErr("Release after the loss", held.Release(bg))
}

// r26 N7: "not owner" says what it means for the lock key, as etcdlease's
// does ("not owner: the lock key ... was deleted at revision N"): a lease
// whose key was taken over is lost with ReasonNotOwner, its error matching
// ErrNotOwner and naming the key; Release then returns ErrNotHeld.
func TestNotOwnerSaysWhatHappenedToTheKey(t *testing.T) {
	e := newEnv(t)
	c := New(e.rdb, nil)
	l := mustAcquire(t, c, e.resource, 6*time.Second)
	if err := e.rdb.Set(bg, e.lockKey, "another-owner", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	err := l.Renew(bg)
	var lost *LostError
	if !errors.As(err, &lost) || lost.Reason != ReasonNotOwner || !errors.Is(err, ErrNotOwner) || !errors.Is(err, ErrLost) {
		t.Fatalf("Renew after a takeover = %v, want a *LostError (not owner)", err)
	}
	if want := `: not owner: the lock key "` + e.lockKey + `" was overwritten: it held another owner's value (a SET by hand, or another owner took it after it expired or was deleted)`; !strings.HasSuffix(err.Error(), want) {
		t.Errorf("Renew after a takeover = %q, want it to end %q", err, want)
	}
	// Trial t26s F3: a deleted key reads otherwise, by Renew and by the
	// heartbeat, with one lease or two on the Client (renew_many's
	// replies are checked in TestRenewManyReportsTakenKeysByIndex).
	deleted := `: not owner: the lock key "%s" was missing (deleted, e.g. a DEL by hand, expired early, evicted, or lost in a restart or flush)`
	l2 := mustAcquire(t, c, e.resource+"-del", 6*time.Second)
	e.rdb.Del(bg, l2.lockKey)
	if err := l2.Renew(bg); !errors.Is(err, ErrNotOwner) || !strings.HasSuffix(err.Error(), fmt.Sprintf(deleted, l2.lockKey)) {
		t.Errorf("Renew after a DEL = %v, want it to end %q", err, fmt.Sprintf(deleted, l2.lockKey))
	}
	hb := New(e.rdb, &Options{TTL: time.Second})
	for _, n := range []int{1, 2} {
		var held []*Lease
		for i := range n {
			held = append(held, mustAcquire(t, hb, fmt.Sprintf("%s-hb%d-%d", e.resource, n, i), 0))
		}
		e.rdb.Del(bg, held[0].lockKey)
		if n == 2 {
			e.rdb.Set(bg, held[1].lockKey, "another-owner", time.Minute)
		}
		for i, l := range held {
			<-l.Done()
			want := fmt.Sprintf(deleted, l.lockKey)
			if i == 1 {
				want = `: not owner: the lock key "` + l.lockKey + `" was overwritten: it held another owner's value (a SET by hand, or another owner took it after it expired or was deleted)`
			}
			if err := context.Cause(l.Context()); !errors.Is(err, ErrNotOwner) || !strings.HasSuffix(err.Error(), want) {
				t.Errorf("heartbeat of %d lease(s), lease %d: cause %v, want it to end %q", n, i, err, want)
			}
			e.rdb.Del(bg, hb.AllKeys(l.resource)...)
		}
	}
	e.rdb.Del(bg, c.AllKeys(e.resource+"-del")...)
	if err := l.Release(bg); !errors.Is(err, ErrNotHeld) || !strings.HasSuffix(err.Error(), ": not held") {
		t.Errorf("Release after a takeover = %v, want ErrNotHeld", err)
	}
	if v, _ := e.rdb.Get(bg, e.lockKey).Result(); v != "another-owner" {
		t.Errorf("the other owner's key = %q after the release", v)
	}
}

// r26 N2c: a plain redis.Scripter cannot send CONFIG GET, so Check reads
// what INFO shows through a script and reports what it cannot verify,
// never nothing: on a server without an append-only file, appendonly no
// (unsafe whatever save is); with appendonly yes and appendfsync always,
// appendfsync unverified (INFO does not show it); a volatile-* eviction
// policy as through a *redis.Client. Each wraps ErrUnsafeConfig, none
// ErrConfig, and each is logged as a warning.
func TestCheckThroughPlainScripterSaysWhatItCannotVerify(t *testing.T) {
	for _, tc := range []struct {
		opts faults.RedisOptions
		want []string
	}{
		{faults.RedisOptions{}, []string{"appendonly no (INFO persistence: aof_enabled:0)"}},
		{faults.RedisOptions{Persistence: true}, []string{"appendfsync could not be verified"}},
		{faults.RedisOptions{Persistence: true, MaxmemoryPolicy: "volatile-lru"}, []string{"maxmemory-policy volatile-lru can evict live lock keys", "appendfsync could not be verified"}},
	} {
		_, rdb := private(t, tc.opts)
		var logs syncWriter
		c := New(plainScripter{rdb}, &Options{UnsafeNoReplicas: true, Logger: newTextLogger(&logs)})
		err := c.Check(bg)
		if !errors.Is(err, ErrUnsafeConfig) || errors.Is(err, ErrConfig) {
			t.Errorf("%+v: Check through a plain Scripter = %v, want ErrUnsafeConfig only", tc.opts, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) || !strings.Contains(logs.String(), w) {
				t.Errorf("%+v: Check = %v, logs %q: want both to say %q", tc.opts, err, logs.String(), w)
			}
		}
		if n := strings.Count(err.Error(), "lease: unsafe Redis configuration"); n != len(tc.want) {
			t.Errorf("%+v: Check = %v: %d problems, want %d", tc.opts, err, n, len(tc.want))
		}
	}
}

// eventLog records Observer events.
type eventLog struct {
	mu  sync.Mutex
	evs []Event
}

func (l *eventLog) add(_ context.Context, ev Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.evs = append(l.evs, ev)
}

func (l *eventLog) all() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.evs...)
}

func newTextLogger(w *syncWriter) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
