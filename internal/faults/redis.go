package faults

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/testenv"
)

// MaxLifetime bounds every process this package starts: it is killed after
// this long even if the test hangs.
const MaxLifetime = 5 * time.Minute

// RedisOptions configures a private redis-server. The zero value is a
// standalone server without persistence and with maxmemory-policy
// noeviction.
type RedisOptions struct {
	// Persistence turns on the append-only file with appendfsync always,
	// so Kill followed by Restart keeps every acknowledged write.
	Persistence bool
	// MaxmemoryPolicy is passed as --maxmemory-policy; "" means noeviction.
	MaxmemoryPolicy string
	// Maxmemory is passed as --maxmemory (e.g. "2mb"); "" means no limit.
	Maxmemory string
	// Cluster starts the server with --cluster-enabled yes (use
	// StartCluster for a ready cluster).
	Cluster bool
	// Args are extra command-line arguments.
	Args []string
	// MaxLifetime, if positive, replaces the package's MaxLifetime bound
	// on each server process (for long chaos runs).
	MaxLifetime time.Duration
}

// Redis is a private redis-server process on 127.0.0.1.
type Redis struct {
	t    testing.TB
	opts RedisOptions
	bin  string
	dir  string
	port int

	mu      sync.Mutex
	proc    *exec.Cmd
	out     *OutputBuffer
	done    <-chan struct{} // closed when proc has exited and been waited for
	stopped bool            // SIGSTOPped
	admin   *redis.Client
	// sentinelConf, if set, makes this a Sentinel started from that file.
	sentinelConf string
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
// It is drawn at random from below the kernel's ephemeral range
// (net.ipv4.ip_local_port_range, 32768-60999 by default), where the local
// port of an outgoing connection is never chosen: a port from that range
// (net.Listen on port 0) can be taken by any client connection of a test
// running beside this one between FreePort and the server's bind, and a
// server restarted on its old port can find it taken the same way.
func FreePort(t testing.TB) int {
	t.Helper()
	low := ephemeralLow()
	for range 200 {
		port := 10000 + rand.IntN(low-10000)
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		_ = ln.Close()
		return port
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("faults: free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// ephemeralLow is the first port of the kernel's ephemeral range, or 32768
// when it cannot be read or leaves too little room below it.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 32768
	}
	low, err := strconv.Atoi(f[0])
	if err != nil || low < 12000 {
		return 32768
	}
	return low
}

// RedisBinary returns the path of the named binary (redis-server,
// redis-cli), or skips t (fails it under CI=true) when it is not installed.
func RedisBinary(t testing.TB, name string) string {
	t.Helper()
	bin, err := exec.LookPath(name)
	if err != nil {
		testenv.Unavailable(t, name+" binary", "PATH", err)
	}
	return bin
}

// StartRedis starts a private redis-server on a free loopback port and waits
// until it answers PING. It is killed (after SIGCONT) when t ends.
func StartRedis(t testing.TB, opts RedisOptions) *Redis {
	t.Helper()
	r := &Redis{t: t, opts: opts, bin: RedisBinary(t, "redis-server"), dir: t.TempDir()}
	t.Cleanup(r.shutdown)
	var err error
	for range 5 { // a free port can be taken between FreePort and bind
		r.port = FreePort(t)
		if err = r.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("faults: %v", err)
	}
	r.admin = redis.NewClient(&redis.Options{Addr: r.Addr(), MaxRetries: -1, DialTimeout: time.Second,
		ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second, PoolSize: 2, ContextTimeoutEnabled: true})
	return r
}

func (r *Redis) args() []string {
	if r.sentinelConf != "" {
		return []string{r.sentinelConf, "--sentinel"}
	}
	a := []string{"--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--daemonize", "no",
		"--protected-mode", "no", "--dir", r.dir, "--save", "", "--logfile", ""}
	if r.opts.Persistence {
		a = append(a, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		a = append(a, "--appendonly", "no")
	}
	policy := r.opts.MaxmemoryPolicy
	if policy == "" {
		policy = "noeviction"
	}
	a = append(a, "--maxmemory-policy", policy)
	if r.opts.Maxmemory != "" {
		a = append(a, "--maxmemory", r.opts.Maxmemory)
	}
	if r.opts.Cluster {
		a = append(a, "--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(r.dir, "nodes.conf"),
			"--cluster-node-timeout", "2000")
	}
	return append(a, r.opts.Args...)
}

// start launches the process and waits for PING; r.mu must not be held.
func (r *Redis) start() error {
	cmd := exec.Command(r.bin, r.args()...)
	// Hard bound: killed after MaxLifetime whatever the test does.
	life := MaxLifetime
	if r.opts.MaxLifetime > 0 {
		life = r.opts.MaxLifetime
	}
	out, done, err := StartProcess(cmd, life)
	if err != nil {
		return fmt.Errorf("start redis-server: %w", err)
	}
	r.mu.Lock()
	r.proc, r.out, r.done, r.stopped = cmd, out, done, false
	r.mu.Unlock()

	c := redis.NewClient(&redis.Options{Addr: r.Addr(), MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("redis-server on port %d exited: %s", r.port, out.String())
		default:
		}
		if time.Now().After(deadline) {
			r.kill()
			return fmt.Errorf("redis-server on port %d not ready: %v\n%s", r.port, err, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Addr returns "127.0.0.1:<port>".
func (r *Redis) Addr() string { return fmt.Sprintf("127.0.0.1:%d", r.port) }

// Port returns the server's port; it stays the same across Restart.
func (r *Redis) Port() int { return r.port }

// Client returns a new go-redis client for the server, closed when the test
// ends. opts may be nil; its Addr is overwritten.
func (r *Redis) Client(opts *redis.Options) *redis.Client {
	o := redis.Options{MaxRetries: -1}
	if opts != nil {
		o = *opts
	}
	o.Addr = r.Addr()
	c := redis.NewClient(&o)
	r.t.Cleanup(func() { _ = c.Close() })
	return c
}

// Admin returns the package's own client for the server (short timeouts, no
// retries), for inspecting and changing state in tests.
func (r *Redis) Admin() *redis.Client { return r.admin }

// Kill sends SIGKILL and waits for the process to exit. Without
// Persistence, everything in memory is lost.
func (r *Redis) Kill() {
	r.t.Helper()
	r.kill()
}

func (r *Redis) kill() {
	r.mu.Lock()
	cmd, done := r.proc, r.done
	r.mu.Unlock()
	if cmd == nil {
		return
	}
	if err := KillProcess(cmd, done); err != nil {
		r.t.Errorf("faults: redis-server on port %d %v", r.port, err)
	}
}

// Restart kills the server and starts it again on the same port. With
// keepData it first SAVEs an RDB snapshot (and the AOF with Persistence
// already has every write), so the new process loads the same data; without
// it, every data file is deleted and the new process starts empty.
func (r *Redis) Restart(keepData bool) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if keepData {
		r.Resume()
		if err := r.admin.Save(ctx).Err(); err != nil {
			r.t.Fatalf("faults: SAVE before restart: %v", err)
		}
	}
	r.kill()
	if !keepData {
		entries, _ := os.ReadDir(r.dir)
		for _, e := range entries {
			if e.Name() == "nodes.conf" {
				continue
			}
			_ = os.RemoveAll(filepath.Join(r.dir, e.Name()))
		}
	}
	if err := r.start(); err != nil {
		r.t.Fatalf("faults: restart: %v", err)
	}
}

// Pause stops the server with SIGSTOP: connections are still accepted by
// the kernel, nothing is answered.
func (r *Redis) Pause() {
	r.t.Helper()
	r.signal(syscall.SIGSTOP, true)
}

// Resume continues a paused server with SIGCONT.
func (r *Redis) Resume() {
	r.t.Helper()
	r.signal(syscall.SIGCONT, false)
}

func (r *Redis) signal(sig syscall.Signal, stopped bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.proc == nil {
		return
	}
	if err := r.proc.Process.Signal(sig); err != nil {
		r.t.Fatalf("faults: signal %v: %v", sig, err)
	}
	r.stopped = stopped
}

// FlushAll deletes every key (FLUSHALL SYNC).
func (r *Redis) FlushAll() {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.admin.FlushAll(ctx).Err(); err != nil {
		r.t.Fatalf("faults: FLUSHALL: %v", err)
	}
}

// Del deletes keys and returns how many existed.
func (r *Redis) Del(keys ...string) int64 {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n, err := r.admin.Del(ctx, keys...).Result()
	if err != nil {
		r.t.Fatalf("faults: DEL %v: %v", keys, err)
	}
	return n
}

// Do runs an arbitrary command on the admin connection (e.g. "DEBUG",
// "SLEEP", "1") and returns its reply.
func (r *Redis) Do(args ...any) (any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	return r.admin.Do(ctx, args...).Result()
}

// CommandCalls returns how many times each command ran since the last
// CONFIG RESETSTAT, from INFO commandstats (keys are lower-case command
// names such as "evalsha").
func (r *Redis) CommandCalls() map[string]int64 { return r.commandStats("calls") }

// CommandUsec returns the microseconds each command took since the last
// CONFIG RESETSTAT, from INFO commandstats (keys as in CommandCalls). The
// commands a script runs are listed too, and their time is also inside the
// script's.
func (r *Redis) CommandUsec() map[string]int64 { return r.commandStats("usec") }

// commandStats returns one field of INFO commandstats per command.
func (r *Redis) commandStats(field string) map[string]int64 {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	info, err := r.admin.Info(ctx, "commandstats").Result()
	if err != nil {
		r.t.Fatalf("faults: INFO commandstats: %v", err)
	}
	return parseCommandStats(info, field)
}

// ResetStats runs CONFIG RESETSTAT.
func (r *Redis) ResetStats() {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.admin.ConfigResetStat(ctx).Err(); err != nil {
		r.t.Fatalf("faults: CONFIG RESETSTAT: %v", err)
	}
}

// parseCommandStats reads field (calls, usec, ...) of the lines
// "cmdstat_<name>:calls=<n>,usec=<n>,...".
func parseCommandStats(info, field string) map[string]int64 {
	m := map[string]int64{}
	for _, line := range bytes.Split([]byte(info), []byte("\n")) {
		line = bytes.TrimSpace(line)
		rest, ok := bytes.CutPrefix(line, []byte("cmdstat_"))
		if !ok {
			continue
		}
		name, fields, ok := bytes.Cut(rest, []byte(":"))
		if !ok {
			continue
		}
		for _, f := range bytes.Split(fields, []byte(",")) {
			if v, ok := bytes.CutPrefix(f, []byte(field+"=")); ok {
				n, err := strconv.ParseInt(string(v), 10, 64)
				if err == nil {
					m[string(name)] = n
				}
			}
		}
	}
	return m
}

func (r *Redis) shutdown() {
	if r.admin != nil {
		_ = r.admin.Close()
	}
	r.kill()
}

// PauseFor pauses the server (SIGSTOP, see Pause) now and resumes it after
// d in the background: a server kept stalled for a while. It returns a
// channel closed once the server has been resumed.
func (r *Redis) PauseFor(d time.Duration) <-chan struct{} {
	r.t.Helper()
	r.Pause()
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(d)
		r.Resume()
	}()
	r.t.Cleanup(func() { <-done })
	return done
}

// DownFor kills the server now and starts it again on the same port after
// d in the background, with its data (the append-only file with
// Persistence; without it the server comes back empty): a server kept down
// for a while. It returns a channel closed once the server answers again.
func (r *Redis) DownFor(d time.Duration) <-chan struct{} {
	r.t.Helper()
	r.kill()
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(d)
		if err := r.start(); err != nil {
			r.t.Errorf("faults: restart after %v down: %v", d, err)
		}
	}()
	r.t.Cleanup(func() { <-done })
	return done
}
