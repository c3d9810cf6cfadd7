package etcdlease_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/internal/faults/etcdfaults"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
	"github.com/fencegen/fencegen/runtime/lease/etcdlease"
)

// panicError returns the error construct panicked with, or nil if it
// did not panic; a panic value that is not an error is returned as one
// saying so. construct is a New of either coordinator.
func panicError(construct func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			var ok bool
			if err, ok = r.(error); !ok {
				err = fmt.Errorf("panic value %T, not an error: %v", r, r)
			}
		}
	}()
	construct()
	return nil
}

// etcdNewRefusal returns the error etcdlease.New(cli, opts) panicked with,
// or nil (panicError).
func etcdNewRefusal(cli *clientv3.Client, opts *etcdlease.Options) error {
	return panicError(func() { etcdlease.New(cli, opts) })
}

// redisNewRefusal returns the error lease.New(rdb, opts) panicked with,
// or nil (panicError).
func redisNewRefusal(rdb redis.Scripter, opts *lease.Options) error {
	return panicError(func() { lease.New(rdb, opts) })
}

// r26 N4: options the default TTL (10s) cannot keep are refused by New on
// both coordinators alike, as a TTL set in Options is: the panic value
// wraps a *lease.OptionsError (lease.ErrConfig) whose Fields name the
// options; the Redis lease's New refuses the same combinations with the
// same fields.
func TestNewRefusesOptionsTheDefaultTTLCannotKeep(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	cli := e.Client()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never dialled: New sends nothing
	t.Cleanup(func() { rdb.Close() })
	for _, tc := range []struct {
		etcd   etcdlease.Options
		redis  lease.Options
		want   string
		fields []string
		// the least TTL the options allow on etcd and on Redis ("" for
		// none); Redis also needs 1ms for an acquire reply (TTL −
		// SafetyMargin − MinValidity), hence its 1ms more in two cases
		min [2]string
	}{
		{etcdlease.Options{HeartbeatInterval: 20 * time.Second}, lease.Options{HeartbeatInterval: 20 * time.Second},
			"HeartbeatInterval 20s not below TTL − SafetyMargin 9s", []string{"Options.HeartbeatInterval", "Options.TTL", "Options.SafetyMargin"}, [2]string{"22.245s", "22.245s"}},
		{etcdlease.Options{CallTimeout: 10 * time.Second}, lease.Options{CallTimeout: 10 * time.Second},
			"Options.CallTimeout 10s not below TTL 10s", []string{"Options.CallTimeout", "Options.TTL"}, [2]string{"10.001s", "10.001s"}},
		{etcdlease.Options{SafetyMargin: 12 * time.Second}, lease.Options{SafetyMargin: 12 * time.Second},
			"SafetyMargin 12s not below TTL 10s", []string{"Options.SafetyMargin", "Options.TTL"}, [2]string{"24.001s", "24.002s"}},
		{etcdlease.Options{MinValidity: 9500 * time.Millisecond}, lease.Options{MinValidity: 9500 * time.Millisecond},
			"MinValidity 9.5s not below TTL − SafetyMargin 9s", []string{"Options.MinValidity", "Options.TTL", "Options.SafetyMargin"}, [2]string{"10.556s", "10.557s"}},
		// A README-only trial (F4): a renewal sent on schedule needs
		// lease.MinRenewSlack before the local deadline, on both.
		{etcdlease.Options{HeartbeatInterval: 8990 * time.Millisecond}, lease.Options{HeartbeatInterval: 8990 * time.Millisecond},
			"HeartbeatInterval 8.99s leaves a renewal 10ms before the local deadline (TTL − SafetyMargin 9s), below the 20ms it needs on a busy machine (lease.MinRenewSlack)", []string{"Options.HeartbeatInterval", "Options.TTL", "Options.SafetyMargin"}, [2]string{"10.012s", "10.012s"}},
		{etcdlease.Options{DrainTimeout: -time.Second}, lease.Options{DrainTimeout: -time.Second},
			"Options.DrainTimeout -1s is negative", []string{"Options.DrainTimeout"}, [2]string{}},
	} {
		for name, err := range map[string]error{
			"etcdlease": etcdNewRefusal(cli, &tc.etcd),
			"lease":     redisNewRefusal(rdb, &tc.redis),
		} {
			var oe *lease.OptionsError
			if !errors.As(err, &oe) || !errors.Is(err, lease.ErrConfig) || !strings.HasPrefix(err.Error(), name+": New with ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s.New(%+v) panicked with %v, want an *OptionsError saying %q", name, tc.etcd, err, tc.want)
				continue
			}
			if fmt.Sprint(oe.Fields) != fmt.Sprint(tc.fields) {
				t.Errorf("%s.New(%+v): fields %v, want %v", name, tc.etcd, oe.Fields, tc.fields)
			}
			// Both name the least TTL the options allow, as docs/lease.md
			// says (trial r26s N4); a negative option has none.
			least := tc.min[0]
			if name == "lease" {
				least = tc.min[1]
			}
			if min := "(minimum TTL with these options: " + least + ")"; least != "" && !strings.HasSuffix(err.Error(), min) {
				t.Errorf("%s.New(%+v) panicked with %q, want it to end %q", name, tc.etcd, err, min)
			}
		}
	}
	// Options the default TTL keeps construct on both.
	if err := etcdNewRefusal(cli, &etcdlease.Options{HeartbeatInterval: 2 * time.Second}); err != nil {
		t.Errorf("etcdlease.New(HeartbeatInterval 2s): %v", err)
	}
	if err := redisNewRefusal(rdb, &lease.Options{HeartbeatInterval: 2 * time.Second}); err != nil {
		t.Errorf("lease.New(HeartbeatInterval 2s): %v", err)
	}
	// A TTL given to Acquire is checked there, with the same type; "ttl"
	// names the argument.
	_, err := etcdlease.New(cli, &etcdlease.Options{HeartbeatInterval: 5 * time.Second}).Acquire(ctxT(t, 5*time.Second), "r", 2*time.Second)
	var oe *lease.OptionsError
	if !errors.As(err, &oe) || fmt.Sprint(oe.Fields) != "[Options.HeartbeatInterval ttl Options.SafetyMargin]" {
		t.Errorf("Acquire(ttl 2s) with HeartbeatInterval 5s = %v, want an *OptionsError naming the heartbeat and ttl", err)
	}
}

