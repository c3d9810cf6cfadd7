package lease

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/runtime/fence"
)

var (
	//go:embed acquire.lua
	acquireLua string
	//go:embed renew.lua
	renewLua string
	//go:embed release.lua
	releaseLua string
	//go:embed advance.lua
	advanceLua string

	// Each script is wrapped once; Script.Run sends EVALSHA and falls back
	// to EVAL when the server answers NOSCRIPT.
	acquireScript = redis.NewScript(acquireLua)
	renewScript   = redis.NewScript(renewLua)
	releaseScript = redis.NewScript(releaseLua)
	advanceScript = redis.NewScript(advanceLua)
)

// Client takes leases on named resources in one Redis deployment. It is safe
// for concurrent use; create one per Redis client and share it.
type Client struct {
	rdb  redis.Scripter
	opts *Options
	hb   scheduler
	// ctxDeadlines: rdb is a go-redis client with ContextTimeoutEnabled,
	// which bounds each call by its context itself (see run).
	ctxDeadlines bool
	stats        struct {
		acquires, renewals, releases atomic.Uint64
	}
}

// New returns a Client that runs its scripts on rdb, which may be a
// *redis.Client, *redis.ClusterClient, *redis.Ring or any
// redis.UniversalClient (anything with EVAL/EVALSHA: the smallest interface
// the lease needs, as in bsm/redislock). rdb must not be nil. opts may be
// nil, meaning every default; New keeps a copy, so later changes to *opts
// have no effect.
func New(rdb redis.Scripter, opts *Options) *Client {
	if rdb == nil {
		panic("lease: New with nil redis.Scripter")
	}
	c := &Client{rdb: rdb}
	if opts != nil {
		o := *opts
		c.opts = &o
	}
	c.hb = scheduler{c: c, wake: make(chan struct{}, 1)}
	switch r := rdb.(type) {
	case interface{ Options() *redis.Options }:
		c.ctxDeadlines = r.Options().ContextTimeoutEnabled
	case interface{ Options() *redis.ClusterOptions }:
		c.ctxDeadlines = r.Options().ContextTimeoutEnabled
	}
	return c
}

// Stats counts the script calls a Client has sent, one per acquire attempt,
// renewal and release (a call counts once even when go-redis has to follow
// an EVALSHA with EVAL after NOSCRIPT, or retries internally). Tests and
// metrics use it to check that each operation is a single round trip.
type Stats struct {
	// Acquires counts acquire-script calls, including retries and calls
	// that answered "not acquired".
	Acquires uint64
	// Renewals counts renew-script calls, by the heartbeat and by Renew.
	Renewals uint64
	// Releases counts release-script calls, by Release and by the cleanup
	// after a failed Acquire.
	Releases uint64
}

// Stats returns the script-call counters of c since New.
func (c *Client) Stats() Stats {
	return Stats{
		Acquires: c.stats.acquires.Load(),
		Renewals: c.stats.renewals.Load(),
		Releases: c.stats.releases.Load(),
	}
}

// Keys returns the Redis keys used for resource: the lock key, which holds
// "<owner>:<token>" with a TTL while the lease is held, and the counter key,
// which holds the last minted fencing token and never has a TTL. Both share
// the hash tag {resource}, so they live in one Redis Cluster slot, with a
// third key, <prefix>:{<resource>}:minted, that records which acquisition
// minted last (see acquire.lua).
func (c *Client) Keys(resource string) (lock, counter string) {
	base := c.opts.keyPrefix() + ":{" + resource + "}:"
	return base + "lock", base + "token"
}

// mintKey is the key beside a lock key that records the last acquisition
// that minted a token, "<owner>:<token>", without a TTL: an Acquire retry
// whose first attempt landed but whose lock key has since vanished gets its
// own token back instead of minting a second one.
func mintKey(lockKey string) string { return strings.TrimSuffix(lockKey, "lock") + "minted" }

// timing is the per-lease configuration derived from the TTL and Options.
type timing struct {
	ttl, interval, callTimeout, releaseTimeout, margin, minValidity time.Duration
	maxFailures                                                     int
}

