package lease

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/runtime/fence"
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

// One renew_many call renews the leases whose key still holds their owner
// and reports the others as "not owner", by index, on both paths (a
// group's prebuilt command, and the per-lease command of other clients):
// the reply is the count renewed and the indices of the rest, and a
// renewed key has its TTL set again while the taken one keeps the other
// owner's value and TTL.
func TestRenewManyReportsTakenKeysByIndex(t *testing.T) {
	_, rdb, c := renewedByHand(t)
	const ttl = 10 * time.Second
	var leases []*Lease
	for i := range 5 {
		leases = append(leases, mustAcquire(t, c, fmt.Sprint("m", i), ttl))
	}
	for _, i := range []int{1, 4} { // taken over by someone else
		if err := rdb.Set(bg, leases[i].lockKey, "other:9", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	check := func(name string, res []renewResult) {
		t.Helper()
		for i, r := range res {
			want := i != 1 && i != 4
			if r.err != nil || r.ok != want || r.foreign == want {
				t.Errorf("%s: lease %d: %+v, want ok=%v (foreign: the key holds another value)", name, i, r, want)
			}
		}
	}
	// A deleted key is "not owner" too, told apart from a taken one
	// (trial t26s F3).
	deleted := func(name string, res []renewResult) {
		t.Helper()
		if r := res[2]; r.err != nil || r.ok || r.foreign {
			t.Errorf("%s: lease 2, its key deleted: %+v, want not owner, not foreign", name, r)
		}
		for _, i := range []int{0, 3} {
			if r := res[i]; r.err != nil || !r.ok {
				t.Errorf("%s: lease %d: %+v, want renewed", name, i, r)
			}
		}
	}
	for _, l := range leases {
		_ = rdb.PExpire(bg, l.lockKey, time.Second).Err()
	}
	check("renewMany", c.renewMany(bg, leases, nil))
	if d := rdb.PTTL(bg, leases[0].lockKey).Val(); d < 9*time.Second {
		t.Fatalf("renewed key has PTTL %v, want about %v", d, ttl)
	}
	for _, l := range leases {
		_ = rdb.PExpire(bg, l.lockKey, time.Second).Err()
	}
	g := &group{leases: leases}
	g.buildWire()
	check("wire", c.renewWires(bg, [][]any{g.wire}, []renewSend{{leases: leases}}, len(leases), nil))
	for i, l := range leases {
		d := rdb.PTTL(bg, l.lockKey).Val()
		if taken := i == 1 || i == 4; taken && d > 2*time.Second {
			t.Errorf("wire: taken key %d has PTTL %v, want its own (at most 1s) kept", i, d)
		} else if !taken && d < 9*time.Second {
			t.Errorf("wire: renewed key %d has PTTL %v, want about %v", i, d, ttl)
		}
	}
	if v := rdb.Get(bg, leases[4].lockKey).Val(); v != "other:9" {
		t.Fatalf("taken key = %q, want the other owner's value", v)
	}
	rdb.Del(bg, leases[2].lockKey)
	deleted("renewMany", c.renewMany(bg, leases, nil))
	deleted("wire", c.renewWires(bg, [][]any{g.wire}, []renewSend{{leases: leases}}, len(leases), nil))
}

// A renew_many reply that does not add up is an error for every lease of
// the call, never "not owner" and never a success.
func TestRenewManyReplyMustAddUp(t *testing.T) {
	for _, v := range [][]int64{nil, {2}, {4}, {2, 1, 1}, {1, 3, 2}, {2, 0}, {2, 4}, {-1, 1, 2, 3, 3}, {1, 2, -2}, {1, -3, 2}} {
		res := make([]renewResult, 3)
		decodeRange(res, v, nil)
		for i, r := range res {
			if r.err == nil {
				t.Errorf("reply %v: lease %d %+v, want an error", v, i, r)
			}
		}
	}
	res := make([]renewResult, 3)
	decodeRange(res, []int64{2, 2}, nil)
	if !res[0].ok || res[1].ok || !res[2].ok || res[0].err != nil || res[1].err != nil || res[1].foreign {
		t.Fatalf("reply {2, 2} = %+v, want ok, not owner (key missing), ok", res)
	}
	res = make([]renewResult, 3)
	decodeRange(res, []int64{1, 1, -3}, nil)
	if res[0].ok || res[0].foreign || !res[1].ok || res[2].ok || !res[2].foreign || res[2].err != nil {
		t.Fatalf("reply {1, 1, -3} = %+v, want not owner (key missing), ok, not owner (another value)", res)
	}
}

// hangRenewals is a go-redis hook that holds every call or pipeline
// carrying a renew_many call until release is closed, ignoring the call's context:
// a client call that outlives its deadline for whatever reason.
type hangRenewals struct{ release chan struct{} }

func (hangRenewals) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h hangRenewals) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, c redis.Cmder) error {
		// A batch of one renew_many call goes without a pipeline.
		if a := c.Args(); len(a) > 1 && a[1] == renewManyScript.Hash() {
			<-h.release
			return context.DeadlineExceeded
		}
		return next(ctx, c)
	}
}
func (h hangRenewals) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			if a := c.Args(); len(a) > 1 && a[1] == renewManyScript.Hash() {
				<-h.release
				return context.DeadlineExceeded
			}
		}
		return next(ctx, cmds)
	}
}

