package lease

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/faults"
)

// untag wraps a redis.Scripter and strips the hash-tag braces from every
// key, as a lease library without a shared tag would send them.
type untag struct{ redis.Scripter }

func strip(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = strings.NewReplacer("{", "", "}", "").Replace(k)
	}
	return out
}

func (u untag) EvalSha(ctx context.Context, sha string, keys []string, args ...any) *redis.Cmd {
	return u.Scripter.EvalSha(ctx, sha, strip(keys), args...)
}

func (u untag) Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return u.Scripter.Eval(ctx, script, strip(keys), args...)
}

// S13 (go-redislock#44, redisson#1098, python-redis-lock#59, redislock#94):
// against a real 3-master Redis Cluster. Keys without a shared hash tag make
// the acquire script fail with CROSSSLOT, which Acquire reports as
// ErrConfig, never as ErrNotAcquired; with the runtime's own keys (one
// {resource} tag) the start-up probe, acquire, pipelined heartbeat renewals,
// Advance and release work for resources spread over every master.
func TestRedisClusterSharedHashTag(t *testing.T) {
	cl := faults.StartCluster(t, 3, faults.RedisOptions{})
	rdb := cl.Client(&redis.ClusterOptions{ContextTimeoutEnabled: true})

	_, err := New(untag{rdb}, &Options{UnsafeNoReplicas: true}).Acquire(bg, "job:42", time.Second)
	if !errors.Is(err, ErrConfig) || errors.Is(err, ErrNotAcquired) || !strings.Contains(err.Error(), "CROSSSLOT") {
		t.Fatalf("Acquire with untagged keys = %v, want ErrConfig wrapping CROSSSLOT", err)
	}
	if _, err := New(untag{rdb}, &Options{UnsafeNoReplicas: true}).AcquireWait(bg, "job:42", time.Second); !errors.Is(err, ErrConfig) {
		t.Fatalf("AcquireWait retried a configuration error: %v", err)
	}

	c := New(rdb, nil)
	if err := c.Check(bg); err != nil && !errors.Is(err, ErrUnsafeConfig) {
		t.Fatalf("Check on the cluster: %v", err)
	}
	// Long enough that a renewal round over three masters stays within
	// the call timeout (TTL/6) under -race on a loaded machine (600 ms
	// lost a lease there).
	const ttl = 2 * time.Second
	var leases []*Lease
	slots := map[int64]bool{}
	for i := range 24 {
		res := fmt.Sprintf("job:%d", i)
		l := mustAcquire(t, c, res, ttl)
		leases = append(leases, l)
		lock, counter := c.Keys(res)
		s1, s2 := rdb.ClusterKeySlot(bg, lock).Val(), rdb.ClusterKeySlot(bg, counter).Val()
		if s1 != s2 {
			t.Fatalf("%s and %s in slots %d and %d", lock, counter, s1, s2)
		}
		slots[s1/5462] = true
	}
	if len(slots) != 3 {
		t.Fatalf("resources landed on %d of 3 masters", len(slots))
	}
	time.Sleep(2 * ttl) // several pipelined renewal rounds across the masters
	for _, l := range leases {
		if l.Err() != nil {
			t.Fatalf("%s lost on the cluster: %v", l.Resource(), l.Err())
		}
		if err := l.Renew(bg); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := c.Advance(bg, "job:0", 100); err != nil || got != 100 {
		t.Fatalf("Advance on the cluster = %d, %v", got, err)
	}
	for _, l := range leases {
		if err := l.Release(bg); err != nil {
			t.Fatal(err)
		}
	}
	l := mustAcquire(t, c, "job:0", ttl)
	defer l.Release(bg)
	if l.Token() != 101 {
		t.Fatalf("token after Advance(100) = %d", l.Token())
	}
}

// Issue 26: on a real Redis Cluster of 3 masters with a replica each, an
// acquire waits for the replicas of the master of its lock key's slot
// (the WAIT goes to that master, on the connection that wrote; sent
// through the ClusterClient it would reach an arbitrary node). With the
// replica of one master stopped (SIGSTOP: it acknowledges nothing, as a
// replica cut off would), an acquire of a resource on that master fails
// closed with ErrNotReplicated and leaves no lock key, while resources on
// the other masters are acquired as usual. The negative control: the same
// acquire without the check returns a token that no replica has, which a
// failover of that master would mint again for a second holder.
func TestRedisClusterAcquireWaitsForTheReplicasOfItsMaster(t *testing.T) {
	cl := faults.StartClusterWithReplicas(t, 3, 1, faults.RedisOptions{})
	rdb := cl.Client(&redis.ClusterOptions{ContextTimeoutEnabled: true})
	c := New(rdb, nil)
	unchecked := New(rdb, &Options{hooks: &testHooks{noReplicaCheck: true}})
	const ttl = 10 * time.Second // the WAIT gets CallTimeout/5: 333ms
	// acked takes a lease whose master's replica runs: AcquireWait, since
	// a loaded machine may answer a WAIT late, which fails closed with
	// ErrNotReplicated by design and is retried.
	acked := func(res string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(bg, 20*time.Second)
		defer cancel()
		l, err := c.AcquireWait(ctx, res, ttl)
		if err != nil {
			t.Fatalf("Acquire of %s with its master's replica running: %v", res, err)
		}
		if err := l.Release(bg); err != nil {
			t.Fatal(err)
		}
	}

	// One resource per master.
	onMaster := map[string]string{} // master address -> resource
	for i := 0; len(onMaster) < 3; i++ {
		if i > 1000 {
			t.Fatalf("resources found on %d of 3 masters", len(onMaster))
		}
		res := fmt.Sprintf("job:%d", i)
		lock, _ := c.Keys(res)
		m, err := rdb.MasterForKey(bg, lock)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := onMaster[m.Options().Addr]; !ok {
			onMaster[m.Options().Addr] = res
		}
	}
	for addr, res := range onMaster {
		master := cl.Node(addr)
		replicas := cl.ReplicasOf(master)
		if master == nil || len(replicas) != 1 {
			t.Fatalf("master %s: node %v, replicas %v", addr, master, replicas)
		}
		acked(res) // the replica acknowledges
		func() {
			replicas[0].Pause()
			defer replicas[0].Resume()
			_, err := c.Acquire(bg, res, ttl)
			if !errors.Is(err, ErrNotReplicated) {
				t.Fatalf("Acquire of %s on master %s with its replica stopped = %v, want ErrNotReplicated", res, addr, err)
			}
			lock, counter := c.Keys(res)
			if n := master.Admin().Exists(bg, lock).Val(); n != 0 {
				t.Errorf("%s left on master %s after failing closed", lock, addr)
			}
			for other, ores := range onMaster {
				if other == addr {
					continue
				}
				acked(ores) // its own master's replica runs
			}
			lu, err := unchecked.Acquire(bg, res, ttl)
			if err != nil {
				t.Fatalf("without the replica check: %v", err)
			}
			tok := master.Admin().Get(bg, counter).Val()
			if fmt.Sprint(lu.Token()) != tok {
				t.Fatalf("without the replica check: token %d, counter on the master %s", lu.Token(), tok)
			}
			t.Logf("master %s: without the replica check, token %d handed out while its replica (stopped) had not acknowledged it", addr, lu.Token())
			if err := lu.Release(bg); err != nil {
				t.Fatal(err)
			}
		}()
		acked(res) // resumed: acknowledged again
	}
}

// The abandon list on a real Redis Cluster: while an abandoned owner is
// listed in :minted, every acquisition of the resource checks the owner's
// mark, a key its command does not name (built from the lock key, in the
// same slot), to carry the list over or drop the owner. Cluster nodes
// allow that for a key of the script's slot; a late first attempt of the
// abandoned owner is still refused there.
func TestRedisClusterAbandonList(t *testing.T) {
	cl := faults.StartCluster(t, 3, faults.RedisOptions{})
	rdb := cl.Client(&redis.ClusterOptions{ContextTimeoutEnabled: true})
	c := New(rdb, &Options{UnsafeNoReplicas: true})
	for i := range 6 { // resources on every master
		res := fmt.Sprintf("job:%d", i)
		lock, counter := c.Keys(res)
		late := newOwner()
		if _, err := c.abandon(bg, lock, late, time.Second); err != nil {
			t.Fatalf("%s: cleanup: %v", res, err)
		}
		l := mustAcquire(t, c, res, time.Second) // carries the list over
		if v := rdb.Get(bg, mintKey(lock)).Val(); !strings.HasSuffix(v, "|"+late) {
			t.Fatalf("%s: :minted %q does not list the abandoned owner", res, v)
		}
		if err := l.Release(bg); err != nil {
			t.Fatal(err)
		}
		n, err := acquireScript.Run(bg, rdb, []string{lock, counter, mintKey(lock)}, late, 1000).Int64()
		if err != nil || n != -2 {
			t.Fatalf("%s: late first attempt = %d, %v; want -2", res, n, err)
		}
		if err := rdb.Del(bg, abandonKey(lock, late)).Err(); err != nil {
			t.Fatal(err)
		}
		l = mustAcquire(t, c, res, time.Second) // drops the owner
		if v := rdb.Get(bg, mintKey(lock)).Val(); strings.Contains(v+"|", "|"+late+"|") {
			t.Fatalf("%s: :minted %q still lists the owner %s whose mark is gone", res, v, late)
		} else if _, list, ok := strings.Cut(v, "|"); ok {
			// Another owner is listed only while its mark lives: the first
			// lease's Release sets one when go-redis wrote its Acquire twice
			// (a cluster client's first command may be redirected).
			for _, o := range strings.Split(list, "|") {
				if rdb.Exists(bg, abandonKey(lock, o)).Val() != 1 {
					t.Fatalf("%s: :minted %q lists %s, whose mark is gone", res, v, o)
				}
			}
		}
		if err := l.Release(bg); err != nil {
			t.Fatal(err)
		}
	}
}
