package lease

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
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

// BenchmarkHold10000Leases and BenchmarkHold100000Leases hold that many
// leases in one process (one Client) at TTL 3s for FENCEGEN_SOAK (a
// duration, e.g. 60s; skipped without it) on a private redis-server, and
// report the client process's CPU time per wall second (cpu-cores), the
// Redis server's (redis-cpu-cores, from INFO CPU used_cpu_user +
// used_cpu_sys), the server's time in the scripts per lease renewal
// (redis-µs/renewal, from INFO commandstats), the peak RSS and the renewal
// rate; they fail if any lease
// was lost. FENCEGEN_SOAK_CPUPROFILE names a file for a CPU profile of the
// soak alone.
//
//	FENCEGEN_SOAK=60s go test -run '^$' -bench 'Hold(10000|100000)Leases' -benchtime 1x -timeout 30m ./runtime/lease
func BenchmarkHold10000Leases(b *testing.B)  { holdLeases(b, 10000) }
func BenchmarkHold100000Leases(b *testing.B) { holdLeases(b, 100000) }

func holdLeases(b *testing.B, n int) {
	soak, err := time.ParseDuration(os.Getenv("FENCEGEN_SOAK"))
	if err != nil {
		b.Skip("set FENCEGEN_SOAK=60s to run the lease soak")
	}
	r := faults.StartRedis(b, faults.RedisOptions{MaxLifetime: soak + 20*time.Minute})
	c := New(r.Client(&redis.Options{ContextTimeoutEnabled: true}), nil)
	for b.Loop() {
		leases := make([]*Lease, n)
		var wg sync.WaitGroup
		const workers = 16
		errs := make(chan error, workers)
		for w := range workers {
			wg.Go(func() {
				for i := w; i < n; i += workers {
					// AcquireWait: on a loaded machine an attempt can time
					// out (CallTimeout 500ms) or come back too late.
					ctx, cancel := context.WithTimeout(bg, time.Minute)
					l, err := c.AcquireWait(ctx, fmt.Sprint("soak:", i), 3*time.Second)
					cancel()
					if err != nil {
						errs <- err
						return
					}
					leases[i] = l
				}
			})
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
		renewals0 := c.Stats().Renewals
		stopProfile := soakProfile(b)
		cpu0, rcpu0, rus0, wall0 := cpuTime(), redisCPU(b, r), scriptUsec(b, r), time.Now()
		time.Sleep(soak)
		cpu, rcpu, rus, wall := cpuTime()-cpu0, redisCPU(b, r)-rcpu0, scriptUsec(b, r)-rus0, time.Since(wall0)
		stopProfile()
		renewals := c.Stats().Renewals - renewals0
		c.hb.mu.Lock()
		state := fmt.Sprintf("scheduler: %d groups queued, %d batches in flight, %d live leases", len(c.hb.q), c.hb.batches, c.hb.live)
		c.hb.mu.Unlock()
		lost := 0
		reasons := map[string]int{}
		for _, l := range leases {
			if err := l.Err(); err != nil {
				lost++
				var le *LostError
				if errors.As(err, &le) {
					reasons[string(le.Reason)+": "+fmt.Sprint(le.Err)]++
				}
			}
			_ = l.Release(bg)
		}
		if lost > 0 {
			b.Log(state)
			n := 0
			for r, k := range reasons {
				if n++; n <= 5 {
					b.Logf("%d lost by %s", k, r)
				}
			}
		}
		b.ReportMetric(cpu.Seconds()/wall.Seconds(), "cpu-cores")
		b.ReportMetric(rcpu.Seconds()/wall.Seconds(), "redis-cpu-cores")
		b.ReportMetric(float64(rssKB())/1024, "peak-RSS-MiB")
		b.ReportMetric(float64(renewals)/wall.Seconds(), "renewals/s")
		if renewals > 0 {
			b.ReportMetric(float64(rus)/float64(renewals), "redis-µs/renewal")
		}
		b.ReportMetric(float64(lost), "lost")
		if lost > 0 {
			b.Fatalf("%d of %d leases lost", lost, n)
		}
	}
}

// soakProfile starts a CPU profile of the soak alone (not the acquires
// before it) into the file FENCEGEN_SOAK_CPUPROFILE names, if set, and
// returns the function that stops it.
func soakProfile(b *testing.B) func() {
	name := os.Getenv("FENCEGEN_SOAK_CPUPROFILE")
	if name == "" {
		return func() {}
	}
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}

// redisCPU returns the server's user+system CPU time from INFO CPU.
func redisCPU(b *testing.B, r *faults.Redis) time.Duration {
	var total float64
	for _, v := range infoValues(b, r, "cpu", "used_cpu_user:", "used_cpu_sys:") {
		f, _ := strconv.ParseFloat(v, 64)
		total += f
	}
	return time.Duration(total * float64(time.Second))
}

// scriptUsec returns the microseconds the server spent in EVALSHA and EVAL
// calls (INFO commandstats usec, the whole script with the commands it
// runs), so that the Lua cost per renewal is read apart from the load.
func scriptUsec(b *testing.B, r *faults.Redis) int64 {
	var total int64
	for _, rest := range infoValues(b, r, "commandstats", "cmdstat_evalsha:", "cmdstat_eval:") {
		for _, f := range strings.Split(rest, ",") {
			if v, ok := strings.CutPrefix(f, "usec="); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				total += n
			}
		}
	}
	return total
}

// infoValues returns what follows each of keys on the lines of INFO
// section that start with it.
func infoValues(b *testing.B, r *faults.Redis, section string, keys ...string) []string {
	info, err := r.Admin().Info(bg, section).Result()
	if err != nil {
		b.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		for _, k := range keys {
			if v, ok := strings.CutPrefix(line, k); ok {
				out = append(out, v)
			}
		}
	}
	return out
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
