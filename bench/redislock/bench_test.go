// Package redislock compares the acquire+release cycle of fencegen's lease
// runtime with github.com/bsm/redislock's Obtain+Release on the same
// private redis-server in the same run. It is a module of its own so that
// redislock never enters fencegen's go.mod.
//
//	cd bench/redislock && go test -run '^$' -bench . -benchtime 5s -count 3
//
// BenchmarkCycleInterleaved gives the ratio from one run: each iteration
// runs one cycle of each library, in alternating order, so that both see
// the same load on a shared machine.
package redislock

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/bsm/redislock"
	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/runtime/lease"
)

func BenchmarkCycle(b *testing.B) {
	r := faults.StartRedis(b, faults.RedisOptions{})
	rdb := r.Client(&redis.Options{ContextTimeoutEnabled: true})
	ctx := context.Background()
	const ttl = 10 * time.Second

	b.Run("fencegen-lease", func(b *testing.B) {
		c := lease.New(rdb, nil)
		for i := 0; b.Loop(); i++ {
			l, err := c.Acquire(ctx, fmt.Sprint("r", i%64), ttl)
			if err != nil {
				b.Fatal(err)
			}
			if err := l.Release(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bsm-redislock", func(b *testing.B) {
		c := redislock.New(rdb)
		for i := 0; b.Loop(); i++ {
			l, err := c.Obtain(ctx, fmt.Sprint("r", i%64), ttl, nil)
			if err != nil {
				b.Fatal(err)
			}
			if err := l.Release(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCycleInterleaved runs one fencegen lease cycle (Acquire +
// Release), one bsm/redislock cycle (Obtain + Release) and one
// bsm/redislock cycle that also takes a fencing token (Obtain, INCR of a
// counter key, Release: what a redislock user has to add for Kleppmann's
// fencing token, one more round trip) per iteration, rotating which goes
// first, on the same client and server. It reports each variant's median
// µs per cycle and two ratios, the peer's median over fencegen's: ratio
// (redislock, the lock alone) and ratio-fenced (redislock with a token).
// ≥ 1 means fencegen is at least as fast.
//
//	cd bench/redislock && go test -run '^$' -bench CycleInterleaved -benchtime 20000x -count 3
func BenchmarkCycleInterleaved(b *testing.B) {
	r := faults.StartRedis(b, faults.RedisOptions{})
	rdb := r.Client(&redis.Options{ContextTimeoutEnabled: true})
	ctx := context.Background()
	const ttl = 10 * time.Second
	lc, rc := lease.New(rdb, nil), redislock.New(rdb)
	names := make([]string, 64)
	for i := range names {
		names[i] = fmt.Sprint("r", i)
	}
	fencegen := func(i int) {
		l, err := lc.Acquire(ctx, names[i%64], ttl)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			b.Fatal(err)
		}
	}
	bsm := func(i int) {
		l, err := rc.Obtain(ctx, "b"+names[i%64], ttl, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			b.Fatal(err)
		}
	}
	bsmToken := func(i int) {
		l, err := rc.Obtain(ctx, "t"+names[i%64], ttl, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := rdb.Incr(ctx, "t"+names[i%64]+":token").Err(); err != nil {
			b.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			b.Fatal(err)
		}
	}
	variants := []func(int){fencegen, bsm, bsmToken}
	times := make([][]time.Duration, len(variants))
	for i := 0; b.Loop(); i++ {
		for k := range variants {
			v := (i + k) % len(variants)
			start := time.Now()
			variants[v](i)
			times[v] = append(times[v], time.Since(start))
		}
	}
	median := func(d []time.Duration) time.Duration {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2]
	}
	mf, mb, mt := median(times[0]), median(times[1]), median(times[2])
	b.ReportMetric(float64(mf.Nanoseconds())/1e3, "lease-µs")
	b.ReportMetric(float64(mb.Nanoseconds())/1e3, "redislock-µs")
	b.ReportMetric(float64(mt.Nanoseconds())/1e3, "redislock+token-µs")
	b.ReportMetric(float64(mb)/float64(mf), "ratio")
	b.ReportMetric(float64(mt)/float64(mf), "ratio-fenced")
}
