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

	// Each script is wrapped once; Script.Run sends EVALSHA and falls back
	// to EVAL when the server answers NOSCRIPT.
	acquireScript = redis.NewScript(acquireLua)
	renewScript   = redis.NewScript(renewLua)
	releaseScript = redis.NewScript(releaseLua)
)

// Client takes leases on named resources in one Redis deployment. It is safe
// for concurrent use; create one per Redis client and share it.
type Client struct {
	rdb   redis.Scripter
	opts  *Options
	stats struct {
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
// the hash tag {resource}, so they live in one Redis Cluster slot.
func (c *Client) Keys(resource string) (lock, counter string) {
	base := c.opts.keyPrefix() + ":{" + resource + "}:"
	return base + "lock", base + "token"
}

// timing is the per-lease configuration derived from the TTL and Options.
type timing struct {
	ttl, interval, callTimeout, releaseTimeout, margin time.Duration
	maxFailures                                        int
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
		maxFailures:    c.opts.maxRenewFailures(),
	}
	switch {
	case ttl < time.Millisecond:
		return t, fmt.Errorf("lease: invalid TTL %v: want at least 1ms", ttl)
	case t.margin >= ttl:
		return t, fmt.Errorf("lease: invalid options: SafetyMargin %v not below TTL %v", t.margin, ttl)
	case t.interval >= ttl-t.margin:
		return t, fmt.Errorf("lease: invalid options: HeartbeatInterval %v not below TTL − SafetyMargin %v", t.interval, ttl-t.margin)
	case strings.ContainsAny(c.opts.keyPrefix(), "{}"):
		return t, fmt.Errorf("lease: invalid options: KeyPrefix %q contains '{' or '}'", c.opts.keyPrefix())
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
// INCR of the resource's counter key. ttl 0 means Options.TTL.
//
// On success the returned [*Lease] holds the token and runs a heartbeat
// goroutine that renews the lease every HeartbeatInterval until
// [Lease.Release]; the caller must call Release. The lease's lifetime does
// not depend on ctx: ctx bounds only the acquire call itself.
//
// After an ambiguous failure (timeout, connection error, LOADING, READONLY,
// ...) Acquire resends the script up to Options.AcquireRetries times with
// the same owner value while ctx allows; if an earlier attempt had landed,
// the script returns the token it minted then instead of minting another.
// When Acquire fails after a request may have landed, it deletes the lock
// key with a compare-and-delete on a detached, ReleaseTimeout-bounded
// context, so no ghost lease is left behind.
//
// May return [ErrNotAcquired] (another owner holds the lease; definitive),
// [ErrAcquireTooSlow] (the reply came after TTL − SafetyMargin; the lease
// was released), [ErrInvalidResource], a configuration error, ctx's error
// joined with the last attempt's error, or a Redis error such as CROSSSLOT
// or WRONGTYPE, which is never reported as ErrNotAcquired.
func (c *Client) Acquire(ctx context.Context, resource string, ttl time.Duration) (*Lease, error) {
	if resource == "" || strings.ContainsAny(resource, "{}") {
		return nil, fmt.Errorf("lease: acquire %q: %w", resource, ErrInvalidResource)
	}
	if ttl < 0 {
		return nil, fmt.Errorf("lease: acquire %q: invalid TTL %v", resource, ttl)
	}
	tm, err := c.timing(ttl)
	if err != nil {
		return nil, err
	}
	owner := newOwner()
	lockKey, counterKey := c.Keys(resource)
	hooks := c.opts.testHooks()

	var (
		lastErr   error
		ambiguous bool // a request may have landed without us learning its outcome
	)
	attempts := 1 + c.opts.acquireRetries()
	for i := range attempts {
		if i > 0 && !sleep(ctx, time.Duration(i)*10*time.Millisecond) {
			break
		}
		if ctx.Err() != nil {
			break
		}
		callCtx, cancel := context.WithTimeout(ctx, tm.callTimeout)
		send := time.Now()
		n, err := c.run(callCtx, acquireScript, []string{lockKey, counterKey}, owner, millis(tm.ttl))
		cancel()
		c.stats.acquires.Add(1)
		if err == nil && n < 0 {
			err = fmt.Errorf("unexpected acquire reply %d", n)
		}
		if err != nil {
			lastErr = err
			var rerr redis.Error
			if !errors.As(err, &rerr) {
				ambiguous = true
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
		if elapsed := time.Since(send); elapsed >= tm.ttl-tm.margin {
			c.cleanup(ctx, resource, lockKey, owner, tm)
			return nil, fmt.Errorf("lease: acquire %q: reply after %v with TTL %v and safety margin %v: %w",
				resource, elapsed, tm.ttl, tm.margin, ErrAcquireTooSlow)
		}
		if err := ctx.Err(); err != nil {
			c.cleanup(ctx, resource, lockKey, owner, tm)
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
		c.cleanup(ctx, resource, lockKey, owner, tm)
	}
	switch {
	case lastErr == nil:
		return nil, fmt.Errorf("lease: acquire %q: %w", resource, ctx.Err())
	case ctx.Err() != nil:
		return nil, errors.Join(fmt.Errorf("lease: acquire %q: %w", resource, lastErr), ctx.Err())
	}
	return nil, fmt.Errorf("lease: acquire %q: %w", resource, lastErr)
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
// ctx's cancellation and bounded by the release timeout.
func (c *Client) cleanup(ctx context.Context, resource, lockKey, owner string, tm timing) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), tm.releaseTimeout)
	defer cancel()
	deleted, err := c.release(rctx, lockKey, owner)
	c.log(slog.LevelDebug, "lease acquire cleanup", resource, 0, "deleted", deleted, "err", err)
}

// release runs the compare-and-delete script; deleted reports whether the
// key held owner's value.
func (c *Client) release(ctx context.Context, lockKey, owner string) (deleted bool, err error) {
	n, err := c.run(ctx, releaseScript, []string{lockKey}, owner)
	c.stats.releases.Add(1)
	return decodeBool("release", n, err)
}

// renew runs the compare-and-PEXPIRE script; ok reports whether the key held
// owner's value. ok false with a nil error is the definitive "not owner".
func (c *Client) renew(ctx context.Context, lockKey, owner string, ttl time.Duration) (ok bool, err error) {
	n, err := c.run(ctx, renewScript, []string{lockKey}, owner, millis(ttl))
	c.stats.renewals.Add(1)
	return decodeBool("renew", n, err)
}

// run sends script with Script.Run (EVALSHA, then EVAL after NOSCRIPT) and
// returns its integer reply, or ctx's error as soon as ctx ends.
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
func (c *Client) run(ctx context.Context, s *redis.Script, keys []string, args ...any) (int64, error) {
	type result struct {
		n   int64
		err error
	}
	ch := make(chan result, 1)
	go func() {
		n, err := s.Run(ctx, c.rdb, keys, args...).Int64()
		ch <- result{n, err}
	}()
	select {
	case r := <-ch:
		return r.n, r.err
	case <-ctx.Done():
		select {
		case r := <-ch: // a reply that raced the deadline wins
			return r.n, r.err
		default:
			return 0, ctx.Err()
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
