package lease

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/fencegen/fencegen/runtime/fence"
)

// Options configures a [Client]. A nil *Options means all defaults; a zero
// field means that field's default. Most users set at most TTL, KeyPrefix,
// HighWater, Logger and Observer: every timing is derived per lease from
// the TTL passed to [Client.Acquire] (heartbeat TTL/3 with jitter, call
// timeout TTL/6, safety margin TTL/10, ...). The deprecated timing fields
// are still honoured when set, for existing code.
type Options struct {
	// KeyPrefix starts every Redis key. Default "fencegen". It must not
	// contain '{' or '}'. Each resource has three keys:
	// <KeyPrefix>:{<resource>}:lock, the lease itself, with a TTL;
	// <KeyPrefix>:{<resource>}:token, the fence counter (the last minted
	// token); and <KeyPrefix>:{<resource>}:minted, the owner and token of
	// the last acquisition that minted, so that its retry gets the same
	// token. The last two never expire and are never deleted, so that
	// tokens keep growing across leases: every resource (and every
	// prefix) ever used leaves them behind by design. An Acquire that gave
	// up also sets <KeyPrefix>:{<resource>}:abandoned:<owner>, which
	// expires by itself; clients before 2026-12-07 also wrote
	// <KeyPrefix>:{<resource>}:released. See "Redis layout" in the
	// package documentation, and [Client.AllKeys].
	KeyPrefix string

	// TTL is the lease time-to-live used when Acquire or Do is called with
	// ttl 0. Default 10s. The least TTL the default timings allow is 36ms
	// (see [MinRenewSlack]); prefer seconds.
	TTL time.Duration

	// Deprecated: derived from the TTL; leave it zero. Still honoured.
	//
	// HeartbeatInterval is the time between the starts of two renewals by
	// the heartbeat goroutine, and the longest the heartbeat waits for a
	// renewal's reply unless CallTimeout is longer (see CallTimeout).
	// Default TTL/3. A negative value disables the heartbeat: the lease
	// then lives until its local deadline unless the caller calls
	// [Lease.Renew].
	HeartbeatInterval time.Duration

	// Deprecated: derived from the TTL; leave it zero. Still honoured.
	//
	// CallTimeout bounds each acquire attempt and each [Lease.Renew] round
	// trip. Default TTL/6, so that two failed renewals plus a timeout still
	// end before the local deadline.
	//
	// For the heartbeat's renewals it is the shortest bound: a renewal
	// batch is waited for until CallTimeout before the earliest local
	// deadline of its leases (send time of their last successful renewal
	// + TTL − SafetyMargin), which leaves time for one more attempt, but at
	// most HeartbeatInterval and at least CallTimeout after its send.
	// A renewal whose failure would lose a lease (after MaxRenewFailures −
	// 1 failed rounds) is waited for until CallTimeout/4 before that
	// earliest local deadline, within the same limits.
	// When the bound ends first, the call counts as one failed renewal of
	// each of its leases, but it goes on, on a context of its own that
	// ends a TTL after its send: its connection is kept (go-redis closes
	// one whose deadline passed), and a reply that comes before a lease's
	// local deadline still moves it, and makes the failure not count as
	// consecutive. So a Redis that answers slower than CallTimeout keeps
	// the leases: with the defaults a reply within TTL/3 of the send
	// counts at once, a later one when it comes, and a round trip beyond
	// TTL − SafetyMargin − HeartbeatInterval (0.57·TTL) loses every lease
	// (issue 26; see "Slow links" in docs/lease.md). A call that never
	// returns holds the heartbeat for at most HeartbeatInterval.
	CallTimeout time.Duration

	// Deprecated: derived from the TTL; leave it zero. Still honoured.
	//
	// ReleaseTimeout bounds the compare-and-delete round trip of Release
	// (and of the cleanup after a failed Acquire). Default
	// max(CallTimeout, 1s).
	ReleaseTimeout time.Duration

	// Deprecated: derived from the TTL; leave it zero. Still honoured.
	//
	// SafetyMargin is subtracted from the TTL to get the local validity of
	// a lease: the lease context is cancelled at (send time of the last
	// successful acquire or renew) + TTL − SafetyMargin, and an acquire
	// whose reply comes later than that fails with ErrAcquireTooSlow. It
	// absorbs clock-rate drift between this process and Redis. Default
	// TTL/10. Must be smaller than the TTL.
	SafetyMargin time.Duration

	// Deprecated: derived from the TTL; leave it zero. Still honoured.
	//
	// MaxRenewFailures is how many consecutive failed renewals (errors or
	// timeouts, not "not owner", which is lost at once) cancel the lease
	// context with ReasonRenewFailed. Default 2.
	MaxRenewFailures int

	// Deprecated: derived from the TTL; leave it zero. Still honoured.
	//
	// AcquireRetries is how many times Acquire resends the acquire script,
	// with the same owner value, after an ambiguous failure (timeout,
	// connection error, LOADING, READONLY, ...) while its ctx allows.
	// Default 2. A negative value means no retries.
	AcquireRetries int

	// Deprecated: derived from the TTL; leave it zero. Still honoured.
	//
	// MinValidity is the least local validity a new lease must have when
	// Acquire is about to return it: if less than MinValidity of TTL −
	// SafetyMargin is left (the reply was delayed, or the process paused),
	// Acquire releases the lease and fails with ErrAcquireTooSlow.
	// Default TTL/2. Must be below TTL − SafetyMargin.
	MinValidity time.Duration

	// Deprecated: derived from the TTL; leave it zero. Still honoured.
	//
	// RetryMin and RetryMax bound the backoff of [Client.AcquireWait]
	// between attempts: attempt n sleeps a uniformly random duration in
	// [0, min(RetryMax, RetryMin·2ⁿ)) ("full jitter"), so competing
	// waiters never retry in lockstep. Defaults: RetryMin 10ms, RetryMax
	// min(TTL/10, 1s) (at least RetryMin).
	RetryMin, RetryMax time.Duration

	// Deprecated: derived from the TTL; leave it zero. Still honoured.
	//
	// DrainTimeout is how long [Client.Do] keeps renewing the lease after
	// its ctx ended while fn has not returned. Past it Do stops the
	// heartbeat, so the lease expires by itself within TTL even if fn
	// ignores its context; Do still releases only after fn returns, never
	// while fn runs. Default TTL/2.
	DrainTimeout time.Duration

	// HighWater, if set, is the durable high-water mark of fencing tokens:
	// it returns a token at least as high as any token ever stored for
	// resource (e.g. SELECT max(last_fencing_token) over the rows the
	// resource guards). Acquire calls it, as etcdlease's does:
	//   - on the first Acquire of each resource by this Client, before
	//     anything is locked, and raises the counter to the mark with
	//     [Client.Advance] (one script that compares and sets it, never
	//     lowering it; one more round trip, this once per resource), so
	//     that a counter that exists but is behind (a restore of an RDB
	//     snapshot, an append-only file synced every second after a
	//     crash, a failover to a replica that lacked the last INCRs) mints
	//     above every stored token; a counter found below the mark is
	//     reported as a regression (EventCounterRegressed);
	//   - again whenever the counter key is missing (lost to a restart
	//     without persistence, eviction or a flush), re-seeding it above
	//     the mark in the same script that mints the token;
	//   - again for every resource after Acquire caught the counter going
	//     back (a token at or below one this Client minted).
	// The Client remembers which resources it has applied the mark to (one
	// map entry per resource name). An error fails the Acquire with
	// ErrConfig, before anything is locked, rather than minting from the
	// counter. It cannot cover a token minted but not yet written when the
	// counter went back. Nil means a missing counter starts from 0 and a
	// counter behind is used as it is; use [Lease.Observe] or
	// [Client.Advance] to recover from a regression then.
	HighWater func(ctx context.Context, resource string) (fence.Token, error)

	// UnsafeNoReplicas states that the Redis server has no replicas, so
	// that no failover can promote one. It lets [New] accept a plain
	// redis.Scripter (anything but a *redis.Client, *redis.ClusterClient,
	// *redis.Ring or redis.UniversalClient), which cannot pipeline the
	// acquire with WAIT: with replicas, a primary that dies before its
	// replica has the counter's INCR lets the promoted replica mint the
	// same token again for a second holder, and the database accepts both
	// holders' writes (Options.HighWater does not help: a Client applies it
	// once per resource, and it covers only tokens already written). Without it New refuses such a Scripter. A
	// client that can wait for replicas waits whatever this says.
	UnsafeNoReplicas bool

	// Logger receives debug records for acquire, renew and release,
	// warnings for failed renewals, lost leases and what Check finds
	// (which its error carries too), and error records when the fence
	// counter went back. Nil writes none of them, except the records
	// no returned error carries that an operator must see, which go to
	// slog.Default instead: the error record of a fence counter found
	// behind a token already used (Acquire, Advance, Lease.Observe and Do,
	// a HighWater mark), and the warnings and errors about Observer
	// callbacks or Logger handlers that are slow or panicked (see
	// [Observer]). etcdlease's Options.Logger follows the same rule.
	Logger *slog.Logger

	// Observer receives lifecycle callbacks. Nil disables them.
	Observer *Observer

	// hooks lets in-package tests pause the heartbeat and delay replies.
	hooks *testHooks
}

