package lease

import (
	"context"
	"errors"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/testenv"
)

// cmdCounter is a redis.Hook counting the commands a client sends, by name.
type cmdCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *cmdCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *cmdCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.mu.Lock()
		if c.n == nil {
			c.n = map[string]int{}
		}
		c.n[cmd.Name()]++
		c.mu.Unlock()
		return next(ctx, cmd)
	}
}

func (c *cmdCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// take returns the counts since the last take and resets them.
func (c *cmdCounter) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = nil
	return n
}

// env is one test's Redis connection and resource.
type env struct {
	rdb      *redis.Client
	resource string
	lockKey  string
	counter  string
}

// newEnv connects to the test Redis and picks a resource name unique to t;
// both of its keys are deleted when t ends.
func newEnv(t *testing.T) *env {
	t.Helper()
	rdb := testenv.Redis(t)
	e := &env{rdb: rdb, resource: testenv.Key(t, "res")}
	e.lockKey, e.counter = New(rdb, nil).Keys(e.resource)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		// rdb is closed by testenv's cleanup, registered earlier, so it
		// runs later: cleanups run last-in first-out.
		if err := rdb.Del(ctx, e.lockKey, e.counter).Err(); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return e
}

// pttl returns the lock key's remaining TTL in the test Redis.
func (e *env) pttl(t *testing.T) time.Duration {
	t.Helper()
	d, err := e.rdb.PTTL(context.Background(), e.lockKey).Result()
	if err != nil {
		t.Fatalf("PTTL: %v", err)
	}
	return d
}

func (e *env) get(t *testing.T, key string) string {
	t.Helper()
	v, err := e.rdb.Get(context.Background(), key).Result()
	if errors.Is(err, redis.Nil) {
		return ""
	}
	if err != nil {
		t.Fatalf("GET %s: %v", key, err)
	}
	return v
}

// waitDone waits up to d for ctx to end and returns the time it took.
func waitDone(t *testing.T, ctx context.Context, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	select {
	case <-ctx.Done():
		return time.Since(start)
	case <-time.After(d):
		t.Fatalf("context not done after %v", d)
		return 0
	}
}

// flaky wraps a redis.Scripter and lets a test inject errors into chosen
// script calls, before or after they reach Redis (redislock's
// flakyScripter pattern).
type flaky struct {
	redis.Scripter
	// fault is called once per EVALSHA/EVAL with the script's SHA; it
	// returns the error to inject (nil: none) and whether to send the call
	// first (an error after sending simulates a lost reply).
	fault func(sha string) (err error, send bool)
}

func (f *flaky) do(ctx context.Context, sha string, call func() *redis.Cmd) *redis.Cmd {
	err, send := f.fault(sha)
	if err == nil {
		return call()
	}
	if send {
		call()
	}
	cmd := redis.NewCmd(ctx)
	cmd.SetErr(err)
	return cmd
}

func (f *flaky) EvalSha(ctx context.Context, sha string, keys []string, args ...any) *redis.Cmd {
	return f.do(ctx, sha, func() *redis.Cmd { return f.Scripter.EvalSha(ctx, sha, keys, args...) })
}

func (f *flaky) Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	sha := redis.NewScript(script).Hash()
	return f.do(ctx, sha, func() *redis.Cmd { return f.Scripter.Eval(ctx, script, keys, args...) })
}

// errTimeout is a network timeout as a lost reply would produce.
var errTimeout = &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}

// slowReply wraps a redis.Scripter: each script call reaches Redis at once,
// but its reply is handed back only after delay.
type slowReply struct {
	redis.Scripter
	delay time.Duration
}

func (s *slowReply) EvalSha(ctx context.Context, sha string, keys []string, args ...any) *redis.Cmd {
	cmd := s.Scripter.EvalSha(ctx, sha, keys, args...)
	time.Sleep(s.delay)
	return cmd
}

func (s *slowReply) Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	cmd := s.Scripter.Eval(ctx, script, keys, args...)
	time.Sleep(s.delay)
	return cmd
}
