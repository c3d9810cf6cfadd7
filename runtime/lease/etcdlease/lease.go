package etcdlease

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
)

// Lease is one acquisition of a resource, created by [Client.Acquire]: an
// etcd lease of its own with the lock key attached. It implements
// lease.Held with the Redis lease's meaning for every method. Its methods
// are safe for concurrent use.
type Lease struct {
	c        *Client
	resource string
	lockKey  string
	id       clientv3.LeaseID
	rev      int64 // the lock key's create revision
	token    fence.Token
	tm       timing

	ctx    context.Context
	cancel context.CancelCauseFunc
	vals   context.Context // values of Acquire's ctx, for logs and events

	mu       sync.Mutex
	ended    bool
	lastSend time.Time // send time of the last successful grant or renewal
	lastErr  error
	failures int
	deadline *time.Timer

	stop    chan struct{} // closed to stop the heartbeat
	stopped chan struct{} // closed when the heartbeat goroutine exits
	once    sync.Once

	relMu      sync.Mutex
	released   bool
	revokeSent bool  // Release has sent a revoke
	lossBefore int64 // the watch's loss revision when it first did
	// releasing is set (under watchMu) when Release is about to send its
	// first revoke: from then on the watch records a change of the key
	// (lossErr) without losing the lease, since the revoke's own delete
	// is one, and Release decides from its answer; a Renew returns
	// lease.ErrReleased.
	releasing atomic.Bool

	// The watch of the lock key (see watchKey). lossRev is the revision
	// of the first change that took the key from this lease (a delete,
	// or a put with another create revision or etcd lease), 0 until one
	// is seen; watched is closed when it is set or the watch stops.
	watchStop context.CancelFunc
	watchMu   sync.Mutex
	lossRev   int64
	// lossAt is when the watch saw that change, on the monotonic clock;
	// lossDeleted whether it was a delete.
	lossAt      time.Time
	lossDeleted bool
	// lossErr is the loss that change makes (see sawLoss).
	lossErr *lease.LostError
	watched chan struct{}

	// stopClosed stops the loss of the lease when the *clientv3.Client
	// is closed (see clientClosed).
	stopClosed func() bool
}

func (c *Client) start(ctx context.Context, resource, lockKey string, id clientv3.LeaseID, rev int64, token fence.Token, send time.Time, tm timing) *Lease {
	l := &Lease{
		c: c, resource: resource, lockKey: lockKey, id: id, rev: rev, token: token, tm: tm,
		vals: context.WithoutCancel(ctx), lastSend: send,
		stop: make(chan struct{}), stopped: make(chan struct{}),
	}
	// The lease outlives the ctx given to Acquire, as an etcd Session does.
	l.ctx, l.cancel = context.WithCancelCause(context.Background())
	var wctx context.Context
	wctx, l.watchStop = context.WithCancel(context.Background())
	l.watched = make(chan struct{})
	go l.watchKey(wctx)
	c.ka.hold(1)
	l.mu.Lock()
	l.deadline = time.AfterFunc(time.Until(send.Add(tm.ttl-tm.margin)), l.onDeadline)
	l.mu.Unlock()
	if tm.interval > 0 {
		go l.heartbeat()
	} else {
		close(l.stopped)
	}
	l.mu.Lock()
	l.stopClosed = context.AfterFunc(c.cli.Ctx(), l.clientClosed)
	l.mu.Unlock()
	return l
}

// clientClosed loses the lease at once when its *clientv3.Client is
// closed: no renewal or release can be sent any more, which is known at
// once, so the worker's context ends now rather than after
// MaxRenewFailures renewal periods (trial t26 F9). The etcd lease and
// its lock key stay on the server until its TTL runs out.
func (l *Lease) clientClosed() {
	_ = l.lose(lease.ReasonRenewFailed, &opError{op: l.op("renew"), err: ErrClientClosed})
}

// Token returns the fencing token minted for this acquisition.
func (l *Lease) Token() fence.Token { return l.token }

// Resource returns the resource name passed to Acquire.
func (l *Lease) Resource() string { return l.resource }

// TTL returns the lease's time-to-live as asked for (the etcd lease is
// granted for it rounded up to whole seconds).
func (l *Lease) TTL() time.Duration { return l.tm.ttl }

// ID returns the etcd lease ID the lock key is attached to. It is not a
// fencing token (see [Client.Acquire]).
func (l *Lease) ID() clientv3.LeaseID { return l.id }

