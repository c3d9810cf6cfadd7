package etcdlease_test

import (
	"context"
	"errors"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/fencegen/fencegen/internal/faults/etcdfaults"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
	"github.com/fencegen/fencegen/runtime/lease/etcdlease"
)

// A README-only trial (F3): with docs/lease.md's clientv3.Config (no
// Logger), every Release of a lease whose etcd lease had expired on the
// server printed the etcd client's JSON warning "retrying of unary
// invoker failed ... LeaseRevoke ... requested lease not found": Release
// revoked a lease etcd no longer had. A lease already lost is not
// revoked: Release deletes its lock key only if still its own, in one
// transaction, which fails for nobody. Here the etcd client logs to an
// observer at warning level: nothing is logged, and Release answers as
// before: lease.ErrNotHeld for a lease expired on the server (its key
// gone), nil for a lease lost locally whose key was still its own (now
// deleted, as on Redis).
func TestReleaseOfLostLeaseLogsNoEtcdWarning(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	core, logs := observer.New(zap.WarnLevel)
	cli, err := clientv3.New(clientv3.Config{Endpoints: e.Endpoints(), DialTimeout: 2 * time.Second, Logger: zap.New(core)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	ctx := ctxT(t, 60*time.Second)

	// Expired on the server: no heartbeat, lost at the local deadline,
	// then the etcd lease expires and its key goes with it.
	c := etcdlease.New(cli, &etcdlease.Options{TTL: time.Second, HeartbeatInterval: -1})
	l, err := c.Acquire(ctx, "expired", 0)
	if err != nil {
		t.Fatal(err)
	}
	<-l.Done()
	for lockExists(t, cli, c, "expired") {
		select {
		case <-ctx.Done():
			t.Fatal("the etcd lease never expired on the server")
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err := l.Release(ctx); !errors.Is(err, lease.ErrNotHeld) {
		t.Fatalf("Release of a lease expired on the server = %v, want lease.ErrNotHeld", err)
	}
	var lost *lease.LostError
	if !errors.As(l.Err(), &lost) || lost.Reason != lease.ReasonDeadline {
		t.Fatalf("cause %v, want the local deadline", l.Err())
	}

	// Lost locally (superseded) while its key is still its own on the
	// server: the key is deleted.
	c = etcdlease.New(cli, &etcdlease.Options{TTL: time.Minute})
	l, err = c.Acquire(ctx, "superseded", 0)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 { // a later token than the stored one is etcd's next: a takeover, not a rewind
		if _, err := cli.Put(ctx, "other", "x"); err != nil {
			t.Fatal(err)
		}
	}
	_ = l.Observe(ctx, &fence.StaleError{Presented: l.Token(), Stored: l.Token() + 1})
	if !errors.As(l.Err(), &lost) || lost.Reason != lease.ReasonSuperseded {
		t.Fatalf("cause %v, want superseded", l.Err())
	}
	if err := l.Release(ctx); err != nil {
		t.Fatalf("Release of a lost lease whose key was its own = %v, want nil", err)
	}
	if lockExists(t, cli, c, "superseded") {
		t.Fatal("the lock key survives the Release")
	}
	if err := l.Release(context.Background()); err != nil {
		t.Fatalf("second Release = %v", err)
	}

	for _, entry := range logs.All() {
		t.Errorf("the etcd client logged %s %q %v", entry.Level, entry.Message, entry.ContextMap())
	}
}
