package lease

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/faults"
)

// deadRedis returns a go-redis client for a loopback port nothing listens
// on, closed when t ends. PoolSize stays above the number of dials a test
// makes, so that go-redis starts no background re-dial goroutine.
func deadRedis(t *testing.T, o redis.Options) *redis.Client {
	t.Helper()
	o.Addr = fmt.Sprintf("127.0.0.1:%d", faults.FreePort(t))
	if o.PoolSize == 0 {
		o.PoolSize = 64
	}
	rdb := redis.NewClient(&o)
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// stall wraps a redis.Scripter: a call of one of the scripts in shas blocks
// until its context ends and then fails with the context's error, as a
// go-redis call does when its deadline passes while it waits for a
// connection. Other calls pass through.
type stall struct {
	redis.Scripter
	shas map[string]bool
}

func (s *stall) stalled(ctx context.Context, sha string) *redis.Cmd {
	if !s.shas[sha] {
		return nil
	}
	<-ctx.Done()
	cmd := redis.NewCmd(ctx)
	cmd.SetErr(ctx.Err())
	return cmd
}

func (s *stall) EvalSha(ctx context.Context, sha string, keys []string, args ...any) *redis.Cmd {
	if cmd := s.stalled(ctx, sha); cmd != nil {
		return cmd
	}
	return s.Scripter.EvalSha(ctx, sha, keys, args...)
}

func (s *stall) Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	if cmd := s.stalled(ctx, redis.NewScript(script).Hash()); cmd != nil {
		return cmd
	}
	return s.Scripter.Eval(ctx, script, keys, args...)
}

// errRefused is go-redis's error when Redis refuses the connection.
var errRefused = &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}

// Against a Redis that refuses connections, a go-redis client that makes
// one attempt per call and one dial per attempt fails every acquire attempt
// with the dial error, which proves nothing was sent: Acquire returns that
// error at once, with no cleanup release, whether or not the client applies
// context deadlines itself.
func TestAcquireRefusedConnectionNeedsNoCleanup(t *testing.T) {
	for _, ctxTimeouts := range []bool{true, false} {
		t.Run(fmt.Sprint("ContextTimeoutEnabled=", ctxTimeouts), func(t *testing.T) {
			rdb := deadRedis(t, redis.Options{MaxRetries: -1, DialerRetries: 1, ContextTimeoutEnabled: ctxTimeouts})
			c := New(rdb, &Options{ReleaseTimeout: 5 * time.Second})
			start := time.Now()
			_, err := c.Acquire(bg, "refused", 10*time.Second)
			took := time.Since(start)
			var oe *net.OpError
			if !errors.As(err, &oe) || oe.Op != "dial" || !errors.Is(err, syscall.ECONNREFUSED) {
				t.Fatalf("Acquire = %v, want the dial error (connection refused)", err)
			}
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrRedisTimeout) {
				t.Fatalf("Acquire = %v: no deadline expired", err)
			}
			if s := c.Stats(); s.Acquires != 3 || s.Releases != 0 {
				t.Fatalf("stats = %+v, want 3 attempts and no cleanup release", s)
			}
			if took > 2500*time.Millisecond {
				t.Fatalf("Acquire took %v against a refusing Redis", took)
			}
		})
	}
}

// A client that retries internally (go-redis's default MaxRetries) may have
// written an earlier attempt before its final dial failed, so the dial
// error proves nothing: Acquire cleans up, and its cleanup stops at the
// first delete that fails with a dial error.
func TestAcquireRetryingClientRefusedConnectionCleansUpOnce(t *testing.T) {
	rdb := deadRedis(t, redis.Options{DialerRetries: 1})
	c := New(rdb, &Options{ReleaseTimeout: 5 * time.Second})
	_, err := c.Acquire(bg, "refused", 10*time.Second)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("Acquire = %v, want connection refused", err)
	}
	if s := c.Stats(); s.Releases != 1 {
		t.Fatalf("stats = %+v, want exactly 1 cleanup release (it fails with a dial error)", s)
	}
}

// The reported case: AcquireWait with a 300ms context against a Redis that
// refuses connections returns when the context ends, not a ReleaseTimeout
// later, with ErrNotAcquired and the context's error.
func TestAcquireWaitRefusedConnectionEndsWithContext(t *testing.T) {
	rdb := deadRedis(t, redis.Options{MaxRetries: -1, DialerRetries: 1, ContextTimeoutEnabled: true})
	c := New(rdb, &Options{ReleaseTimeout: 5 * time.Second})
	ctx, cancel := context.WithTimeout(bg, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.AcquireWait(ctx, "refused", 10*time.Second)
	took := time.Since(start)
	// Redis never answered: not "held by another owner" (issue 12).
	if errors.Is(err, ErrNotAcquired) || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("AcquireWait = %v, want DeadlineExceeded and connection refused, not ErrNotAcquired", err)
	}
	if took > 300*time.Millisecond+2*time.Second { // far below 300ms + ReleaseTimeout
		t.Fatalf("AcquireWait returned %v after its 300ms context started", took)
	}
}

