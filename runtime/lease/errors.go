package lease

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/runtime/fence"
)

// Every error of this package prints with the prefix "lease: " when it stands
// alone. An error that wraps another one of the package's errors prints the
// wrapped message without its prefix, so a message never stutters
// ("lease: release "a" (token 3): not held", not "...: lease: not held");
// errors.Is and errors.As still find the wrapped error.

var (
	// ErrNotAcquired is returned by [Client.Acquire] and [Client.Do] when
	// another owner holds the lease. It is a definitive answer from Redis:
	// nothing was written. Test for it with errors.Is.
	ErrNotAcquired = errors.New("lease: not acquired")

	// ErrLost is the sentinel for a lease that stopped being valid before it
	// was released: Redis answered a renewal with "not owner", renewals kept
	// failing, or the local deadline passed. The lease context's cause is
	// then a [*LostError], whose Unwrap includes ErrLost.
	ErrLost = errors.New("lease: lost")

	// ErrNotOwner is the definitive "not owner" answer of the renew script:
	// the lock key was missing or held another owner's value. It appears as
	// [LostError.Err] with [ReasonNotOwner].
	ErrNotOwner = errors.New("lease: not owner")

	// ErrReleased is the cause of a lease context cancelled by
	// [Lease.Release] (or by [Client.Do] returning) while the lease was still
	// valid. [Lease.Renew] returns it after Release.
	ErrReleased = errors.New("lease: released")

	// ErrNotHeld is returned (wrapped) by [Lease.Release] when the
	// compare-and-delete found the lock key missing or held by another
	// owner: the lease had already expired or been taken over, and nothing
	// was deleted. A key that expired by its TTL while the release of a
	// lease valid when Release was called was on its way (a stalled server
	// or link), found missing rather than another owner's, is not
	// ErrNotHeld: Release returns nil (see [Lease.Release]).
	ErrNotHeld = errors.New("lease: not held")

	// ErrReleaseUnconfirmed is wrapped by the error of [Client.Do] and
	// [Client.DoWait] (and etcdlease's) when fn returned nil under a lease
	// that was valid until fn returned, and only the release call failed
	// (it timed out, the connection broke, the client was closed): the
	// job is done, its writes were made with a token no later holder
	// had, and the lock stays on the server until its TTL runs out, so
	// the next holder may wait up to a TTL. Do not re-run the job for it.
	// The error also wraps the release's own error (a *TimeoutError, ...).
	// When fn failed, or the lease was lost, Do's error does not wrap it.
	ErrReleaseUnconfirmed = errors.New("lease: job done, release not confirmed (the lock expires within its TTL)")

	// ErrAcquireTooSlow is returned by [Client.Acquire] when the acquire
	// reply arrived after the validity floor: more than TTL − SafetyMargin
	// elapsed since the request was sent. The lease that was taken is
	// released (compare-and-delete) before Acquire returns.
	ErrAcquireTooSlow = errors.New("lease: acquire reply arrived too late")

	// ErrConfig marks a configuration error, never a lease outcome: invalid
	// Options or TTL, or a Redis reply that no retry can fix (CROSSSLOT or
	// "non local key" on Redis Cluster, WRONGTYPE on a lease key, NOPERM,
	// an unknown command, a failing script, a failing high-water mark
	// hook). [Client.Acquire] wraps it around the underlying error (both
	// match errors.Is) and never reports such an error as
	// [ErrNotAcquired]; [Client.AcquireWait] does not retry it.
	ErrConfig = errors.New("lease: configuration error")

	// ErrUnsafeConfig is wrapped by the error [Client.Check] returns when
	// the Redis server's settings can lose lease state: an eviction policy
	// other than noeviction, or no persistence; etcdlease's Check wraps it
	// for etcd's setup. Its text names no coordinator: the Redis lease's
	// warnings read "lease: unsafe Redis configuration: ...", etcdlease's
	// "lease: unsafe etcd setup: ...".
	ErrUnsafeConfig = errors.New("lease: unsafe coordinator configuration")

	// ErrTimeout is matched (errors.Is) by every timeout of a coordinator
	// call: [ErrRedisTimeout] and [*TimeoutError] here, and
	// etcdlease.ErrEtcdTimeout and *etcdlease.TimeoutError, so that a
	// worker's "the coordinator did not answer in time: retry" rule
	// survives a switch of coordinator. The coordinator's own sentinel
	// and type keep matching too.
	ErrTimeout = errors.New("lease: coordinator call timed out")

	// ErrClientClosed is wrapped by the error of a call made on a client
	// that was closed: the go-redis client given to [New] after its Close
	// (the error also wraps go-redis's redis.ErrClosed), or, in
	// etcdlease, the *clientv3.Client (etcdlease.ErrClientClosed matches
	// it). No call can be sent any more, which is known at once: Acquire,
	// AcquireWait (which does not retry it), Release, Advance and Check
	// fail with it at once, and a lease whose
	// renewal (by the heartbeat or [Lease.Renew]) finds the client closed
	// is lost at once, its context cancelled with a [*LostError] of
	// [ReasonRenewFailed] wrapping it, on both coordinators. The lock key
	// stays on the server until its TTL runs out: close the client after
	// releasing every lease.
	ErrClientClosed = errors.New("lease: the client is closed")

	// ErrInvalidResource is returned by [Client.Acquire] and
	// [Client.Advance] for an empty resource name, one containing '{'
	// or '}', which would break the shared hash tag of the lease keys,
	// or one longer than [MaxResourceLen] bytes.
	// etcdlease refuses the same names with it, so that a worker's
	// resource names are valid on both coordinators or on neither.
	ErrInvalidResource = errors.New("lease: invalid resource name")

	// ErrRedisTimeout is wrapped by every [*TimeoutError]: a Redis call was
	// cut off by the package's own per-call deadline (CallTimeout for
	// acquire attempts and Lease.Renew, the heartbeat's renewal bound for
	// its renewals (see Options.CallTimeout), ReleaseTimeout for releases
	// and Advance) or by a timeout of the go-redis client (DialTimeout,
	// ReadTimeout, WriteTimeout), not by the caller's context. The errors
	// of this package match context.DeadlineExceeded (errors.Is) only when
	// the context the caller passed has expired.
	// It matches [ErrTimeout] (errors.Is), as etcdlease's timeouts do.
	ErrRedisTimeout error = redisTimeout{}
)