// Observer holds optional callbacks for metrics and tracing. Any field may be
// nil. A Client runs its callbacks, and writes its Options.Logger records,
// one at a time on a goroutine of its own, in the order the events happened
// (so per lease: acquired, then renewed or renew failed, then lost or
// released), never on the heartbeat or inside Release's wait for a renewal:
// a callback or log handler that blocks cannot delay a renewal or lose a
// lease, of this resource or any other. Acquire, Release and Advance wait
// for the callbacks of their own events to have run before they return, at
// most 1s and never past their ctx, and not at all while a callback is
// already past 1s; later events wait in order behind a slow one (up to
// 65,536 of them, then they are dropped). A callback past 1s logs a
// warning through slog.Default and counts in Stats.SlowCallbacks; a
// callback that panics is recovered there, logged at error level through
// slog.Default with its stack, and counted in Stats.PanickedCallbacks, and
// the events after it are still delivered. Keep
// callbacks quick, and do not call back into the same [Lease] and wait
// for its events.
//
// Event is the callback to use: it gets a context so that a trace can join
// the event. The On* fields are kept for existing code and still called.
type Observer struct {
	// Event runs for every lifecycle event. ctx carries the values, not
	// the cancellation, of the caller's context for events of Acquire,
	// Release and Advance, and of the ctx given to Acquire for the
	// heartbeat's events (renewed, renew failed, lost).
	Event func(ctx context.Context, e Event)

	// Deprecated: use Event (EventAcquired).
	//
	// OnAcquired runs after Acquire got a token and before it returns.
	OnAcquired func(resource string, token fence.Token)
	// Deprecated: use Event (EventRenewed).
	//
	// OnRenewed runs after each successful renewal.
	OnRenewed func(resource string, token fence.Token)
	// Deprecated: use Event (EventRenewFailed).
	//
	// OnRenewFailed runs after each failed renewal that did not (yet) lose
	// the lease; consecutive counts the failures in a row, from 1.
	OnRenewFailed func(resource string, token fence.Token, err error, consecutive int)
	// Deprecated: use Event (EventLost).
	//
	// OnLost runs once when the lease is lost, after its context is
	// cancelled.
	OnLost func(err *LostError)
	// Deprecated: use Event (EventCounterRegressed).
	//
	// OnCounterRegressed runs when [Client.Advance] (directly, or through
	// Lease.Observe or Do) or a HighWater re-seed found the counter below a
	// token already used, or Acquire got a token at or below one this
	// Client minted: Redis lost the counter. from is the counter before
	// (for Acquire, the token minted again), to the token it was raised to
	// (for Acquire, the one this Client had minted). Alert on it.
	OnCounterRegressed func(resource string, from, to fence.Token)
	// Deprecated: use Event (EventReleased).
	//
	// OnReleased runs after the compare-and-delete of Release answered;
	// err is nil, or wraps ErrNotHeld.
	OnReleased func(resource string, token fence.Token, err error)
}

