package faults

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster is a private Redis Cluster: masters, and with
// StartClusterWithReplicas replicas of them.
type Cluster struct {
	t     testing.TB
	Nodes []*Redis
}

// StartCluster starts n (at least 3) redis-server processes with
// --cluster-enabled yes on free loopback ports, joins them with
// `redis-cli --cluster create ... --cluster-replicas 0 --cluster-yes`, and
// waits until every node reports cluster_state:ok. opts.Cluster is forced
// on. Every node is killed when t ends.
func StartCluster(t testing.TB, n int, opts RedisOptions) *Cluster {
	t.Helper()
	return StartClusterWithReplicas(t, n, 0, opts)
}

// StartClusterWithReplicas starts a Redis Cluster of n (at least 3)
// masters with replicas replicas each, n*(1+replicas) redis-server
// processes on free loopback ports joined by `redis-cli --cluster create
// ... --cluster-replicas <replicas>`, and waits until every node reports
// cluster_state:ok and every master has its replicas online (INFO
// replication). Which nodes become masters is redis-cli's choice: see
// Masters and ReplicasOf. Every node is killed when t ends.
func StartClusterWithReplicas(t testing.TB, n, replicas int, opts RedisOptions) *Cluster {
	t.Helper()
	if n < 3 {
		t.Fatalf("faults: a Redis Cluster needs at least 3 masters, got %d", n)
	}
	cli := RedisBinary(t, "redis-cli")
	opts.Cluster = true
	c := &Cluster{t: t}
	args := []string{"--cluster", "create"}
	for range n * (1 + replicas) {
		r := StartRedis(t, opts)
		c.Nodes = append(c.Nodes, r)
		args = append(args, r.Addr())
	}
	args = append(args, "--cluster-replicas", fmt.Sprint(replicas), "--cluster-yes")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("faults: redis-cli --cluster create: %v\n%s", err, out)
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, r := range c.Nodes {
		for {
			info, err := r.admin.ClusterInfo(ctx).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("faults: cluster node %s not ok: %v\n%s", r.Addr(), err, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if replicas > 0 {
		masters := c.Masters()
		if len(masters) != n {
			t.Fatalf("faults: %d masters in the cluster, want %d", len(masters), n)
		}
		for _, m := range masters {
			m.WaitReplicasOnline(replicas, 30*time.Second)
		}
	}
	return c
}

// role returns r's ROLE reply.
func (r *Redis) role() []any {
	v, err := r.Do("ROLE")
	if err != nil {
		r.t.Fatalf("faults: %s ROLE: %v", r.Addr(), err)
	}
	l, _ := v.([]any)
	return l
}

// Masters returns the nodes that are masters now (ROLE), in node order.
func (c *Cluster) Masters() []*Redis {
	var m []*Redis
	for _, r := range c.Nodes {
		if l := r.role(); len(l) > 0 && l[0] == "master" {
			m = append(m, r)
		}
	}
	return m
}

// Node returns the node listening on addr ("host:port"), or nil.
func (c *Cluster) Node(addr string) *Redis {
	for _, r := range c.Nodes {
		if r.Addr() == addr {
			return r
		}
	}
	return nil
}

// ReplicasOf returns the nodes that replicate from master now (ROLE:
// "slave", host, port, ...).
func (c *Cluster) ReplicasOf(master *Redis) []*Redis {
	var out []*Redis
	for _, r := range c.Nodes {
		l := r.role()
		if len(l) >= 3 && l[0] == "slave" && fmt.Sprintf("%v:%v", l[1], l[2]) == master.Addr() {
			out = append(out, r)
		}
	}
	return out
}

// Addrs returns the nodes' addresses.
func (c *Cluster) Addrs() []string {
	a := make([]string, len(c.Nodes))
	for i, r := range c.Nodes {
		a[i] = r.Addr()
	}
	return a
}

// Client returns a new ClusterClient for the cluster, closed when the test
// ends. opts may be nil; its Addrs are overwritten.
func (c *Cluster) Client(opts *redis.ClusterOptions) *redis.ClusterClient {
	o := redis.ClusterOptions{}
	if opts != nil {
		o = *opts
	}
	o.Addrs = c.Addrs()
	cc := redis.NewClusterClient(&o)
	c.t.Cleanup(func() { _ = cc.Close() })
	return cc
}

// String lists the nodes.
func (c *Cluster) String() string { return fmt.Sprint(c.Addrs()) }
