package lease

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/runtime/fence"
)

// Issue 26 (trial t26s F6): a client left talking to a replica (a primary
// demoted by a Sentinel failover, or pointed at the replica's address)
// gets READONLY from inside the acquire script. That clears once the
// failover is over, as LOADING does: Acquire reports it as
// ErrRedisUnavailable, not ErrConfig, AcquireWait and DoWait keep retrying
// until their context ends, and AcquireWait takes the lease once the
// replica is promoted.
func TestReadOnlyReplyIsTransient(t *testing.T) {
	primary := faults.StartRedis(t, faults.RedisOptions{})
	replica := faults.StartRedis(t, faults.RedisOptions{Args: []string{"--replicaof", "127.0.0.1", strconv.Itoa(primary.Port())}})
	waitReplicationInfo(t, replica, "master_link_status:up", "the replica never synchronised")
	c := New(replica.Client(nil), nil)

	_, err := c.Acquire(bg, "res", time.Second)
	if err == nil || errors.Is(err, ErrConfig) || !errors.Is(err, ErrRedisUnavailable) || !strings.Contains(err.Error(), "READONLY") {
		t.Fatalf("Acquire on a replica: %v; want ErrRedisUnavailable naming READONLY, not ErrConfig", err)
	}
	if n := replica.CommandCalls()["evalsha"] + replica.CommandCalls()["eval"]; n < 2 {
		t.Fatalf("Acquire on a replica sent the script %d time(s); want it resent", n)
	}

	ctx, cancel := context.WithTimeout(bg, 1500*time.Millisecond)
	defer cancel()
	_, err = c.AcquireWait(ctx, "res", time.Second)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrRedisUnavailable) || errors.Is(err, ErrConfig) || errors.Is(err, ErrNotAcquired) {
		t.Fatalf("AcquireWait on a replica: %v; want the context's end with ErrRedisUnavailable as the last attempt", err)
	}
	ctx, cancel = context.WithTimeout(bg, 1500*time.Millisecond)
	defer cancel()
	err = c.DoWait(ctx, "res", time.Second, func(context.Context, fence.Token) error {
		t.Error("DoWait ran fn without a lease")
		return nil
	})
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrRedisUnavailable) || errors.Is(err, ErrConfig) {
		t.Fatalf("DoWait on a replica: %v; want the context's end with ErrRedisUnavailable as the last attempt", err)
	}

	waitsOutRefusal(t, replica, c, "the server was a replica", func() {
		if _, err := replica.Do("replicaof", "no", "one"); err != nil {
			t.Fatal(err)
		}
	})
}