// An attempt whose request landed but whose reply was lost is cleaned up;
// when the delete then fails with a dial error, Redis refuses connections
// and the cleanup stops instead of retrying until ReleaseTimeout.
func TestAcquireCleanupStopsAtDialError(t *testing.T) {
	e := newEnv(t)
	f := &flaky{Scripter: e.rdb, fault: func(sha string) (error, bool) {
		switch sha {
		case acquireScript.Hash():
			return errTimeout, true // landed, reply lost
		case releaseScript.Hash():
			return errRefused, false
		}
		return nil, false
	}}
	c := New(f, &Options{UnsafeNoReplicas: true, ReleaseTimeout: 5 * time.Second, AcquireRetries: -1})
	start := time.Now()
	_, err := c.Acquire(bg, e.resource, time.Second)
	if !errors.Is(err, ErrRedisTimeout) {
		t.Fatalf("Acquire = %v, want the lost reply's timeout", err)
	}
	if s := c.Stats(); s.Releases != 1 {
		t.Fatalf("stats = %+v, want 1 cleanup release: no retry after a dial error", s)
	}
	if took := time.Since(start); took > 2500*time.Millisecond {
		t.Fatalf("Acquire took %v; the cleanup waited after a dial error", took)
	}
}

// A cleanup delete that fails transiently (the connection dropped) is
// retried within ReleaseTimeout, so no ghost lock is left.
func TestAcquireCleanupRetriesTransientFailure(t *testing.T) {
	e := newEnv(t)
	var releases atomic.Int32
	f := &flaky{Scripter: e.rdb, fault: func(sha string) (error, bool) {
		switch {
		case sha == acquireScript.Hash():
			return errTimeout, true // landed, reply lost
		case sha == releaseScript.Hash() && releases.Add(1) == 1:
			return io.ErrUnexpectedEOF, false
		}
		return nil, false
	}}
	c := New(f, &Options{UnsafeNoReplicas: true, AcquireRetries: -1})
	if _, err := c.Acquire(bg, e.resource, time.Second); err == nil {
		t.Fatal("Acquire succeeded")
	}
	if s := c.Stats(); s.Releases != 2 {
		t.Fatalf("stats = %+v, want 2 cleanup releases (one failed, one retried)", s)
	}
	if n := e.rdb.Exists(bg, e.lockKey).Val(); n != 0 {
		t.Fatal("ghost lock key after the cleanup's retry")
	}
}

// An acquire attempt cut off by CallTimeout, with no deadline on the
// caller's context, is a *TimeoutError carrying the call timeout, not
// context.DeadlineExceeded; with a caller's deadline shorter than
// CallTimeout it is the caller's DeadlineExceeded.
func TestCallTimeoutIsNotTheCallersDeadline(t *testing.T) {
	e := newEnv(t)
	c := New(&stall{Scripter: e.rdb, shas: map[string]bool{acquireScript.Hash(): true}}, &Options{UnsafeNoReplicas: true, AcquireRetries: -1})
	const ttl = 300 * time.Millisecond // CallTimeout 50ms
	_, err := c.Acquire(bg, e.resource, ttl)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Op != "acquire" || te.Timeout != ttl/6 || !errors.Is(err, ErrRedisTimeout) {
		t.Fatalf("Acquire = %#v, want a *TimeoutError of the acquire call after %v", err, ttl/6)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire = %v matches context.DeadlineExceeded, but the caller set no deadline", err)
	}
	if want := fmt.Sprintf("lease: acquire %q: Redis acquire call timed out after 50ms", e.resource); err.Error() != want {
		t.Fatalf("Acquire = %q, want %q", err, want)
	}

	ctx, cancel := context.WithTimeout(bg, 20*time.Millisecond)
	_, err = c.Acquire(ctx, e.resource, ttl)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrRedisTimeout) {
		t.Fatalf("Acquire with a 20ms context = %v, want the caller's DeadlineExceeded", err)
	}
}