// r26 N6/N7: a closed client and a "not owner" read the same on both
// coordinators: one sentinel (lease.ErrClientClosed; lease.ErrNotOwner,
// lease.ErrLost, lease.ErrNotHeld) and a message of the same shape, only
// the coordinator's name and the detail of what happened to the key told
// apart. Per coordinator: Renew after another owner took the key is a
// *lease.LostError (not owner) whose message names the lock key; Release
// then says "not held"; after the client is closed, Acquire, Release and
// Check fail with ErrClientClosed saying "the <coordinator> client is
// closed", and a held lease is lost (renewals failed) wrapping it.
func TestClosedClientAndNotOwnerReadAlike(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	cli := e.Client()
	shared := testenv.Redis(t)
	rdb := redis.NewClient(&redis.Options{Addr: shared.Options().Addr, MaxRetries: -1})
	ctx := ctxT(t, 60*time.Second)
	resource := testenv.Key(t, "parity")
	var rlogs, elogs syncBuf
	rc := lease.New(rdb, &lease.Options{Logger: slog.New(slog.NewTextHandler(&rlogs, nil))})
	ec := etcdlease.New(cli, &etcdlease.Options{Logger: slog.New(slog.NewTextHandler(&elogs, nil))})
	rlock, _ := rc.Keys(resource)
	elock, _ := ec.Keys(resource)
	t.Cleanup(func() { shared.Del(context.Background(), rc.AllKeys(resource)[:4]...) })
	type coordinator struct {
		name        string
		acquire     func(string) (lease.Held, error)
		takeOver    func()
		close       func()
		check       func() error
		lockKey     string
		logs        *syncBuf
		acquireWait func(string) (lease.Held, error)
	}
	for _, co := range []coordinator{
		{"Redis", func(r string) (lease.Held, error) { return rc.Acquire(ctx, r, 6*time.Second) },
			func() { shared.Set(ctx, rlock, "another-owner", time.Minute) }, func() { rdb.Close() }, func() error { return rc.Check(ctx) }, rlock, &rlogs,
			func(r string) (lease.Held, error) { return rc.AcquireWait(ctxT(t, 30*time.Second), r, 6*time.Second) }},
		{"etcd", func(r string) (lease.Held, error) { return ec.Acquire(ctx, r, 6*time.Second) },
			func() {
				if _, err := cli.Put(ctx, elock, "another-owner"); err != nil {
					t.Fatal(err)
				}
			}, func() { cli.Close() }, func() error { return ec.Check(ctx) }, elock, &elogs,
			func(r string) (lease.Held, error) { return ec.AcquireWait(ctxT(t, 30*time.Second), r, 6*time.Second) }},
	} {
		l, err := co.acquire(resource)
		if err != nil {
			t.Fatalf("%s: %v", co.name, err)
		}
		co.takeOver()
		if co.name == "etcd" {
			// etcd's lease learns of a Put over its lock key from its
			// watch, asynchronously (a Put keeps the key's create
			// revision, which Renew and Release read): under -race at
			// load 8 a Renew sent at once beat the watch event. Wait for
			// the lease to end, at most 10s, then compare the texts.
			select {
			case <-l.Done():
			case <-time.After(10 * time.Second):
				t.Fatalf("etcd: the lease did not see the takeover within 10s")
			}
		}
		err = l.Renew(ctx)
		var lost *lease.LostError
		want := fmt.Sprintf("lease: lost %q (token %d): not owner: the lock key %q was ", resource, l.Token(), co.lockKey)
		if !errors.As(err, &lost) || lost.Reason != lease.ReasonNotOwner || !errors.Is(err, lease.ErrNotOwner) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: Renew after a takeover = %v, want a LostError starting %q", co.name, err, want)
		}
		if err := l.Release(ctx); !errors.Is(err, lease.ErrNotHeld) || err.Error() != fmt.Sprintf("lease: release %q (token %d): not held", resource, l.Token()) {
			t.Errorf("%s: Release after a takeover = %v, want ErrNotHeld", co.name, err)
		}

		held, err := co.acquire(resource + ":held")
		if err != nil {
			t.Fatalf("%s: %v", co.name, err)
		}
		co.close()
		closed := fmt.Sprintf("the %s client is closed", co.name)
		_, err = co.acquire(resource + ":new")
		if want := fmt.Sprintf("lease: acquire %q: %s", resource+":new", closed); !errors.Is(err, lease.ErrClientClosed) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: Acquire on a closed client = %v, want ErrClientClosed starting %q", co.name, err, want)
		}
		// AcquireWait returns at once: a closed client cannot reopen.
		if _, err := co.acquireWait(resource + ":wait"); !errors.Is(err, lease.ErrClientClosed) || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: AcquireWait on a closed client = %v, want ErrClientClosed before its context ends", co.name, err)
		}
		if err := co.check(); !errors.Is(err, lease.ErrClientClosed) || !strings.Contains(err.Error(), closed) {
			t.Errorf("%s: Check on a closed client = %v, want ErrClientClosed", co.name, err)
		}
		err = held.Renew(ctx)
		if !errors.As(err, &lost) || lost.Reason != lease.ReasonRenewFailed || !errors.Is(err, lease.ErrClientClosed) || !strings.Contains(err.Error(), closed) {
			t.Errorf("%s: the held lease after the close: %v, want a LostError (renewals failed) wrapping ErrClientClosed", co.name, err)
		}
		if err := held.Release(ctx); !errors.Is(err, lease.ErrClientClosed) || !strings.HasSuffix(err.Error(), closed) {
			t.Errorf("%s: Release on a closed client = %v, want ErrClientClosed ending %q", co.name, err, closed)
		}
		// The log records read alike too.
		logs := co.logs.String()
		for _, want := range []string{
			fmt.Sprintf(`level=WARN msg="lease lost" resource=%s token=%d reason="not owner" err="lease: not owner: the lock key \"%s\" was `, resource, l.Token(), co.lockKey),
			fmt.Sprintf(`level=WARN msg="lease lost" resource=%s:held token=%d reason="renewals failed" err="lease: renew \"%s:held\" (token %d): %s`, resource, held.Token(), resource, held.Token(), closed),
			fmt.Sprintf(`level=WARN msg="lease release not sent: %s client closed" resource=%s:held`, co.name, resource),
		} {
			if !strings.Contains(logs, want) {
				t.Errorf("%s: no record %q in:\n%s", co.name, want, logs)
			}
		}
	}
}