func (c *Client) timing(ttl time.Duration) (timing, error) {
	if ttl == 0 {
		ttl = c.opts.ttl()
	}
	t := timing{
		ttl:            ttl,
		interval:       c.opts.heartbeatInterval(ttl),
		callTimeout:    c.opts.callTimeout(ttl),
		releaseTimeout: c.opts.releaseTimeout(ttl),
		margin:         c.opts.safetyMargin(ttl),
		minValidity:    c.opts.minValidity(ttl),
		maxFailures:    c.opts.maxRenewFailures(),
	}
	switch {
	case ttl < time.Millisecond:
		return t, fmt.Errorf("%w: invalid TTL %v: want at least 1ms", ErrConfig, ttl)
	case t.margin >= ttl:
		return t, fmt.Errorf("%w: SafetyMargin %v not below TTL %v", ErrConfig, t.margin, ttl)
	case t.interval >= ttl-t.margin:
		return t, fmt.Errorf("%w: HeartbeatInterval %v not below TTL − SafetyMargin %v", ErrConfig, t.interval, ttl-t.margin)
	case t.minValidity >= ttl-t.margin:
		return t, fmt.Errorf("%w: MinValidity %v not below TTL − SafetyMargin %v", ErrConfig, t.minValidity, ttl-t.margin)
	case strings.ContainsAny(c.opts.keyPrefix(), "{}"):
		return t, fmt.Errorf("%w: KeyPrefix %q contains '{' or '}'", ErrConfig, c.opts.keyPrefix())
	}
	return t, nil
}