// The reported case: Acquire(context.Background(), ...) against a Redis that
// refuses connections, with go-redis's default dial retries (a refused dial
// is retried for about 400ms, longer than the 167ms CallTimeout), does not
// report context.DeadlineExceeded.
func TestAcquireDeadRedisIsNotContextDeadline(t *testing.T) {
	rdb := deadRedis(t, redis.Options{MaxRetries: -1, ContextTimeoutEnabled: true})
	_, err := New(rdb, nil).Acquire(bg, "x", time.Second)
	if err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire = %v; the caller's context has no deadline", err)
	}
	if !errors.Is(err, ErrRedisTimeout) && !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("Acquire = %v, want a Redis timeout or connection refused", err)
	}
}

// callError turns a timeout of the call itself into a *TimeoutError that
// keeps its cause in the chain (but never a context error), and leaves
// other errors, and every error once the caller's context has ended, as
// they are.
func TestCallErrorSeparatesCallTimeoutFromCallerDeadline(t *testing.T) {
	const d = 50 * time.Millisecond
	expiredCall, cancel := context.WithTimeoutCause(bg, time.Nanosecond, ErrRedisTimeout)
	defer cancel()
	<-expiredCall.Done()
	expiredCaller, cancel2 := context.WithTimeout(bg, time.Nanosecond)
	defer cancel2()
	<-expiredCaller.Done()
	live, cancel3 := context.WithTimeoutCause(bg, time.Hour, ErrRedisTimeout)
	defer cancel3()
	// A dial that timed out (go-redis's DialTimeout): net reports an error
	// that matches context.DeadlineExceeded.
	_, dialTimeout := (&net.Dialer{}).DialContext(expiredCaller, "tcp", "127.0.0.1:1")
	if !isDialError(dialTimeout) || !errors.Is(dialTimeout, context.DeadlineExceeded) {
		t.Fatalf("dial with an expired context = %v, want a dial error matching DeadlineExceeded", dialTimeout)
	}

	te := func(t *testing.T, err error, timeout time.Duration, cause error) {
		t.Helper()
		var e *TimeoutError
		if !errors.As(err, &e) || e.Timeout != timeout || e.Err != cause || !errors.Is(err, ErrRedisTimeout) {
			t.Fatalf("callError = %#v, want *TimeoutError{Timeout: %v, Err: %v}", err, timeout, cause)
		}
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			t.Fatalf("callError = %v matches a context error", err)
		}
	}
	te(t, callError(bg, expiredCall, "acquire", d, context.DeadlineExceeded), d, nil)
	err := callError(bg, expiredCall, "acquire", d, errRefused)
	te(t, err, d, errRefused)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("callError = %v lost the connection refused cause", err)
	}
	err = callError(bg, live, "acquire", d, dialTimeout)
	te(t, err, 0, dialTimeout)
	if !strings.Contains(err.Error(), "i/o timeout") {
		t.Fatalf("callError = %q does not say what timed out", err)
	}
	te(t, callError(bg, live, "renew", d, errTimeout), 0, errTimeout)
	if err := callError(bg, expiredCall, "acquire", d, redis.ErrCrossSlot); err != redis.ErrCrossSlot {
		t.Fatalf("callError(a Redis reply) = %v, want it unchanged", err)
	}
	if err := callError(bg, live, "acquire", d, errRefused); err != errRefused {
		t.Fatalf("callError(refused) = %v, want it unchanged", err)
	}
	if err := callError(expiredCaller, expiredCaller, "acquire", d, errTimeout); err != errTimeout {
		t.Fatalf("callError after the caller's deadline = %v, want it unchanged", err)
	}
	err = opFailed("renew", expiredCaller, expiredCaller, "renew", d, errTimeout)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, errTimeout) || errors.Is(err, ErrRedisTimeout) {
		t.Fatalf("opFailed after the caller's deadline = %v, want DeadlineExceeded with the Redis error", err)
	}
}

// Renewals cut off by the heartbeat's CallTimeout lose the lease with a
// cause that is a Redis timeout, not context.DeadlineExceeded, and a
// Release cut off by ReleaseTimeout is a *TimeoutError too.
func TestRenewAndReleaseTimeoutsAreRedisTimeouts(t *testing.T) {
	e := newEnv(t)
	s := &stall{Scripter: e.rdb, shas: map[string]bool{renewScript.Hash(): true, releaseScript.Hash(): true}}
	c := New(s, &Options{UnsafeNoReplicas: true, ReleaseTimeout: 100 * time.Millisecond})
	const ttl = 600 * time.Millisecond
	l := mustAcquire(t, c, e.resource, ttl)
	waitDone(t, l.Context(), 2*ttl)
	if err := l.Err(); !errors.Is(err, ErrLost) || !errors.Is(err, ErrRedisTimeout) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cause = %v, want ErrLost with a Redis timeout, not DeadlineExceeded", err)
	}
	err := l.Release(bg)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Op != "release" || te.Timeout != 100*time.Millisecond || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Release = %v, want a *TimeoutError after ReleaseTimeout", err)
	}
	if want := fmt.Sprintf("lease: release %q (token %d): Redis release call timed out after 100ms", e.resource, l.Token()); err.Error() != want {
		t.Fatalf("Release = %q, want %q", err, want)
	}
}

