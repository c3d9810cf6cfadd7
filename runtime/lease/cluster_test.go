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
	const ttl = 600 * time.Millisecond
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