// set reports whether any callback of o is set.
func (o *Observer) set() bool {
	return o.Event != nil || o.OnAcquired != nil || o.OnRenewed != nil || o.OnRenewFailed != nil ||
		o.OnLost != nil || o.OnCounterRegressed != nil || o.OnReleased != nil
}

// EventKind names a lifecycle event of a lease.
type EventKind string

const (
	// EventAcquired: Acquire got a token and is about to return the lease.
	EventAcquired EventKind = "acquired"
	// EventRenewed: a renewal succeeded.
	EventRenewed EventKind = "renewed"
	// EventRenewFailed: a renewal failed without (yet) losing the lease;
	// Err is the error, Consecutive the failures in a row, from 1.
	EventRenewFailed EventKind = "renew failed"
	// EventLost: the lease was lost, after its context was cancelled; Err
	// is the *LostError.
	EventLost EventKind = "lost"
	// EventReleased: the compare-and-delete of Release answered; Err is
	// nil or wraps ErrNotHeld.
	EventReleased EventKind = "released"
	// EventCounterRegressed: Advance or a HighWater re-seed found the fence
	// counter below a token already used and raised it From → To, or
	// Acquire got Token, a token at or below To, the highest this Client
	// minted for the resource (From = Token), gave it back unused and
	// raised the counter to To. Alert on it.
	EventCounterRegressed EventKind = "counter regressed"
)

