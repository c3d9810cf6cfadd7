// Package demo is the plumbing the example demos (examples/accounts,
// examples/payouts) share: a scratch schema and lease key prefix on the
// real servers, worker 1 as a child process the demo freezes with SIGSTOP
// past its lease's TTL, worker 2's takeover, and the timeline both print.
// The demos' own steps, output lines and verdicts stay in the examples.
package demo

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
)

// OpenPool connects a pgx pool to dsn and pings it, both within 10s.
func OpenPool(ctx context.Context, dsn string) (*pgxpool.Pool, error) {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	p, err := pgxpool.New(cctx, dsn)
	if err != nil {
		return nil, err
	}
	if err := p.Ping(cctx); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// RedisClient is a go-redis client for redisURL (redis://host:port/db)
// with ContextTimeoutEnabled, so that deadlines reach the socket (see
// docs/lease.md). An unparsable URL is an error naming REDIS_URL.
func RedisClient(redisURL string) (*redis.Client, error) {
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	opt.ContextTimeoutEnabled = true
	return redis.NewClient(opt), nil
}

// WithSearchPath returns dsn (a URL or key=value connection string) with
// search_path set to schema.
func WithSearchPath(dsn, schema string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		return dsn + " search_path=" + schema // key=value form
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// RandomSuffix is 8 random hex digits, for names of a run's own.
func RandomSuffix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Scratch is a demo run's place on the servers: a schema of its own in a
// PostgreSQL database, holding the example's schema.sql, and a Redis
// client whose lease keys under Prefix are deleted at Close.
type Scratch struct {
	// DatabaseURL is the database's URL with search_path set to the
	// scratch schema, for the child process.
	DatabaseURL string
	Pool        *pgxpool.Pool // on DatabaseURL
	Redis       *redis.Client
	Prefix      string

	admin  *pgxpool.Pool
	schema string
}

// OpenScratch creates schema in databaseURL's database, applies
// schemaSQL in it and connects to Redis at redisURL. Its errors name the
// step that failed ("connect to PostgreSQL: ...", "apply schema.sql: ...",
// "connect to Redis: ..."); what it had set up is undone then.
func OpenScratch(ctx context.Context, databaseURL, redisURL, schema, schemaSQL, prefix string) (s *Scratch, err error) {
	s = &Scratch{schema: schema, Prefix: prefix}
	defer func() {
		if err != nil {
			s.Close()
			s = nil
		}
	}()
	if s.admin, err = OpenPool(ctx, databaseURL); err != nil {
		return s, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	if _, err := s.admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		s.admin.Close()
		s.admin = nil
		return s, fmt.Errorf("create schema: %w", err)
	}
	s.DatabaseURL = WithSearchPath(databaseURL, schema)
	if s.Pool, err = OpenPool(ctx, s.DatabaseURL); err != nil {
		return s, err
	}
	if _, err := s.Pool.Exec(ctx, schemaSQL); err != nil {
		return s, fmt.Errorf("apply schema.sql: %w", err)
	}
	if s.Redis, err = RedisClient(redisURL); err != nil {
		return s, err
	}
	if err := s.Redis.Ping(ctx).Err(); err != nil {
		return s, fmt.Errorf("connect to Redis: %w", err)
	}
	return s, nil
}

// Close deletes the keys under Prefix (within 5s), closes the
// connections and drops the schema.
func (s *Scratch) Close() {
	if s.Redis != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		iter := s.Redis.Scan(ctx, 0, s.Prefix+":*", 100).Iterator()
		for iter.Next(ctx) {
			s.Redis.Del(ctx, iter.Val())
		}
		cancel()
		s.Redis.Close()
	}
	if s.Pool != nil {
		s.Pool.Close()
	}
	if s.admin != nil {
		s.admin.Exec(context.Background(), "DROP SCHEMA "+s.schema+" CASCADE")
		s.admin.Close()
	}
}

// Timeline prints a run's events, each with the time since Start and who
// did it, padded to Width. It is safe for concurrent use.
type Timeline struct {
	Out   io.Writer
	Start time.Time
	Width int

	mu sync.Mutex
}

// Say prints one event.
func (t *Timeline) Say(who, format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.Out, "[%6s] %-*s %s\n", time.Since(t.Start).Round(time.Millisecond), t.Width, who, fmt.Sprintf(format, args...))
}