// redisTimeout is the type of ErrRedisTimeout: a comparable value that
// also matches ErrTimeout.
type redisTimeout struct{}

func (redisTimeout) Error() string        { return "lease: Redis call timed out" }
func (redisTimeout) Is(target error) bool { return target == ErrTimeout }

// errUnsafeRedis is what the Redis lease's Check wraps: its text names
// Redis, and it matches ErrUnsafeConfig (errors.Is), whose own text
// names no coordinator, since etcdlease's Check wraps it too.
var errUnsafeRedis error = unsafeRedis{}

type unsafeRedis struct{}

func (unsafeRedis) Error() string        { return "lease: unsafe Redis configuration" }
func (unsafeRedis) Is(target error) bool { return target == ErrUnsafeConfig }

// TimeoutError is a Redis call that timed out while the caller's context was
// still live (see [ErrRedisTimeout], which its Unwrap returns).
type TimeoutError struct {
	// Op is the script call: "acquire", "renew", "release", "advance" or
	// "check".
	Op string
	// Timeout is the package's per-call bound that expired: CallTimeout
	// for an acquire attempt or a Lease.Renew, the renewal bound (between
	// CallTimeout and HeartbeatInterval) for a heartbeat renewal,
	// ReleaseTimeout for a release or Advance. It is 0 when the call was cut off earlier by a timeout of
	// the go-redis client itself.
	Timeout time.Duration
	// Err is what the Redis call returned, such as a go-redis dial or read
	// error; nil when the call reported nothing but its expired deadline.
	Err error
}

