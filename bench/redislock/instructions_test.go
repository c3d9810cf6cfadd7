package redislock

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bsm/redislock"
	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/runtime/lease"
)

// BenchmarkServerInstructions counts the instructions redis-server runs
// per acquire+release cycle of each library: a private redis-server runs
// under valgrind's callgrind, which counts every instruction the server
// executes (its event loop, the RESP parsing of the commands, the scripts,
// the Lua garbage collector) whatever else the machine runs, so the figure
// is the same on a loaded machine as on a quiet one, unlike wall time.
// wire-in-B/cycle and wire-out-B/cycle are the bytes the server read and
// wrote per cycle (INFO stats total_net_input_bytes and
// total_net_output_bytes), counted the same way.
// Each variant runs warmCycles cycles on one server and warmCycles + b.N on
// another; server-instr/cycle is the difference of the two totals over b.N
// (the server's start, shutdown and warm-up cancel out). ratio is
// redislock's count over the lease's (≥ 1: the lease costs the server no
// more than redislock), reported on the lease's sub-benchmark.
//
// Skipped when valgrind is not installed. Use a fixed count (Nx): a cycle
// takes about half a millisecond under callgrind.
//
//	cd bench/redislock && go test -run '^$' -bench ServerInstructions -benchtime 2000x -count 1
func BenchmarkServerInstructions(b *testing.B) {
	ctx := context.Background()
	countInstructions(b, []instrVariant{
		{"bsm-redislock", func(_ *testing.B, rdb *redis.Client) func(string) error {
			return redislockCycle(ctx, redislock.New(rdb))
		}},
		{"fencegen-lease", func(_ *testing.B, rdb *redis.Client) func(string) error { return leaseCycle(ctx, lease.New(rdb, nil)) }},
	})
}

// BenchmarkScriptInstructions counts, as BenchmarkServerInstructions does,
// redis-server's instructions per cycle of each script pair of
// BenchmarkScriptWrites sent bare (go-redis Do, no lease code around
// them), after bsm/redislock and the lease for reference: what each key
// write, call and argument costs the server, without the wall-time noise
// of a shared machine. ratio is redislock's count over the variant's.
//
//	cd bench/redislock && go test -run '^$' -bench ScriptInstructions -benchtime 4000x -count 1
func BenchmarkScriptInstructions(b *testing.B) {
	ctx := context.Background()
	variants := []instrVariant{
		{"bsm-redislock", func(_ *testing.B, rdb *redis.Client) func(string) error {
			return redislockCycle(ctx, redislock.New(rdb))
		}},
		{"fencegen-lease", func(_ *testing.B, rdb *redis.Client) func(string) error { return leaseCycle(ctx, lease.New(rdb, nil)) }},
	}
	for _, p := range scriptPairs(b) {
		variants = append(variants, instrVariant{p.name, func(b *testing.B, rdb *redis.Client) func(string) error {
			return p.cycle(b, ctx, rdb, "w:{")
		}})
	}
	countInstructions(b, variants)
}

// instrVariant is a cycle whose server instructions countInstructions
// counts: cycle returns it on a client of the server under callgrind.
type instrVariant struct {
	name  string
	cycle func(b *testing.B, rdb *redis.Client) func(string) error
}