// newOwner returns 128 random bits in hex: the value that proves ownership
// of one acquisition.
func newOwner() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never returns an error (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// millis converts d to whole milliseconds for PX/PEXPIRE, at least 1.
func millis(d time.Duration) int64 { return max(d.Milliseconds(), 1) }

// Acquire takes the lease on resource for ttl without blocking: one
// acquire-script round trip that, atomically, sets the lock key (SET NX PX
// ttl) to a fresh 128-bit owner value and mints the next fencing token by
// INCR of the resource's counter key. ttl 0 means Options.TTL. To wait for
// a held lease, use [Client.AcquireWait].
//
// On success the returned [*Lease] holds the token and is renewed every
// HeartbeatInterval by the Client's heartbeat until [Lease.Release]; the
// caller must call Release. The heartbeat starts only after Acquire has
// decided to return the lease. The lease's lifetime does not depend on
// ctx: ctx bounds only the acquire call itself.
//
// After an ambiguous failure (timeout, connection error, LOADING, READONLY,
// ...) Acquire resends the script up to Options.AcquireRetries times with
// the same owner value while ctx allows; if an earlier attempt had landed,
// the script returns the token it minted then instead of minting another.
// When Acquire fails after a request may have landed, it waits (at most
// ReleaseTimeout) for that request to finish and then deletes the lock key
// with a compare-and-delete on a detached, ReleaseTimeout-bounded context,
// so no ghost lease is left behind.
//
// With Options.HighWater set, a missing counter key costs one more round
// trip: Acquire asks HighWater for the durable high-water mark and mints
// above it.
//
// May return [ErrNotAcquired] (another owner holds the lease; definitive),
// [ErrAcquireTooSlow] (less than MinValidity of local validity was left when
// the reply arrived; the lease was released), [ErrInvalidResource],
// [ErrConfig] (invalid options, or a Redis reply such as CROSSSLOT or
// WRONGTYPE, which is never reported as ErrNotAcquired), ctx's error joined
// with the last attempt's error, or the last transient Redis error.
func (c *Client) Acquire(ctx context.Context, resource string, ttl time.Duration) (*Lease, error) {
	if resource == "" || strings.ContainsAny(resource, "{}") {
		return nil, fmt.Errorf("lease: acquire %q: %w", resource, ErrInvalidResource)
	}
	if ttl < 0 {
		return nil, fmt.Errorf("lease: acquire %q: %w: invalid TTL %v", resource, ErrConfig, ttl)
	}
	tm, err := c.timing(ttl)
	if err != nil {
		return nil, fmt.Errorf("lease: acquire %q: %w", resource, err)
	}
	owner := newOwner()
	lockKey, counterKey := c.Keys(resource)
	hooks := c.opts.testHooks()
	highWater := c.opts.highWater()
	askMissing := "0"
	if highWater != nil {
		askMissing = "1"
	}
	var floor fence.Token

	var (
		lastErr   error
		ambiguous bool            // a request may have landed without us learning its outcome
		inflight  <-chan struct{} // closed when the last request's call returned
	)
	attempts := 1 + c.opts.acquireRetries()
	noSleep := false
	for i := 0; i < attempts; i++ {
		if i > 0 && !noSleep && !sleep(ctx, time.Duration(i)*10*time.Millisecond) {
			break
		}
		noSleep = false
		if ctx.Err() != nil {
			break
		}
		callCtx, cancel := context.WithTimeout(ctx, tm.callTimeout)
		send := time.Now()
		var n int64
		n, inflight, err = c.run(callCtx, acquireScript, []string{lockKey, counterKey, mintKey(lockKey)}, owner, millis(tm.ttl), int64(floor), askMissing)
		cancel()
		c.stats.acquires.Add(1)
		if err == nil && n == -1 && askMissing == "1" {
			// The counter key is missing: first use, or Redis lost it.
			hw, herr := highWater(ctx, resource)
			if herr != nil {
				return nil, fmt.Errorf("lease: acquire %q: %w: high-water mark: %w", resource, ErrConfig, herr)
			}
			floor, askMissing = max(hw, 0), "0"
			if floor > 0 {
				c.regressed(resource, 0, floor)
			}
			attempts++ // this round trip was not a failure
			noSleep = true
			continue
		}
		if err == nil && n < 0 {
			err = fmt.Errorf("unexpected acquire reply %d", n)
		}
		if err != nil {
			lastErr = err
			var rerr redis.Error
			if !errors.As(err, &rerr) {
				ambiguous = true
			}
			if isConfigError(err) {
				return nil, fmt.Errorf("lease: acquire %q: %w: %w", resource, ErrConfig, err)
			}
			if !retryable(err) {
				break
			}
			c.log(slog.LevelDebug, "lease acquire attempt failed", resource, 0, "attempt", i+1, "err", err)
			continue
		}
		if n == 0 {
			return nil, ErrNotAcquired
		}
		token := fence.Token(n)
		if hooks.afterAcquireReply != nil {
			hooks.afterAcquireReply()
		}
		if left := tm.ttl - tm.margin - time.Since(send); left < tm.minValidity {
			c.cleanup(ctx, resource, lockKey, owner, tm, nil)
			return nil, fmt.Errorf("lease: acquire %q: %v of validity left, below the floor of %v (TTL %v, safety margin %v): %w",
				resource, max(left, 0), tm.minValidity, tm.ttl, tm.margin, ErrAcquireTooSlow)
		}
		if err := ctx.Err(); err != nil {
			c.cleanup(ctx, resource, lockKey, owner, tm, nil)
			return nil, fmt.Errorf("lease: acquire %q: %w", resource, err)
		}
		l := c.newLease(resource, token, owner, lockKey, send, tm)
		c.log(slog.LevelDebug, "lease acquired", resource, token, "ttl", tm.ttl)
		if f := c.opts.observer().OnAcquired; f != nil {
			f(resource, token)
		}
		return l, nil
	}
	if ctx.Err() != nil && lastErr != nil {
		ambiguous = true // the last request may have landed after ctx ended
	}
	if ambiguous {
		c.cleanup(ctx, resource, lockKey, owner, tm, inflight)
	}
	switch {
	case lastErr == nil:
		return nil, fmt.Errorf("lease: acquire %q: %w", resource, ctx.Err())
	case ctx.Err() != nil:
		return nil, errors.Join(fmt.Errorf("lease: acquire %q: %w", resource, lastErr), ctx.Err())
	}
	return nil, fmt.Errorf("lease: acquire %q: %w", resource, lastErr)
}

// isConfigError reports whether err is a Redis error reply that no retry can
// fix: the deployment or the keys are misconfigured.
func isConfigError(err error) bool {
	var rerr redis.Error
	if !errors.As(err, &rerr) {
		return false
	}
	msg := rerr.Error()
	for _, p := range []string{"CROSSSLOT", "WRONGTYPE", "NOPERM", "NOAUTH", "ERR unknown command", "ERR unknown subcommand"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	for _, sub := range []string{"non local key", "undeclared key", "Error running script", "user_script", "cluster support disabled"} {
		if strings.Contains(msg, sub) {
			return true
		}
	}
	return false
}

// retryable reports whether an acquire attempt that failed with err may be
// resent with the same owner value: any transport error or timeout (the
// outcome is unknown, and a resend is idempotent), and the Redis error
// replies that mean the script did not run.
func retryable(err error) bool {
	var rerr redis.Error
	switch {
	case errors.Is(err, redis.ErrClosed), errors.Is(err, context.Canceled):
		return false
	case errors.As(err, &rerr):
		return redis.IsLoadingError(err) || redis.IsReadOnlyError(err) || redis.IsTryAgainError(err) ||
			redis.IsClusterDownError(err) || redis.IsMasterDownError(err)
	}
	return true
}

// closedChan is an already closed channel.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// sleep waits d or until ctx ends; it reports whether d elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// cleanup deletes the lock key if owner holds it, on a context detached from
// ctx's cancellation and bounded by the release timeout. If inflight is not
// nil it first waits (within the same bound) for that abandoned acquire call
// to return, so the delete does not overtake the acquire it cleans up after.
func (c *Client) cleanup(ctx context.Context, resource, lockKey, owner string, tm timing, inflight <-chan struct{}) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), tm.releaseTimeout)
	defer cancel()
	if inflight != nil {
		select {
		case <-inflight:
		case <-rctx.Done():
		}
	}
	deleted, err := c.release(rctx, lockKey, owner)
	c.log(slog.LevelDebug, "lease acquire cleanup", resource, 0, "deleted", deleted, "err", err)
}

