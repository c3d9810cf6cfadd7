package etcdlease

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
)

// Options configures a [Client]. The zero value (or nil) means every
// default; the names and defaults are those of lease.Options, so that a
// worker moved from Redis keeps its settings.
type Options struct {
	// KeyPrefix starts every etcd key of the package:
	// "<prefix>/<resource>/lock" and "<prefix>/<resource>/base". Default
	// "fencegen".
	KeyPrefix string

	// TTL is the lease time-to-live used when Acquire gets ttl 0. Default
	// 10s. etcd grants leases in whole seconds, so the lease is granted for
	// the TTL rounded up to a second (and the server raises a grant below
	// its minimum, 1.5 election timeouts, to that minimum): the server
	// keeps the key at least TTL, and the local deadline is computed from
	// TTL itself. A TTL below 1s is refused with lease.ErrConfig.
	TTL time.Duration

	// HeartbeatInterval is how often the lease is renewed (one keep-alive
	// request on the Client's shared LeaseKeepAlive stream). Default TTL/3; negative disables the
	// heartbeat (then only Lease.Renew renews, and the local deadline
	// still ends the lease).
	HeartbeatInterval time.Duration

	// CallTimeout bounds each grant, acquire transaction and
	// Lease.Renew. Default TTL/6. The heartbeat's renewals wait longer
	// when the lease has time left, as on the Redis lease: until
	// CallTimeout before the local deadline, at most HeartbeatInterval
	// and at least CallTimeout.
	CallTimeout time.Duration

	// ReleaseTimeout bounds each revoke a Lease.Release sends (one, or
	// one per endpoint when each times out: see Lease.Release), the
	// cleanup of a failed Acquire and Advance. Default max(CallTimeout, 1s).
	ReleaseTimeout time.Duration

	// SafetyMargin is subtracted from the TTL for the local deadline: the
	// lease context is cancelled at send time of the last successful
	// grant or renewal + TTL − SafetyMargin. Default TTL/10.
	SafetyMargin time.Duration

	// MaxRenewFailures consecutive failed renewals lose the lease.
	// Default 2.
	MaxRenewFailures int

	// MinValidity is the least local validity a new lease must have when
	// Acquire is about to return it; with less left (a slow reply, a
	// paused process) Acquire revokes it and fails with
	// lease.ErrAcquireTooSlow. Default TTL/2. Must be below TTL −
	// SafetyMargin.
	MinValidity time.Duration

	// DrainTimeout is how long [Client.Do] keeps renewing the lease after
	// its ctx ended while fn has not returned; then the heartbeat stops and
	// the lease expires by itself. Default TTL/2.
	DrainTimeout time.Duration

	// HighWater, if set, is the durable high-water mark of fencing tokens,
	// as in lease.Options: it returns a token at least as high as any
	// token ever stored for resource (e.g. SELECT max(last_fencing_token)
	// over the rows the resource guards). Acquire calls it the first time
	// the Client acquires a resource, and again after the Client saw
	// etcd's revision go back (a snapshot restore): if the next token
	// could be at or below the mark, it raises the resource's base with
	// [Client.Advance] before taking the lock, so that a process started
	// on a restored cluster mints above every stored token. An error fails
	// the Acquire with lease.ErrConfig, before anything is granted. The
	// Client remembers which resources it has asked about (one map entry
	// per resource name). Nil: only [Lease.Observe] (and Do) recover from
	// a rewound revision, after the database refused a lower token, and a
	// process started after a snapshot restore without --bump-revision
	// can mint a token equal to one handed out before it, which the
	// database accepts from both holders: set it wherever the cluster
	// may be restored from a snapshot (etcd 3.4 cannot bump). It cannot
	// cover a token minted but not yet written before the restore.
	HighWater func(ctx context.Context, resource string) (fence.Token, error)

	// Logger receives debug records for acquire, renew and release,
	// warnings for failed renewals, lost leases and what Check finds, and
	// error records when tokens went back. Nil writes none of them,
	// except, as on Redis (lease.Options.Logger), the records an operator
	// must see, which go to slog.Default instead: the error record of
	// tokens going back (a rewound revision or base caught by Acquire,
	// Advance, Lease.Observe and Do, a HighWater mark; Check's finding
	// that the cluster was restored from a snapshot), and the warnings
	// and errors about Observer callbacks or Logger handlers that are slow
	// or panicked.
	Logger *slog.Logger

	// Observer receives the Redis lease's lifecycle events through its
	// Event field, and its deprecated On* fields are still called, each
	// after Event for its event, as the Redis lease calls them
	// (lease.Observer). Nil disables them. As on Redis, events and Logger records
	// are delivered in order on a goroutine of the Client's own, never on
	// the keep-alive stream or inside Release's wait (see lease.Observer).
	Observer *lease.Observer
}

// timing is the per-lease configuration derived from the TTL and Options.
type timing struct {
	ttl, interval, callTimeout, releaseTimeout, margin, minValidity, drain time.Duration
	maxFailures                                                            int
	grantSeconds                                                           int64
}

func (o *Options) get() Options {
	if o == nil {
		return Options{}
	}
	return *o
}

// timing derives the lease's timing from ttl (0: Options.TTL) and checks
// it. A TTL the options do not allow is an *lease.OptionsError
// (lease.ErrConfig) naming the fields, the rule that failed and, as the
// Redis lease's does, the least TTL the options allow (trial r26s N4).
func (c *Client) timing(ttl time.Duration) (timing, error) {
	t, err := c.derive(ttl)
	var oe *lease.OptionsError
	if errors.As(err, &oe) && oe.TTL != 0 {
		if m, ok := c.minTTL(); ok {
			oe.Problem += fmt.Sprintf(" (minimum TTL with these options: %v)", m)
		}
	}
	return t, err
}

