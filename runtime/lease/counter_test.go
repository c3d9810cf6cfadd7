package lease

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/runtime/fence"
)

// S12 (cosmos-db-design-patterns#91, redisson#6510, n8n#33558): Redis loses
// the counter (DEL, standing in for allkeys-* eviction, and a restart
// without persistence) while row R stores token 57. The first stale write
// raises an alert (OnCounterRegressed), Do feeds the StaleError's stored
// token back (Lease.Observe → Client.Advance), and the next acquisition
// writes again, instead of a silent stream of stale-token errors.
func TestLostCounterRecoversFromStaleError(t *testing.T) {
	r, rdb := private(t, privateOpts)
	db := newAccounts(t, 30)
	db.setToken(t, 30, 57)
	var alerts atomic.Int32
	// A new Client for each loss: a process that never minted for the
	// resource (the Client that did remembers its tokens and catches the
	// regression itself: TestSameClientNeverMintsTwiceAfterCounterLoss).
	newClient := func() *Client {
		return New(rdb, &Options{Observer: &Observer{OnCounterRegressed: func(res string, from, to fence.Token) {
			if res != "acct:30" || to != 57 {
				t.Errorf("OnCounterRegressed(%q, %d, %d)", res, from, to)
			}
			alerts.Add(1)
		}}})
	}
	_, counter := newClient().Keys("acct:30")
	for _, lose := range []func(){
		func() { r.Del(counter) },
		func() { r.Restart(false) },
	} {
		lose()
		c := newClient()
		db.setToken(t, 30, 57)
		alerts.Store(0)
		var first fence.Token
		err := c.Do(bg, "acct:30", time.Second, func(ctx context.Context, token fence.Token) error {
			first = token
			return db.credit(ctx, 30, 1, token)
		})
		var lost *LostError
		if !isStale(err) || !errors.As(err, &lost) || lost.Reason != ReasonSuperseded || first != 1 {
			t.Fatalf("Do after the counter was lost = %v (token %d), want a stale write reported as superseded", err, first)
		}
		// One line: the loss wraps fn's stale-token error, said once.
		if msg := err.Error(); strings.Contains(msg, "\n") || strings.Count(msg, "stale") != 1 {
			t.Fatalf("Do's error = %q, want the stale write said once, on one line", msg)
		}
		if alerts.Load() != 1 {
			t.Fatalf("%d regression alerts, want 1", alerts.Load())
		}
		if ttl := rdb.TTL(bg, counter).Val(); ttl != -1 {
			t.Fatalf("counter TTL = %v, want none", ttl)
		}
		err = c.Do(bg, "acct:30", time.Second, func(ctx context.Context, token fence.Token) error {
			if token != 58 {
				t.Errorf("token after recovery = %d, want 58", token)
			}
			return db.credit(ctx, 30, 1, token)
		})
		if err != nil {
			t.Fatalf("write after recovery: %v", err)
		}
	}
}

