package lease

import (
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/faults"
)

// The hash slot follows the Redis Cluster specification's reference value
// (CRC16 of "123456789" is 0x31C3) and agrees with the server's
// CLUSTER KEYSLOT for the package's keys.
func TestSlotMatchesRedisCluster(t *testing.T) {
	if got := slot("123456789"); got != 0x31C3%16384 {
		t.Fatalf("slot(123456789) = %d, want %d", got, 0x31C3%16384)
	}
	node := faults.StartRedis(t, faults.RedisOptions{Cluster: true}) // CLUSTER KEYSLOT needs cluster mode
	for _, res := range []string{"a", "account:42", "soak:99999", "ü"} {
		lock, _ := New(node.Admin(), nil).Keys(res)
		want, err := node.Admin().ClusterKeySlot(bg, lock).Result()
		if err != nil {
			t.Fatalf("CLUSTER KEYSLOT: %v", err)
		}
		if got := slot(res); int64(got) != want {
			t.Errorf("slot(%q) = %d, server says %d", res, got, want)
		}
	}
}

// Leases due together are renewed with one renew_many script call per
// renewChunk leases, not one call per lease: 2,500 leases at TTL 600ms
// take a few EVALSHA calls per renewal round, and none is lost.
func TestBatchedRenewalIsOneCallPerChunk(t *testing.T) {
	r := faults.StartRedis(t, faults.RedisOptions{})
	c := New(r.Client(&redis.Options{ContextTimeoutEnabled: true}), nil)
	const n, ttl = 2500, 900 * time.Millisecond
	leases := make([]*Lease, n)
	for i := range leases {
		leases[i] = mustAcquire(t, c, fmt.Sprint("b", i), ttl)
	}
	r.ResetStats()
	before := c.Stats().Renewals
	time.Sleep(2 * ttl)
	calls := r.CommandCalls()
	renewed := c.Stats().Renewals - before
	for _, l := range leases {
		if l.Err() != nil {
			t.Fatalf("lease lost: %v", l.Err())
		}
		_ = l.Release(bg)
	}
	if renewed < 2*n {
		t.Fatalf("%d lease renewals in 2 TTLs for %d leases, want at least %d", renewed, n, 2*n)
	}
	if calls["evalsha"] > int64(renewed)/50 {
		t.Fatalf("%d EVALSHA calls for %d lease renewals: not batched", calls["evalsha"], renewed)
	}
	t.Logf("%d lease renewals in %d EVALSHA calls", renewed, calls["evalsha"])
}
