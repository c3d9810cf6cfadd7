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