// Context returns the lease context, not derived from Acquire's ctx and
// cancelled with a *lease.LostError cause when the lease is lost (etcd
// answered a renewal with "lease not found"; the watch of the lock key saw
// it deleted, or put with another create revision or etcd lease, both
// lease.ReasonNotOwner with lease.ErrNotOwner, or lease.ReasonDeadline
// when the local deadline had passed, as the etcd lease's expiry on the
// server deletes the key; MaxRenewFailures renewals
// in a row failed; or the local deadline passed: send time of the last
// successful grant or renewal + TTL − SafetyMargin, on the monotonic
// clock; or its *clientv3.Client was closed: lease.ReasonRenewFailed
// wrapping ErrClientClosed, at once; or by Release, when its revoke finds
// the key taken before it) or with lease.ErrReleased by Release.
func (l *Lease) Context() context.Context { return l.ctx }

// Done is shorthand for l.Context().Done().
func (l *Lease) Done() <-chan struct{} { return l.ctx.Done() }

// Err returns nil while the lease is valid, else the cause of its end (a
// *lease.LostError or lease.ErrReleased). It reads the clock itself, so a
// lease whose local deadline passed while the process was paused is lost
// here even before its timer has run.
func (l *Lease) Err() error {
	if l.ctx.Err() == nil && !l.expire() {
		return nil
	}
	return context.Cause(l.ctx)
}

// Remaining returns the local validity left, 0 once the lease has ended.
// It is local knowledge, not what etcd holds; only the token, checked by
// the database, makes a write safe.
func (l *Lease) Remaining() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return 0
	}
	return max(l.untilDeadline(), 0)
}

// pastDeadline reports whether the local deadline has passed.
func (l *Lease) pastDeadline() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.untilDeadline() <= 0
}

// untilDeadline is the time left until the local deadline, send time of
// the last successful grant or renewal + TTL − SafetyMargin (negative
// once it has passed); l.mu held.
func (l *Lease) untilDeadline() time.Duration {
	return time.Until(l.lastSend.Add(l.tm.ttl - l.tm.margin))
}

// expire loses the lease if its local deadline has passed; it reports
// whether the lease has ended.
func (l *Lease) expire() bool {
	l.mu.Lock()
	if l.ended {
		l.mu.Unlock()
		return true
	}
	if l.untilDeadline() > 0 {
		l.mu.Unlock()
		return false
	}
	err := l.lastErr
	l.mu.Unlock()
	_ = l.lose(lease.ReasonDeadline, err)
	return true
}

func (l *Lease) onDeadline() {
	if l.expire() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ended {
		l.deadline.Reset(l.untilDeadline())
	}
}

// heartbeat renews the etcd lease every HeartbeatInterval (from send to
// send) until stopped or the lease ends.
func (l *Lease) heartbeat() {
	defer close(l.stopped)
	t := time.NewTimer(l.tm.interval)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-l.ctx.Done():
			return
		case <-t.C:
		}
		sent := time.Now()
		err := l.renew(context.Background(), true)
		if err != nil && l.Err() != nil {
			return
		}
		// Every HeartbeatInterval from send to send: a renewal that
		// waited its whole bound is followed by the next at once.
		t.Reset(max(l.tm.interval-time.Since(sent), 0))
	}
}

// heartbeatBound is how long the heartbeat waits for a renewal, as on the
// Redis lease: until CallTimeout before the local deadline, which leaves
// time for one more attempt, but at most HeartbeatInterval and at least
// CallTimeout. So an etcd slower than CallTimeout (a loaded machine, a
// leader election) but within what the lease has left keeps it; the
// local deadline ends it regardless.
func (l *Lease) heartbeatBound() time.Duration {
	l.mu.Lock()
	left := l.untilDeadline()
	l.mu.Unlock()
	return max(min(left-l.tm.callTimeout, l.tm.interval), l.tm.callTimeout)
}

// Renew extends the etcd lease to its TTL from now with one keep-alive
// request and its response on the Client's shared LeaseKeepAlive stream,
// bounded by CallTimeout, and moves the local deadline. If etcd
// answers that the lease is gone it loses the lease at once and returns
// the *lease.LostError (errors.Is lease.ErrNotOwner). Other failures leave
// the lease as it was and are returned.
func (l *Lease) Renew(ctx context.Context) error {
	if err := l.Err(); err != nil {
		return err
	}
	if l.releasing.Load() {
		return lease.ErrReleased // Release's revoke decides the cause
	}
	return l.renew(ctx, false)
}