// A TTL below what the per-call timeout and MinValidity arithmetic allows
// is ErrConfig, up front and without a round trip, from Acquire,
// AcquireWait and Do, with a message that gives the minimum TTL; the
// minimum passes and one millisecond less fails.
func TestTTLBelowMinimumIsConfigError(t *testing.T) {
	e := newEnv(t)
	c := New(e.rdb, nil)
	_, err := c.Acquire(bg, e.resource, time.Millisecond)
	if !errors.Is(err, ErrConfig) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire(ttl 1ms) = %v, want ErrConfig", err)
	}
	want := fmt.Sprintf("lease: acquire %q: configuration error: TTL 1ms too short: its CallTimeout (TTL/6) 167µs is below the 1ms a Redis call needs (minimum TTL with these options: 36ms)", e.resource)
	if err.Error() != want {
		t.Fatalf("Acquire(ttl 1ms) = %q, want %q", err, want)
	}
	// Just below the minimum, rounding must not make the message
	// contradict itself ("TTL 6ms too short ... 1ms is below the 1ms",
	// trial-rt3 F7).
	_, err = c.Acquire(bg, e.resource, 5999*time.Microsecond)
	want = fmt.Sprintf("lease: acquire %q: configuration error: TTL 5.99ms too short: its CallTimeout (TTL/6) 999µs is below the 1ms a Redis call needs (minimum TTL with these options: 36ms)", e.resource)
	if err == nil || err.Error() != want {
		t.Fatalf("Acquire(ttl 5.999ms) = %v, want %q", err, want)
	}
	// A README-only trial (F4): TTLs of 6ms and 10ms were taken, and at
	// 10ms 1 lease in 20 was lost on an idle loopback: a renewal sent on
	// schedule had 5.67ms before the local deadline.
	for _, ttl := range []time.Duration{6 * time.Millisecond, 10 * time.Millisecond, 35 * time.Millisecond} {
		_, err := c.Acquire(bg, e.resource, ttl)
		var oe *OptionsError
		if !errors.As(err, &oe) || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "before the local deadline, below the 20ms it needs on a busy machine (lease.MinRenewSlack) (minimum TTL with these options: 36ms)") {
			t.Fatalf("Acquire(ttl %v) = %v, want an *OptionsError naming MinRenewSlack and the minimum 36ms", ttl, err)
		}
	}
	ctx, cancel := context.WithTimeout(bg, 5*time.Second)
	defer cancel()
	if _, err := c.AcquireWait(ctx, e.resource, time.Millisecond); !errors.Is(err, ErrConfig) || ctx.Err() != nil {
		t.Fatalf("AcquireWait(ttl 1ms) = %v, want ErrConfig at once", err)
	}
	if err := c.Do(bg, e.resource, time.Millisecond, nil); !errors.Is(err, ErrConfig) {
		t.Fatalf("Do(ttl 1ms) = %v, want ErrConfig", err)
	}
	if s := c.Stats(); s.Acquires != 0 {
		t.Fatalf("stats = %+v: a TTL below the minimum reached Redis", s)
	}

	for _, tc := range []struct {
		opts *Options
		min  time.Duration
	}{
		{nil, 36 * time.Millisecond}, // TTL − TTL/10 − TTL/3 ≥ MinRenewSlack
		{&Options{CallTimeout: 10 * time.Millisecond}, 36 * time.Millisecond},
		{&Options{CallTimeout: 10 * time.Millisecond, HeartbeatInterval: -1}, 11 * time.Millisecond}, // CallTimeout below the TTL
		{&Options{MinValidity: 100 * time.Millisecond}, 113 * time.Millisecond},
		{&Options{SafetyMargin: time.Second}, 2002 * time.Millisecond},
	} {
		c := New(e.rdb, tc.opts)
		if _, err := c.timing(tc.min); err != nil {
			t.Errorf("%+v: the minimum TTL %v fails: %v", tc.opts, tc.min, err)
		}
		_, err := c.timing(tc.min - time.Millisecond)
		if !errors.Is(err, ErrConfig) || !strings.HasSuffix(err.Error(), fmt.Sprintf("(minimum TTL with these options: %v)", tc.min)) {
			t.Errorf("%+v: TTL %v = %v, want ErrConfig naming the minimum %v", tc.opts, tc.min-time.Millisecond, err, tc.min)
		}
	}
	// A TTL below PX's resolution says which rule that is, beside the
	// minimum TTL the options allow (two different figures, each named).
	_, err = New(e.rdb, nil).timing(time.Nanosecond)
	if want := "TTL 1ns below the 1ms resolution of Redis PX (minimum TTL with these options: 36ms)"; !errors.Is(err, ErrConfig) || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("TTL 1ns = %v, want ErrConfig ending %q", err, want)
	}
	err = newRefusal(e.rdb, &Options{CallTimeout: 500 * time.Microsecond})
	if !errors.Is(err, ErrConfig) || strings.Contains(err.Error(), "minimum TTL") {
		t.Fatalf("CallTimeout 500µs = %v, want ErrConfig (no TTL helps)", err)
	}
}

