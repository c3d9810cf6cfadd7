// Package etcd compares the acquire+release cycle of fencegen's etcd lease
// (runtime/lease/etcdlease) with etcd's own concurrency.Mutex and Session
// doing the same job, on the same private etcd member in the same run. It
// is a module of its own, like bench/redislock, so that the comparison
// and its peer stay out of fencegen's go.mod.
//
//	cd bench/etcd && go test -run '^$' -bench 'CycleInterleaved$' -benchtime 2000x -count 3
//
// Each iteration runs, in rotating order so that all see the same load:
//   - lease: etcdlease's Acquire (LeaseGrant, then one transaction that
//     puts the lock key attached to the lease; the token is its create
//     revision) and Release (a compare-and-delete transaction, then
//     LeaseRevoke);
//   - mutex: what a concurrency user writes for the same job, a lock with
//     a TTL of its own and a fencing token (the Mutex key's create
//     revision, Mutex.Header().Revision): NewSession with that TTL,
//     Mutex.Lock, Mutex.Unlock, Session.Close;
//   - mutex-shared: Lock and Unlock on one Session made before the run, a
//     different job (every lock shares one lease, and one lost lease ends
//     them all), reported so that the cost of a lease per acquisition is
//     visible.
//
// ratio is mutex's median over lease's (≥ 1 means fencegen's cycle is at
// least as fast); ratio-shared the same against mutex-shared.
package etcd

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/fencegen/fencegen/internal/faults/etcdfaults"
	"github.com/fencegen/fencegen/runtime/lease/etcdlease"
)

// cycleTTL is the TTL of every benchmarked lease and session.
const cycleTTL = 10 * time.Second

func BenchmarkCycleInterleaved(b *testing.B) {
	e := etcdfaults.Start(b, 1)
	cli := e.Client()
	ctx := context.Background()
	c := etcdlease.New(cli, nil)
	lease := func(name string) error {
		l, err := c.Acquire(ctx, name, cycleTTL)
		if err != nil {
			return err
		}
		return l.Release(ctx)
	}
	mutex := func(name string) error {
		s, err := concurrency.NewSession(cli, concurrency.WithTTL(int(cycleTTL/time.Second)), concurrency.WithContext(ctx))
		if err != nil {
			return err
		}
		m := concurrency.NewMutex(s, name)
		if err := m.Lock(ctx); err != nil {
			return err
		}
		if m.Header().Revision <= 0 {
			return fmt.Errorf("no token")
		}
		if err := m.Unlock(ctx); err != nil {
			return err
		}
		return s.Close()
	}
	shared, err := concurrency.NewSession(cli, concurrency.WithTTL(int(cycleTTL/time.Second)))
	if err != nil {
		b.Fatal(err)
	}
	defer shared.Close()
	mutexShared := func(name string) error {
		m := concurrency.NewMutex(shared, name)
		if err := m.Lock(ctx); err != nil {
			return err
		}
		return m.Unlock(ctx)
	}
	m := interleave(b, []func(string) error{lease, mutex, mutexShared}, "/l/", "/m/", "/s/")
	b.ReportMetric(float64(m[0].Nanoseconds())/1e3, "lease-µs")
	b.ReportMetric(float64(m[1].Nanoseconds())/1e3, "mutex-µs")
	b.ReportMetric(float64(m[2].Nanoseconds())/1e3, "mutex-shared-µs")
	b.ReportMetric(float64(m[1])/float64(m[0]), "ratio")
	b.ReportMetric(float64(m[2])/float64(m[0]), "ratio-shared")
}

// interleave runs each variant once per benchmark iteration on its own
// resource names, rotating which goes first, and returns each variant's
// median time.
func interleave(b *testing.B, variants []func(string) error, prefixes ...string) []time.Duration {
	times := make([][]time.Duration, len(variants))
	for i := 0; b.Loop(); i++ {
		for k := range variants {
			v := (i + k) % len(variants)
			start := time.Now()
			if err := variants[v](fmt.Sprint(prefixes[v], i%64)); err != nil {
				b.Fatal(err)
			}
			times[v] = append(times[v], time.Since(start))
		}
	}
	medians := make([]time.Duration, len(times))
	for k, d := range times {
		slices.Sort(d)
		medians[k] = d[len(d)/2]
	}
	return medians
}