// Issue 26 (trial t26s F2): a worker written against lease.Locker tells
// "the coordinator did not answer in time" with one sentinel on either
// coordinator: an Acquire on a coordinator that refuses connections
// matches lease.ErrTimeout on both, each coordinator's own sentinel and
// type keep matching, and neither matches the other's. Check's unsafe
// warnings match lease.ErrUnsafeConfig, whose text names neither.
func TestTimeoutsMatchOneSentinel(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	ec := etcdlease.New(e.Client(), &etcdlease.Options{TTL: 3 * time.Second})
	e.Members[0].Kill()
	_, eerr := ec.Acquire(ctxT(t, 30*time.Second), "timeout", 0)
	var ete *etcdlease.TimeoutError
	if !errors.Is(eerr, lease.ErrTimeout) || !errors.Is(eerr, etcdlease.ErrEtcdTimeout) || !errors.As(eerr, &ete) || errors.Is(eerr, lease.ErrRedisTimeout) {
		t.Fatalf("etcd acquire on a killed member: %v; want lease.ErrTimeout and etcdlease.ErrEtcdTimeout, not lease.ErrRedisTimeout", eerr)
	}
	rdb := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", faults.FreePort(t)), MaxRetries: -1})
	defer rdb.Close()
	rc := lease.New(rdb, &lease.Options{TTL: 3 * time.Second})
	_, rerr := rc.Acquire(ctxT(t, 30*time.Second), "timeout", 0)
	var rte *lease.TimeoutError
	if !errors.Is(rerr, lease.ErrTimeout) || !errors.Is(rerr, lease.ErrRedisTimeout) || !errors.As(rerr, &rte) || errors.Is(rerr, etcdlease.ErrEtcdTimeout) {
		t.Fatalf("Redis acquire on a refused port: %v; want lease.ErrTimeout and lease.ErrRedisTimeout, not etcdlease.ErrEtcdTimeout", rerr)
	}
	if msg := lease.ErrUnsafeConfig.Error(); strings.Contains(msg, "Redis") || strings.Contains(msg, "etcd") {
		t.Fatalf("lease.ErrUnsafeConfig reads %q: it names a coordinator, and both wrap it", msg)
	}
}

