package lease

import (
	"context"
	"errors"
	"fmt"
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

// A client pointed at a writable replica (replica-read-only no) took the
// lease on the replica's own keys beside a holder on the primary, both
// with token 1 (a README-only trial, t26h F3). Acquire reads the role in
// the INFO replication it pipelines with its script: it refuses with a
// *ReplicaError (ErrConfig), gives the acquisition back on the replica,
// and does so on every Acquire (not only the first, whose INFO is fresh),
// and AcquireWait does not retry it; Check says the same. The primary's
// holder is untouched.
func TestWritableReplicaIsRefusedAtAcquire(t *testing.T) {
	primary := faults.StartRedis(t, faults.RedisOptions{})
	replica := faults.StartRedis(t, faults.RedisOptions{Args: []string{"--replicaof", "127.0.0.1", strconv.Itoa(primary.Port()), "--replica-read-only", "no"}})
	waitReplicationInfo(t, replica, "master_link_status:up", "the replica never synchronised")
	onReplica := New(replica.Client(nil), nil)
	refused := func(what string, l *Lease, err error) {
		t.Helper()
		var re *ReplicaError
		if !errors.As(err, &re) || !errors.Is(err, ErrConfig) || errors.Is(err, ErrNotAcquired) {
			if l != nil {
				t.Errorf("%s: token %d on a writable replica", what, l.Token())
				_ = l.Release(bg)
			}
			t.Fatalf("%s = %v; want a *ReplicaError matching ErrConfig", what, err)
		}
		if re.Role != "slave" || re.Primary != primary.Addr() {
			t.Fatalf("%s: ReplicaError %+v, want role slave of %s", what, re, primary.Addr())
		}
	}
	// A resource nobody holds: the replica would mint its token.
	freeKey, _ := onReplica.Keys("free")
	for i := range 3 {
		l, err := onReplica.Acquire(bg, "free", time.Second)
		refused(fmt.Sprintf("Acquire %d of a free resource", i+1), l, err)
		if n := replica.Admin().Exists(bg, freeKey).Val(); n != 0 {
			t.Fatalf("Acquire %d left its lock key on the replica", i+1)
		}
	}
	// A resource held through the primary (its lock key replicated).
	held := mustAcquire(t, New(primary.Client(nil), nil), "res", time.Minute)
	defer held.Release(bg)
	l, err := onReplica.Acquire(bg, "res", time.Second)
	refused("Acquire of a resource held on the primary", l, err)
	ctx, cancel := context.WithTimeout(bg, time.Minute)
	defer cancel()
	l, err = onReplica.AcquireWait(ctx, "free", time.Second)
	refused("AcquireWait", l, err)
	if ctx.Err() != nil {
		t.Fatal("AcquireWait retried a writable replica until its context ended")
	}
	if err := onReplica.Check(bg); !errors.As(err, new(*ReplicaError)) {
		t.Fatalf("Check on a writable replica = %v; want a *ReplicaError", err)
	}
	lockKey, _ := onReplica.Keys("res")
	if v := primary.Admin().Get(bg, lockKey).Val(); v != held.value {
		t.Fatalf("the primary's lock key is %q, want its holder's", v)
	}
}
