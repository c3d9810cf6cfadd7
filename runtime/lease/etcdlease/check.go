package etcdlease

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fencegen/fencegen/runtime/lease"
)

// unsafeError is a Check warning: etcd's setup can lose lease state. Its
// Unwrap returns lease.ErrUnsafeConfig, which the Redis lease's warnings
// match too, so that one errors.Is test serves both coordinators.
type unsafeError struct{ msg string }

func (e *unsafeError) Error() string { return "lease: unsafe etcd setup: " + e.msg }
func (e *unsafeError) Unwrap() error { return lease.ErrUnsafeConfig }

// refused names an error etcd's server answered at once that a retry of
// the same call does not fix while nothing changes on the server, or
// returns "" for any other error. The error stays wrapped as itself
// (errors.Is(err, rpctypes.ErrNoSpace) holds); only the words are added.
// The space quota's alarm is not lease.ErrConfig: AcquireWait keeps
// trying, as it does for a Redis out of memory, since an operator clears
// it without touching the workers.
func refused(err error) string {
	switch {
	case errors.Is(err, rpctypes.ErrNoSpace):
		return "its database is over its space quota (--quota-backend-bytes) and the NOSPACE alarm refuses every write until an operator compacts, defragments and runs 'etcdctl alarm disarm'"
	case errors.Is(err, rpctypes.ErrCompacted), errors.Is(err, rpctypes.ErrFutureRev):
		return "the revision asked for is not in etcd's store"
	case errors.Is(err, rpctypes.ErrCorrupt):
		return "a member's data is corrupt (the CORRUPT alarm)"
	}
	return ""
}

// isConfigErr reports an etcd answer that no retry can fix: the client's
// user may not do what the lease needs (authentication is on and the
// role lacks read-write on the key prefix or the lease API), the TTL
// is above etcd's maximum, or etcd refuses the request's size or shape
// (too large for --max-request-bytes, too many operations, a feature the
// cluster's version lacks).
func isConfigErr(err error) bool {
	for _, e := range []error{rpctypes.ErrPermissionDenied, rpctypes.ErrUserEmpty, rpctypes.ErrInvalidAuthToken,
		rpctypes.ErrAuthFailed, rpctypes.ErrAuthNotEnabled, rpctypes.ErrLeaseTTLTooLarge,
		rpctypes.ErrRequestTooLarge, rpctypes.ErrTooManyOps, rpctypes.ErrNotCapable} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// Check is the start-up probe, as on the Redis lease: call it once after
// New (Acquire does not run it) with a ctx that has a deadline. It
//
//   - checks the Options and the default TTL as Acquire would; an invalid
//     one is lease.ErrConfig, returned before anything is sent;
//   - grants an etcd lease of the default TTL, puts a probe key
//     ("<prefix>/fencegen-check/lock") attached to it and revokes it,
//     which reports a user without permission on the prefix or the lease
//     API (authentication on) as lease.ErrConfig;
//   - returns lease.ErrConfig when etcd granted fewer seconds than the
//     TTL needs (the local deadline would outlast the etcd lease), as
//     Acquire does;
//   - warns, through Options.Logger, when etcd granted more seconds than
//     asked (its minimum TTL is 1.5 election timeouts): a holder that
//     dies without releasing blocks the resource that long;
//   - lists the members and reports, wrapped in lease.ErrUnsafeConfig and
//     as a warning through Options.Logger, a cluster of one member: its
//     disk is the only copy of the revision, and after a lost disk the
//     way back is a snapshot restore, which rewinds the revision (and the
//     tokens) unless restored with --bump-revision (see the package
//     documentation);
//   - asks one member for its status and reports, wrapped in
//     lease.ErrUnsafeConfig and logged at error level (through
//     slog.Default without Options.Logger), a store revision above the
//     Raft index: the cluster was restored from a snapshot (see
//     restored), and tokens handed out before it can be minted again
//     unless the restore bumped the revision or Options.HighWater is set.
//     Several warnings are joined in one error.
//
// So a configuration error and a persistence warning never share one
// error: Check returns nil, an error wrapping lease.ErrConfig (and not
// ErrUnsafeConfig), an error wrapping lease.ErrUnsafeConfig (and not
// ErrConfig), or an etcd or context error (a *TimeoutError when
// ReleaseTimeout cut a call off). Each call is bounded by ctx and
// ReleaseTimeout.
func (c *Client) Check(ctx context.Context) error {
	defer c.sync() // its warnings are written before it returns
	tm, err := c.timing(0)
	if err != nil {
		return &opError{op: "check", err: err}
	}
	call := func(what string, f func(ctx context.Context) error) error {
		cctx, cancel := context.WithTimeout(ctx, tm.releaseTimeout)
		defer cancel()
		if err := f(cctx); err != nil {
			return c.failed("check: "+what, ctx, cctx, "check", tm.releaseTimeout, err)
		}
		return nil
	}
	var g *clientv3.LeaseGrantResponse
	if err := call("grant", func(ctx context.Context) (err error) {
		g, err = c.cli.Grant(ctx, tm.grantSeconds)
		return err
	}); err != nil {
		return err
	}
	if err := shortGrant(g.TTL, tm); err != nil {
		_ = call("revoke", func(ctx context.Context) error {
			_, err := c.cli.Revoke(ctx, g.ID)
			return err
		})
		return &opError{op: "check", err: err}
	}
	if g.TTL > tm.grantSeconds {
		c.log(ctx, slog.LevelWarn, fmt.Sprintf("lease check: etcd granted %ds for a TTL of %v (its minimum lease TTL is 1.5 election timeouts): a holder that dies without releasing keeps the resource %ds", g.TTL, tm.ttl, g.TTL), "", 0)
	}
	lockKey, _ := c.Keys("fencegen-check")
	err = call("probe", func(ctx context.Context) error {
		_, err := c.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(lockKey), "=", 0)).
			Then(clientv3.OpPut(lockKey, newOwner(), clientv3.WithLease(g.ID))).
			Commit()
		return err
	})
	if rerr := call("revoke", func(ctx context.Context) error {
		_, err := c.cli.Revoke(ctx, g.ID)
		return err
	}); err == nil {
		err = rerr
	}
	if err != nil {
		return err
	}
	var members *clientv3.MemberListResponse
	if err := call("member list", func(ctx context.Context) (err error) {
		members, err = c.cli.MemberList(ctx)
		return err
	}); err != nil {
		return err
	}
	var warns []error
	if n := len(members.Members); n == 1 {
		w := &unsafeError{msg: "the cluster has one member: its disk is the only copy of the revision, and restoring a snapshot after losing it rewinds the revision and the tokens unless restored with --bump-revision and --mark-compacted; run three members"}
		c.log(ctx, slog.LevelWarn, "lease check: "+w.msg, "", 0)
		warns = append(warns, w)
	}
	if w, err := c.restored(ctx, call); err != nil {
		return err
	} else if w != nil {
		// An operator must see it, also without Options.Logger.
		lg := c.opts.Logger
		if lg == nil {
			lg = slog.Default()
		}
		c.record(ctx, lg, slog.LevelError, "lease check: "+w.msg)
		warns = append(warns, w)
	}
	return errors.Join(warns...)
}

