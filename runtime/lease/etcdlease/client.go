package etcdlease

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
	"github.com/fencegen/fencegen/runtime/lease/internal/highwater"
	"github.com/fencegen/fencegen/runtime/lease/internal/notify"
)

// ErrEtcdTimeout is wrapped by every [*TimeoutError]: an etcd call was cut
// off by the package's own per-call deadline (CallTimeout, ReleaseTimeout),
// not by the caller's context. It is the etcd counterpart of
// lease.ErrRedisTimeout.
// It matches lease.ErrTimeout (errors.Is), as lease.ErrRedisTimeout does,
// so that one test serves both coordinators.
var ErrEtcdTimeout error = etcdTimeout{}

// etcdTimeout is the type of ErrEtcdTimeout: a comparable value that also
// matches lease.ErrTimeout.
type etcdTimeout struct{}

func (etcdTimeout) Error() string        { return "lease: etcd call timed out" }
func (etcdTimeout) Is(target error) bool { return target == lease.ErrTimeout }

// resourceError returns nil for a name both coordinators accept, else an
// error wrapping lease.ErrInvalidResource for the operation op
// ("acquire", "advance"): an empty name, one with '{' or '}', which the
// Redis lease refuses (its keys' hash tag is {resource}; etcd could store
// them, but a worker moved between coordinators must not start failing on
// a name, trial t26s F5), or one longer than lease.MaxResourceLen, which
// etcd would refuse as a request too large (trial r26s N2). The message
// quotes no more of an over-long name than a log line can carry, as the
// Redis lease's does.
func resourceError(op, resource string) error {
	switch {
	case len(resource) > lease.MaxResourceLen:
		return &opError{op: fmt.Sprintf("%s %q… (%d bytes)", op, resource[:32], len(resource)),
			err: fmt.Errorf("%w: %d bytes, above lease.MaxResourceLen (%d)", lease.ErrInvalidResource, len(resource), lease.MaxResourceLen)}
	case resource == "" || strings.ContainsAny(resource, "{}"):
		return &opError{op: fmt.Sprintf("%s %q", op, resource), err: lease.ErrInvalidResource}
	}
	return nil
}

// ErrClientClosed is wrapped by the error of a call made on, or cut off
// by, a *clientv3.Client that was closed (Close cancels its context):
// etcd's client retries such a call until its deadline, so it would read
// as a timeout; it is known at once and fails at once. Close the etcd
// client after releasing every lease: a lease still held when it is
// closed is lost at once (its context ends with a *lease.LostError of
// lease.ReasonRenewFailed wrapping ErrClientClosed), and its etcd lease
// and lock key stay on the server until the TTL runs out. It is the etcd counterpart of
// go-redis's redis.ErrClosed, and matches lease.ErrClientClosed (errors.Is),
// which the Redis lease's errors for a closed client wrap too: code that
// tests for lease.ErrClientClosed works with either coordinator.
var ErrClientClosed error = clientClosed{}

// clientClosed is the type of ErrClientClosed: a comparable value that
// also matches lease.ErrClientClosed.
type clientClosed struct{}

func (clientClosed) Error() string        { return "lease: the etcd client is closed" }
func (clientClosed) Is(target error) bool { return target == lease.ErrClientClosed }

// closed returns an error wrapping ErrClientClosed if c's *clientv3.Client
// was closed, nil otherwise.
func (c *Client) closed(op string) error {
	if c.cli.Ctx().Err() == nil {
		return nil
	}
	return &opError{op: op, err: ErrClientClosed}
}

// TimeoutError is an etcd call that timed out while the caller's context
// was still live. Its Unwrap returns [ErrEtcdTimeout] and Err.
type TimeoutError struct {
	// Op is the call: "grant", "acquire", "renew", "release" or "advance".
	Op string
	// Timeout is the bound that expired (CallTimeout or ReleaseTimeout).
	Timeout time.Duration
	// Err is what the etcd client returned, if anything but the deadline.
	Err error
}

