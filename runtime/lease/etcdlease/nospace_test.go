package etcdlease_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"

	"github.com/fencegen/fencegen/internal/faults/etcdfaults"
	"github.com/fencegen/fencegen/runtime/lease"
	"github.com/fencegen/fencegen/runtime/lease/etcdlease"
)

// An etcd over its space quota (the NOSPACE alarm) answers every write at
// once with "mvcc: database space exceeded": Acquire, AcquireWait and
// Check say so and match rpctypes.ErrNoSpace, never lease.ErrTimeout or
// "no answer from etcd" (trial r26s N3); a lease held across the alarm
// keeps renewing and releases.
func TestSpaceQuotaAlarmNamed(t *testing.T) {
	e := etcdfaults.StartArgs(t, 1, "--quota-backend-bytes", "4194304")
	cli := e.Client()
	c := etcdlease.New(cli, &etcdlease.Options{TTL: ttl})
	ctx := ctxT(t, 60*time.Second)
	held, err := c.Acquire(ctx, "held", 0)
	if err != nil {
		t.Fatal(err)
	}
	value := strings.Repeat("x", 512<<10)
	for i := 0; ; i++ {
		_, err := cli.Put(ctx, fmt.Sprintf("fill/%d", i), value)
		if errors.Is(err, rpctypes.ErrNoSpace) {
			break
		}
		if err != nil || i == 200 {
			t.Fatalf("filling etcd to its quota, put %d: %v", i, err)
		}
	}
	_, err = c.Acquire(ctx, "nsp", 0)
	if want := `lease: acquire "nsp": etcd refused the grant call: its database is over its space quota`; err == nil || !strings.HasPrefix(err.Error(), want) ||
		!errors.Is(err, rpctypes.ErrNoSpace) || errors.Is(err, lease.ErrTimeout) || errors.Is(err, lease.ErrConfig) || strings.Contains(err.Error(), "timed out") {
		t.Fatalf("Acquire over the quota: %v, want it to start %q, match rpctypes.ErrNoSpace and neither lease.ErrTimeout nor ErrConfig", err, want)
	}
	wctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	_, err = c.AcquireWait(wctx, "nsp", 0)
	if want := `lease: acquire "nsp": etcd's database full before the context ended: context deadline exceeded (last attempt: etcd refused the grant call: its database is over its space quota`; err == nil || !strings.HasPrefix(err.Error(), want) ||
		!errors.Is(err, rpctypes.ErrNoSpace) || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, lease.ErrTimeout) {
		t.Fatalf("AcquireWait over the quota: %v, want it to start %q, match rpctypes.ErrNoSpace and the deadline, not lease.ErrTimeout", err, want)
	}
	err = c.Check(ctx)
	if !errors.Is(err, rpctypes.ErrNoSpace) || errors.Is(err, lease.ErrTimeout) || !strings.Contains(err.Error(), "NOSPACE alarm") {
		t.Fatalf("Check over the quota: %v, want rpctypes.ErrNoSpace naming the NOSPACE alarm", err)
	}
	if err := held.Renew(ctx); err != nil {
		t.Fatalf("renewing a lease held across the alarm: %v", err)
	}
	if err := held.Release(ctx); err != nil {
		t.Fatalf("releasing a lease held across the alarm: %v", err)
	}
}