// heldStub answers every acquire with 0 (held by another owner) at once,
// without Redis.
type heldStub struct{ redis.Scripter }

func (heldStub) EvalSha(ctx context.Context, _ string, _ []string, _ ...any) *redis.Cmd {
	cmd := redis.NewCmd(ctx)
	cmd.SetVal(int64(0))
	return cmd
}

// AcquireWait's error when its context ends is one line of a fixed shape,
// whether the context ends between attempts or during one, and matches
// ErrNotAcquired and the context's error.
func TestAcquireWaitContextEndErrorIsOneStableLine(t *testing.T) {
	t.Run("held", func(t *testing.T) {
		c := New(heldStub{}, &Options{UnsafeNoReplicas: true, RetryMax: 10 * time.Millisecond})
		ctx, cancel := context.WithTimeout(bg, 60*time.Millisecond)
		defer cancel()
		_, err := c.AcquireWait(ctx, "x", time.Second)
		if !errors.Is(err, ErrNotAcquired) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("AcquireWait = %v, want ErrNotAcquired and DeadlineExceeded", err)
		}
		msg := err.Error()
		prefix := `lease: acquire "x": not acquired before the context ended: context deadline exceeded`
		// The last attempt may itself have been cut off by the deadline
		// (then it adds nothing).
		if rest, ok := strings.CutPrefix(msg, prefix); !ok || (rest != "" && rest != " (last attempt: held by another owner)") {
			t.Fatalf("AcquireWait = %q, want %q (last attempt: held by another owner)", msg, prefix)
		}
	})
	t.Run("cancelled mid-attempt", func(t *testing.T) {
		e := newEnv(t)
		c := New(&stall{Scripter: e.rdb, shas: map[string]bool{acquireScript.Hash(): true}}, &Options{UnsafeNoReplicas: true})
		ctx, cancel := context.WithCancel(bg)
		defer cancel()
		time.AfterFunc(30*time.Millisecond, cancel) // CallTimeout is 1.67s
		_, err := c.AcquireWait(ctx, e.resource, 10*time.Second)
		if errors.Is(err, ErrNotAcquired) || !errors.Is(err, context.Canceled) {
			t.Fatalf("AcquireWait = %v, want Canceled and not ErrNotAcquired (Redis never answered)", err)
		}
		if want := fmt.Sprintf("lease: acquire %q: no answer from Redis before the context ended: context canceled", e.resource); err.Error() != want {
			t.Fatalf("AcquireWait = %q, want %q", err, want)
		}
	})
}