// Event is one lifecycle event passed to Observer.Event.
type Event struct {
	Kind        EventKind   // what happened
	Resource    string      // the lease's resource name, as passed to Acquire
	Token       fence.Token // for EventCounterRegressed: the token minted again, or 0
	Err         error       // see the EventKind
	Consecutive int         // EventRenewFailed
	From, To    fence.Token // EventCounterRegressed
}

// testHooks are in-package test seams.
type testHooks struct {
	// afterAcquireReply runs in Acquire after a successful reply, before
	// the validity floor is checked.
	afterAcquireReply func()
	// clock replaces the real clock (see clock.go).
	clock clock
	// noReplicaCheck turns the replica acknowledgement off (to show what
	// it prevents).
	noReplicaCheck bool
}

const (
	defaultKeyPrefix        = "fencegen"
	defaultTTL              = 10 * time.Second
	defaultMaxRenewFailures = 2
	defaultAcquireRetries   = 2
)

func (o *Options) keyPrefix() string {
	if o == nil || o.KeyPrefix == "" {
		return defaultKeyPrefix
	}
	return o.KeyPrefix
}

func (o *Options) ttl() time.Duration {
	if o == nil || o.TTL <= 0 {
		return defaultTTL
	}
	return o.TTL
}

// heartbeatInterval returns the interval, or 0 if the heartbeat is disabled.
func (o *Options) heartbeatInterval(ttl time.Duration) time.Duration {
	switch {
	case o == nil || o.HeartbeatInterval == 0:
		return ttl / 3
	case o.HeartbeatInterval < 0:
		return 0
	}
	return o.HeartbeatInterval
}

func (o *Options) callTimeout(ttl time.Duration) time.Duration {
	if o == nil || o.CallTimeout <= 0 {
		return ttl / 6
	}
	return o.CallTimeout
}

func (o *Options) releaseTimeout(ttl time.Duration) time.Duration {
	if o == nil || o.ReleaseTimeout <= 0 {
		return max(o.callTimeout(ttl), time.Second)
	}
	return o.ReleaseTimeout
}