// Error returns "lease: Redis <op> call timed out[ after <timeout>][: <err>]",
// or, when Err is a refused connection, "lease: Redis <op> call: connection
// refused until its deadline[ after <timeout>]: <err>",
// the timeout rounded (167ms for TTL/6 of 1s; see dur).
func (e *TimeoutError) Error() string {
	msg := "lease: Redis " + e.Op + " call timed out"
	if errors.Is(e.Err, syscall.ECONNREFUSED) {
		// The deadline passed while go-redis retried a refused dial:
		// what happened is the refusal (trial-rt3 F8).
		msg = "lease: Redis " + e.Op + " call: connection refused until its deadline"
	}
	if e.Timeout > 0 {
		msg += " after " + dur(e.Timeout).String()
	}
	if e.Err != nil {
		msg += ": " + unprefixed(e.Err)
	}
	return msg
}

// Unwrap returns ErrRedisTimeout and Err, such as a dial error carrying
// syscall.ECONNREFUSED. Err is left out of the chain when it matches a
// context error (a dial timeout of the go-redis client matches
// context.DeadlineExceeded), so that the chain never claims that the
// caller's context ended; Error still prints it.
func (e *TimeoutError) Unwrap() []error {
	if e.Err == nil || errors.Is(e.Err, context.DeadlineExceeded) || errors.Is(e.Err, context.Canceled) {
		return []error{ErrRedisTimeout}
	}
	return []error{ErrRedisTimeout, e.Err}
}

// OptionsError is a configuration the lease cannot keep: an option no TTL
// makes valid (a negative duration, RetryMin above RetryMax, a KeyPrefix
// with a brace), or options and a TTL that do not fit together (a
// HeartbeatInterval, MinValidity or SafetyMargin that leaves no time
// before the local deadline, a CallTimeout as long as the TTL, a TTL too
// short for a round trip). [New] panics with an error wrapping it when
// Options.TTL, or the default TTL of 10s when Options.TTL is zero, cannot
// be kept with the other options; Acquire, AcquireWait, Do and Check
// return it (wrapped) for the TTL they are given. It matches [ErrConfig]
// (errors.Is); errors.As finds it. etcdlease returns the same type.
type OptionsError struct {
	// Fields names the options that conflict, as Go selectors
	// ("Options.HeartbeatInterval", "Options.TTL"); "ttl" stands for the
	// TTL passed to Acquire or Do when it is not Options.TTL.
	Fields []string
	// TTL is the lease TTL the options were checked for; 0 when the
	// option is invalid whatever the TTL.
	TTL time.Duration
	// Problem says which rule failed, with the values, and, when a
	// longer TTL would pass, the least TTL the options allow.
	Problem string
}

// Error returns "lease: configuration error: <problem>".
func (e *OptionsError) Error() string { return ErrConfig.Error() + ": " + e.Problem }

// Unwrap returns ErrConfig.
func (e *OptionsError) Unwrap() error { return ErrConfig }

// newPanicValue is what New panics with when the TTL it would use by default
// (ttl, from Options.TTL set to set, or the default when set is 0) cannot
// be kept: "lease: New with Options.TTL 1ms: configuration error: ...",
// or "lease: New with the default TTL 10s (Options.TTL is 0): ...". It
// wraps err, an *OptionsError; etcdlease.New words its refusal the same.
func newPanicValue(set, ttl time.Duration, err error) error {
	if set != 0 {
		return fmt.Errorf("lease: New with Options.TTL %v: %w", dur(set), trimmed{err})
	}
	return fmt.Errorf("lease: New with the default TTL %v (Options.TTL is 0; set it to the TTL the leases use): %w", dur(ttl), trimmed{err})
}

// trimmed prints err without its "lease: " prefix, and unwraps to it.
type trimmed struct{ err error }

func (t trimmed) Error() string { return unprefixed(t.err) }
func (t trimmed) Unwrap() error { return t.err }

// clientClosedError is a call that failed because the go-redis client was
// closed: "the Redis client is closed". It matches [ErrClientClosed] and
// unwraps to go-redis's error (redis.ErrClosed).
type clientClosedError struct{ err error }

func (e *clientClosedError) Error() string        { return "the Redis client is closed" }
func (e *clientClosedError) Is(target error) bool { return target == ErrClientClosed }
func (e *clientClosedError) Unwrap() error        { return e.err }

