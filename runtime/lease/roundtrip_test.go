package lease

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Acquire, Renew and Release are one round trip each: counted on a private
// redis-server with INFO commandstats (one EVALSHA each, nothing else, once
// the scripts are loaded; commandstats also lists the GET/SET/INCR/PEXPIRE/
// DEL the script runs inside that one call).
func TestOneRoundTripEachByCommandStats(t *testing.T) {
	r, rdb := private(t, privateOpts)
	c := New(rdb, &Options{HeartbeatInterval: -1})
	warm := mustAcquire(t, c, "rt", time.Second) // EVALSHA → NOSCRIPT → EVAL once per script
	_ = warm.Renew(bg)
	_ = warm.Release(bg)

	step := func(name string, f func()) {
		t.Helper()
		r.ResetStats()
		f()
		calls := r.CommandCalls()
		// commandstats also counts the commands run inside the script.
		inScript := map[string]bool{"get": true, "set": true, "incr": true, "pexpire": true, "del": true, "exists": true, "mget": true}
		for cmd, n := range calls {
			switch {
			case cmd == "evalsha" && n == 1, inScript[cmd], cmd == "config|resetstat", cmd == "info":
			default:
				t.Errorf("%s ran %v on the server, want one evalsha (plus the script's own commands)", name, calls)
			}
		}
		if calls["evalsha"] != 1 {
			t.Errorf("%s ran %d evalsha, want 1", name, calls["evalsha"])
		}
	}
	var l *Lease
	step("Acquire", func() { l = mustAcquire(t, c, "rt", time.Second) })
	step("Renew", func() {
		if err := l.Renew(bg); err != nil {
			t.Fatal(err)
		}
	})
	step("Release", func() {
		if err := l.Release(bg); err != nil {
			t.Fatal(err)
		}
	})
}

// overriding is a Redis client type that embeds *redis.Client and
// overrides EvalSha, as a test double or an instrumenting wrapper does.
type overriding struct {
	*redis.Client
	evalSha atomic.Int32
}

func (o *overriding) EvalSha(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	o.evalSha.Add(1)
	return o.Client.EvalSha(ctx, sha1, keys, args...)
}

// Acquire and Release send their prebuilt commands with Do only on
// go-redis's own client types: a type that embeds one (and has its Do
// method) still gets every script call through its EvalSha, so an
// override there sees the acquire and the release.
func TestEmbeddingClientKeepsItsEvalSha(t *testing.T) {
	_, rdb := private(t, privateOpts)
	o := &overriding{Client: rdb}
	c := New(o, &Options{HeartbeatInterval: -1})
	// The first acquire is pipelined with INFO replication (the replica
	// check reads it at most once a second), so it does not go through
	// EvalSha; the second is a plain script call.
	for range 2 {
		l := mustAcquire(t, c, "embedded", time.Second)
		if err := l.Release(bg); err != nil {
			t.Fatal(err)
		}
	}
	if got := o.evalSha.Load(); got != 3 {
		t.Fatalf("the embedding type's EvalSha saw %d calls, want 3 (the second acquire, two releases)", got)
	}
	// A plain *redis.Client takes the Do path, and the scripts still run
	// after the server lost its script cache (NOSCRIPT, then EVAL).
	c = New(rdb, &Options{HeartbeatInterval: -1})
	if err := rdb.ScriptFlush(bg).Err(); err != nil {
		t.Fatal(err)
	}
	l := mustAcquire(t, c, "plain", time.Second)
	if err := l.Release(bg); err != nil {
		t.Fatalf("Release after SCRIPT FLUSH: %v", err)
	}
}