// Issue 26 (trial t26s F5): one set of resource names on both
// coordinators. A name the Redis lease refuses (empty, or with a brace,
// which would break its keys' shared hash tag) is refused by etcdlease
// too, with the same error, by Acquire and Advance; any other name,
// separators included, is taken by both.
func TestResourceNamesAlike(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	ec := etcdlease.New(e.Client(), nil)
	rc := lease.New(testenv.Redis(t), nil)
	ctx := ctxT(t, 60*time.Second)
	long := strings.Repeat("n", lease.MaxResourceLen+1)
	for _, name := range []string{"", "a{b}", "{", "}", "job:{7}", long} {
		for co, c := range map[string]lease.Coordinator[lease.Held]{"Redis": heldCoordinator[*lease.Lease]{rc}, "etcd": heldCoordinator[*etcdlease.Lease]{ec}} {
			if _, err := c.Acquire(ctx, name, 0); !errors.Is(err, lease.ErrInvalidResource) {
				t.Errorf("%s Acquire(%q): %v; want lease.ErrInvalidResource", co, name, err)
			}
			if _, err := c.Advance(ctx, name, 1); !errors.Is(err, lease.ErrInvalidResource) {
				t.Errorf("%s Advance(%q): %v; want lease.ErrInvalidResource", co, name, err)
			}
		}
	}
	// A name longer than lease.MaxResourceLen, which etcd would refuse as
	// a request too large (trial r26s N2), is refused by both before
	// anything is sent, AcquireWait without a deadline included (it does
	// not retry it), and the message says why without quoting the whole
	// name.
	wantLong := `lease: acquire "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"… (65537 bytes): invalid resource name: 65537 bytes, above lease.MaxResourceLen (65536)`
	if _, err := ec.AcquireWait(context.Background(), long, 0); !errors.Is(err, lease.ErrInvalidResource) || err.Error() != wantLong {
		t.Errorf("etcd AcquireWait(%d bytes): %v; want %q", len(long), err, wantLong)
	}
	if _, err := rc.AcquireWait(context.Background(), long, 0); !errors.Is(err, lease.ErrInvalidResource) || err.Error() != wantLong {
		t.Errorf("Redis AcquireWait(%d bytes): %v; want %q", len(long), err, wantLong)
	}
	// A name of exactly lease.MaxResourceLen bytes is taken by both.
	longest := testenv.Key(t, "names") + ":"
	longest += strings.Repeat("m", lease.MaxResourceLen-len(longest))
	t.Cleanup(func() { testenv.Redis(t).Del(context.Background(), rc.AllKeys(longest)...) })
	for co, c := range map[string]lease.Coordinator[lease.Held]{"Redis": heldCoordinator[*lease.Lease]{rc}, "etcd": heldCoordinator[*etcdlease.Lease]{ec}} {
		l, err := c.Acquire(ctx, longest, 0)
		if err != nil {
			t.Fatalf("%s Acquire(a %d-byte name): %v", co, len(longest), err)
		}
		if err := l.Release(ctx); err != nil {
			t.Fatalf("%s Release (a %d-byte name): %v", co, len(longest), err)
		}
	}
	name := testenv.Key(t, "names") + ":a/b c"
	t.Cleanup(func() { testenv.Redis(t).Del(context.Background(), rc.AllKeys(name)...) })
	for co, c := range map[string]lease.Coordinator[lease.Held]{"Redis": heldCoordinator[*lease.Lease]{rc}, "etcd": heldCoordinator[*etcdlease.Lease]{ec}} {
		l, err := c.Acquire(ctx, name, 0)
		if err != nil {
			t.Fatalf("%s Acquire(%q): %v", co, name, err)
		}
		if err := l.Release(ctx); err != nil {
			t.Fatalf("%s Release: %v", co, err)
		}
	}
}