// A renewal batch whose call never returns, even on a client that
// enforces context deadlines itself (ContextTimeoutEnabled), is cut off at
// its bound (see renewBound: here HeartbeatInterval, before the leases'
// local deadline) and counted as a failed renewal: the leases are lost by
// their renewal failures (ReasonRenewFailed, the error a timeout), not
// silently at the local deadline by a scheduler still waiting for the
// call.
func TestHungRenewalIsCutOffWithinHeartbeatInterval(t *testing.T) {
	r := faults.StartRedis(t, faults.RedisOptions{})
	rdb := r.Client(&redis.Options{ContextTimeoutEnabled: true})
	h := hangRenewals{release: make(chan struct{})}
	var once sync.Once
	unhang := func() { once.Do(func() { close(h.release) }) }
	rdb.AddHook(h)
	c := New(rdb, &Options{MaxRenewFailures: 1})
	// Renewals every ≤ 200ms (the first 100–200ms after the acquire), each
	// cut off 200ms after its send, deadline 540ms after the acquire.
	const ttl = 600 * time.Millisecond
	var leases []*Lease
	for i := range 3 {
		l := mustAcquire(t, c, fmt.Sprint("h", i), ttl)
		defer l.Release(bg)
		leases = append(leases, l)
	}
	defer unhang() // first: a Release waits for the renewal in flight
	for _, l := range leases {
		waitDone(t, l.Context(), 2*time.Second)
		var lost *LostError
		if !errors.As(l.Err(), &lost) || lost.Reason != ReasonRenewFailed || !errors.Is(lost, ErrRedisTimeout) {
			t.Fatalf("lease %s ended with %v, want lost by a renewal that timed out", l.Resource(), l.Err())
		}
	}
}

