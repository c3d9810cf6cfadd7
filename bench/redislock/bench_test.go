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
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
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
	b.Run("fencegen-lease", func(b *testing.B) {
		loopCycles(b, cycleNames("r"), leaseCycle(ctx, lease.New(rdb, nil)))
	})
	b.Run("bsm-redislock", func(b *testing.B) {
		loopCycles(b, cycleNames("b"), redislockCycle(ctx, redislock.New(rdb)))
	})
}

// cycleTTL is the TTL of every benchmarked lease and lock.
const cycleTTL = 10 * time.Second

// cycleNames returns the 64 resource names a benchmark rotates through.
func cycleNames(prefix string) []string {
	names := make([]string, 64)
	for i := range names {
		names[i] = fmt.Sprint(prefix, i)
	}
	return names
}

// leaseCycle returns one fencegen lease cycle on a resource: Acquire
// (which mints a fencing token) and Release.
func leaseCycle(ctx context.Context, c *lease.Client) func(name string) error {
	return func(name string) error {
		l, err := c.Acquire(ctx, name, cycleTTL)
		if err != nil {
			return err
		}
		return l.Release(ctx)
	}
}

// redislockCycle returns one bsm/redislock cycle on a resource: Obtain
// and Release, a lock without a token.
func redislockCycle(ctx context.Context, c *redislock.Client) func(name string) error {
	return func(name string) error {
		l, err := c.Obtain(ctx, name, cycleTTL, nil)
		if err != nil {
			return err
		}
		return l.Release(ctx)
	}
}

// loopCycles runs cycle on names in turn, once per benchmark iteration.
func loopCycles(b *testing.B, names []string, cycle func(name string) error) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := cycle(names[i%len(names)]); err != nil {
			b.Fatal(err)
		}
	}
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
// The go-redis client sets ContextTimeoutEnabled, as the lease package
// recommends: each call is then made in the calling goroutine, go-redis
// putting the call's deadline on the socket.
//
//	cd bench/redislock && go test -run '^$' -bench CycleInterleaved -benchtime 20000x -count 3
func BenchmarkCycleInterleaved(b *testing.B) {
	cycleInterleaved(b, &redis.Options{ContextTimeoutEnabled: true})
}

// BenchmarkCycleInterleavedDefaultClient is BenchmarkCycleInterleaved on
// a go-redis client with its defaults (ContextTimeoutEnabled off): go-redis
// then ignores context deadlines on its sockets, so the lease runs each
// call in a goroutine of its own to cut it off at its deadline (see the
// package documentation), which costs a goroutine hand-off per round trip.
// redislock makes the call in the calling goroutine and waits for go-redis's
// ReadTimeout (3s by default) instead.
func BenchmarkCycleInterleavedDefaultClient(b *testing.B) {
	cycleInterleaved(b, &redis.Options{})
}

func cycleInterleaved(b *testing.B, opts *redis.Options) {
	r := faults.StartRedis(b, faults.RedisOptions{})
	rdb := r.Client(opts)
	ctx := context.Background()
	rc := redislock.New(rdb)
	fencegen, bsm := leaseCycle(ctx, lease.New(rdb, nil)), redislockCycle(ctx, rc)
	bsmToken := func(name string) error {
		l, err := rc.Obtain(ctx, name, cycleTTL, nil)
		if err != nil {
			return err
		}
		if err := rdb.Incr(ctx, name+":token").Err(); err != nil {
			return err
		}
		return l.Release(ctx)
	}
	m := interleave(b, []func(string) error{fencegen, bsm, bsmToken}, "r", "b", "t")
	mf, mb, mt := m[0], m[1], m[2]
	b.ReportMetric(float64(mf.Nanoseconds())/1e3, "lease-µs")
	b.ReportMetric(float64(mb.Nanoseconds())/1e3, "redislock-µs")
	b.ReportMetric(float64(mt.Nanoseconds())/1e3, "redislock+token-µs")
	b.ReportMetric(float64(mb)/float64(mf), "ratio")
	b.ReportMetric(float64(mt)/float64(mf), "ratio-fenced")
}

