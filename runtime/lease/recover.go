package lease

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease/internal/notify"
)

// Advance raises resource's fence counter to at least atLeast, atomically
// and in one round trip (a script that sets the counter to
// max(counter, atLeast); it never lowers the counter and never gives it a
// TTL), so that the next Acquire mints a token above atLeast. Use it with a
// durable high-water mark, such as the Stored token of a *fence.StaleError
// or max(last_fencing_token) of the fenced rows, to recover after Redis lost
// the counter (restart without persistence, eviction, failover to a replica
// that never saw it) instead of refusing every write forever.
//
// It returns the counter after the call. If the counter was below atLeast,
// tokens had regressed: Advance logs an error and calls
// Observer.OnCounterRegressed. atLeast ≤ 0 is a no-op that still reads the
// counter. May return [ErrInvalidResource], [ErrConfig] (e.g. WRONGTYPE), a
// Redis error, a [*TimeoutError] when ReleaseTimeout (or a go-redis timeout)
// cut the call off, or ctx's error when ctx ended first; the call is
// bounded by ctx and ReleaseTimeout.
func (c *Client) Advance(ctx context.Context, resource string, atLeast fence.Token) (fence.Token, error) {
	after, _, err := c.advance(ctx, resource, atLeast, raisedByAdvance)
	return after, err
}

// raiser says what raised a fence counter found behind a token already
// used, for the regression's log record.
type raiser uint8

const (
	// notReported: the caller reported the regression itself (Acquire,
	// which caught a token minted again).
	notReported       raiser = iota
	raisedByAdvance          // Client.Advance called directly
	raisedByObserve          // Lease.Observe (also through Do): a refused write
	raisedByHighWater        // Options.HighWater's mark, applied by Acquire
)

// regressedMsg is the log message of a regression that by raised.
var regressedMsg = [...]string{
	raisedByAdvance:   "lease fence counter regressed; raised by Advance to a token already used",
	raisedByObserve:   "lease fence counter regressed; raised above the token a refused write found stored",
	raisedByHighWater: "lease fence counter regressed; raised above the high-water mark (Options.HighWater)",
}

// advance is Advance, also reporting whether the counter was below
// atLeast (tokens had regressed) and has been raised; by says what raised
// it, for the report, and notReported makes none: its caller (Acquire,
// which caught a token minted again) has reported it.
func (c *Client) advance(ctx context.Context, resource string, atLeast fence.Token, by raiser) (_ fence.Token, raised bool, _ error) {
	op := fmt.Sprintf("advance %q", resource)
	if err := resourceError("advance", resource); err != nil {
		return 0, false, err
	}
	// Never below a token this Client minted: after Redis lost the
	// counter, a Stored token read from the database may be below a token
	// this process handed to a lease that has not written yet.
	atLeast = max(atLeast, c.tokens.Get(resource))
	_, counterKey := c.Keys(resource)
	timeout := c.opts.releaseTimeout(c.opts.ttl())
	callCtx, cs, inline := c.callContext(ctx, timeout)
	defer cs.stop()
	var res []int64 // read only once the call has returned
	_, abandoned, err := c.runFn(callCtx, inline, func(ctx context.Context) (int64, error) {
		var err error
		res, err = advanceScript.Run(ctx, c.rdb, []string{counterKey}, int64(max(atLeast, 0))).Int64Slice()
		return 0, err
	})
	if abandoned == nil && err == nil && len(res) != 2 { // res is the abandoned call's otherwise
		err = fmt.Errorf("unexpected advance reply %v", res)
	}
	if err != nil {
		if isConfigError(err) {
			return 0, false, &opError{op: op, err: configError(err)}
		}
		return 0, false, opFailed(op, ctx, callCtx, "advance", timeout, err)
	}
	before, after := fence.Token(res[0]), fence.Token(res[1])
	c.tokens.Raise(resource, after)
	if after > before && by != notReported {
		c.regressed(ctx, resource, before, after, 0, by)
	}
	return after, after > before, nil
}

// regressed reports that the counter of resource was found below a token
// already used, and has been raised from from to to; minted, when not 0,
// is a token Acquire got from Redis at or below one the Client had
// minted (from is then minted, to the remembered token, and the counter
// is raised after the report); else by says what raised the counter.
func (c *Client) regressed(ctx context.Context, resource string, from, to, minted fence.Token, by raiser) {
	c.emit(ctx, Event{Kind: EventCounterRegressed, Resource: resource, Token: minted, From: from, To: to})
	// Logged at error level also without Options.Logger (through
	// slog.Default): the counter going back is what an operator must see.
	lg := c.opts.logger()
	if lg == nil {
		lg = slog.Default()
	}
	if minted != 0 {
		c.record(ctx, lg, slog.LevelError, "lease fence counter regressed: Redis minted a token this Client had already minted; acquisition given back, counter raised to the remembered token",
			"resource", resource, "minted", int64(minted), "from", int64(from), "to", int64(to))
	} else {
		c.record(ctx, lg, slog.LevelError, regressedMsg[by],
			"resource", resource, "from", int64(from), "to", int64(to))
	}
	if f := c.opts.observer().OnCounterRegressed; f != nil {
		c.notes.Post(func() { f(resource, from, to) }, notify.About{Hook: "Observer.OnCounterRegressed", Event: string(EventCounterRegressed), Resource: resource, Token: int64(to)})
	}
	c.notes.Sync()
}

// Observe inspects err, the result of a fenced write made with l's token,
// and returns it unchanged (so a call can be wrapped:
// err = l.Observe(ctx, q.CreditAccount(ctx, arg, l.Token()))).
//
// When err is a *fence.StaleError whose Stored token is above l's token,
// some acquisition after l wrote the row, or Redis lost the counter and
// minted l's token a second time. Either way l is no longer the latest
// holder: Observe raises the counter to Stored with [Client.Advance], so
// the next Acquire mints a token that the database accepts, then cancels
// the lease context with a [*LostError] of [ReasonSuperseded] (the
// heartbeat keeps nothing alive for it), whose RaisedTo is set, and whose
// text reads "the counter was behind: raised to <n>", when the counter
// was below Stored (Redis lost it; a takeover leaves RaisedTo 0). A
// failing Advance is joined to the returned error. Any other err, including nil and a StaleError of the
// strict guard with Stored equal to l's token, is returned untouched.
func (l *Lease) Observe(ctx context.Context, err error) error {
	var se *fence.StaleError
	if !errors.As(err, &se) || se.Stored <= l.token {
		return err
	}
	// The counter is raised first, so that the lease's cause can say
	// whether it was behind (Redis lost it: the LostError says so) or
	// another holder's later token was stored (a takeover).
	to, raised, aerr := l.c.advance(context.WithoutCancel(ctx), l.resource, se.Stored, raisedByObserve)
	lost := &LostError{Resource: l.resource, Token: l.token, Reason: ReasonSuperseded, Err: se}
	if raised {
		lost.RaisedTo = to
	}
	_ = l.loseWith(lost)
	if aerr != nil {
		return errors.Join(err, aerr)
	}
	return err
}