func (l *Lease) renew(ctx context.Context, counted bool) error {
	timeout := l.tm.callTimeout
	if counted {
		timeout = l.heartbeatBound()
	}
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	send := time.Now()
	l.c.renewals.Add(1)
	ttl, err := l.c.ka.renew(callCtx, l.id)
	if err == nil && ttl <= 0 {
		err = rpctypes.ErrLeaseNotFound
	}
	if err != nil {
		if e := l.Err(); e != nil {
			// The lease ended meanwhile (a Release racing this renewal
			// closed the stream or revoked the etcd lease, or it was
			// lost): its cause, as Renew reports after the end.
			return e
		}
		if l.releasing.Load() {
			// A Release's revoke in flight or done: "lease not found"
			// is its own doing, and its answer decides the cause.
			return lease.ErrReleased
		}
	}
	switch {
	case err == nil:
		l.mu.Lock()
		if l.ended {
			l.mu.Unlock()
			return l.Err()
		}
		if send.After(l.lastSend) {
			l.lastSend, l.lastErr = send, nil
		}
		l.failures = 0
		l.mu.Unlock()
		l.c.log(l.vals, slog.LevelDebug, "lease renewed", l.resource, l.token)
		l.c.emit(l.vals, lease.Event{Kind: lease.EventRenewed, Resource: l.resource, Token: l.token})
		return nil
	case errors.Is(err, rpctypes.ErrLeaseNotFound):
		if l.pastDeadline() {
			// A holder paused past its TTL: the expiry is what happened.
			return l.lose(lease.ReasonDeadline, fmt.Errorf("etcd lease %x expired on the server, and the lock key %q with it", int64(l.id), l.lockKey))
		}
		return l.lose(lease.ReasonNotOwner, fmt.Errorf("%w: etcd lease %x not found (revoked, or expired on the server), and the lock key %q with it", lease.ErrNotOwner, int64(l.id), l.lockKey))
	}
	err = l.c.failed(l.op("renew"), ctx, callCtx, "renew", timeout, err)
	if !counted {
		return err
	}
	select {
	case <-l.stop:
		return err // our own shutdown, not a failure
	default:
	}
	l.mu.Lock()
	l.failures++
	n := l.failures
	l.lastErr = err
	l.mu.Unlock()
	if n >= l.tm.maxFailures {
		return l.lose(lease.ReasonRenewFailed, err)
	}
	l.c.log(l.vals, slog.LevelWarn, "lease renewal failed", l.resource, l.token, "consecutive", n, "err", err)
	l.c.emit(l.vals, lease.Event{Kind: lease.EventRenewFailed, Resource: l.resource, Token: l.token, Err: err, Consecutive: n})
	return err
}

// lose cancels the lease context with a *lease.LostError and returns it,
// or the earlier cause if the lease had ended.
func (l *Lease) lose(reason lease.Reason, err error) error {
	return l.loseWith(&lease.LostError{Resource: l.resource, Token: l.token, Reason: reason, Err: err})
}

// loseWith is lose with the *lease.LostError made by the caller.
func (l *Lease) loseWith(lost *lease.LostError) error {
	reason, err := lost.Reason, lost.Err
	l.mu.Lock()
	if l.ended {
		l.mu.Unlock()
		return context.Cause(l.ctx)
	}
	l.ended = true
	l.deadline.Stop()
	if l.stopClosed != nil {
		l.stopClosed()
	}
	l.c.ka.hold(-1)
	l.watchStop()
	l.cancel(lost)
	l.mu.Unlock()
	args := []any{"reason", string(reason)}
	if err != nil {
		args = append(args, "err", err)
	}
	l.c.log(l.vals, slog.LevelWarn, "lease lost", l.resource, l.token, args...)
	l.c.emit(l.vals, lease.Event{Kind: lease.EventLost, Resource: l.resource, Token: l.token, Err: lost})
	return lost
}

func (l *Lease) end(cause error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return
	}
	l.ended = true
	l.deadline.Stop()
	if l.stopClosed != nil {
		l.stopClosed()
	}
	l.c.ka.hold(-1)
	l.cancel(cause)
}

// stopHeartbeat stops renewals; the local deadline still ends the lease.
func (l *Lease) stopHeartbeat() { l.once.Do(func() { close(l.stop) }) }