// Errors that wrap one of the package's errors say "lease:" once, while
// the sentinels alone keep their prefix and errors.Is still finds them.
func TestWrappedErrorsSayLeaseOnce(t *testing.T) {
	if ErrNotHeld.Error() != "lease: not held" || ErrNotAcquired.Error() != "lease: not acquired" {
		t.Fatalf("sentinels print %q, %q", ErrNotHeld, ErrNotAcquired)
	}
	e := newEnv(t)
	c := New(e.rdb, nil)
	l := mustAcquire(t, c, e.resource, time.Second)
	e.rdb.Del(bg, e.lockKey)
	err := l.Release(bg)
	if want := fmt.Sprintf("lease: release %q (token %d): not held", e.resource, l.Token()); err == nil || err.Error() != want || !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Release = %v, want %q matching ErrNotHeld", err, want)
	}

	held := mustAcquire(t, c, e.resource, time.Second)
	defer held.Release(bg)
	_, notAcquired := c.Acquire(bg, e.resource, time.Second)
	if want := fmt.Sprintf("lease: acquire %q: not acquired", e.resource); notAcquired == nil || notAcquired.Error() != want {
		t.Fatalf("Acquire = %v, want %q", notAcquired, want)
	}
	crossSlot := &flaky{Scripter: e.rdb, fault: func(string) (error, bool) { return redis.ErrCrossSlot, false }}
	_, configErr := New(crossSlot, &Options{UnsafeNoReplicas: true}).Acquire(bg, "y", time.Second)
	if !errors.Is(configErr, ErrConfig) || !errors.Is(configErr, redis.ErrCrossSlot) ||
		!strings.HasPrefix(configErr.Error(), `lease: acquire "y": configuration error: CROSSSLOT`) {
		t.Fatalf("Acquire = %v, want the CROSSSLOT configuration error", configErr)
	}
	slow := New(e.rdb, &Options{hooks: &testHooks{afterAcquireReply: func() { time.Sleep(200 * time.Millisecond) }}})
	_, tooSlow := slow.Acquire(bg, "z"+e.resource, 300*time.Millisecond)
	if !errors.Is(tooSlow, ErrAcquireTooSlow) {
		t.Fatalf("Acquire = %v, want ErrAcquireTooSlow", tooSlow)
	}
	lockZ, counterZ := c.Keys("z" + e.resource)
	defer e.rdb.Del(bg, lockZ, counterZ, mintKey(lockZ))
	_, tinyTTL := c.AcquireWait(bg, e.resource, time.Millisecond)
	_, badResource := c.Advance(bg, "", 1)
	lost := &LostError{Resource: "x", Token: 1, Reason: ReasonRenewFailed,
		Err: &opError{op: `renew "x" (token 1)`, err: &TimeoutError{Op: "renew", Timeout: 100 * time.Millisecond}}}
	if want := `lease: lost "x" (token 1): renewals failed: renew "x" (token 1): Redis renew call timed out after 100ms`; lost.Error() != want {
		t.Fatalf("LostError = %q, want %q", lost, want)
	}
	for _, err := range []error{err, notAcquired, configErr, tooSlow, tinyTTL, badResource, lost} {
		if n := strings.Count(err.Error(), "lease:"); n != 1 || strings.Contains(err.Error(), "\n") {
			t.Errorf("error %q: want one line saying \"lease:\" once", err)
		}
	}
}

// Issue 13: with go-redis's defaults (MaxRetries 3, DialerRetries 5, no
// ContextTimeoutEnabled) a refused connection outlasts the acquire
// attempts' CallTimeout, so the calls end on their deadline with nothing
// but "timed out" from go-redis; the error still names the cause
// (connection refused, matching syscall.ECONNREFUSED) and prints the
// timeout rounded (167ms, not 166.666666ms). AcquireWait's error after its
// context ended says the same.
func TestRefusedConnectionKeepsItsCauseWithGoRedisDefaults(t *testing.T) {
	rdb := deadRedis(t, redis.Options{})
	var logs bytes.Buffer
	c := New(rdb, &Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	_, acqErr := c.Acquire(bg, "refused", time.Second)
	err := acqErr
	if !errors.Is(err, syscall.ECONNREFUSED) || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("Acquire = %v, want the connection refused cause", err)
	}
	// A refused connection reads as refused, in the error and in every
	// log line, and the cleanup says what it cleans up (trial-rt3 F8).
	if strings.Contains(err.Error(), "timed out") {
		t.Fatalf("Acquire = %q reads as a timeout", err)
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	for _, line := range lines {
		if strings.Contains(line, "err=") && (!strings.Contains(line, "connection refused") || strings.Contains(line, "timed out")) {
			t.Errorf("log line does not read as a refused connection: %s", line)
		}
		if strings.Contains(line, "cleanup") && !strings.Contains(line, "deleting the lock key") {
			t.Errorf("cleanup log line does not say what it cleans up: %s", line)
		}
		// No token was minted: no token=0; no empty error (trial rt4 F7).
		if strings.Contains(line, "token=0") || strings.Contains(line, "<nil>") {
			t.Errorf("log line with token=0 or an empty error: %s", line)
		}
	}
	if !strings.Contains(logs.String(), "cleanup") || !strings.Contains(logs.String(), "attempt failed") {
		t.Fatalf("no attempt or cleanup log lines:\n%s", logs.String())
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrNotAcquired) {
		t.Fatalf("Acquire = %v matches a context deadline or ErrNotAcquired", err)
	}
	if strings.Contains(err.Error(), "166.66") {
		t.Fatalf("Acquire = %q: durations not rounded", err)
	}
	ctx, cancel := context.WithTimeout(bg, 300*time.Millisecond)
	defer cancel()
	_, err = c.AcquireWait(ctx, "refused", time.Second)
	if !errors.Is(err, syscall.ECONNREFUSED) || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrNotAcquired) {
		t.Fatalf("AcquireWait = %v, want DeadlineExceeded and connection refused, not ErrNotAcquired", err)
	}
	t.Logf("Acquire: %v\nAcquireWait: %v", acqErr, err)
}