// Sayer is Say for who.
func (t *Timeline) Sayer(who string) func(string, ...any) {
	return func(format string, args ...any) { t.Say(who, format, args...) }
}

// ErrWorkerExited is how the demo sees worker 1's output end.
var ErrWorkerExited = errors.New("worker 1 exited early")

// Worker1 is worker 1: this executable run again as a child process, so
// that SIGSTOP freezes all of it, its lease's heartbeat included. It
// talks line by line on stdout, and waits on stdin for "GO".
type Worker1 struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines *bufio.Scanner
	// pause and frozenAt are the last Freeze's.
	pause    time.Duration
	frozenAt time.Time
}

// StartWorker1 starts this executable with env added to the environment
// (which tells its main to be worker 1); its stderr is this process's.
// Close kills it.
func StartWorker1(ctx context.Context, env ...string) (*Worker1, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Worker1{cmd: cmd, stdin: stdin, lines: bufio.NewScanner(stdout)}, nil
}

// Relay passes worker 1's lines to say until one that starts with stop,
// and returns the rest of that line; ErrWorkerExited when its output
// ended first. With stop "", it relays every line to the end and returns
// ErrWorkerExited then.
func (w *Worker1) Relay(stop string, say func(line string)) (string, error) {
	for w.lines.Scan() {
		if rest, ok := strings.CutPrefix(w.lines.Text(), stop); ok && stop != "" {
			return rest, nil
		}
		say(w.lines.Text())
	}
	if err := w.lines.Err(); err != nil {
		return "", err
	}
	return "", ErrWorkerExited
}

// Ready relays worker 1's lines to say until "READY <token>", and returns
// the fencing token it announced.
func (w *Worker1) Ready(say func(line string)) (fence.Token, error) {
	tok, err := w.Relay("READY ", say)
	if err != nil {
		return 0, err
	}
	n, _ := strconv.ParseInt(tok, 10, 64)
	return fence.Token(n), nil
}

// Freeze stops worker 1 with SIGSTOP, for pause: Resume continues it no
// sooner.
func (w *Worker1) Freeze(pause time.Duration) error {
	if err := w.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		return err
	}
	w.pause, w.frozenAt = pause, time.Now()
	return nil
}

// Resume waits until the pause given to Freeze has passed, then sends
// worker 1 "GO" and continues it with SIGCONT.
func (w *Worker1) Resume() error {
	if d := w.pause - time.Since(w.frozenAt); d > 0 {
		time.Sleep(d)
	}
	if _, err := io.WriteString(w.stdin, "GO\n"); err != nil {
		return err
	}
	return w.cmd.Process.Signal(syscall.SIGCONT)
}

// Wait waits for worker 1 to exit; its error is exec.Cmd.Wait's.
func (w *Worker1) Wait() error { return w.cmd.Wait() }

// Close continues worker 1 if it was frozen, kills it and waits for it.
func (w *Worker1) Close() {
	_ = w.cmd.Process.Signal(syscall.SIGCONT)
	_ = w.cmd.Process.Kill()
	_ = w.cmd.Wait()
}

// TakeOver is worker 2: it tries to acquire resource, under prefix in
// rdb, every ttl/20 until worker 1's lease has expired in Redis, says so,
// and returns its lease; an error other than lease.ErrNotAcquired, or
// ctx's, ends it.
func TakeOver(ctx context.Context, rdb *redis.Client, prefix, resource string, ttl time.Duration, say func(format string, args ...any)) (*lease.Lease, error) {
	locker := lease.New(rdb, &lease.Options{KeyPrefix: prefix})
	for {
		l, err := locker.Acquire(ctx, resource, ttl)
		if err == nil {
			say("acquired lease %s (worker 1's expired), fencing token %d", resource, l.Token())
			return l, nil
		}
		if !errors.Is(err, lease.ErrNotAcquired) {
			return nil, fmt.Errorf("worker 2 acquire: %w", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(ttl / 20):
		}
	}
}