// restored asks one member for its status and returns a warning when its
// store revision is above its Raft index: every write is one Raft entry,
// and a cluster's log starts with its membership entries before the
// first write, so in a cluster that was never restored the index is
// always above the revision. A snapshot restore starts a new Raft log at
// an index of about the member count while the revision stays at the
// snapshot's (or above it, with --bump-revision): the index stays below
// the revision until as many Raft entries as the revision have been
// committed since, so a Check soon after the restore sees it. It cannot
// tell whether the restore used --bump-revision.
func (c *Client) restored(ctx context.Context, call func(string, func(context.Context) error) error) (*unsafeError, error) {
	eps := c.cli.Endpoints()
	if len(eps) == 0 {
		return nil, nil
	}
	var st *clientv3.StatusResponse
	if err := call("status", func(ctx context.Context) (err error) {
		st, err = c.cli.Status(ctx, eps[0])
		if isConfigErr(err) {
			// A role that may not read the status: the probe is
			// skipped, the lease's own calls were checked above.
			st, err = nil, nil
		}
		return err
	}); err != nil || st == nil {
		return nil, err
	}
	if st.Header == nil || int64(st.RaftIndex) >= st.Header.Revision {
		return nil, nil
	}
	return &unsafeError{msg: fmt.Sprintf("etcd's store revision %d is above its Raft index %d: the cluster was restored from a snapshot; unless the restore used --bump-revision (etcd 3.5.10+) above the writes the snapshot missed, a token handed out before the restore can be minted again, and the database accepts a token equal to the one it stores: set Options.HighWater (the fenced rows' highest stored token) or call Advance for each resource above it before any work", st.Header.Revision, st.RaftIndex)}, nil
}