// minTTL returns the least TTL, in whole milliseconds, that derive
// accepts with c's options, or false when none up to about 35 years does.
// derive's rules only get easier as the TTL grows with the options fixed,
// so a binary search finds it.
func (c *Client) minTTL() (time.Duration, bool) {
	ok := func(ttl time.Duration) bool { _, err := c.derive(ttl); return err == nil }
	const limit = 1 << 40 * time.Millisecond
	hi := time.Second
	for !ok(hi) {
		if hi >= limit {
			return 0, false
		}
		hi *= 2
	}
	lo := hi / 2 // fails (below 1s fails too): the least TTL that passes is in (lo, hi]
	for hi-lo > time.Microsecond {
		if mid := lo + (hi-lo)/2; ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	m := (lo/time.Millisecond + 1) * time.Millisecond
	for !ok(m) {
		m += time.Millisecond
	}
	return m, true
}

// derive is timing without the least TTL in its error.
func (c *Client) derive(ttl time.Duration) (timing, error) {
	o := c.opts
	ttlArg := ttl
	if ttl == 0 {
		ttl = o.TTL
	}
	if ttl == 0 {
		ttl = 10 * time.Second
	}
	t := timing{ttl: ttl, interval: ttl / 3, callTimeout: ttl / 6, margin: ttl / 10, minValidity: ttl / 2, drain: ttl / 2, maxFailures: 2}
	switch {
	case o.HeartbeatInterval > 0:
		t.interval = o.HeartbeatInterval
	case o.HeartbeatInterval < 0:
		t.interval = 0
	}
	if o.CallTimeout > 0 {
		t.callTimeout = o.CallTimeout
	}
	t.releaseTimeout = max(t.callTimeout, time.Second)
	if o.ReleaseTimeout > 0 {
		t.releaseTimeout = o.ReleaseTimeout
	}
	if o.SafetyMargin > 0 {
		t.margin = o.SafetyMargin
	}
	if o.MaxRenewFailures > 0 {
		t.maxFailures = o.MaxRenewFailures
	}
	if o.MinValidity > 0 {
		t.minValidity = o.MinValidity
	}
	if o.DrainTimeout > 0 {
		t.drain = o.DrainTimeout
	}
	// Whole seconds, rounded up without overflowing: (ttl + 1s − 1) wraps
	// for a TTL near math.MaxInt64 (the usual "no expiry"), and etcd
	// raises a negative grant to its minimum TTL of a few seconds.
	t.grantSeconds = int64(ttl / time.Second)
	if ttl%time.Second != 0 {
		t.grantSeconds++
	}
	valid := ttl - t.margin
	ttlField := "ttl"
	if ttlArg == 0 {
		ttlField = "Options.TTL"
	}
	var err *lease.OptionsError
	fail := func(fields []string, format string, args ...any) *lease.OptionsError {
		return &lease.OptionsError{Fields: fields, TTL: ttl, Problem: fmt.Sprintf(format, args...)}
	}
	switch {
	case negativeOption(o) != "":
		err = fail([]string{negativeField(o)}, "%s is negative (0 means the default)", negativeOption(o))
		err.TTL = 0
	case ttl < time.Second:
		err = fail([]string{ttlField}, "TTL %v below 1s: etcd grants leases in whole seconds", ttl)
	case t.margin >= ttl:
		err = fail([]string{"Options.SafetyMargin", ttlField}, "SafetyMargin %v not below TTL %v", t.margin, ttl)
	case t.callTimeout >= ttl:
		err = fail([]string{"Options.CallTimeout", ttlField}, "Options.CallTimeout %v not below TTL %v", t.callTimeout, ttl)
	case t.minValidity >= valid:
		err = fail([]string{"Options.MinValidity", ttlField, "Options.SafetyMargin"}, "MinValidity %v not below TTL − SafetyMargin %v", t.minValidity, valid)
	case t.interval >= valid:
		err = fail([]string{"Options.HeartbeatInterval", ttlField, "Options.SafetyMargin"}, "HeartbeatInterval %v not below TTL − SafetyMargin %v", t.interval, valid)
	case t.interval > 0 && valid-t.interval < lease.MinRenewSlack:
		// As on Redis: a renewal sent on schedule needs that long before
		// the local deadline (the default 1s TTL leaves 567ms).
		err = fail([]string{"Options.HeartbeatInterval", ttlField, "Options.SafetyMargin"}, "HeartbeatInterval %v leaves a renewal %v before the local deadline (TTL − SafetyMargin %v), below the %v it needs on a busy machine (lease.MinRenewSlack)", t.interval, valid-t.interval, valid, lease.MinRenewSlack)
	}
	if err != nil {
		return t, err
	}
	return t, nil
}

// negativeField is the selector of the option negativeOption names.
func negativeField(o Options) string {
	name, _, _ := strings.Cut(negativeOption(o), " ")
	return name
}

// negativeOption names the first negative option of o, or returns "".
func negativeOption(o Options) string {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"TTL", int64(o.TTL)}, {"CallTimeout", int64(o.CallTimeout)}, {"ReleaseTimeout", int64(o.ReleaseTimeout)},
		{"SafetyMargin", int64(o.SafetyMargin)}, {"MaxRenewFailures", int64(o.MaxRenewFailures)},
		{"MinValidity", int64(o.MinValidity)}, {"DrainTimeout", int64(o.DrainTimeout)},
	} {
		if f.v < 0 {
			if f.name == "MaxRenewFailures" {
				return fmt.Sprintf("Options.%s %d", f.name, f.v)
			}
			return fmt.Sprintf("Options.%s %v", f.name, time.Duration(f.v))
		}
	}
	return ""
}