// Release ends the lease: it stops the heartbeat and waits for a renewal
// in flight (bounded by ctx), then, if the lease is still valid, revokes
// the etcd lease with one LeaseRevoke round trip, bounded by ctx and
// ReleaseTimeout, and ends the lease context with the answer: with
// lease.ErrReleased when the revoke deleted the lock key, with a
// *lease.LostError saying what happened to the key when it had been taken
// from the lease before (as the watch would have said, had it told
// first), so that context.Cause tells a released lease from one lost
// before its Release on both coordinators (a README-only trial, F2). The
// context stays live during that round trip; a Renew meanwhile returns
// lease.ErrReleased. A revoke that timed out (its member stalled,
// partitioned or killed mid-call, its connection left open) is sent
// again to the next endpoint, once per endpoint and at most three times
// in all, each send bounded by ctx and ReleaseTimeout (trial x26 F4). The
// revoke deletes the lock key in the same Raft entry, and only because
// the key is attached to this lease: it can never delete the key of
// another holder, who has a lease of its own. That makes the release
// owner-checked by the server, in one write, where a compare-and-delete
// transaction followed by a revoke takes two.
//
// A lease already lost (its context cancelled with a *lease.LostError,
// its local deadline passed included) is not revoked: its etcd lease
// may have expired on the server, and a revoke of a lease etcd no longer
// has fails, which the etcd client logs as a warning on every such
// Release (a README-only trial, F3). Release then deletes the lock key
// with one transaction only if it still has this lease's create revision
// and etcd lease, and leaves the etcd lease, kept alive no more, to
// expire by itself within its TTL.
//
// It returns nil when the lock key was deleted with this lease still
// attached, and an error wrapping lease.ErrNotHeld when the key had been
// taken from it (deleted, or put with another create revision or etcd
// lease, before the revoke's revision: the watch of the key decides,
// or, if it has not told within half of what is left of the bound, at
// most CallTimeout, one read of the key at the revision before the
// revoke; nothing of another holder's is deleted), or when etcd no longer
// had the lease and it could have expired: its local deadline had passed
// (the key went with the etcd lease, and another owner may hold the
// resource; nothing was deleted). A delete by
// hand that is the cluster's last write when the revoke commits has the
// revoke's revision and is taken for the revoke's own delete: nil. A
// revoke that etcd does not find before the lease could have expired on
// the server (within TTL of the last successful renewal's send, or after
// the watch saw the key deleted within that time) can only follow a
// revoke of this lease that landed, as a resend of a revoke whose reply
// was lost (by the etcd client or by Release), or an earlier Release
// that timed out: that is nil. A revoke by hand (etcdctl lease revoke)
// just before Release is taken for such a revoke; the next holder's
// higher token still fences this lease out. An etcd or network error is
// returned wrapped (a [*TimeoutError] when ReleaseTimeout cut it off;
// after resends, the text counts the revokes sent):
// the lease has still ended locally (lease.ErrReleased, unless it was
// lost), the etcd lease expires within the
// TTL with the key, and a later Release tries again. If ctx has already
// ended, nothing is sent and ctx's error is returned. Once a call returned
// nil or ErrNotHeld, later calls return nil without a round trip.
func (l *Lease) Release(ctx context.Context) error {
	defer l.c.sync() // its events and records before it returns
	l.relMu.Lock()
	defer l.relMu.Unlock()
	if l.released {
		return nil
	}
	l.stopHeartbeat()
	select {
	case <-l.stopped:
	case <-ctx.Done():
	}
	if err := ctx.Err(); err != nil {
		l.end(lease.ErrReleased)
		err = &opError{op: l.op("release"), err: err}
		l.c.log(ctx, slog.LevelWarn, "lease release not sent: context ended", l.resource, l.token, "err", err)
		return err
	}
	if err := l.c.closed(l.op("release")); err != nil {
		l.end(lease.ErrReleased)
		l.c.log(ctx, slog.LevelWarn, "lease release not sent: etcd client closed", l.resource, l.token, "err", err)
		return err
	}
	if !l.revokeSent {
		// A change of the key seen before the first revoke was sent is
		// another's; one seen after may be that revoke's own delete.
		var lost *lease.LostError
		l.revokeSent = true
		l.lossBefore, lost = l.beginRelease()
		if lost != nil {
			_ = l.loseWith(lost) // the watch's own call may not have run yet
		}
	}
	_ = l.Err() // a local deadline passed is a loss
	var lost *lease.LostError
	if errors.As(context.Cause(l.ctx), &lost) {
		return l.releaseLost(ctx)
	}
	before := l.lossBefore
	resp, call, err := l.revoke(ctx)
	defer call.cancel()
	rctx := call.ctx
	var (
		held  bool
		taken *lease.LostError
	)
	if err == nil {
		if before != 0 {
			taken = l.storedLoss()
		} else {
			held, taken = l.heldAt(rctx, resp.Header.Revision)
		}
	}
	if errors.Is(err, rpctypes.ErrLeaseNotFound) {
		err = nil
		switch {
		case before != 0:
			taken = l.storedLoss()
		case !l.revokedUnexpired():
			// Neither revoked by us nor within its TTL: it expired on the
			// server, past the local deadline, and the key with it.
			taken = &lease.LostError{Resource: l.resource, Token: l.token, Reason: lease.ReasonDeadline,
				Err: fmt.Errorf("its etcd lease %x expired on the server, and the lock key %q with it", int64(l.id), l.lockKey)}
		default:
			// The lease was valid when the revoke was sent (a local
			// deadline that passed since does not make this revoke's
			// landing any less ours).
			held = true
		}
	}
	if err != nil {
		if before != 0 {
			_ = l.loseWith(l.storedLoss())
		}
		l.end(lease.ErrReleased)
		err = l.c.failed(l.op("release"), ctx, rctx, "release", l.tm.releaseTimeout, err)
		if call.tries > 1 {
			err = &opError{op: l.op("release"), err: fmt.Errorf("%d revokes sent, each after the last timed out, to the next endpoint in turn; the last: %w", call.tries, unwrapOp(err))}
		}
		l.c.log(ctx, slog.LevelWarn, "lease release failed", l.resource, l.token, "err", err)
		return err
	}
	if taken != nil {
		_ = l.loseWith(taken)
	}
	l.end(lease.ErrReleased)
	return l.finishRelease(ctx, held)
}

