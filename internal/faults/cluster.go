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

// Cluster is a private Redis Cluster of masters without replicas.
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
	if n < 3 {
		t.Fatalf("faults: a Redis Cluster needs at least 3 masters, got %d", n)
	}
	cli := RedisBinary(t, "redis-cli")
	opts.Cluster = true
	c := &Cluster{t: t}
	args := []string{"--cluster", "create"}
	for range n {
		r := StartRedis(t, opts)
		c.Nodes = append(c.Nodes, r)
		args = append(args, r.Addr())
	}
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
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
	return c
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