// heldCoordinator is a lease.Coordinator[L] seen as a
// lease.Coordinator[lease.Held], so that one loop runs both.
type heldCoordinator[L lease.Held] struct{ lease.Coordinator[L] }

func (h heldCoordinator[L]) Acquire(ctx context.Context, resource string, ttl time.Duration) (lease.Held, error) {
	l, err := h.Coordinator.Acquire(ctx, resource, ttl)
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (h heldCoordinator[L]) AcquireWait(ctx context.Context, resource string, ttl time.Duration) (lease.Held, error) {
	l, err := h.Coordinator.AcquireWait(ctx, resource, ttl)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// A README-only trial (F2): a lease whose lock key was taken from it
// before its Release (deleted by hand, then acquired by B; or only
// deleted; or overwritten) ends with the same cause on both
// coordinators: Release returns lease.ErrNotHeld, and context.Cause and
// Err are a *lease.LostError (not owner, matching lease.ErrLost and
// lease.ErrNotOwner) with the lease's resource and token, saying what
// happened to the key, whether the heartbeat or etcd's watch of the key
// told first or Release found out. Before, the Redis lease's cause was
// lease.ErrReleased, etcd's the LostError. B keeps its key; a clean
// Release's cause is lease.ErrReleased on both. Do reports the Release's
// LostError, not a bare "not owner".
func TestReleaseAfterTakeoverIsLostOnBoth(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	cli := e.Client()
	rdb := testenv.Redis(t)
	ctx := ctxT(t, 120*time.Second)
	prefix := testenv.Key(t, "taken")
	t.Cleanup(func() {
		keys, _ := rdb.Keys(context.Background(), prefix+":*").Result()
		if len(keys) > 0 {
			rdb.Del(context.Background(), keys...)
		}
	})
	// A TTL far above the test's steps, so that Release, not a renewal,
	// usually finds the key gone (either way the cause is the same).
	const long = 30 * time.Second
	rc := lease.New(rdb, &lease.Options{KeyPrefix: prefix, TTL: long})
	ec := etcdlease.New(cli, &etcdlease.Options{KeyPrefix: prefix, TTL: long})
	type coordinator struct {
		name      string
		c         lease.Coordinator[lease.Held]
		del, over func(key string)
		holds     func(key string) bool
	}
	for _, co := range []coordinator{
		{"Redis", heldCoordinator[*lease.Lease]{rc},
			func(k string) { rdb.Del(ctx, k) }, func(k string) { rdb.Set(ctx, k, "by hand", time.Minute) },
			func(k string) bool { return rdb.Exists(ctx, k).Val() == 1 }},
		{"etcd", heldCoordinator[*etcdlease.Lease]{ec},
			func(k string) {
				// Then any other write: a delete by hand that is still
				// etcd's last write when the revoke commits has the
				// revoke's revision, and is taken for its own delete
				// (see etcdlease's Lease.Release).
				if _, err := cli.Delete(ctx, k); err != nil {
					t.Fatal(err)
				}
				if _, err := cli.Put(ctx, prefix+"/other", "x"); err != nil {
					t.Fatal(err)
				}
			}, func(k string) {
				if _, err := cli.Put(ctx, k, "by hand"); err != nil {
					t.Fatal(err)
				}
			},
			func(k string) bool { g, err := cli.Get(ctx, k); return err == nil && len(g.Kvs) == 1 }},
	} {
		for i := range 10 {
			for _, how := range []struct {
				name  string
				steal func(key string)
				takeB bool
				what  string // what the cause says of the key: "was <what>"
			}{
				{"deleted then taken", co.del, true, map[string]string{"Redis": "overwritten", "etcd": "deleted"}[co.name]},
				{"deleted", co.del, false, map[string]string{"Redis": "missing", "etcd": "deleted"}[co.name]},
				{"overwritten", co.over, false, "overwritten"},
			} {
				resource := fmt.Sprintf("r%d:%s", i, how.name)
				lock, _ := co.c.Keys(resource)
				a, err := co.c.Acquire(ctx, resource, 0)
				if err != nil {
					t.Fatalf("%s: %v", co.name, err)
				}
				how.steal(lock)
				var b lease.Held
				if how.takeB {
					if b, err = co.c.Acquire(ctx, resource, 0); err != nil {
						t.Fatalf("%s %s: B: %v", co.name, how.name, err)
					}
				}
				if err := a.Release(ctx); !errors.Is(err, lease.ErrNotHeld) {
					t.Fatalf("%s %s: A's Release = %v, want lease.ErrNotHeld", co.name, how.name, err)
				}
				cause := context.Cause(a.Context())
				var lost *lease.LostError
				want := fmt.Sprintf("lease: lost %q (token %d): not owner: the lock key %q was %s", resource, a.Token(), lock, how.what)
				if !errors.As(cause, &lost) || lost.Reason != lease.ReasonNotOwner || lost.Resource != resource || lost.Token != a.Token() ||
					!errors.Is(cause, lease.ErrLost) || !errors.Is(cause, lease.ErrNotOwner) || errors.Is(cause, lease.ErrReleased) || !strings.HasPrefix(cause.Error(), want) {
					t.Fatalf("%s %s (round %d): A's cause after its Release = %v, want a LostError starting %q", co.name, how.name, i, cause, want)
				}
				if err := a.Err(); err != cause {
					t.Fatalf("%s %s: A's Err = %v, its context's cause %v", co.name, how.name, err, cause)
				}
				if b != nil {
					if !co.holds(lock) || b.Err() != nil {
						t.Fatalf("%s: B lost its key to A's Release (%v)", co.name, b.Err())
					}
					if err := b.Release(ctx); err != nil {
						t.Fatalf("%s: B's Release = %v", co.name, err)
					}
					if cause := context.Cause(b.Context()); cause != lease.ErrReleased {
						t.Fatalf("%s: B's cause after a clean Release = %v, want lease.ErrReleased", co.name, cause)
					}
				} else if how.name == "overwritten" && !co.holds(lock) {
					t.Fatalf("%s: A's Release deleted the value set by hand", co.name)
				}
			}
		}
		// Do: fn's lock key taken while it runs; Do's error is the
		// Release's LostError, saying what happened to the key.
		resource := "do"
		lock, _ := co.c.Keys(resource)
		err := co.c.Do(ctx, resource, 0, func(ctx context.Context, _ fence.Token) error {
			co.over(lock)
			return nil
		})
		var lost *lease.LostError
		if !errors.As(err, &lost) || !errors.Is(err, lease.ErrNotOwner) || !strings.Contains(err.Error(), fmt.Sprintf("the lock key %q was overwritten", lock)) {
			t.Fatalf("%s: Do with its key overwritten = %v, want the LostError saying so", co.name, err)
		}
	}
}