// finishRelease records the definitive answer of a Release: held reports
// whether the lock key was deleted with this lease attached.
func (l *Lease) finishRelease(ctx context.Context, held bool) error {
	l.released = true
	l.watchStop()
	var err error
	if !held {
		err = &opError{op: l.op("release"), err: lease.ErrNotHeld}
	}
	l.c.log(ctx, slog.LevelDebug, "lease released", l.resource, l.token, "deleted", held)
	l.c.emit(ctx, lease.Event{Kind: lease.EventReleased, Resource: l.resource, Token: l.token, Err: err})
	return err
}

// releaseLost is Release of a lease already lost: one transaction that
// deletes the lock key only if it still has this lease's create revision
// and etcd lease (never a revoke, see Release), sent again to the next
// endpoint when it times out, as a revoke is.
func (l *Lease) releaseLost(ctx context.Context) error {
	var resp *clientv3.TxnResponse
	call, err := l.send(ctx, func(ctx context.Context) (err error) {
		resp, err = l.c.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(l.lockKey), "=", l.rev), clientv3.Compare(clientv3.LeaseValue(l.lockKey), "=", l.id)).
			Then(clientv3.OpDelete(l.lockKey)).
			Commit()
		return err
	})
	defer call.cancel()
	if err != nil {
		err = l.c.failed(l.op("release"), ctx, call.ctx, "release", l.tm.releaseTimeout, err)
		if call.tries > 1 {
			err = &opError{op: l.op("release"), err: fmt.Errorf("%d deletes sent, each after the last timed out, to the next endpoint in turn; the last: %w", call.tries, unwrapOp(err))}
		}
		l.c.log(ctx, slog.LevelWarn, "lease release failed", l.resource, l.token, "err", err)
		return err
	}
	return l.finishRelease(ctx, resp.Succeeded)
}

// beginRelease marks the lease releasing (see Lease.releasing) and
// returns the watch's loss revision and loss so far (0 and nil if none).
func (l *Lease) beginRelease() (int64, *lease.LostError) {
	l.watchMu.Lock()
	defer l.watchMu.Unlock()
	l.releasing.Store(true)
	return l.lossRev, l.lossErr
}

// storedLoss is the loss the watch recorded (sawLoss); lossRev is set.
func (l *Lease) storedLoss() *lease.LostError {
	l.watchMu.Lock()
	defer l.watchMu.Unlock()
	return l.lossErr
}

