package etcdlease

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fencegen/fencegen/internal/faults/etcdfaults"
)

// BenchmarkRenewRound renews n leases due together, as the heartbeats of
// n leases of one TTL do, in rotating order each iteration: "stream" on
// the Client's shared keep-alive stream (what the heartbeat does),
// "once" with clientv3's KeepAliveOnce, a stream opened and closed per
// renewal (what it did before). ratio is once's median round over
// stream's (≥ 1: the shared stream is at least as fast).
//
//	go test ./runtime/lease/etcdlease -run '^$' -bench RenewRound -benchtime 200x -count 3
func BenchmarkRenewRound(b *testing.B) {
	for _, n := range []int{1, 100} {
		b.Run(fmt.Sprint("leases=", n), func(b *testing.B) { renewRound(b, n) })
	}
}

func renewRound(b *testing.B, n int) {
	e := etcdfaults.Start(b, 1)
	cli := e.Client()
	c := New(cli, &Options{TTL: time.Minute, HeartbeatInterval: -1})
	ctx := context.Background()
	var ids []clientv3.LeaseID
	for i := range n {
		l, err := c.Acquire(ctx, fmt.Sprint("r", i), 0)
		if err != nil {
			b.Fatal(err)
		}
		defer l.Release(ctx)
		ids = append(ids, l.id)
	}
	round := func(renew func(clientv3.LeaseID) error) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for _, id := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := renew(id); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	stream := func(id clientv3.LeaseID) error {
		ttl, err := c.ka.renew(ctx, id)
		if err == nil && ttl <= 0 {
			err = fmt.Errorf("lease %x not found", id)
		}
		return err
	}
	once := func(id clientv3.LeaseID) error {
		_, err := cli.KeepAliveOnce(ctx, id)
		return err
	}
	var ts, to []time.Duration
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			ts = append(ts, round(stream))
			to = append(to, round(once))
		} else {
			to = append(to, round(once))
			ts = append(ts, round(stream))
		}
	}
	b.StopTimer()
	med := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	ms, mo := med(ts), med(to)
	b.ReportMetric(float64(ms.Microseconds()), "stream-µs/round")
	b.ReportMetric(float64(mo.Microseconds()), "once-µs/round")
	b.ReportMetric(float64(mo)/float64(ms), "ratio")
}
