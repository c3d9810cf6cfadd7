package etcdlease_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/fencegen/fencegen/internal/faults/etcdfaults"
	"github.com/fencegen/fencegen/runtime/lease/etcdlease"
)

// TestAcquireWaitOneMemberStalled: three members, one stopped (SIGSTOP:
// its connections stay open and nothing answers, so the etcd client keeps
// sending it every third call), quorum healthy. Every AcquireWait of a
// free resource must succeed: before the fix each attempt's grant,
// transaction and revoke took the same turns in the client's round robin,
// so the same step of every attempt met the stalled member and 6 of 9
// AcquireWaits failed (trial rt4 F8). The client is the one a user
// writes, without gRPC keepalives (which would drop the stalled member
// after a while and hide the case).
func TestAcquireWaitOneMemberStalled(t *testing.T) {
	e := etcdfaults.Start(t, 3)
	cli, err := clientv3.New(clientv3.Config{Endpoints: e.Endpoints(), DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	// TTL 6s: each call's bound (TTL/6 = 1s) leaves a loaded two-core
	// machine time for the grant's Raft round on the healthy members; the
	// stalled member never answers, whatever the bound (a 500ms bound
	// failed every attempt under a load average of 24).
	c := etcdlease.New(cli, &etcdlease.Options{TTL: 6 * time.Second})
	ctx := ctxT(t, 120*time.Second)
	for i := range 6 { // every member connected and answering
		l, err := c.AcquireWait(ctx, fmt.Sprintf("warm-%d", i), 0)
		if err != nil {
			t.Fatalf("warm-up: %v", err)
		}
		if err := l.Release(ctx); err != nil {
			t.Fatalf("warm-up release: %v", err)
		}
	}
	leader := e.Leader()
	failed := 0
	for k, m := range e.Members {
		if m == leader {
			continue // a stopped leader is an election, tested elsewhere
		}
		m.Pause()
		for i := range 3 {
			actx, cancel := context.WithTimeout(ctx, 15*time.Second)
			start := time.Now()
			l, err := c.AcquireWait(actx, fmt.Sprintf("fresh-%d-%d", k, i), 0)
			cancel()
			if err != nil {
				failed++
				t.Errorf("member %s stalled: AcquireWait of a free resource: %v", m.Name, err)
				continue
			}
			t.Logf("member %s stalled: acquired token %d after %v", m.Name, l.Token(), time.Since(start).Round(time.Millisecond))
			rctx, cancel := context.WithTimeout(ctx, 6*time.Second)
			_ = l.Release(rctx) // may meet the stalled member: the key then expires
			cancel()
		}
		m.Resume()
	}
	if failed > 0 {
		t.Fatalf("%d AcquireWaits of a free resource failed with one member of three stalled", failed)
	}
}
