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
// Unwrap returns lease.ErrUnsafeConfig, the Redis lease's sentinel, so
// that one errors.Is test serves both coordinators.
type unsafeError struct{ msg string }

func (e *unsafeError) Error() string { return "lease: unsafe etcd setup: " + e.msg }
func (e *unsafeError) Unwrap() error { return lease.ErrUnsafeConfig }

// isConfigErr reports an etcd answer that no retry can fix: the client's
// user may not do what the lease needs (authentication is on and the
// role lacks read-write on the key prefix or the lease API), or the TTL
// is above etcd's maximum.
func isConfigErr(err error) bool {
	for _, e := range []error{rpctypes.ErrPermissionDenied, rpctypes.ErrUserEmpty, rpctypes.ErrInvalidAuthToken,
		rpctypes.ErrAuthFailed, rpctypes.ErrLeaseTTLTooLarge} {
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
//     documentation).
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
	if n := len(members.Members); n == 1 {
		w := &unsafeError{msg: "the cluster has one member: its disk is the only copy of the revision, and restoring a snapshot after losing it rewinds the revision and the tokens unless restored with --bump-revision and --mark-compacted; run three members"}
		c.log(ctx, slog.LevelWarn, "lease check: "+w.msg, "", 0)
		return w
	}
	return nil
}
