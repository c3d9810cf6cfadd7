package faults

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv("FAULTS_TEST_CHILD") == "1" {
		// A child that prints a tick every 20ms until killed.
		for i := 0; ; i++ {
			os.Stdout.WriteString("tick\n")
			time.Sleep(20 * time.Millisecond)
		}
	}
	QuietRedisLog()
	goleak.VerifyTestMain(m)
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestRedisRestartKeepsOrLosesData(t *testing.T) {
	r := StartRedis(t, RedisOptions{})
	c := r.Client(&redis.Options{MaxRetries: 3})
	if err := c.Set(ctx(t), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	r.Restart(true)
	if v := c.Get(ctx(t), "k").Val(); v != "v" {
		t.Fatalf("after Restart(true) k = %q, want v", v)
	}
	r.Restart(false)
	if err := c.Get(ctx(t), "k").Err(); !errors.Is(err, redis.Nil) {
		t.Fatalf("after Restart(false) GET k = %v, want redis.Nil", err)
	}
}

func TestRedisPersistenceSurvivesKill(t *testing.T) {
	r := StartRedis(t, RedisOptions{Persistence: true, MaxmemoryPolicy: "volatile-lru"})
	c := r.Client(&redis.Options{MaxRetries: 3})
	if err := c.Set(ctx(t), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if p := c.ConfigGet(ctx(t), "maxmemory-policy").Val()["maxmemory-policy"]; p != "volatile-lru" {
		t.Fatalf("maxmemory-policy = %q", p)
	}
	r.Kill()
	if err := r.start(); err != nil { // start again without SAVE: the AOF has it
		t.Fatal(err)
	}
	if v := c.Get(ctx(t), "k").Val(); v != "v" {
		t.Fatalf("after kill with AOF k = %q, want v", v)
	}
}

func TestRedisPauseFlushDel(t *testing.T) {
	r := StartRedis(t, RedisOptions{})
	c := r.Client(nil)
	c.Set(ctx(t), "a", 1, 0)
	c.Set(ctx(t), "b", 1, 0)
	if n := r.Del("a", "zz"); n != 1 {
		t.Fatalf("Del = %d, want 1", n)
	}
	r.FlushAll()
	if n := c.Exists(ctx(t), "b").Val(); n != 0 {
		t.Fatal("FlushAll left b")
	}
	r.Pause()
	short, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	pc := r.Client(&redis.Options{ContextTimeoutEnabled: true, MaxRetries: -1})
	if err := pc.Ping(short).Err(); err == nil {
		t.Fatal("paused server answered")
	}
	r.Resume()
	if err := pc.Ping(ctx(t)).Err(); err != nil {
		t.Fatalf("after Resume: %v", err)
	}
	calls := r.CommandCalls()
	if calls["ping"] < 1 || calls["flushall"] != 1 {
		t.Fatalf("commandstats = %v", calls)
	}
}

func TestProxyFaults(t *testing.T) {
	r := StartRedis(t, RedisOptions{})
	p := StartProxy(t, r.Addr())
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), ContextTimeoutEnabled: true, MaxRetries: -1, PoolSize: 1})
	defer c.Close()
	if err := c.Ping(ctx(t)).Err(); err != nil {
		t.Fatal(err)
	}

	p.SetLatency(Downstream, 100*time.Millisecond)
	start := time.Now()
	if err := c.Ping(ctx(t)).Err(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 100*time.Millisecond || d > time.Second {
		t.Fatalf("PING with 100ms downstream latency took %v", d)
	}
	p.Heal()

	p.Blackhole(Both, true)
	short, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	if err := c.Ping(short).Err(); err == nil {
		t.Fatal("blackholed PING answered")
	}
	p.Blackhole(Both, false)
	if err := c.Ping(ctx(t)).Err(); err != nil {
		t.Fatalf("after the blackhole lifted: %v", err)
	}

	if n := p.ResetAll(); n < 1 {
		t.Fatalf("ResetAll reset %d connections", n)
	}
	p.ResetNew(true)
	err := c.Ping(ctx(t)).Err()
	if err == nil {
		t.Fatal("PING through reset connections succeeded")
	}
	p.ResetNew(false)
	if err := c.Ping(ctx(t)).Err(); err != nil {
		t.Fatalf("after ResetNew(false): %v", err)
	}
}

func TestClusterRunsScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster start-up takes a few seconds")
	}
	cl := StartCluster(t, 3, RedisOptions{})
	c := cl.Client(nil)
	if err := c.Set(ctx(t), "{x}a", 1, 0).Err(); err != nil {
		t.Fatal(err)
	}
	err := c.Eval(ctx(t), "return redis.call('MGET', KEYS[1], KEYS[2])", []string{"a", "b"}).Err()
	if err == nil || !strings.Contains(err.Error(), "CROSSSLOT") {
		t.Fatalf("untagged two-key script = %v, want CROSSSLOT", err)
	}
	if err := c.Eval(ctx(t), "return redis.call('MGET', KEYS[1], KEYS[2])", []string{"{x}a", "{x}b"}).Err(); err != nil {
		t.Fatalf("tagged script: %v", err)
	}
}

func TestChildPauseResume(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "FAULTS_TEST_CHILD=1")
	ch := StartChild(t, cmd)
	ch.Expect("tick", 5*time.Second)
	ch.Pause()
	time.Sleep(50 * time.Millisecond)
	for len(ch.Lines()) > 0 {
		<-ch.Lines()
	}
	select {
	case l := <-ch.Lines():
		t.Fatalf("paused child printed %q", l)
	case <-time.After(200 * time.Millisecond):
	}
	ch.Resume()
	ch.Expect("tick", 5*time.Second)
	ch.Kill()
	if err := ch.Wait(5 * time.Second); err == nil {
		t.Fatal("killed child exited 0")
	}
}

// QuietRedisLog (installed by TestMain) keeps go-redis's refused-dial lines
// out of the test output but counts them: a client of a closed port logs
// at least one.
func TestQuietRedisLogCountsDroppedLines(t *testing.T) {
	before := RedisLogLines()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialerRetries: 1})
	defer rdb.Close()
	if err := rdb.Ping(ctx(t)).Err(); err == nil {
		t.Fatal("PING to port 1 succeeded")
	}
	if RedisLogLines() == before {
		t.Fatal("go-redis logged nothing for a refused dial: the logger is not installed")
	}
}