// Messages round the durations they derive: a third of a second's sixth is
// 167ms (rounded to the millisecond from 100ms up, finer below), a user's
// value prints as written.
func TestDurationsInMessagesAreRounded(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Second / 6:            "167ms",
		10 * time.Second / 6:       "1.667s",
		100 * time.Millisecond / 6: "16.67ms",
		1500 * time.Millisecond:    "1.5s",
		-time.Millisecond:          "-1ms",
		time.Millisecond / 3:       "333µs",
	} {
		if got := dur(d).String(); got != want {
			t.Errorf("dur(%v) = %s, want %s", time.Duration(d), got, want)
		}
	}
	te := &TimeoutError{Op: "renew", Timeout: time.Second / 6}
	if got := te.Error(); got != "lease: Redis renew call timed out after 167ms" {
		t.Fatalf("TimeoutError = %q", got)
	}
}

// AcquireWait's error says what the last attempt got: no answer, an error
// reply from Redis, no acknowledgement by the replicas, or a late reply.
func TestAcquireWaitSaysWhatTheLastAttemptGot(t *testing.T) {
	e := newEnv(t)
	reply := e.rdb.Do(bg, "nosuchcommand").Err() // an error reply of Redis
	ctx, cancel := context.WithCancel(bg)
	cancel()
	c := New(e.rdb, nil)
	for _, tc := range []struct {
		last error
		says string
	}{
		{errTimeout, "no answer from Redis"},
		{nil, "no answer from Redis"},
		{reply, "refused by Redis"},
		{fmt.Errorf("%w: 0 of 1 replicas acknowledged", ErrNotReplicated), "not acknowledged by the replicas"},
		{ErrAcquireTooSlow, "no reply in time"},
	} {
		err := c.waitEnded(ctx, e.resource, tc.last)
		if want := fmt.Sprintf("lease: acquire %q: %s before the context ended: context canceled", e.resource, tc.says); !strings.HasPrefix(err.Error(), want) {
			t.Errorf("last attempt %v: %q, want it to start %q", tc.last, err, want)
		}
	}
}

// A lease lost because its renewals could not connect (Redis killed; with
// go-redis's defaults the renewal batch ends on its deadline while
// go-redis is still retrying the refused dial) says why, as Acquire and
// Release do: the loss's cause matches syscall.ECONNREFUSED and
// ErrRedisTimeout, not only "timed out".
func TestRenewalsLostToARefusedConnectionSayWhy(t *testing.T) {
	r := faults.StartRedis(t, faults.RedisOptions{})
	rdb := r.Client(&redis.Options{})
	c := New(rdb, nil)
	l := mustAcquire(t, c, "refused-renewal", 600*time.Millisecond)
	r.Kill()
	select {
	case <-l.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the lease outlived its TTL with Redis killed")
	}
	err := context.Cause(l.Context())
	var lost *LostError
	if !errors.As(err, &lost) {
		t.Fatalf("cause = %v, want a *LostError", err)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("cause = %v (reason %v), want the connection refused cause", err, lost.Reason)
	}
	t.Logf("lost: %v", err)
}

// Stats counts what reached the wire: a cleanup (the abandon script of a
// failed Acquire) or a renewal that a go-redis client without retries
// could not even connect for was never sent, and is not counted, however
// often the background cleanup tries against a Redis that refuses
// connections. Acquire attempts all count.
func TestRefusedCleanupsAndRenewalsAreNotCounted(t *testing.T) {
	for _, ctxTimeouts := range []bool{true, false} {
		t.Run(fmt.Sprint("ContextTimeoutEnabled=", ctxTimeouts), func(t *testing.T) {
			rdb := deadRedis(t, redis.Options{MaxRetries: -1, DialerRetries: 1, ContextTimeoutEnabled: ctxTimeouts})
			c := New(rdb, nil)
			lockKey, _ := c.Keys("refused")
			for range 3 {
				if _, err := c.abandon(bg, lockKey, newOwner(), time.Second); !isDialError(err) {
					t.Fatalf("abandon = %v, want the dial error", err)
				}
				if r := c.renew(bg, c.inline(bg), lockKey, newOwner()+":1", millis(time.Second), nil); !isDialError(r.err) {
					t.Fatalf("renew = %v, want the dial error", r.err)
				}
			}
			if s := c.Stats(); s.Releases != 0 || s.Renewals != 0 {
				t.Fatalf("stats = %+v after calls that could not connect, want no release or renewal counted", s)
			}
		})
	}
}