// Error returns "lease: etcd <op> call timed out after <timeout>[: <err>]",
// or "lease: etcd <op> call: connection refused until its deadline after
// <timeout>: <err>" when every endpoint refused the connection.
func (e *TimeoutError) Error() string {
	msg := fmt.Sprintf("lease: etcd %s call timed out after %v", e.Op, round(e.Timeout))
	if errors.Is(e.Err, syscall.ECONNREFUSED) {
		// The etcd client reports a cluster refusing connections as a
		// deadline: what happened is the refusal (trial-rt3 F8).
		msg = fmt.Sprintf("lease: etcd %s call: connection refused until its deadline after %v", e.Op, round(e.Timeout))
	}
	if e.Err != nil && !errors.Is(e.Err, context.DeadlineExceeded) {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns ErrEtcdTimeout, and Err unless it is a context error (the
// caller's context did not end).
func (e *TimeoutError) Unwrap() []error {
	if e.Err == nil || errors.Is(e.Err, context.DeadlineExceeded) || errors.Is(e.Err, context.Canceled) {
		return []error{ErrEtcdTimeout}
	}
	return []error{ErrEtcdTimeout, e.Err}
}

// round rounds d for a message: to whole milliseconds from 100ms up
// (TTL/6 of 2s prints as 333ms).
func round(d time.Duration) time.Duration {
	if d >= 100*time.Millisecond {
		return d.Round(time.Millisecond)
	}
	return d
}

// opError prints "lease: <op>: <err>" like the Redis lease's errors.
type opError struct {
	op  string
	err error
}

func (e *opError) Error() string {
	return "lease: " + e.op + ": " + trimPrefix(e.err.Error())
}

func (e *opError) Unwrap() error { return e.err }

func trimPrefix(s string) string {
	if len(s) > 7 && s[:7] == "lease: " {
		return s[7:]
	}
	return s
}

// failed wraps err, the error of a call made on callCtx (derived from ctx
// with timeout), as lease.ErrConfig when no retry can fix it (see
// isConfigErr), as ctx's error when ctx ended, as a [*TimeoutError] when
// the timeout cut it off, else as it is. The etcd client reports a
// cluster it cannot connect to as a deadline, so when the call timed out
// or ctx ended, failed dials the client's endpoints once (100ms each) and
// adds what refused them: "connect: connection refused" is not a slow
// cluster.
func (c *Client) failed(op string, ctx, callCtx context.Context, call string, timeout time.Duration, err error) error {
	switch {
	case c.cli.Ctx().Err() != nil:
		return &opError{op: op, err: fmt.Errorf("%w (%s: %w)", ErrClientClosed, call, err)}
	case isConfigErr(err):
		// The etcd client may retry it until the deadline: still no
		// retry can fix it.
		return &opError{op: op, err: fmt.Errorf("%w: %w", lease.ErrConfig, err)}
	case refused(err) != "":
		// etcd answered at once: naming it a timeout would send the
		// operator to the network (trial r26s N3).
		return &opError{op: op, err: fmt.Errorf("etcd refused the %s call: %s: %w", call, refused(err), err)}
	case ended(ctx):
		cause := err
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			cause = c.dialCause()
		}
		if cause == nil {
			// The cluster was reachable: it did not answer before ctx
			// ended (a stalled member, a lost quorum), which a bare
			// "context deadline exceeded" does not say (trial t26 F7).
			return &opError{op: op, err: fmt.Errorf("%w while waiting for etcd's answer to the %s call", ctxErr(ctx), call)}
		}
		return &opError{op: op, err: fmt.Errorf("%w (%s: %w)", ctxErr(ctx), call, cause)}
	case timedOut(callCtx) || errors.Is(err, context.DeadlineExceeded):
		te := &TimeoutError{Op: call, Timeout: timeout, Err: err}
		if d := c.dialCause(); d != nil {
			te.Err = d
		}
		return &opError{op: op, err: te}
	}
	return &opError{op: op, err: err}
}

// timedOut reports whether callCtx's deadline cut the call off. The
// callers cancel callCtx before they report the error, so a cancelled
// callCtx is not a timeout: an error etcd answered at once is reported as
// itself, not as "timed out after CallTimeout" (trial r26s N3).
func timedOut(callCtx context.Context) bool {
	if errors.Is(callCtx.Err(), context.DeadlineExceeded) {
		return true
	}
	dl, ok := callCtx.Deadline()
	return ok && !time.Now().Before(dl)
}

// ended reports whether ctx has ended, also when its deadline has passed
// but its timer has not run yet: gRPC reads the deadline itself and can
// return before the timer cancels ctx.
func ended(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && !time.Now().Before(dl)
}

// ctxErr is ctx.Err(), or context.DeadlineExceeded for a ctx whose
// deadline has passed before its timer ran.
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return context.DeadlineExceeded
}

// dialCause dials each endpoint of the client and returns the first
// error if none could be reached, else nil.
func (c *Client) dialCause() error {
	var first error
	for _, ep := range c.cli.Endpoints() {
		addr := ep
		if u, err := url.Parse(ep); err == nil && u.Host != "" {
			addr = u.Host
		}
		conn, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			conn.Close()
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// Client takes leases on named resources in one etcd cluster. It is safe
// for concurrent use; create one per *clientv3.Client and share it. It
// implements lease.Locker[*Lease], as the Redis lease's Client implements
// lease.Locker[*lease.Lease].
type Client struct {
	cli  *clientv3.Client
	opts Options
	ka   *keepAliver // the renewals of every lease, on one stream

	acquires, renewals, releases atomic.Uint64 // Stats
	// notes delivers Observer events and Logger records in order, off the
	// keep-alive stream and Release's wait (see lease.Observer).
	notes notify.Queue

	// maxRev is the highest store revision a linearizable reply has shown
	// this Client; a successful acquire at or below the value read before
	// its request was sent means the revision went back.
	maxRev atomic.Int64
	// floorRev is the highest revision this Client had seen before the
	// last rewind it caught (0: none). maxRev restarts from the rewound
	// revision, so that the rewind is not caught again on every acquire;
	// floorRev keeps what it had seen, and every token minted after the
	// rewind must exceed it, also for a resource this Client never
	// minted for (its tokens before the restore were at most floorRev
	// plus a base, and the restore may have taken the base back too).
	floorRev atomic.Int64
	// tokens holds, for each resource this Client acquired or advanced,
	// the highest token it minted for it, or that it saw
	// the next token must exceed (Advance). A token at or below it means
	// etcd went back (see acquire). One entry per resource name.
	tokens highwater.Marks
	// highWater holds the resources whose Options.HighWater mark has been
	// applied since New or since the last rewind this Client saw.
	highWater sync.Map
	// afterGrant, set by tests, runs between the grant and the acquire
	// transaction.
	afterGrant func(clientv3.LeaseID)
	// beforeWatch, set by tests, runs in AcquireWait between the read of
	// a held lock key and the watch from the revision after it.
	beforeWatch func(fromRev int64)
}

var (
	_ lease.Locker[*Lease]      = (*Client)(nil)
	_ lease.Coordinator[*Lease] = (*Client)(nil)
	_ lease.Doer                = (*Client)(nil)
)

// New returns a Client that keeps its leases in the etcd cluster cli talks
// to. cli must not be nil; opts may be nil (every default). New keeps a
// copy of *opts. Closing cli is the caller's business, after every lease
// is released.
//
// New panics, as for a nil cli and as the Redis lease's New does, when
// opts cannot be kept with Options.TTL, or with the default TTL of 10s when
// Options.TTL is zero (a TTL below 1s, since etcd grants leases in whole
// seconds; a negative option; a SafetyMargin, CallTimeout, MinValidity or
// HeartbeatInterval that leaves no time before the local deadline): the
// panic value is an error wrapping a *lease.OptionsError (errors.As),
// whose Fields name the options and whose message names the rule. Set
// Options.TTL to the TTL the leases use when it is not 10s. A TTL given
// to Acquire is checked there and refused with the same error type.
func New(cli *clientv3.Client, opts *Options) *Client {
	if cli == nil {
		panic("etcdlease: New with nil *clientv3.Client")
	}
	c := &Client{cli: cli, opts: opts.get(), ka: newKeepAliver(cli)}
	if opts != nil {
		// A default TTL the lease cannot keep with the other options would
		// fail every Acquire and Do that uses it: refuse it here, as the
		// Redis lease's New does, not at the first call, also when it is
		// the default 10s (issue 26, r26 N4).
		if _, err := c.timing(0); err != nil {
			if opts.TTL != 0 {
				panic(fmt.Errorf("etcdlease: New with Options.TTL %v: %w", opts.TTL, trimmed{err}))
			}
			panic(fmt.Errorf("etcdlease: New with the default TTL 10s (Options.TTL is 0; set it to the TTL the leases use): %w", trimmed{err}))
		}
	}
	c.notes.Name = "etcdlease"
	return c
}

func (c *Client) prefix() string {
	if c.opts.KeyPrefix == "" {
		return "fencegen"
	}
	return c.opts.KeyPrefix
}

// Keys returns the etcd keys of resource: the lock key, which exists while
// the lease is held and is attached to the holder's etcd lease, and the
// base key, the offset [Client.Advance] adds to revisions after a
// snapshot restore rewound them (absent means 0).
func (c *Client) Keys(resource string) (lock, base string) {
	p := c.prefix() + "/" + resource + "/"
	return p + "lock", p + "base"
}

// AllKeys returns every etcd key the package writes for resource, as the
// Redis lease's AllKeys does: the lock key and the base key (see Keys).
// Nothing else is written; the etcd leases themselves are not keys.
func (c *Client) AllKeys(resource string) []string {
	lock, base := c.Keys(resource)
	return []string{lock, base}
}

func acquireOp(resource string) string { return fmt.Sprintf("acquire %q", resource) }

// Acquire takes the lease on resource for ttl (0: Options.TTL) without
// waiting, in two round trips: a LeaseGrant of ttl rounded up to whole
// seconds, then one transaction that, if the lock key does not exist
// (its create revision is 0), puts it attached to that etcd lease and
// reads the base key. The fencing token is the base plus the
// transaction's revision, which is the lock key's create revision: etcd's
// store revision is one cluster-wide counter, raised by every write and
// persisted through Raft, so every later holder's key is created at a
// higher revision and gets a higher token, also after a leader change.
// The etcd lease ID is not a token: IDs are not ordered by time (the
// lessor derives them from the member and a random or client-chosen
// value) and one ID may carry many keys.
//
// It returns an error wrapping lease.ErrNotAcquired when another lease
// holds the key (an answer from etcd; the granted etcd lease is revoked
// in the background), lease.ErrConfig for a TTL or options the lease
// cannot keep (also when etcd grants fewer seconds than ttl needs, or
// when base + revision would exceed 2^63−1: a token never wraps),
// lease.ErrInvalidResource for an empty name, one containing '{' or
// '}' (the names the Redis lease refuses: one set of names on both), or
// one longer than lease.MaxResourceLen bytes,
// lease.ErrAcquireTooSlow when less than MinValidity (default TTL/2) of
// local validity was left when the reply came (the key is revoked first).
//
// Tokens never go back while the Client sees them: a successful acquire
// at a revision at or below one an earlier reply showed, or with a token
// at or below one this Client minted for resource or saw Advance raise
// it to (etcd went back to a snapshot, base key included), is revoked
// unused (never reported as acquired), reported as a regression
// (lease.EventCounterRegressed, Token and From the token revoked, To the
// highest token the Client could have seen minted, and an error log
// record) whatever Advance then finds, the base raised to To, and the
// acquire tried once more. With Options.HighWater, the first Acquire of
// each resource, and every one after such a rewind, first raises the
// base above the durable mark (one more round trip, see Advance). When ctx ends or a call
// times out after the grant, the etcd lease is revoked on a context of its
// own bounded by ReleaseTimeout, in the background (Acquire returns at
// once), and if etcd cannot be reached it expires by itself within the
// TTL, taking the lock key with it: nothing is left held. The lease's
// lifetime does not depend on ctx.
func (c *Client) Acquire(ctx context.Context, resource string, ttl time.Duration) (*Lease, error) {
	defer c.sync() // its events and records, also of a failure, before it returns
	if err := resourceError("acquire", resource); err != nil {
		return nil, err
	}
	op := acquireOp(resource)
	tm, err := c.timing(ttl)
	if err != nil {
		return nil, &opError{op: op, err: err}
	}
	if err := c.closed(op); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, &opError{op: op, err: err} // nothing sent
	}
	l, rewound, err := c.acquire(ctx, op, resource, tm)
	if rewound {
		// The base was raised above every token this Client saw; once more.
		l, rewound, err = c.acquire(ctx, op, resource, tm)
		if rewound && err == nil {
			err = &opError{op: op, err: fmt.Errorf("%w: etcd went back again while raising the base", lease.ErrNotAcquired)}
		}
	}
	return l, err
}

// acquire is one grant and acquire transaction. rewound reports that
// etcd's revision was found below one this Client had seen before the
// grant was sent: the acquisition was revoked, the base raised, and the
// caller tries once more.
func (c *Client) acquire(ctx context.Context, op, resource string, tm timing) (_ *Lease, rewound bool, _ error) {
	if hw := c.opts.HighWater; hw != nil {
		if _, done := c.highWater.Load(resource); !done {
			mark, err := hw(ctx, resource)
			if err != nil {
				return nil, false, &opError{op: op, err: fmt.Errorf("%w: Options.HighWater: %w", lease.ErrConfig, err)}
			}
			if _, err := c.Advance(ctx, resource, mark); err != nil {
				return nil, false, &opError{op: op, err: fmt.Errorf("raising the base above the high-water mark %d: %w", mark, unwrapOp(err))}
			}
			c.highWater.Store(resource, struct{}{})
		}
	}
	lockKey, baseKey := c.Keys(resource)
	seen := c.maxRev.Load()
	tries := c.tries()
	var (
		g    *clientv3.LeaseGrantResponse
		send time.Time
		err  error
	)
	for try := 1; ; try++ {
		send = time.Now()
		gctx, cancel := context.WithTimeout(ctx, tm.callTimeout)
		g, err = c.cli.Grant(gctx, tm.grantSeconds)
		timedOut := gctx.Err() != nil
		cancel()
		if err == nil {
			break
		}
		// A lease granted without a reply carries no key and expires.
		if !timedOut || try >= tries || ended(ctx) || c.cli.Ctx().Err() != nil {
			return nil, false, c.failed(op, ctx, gctx, "grant", tm.callTimeout, err)
		}
	}
	id := g.ID
	if err := shortGrant(g.TTL, tm); err != nil {
		// The local deadline is computed from the TTL: it must never
		// outlast what the server grants.
		c.revoke(ctx, id, tm)
		return nil, false, &opError{op: op, err: err}
	}
	if c.afterGrant != nil {
		c.afterGrant(id)
	}
	owner := newOwner()
	var resp *clientv3.TxnResponse
	for try := 1; ; try++ {
		tctx, cancel := context.WithTimeout(ctx, tm.callTimeout)
		c.acquires.Add(1)
		resp, err = c.cli.Txn(tctx).
			If(clientv3.Compare(clientv3.CreateRevision(lockKey), "=", 0)).
			Then(clientv3.OpPut(lockKey, owner, clientv3.WithLease(id)), clientv3.OpGet(baseKey)).
			Else(clientv3.OpGet(lockKey), clientv3.OpGet(baseKey)).
			Commit()
		timedOut := tctx.Err() != nil
		cancel()
		if err == nil {
			break
		}
		if errors.Is(err, rpctypes.ErrLeaseNotFound) {
			c.revoke(ctx, id, tm)
			// The grant expired before the transaction ran: the
			// transaction wrote nothing (etcd refuses a put with a lease
			// it does not have).
			return nil, false, &opError{op: op, err: fmt.Errorf("%w: etcd lease expired before the lock was taken", lease.ErrAcquireTooSlow)}
		}
		if !timedOut || try >= tries || ended(ctx) || c.cli.Ctx().Err() != nil {
			c.revoke(ctx, id, tm)
			return nil, false, c.failed(op, ctx, tctx, "acquire", tm.callTimeout, err)
		}
	}
	rev := resp.Header.Revision
	if !resp.Succeeded {
		if kvs := resp.Responses[0].GetResponseRange().GetKvs(); len(kvs) == 1 && kvs[0].Lease == int64(id) {
			// An earlier try of this transaction committed and its
			// reply was lost: the key is ours, created at its create
			// revision. The base read now is at least the one that
			// try read (the base only goes up), so every earlier
			// holder's token is below this one and every later
			// holder's, created at a higher revision, above it.
			c.sawRev(rev)
			resp.Succeeded, rev = true, kvs[0].CreateRevision
		}
	}
	if !resp.Succeeded {
		c.revoke(ctx, id, tm)
		c.sawRev(rev)
		holder := ""
		if kvs := resp.Responses[0].GetResponseRange().GetKvs(); len(kvs) == 1 {
			holder = fmt.Sprintf(" (held since revision %d)", kvs[0].CreateRevision)
		}
		return nil, false, &opError{op: op, err: fmt.Errorf("%w%s", lease.ErrNotAcquired, holder)}
	}
	base, err := baseOf(resp.Responses[1].GetResponseRange())
	if err != nil {
		c.revoke(ctx, id, tm)
		return nil, false, &opError{op: op, err: fmt.Errorf("%w: %v", lease.ErrConfig, err)}
	}
	token, err := tokenOf(baseKey, base, rev)
	if err != nil {
		c.revoke(ctx, id, tm)
		return nil, false, &opError{op: op, err: err}
	}
	minted := c.tokens.Get(resource)
	floor := fence.Token(c.floorRev.Load())
	if rev <= seen || token <= minted || token <= floor {
		// A put raises the revision, and etcd's reads and writes are
		// linearizable: a revision at or below one seen before the grant
		// was sent means the store went back (a snapshot restore), and
		// this token may have been handed out already. A token at or
		// below one this Client minted or saw for resource means the
		// same, also when the revision has caught up but the base was
		// rewound with it. A token at or below floorRev, the highest
		// revision seen before a rewind caught earlier, may have been
		// minted before that rewind, for this resource too.
		c.revoke(ctx, id, tm)
		atLeast := max(minted, floor)
		if base <= math.MaxInt64-seen {
			atLeast = max(atLeast, fence.Token(base+seen))
		}
		return nil, true, c.rewound(ctx, op, resource, token, atLeast, rev)
	}
	c.sawRev(rev)
	c.tokens.Raise(resource, token)
	if left := tm.ttl - tm.margin - time.Since(send); left < tm.minValidity {
		c.revoke(ctx, id, tm)
		return nil, false, &opError{op: op, err: fmt.Errorf("%w: %v of validity left", lease.ErrAcquireTooSlow, left.Round(time.Millisecond))}
	}
	l := c.start(ctx, resource, lockKey, id, rev, token, send, tm)
	c.log(ctx, slog.LevelDebug, "lease acquired", resource, token, "etcd_lease", int64(id))
	c.emit(ctx, lease.Event{Kind: lease.EventAcquired, Resource: resource, Token: token})
	return l, false, nil
}

// shortGrant returns an error wrapping lease.ErrConfig when etcd granted
// fewer seconds than the TTL needs: the lease's local deadline, computed
// from the TTL, would outlast the etcd lease, and another holder could
// take the resource while this one's context is still valid.
func shortGrant(granted int64, tm timing) error {
	if granted >= tm.grantSeconds {
		return nil
	}
	return fmt.Errorf("%w: etcd granted a lease of %ds for TTL %v (%ds): the lease cannot keep a TTL the server shortens", lease.ErrConfig, granted, tm.ttl, tm.grantSeconds)
}

// tokenOf returns base + rev, the token minted at revision rev, or an
// error wrapping lease.ErrConfig when it exceeds math.MaxInt64 (a base
// raised near the top by Advance or HighWater): a token is never wrapped
// below 1 or below an earlier one, as the Redis lease's counter refuses
// to overflow.
func tokenOf(baseKey string, base, rev int64) (fence.Token, error) {
	if base > math.MaxInt64-rev {
		return 0, fmt.Errorf("%w: token overflow: base %d (key %q) + revision %d exceeds 2^63-1", lease.ErrConfig, base, baseKey, rev)
	}
	return fence.Token(base + rev), nil
}

// sawRev records rev, the revision of a linearizable reply.
func (c *Client) sawRev(rev int64) {
	for {
		old := c.maxRev.Load()
		if rev <= old || c.maxRev.CompareAndSwap(old, rev) {
			return
		}
	}
}

// rewound handles a revision found at rev, below one this Client had
// seen, or a token at or below one it had minted for resource (token, the
// one acquire got and revoked): it reports the regression
// (lease.EventCounterRegressed with Token and From token, To atLeast, an
// error record), whatever Advance finds next (a token equal to the one
// remembered has brought base + revision back to it), raises resource's
// base above atLeast (the higher of base + the highest revision seen and
// the highest token of resource this Client minted, so above every token
// of resource this Client saw minted), forgets which
// resources had their HighWater mark applied, so that every resource asks
// again, keeps the highest revision seen so far in floorRev (every later
// token, of any resource, must exceed it) and starts tracking revisions
// from rev. It returns nil, or the
// error of Advance.
func (c *Client) rewound(ctx context.Context, op, resource string, token, atLeast fence.Token, rev int64) error {
	c.regressed(ctx, "etcd revision or base went back (a snapshot restore without --bump-revision?): the acquisition was revoked unused and the base raised to the highest token this Client saw",
		resource, token, atLeast, token, "revision", rev)
	c.highWater.Clear()
	for {
		old, f := c.maxRev.Load(), c.floorRev.Load()
		if old <= f || c.floorRev.CompareAndSwap(f, old) {
			break
		}
	}
	c.maxRev.Store(rev)
	if _, _, err := c.advance(ctx, resource, atLeast, false); err != nil {
		return &opError{op: op, err: fmt.Errorf("etcd revision went back to %d; raising the base: %w", rev, unwrapOp(err))}
	}
	return nil
}

// baseOf parses the base key's value from r: 0 when absent.
func baseOf(r *etcdserverpb.RangeResponse) (int64, error) {
	kvs := r.GetKvs()
	if len(kvs) == 0 {
		return 0, nil
	}
	b, err := strconv.ParseInt(string(kvs[0].Value), 10, 64)
	if err != nil || b < 0 {
		return 0, fmt.Errorf("base key %q holds %q, not a non-negative integer", kvs[0].Key, kvs[0].Value)
	}
	return b, nil
}

// revoke revokes the etcd lease id in the background, bounded by
// ReleaseTimeout and not by ctx (which may have ended: the cleanup must
// still run, and must not hang when etcd is unreachable; the lease then
// expires by itself).
func (c *Client) revoke(ctx context.Context, id clientv3.LeaseID, tm timing) {
	vals := context.WithoutCancel(ctx)
	go func() {
		rctx, cancel := context.WithTimeout(vals, tm.releaseTimeout)
		defer cancel()
		c.releases.Add(1)
		if _, err := c.cli.Revoke(rctx, id); err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
			c.log(vals, slog.LevelDebug, "etcd lease revoke failed; it expires by itself", "", 0, "etcd_lease", int64(id), "err", err)
		}
	}()
}

// newOwner returns 128 random bits in hex, stored as the lock key's value
// so that an operator can tell holders apart; ownership itself is the
// key's etcd lease and create revision.
func newOwner() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// AcquireWait takes the lease like [Client.Acquire], but while another
// lease holds it, it watches the lock key from the revision etcd answered
// at and tries again when the key is deleted (or after HeartbeatInterval,
// should the watch miss it), until it succeeds or ctx ends. Every attempt
// grants a fresh etcd lease, so a waiter never takes the lock with a
// lease that expired while it waited (etcd would refuse the put anyway).
// It returns at once on lease.ErrConfig and lease.ErrInvalidResource; when
// ctx ends, an error matching ctx.Err() that also wraps the last attempt's
// error (lease.ErrNotAcquired only if etcd last said the lease was held).
func (c *Client) AcquireWait(ctx context.Context, resource string, ttl time.Duration) (*Lease, error) {
	tm, err := c.timing(ttl)
	if err != nil {
		return nil, &opError{op: acquireOp(resource), err: err}
	}
	lockKey, _ := c.Keys(resource)
	var last error
	for {
		l, err := c.Acquire(ctx, resource, tm.ttl)
		switch {
		case err == nil:
			return l, nil
		case errors.Is(err, lease.ErrConfig), errors.Is(err, lease.ErrInvalidResource), errors.Is(err, lease.ErrClientClosed) && ctx.Err() == nil:
			// No retry can fix these; a closed client cannot reopen.
			return nil, err
		}
		if ctx.Err() != nil {
			if last == nil {
				last = err
			}
			return nil, waitEnded(ctx, resource, last)
		}
		last = err
		wait := max(tm.interval, tm.callTimeout)
		if errors.Is(err, lease.ErrNotAcquired) {
			c.waitDelete(ctx, lockKey, wait)
		} else {
			sleep(ctx, tm.callTimeout) // etcd failed: do not spin
		}
	}
}

// waitEnded is AcquireWait's error when ctx ends, worded as the Redis
// lease's (trial rt4 F9): given last, the last attempt's error,
//
//	lease: acquire "x": not acquired before the context ended: context deadline exceeded (last attempt: held by another owner (held since revision 7))
//	lease: acquire "x": no answer from etcd before the context ended: context deadline exceeded (last attempt: etcd acquire call timed out after 500ms)
//
// It matches ctx.Err() and last, so lease.ErrNotAcquired only when etcd
// last said another lease holds the key: "someone else holds it" is never
// inferred from an outage.
func waitEnded(ctx context.Context, resource string, last error) error {
	detail := trimmed{unwrapOp(last)}
	if errors.Is(last, lease.ErrNotAcquired) {
		held := "held by another owner" + strings.TrimPrefix(detail.Error(), "not acquired")
		return &opError{op: acquireOp(resource), err: fmt.Errorf("not acquired before the context ended: %w (last attempt: %s)%w", ctx.Err(), held, silent{last})}
	}
	why := "etcd call failed"
	switch {
	case errors.Is(last, lease.ErrAcquireTooSlow):
		why = "no reply in time"
	case errors.Is(last, ErrClientClosed):
		why = "etcd client closed"
	case errors.Is(last, rpctypes.ErrNoSpace):
		why = "etcd's database full"
	case errors.Is(last, ErrEtcdTimeout), errors.Is(last, context.DeadlineExceeded), errors.Is(last, context.Canceled):
		why = "no answer from etcd"
	}
	return &opError{op: acquireOp(resource), err: fmt.Errorf("%s before the context ended: %w (last attempt: %w)", why, ctx.Err(), detail)}
}

// trimmed prints an error without its leading "lease: " (inside another
// lease error's text) and unwraps to it.
type trimmed struct{ err error }

func (t trimmed) Error() string { return trimPrefix(t.err.Error()) }
func (t trimmed) Unwrap() error { return t.err }

// silent wraps an error without printing it.
type silent struct{ err error }

func (s silent) Error() string { return "" }
func (s silent) Unwrap() error { return s.err }

func unwrapOp(err error) error {
	var oe *opError
	if errors.As(err, &oe) {
		return oe.err
	}
	return err
}

// waitDelete returns when lockKey is deleted, after d, or when ctx ends.
func (c *Client) waitDelete(ctx context.Context, lockKey string, d time.Duration) {
	wctx, cancel := context.WithTimeout(clientv3.WithRequireLeader(ctx), d)
	defer cancel()
	g, err := c.cli.Get(wctx, lockKey)
	if err != nil {
		<-wctx.Done()
		return
	}
	if len(g.Kvs) == 0 {
		return
	}
	if c.beforeWatch != nil {
		c.beforeWatch(g.Header.Revision + 1)
	}
	// A watch from a compacted revision ends at once with ErrCompacted
	// (etcd-io/etcd#9715: concurrency.Mutex returned it to the caller
	// and left its key behind); here the caller tries to acquire again,
	// and an attempt that finds the lock held leaves nothing.
	for wr := range c.cli.Watch(wctx, lockKey, clientv3.WithRev(g.Header.Revision+1)) {
		if wr.Err() != nil {
			return
		}
		for _, ev := range wr.Events {
			if ev.Type == clientv3.EventTypeDelete {
				return
			}
		}
	}
}

// tries is how many times one acquire sends its grant, or its
// transaction, when the call timed out: once per endpoint, at most three.
// The etcd client sends each call to the next endpoint in turn, so with
// one member stalled (its connection open, nothing answered) the next try
// goes to another; with a fixed sequence of calls per attempt, every
// attempt's same call would meet the stalled member (trial rt4 F8).
func (c *Client) tries() int {
	return max(1, min(3, len(c.cli.Endpoints())))
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// Advance makes the next Acquire of resource mint a token above atLeast,
// as the Redis lease's Advance raises its counter: if base + the current
// revision (the value the next Acquire's token exceeds) is below atLeast,
// it raises the base key (a transaction comparing the base's mod
// revision, so concurrent calls never lower it), reports the regression
// (Observer EventCounterRegressed From that value To atLeast, an error
// log record) and returns atLeast; else it returns that value. Tokens can
// only regress when a snapshot restore rewound etcd's revision (etcdutl
// snapshot restore without --bump-revision and --mark-compacted):
// [Lease.Observe] calls it with the stored token of a *fence.StaleError,
// and Acquire after it saw the revision go back or with Options.HighWater.
// Bounded by ctx and ReleaseTimeout.
func (c *Client) Advance(ctx context.Context, resource string, atLeast fence.Token) (fence.Token, error) {
	after, _, err := c.advance(ctx, resource, atLeast, true)
	return after, err
}

// advance is Advance, also reporting whether the base was raised (tokens
// had regressed). With report false it reports no regression: its caller
// (rewound) has reported it.
func (c *Client) advance(ctx context.Context, resource string, atLeast fence.Token, report bool) (_ fence.Token, raised bool, _ error) {
	if err := resourceError("advance", resource); err != nil {
		return 0, false, err
	}
	op := fmt.Sprintf("advance %q", resource)
	tm, err := c.timing(0)
	if err != nil {
		return 0, false, &opError{op: op, err: err}
	}
	_, baseKey := c.Keys(resource)
	actx, cancel := context.WithTimeout(ctx, tm.releaseTimeout)
	defer cancel()
	for {
		g, err := c.cli.Get(actx, baseKey)
		if err != nil {
			return 0, false, c.failed(op, ctx, actx, "advance", tm.releaseTimeout, err)
		}
		base, err := baseOf((*etcdserverpb.RangeResponse)(g))
		if err != nil {
			return 0, false, &opError{op: op, err: fmt.Errorf("%w: %v", lease.ErrConfig, err)}
		}
		rev := g.Header.Revision
		c.sawRev(rev)
		cur := fence.Token(math.MaxInt64) // the next Acquire refuses to overflow
		if base <= math.MaxInt64-rev {
			cur = fence.Token(base + rev) // the next token exceeds it
		}
		if cur >= atLeast {
			c.tokens.Raise(resource, cur)
			return cur, false, nil
		}
		var modRev int64
		if len(g.Kvs) == 1 {
			modRev = g.Kvs[0].ModRevision
		}
		nb := int64(atLeast) - rev
		t, err := c.cli.Txn(actx).
			If(clientv3.Compare(clientv3.ModRevision(baseKey), "=", modRev)).
			Then(clientv3.OpPut(baseKey, strconv.FormatInt(nb, 10))).
			Commit()
		if err != nil {
			return 0, false, c.failed(op, ctx, actx, "advance", tm.releaseTimeout, err)
		}
		if !t.Succeeded {
			continue // another Advance raised it meanwhile: read again
		}
		c.tokens.Raise(resource, atLeast)
		if report {
			c.regressed(ctx, "lease tokens were below a stored or earlier token (etcd's revision rewound by a snapshot restore without --bump-revision, or tokens from another coordinator or key prefix, as after a switch from Redis); base raised",
				resource, cur, atLeast, 0)
		}
		return atLeast, true, nil
	}
}

// regressed reports tokens of resource found below one already used
// (lease.EventCounterRegressed From from To to, Token minted: the token
// Acquire got and revoked, or 0) and records msg with args at error
// level, also without Options.Logger (through slog.Default): tokens going
// back is what an operator must see.
func (c *Client) regressed(ctx context.Context, msg, resource string, from, to, minted fence.Token, args ...any) {
	c.emit(ctx, lease.Event{Kind: lease.EventCounterRegressed, Resource: resource, Token: minted, From: from, To: to})
	lg := c.opts.Logger
	if lg == nil {
		lg = slog.Default()
	}
	a := []any{"resource", resource}
	if minted != 0 {
		a = append(a, "minted", int64(minted))
	}
	a = append(a, "from", int64(from), "to", int64(to))
	c.record(ctx, lg, slog.LevelError, msg, append(a, args...)...)
	c.notes.Sync()
}

func (c *Client) log(ctx context.Context, level slog.Level, msg, resource string, token fence.Token, args ...any) {
	lg := c.opts.Logger
	if lg == nil {
		return
	}
	switch {
	case resource != "" && token != 0:
		args = append([]any{"resource", resource, "token", int64(token)}, args...)
	case resource != "":
		args = append([]any{"resource", resource}, args...) // before a token: no token=0
	}
	c.record(ctx, lg, level, msg, args...)
}

// record queues a record for lg's handler, timed now, to be written in
// order with the Client's events (a handler that blocks holds up only
// them, see lease.Observer).
func (c *Client) record(ctx context.Context, lg *slog.Logger, level slog.Level, msg string, args ...any) {
	if !lg.Enabled(ctx, level) {
		return
	}
	r := slog.NewRecord(time.Now(), level, msg, 0)
	r.Add(args...)
	h, vals := lg.Handler(), context.WithoutCancel(ctx)
	c.notes.Post(func() { _ = h.Handle(vals, r) }, notify.Record(msg, args))
}

// emit queues e for Observer.Event, if set, and then for the deprecated
// On* field of its kind, if set, as the Redis lease calls them: code that
// alerts on OnLost or OnCounterRegressed keeps working when it switches
// coordinator (trial t26 F8).
func (c *Client) emit(ctx context.Context, e lease.Event) {
	o := c.opts.Observer
	if o == nil {
		return
	}
	if o.Event != nil {
		f, vals := o.Event, context.WithoutCancel(ctx)
		c.notes.Post(func() { f(vals, e) }, notify.About{Hook: "Observer.Event", Event: string(e.Kind), Resource: e.Resource, Token: int64(e.Token)})
	}
	if f := onHook(o, e); f != nil {
		c.notes.Post(f, notify.About{Hook: "Observer.On" + onName(e.Kind), Event: string(e.Kind), Resource: e.Resource, Token: int64(e.Token)})
	}
}

// sync waits, when the Client has a Logger or an Observer, for the
// callbacks queued so far to run: at most notify.SlowAfter, not at all
// while one is already slow (see lease.Observer).
func (c *Client) sync() {
	if c.opts.Logger != nil || c.opts.Observer != nil {
		c.notes.Sync()
	}
}

// Stats counts what a Client has sent to etcd since New, with the fields
// of the Redis lease's Stats: Acquires counts acquire transactions
// (including those answered "held"; a grant that failed sends none),
// Renewals lease keep-alive requests (by the heartbeat and Renew),
// Releases lease revokes (by Release and by the cleanup of a failed
// Acquire).
func (c *Client) Stats() lease.Stats {
	return lease.Stats{Acquires: c.acquires.Load(), Renewals: c.renewals.Load(), Releases: c.releases.Load(),
		SlowCallbacks: c.notes.Slow(), DroppedCallbacks: c.notes.Dropped(), PanickedCallbacks: c.notes.Panicked()}
}
