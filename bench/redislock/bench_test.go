// Package redislock compares the acquire+release cycle of fencegen's lease
// runtime with github.com/bsm/redislock's Obtain+Release on the same
// private redis-server in the same run. It is a module of its own so that
// redislock never enters fencegen's go.mod.
//
//	cd bench/redislock && go test -run '^$' -bench . -benchtime 5s -count 3
package redislock

import (
	"context"
	"fmt"
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