// The renewal scripts compare each lock key's whole value with the lease's
// (its owner; "<owner>:<token>" from a client before the owner-only lock
// value), and fall back to the owner alone for a key that holds
// another value: acquire.lua before it wrote tokens as digits wrote a
// token of 1e14 and above in Lua's number format ("<owner>:1e+14"), not
// the decimal the lease sends, and such keys may still be held. A lease
// with such a key is renewed on every path (Renew, renew_many per lease
// and as a group's wire), and a key with the same token under another
// owner, or a missing key, still is not.
func TestRenewComparesValueAndOwnerOfLargeTokens(t *testing.T) {
	r, rdb, c := renewedByHand(t)
	const ttl = 10 * time.Second
	var leases []*Lease
	for i, at := range []int64{0, 1e14 - 2, 1e14 + 7, 123456789012345678, 0, 1e15} {
		res := fmt.Sprint("big", i)
		if at > 0 {
			if _, err := c.Advance(bg, res, fence.Token(at)); err != nil {
				t.Fatal(err)
			}
		}
		leases = append(leases, mustAcquire(t, c, res, ttl))
	}
	// Lease 2's key as an acquire script before the digits fix wrote it
	// (Lua's %.14g): the same owner, the token spelled otherwise; and
	// lease 2 sends its value as a client from before the owner-only lock
	// value did, "<owner>:<token>" (renew.lua and renew_many.lua are the
	// same scripts for both, so such a client's leases still renew).
	leases[2].value = leases[2].owner + ":" + leases[2].token.String()
	leases[2].valueArg = leases[2].value
	if err := rdb.Set(bg, leases[2].lockKey, leases[2].owner+":1.0000000000001e+14", ttl).Err(); err != nil {
		t.Fatal(err)
	}
	// Lease 4's key is taken by another owner with lease 4's token; lease
	// 5's is gone.
	if err := rdb.Set(bg, leases[4].lockKey, "0123456789abcdef0123456789abcdef:"+leases[4].token.String(), time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	r.Del(leases[5].lockKey)
	shorten := func() {
		for _, l := range leases[:4] {
			if err := rdb.PExpire(bg, l.lockKey, time.Second).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	renewed := func(name string, res []renewResult) {
		t.Helper()
		for i, l := range leases {
			want := i < 4
			if res[i].err != nil || res[i].ok != want {
				t.Errorf("%s: lease %d (token %d): %+v, want ok=%v", name, i, l.token, res[i], want)
			}
			if d := rdb.PTTL(bg, l.lockKey).Val(); want && d < 9*time.Second {
				t.Errorf("%s: lease %d (token %d): PTTL %v, want about %v", name, i, l.token, d, ttl)
			}
		}
	}
	shorten()
	renewed("renewMany", c.renewMany(bg, leases, nil))
	shorten()
	g := &group{leases: leases}
	g.buildWire()
	renewed("wire", c.renewWires(bg, [][]any{g.wire}, []renewSend{{leases: leases}}, len(leases), nil))
	shorten()
	res := make([]renewResult, len(leases))
	for i, l := range leases {
		res[i] = c.renew(bg, c.inline(bg), l.lockKey, l.value, millis(ttl), nil)
	}
	renewed("renew", res)
	for _, l := range leases[:4] {
		if err := l.Renew(bg); err != nil {
			t.Errorf("Renew of token %d: %v", l.token, err)
		}
	}
	if d := rdb.PTTL(bg, leases[4].lockKey).Val(); d < 50*time.Second {
		t.Fatalf("the other owner's key has PTTL %v, want its own minute kept", d)
	}
	if n := rdb.Exists(bg, leases[5].lockKey).Val(); n != 0 {
		t.Fatal("a missing key was re-created")
	}
}

// slowRenewals is a go-redis hook that delays every pipeline carrying a
// renew_many call by delay before sending it, unless the call's context
// ends first: a Redis that answers each renewal call that late.
type slowRenewals struct{ delay time.Duration }

func (slowRenewals) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (slowRenewals) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (h slowRenewals) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			if a := c.Args(); len(a) > 1 && a[1] == renewManyScript.Hash() {
				select {
				case <-time.After(h.delay):
				case <-ctx.Done():
					return ctx.Err()
				}
				break
			}
		}
		return next(ctx, cmds)
	}
}