// revokeCall is the context of the last revoke a Release sent, ctx:
// bounded by ReleaseTimeout, cancelled by cancel once the Release has
// used it. A value, not a pointer: Release allocates nothing for it.
type revokeCall struct {
	ctx    context.Context
	cancel context.CancelFunc
	tries  int // revokes sent
}

// revoke sends the LeaseRevoke of l's etcd lease (see send). A resend of
// a revoke that landed, its reply lost, is answered ErrLeaseNotFound,
// which Release tells from an expiry (see revokedUnexpired). It returns
// the last send's reply and error, and its context.
func (l *Lease) revoke(ctx context.Context) (*clientv3.LeaseRevokeResponse, revokeCall, error) {
	var resp *clientv3.LeaseRevokeResponse
	call, err := l.send(ctx, func(ctx context.Context) (err error) {
		resp, err = l.c.cli.Revoke(ctx, l.id)
		return err
	})
	return resp, call, err
}

// send makes the call of a Release, each send bounded by ctx and
// ReleaseTimeout, and sends it again when a send timed out while ctx is
// live, at most once per endpoint (three sends at most, see
// Client.tries): the etcd client sends each call to the next endpoint in
// turn, so a member stalled, partitioned or killed mid-call without a
// reset (its connection open, nothing answered) does not lose the
// release, as the Redis lease's client resends a release whose
// connection failed (trial x26 F4). A send the etcd client could tell
// had failed (a connection reset or refused, "leader changed") it
// already resends itself, within the same bound. It returns the last
// send's error and context.
func (l *Lease) send(ctx context.Context, call func(ctx context.Context) error) (revokeCall, error) {
	tries := l.c.tries()
	for try := 1; ; try++ {
		rctx, cancel := context.WithTimeout(ctx, l.tm.releaseTimeout)
		l.c.releases.Add(1)
		err := call(rctx)
		if err == nil || rctx.Err() == nil || try >= tries || ended(ctx) || l.c.cli.Ctx().Err() != nil {
			return revokeCall{ctx: rctx, cancel: cancel, tries: try}, err
		}
		cancel()
		l.c.log(ctx, slog.LevelDebug, "lease revoke timed out; sending it to the next endpoint", l.resource, l.token, "try", try, "err", err)
	}
}

// revokedUnexpired reports whether a revoke answered "lease not found"
// proves a revoke of this lease landed (an earlier send of this Release
// whose reply was lost, or an earlier Release that timed out) rather than
// the lease's expiry on the server: the answer came within TTL of the
// last successful renewal's send (the server cannot have expired the
// lease before that), or the watch saw the lock key deleted, after the
// first revoke was sent, within that time.
func (l *Lease) revokedUnexpired() bool {
	l.mu.Lock()
	expiry := l.lastSend.Add(l.tm.ttl)
	l.mu.Unlock()
	if time.Until(expiry) > 0 {
		return true
	}
	l.watchMu.Lock()
	defer l.watchMu.Unlock()
	return l.lossRev != 0 && l.lossDeleted && l.lossAt.Before(expiry)
}

// Observe inspects err, the result of a fenced write made with l's token,
// and returns it unchanged. When err is a *fence.StaleError whose Stored
// token is above l's, a later acquisition wrote the row, or a snapshot
// restore rewound etcd's revision: Observe calls [Client.Advance] with
// Stored, which raises the base only in the second case, then loses the
// lease (lease.ReasonSuperseded; in the second case with
// LostError.RaisedTo set and the text "the counter was behind: raised to
// <n>"). A failing Advance is joined to the returned error.
func (l *Lease) Observe(ctx context.Context, err error) error {
	var se *fence.StaleError
	if !errors.As(err, &se) || se.Stored <= l.token {
		return err
	}
	// The base is raised first, so that the lease's cause can say whether
	// tokens were behind (etcd went back: the LostError says so) or
	// another holder's later token was stored (a takeover).
	to, raised, aerr := l.c.advance(context.WithoutCancel(ctx), l.resource, se.Stored, true)
	lost := &lease.LostError{Resource: l.resource, Token: l.token, Reason: lease.ReasonSuperseded, Err: se}
	if raised {
		lost.RaisedTo = to
	}
	_ = l.loseWith(lost)
	if aerr != nil {
		return errors.Join(err, aerr)
	}
	return err
}

func (l *Lease) op(name string) string {
	return fmt.Sprintf("%s %q (token %d)", name, l.resource, l.token)
}

var _ lease.Held = (*Lease)(nil)
