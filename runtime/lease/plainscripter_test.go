package lease

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// plainScripter is a redis.Scripter and nothing more: no Pipeline, so an
// acquire through it cannot be pipelined with WAIT.
type plainScripter struct{ redis.Scripter }

// Issue 26: a plain redis.Scripter cannot wait for replicas, so after a
// failover a promoted replica could mint a token again (what
// TestFailoverNeverHandsOneTokenToTwoHolders shows without the replica
// check). New refuses it, naming the option; with Options.UnsafeNoReplicas
// (the caller states the server has none) it is accepted and works. A
// go-redis client that pipelines needs no option.
func TestNewRefusesPlainScripterWithoutUnsafeNoReplicas(t *testing.T) {
	e := newEnv(t)
	for _, opts := range []*Options{nil, {TTL: time.Second}} {
		func() {
			defer func() {
				r := recover()
				msg, _ := r.(string)
				if !strings.Contains(msg, "Options.UnsafeNoReplicas") || !strings.Contains(msg, "replica") {
					t.Errorf("New(plain Scripter, %+v) panicked with %v, want a refusal naming Options.UnsafeNoReplicas", opts, r)
				}
			}()
			New(plainScripter{e.rdb}, opts)
		}()
	}
	c := New(plainScripter{e.rdb}, &Options{UnsafeNoReplicas: true})
	l := mustAcquire(t, c, e.resource, 5*time.Second)
	if err := l.Release(bg); err != nil {
		t.Fatalf("Release through a plain Scripter: %v", err)
	}
	for _, rdb := range []redis.Scripter{e.rdb, redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{e.rdb.Options().Addr}}), redis.NewUniversalClient(&redis.UniversalOptions{Addrs: []string{e.rdb.Options().Addr}})} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("New(%T, nil) panicked: %v", rdb, r)
				}
			}()
			New(rdb, nil)
		}()
		if cl, ok := rdb.(interface{ Close() error }); ok && rdb != redis.Scripter(e.rdb) {
			if err := cl.Close(); err != nil && !errors.Is(err, redis.ErrClosed) {
				t.Error(err)
			}
		}
	}
}

// oddPipeliner pipelines, but is none of the go-redis clients whose
// pipeline the replica check knows to run on one connection to one
// primary.
type oddPipeliner struct{ *redis.Client }

func (o oddPipeliner) Options() string { return "not go-redis's" }

// Issue 26: a go-redis Ring is refused whatever the options say (a shard
// marked down moves its resources to a shard whose counter is behind:
// one token for two holders without any replica), and a pipelining type
// the replica check does not know needs Options.UnsafeNoReplicas, as a
// plain Scripter does. A type embedding a *redis.Client or a
// *redis.ClusterClient is accepted.
func TestNewRefusesRingAndUnknownPipeliners(t *testing.T) {
	e := newEnv(t)
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": e.rdb.Options().Addr}})
	defer ring.Close()
	refused := func(rdb redis.Scripter, opts *Options, want ...string) {
		t.Helper()
		defer func() {
			t.Helper()
			msg, _ := recover().(string)
			for _, w := range want {
				if !strings.Contains(msg, w) {
					t.Errorf("New(%T, %+v) panicked with %q, want it to name %q", rdb, opts, msg, w)
				}
			}
		}()
		New(rdb, opts)
	}
	refused(ring, nil, "*redis.Ring", "shard", "ClusterClient")
	refused(ring, &Options{UnsafeNoReplicas: true}, "*redis.Ring", "does not cover")
	refused(oddPipeliner{e.rdb}, nil, "lease.oddPipeliner", "Options.UnsafeNoReplicas")
	// A Pipeline or TxPipeline queues commands until Exec, so no script
	// would run (trial t26 F5: accepted under UnsafeNoReplicas, then every
	// Acquire failed with go-redis's "unexpected type=<nil>").
	for _, p := range []redis.Pipeliner{e.rdb.Pipeline(), e.rdb.TxPipeline()} {
		refused(p, nil, "*redis.Pipeline", "queues commands until Exec", "the client the pipeline came from")
		refused(p, &Options{UnsafeNoReplicas: true}, "*redis.Pipeline", "does not cover")
	}
	New(oddPipeliner{e.rdb}, &Options{UnsafeNoReplicas: true})
	type embedsClient struct{ *redis.Client }
	if c := New(embedsClient{e.rdb}, nil); c.replicas != pipelineWait {
		t.Errorf("a type embedding *redis.Client: replica check %d, want pipelineWait", c.replicas)
	}
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{e.rdb.Options().Addr}})
	defer cc.Close()
	type embedsCluster struct{ *redis.ClusterClient }
	if c := New(embedsCluster{cc}, nil); c.replicas != clusterWait {
		t.Errorf("a type embedding *redis.ClusterClient: replica check %d, want clusterWait", c.replicas)
	}
}