// interleave runs each variant once per benchmark iteration, on its own
// resource names (cycleNames of its prefix), rotating which goes first so
// that all see the same load, and returns each variant's median time.
func interleave(b *testing.B, variants []func(string) error, prefixes ...string) []time.Duration {
	names := make([][]string, len(variants))
	for k := range names {
		names[k] = cycleNames(prefixes[k])
	}
	times := make([][]time.Duration, len(variants))
	for i := 0; b.Loop(); i++ {
		for k := range variants {
			v := (i + k) % len(variants)
			start := time.Now()
			if err := variants[v](names[v][i%len(names[v])]); err != nil {
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

// answerHook answers every command in go-redis itself, without a server:
// the acquire script (8 arguments with EVALSHA, 12 for a retry) with a new token, the
// redislock obtain script (7, one key) with OK, every other script with 1,
// and INFO replication with a primary that has no replicas.
type answerHook struct{ token atomic.Int64 }

func (*answerHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *answerHook) ProcessHook(redis.ProcessHook) redis.ProcessHook {
	return func(_ context.Context, cmd redis.Cmder) error {
		switch c := cmd.(type) {
		case *redis.Cmd:
			switch args := c.Args(); {
			case len(args) == 8 || len(args) == 12:
				c.SetVal(h.token.Add(1))
			case len(args) == 7 && args[2] == 1: // one key: redislock's obtain
				c.SetVal("OK")
			default:
				c.SetVal(int64(1))
			}
		case *redis.StringCmd:
			c.SetVal("# Replication\r\nrole:master\r\nconnected_slaves:0\r\n")
		default:
			return fmt.Errorf("answerHook: unexpected %T %v", cmd, cmd.Args())
		}
		return nil
	}
}

func (h *answerHook) ProcessPipelineHook(redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	process := h.ProcessHook(nil)
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			if err := process(ctx, c); err != nil {
				return err
			}
		}
		return nil
	}
}

// BenchmarkClientCPU measures each library's own CPU per acquire+release
// cycle: a go-redis hook answers every command (answerHook), so no
// socket, server or scheduler wake-up is involved; ns/op is the client's
// CPU time of one cycle, allocs/op its allocations. Both on a client with
// ContextTimeoutEnabled, as BenchmarkCycleInterleaved.
//
//	cd bench/redislock && go test -run '^$' -bench ClientCPU -benchmem -count 3
func BenchmarkClientCPU(b *testing.B) {
	rdb := redis.NewClient(&redis.Options{
		Addr:                  "127.0.0.1:1",
		ContextTimeoutEnabled: true,
		Dialer: func(context.Context, string, string) (net.Conn, error) {
			return nil, errors.New("answerHook: no server")
		},
	})
	b.Cleanup(func() { _ = rdb.Close() })
	rdb.AddHook(&answerHook{})
	ctx := context.Background()
	b.Run("fencegen-lease", func(b *testing.B) {
		loopCycles(b, cycleNames("r"), leaseCycle(ctx, lease.New(rdb, nil)))
	})
	b.Run("bsm-redislock", func(b *testing.B) {
		loopCycles(b, cycleNames("r"), redislockCycle(ctx, redislock.New(rdb)))
	})
}

// BenchmarkServerCPU measures the Redis server's time per acquire+release
// cycle of each library on a private redis-server: the usec of the
// commands the clients send (EVALSHA and EVAL, whose time includes the
// commands their scripts run, and the lease's INFO replication) in INFO
// commandstats, reset before the run, over the cycles run, reported as
// server-µs/cycle. It is the time Redis spends executing them, without
// its network I/O.
//
//	cd bench/redislock && go test -run '^$' -bench ServerCPU -benchtime 20000x -count 3
func BenchmarkServerCPU(b *testing.B) {
	r := faults.StartRedis(b, faults.RedisOptions{})
	rdb := r.Client(&redis.Options{ContextTimeoutEnabled: true})
	ctx := context.Background()
	run := func(b *testing.B, names []string, cycle func(name string) error) {
		if err := cycle(names[0]); err != nil { // loads the scripts
			b.Fatal(err)
		}
		r.ResetStats()
		loopCycles(b, names, cycle)
		usec := r.CommandUsec()
		sent := usec["evalsha"] + usec["eval"] + usec["info"]
		b.ReportMetric(float64(sent)/float64(b.N), "server-µs/cycle")
	}
	b.Run("fencegen-lease", func(b *testing.B) {
		run(b, cycleNames("r"), leaseCycle(ctx, lease.New(rdb, nil)))
	})
	b.Run("bsm-redislock", func(b *testing.B) {
		run(b, cycleNames("b"), redislockCycle(ctx, redislock.New(rdb)))
	})
}

// BenchmarkCycleParts splits the gap between a fencegen lease cycle and a
// bsm/redislock cycle into the lease's scripts and the lease's own client
// work, as wall time on one server in one run. Six variants, interleaved
// as in BenchmarkCycleInterleaved, each reported as its median µs per
// cycle:
//
//   - lease: Acquire + Release;
//   - redislock: Obtain + Release;
//   - lease-scripts: the lease's acquire.lua and release.lua sent bare
//     (EVALSHA through go-redis's Do, the same keys and arguments the lease
//     sends), without the lease around them, on a context without a deadline;
//   - lease-scripts+deadlines: the same, each call bounded by a deadline
//     that arms no timer, as the lease bounds a call under a context that
//     cannot be cancelled (go-redis puts the deadline on the socket);
//   - lease-scripts+timers: the same with a context.WithTimeout per call
//     (a runtime timer armed and stopped per call), as the lease bounds a
//     call under a cancellable context;
//   - token-scripts: the least a fencing token lock can send, INCR + SET NX
//     PX and a compare-and-DEL, bare as lease-scripts: no abandon mark, no
//     :minted record, no recognition of a resent release.
//
// token-scripts minus redislock is the token's INCR; lease-scripts minus
// token-scripts is what the lease's other guarantees cost the server;
// +deadlines and +timers minus lease-scripts are the two ways of bounding
// a call; lease minus lease-scripts+deadlines is the rest of the lease's
// client work (heartbeat registration, lease context, owner).
//
//	cd bench/redislock && go test -run '^$' -bench CycleParts -benchtime 20000x -count 3
func BenchmarkCycleParts(b *testing.B) {
	r := faults.StartRedis(b, faults.RedisOptions{})
	rdb := r.Client(&redis.Options{ContextTimeoutEnabled: true})
	ctx := context.Background()
	load := func(src string) *redis.Script {
		s := redis.NewScript(src)
		if err := s.Load(ctx, rdb).Err(); err != nil {
			b.Fatal(err)
		}
		return s
	}
	leaseScript := func(file string) *redis.Script {
		src, err := os.ReadFile(filepath.Join("..", "..", "runtime", "lease", file))
		if err != nil {
			b.Fatal(err)
		}
		return load(string(src))
	}
	acquire, release := leaseScript("acquire.lua"), leaseScript("release.lua")
	incrSet := load(`local t = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. t, 'NX', 'PX', ARGV[2])
return t`)
	getDel := load(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)
	ttl := cycleTTL.Milliseconds()
	owner := func() string {
		var raw [16]byte
		_, _ = rand.Read(raw[:])
		return hex.EncodeToString(raw[:])
	}
	// call runs one command on ctx, bounded as bound says.
	call := func(bound int, args ...any) (int64, error) {
		c, cancel := ctx, context.CancelFunc(func() {})
		switch bound {
		case boundDeadline:
			c = deadlineCtx{ctx, time.Now().Add(cycleTTL / 6)}
		case boundTimer:
			c, cancel = context.WithTimeout(ctx, cycleTTL/6)
		}
		defer cancel()
		return rdb.Do(c, args...).Int64()
	}
	bare := func(bound int) func(string) error {
		return func(name string) error {
			o, k := owner(), "fencegen:{"+name+"}:"
			tok, err := call(bound, "evalsha", acquire.Hash(), 3, k+"lock", k+"token", k+"minted", o, ttl)
			if err != nil || tok <= 0 {
				return fmt.Errorf("acquire.lua: %d, %v", tok, err)
			}
			n, err := call(bound, "evalsha", release.Hash(), 1, k+"lock", o)
			if err != nil || n != 1 {
				return fmt.Errorf("release.lua: %d, %v", n, err)
			}
			return nil
		}
	}
	token := func(name string) error {
		o, k := owner(), "tok:{"+name+"}:"
		tok, err := call(boundNone, "evalsha", incrSet.Hash(), 2, k+"lock", k+"token", o, ttl)
		if err != nil {
			return err
		}
		n, err := call(boundNone, "evalsha", getDel.Hash(), 1, k+"lock", o+":"+strconv.FormatInt(tok, 10))
		if err != nil || n != 1 {
			return fmt.Errorf("compare-and-DEL: %d, %v", n, err)
		}
		return nil
	}
	m := interleave(b, []func(string) error{
		leaseCycle(ctx, lease.New(rdb, nil)),
		redislockCycle(ctx, redislock.New(rdb)),
		bare(boundNone), bare(boundDeadline), bare(boundTimer), token,
	}, "r", "b", "s", "sd", "st", "m")
	for k, unit := range []string{"lease-µs", "redislock-µs", "lease-scripts-µs", "lease-scripts+deadlines-µs", "lease-scripts+timers-µs", "token-scripts-µs"} {
		b.ReportMetric(float64(m[k].Nanoseconds())/1e3, unit)
	}
}

// How a CycleParts call is bounded: not at all, by a deadline that arms no
// timer (deadlineCtx), or by context.WithTimeout.
const (
	boundNone = iota
	boundDeadline
	boundTimer
)

// deadlineCtx is a context with a deadline and no timer, as the lease's
// calls under a context that cannot be cancelled get: Done stays nil.
type deadlineCtx struct {
	context.Context
	deadline time.Time
}

func (c deadlineCtx) Deadline() (time.Time, bool) { return c.deadline, true }

// BenchmarkCycleContexts compares the lease cycle under a context that
// cannot be cancelled (context.Background: each call is made in the
// calling goroutine, bounded by its deadline on the socket) with the same
// cycle under a cancellable context (a request's, say: go-redis does not
// interrupt a socket read on cancellation, so the lease makes each call in
// a goroutine of its own and returns at the cancellation), and redislock
// under the cancellable context, interleaved on one client with
// ContextTimeoutEnabled. It reports the medians in µs and ratio-cancellable,
// redislock's median over the lease's under the cancellable context.
//
//	cd bench/redislock && go test -run '^$' -bench CycleContexts -benchtime 20000x -count 3
func BenchmarkCycleContexts(b *testing.B) {
	r := faults.StartRedis(b, faults.RedisOptions{})
	rdb := r.Client(&redis.Options{ContextTimeoutEnabled: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := lease.New(rdb, nil)
	m := interleave(b, []func(string) error{
		leaseCycle(context.Background(), c),
		leaseCycle(ctx, c),
		redislockCycle(ctx, redislock.New(rdb)),
	}, "r", "c", "b")
	b.ReportMetric(float64(m[0].Nanoseconds())/1e3, "lease-background-µs")
	b.ReportMetric(float64(m[1].Nanoseconds())/1e3, "lease-cancellable-µs")
	b.ReportMetric(float64(m[2].Nanoseconds())/1e3, "redislock-µs")
	b.ReportMetric(float64(m[2])/float64(m[1]), "ratio-cancellable")
}
