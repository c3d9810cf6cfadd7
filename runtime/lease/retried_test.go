package lease

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/runtime/fence"
)

// Issue 12, class 3: the connection closes after the release script ran;
// go-redis with its default retries sends it again, and the second
// compare-and-delete finds the key gone. That is this owner's own release,
// not a lost lease: Release returns nil and Do reports no loss.
func TestReleaseResentByClientRetryIsNotNotHeld(t *testing.T) {
	r := faults.StartRedis(t, faults.RedisOptions{})
	p := faults.StartProxy(t, r.Addr())
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr()}) // go-redis defaults: MaxRetries 3
	t.Cleanup(func() { _ = rdb.Close() })
	c := New(rdb, nil)
	if err := c.Check(bg); err != nil && !errors.Is(err, ErrUnsafeConfig) {
		t.Fatal(err)
	}

	l := mustAcquire(t, c, "res", 2*time.Second)
	closed := p.CloseAfterReply([]byte(releaseScript.Hash()), 1)
	if err := l.Release(bg); err != nil {
		t.Fatalf("Release after a retried compare-and-delete: %v", err)
	}
	if closed() != 1 {
		t.Fatalf("the proxy closed %d connections after the release, want 1: the fault did not happen", closed())
	}
	if calls := r.CommandCalls()["evalsha"]; calls < 3 { // acquire, release, release again
		t.Fatalf("evalsha calls = %d: the release was not sent twice", calls)
	}
	if v, _ := r.Admin().Get(bg, "fencegen:{res}:lock").Result(); v != "" {
		t.Fatalf("lock key still %q", v)
	}

	// The same through Do: no loss reported.
	p.CloseAfterReply([]byte(releaseScript.Hash()), 1)
	err := c.Do(bg, "res", 2*time.Second, func(ctx context.Context, _ fence.Token) error { return nil })
	if err != nil {
		t.Fatalf("Do: %v", err)
	}

	// A release whose key expired unreleased is still ErrNotHeld.
	l = mustAcquire(t, c, "res", 2*time.Second)
	r.Del("fencegen:{res}:lock")
	if err := l.Release(bg); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Release of a vanished key = %v, want ErrNotHeld", err)
	}
}
