package lease

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/faults"
)

// BenchmarkAcquireRelease measures the acquire+release cycle on a private
// redis-server (see bench/redislock for the comparison with bsm/redislock).
//
//	go test -run '^$' -bench AcquireRelease ./runtime/lease
func BenchmarkAcquireRelease(b *testing.B) {
	r := faults.StartRedis(b, faults.RedisOptions{})
	c := New(r.Client(&redis.Options{ContextTimeoutEnabled: true}), nil)
	for i := 0; b.Loop(); i++ {
		l, err := c.Acquire(bg, strconv.Itoa(i%64), 10*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(bg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHold10000Leases holds 10,000 leases at TTL 3s for
// FENCEGEN_SOAK (a duration, e.g. 60s; the benchmark is skipped without it)
// and reports the process CPU time per wall second (cpu-cores), the peak
// RSS, and fails if any lease was lost.
//
//	FENCEGEN_SOAK=60s go test -run '^$' -bench Hold10000 -benchtime 1x ./runtime/lease
func BenchmarkHold10000Leases(b *testing.B) {
	soak, err := time.ParseDuration(os.Getenv("FENCEGEN_SOAK"))
	if err != nil {
		b.Skip("set FENCEGEN_SOAK=60s to run the 10,000-lease soak")
	}
	r := faults.StartRedis(b, faults.RedisOptions{})
	c := New(r.Client(&redis.Options{ContextTimeoutEnabled: true}), nil)
	for b.Loop() {
		const n = 10000
		leases := make([]*Lease, n)
		for i := range leases {
			leases[i] = mustAcquireB(b, c, fmt.Sprint("soak:", i), 3*time.Second)
		}
		cpu0, wall0 := cpuTime(), time.Now()
		time.Sleep(soak)
		cpu, wall := cpuTime()-cpu0, time.Since(wall0)
		lost := 0
		for _, l := range leases {
			if l.Err() != nil {
				lost++
			}
			_ = l.Release(bg)
		}
		b.ReportMetric(cpu.Seconds()/wall.Seconds(), "cpu-cores")
		b.ReportMetric(float64(rssKB())/1024, "peak-RSS-MiB")
		b.ReportMetric(float64(c.Stats().Renewals)/wall.Seconds(), "renewals/s")
		if lost > 0 {
			b.Fatalf("%d of %d leases lost", lost, n)
		}
	}
}

func mustAcquireB(b *testing.B, c *Client, res string, ttl time.Duration) *Lease {
	l, err := c.Acquire(bg, res, ttl)
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// cpuTime returns the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rssKB returns the peak resident set size (VmHWM) in KiB.
func rssKB() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
