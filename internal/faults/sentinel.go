package faults

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// StartReplica starts a private redis-server that replicates from the
// server at primary ("host:port"; e.g. a Redis's Addr, or a Proxy's in
// front of it, so that the replication link can be cut or delayed) and
// waits until its link is up (INFO replication master_link_status:up).
func StartReplica(t testing.TB, primary string, opts RedisOptions) *Redis {
	t.Helper()
	host, port, err := net.SplitHostPort(primary)
	if err != nil {
		t.Fatalf("faults: replica of %q: %v", primary, err)
	}
	opts.Args = append(append([]string(nil), opts.Args...), "--replicaof", host, port)
	r := StartRedis(t, opts)
	r.waitInfo("replication", "master_link_status:up", 20*time.Second)
	return r
}

// waitInfo waits until INFO section contains want.
func (r *Redis) waitInfo(section, want string, d time.Duration) {
	r.t.Helper()
	r.waitInfoFunc(section, fmt.Sprintf("%q", want), d, func(info string) bool { return strings.Contains(info, want) })
}

// waitInfoFunc waits until ok accepts INFO section; what names the
// condition in the failure message.
func (r *Redis) waitInfoFunc(section, what string, d time.Duration, ok func(info string) bool) {
	r.t.Helper()
	deadline := time.Now().Add(d)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		info, err := r.admin.Info(ctx, section).Result()
		cancel()
		if err == nil && ok(info) {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("faults: %s: INFO %s has no %s within %v (err %v):\n%s", r.Addr(), section, what, d, err, info)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitReplicasOnline waits until the server reports n replicas
// (connected_slaves:n), each with state=online (synchronised).
func (r *Redis) WaitReplicasOnline(n int, d time.Duration) {
	r.t.Helper()
	connected := "connected_slaves:" + strconv.Itoa(n)
	r.waitInfoFunc("replication", fmt.Sprintf("%d replicas with state=online", n), d, func(info string) bool {
		return strings.Contains(info, connected) && strings.Count(info, "state=online") == n
	})
}

// Sentinel is a private Redis Sentinel (redis-server --sentinel) that
// monitors one primary with quorum 1, so that it alone decides a
// failover: down-after-milliseconds 500 (see StartSentinelDownAfter) and
// failover-timeout 2000, for tests.
type Sentinel struct {
	*Redis
	// Name is the monitored master's name (go-redis FailoverOptions
	// MasterName).
	Name string
}

// StartSentinel starts a Sentinel monitoring primary under name on a free
// loopback port and waits until it has discovered replicas replicas of it.
func StartSentinel(t testing.TB, name string, primary *Redis, replicas int) *Sentinel {
	t.Helper()
	return StartSentinelDownAfter(t, name, primary, replicas, 500*time.Millisecond)
}

// StartSentinelDownAfter is StartSentinel with down-after-milliseconds set
// to downAfter: how long the primary may leave Sentinel's PINGs unanswered
// before Sentinel fails over. A test that must decide when the failover
// happens starts with a long one, so that a primary (or Sentinel) starved
// of CPU on a loaded machine is not failed over early, and shortens it
// with SetDownAfter just before it kills the primary.
func StartSentinelDownAfter(t testing.TB, name string, primary *Redis, replicas int, downAfter time.Duration) *Sentinel {
	t.Helper()
	s := &Sentinel{Redis: &Redis{t: t, bin: RedisBinary(t, "redis-server"), dir: t.TempDir()}, Name: name}
	t.Cleanup(s.shutdown)
	var err error
	for range 5 {
		s.port = FreePort(t)
		conf := filepath.Join(s.dir, "sentinel.conf")
		text := fmt.Sprintf("port %d\nbind 127.0.0.1\nprotected-mode no\ndir %s\nlogfile \"\"\n"+
			"sentinel monitor %s 127.0.0.1 %d 1\nsentinel down-after-milliseconds %s %d\n"+
			"sentinel failover-timeout %s 2000\nsentinel parallel-syncs %s 1\n",
			s.port, s.dir, name, primary.Port(), name, downAfter.Milliseconds(), name, name)
		if err = os.WriteFile(conf, []byte(text), 0o600); err != nil {
			t.Fatalf("faults: sentinel config: %v", err)
		}
		s.sentinelConf = conf
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("faults: %v", err)
	}
	s.admin = redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, DialTimeout: time.Second,
		ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second, PoolSize: 2, ContextTimeoutEnabled: true})
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := s.Do("SENTINEL", "REPLICAS", name)
		if l, ok := got.([]any); err == nil && ok && len(l) >= replicas {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("faults: sentinel sees %v (err %v), want %d replicas", got, err, replicas)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// SetDownAfter sets down-after-milliseconds of the monitored master (SENTINEL
// SET), effective at once.
func (s *Sentinel) SetDownAfter(d time.Duration) {
	s.t.Helper()
	if _, err := s.Do("SENTINEL", "SET", s.Name, "down-after-milliseconds", fmt.Sprint(d.Milliseconds())); err != nil {
		s.t.Fatalf("faults: SENTINEL SET %s down-after-milliseconds: %v", s.Name, err)
	}
}

// MasterAddr returns the address Sentinel currently gives for the master.
func (s *Sentinel) MasterAddr() string {
	s.t.Helper()
	v, err := s.Do("SENTINEL", "GET-MASTER-ADDR-BY-NAME", s.Name)
	l, ok := v.([]any)
	if err != nil || !ok || len(l) != 2 {
		s.t.Fatalf("faults: SENTINEL GET-MASTER-ADDR-BY-NAME %s = %v, %v", s.Name, v, err)
	}
	return fmt.Sprintf("%v:%v", l[0], l[1])
}

// WaitMaster waits up to d until Sentinel gives addr as the master (after
// a failover).
func (s *Sentinel) WaitMaster(addr string, d time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for s.MasterAddr() != addr {
		if time.Now().After(deadline) {
			s.t.Fatalf("faults: sentinel master still %s after %v, want %s", s.MasterAddr(), d, addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// FailoverClient returns a go-redis client that finds the master through
// this Sentinel, closed when the test ends. opts may be nil; MasterName and
// SentinelAddrs are overwritten.
func (s *Sentinel) FailoverClient(opts *redis.FailoverOptions) *redis.Client {
	o := redis.FailoverOptions{}
	if opts != nil {
		o = *opts
	}
	o.MasterName, o.SentinelAddrs = s.Name, []string{s.Addr()}
	c := redis.NewFailoverClient(&o)
	s.t.Cleanup(func() { _ = c.Close() })
	return c
}

// WaitRole waits until ROLE reports role ("master", "slave").
func (r *Redis) WaitRole(role string, d time.Duration) {
	r.t.Helper()
	deadline := time.Now().Add(d)
	for {
		v, err := r.Do("ROLE")
		if l, ok := v.([]any); err == nil && ok && len(l) > 0 && l[0] == role {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("faults: %s ROLE = %v, %v; want %s", r.Addr(), v, err, role)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