// A Redis that is slow but alive keeps the leases: with every renewal call
// answered 1.4s late, later than CallTimeout (1s at TTL 6s) but well
// within the time the leases have left, the heartbeat waits for the
// renewals (see renewBound) and they succeed: no lease is lost over
// several renewal rounds. Bounded by CallTimeout alone, every renewal was
// cut off and counted as failed, and two in a row lost every lease. (At
// TTL 3s and 700ms, the same ratios, a CI machine under a load average
// of 20 with the race detector delayed a send past the slack a 3s lease
// leaves: the longer TTL keeps the ratios and doubles the slack.)
func TestSlowRedisKeepsLeases(t *testing.T) {
	r := faults.StartRedis(t, faults.RedisOptions{})
	rdb := r.Client(&redis.Options{ContextTimeoutEnabled: true})
	rdb.AddHook(slowRenewals{delay: 1400 * time.Millisecond})
	var renewed, failed atomic.Int64
	c := New(rdb, &Options{Observer: &Observer{
		OnRenewed:     func(string, fence.Token) { renewed.Add(1) },
		OnRenewFailed: func(string, fence.Token, error, int) { failed.Add(1) },
	}})
	const n, ttl = 200, 6 * time.Second
	leases := make([]*Lease, n)
	for i := range leases {
		leases[i] = mustAcquire(t, c, fmt.Sprint("slow", i), ttl)
		defer leases[i].Release(bg)
	}
	time.Sleep(3 * ttl) // at least six renewal rounds
	for _, l := range leases {
		if err := l.Err(); err != nil {
			t.Fatalf("lease %s lost while Redis answered renewals in 1.4s: %v (%d renewals, %d failed)", l.Resource(), err, renewed.Load(), failed.Load())
		}
	}
	if got := renewed.Load(); got < 2*n {
		t.Fatalf("%d renewals of %d leases in %v, want each renewed more than once", got, n, 3*ttl)
	}
	t.Logf("%d renewals, %d failed", renewed.Load(), failed.Load())
}

// renew_many reads its keys in slices of 100: a call of 250 leases reports
// the taken and missing keys on the edges of the slices by their index,
// renews the others, and leaves the taken keys' values as they are.
func TestRenewManyAcrossSlices(t *testing.T) {
	r, rdb, c := renewedByHand(t)
	const n, ttl = 250, 10 * time.Second
	leases := make([]*Lease, n)
	for i := range leases {
		leases[i] = mustAcquire(t, c, fmt.Sprint("s", i), ttl)
	}
	taken := map[int]bool{0: true, 99: true, 100: true, 199: true, 249: true}
	for i := range taken {
		if err := rdb.Set(bg, leases[i].lockKey, "other:1", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	r.Del(leases[150].lockKey)
	taken[150] = true
	check := func(name string, res []renewResult) {
		t.Helper()
		for i, r := range res {
			if r.err != nil || r.ok == taken[i] {
				t.Errorf("%s: lease %d: %+v, want ok=%v", name, i, r, !taken[i])
			}
		}
	}
	check("renewMany", c.renewMany(bg, leases, nil))
	g := &group{leases: leases}
	g.buildWire()
	check("wire", c.renewWires(bg, [][]any{g.wire}, []renewSend{{leases: leases}}, n, nil))
	if v := rdb.Get(bg, leases[199].lockKey).Val(); v != "other:1" {
		t.Fatalf("taken key = %q, want the other owner's value", v)
	}
	if rdb.Exists(bg, leases[150].lockKey).Val() != 0 {
		t.Fatal("a missing key was re-created")
	}
}

// renewedByHand starts a private redis-server and returns it, a client
// with ContextTimeoutEnabled, and a lease Client without heartbeat: its
// leases are renewed only where the test renews them.
func renewedByHand(t *testing.T) (*faults.Redis, *redis.Client, *Client) {
	t.Helper()
	r := faults.StartRedis(t, faults.RedisOptions{})
	rdb := r.Client(&redis.Options{ContextTimeoutEnabled: true})
	return r, rdb, New(rdb, &Options{HeartbeatInterval: -1})
}