// closedCause returns err as a *clientClosedError when it says that the
// go-redis client was closed, else err itself.
func closedCause(err error) error {
	var ce *clientClosedError
	if errors.Is(err, redis.ErrClosed) && !errors.As(err, &ce) {
		return &clientClosedError{err: err}
	}
	return err
}

// opError is the error of a failed operation: "lease: <op>: <err>", followed
// by " (<label>: <detail>)" when detail is set (the last attempt's error when
// err is the context's). Wrapped errors print without their "lease: "
// prefix; errors.Is and errors.As see err and detail.
type opError struct {
	op     string // `acquire "account:42"`, `release "account:42" (token 7)`, ...
	err    error
	label  string
	detail error
}

func (e *opError) Error() string {
	msg := "lease: " + e.op + ": " + unprefixed(e.err)
	if e.detail != nil {
		msg += " (" + e.label + ": " + unprefixed(e.detail) + ")"
	}
	return msg
}

func (e *opError) Unwrap() []error {
	if e.detail == nil {
		return []error{e.err}
	}
	return []error{e.err, e.detail}
}

// unprefixed is err's message without a leading "lease: ".
func unprefixed(err error) string { return strings.TrimPrefix(err.Error(), "lease: ") }

// configError marks err, a Redis reply or hook error that no retry can fix,
// as [ErrConfig]: "lease: configuration error: <err>".
func configError(err error) error { return fmt.Errorf("%w: %w", ErrConfig, err) }

// releaseUnconfirmed is Do's error when fn succeeded and only the release
// failed: "lease: job done, release not confirmed (the lock expires
// within its TTL): release "r" (token 7): <why>".
type releaseUnconfirmed struct{ err error }

func (e releaseUnconfirmed) Error() string {
	return ErrReleaseUnconfirmed.Error() + ": " + unprefixed(e.err)
}

func (e releaseUnconfirmed) Unwrap() []error { return []error{ErrReleaseUnconfirmed, e.err} }

// Reason says why a lease was lost. See the Reason* constants.
type Reason string

const (
	// ReasonNotOwner: a renewal got the definitive answer that the lock key
	// is missing or belongs to another owner (it expired, was evicted,
	// deleted or taken over). The lease context is cancelled at once.
	ReasonNotOwner Reason = "not owner"
	// ReasonRenewFailed: MaxRenewFailures consecutive renewals failed with
	// errors or timeouts, so Redis may or may not still hold the key.
	ReasonRenewFailed Reason = "renewals failed"
	// ReasonDeadline: the local deadline passed, send time of the last
	// successful acquire or renew + TTL − SafetyMargin on the monotonic
	// clock, without a successful renewal (e.g. Redis never answered).
	ReasonDeadline Reason = "local deadline passed"
	// ReasonSuperseded: a fenced write made with the lease's token was
	// refused because the row stores a higher token ([Lease.Observe] saw a
	// *fence.StaleError): a later acquisition exists, or Redis lost the
	// counter and re-minted lower tokens. Err is the *fence.StaleError.
	ReasonSuperseded Reason = "superseded by a higher token"
)

// LostError is the cause of a lease context cancelled because the lease was
// lost, retrieved with context.Cause(l.Context()). Its Unwrap returns
// [ErrLost] and, when set, Err; so errors.Is(err, ErrLost) holds for every
// lost lease and errors.Is(err, ErrNotOwner) for a takeover.
type LostError struct {
	// Resource is the name passed to Acquire.
	Resource string
	// Token is the fencing token of the lost lease.
	Token fence.Token
	// Reason says what detected the loss.
	Reason Reason
	// Err is the underlying error: ErrNotOwner for ReasonNotOwner (on etcd
	// an error wrapping it that says what happened: the lock key deleted
	// or replaced at revision N, the etcd lease not found), the last
	// renewal error for ReasonRenewFailed, and for ReasonDeadline the last
	// renewal error if any (else nil).
	Err error
	// RaisedTo is set for ReasonSuperseded when Lease.Observe found the
	// coordinator's counter behind the token the database had stored (it
	// lost the counter, or went back to a snapshot: not a takeover) and
	// raised it: the value it raised it to, which the next Acquire's
	// token exceeds. 0 otherwise.
	RaisedTo fence.Token
}

