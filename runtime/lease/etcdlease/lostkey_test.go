package etcdlease_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fencegen/fencegen/internal/faults/etcdfaults"
	"github.com/fencegen/fencegen/runtime/lease"
	"github.com/fencegen/fencegen/runtime/lease/etcdlease"
)

// TestLockKeyTakenFromHolderIsLost (issue 26, a README trial): an operator
// "unsticks" a lock with a delete of its key, or overwrites it, while A
// holds it; the etcd lease itself lives on, so keep-alives still succeed.
// As on the Redis lease (TestRenewOfMissingOrForeignKeyIsLostAtOnce), A's
// context is cancelled with lease.ReasonNotOwner (errors.Is ErrNotOwner
// and ErrLost), A's Release reports lease.ErrNotHeld, and a B that took
// the lock meanwhile keeps its key. A put that keeps A's etcd lease
// (--ignore-lease) leaves A holding. Before the fix A's context stayed
// live through 5 s of renewals and Release returned nil.
func TestLockKeyTakenFromHolderIsLost(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	cli := e.Client()
	for _, tc := range []struct {
		name  string
		steal func(ctx context.Context, lockKey string) error
		lost  bool
		takeB bool   // B acquires after the steal
		what  string // what the cause says happened to the key
	}{
		{name: "deleted then taken", takeB: true, lost: true, what: "deleted", steal: func(ctx context.Context, k string) error {
			_, err := cli.Delete(ctx, k)
			return err
		}},
		{name: "deleted", lost: true, what: "deleted", steal: func(ctx context.Context, k string) error {
			_, err := cli.Delete(ctx, k)
			return err
		}},
		{name: "lease detached by a put", lost: true, what: "overwritten", steal: func(ctx context.Context, k string) error {
			_, err := cli.Put(ctx, k, "by hand")
			return err
		}},
		{name: "re-created on another etcd lease", lost: true, what: "deleted", steal: func(ctx context.Context, k string) error {
			g, err := cli.Grant(ctx, 30)
			if err != nil {
				return err
			}
			if _, err := cli.Delete(ctx, k); err != nil {
				return err
			}
			_, err = cli.Put(ctx, k, "x", clientv3.WithLease(g.ID))
			return err
		}},
		{name: "put keeping the lease", lost: false, steal: func(ctx context.Context, k string) error {
			_, err := cli.Put(ctx, k, "relabelled", clientv3.WithIgnoreLease())
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxT(t, 30*time.Second)
			c := etcdlease.New(cli, &etcdlease.Options{TTL: ttl})
			resource := "taken/" + tc.name
			a, err := c.Acquire(ctx, resource, 0)
			if err != nil {
				t.Fatal(err)
			}
			lockKey, _ := c.Keys(resource)
			if err := tc.steal(ctx, lockKey); err != nil {
				t.Fatal(err)
			}
			var b *etcdlease.Lease
			if tc.takeB {
				if b, err = etcdlease.New(cli, &etcdlease.Options{TTL: ttl}).Acquire(ctx, resource, 0); err != nil {
					t.Fatalf("B: %v", err)
				}
				defer b.Release(ctx)
				if b.Token() <= a.Token() {
					t.Fatalf("B's token %d not above A's %d", b.Token(), a.Token())
				}
			}
			if !tc.lost {
				// Two heartbeats later A still holds, and releases cleanly.
				time.Sleep(2 * ttl / 3)
				if err := a.Err(); err != nil {
					t.Fatalf("A lost after a put that kept its etcd lease: %v", err)
				}
				if err := a.Release(ctx); err != nil {
					t.Fatalf("A's release: %v", err)
				}
				if lockExists(t, cli, c, resource) {
					t.Fatal("A's release left the lock key")
				}
				return
			}
			lost := waitLost(t, a, ttl)
			if lost.Reason != lease.ReasonNotOwner || !errors.Is(lost, lease.ErrNotOwner) || lost.Token != a.Token() {
				t.Fatalf("A's cause: %v (reason %q), want not owner", lost, lost.Reason)
			}
			// It says what happened to the key, not a bare "not owner"
			// (trial t26 F7).
			if want := fmt.Sprintf("lease: lost %q (token %d): not owner: the lock key %q was %s at revision ", resource, a.Token(), lockKey, tc.what); !strings.HasPrefix(lost.Error(), want) {
				t.Fatalf("A's cause: %v, want it to begin %q", lost, want)
			}
			if err := a.Release(ctx); !errors.Is(err, lease.ErrNotHeld) {
				t.Fatalf("A's release: %v, want ErrNotHeld", err)
			}
			if b != nil {
				g, err := cli.Get(ctx, lockKey)
				if err != nil {
					t.Fatal(err)
				}
				if len(g.Kvs) != 1 || g.Kvs[0].Lease != int64(b.ID()) {
					t.Fatalf("B's lock key after A's release: %v", g.Kvs)
				}
				if err := b.Err(); err != nil {
					t.Fatalf("B lost: %v", err)
				}
				if err := b.Release(ctx); err != nil {
					t.Fatalf("B's release: %v", err)
				}
			}
		})
	}
}

// TestReleaseRightAfterKeyDeleted: the key is deleted and B takes the
// lock, and A releases at once, before anything else runs: Release still
// reports lease.ErrNotHeld (its revoke's revision is after the delete)
// and B keeps its key.
func TestReleaseRightAfterKeyDeleted(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	cli := e.Client()
	ctx := ctxT(t, 30*time.Second)
	for i := range 20 {
		c := etcdlease.New(cli, &etcdlease.Options{TTL: ttl})
		a, err := c.Acquire(ctx, "r", 0)
		if err != nil {
			t.Fatal(err)
		}
		lockKey, _ := c.Keys("r")
		if _, err := cli.Delete(ctx, lockKey); err != nil {
			t.Fatal(err)
		}
		b, err := c.Acquire(ctx, "r", 0)
		if err != nil {
			t.Fatalf("B: %v", err)
		}
		if err := a.Release(ctx); !errors.Is(err, lease.ErrNotHeld) {
			t.Fatalf("round %d: A's release: %v, want ErrNotHeld", i, err)
		}
		if !lockExists(t, cli, c, "r") || b.Err() != nil {
			t.Fatalf("round %d: B lost its key to A's release (%v)", i, b.Err())
		}
		if err := b.Release(ctx); err != nil {
			t.Fatalf("round %d: B's release: %v", i, err)
		}
	}
}

// trial x26 F3: a holder paused past its TTL (heartbeat and deadline
// timer stopped) finds its lock key deleted by the expiry of its etcd
// lease on the server. The cause leads with what happened, the local
// deadline passed and the etcd lease expired, as the Redis lease says
// "local deadline passed", not a delete "by hand".
func TestPausedHolderLostByDeadlineNotByHand(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	c := etcdlease.New(e.Client(), &etcdlease.Options{TTL: ttl})
	ctx := ctxT(t, 60*time.Second)
	l, err := c.Acquire(ctx, "paused", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	etcdlease.Pause(l)
	select {
	case <-l.Done():
	case <-ctx.Done():
		t.Fatal("the lease of a paused holder never ended")
	}
	var lost *lease.LostError
	cause := context.Cause(l.Context())
	if !errors.As(cause, &lost) || lost.Reason != lease.ReasonDeadline || errors.Is(cause, lease.ErrNotOwner) ||
		!strings.Contains(cause.Error(), "expired on the server") || strings.Contains(cause.Error(), "by hand") {
		t.Fatalf("cause of a holder paused past its TTL: %v, want the local deadline and the etcd lease's expiry", cause)
	}
}