// countInstructions runs each variant as a sub-benchmark that reports
// server-instr/cycle, wire-in-B/cycle and wire-out-B/cycle (see
// BenchmarkServerInstructions), and ratio, the first variant's count over
// its own, on every variant after the first. Skipped when valgrind is not
// installed.
func countInstructions(b *testing.B, variants []instrVariant) {
	valgrind, err := exec.LookPath("valgrind")
	if err != nil {
		b.Skip("SKIP: valgrind not installed: server instruction counts need callgrind")
	}
	server := faults.RedisBinary(b, "redis-server")
	var first float64
	for i, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			if b.N == 1 {
				// testing.B's first call, which only sizes N: two servers
				// under callgrind for one cycle tell nothing.
				return
			}
			newCycle := func(rdb *redis.Client) func(string) error { return v.cycle(b, rdb) }
			base := serverInstructions(b, valgrind, server, newCycle, warmCycles)
			total := serverInstructions(b, valgrind, server, newCycle, warmCycles+b.N)
			n := float64(total.instructions-base.instructions) / float64(b.N)
			b.ReportMetric(n, "server-instr/cycle")
			b.ReportMetric(float64(total.in-base.in)/float64(b.N), "wire-in-B/cycle")
			b.ReportMetric(float64(total.out-base.out)/float64(b.N), "wire-out-B/cycle")
			if i == 0 {
				first = n
			} else if first > 0 {
				b.ReportMetric(first/n, "ratio")
			}
		})
	}
}

// warmCycles is the number of cycles both servers of a
// BenchmarkServerInstructions variant run (scripts loaded, connections
// made, the lease's replica check done).
const warmCycles = 200

// serverCount is what serverInstructions counted on one server.
type serverCount struct {
	instructions int64 // executed by redis-server, start to exit
	in, out      int64 // bytes read and written on its connections
}

// serverInstructions starts redis-server under callgrind on a free port,
// runs cycles cycles of the variant made by newCycle on it, shuts it down
// and returns what it counted.
func serverInstructions(b *testing.B, valgrind, server string, newCycle func(*redis.Client) func(string) error, cycles int) serverCount {
	b.Helper()
	dir := b.TempDir()
	out := filepath.Join(dir, "callgrind.out")
	port := faults.FreePort(b)
	cmd := exec.Command(valgrind, "--tool=callgrind", "--callgrind-out-file="+out,
		server, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--hz", "1", "--dir", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.Fatalf("valgrind redis-server: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			_ = c.Close()
			break
		}
		if time.Since(start) > time.Minute {
			b.Fatalf("redis-server under callgrind did not listen within a minute: %s", stderr.String())
		}
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second})
	defer rdb.Close() // on a failed cycle; closed again below is harmless
	ctx := context.Background()
	b.ResetTimer()
	cycle, names := newCycle(rdb), cycleNames("r")
	for i := range cycles {
		if err := cycle(names[i%len(names)]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	_ = rdb.Close()
	// SHUTDOWN closes the connection before a reply: no retry, no redial.
	admin := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialerRetries: 1})
	var count serverCount
	info, err := admin.Info(ctx, "stats").Result()
	if err != nil {
		b.Fatalf("INFO stats: %v", err)
	}
	count.in, count.out = infoField(b, info, "total_net_input_bytes"), infoField(b, info, "total_net_output_bytes")
	_ = admin.Shutdown(ctx).Err()
	_ = admin.Close()
	select {
	case <-exited:
		stopped = true
	case <-time.After(time.Minute):
		b.Fatal("redis-server under callgrind did not exit within a minute of SHUTDOWN")
	}
	count.instructions = callgrindTotal(b, out)
	return count
}

// infoField returns the integer field name of an INFO reply.
func infoField(b *testing.B, info, name string) int64 {
	b.Helper()
	for line := range strings.SplitSeq(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatalf("INFO %s: %q: %v", name, v, err)
			}
			return n
		}
	}
	b.Fatalf("INFO has no %s", name)
	return 0
}

// callgrindTotal returns the instruction total of a callgrind output file
// (its "totals:" line, or "summary:" in older versions).
func callgrindTotal(b *testing.B, path string) int64 {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatalf("callgrind output: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		for _, p := range []string{"totals:", "summary:"} {
			if rest, ok := strings.CutPrefix(line, p); ok {
				n, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
				if err != nil {
					b.Fatalf("callgrind output %s: %q: %v", path, line, err)
				}
				return n
			}
		}
	}
	b.Fatalf("callgrind output %s has no totals line (%v)", path, sc.Err())
	return 0
}