// Error returns "lease: lost <resource> (token <n>): <reason>[: <err>]",
// with err printed without its own "lease: " prefix; when RaisedTo is set
// the reason reads "the counter was behind: raised to <RaisedTo>".
func (e *LostError) Error() string {
	msg := fmt.Sprintf("lease: lost %q (token %d): %s", e.Resource, e.Token, e.Reason)
	if e.RaisedTo > 0 {
		msg = fmt.Sprintf("lease: lost %q (token %d): the counter was behind: raised to %d", e.Resource, e.Token, e.RaisedTo)
	}
	if e.Err != nil && e.Err != ErrNotOwner {
		// An Err that wraps ErrNotOwner with what happened (etcd: the
		// lock key deleted at revision N) prints only that.
		msg += ": " + strings.TrimPrefix(unprefixed(e.Err), string(ReasonNotOwner)+": ")
	}
	return msg
}

// Unwrap returns ErrLost and, when non-nil, Err.
func (e *LostError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrLost}
	}
	return []error{ErrLost, e.Err}
}

// durBelow is dur(d) for a d that a message says is below bound, unless
// rounding reaches the bound: then d truncated, so that 999.8µs does not
// print as "1ms is below the 1ms" (trial-rt3 F7).
func durBelow(d, bound time.Duration) time.Duration {
	r := dur(d)
	if r < bound || d >= bound {
		return r
	}
	switch a := max(d, -d); {
	case a >= 100*time.Millisecond:
		return d - d%time.Millisecond
	case a >= time.Millisecond:
		return d - d%(10*time.Microsecond)
	case a >= 10*time.Microsecond:
		return d - d%time.Microsecond
	}
	return d
}

// dur rounds d for a message: to whole milliseconds from 100ms up, to 10µs
// from 1ms, to whole microseconds from 10µs, else exact (-1ns is not 0s),
// so that TTL/6 of 1s prints as
// 167ms and of 10s as 1.667s; the durations users write (250ms, 1.5s, 10s)
// print unchanged.
func dur(d time.Duration) time.Duration {
	a := d
	if a < 0 {
		a = -a
	}
	switch {
	case a >= 100*time.Millisecond:
		return d.Round(time.Millisecond)
	case a >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	case a >= 10*time.Microsecond:
		return d.Round(time.Microsecond)
	}
	return d // below 10µs, exact: -1ns must not print as 0s
}

// MaxResourceLen is the longest resource name, in bytes, that both
// coordinators take (64 KiB); a longer one is [ErrInvalidResource], at
// once, from Acquire, AcquireWait, Do, DoWait and Advance. etcd refuses a
// request above its --max-request-bytes (1.5 MiB by default), and the
// etcd lease's acquire transaction carries the name about five times: a
// name of a few hundred KiB that Redis would take fails on etcd on every
// try (trial r26s N2). The limit keeps one set of names valid on both.
const MaxResourceLen = 64 << 10

// resourceError returns nil for a resource name both coordinators take,
// else an error wrapping ErrInvalidResource that says why, with the
// operation op ("acquire", "advance") and no more of the name than a
// message can carry.
func resourceError(op, resource string) error {
	switch {
	case len(resource) > MaxResourceLen:
		return &opError{op: fmt.Sprintf("%s %q… (%d bytes)", op, resource[:32], len(resource)),
			err: fmt.Errorf("%w: %d bytes, above lease.MaxResourceLen (%d)", ErrInvalidResource, len(resource), MaxResourceLen)}
	case resource == "" || strings.IndexByte(resource, '{') >= 0 || strings.IndexByte(resource, '}') >= 0:
		// Two byte scans, not ContainsAny, which builds a set per call:
		// this runs on every Acquire.
		return &opError{op: fmt.Sprintf("%s %q", op, resource), err: ErrInvalidResource}
	}
	return nil
}