func (o *Options) safetyMargin(ttl time.Duration) time.Duration {
	if o == nil || o.SafetyMargin <= 0 {
		return ttl / 10
	}
	return o.SafetyMargin
}

func (o *Options) maxRenewFailures() int {
	if o == nil || o.MaxRenewFailures <= 0 {
		return defaultMaxRenewFailures
	}
	return o.MaxRenewFailures
}

func (o *Options) acquireRetries() int {
	switch {
	case o == nil || o.AcquireRetries == 0:
		return defaultAcquireRetries
	case o.AcquireRetries < 0:
		return 0
	}
	return o.AcquireRetries
}

func (o *Options) minValidity(ttl time.Duration) time.Duration {
	if o == nil || o.MinValidity <= 0 {
		return ttl / 2
	}
	return o.MinValidity
}

func (o *Options) retryMin() time.Duration {
	if o == nil || o.RetryMin <= 0 {
		return 10 * time.Millisecond
	}
	return o.RetryMin
}

func (o *Options) retryMax(ttl time.Duration) time.Duration {
	if o == nil || o.RetryMax <= 0 {
		return max(min(ttl/10, time.Second), o.retryMin())
	}
	return max(o.RetryMax, o.retryMin())
}

func (o *Options) drainTimeout(ttl time.Duration) time.Duration {
	if o == nil || o.DrainTimeout <= 0 {
		return ttl / 2
	}
	return o.DrainTimeout
}

func (o *Options) highWater() func(context.Context, string) (fence.Token, error) {
	if o == nil {
		return nil
	}
	return o.HighWater
}

func (o *Options) logger() *slog.Logger {
	if o == nil {
		return nil
	}
	return o.Logger
}

// noObserver is the Observer of a Client without one.
var noObserver = &Observer{}

func (o *Options) observer() *Observer {
	if o == nil || o.Observer == nil {
		return noObserver
	}
	return o.Observer
}

// noHooks are the testHooks of a Client without any.
var noHooks = &testHooks{}

func (o *Options) testHooks() *testHooks {
	if o == nil || o.hooks == nil {
		return noHooks
	}
	return o.hooks
}

// checkOptions reports an option that no TTL can make valid, naming the
// field: a negative duration (HeartbeatInterval and AcquireRetries excepted,
// where a negative value is documented to disable the heartbeat or the
// retries), a negative MaxRenewFailures, or RetryMin above RetryMax. Zero
// always means the default.
func (o *Options) checkOptions() *OptionsError {
	if o == nil {
		return nil
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"Options.TTL", o.TTL}, {"Options.CallTimeout", o.CallTimeout}, {"Options.ReleaseTimeout", o.ReleaseTimeout},
		{"Options.SafetyMargin", o.SafetyMargin}, {"Options.MinValidity", o.MinValidity}, {"Options.DrainTimeout", o.DrainTimeout},
		{"Options.RetryMin", o.RetryMin}, {"Options.RetryMax", o.RetryMax},
	} {
		if d.v < 0 {
			return optionsError([]string{d.name}, "%s %v is negative (0 means the default)", d.name, dur(d.v))
		}
	}
	if o.MaxRenewFailures < 0 {
		return optionsError([]string{"Options.MaxRenewFailures"}, "Options.MaxRenewFailures %d is negative (0 means the default, %d)", o.MaxRenewFailures, defaultMaxRenewFailures)
	}
	if o.RetryMin > 0 && o.RetryMax > 0 && o.RetryMin > o.RetryMax {
		return optionsError([]string{"Options.RetryMin", "Options.RetryMax"}, "Options.RetryMin %v is above RetryMax %v", dur(o.RetryMin), dur(o.RetryMax))
	}
	return nil
}

// optionsError is an *OptionsError for fields with the problem format.
func optionsError(fields []string, format string, args ...any) *OptionsError {
	return &OptionsError{Fields: fields, Problem: fmt.Sprintf(format, args...)}
}