// release runs the compare-and-delete script; deleted reports whether the
// key held owner's value.
func (c *Client) release(ctx context.Context, lockKey, owner string) (deleted bool, err error) {
	n, _, err := c.run(ctx, releaseScript, []string{lockKey}, owner)
	c.stats.releases.Add(1)
	return decodeBool("release", n, err)
}

// renew runs the compare-and-PEXPIRE script; ok reports whether the key held
// owner's value. ok false with a nil error is the definitive "not owner".
func (c *Client) renew(ctx context.Context, lockKey, owner string, ttl time.Duration) (ok bool, err error) {
	n, _, err := c.run(ctx, renewScript, []string{lockKey}, owner, millis(ttl))
	c.stats.renewals.Add(1)
	return decodeBool("renew", n, err)
}

// run sends script with Script.Run (EVALSHA, then EVAL after NOSCRIPT) and
// returns its integer reply, or ctx's error as soon as ctx ends. done is
// closed when the underlying call has returned.
//
// A *redis.Client or *redis.ClusterClient with ContextTimeoutEnabled
// enforces ctx's deadline on its sockets, and the call is made directly.
//
// go-redis applies a context's deadline to the socket only when the client
// was built with ContextTimeoutEnabled; otherwise a call to a Redis that
// accepts connections but never answers blocks for the client's
// ReadTimeout (or DialTimeout), longer than a short lease. So the call runs
// in its own goroutine and is abandoned when ctx ends: the lease's
// deadlines hold whatever the client's configuration. An abandoned
// goroutine ends when go-redis gives up (its own timeouts, or Close); an
// abandoned request may still land later, which is safe: every script
// touches only keys holding this lease's owner value, or creates a lock
// key that expires within the TTL.
func (c *Client) run(ctx context.Context, s *redis.Script, keys []string, args ...any) (n int64, done <-chan struct{}, err error) {
	type result struct {
		n   int64
		err error
	}
	if c.ctxDeadlines {
		// The client applies ctx's deadline to its sockets itself.
		n, err := s.Run(ctx, c.rdb, keys, args...).Int64()
		return n, closedChan, err
	}
	ch := make(chan result, 1)
	fin := make(chan struct{})
	go func() {
		defer close(fin)
		n, err := s.Run(ctx, c.rdb, keys, args...).Int64()
		ch <- result{n, err}
	}()
	select {
	case r := <-ch:
		return r.n, fin, r.err
	case <-ctx.Done():
		select {
		case r := <-ch: // a reply that raced the deadline wins
			return r.n, fin, r.err
		default:
			return 0, fin, ctx.Err()
		}
	}
}

// decodeBool decodes the 1/0 integer reply of the renew and release
// scripts. Only int64(1) means success and only int64(0) means a definitive
// "not owner"; redis.Nil, any other value and any error are errors (never
// "not owner"), so a transient failure is not mistaken for a loss and a
// loss never for a success.
func decodeBool(op string, n int64, err error) (bool, error) {
	switch {
	case errors.Is(err, redis.Nil):
		return false, fmt.Errorf("unexpected nil %s reply", op)
	case err != nil:
		return false, err
	case n == 1:
		return true, nil
	case n == 0:
		return false, nil
	}
	return false, fmt.Errorf("unexpected %s reply %d", op, n)
}

func (c *Client) log(level slog.Level, msg, resource string, token fence.Token, args ...any) {
	lg := c.opts.logger()
	if lg == nil {
		return
	}
	lg.Log(context.Background(), level, msg, append([]any{"resource", resource, "token", int64(token)}, args...)...)
}