// The heartbeat's renewals of a Redis that died count only when sent:
// on a client without retries, those refused at the dial do not.
func TestRefusedHeartbeatRenewalsAreNotCounted(t *testing.T) {
	r := faults.StartRedis(t, faults.RedisOptions{})
	rdb := redis.NewClient(&redis.Options{Addr: r.Addr(), MaxRetries: -1, DialerRetries: 1, ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = rdb.Close() })
	c := New(rdb, nil)
	l1 := mustAcquire(t, c, "a", 3*time.Second)
	l2 := mustAcquire(t, c, "b", 3*time.Second) // two leases: the batch path
	before := c.Stats()
	r.Kill()
	waitDone(t, l1.Context(), 5*time.Second)
	waitDone(t, l2.Context(), 5*time.Second)
	if s := c.Stats(); s.Renewals != before.Renewals {
		t.Fatalf("renewals %d -> %d against a Redis that refuses connections", before.Renewals, s.Renewals)
	}
}

// An Acquire whose context ends during a retry says what the attempt
// before it got: the error matches ctx's error and the earlier attempt's
// *TimeoutError (ErrRedisTimeout), and reads "(last attempt: ...)", as
// AcquireWait's does. The retry cut off by ctx itself says nothing new.
func TestAcquireCutOffDuringARetryKeepsTheEarlierAttemptsTimeout(t *testing.T) {
	for _, cte := range []bool{false, true} {
		t.Run(fmt.Sprintf("ContextTimeoutEnabled=%v", cte), func(t *testing.T) {
			const callTimeout = 200 * time.Millisecond
			r := faults.StartRedis(t, faults.RedisOptions{})
			c := New(r.Client(&redis.Options{ContextTimeoutEnabled: cte}), &Options{CallTimeout: callTimeout, ReleaseTimeout: callTimeout})
			mustAcquire(t, c, "warm", 3*time.Second).Release(bg) // loads the scripts
			r.Pause()
			t.Cleanup(r.Resume)
			ctx, cancel := context.WithTimeout(bg, callTimeout+150*time.Millisecond) // ends in the second attempt
			defer cancel()
			_, err := c.Acquire(ctx, "cut-off", 3*time.Second)
			var te *TimeoutError
			if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrRedisTimeout) || !errors.As(err, &te) || te.Timeout != callTimeout {
				t.Fatalf("Acquire = %v, want ctx's deadline with the first attempt's %v timeout", err, callTimeout)
			}
			if want := fmt.Sprintf("(last attempt: Redis acquire call timed out after %v)", callTimeout); !strings.Contains(err.Error(), want) {
				t.Fatalf("Acquire = %q, want it to contain %q", err, want)
			}
		})
	}
}

// Check against a port nothing listens on names the refused connection
// (errors.Is(err, syscall.ECONNREFUSED)) at once, as Acquire and
// etcdlease's Check do, rather than "context deadline exceeded" when ctx's
// deadline comes before go-redis has given up its dial retries (a
// README-only trial, t26h F4: a 3s deadline gave only the deadline). With
// the client's defaults (dial retries) and a deadline shorter than them,
// also when the client applies context deadlines itself.
func TestCheckNamesRefusedConnection(t *testing.T) {
	for _, ctxTimeouts := range []bool{true, false} {
		t.Run(fmt.Sprint("ContextTimeoutEnabled=", ctxTimeouts), func(t *testing.T) {
			c := New(deadRedis(t, redis.Options{ContextTimeoutEnabled: ctxTimeouts}), nil)
			ctx, cancel := context.WithTimeout(bg, 200*time.Millisecond)
			defer cancel()
			err := c.Check(ctx)
			if !errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) {
				t.Fatalf("Check on a refused port = %v; want the refused connection, not a timeout", err)
			}
			if !strings.Contains(err.Error(), "connection refused") {
				t.Fatalf("Check's message %q does not say the connection was refused", err)
			}
		})
	}
}