// trial rt4 F5: Redis restarts empty while lease A of this Client holds
// token 10 and has not written yet (the row stores 9). The Client never
// mints 10 again: not through Acquire (it remembers the highest token it
// minted for the resource, finds the counter below it, gives the lease
// back, raises the counter and takes it again, reporting the regression),
// and not after Advance(9), the Stored token of a stale write that
// Observe feeds back, which it raises to at least its own 10.
func TestSameClientNeverMintsTwiceAfterCounterLoss(t *testing.T) {
	r, rdb := private(t, privateOpts)
	var regressions atomic.Int32
	c := New(rdb, &Options{Observer: &Observer{OnCounterRegressed: func(string, fence.Token, fence.Token) { regressions.Add(1) }}})
	for range 9 {
		l, err := c.Acquire(bg, "acct", 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Release(bg); err != nil {
			t.Fatal(err)
		}
	}
	a, err := c.Acquire(bg, "acct", 30*time.Second)
	if err != nil || a.Token() != 10 {
		t.Fatalf("A = %v, %v; want token 10", a, err)
	}
	defer a.Release(bg)

	r.Restart(false) // empty: the counter and A's lock key are gone
	b, err := c.Acquire(bg, "acct", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if b.Token() <= a.Token() {
		t.Fatalf("after the counter was lost, B = token %d, at or below A's live %d", b.Token(), a.Token())
	}
	if regressions.Load() != 1 {
		t.Fatalf("%d regression reports, want 1", regressions.Load())
	}
	if err := b.Release(bg); err != nil {
		t.Fatal(err)
	}

	r.Restart(false)
	// A stale write reported Stored 9: Advance never leaves the counter
	// below a token this Client minted.
	if got, err := c.Advance(bg, "acct", 9); err != nil || got < b.Token() {
		t.Fatalf("Advance(9) after the loss = %d, %v; want at least %d (B's token)", got, err, b.Token())
	}
	d, err := c.Acquire(bg, "acct", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release(bg)
	if d.Token() <= b.Token() {
		t.Fatalf("D = token %d, at or below %d minted before by this Client", d.Token(), b.Token())
	}
}

// S12: with Options.HighWater, a missing counter is re-seeded above the
// durable high-water mark inside the acquire script, before any token is
// handed out; first use starts at 1; a failing hook fails loudly with
// ErrConfig and mints nothing.
func TestHighWaterReseedsMissingCounter(t *testing.T) {
	e := newEnv(t)
	var calls atomic.Int32
	hw := fence.Token(0)
	var hwErr error
	var alerts atomic.Int32
	c := New(e.rdb, &Options{
		HighWater: func(_ context.Context, res string) (fence.Token, error) {
			calls.Add(1)
			return hw, hwErr
		},
		Observer: &Observer{OnCounterRegressed: func(string, fence.Token, fence.Token) { alerts.Add(1) }},
	})
	l := mustAcquire(t, c, e.resource, time.Second)
	if l.Token() != 1 || calls.Load() != 1 || alerts.Load() != 0 {
		t.Fatalf("first use: token %d, %d hook calls, %d alerts", l.Token(), calls.Load(), alerts.Load())
	}
	_ = l.Release(bg)
	l = mustAcquire(t, c, e.resource, time.Second)
	if l.Token() != 2 || calls.Load() != 1 {
		t.Fatalf("counter present: token %d, %d hook calls (want 2, 1)", l.Token(), calls.Load())
	}
	_ = l.Release(bg)

	e.rdb.Del(bg, e.counter)
	hw = 57
	l = mustAcquire(t, c, e.resource, time.Second)
	if l.Token() != 58 || alerts.Load() != 1 {
		t.Fatalf("after losing the counter: token %d, %d alerts; want 58, 1", l.Token(), alerts.Load())
	}
	_ = l.Release(bg)

	e.rdb.Del(bg, e.counter)
	hwErr = errors.New("database down")
	_, err := c.Acquire(bg, e.resource, time.Second)
	if !errors.Is(err, ErrConfig) || !errors.Is(err, hwErr) || errors.Is(err, ErrNotAcquired) {
		t.Fatalf("Acquire with a failing HighWater = %v", err)
	}
	if n := e.rdb.Exists(bg, e.lockKey, e.counter).Val(); n != 0 {
		t.Fatal("a failing HighWater still minted or locked")
	}
}

// Advance never lowers the counter, never adds a TTL, and alerts only on a
// real regression.
func TestAdvanceIsMonotonic(t *testing.T) {
	e := newEnv(t)
	var alerts atomic.Int32
	c := New(e.rdb, &Options{Observer: &Observer{OnCounterRegressed: func(string, fence.Token, fence.Token) { alerts.Add(1) }}})
	if got, err := c.Advance(bg, e.resource, 57); err != nil || got != 57 || alerts.Load() != 1 {
		t.Fatalf("Advance(57) on a missing counter = %d, %v (alerts %d)", got, err, alerts.Load())
	}
	if got, err := c.Advance(bg, e.resource, 10); err != nil || got != 57 || alerts.Load() != 1 {
		t.Fatalf("Advance(10) = %d, %v: lowered or alerted", got, err)
	}
	if ttl := e.rdb.TTL(bg, e.counter).Val(); ttl != -1 {
		t.Fatalf("counter TTL = %v", ttl)
	}
	if l := mustAcquire(t, c, e.resource, time.Second); l.Token() != 58 {
		t.Fatalf("token after Advance(57) = %d", l.Token())
	} else {
		_ = l.Release(bg)
	}
	e.rdb.Set(bg, e.counter, "x", 0)
	if _, err := c.Advance(bg, e.resource, 60); err == nil {
		t.Fatal("Advance over a non-integer counter succeeded")
	}
	if _, err := c.Advance(bg, "a{b", 1); !errors.Is(err, ErrInvalidResource) {
		t.Fatalf("Advance(bad resource) = %v", err)
	}
}

// S12, S04: the start-up check warns about every eviction policy but
// noeviction (allkeys-* can drop the counter, volatile-* live lock keys)
// and about persistence that can lose the last INCRs of the counter (none,
// RDB snapshots alone, an append-only file not synced on every write).
func TestCheckWarnsAboutUnsafeRedis(t *testing.T) {
	for _, tc := range []struct {
		opts faults.RedisOptions
		want []string
	}{
		{faults.RedisOptions{Persistence: true}, nil},
		{faults.RedisOptions{}, []string{"persistence is off"}},
		{faults.RedisOptions{Args: []string{"--save", "3600 1"}}, []string{`only RDB snapshots persist (save "3600 1", appendonly no)`}},
		{faults.RedisOptions{Persistence: true, Args: []string{"--appendfsync", "everysec"}}, []string{"appendfsync everysec: a crash of the machine"}},
		{faults.RedisOptions{Persistence: true, MaxmemoryPolicy: "allkeys-lru"}, []string{"allkeys-lru can evict the fence counter"}},
		{faults.RedisOptions{Persistence: true, MaxmemoryPolicy: "volatile-ttl"}, []string{"volatile-ttl can evict live lock keys"}},
	} {
		_, rdb := private(t, tc.opts)
		err := New(rdb, nil).Check(bg)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%+v: Check = %v, want nil", tc.opts, err)
			}
			continue
		}
		if !errors.Is(err, ErrUnsafeConfig) {
			t.Errorf("%+v: Check = %v, want ErrUnsafeConfig", tc.opts, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: Check = %v, want it to say %q", tc.opts, err, w)
			}
		}
	}
}

// Check's warning is about the server: it carries no lease's resource or
// token fields.
func TestCheckWarningHasNoLeaseFields(t *testing.T) {
	_, rdb := private(t, faults.RedisOptions{})
	var logs bytes.Buffer
	c := New(rdb, &Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err := c.Check(bg); !errors.Is(err, ErrUnsafeConfig) {
		t.Fatalf("Check = %v, want ErrUnsafeConfig", err)
	}
	if out := logs.String(); !strings.Contains(out, "persistence is off") || strings.Contains(out, "resource=") || strings.Contains(out, "token=") {
		t.Fatalf("Check's log:\n%s", out)
	}
}

// Tokens of 1e14 and above keep every digit in the :minted record (Lua's
// own number format writes 1e+14, and loses digits above it), and tokens
// above 2^53 are exact (a Lua number is a double): each acquire gets the
// counter's next value, the :minted record is "<owner>:<token>" as
// Token.String spells it (an Acquire retry returns the token from it),
// and the lease's renewal and release work.
func TestTokensAbove1e14KeepTheirDigits(t *testing.T) {
	e := newEnv(t)
	c := New(e.rdb, nil)
	for _, seed := range []int64{99_999_999_999_999, 123_456_789_012_345, 1<<53 - 1, 1<<53 + 1, 1_767_225_600_000_000_000, math.MaxInt64 - 2} {
		if err := e.rdb.Set(bg, e.counter, seed, 0).Err(); err != nil {
			t.Fatal(err)
		}
		l := mustAcquire(t, c, e.resource, time.Second)
		if want := fence.Token(seed + 1); l.Token() != want {
			t.Fatalf("token %d after counter %d, want %d", l.Token(), seed, want)
		}
		if v := e.get(t, mintKey(e.lockKey)); !strings.HasSuffix(v, ":"+l.Token().String()) {
			t.Fatalf(":minted value %q does not end in %q", v, ":"+l.Token().String())
		}
		if err := l.Renew(bg); err != nil {
			t.Fatalf("Renew with token %d: %v", l.Token(), err)
		}
		if err := l.Release(bg); err != nil {
			t.Fatalf("Release with token %d: %v", l.Token(), err)
		}
		if got := e.get(t, e.counter); got != l.Token().String() {
			t.Fatalf("counter %s, token %d", got, l.Token())
		}
	}
	// The counter at 2^63-1 cannot mint: ErrConfig, never a wrapped-around
	// or repeated token.
	l := mustAcquire(t, c, e.resource, time.Second)
	if l.Token() != math.MaxInt64 {
		t.Fatalf("token %d, want MaxInt64", l.Token())
	}
	_ = l.Release(bg)
	if _, err := c.Acquire(bg, e.resource, time.Second); !errors.Is(err, ErrConfig) {
		t.Fatalf("Acquire with the counter at MaxInt64 = %v, want ErrConfig", err)
	}
}

// A high-water mark above 2^53 (a nanosecond timestamp) and Advance to
// such a token are exact: each acquire mints above the mark, strictly
// increasing, and Advance returns what it stored.
func TestHighWaterAndAdvanceAbove2To53(t *testing.T) {
	e := newEnv(t)
	hw := fence.Token(1_767_225_600_000_000_000)
	c := New(e.rdb, &Options{HighWater: func(context.Context, string) (fence.Token, error) { return hw, nil }})
	last := hw
	for range 3 {
		l := mustAcquire(t, c, e.resource, time.Second)
		if l.Token() != last+1 {
			t.Fatalf("token %d after %d, want %d", l.Token(), last, last+1)
		}
		last = l.Token()
		_ = l.Release(bg)
	}
	for _, at := range []fence.Token{1<<62 + 1, math.MaxInt64 - 1} {
		got, err := c.Advance(bg, e.resource, at)
		if err != nil || got != at {
			t.Fatalf("Advance(%d) = %d, %v", at, got, err)
		}
		if v := e.get(t, e.counter); v != at.String() {
			t.Fatalf("counter %s after Advance(%d)", v, at)
		}
	}
	l := mustAcquire(t, c, e.resource, time.Second)
	if l.Token() != math.MaxInt64 {
		t.Fatalf("token %d after Advance(MaxInt64-1)", l.Token())
	}
	_ = l.Release(bg)
}

// A TTL near math.MaxInt64 ("forever") keeps the lock key that long: its
// milliseconds, rounded up, do not overflow into a 1ms PX that let a
// second holder in at once while the first believed itself valid.
func TestHugeTTLDoesNotWrapAround(t *testing.T) {
	e := newEnv(t)
	c := New(e.rdb, nil)
	for _, ttl := range []time.Duration{math.MaxInt64, math.MaxInt64 - time.Millisecond + 1, 1<<62 + 1} {
		l := mustAcquire(t, c, e.resource, ttl)
		// PTTL in milliseconds, raw: go-redis's Duration overflows here.
		if ms, err := e.rdb.Do(bg, "pttl", e.lockKey).Int64(); err != nil || ms < millis(ttl)-60_000 {
			t.Fatalf("TTL %v: lock key PTTL %dms (%v), want about %dms", ttl, ms, err, millis(ttl))
		}
		if _, err := c.Acquire(bg, e.resource, time.Second); !errors.Is(err, ErrNotAcquired) {
			t.Fatalf("TTL %v: a second Acquire = %v, want ErrNotAcquired", ttl, err)
		}
		if err := l.Release(bg); err != nil {
			t.Fatal(err)
		}
	}
	if got := millis(math.MaxInt64); got != int64(math.MaxInt64/time.Millisecond)+1 {
		t.Fatalf("millis(MaxInt64) = %d", got)
	}
}

// A lease never mints a token below 1 (generated code refuses those,
// fence.ErrInvalidToken): a counter set by hand to a negative value, or to
// -1, whose INCR would give 0, fails Acquire with ErrConfig, leaves the
// counter as it was and takes no lock; Advance then recovers it. Tokens
// minted from a missing counter start at 1.
func TestAcquireNeverMintsTokenBelowOne(t *testing.T) {
	e := newEnv(t)
	c := New(e.rdb, nil)
	l := mustAcquire(t, c, e.resource, time.Second)
	if l.Token() != 1 || !l.Token().Valid() {
		t.Fatalf("first token from a missing counter = %d, want 1", l.Token())
	}
	_ = l.Release(bg)
	for _, seed := range []string{"-1", "-5"} {
		if err := e.rdb.Set(bg, e.counter, seed, 0).Err(); err != nil {
			t.Fatal(err)
		}
		l, err := c.Acquire(bg, e.resource, time.Second)
		if !errors.Is(err, ErrConfig) || l != nil || !strings.Contains(err.Error(), "negative") {
			t.Fatalf("Acquire over counter %s = %v, %v; want an ErrConfig saying the counter is negative", seed, l, err)
		}
		if got := e.rdb.Get(bg, e.counter).Val(); got != seed {
			t.Fatalf("counter after the refused Acquire = %s, want %s untouched", got, seed)
		}
		if n := e.rdb.Exists(bg, e.lockKey).Val(); n != 0 {
			t.Fatalf("the refused Acquire over counter %s left the lock key", seed)
		}
	}
	if _, err := c.Advance(bg, e.resource, 7); err != nil {
		t.Fatal(err)
	}
	if l := mustAcquire(t, c, e.resource, time.Second); l.Token() != 8 {
		t.Fatalf("token after Advance(7) over a negative counter = %d, want 8", l.Token())
	} else {
		_ = l.Release(bg)
	}
}

// trial x26 F5: the Client minted 1..5, Redis lost the counter and another
// process raised it to raiseTo. The next mint (raiseTo+1) is at or below
// 5: Acquire reports the regression itself (event with the token minted
// again, error log), also when that token is exactly 5, so that the mint
// raised the counter back to the remembered token and Advance finds
// nothing to raise; the acquisition given back is not reported as
// acquired or released; the lease returned has token 6.
func TestMintedAgainIsReportedAsRegression(t *testing.T) {
	for _, raiseTo := range []int64{3, 4} {
		t.Run(fmt.Sprint("counter_raised_to_", raiseTo), func(t *testing.T) {
			e := newEnv(t)
			var (
				mu     sync.Mutex
				events []Event
				logs   syncWriter
			)
			c := New(e.rdb, &Options{
				Logger: slog.New(slog.NewTextHandler(&logs, nil)),
				Observer: &Observer{Event: func(_ context.Context, ev Event) {
					mu.Lock()
					defer mu.Unlock()
					events = append(events, ev)
				}},
			})
			for range 5 {
				if err := mustAcquire(t, c, e.resource, 30*time.Second).Release(bg); err != nil {
					t.Fatal(err)
				}
			}
			if err := e.rdb.Set(bg, e.counter, raiseTo, 0).Err(); err != nil { // lost, then raised by another process
				t.Fatal(err)
			}
			mu.Lock()
			events = nil
			mu.Unlock()
			l := mustAcquire(t, c, e.resource, 30*time.Second)
			defer l.Release(bg)
			if l.Token() != 6 {
				t.Fatalf("token after the counter went back = %d, want 6", l.Token())
			}
			minted := fence.Token(raiseTo + 1)
			mu.Lock()
			got := slices.Clone(events)
			mu.Unlock()
			want := []Event{
				{Kind: EventCounterRegressed, Resource: e.resource, Token: minted, From: minted, To: 5},
				{Kind: EventAcquired, Resource: e.resource, Token: 6},
			}
			if !slices.Equal(got, want) {
				t.Fatalf("events = %+v\nwant %+v", got, want)
			}
			line := fmt.Sprintf("resource=%s minted=%d from=%d to=5", e.resource, minted, minted)
			if out := logs.String(); !strings.Contains(out, "level=ERROR") || !strings.Contains(out, line) {
				t.Fatalf("no error record with %q:\n%s", line, out)
			}
			if n := e.rdb.Exists(bg, e.lockKey).Val(); n != 1 {
				t.Fatalf("lock key exists %d, want held by the lease of token 6", n)
			}
		})
	}
}

// A counter that exists but is behind the stored tokens (restored from an
// RDB snapshot taken one acquisition earlier, or an append-only file synced
// every second after a crash): a new Client with Options.HighWater asks for
// the mark on its first Acquire of the resource, raises the counter above
// it and mints above every stored token, as etcdlease does, instead of
// minting the stored token again (a README-only trial, t26h F2). It asks
// once per resource, not on every Acquire, and again after it caught the
// counter going back; the regression's record says what raised it.
func TestHighWaterRaisesCounterBehind(t *testing.T) {
	e := newEnv(t)
	old := New(e.rdb, nil)
	var stored fence.Token // what the fenced rows store
	for range 10 {
		l := mustAcquire(t, old, e.resource, time.Second)
		stored = l.Token()
		_ = l.Release(bg)
	}
	if err := e.rdb.Set(bg, e.counter, int64(stored-1), 0).Err(); err != nil { // the restore
		t.Fatal(err)
	}
	var calls, alerts atomic.Int32
	var logs syncBuffer
	c := New(e.rdb, &Options{
		HighWater: func(_ context.Context, res string) (fence.Token, error) {
			calls.Add(1)
			return stored, nil
		},
		Logger:   slog.New(slog.NewTextHandler(&logs, nil)),
		Observer: &Observer{OnCounterRegressed: func(string, fence.Token, fence.Token) { alerts.Add(1) }},
	})
	l := mustAcquire(t, c, e.resource, time.Second)
	if l.Token() <= stored || calls.Load() != 1 || alerts.Load() != 1 {
		t.Fatalf("counter %d behind the stored %d: token %d, %d HighWater calls, %d alerts; want a token above %d, 1, 1",
			stored-1, stored, l.Token(), calls.Load(), alerts.Load(), stored)
	}
	if out := logs.String(); !strings.Contains(out, "raised above the high-water mark") {
		t.Fatalf("regression record:\n%s", out)
	}
	_ = l.Release(bg)
	l = mustAcquire(t, c, e.resource, time.Second)
	if calls.Load() != 1 {
		t.Fatalf("%d HighWater calls after a second Acquire, want 1 (once per resource)", calls.Load())
	}
	_ = l.Release(bg)

	// Rewound again under the running Client, below a token it minted:
	// Acquire gives that acquisition back, and asks for the mark again.
	stored = l.Token() + 5 // another process wrote higher meanwhile
	if err := e.rdb.Set(bg, e.counter, 1, 0).Err(); err != nil {
		t.Fatal(err)
	}
	l = mustAcquire(t, c, e.resource, time.Second)
	if l.Token() <= stored || calls.Load() != 2 {
		t.Fatalf("after a rewind caught by Acquire: token %d, %d HighWater calls; want above %d, 2", l.Token(), calls.Load(), stored)
	}
	_ = l.Release(bg)
}

// A counter raised by Observe (a refused write found a higher stored
// token), without Options.HighWater, logs that, not a high-water mark it
// never had (a README-only trial, t26h F5).
func TestObserveRegressionRecordSaysWhatRaisedIt(t *testing.T) {
	e := newEnv(t)
	var logs syncBuffer
	c := New(e.rdb, &Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	err := c.Do(bg, e.resource, time.Second, func(_ context.Context, tok fence.Token) error {
		return &fence.StaleError{Query: "Q", Table: "t", Presented: tok, Stored: tok + 10}
	})
	if !errors.Is(err, fence.ErrStaleToken) {
		t.Fatalf("Do = %v, want the stale token", err)
	}
	out := logs.String()
	if !strings.Contains(out, "raised above the token a refused write found stored") || strings.Contains(out, "high-water") {
		t.Fatalf("regression record after Observe:\n%s", out)
	}
}

// syncBuffer is a bytes.Buffer safe for a log handler's writes and the
// test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
