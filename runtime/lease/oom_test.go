package lease

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fencegen/fencegen/internal/faults"
)

// Issue 26 (trial-rt3 F5): Redis refusing writes at maxmemory under
// noeviction, the policy the lease requires, clears once keys expire or
// are deleted. Acquire reports it as out of memory, not as a
// configuration error, and AcquireWait keeps retrying until it succeeds.
func TestOutOfMemoryIsTransient(t *testing.T) {
	r := faults.StartRedis(t, faults.RedisOptions{})
	admin := r.Admin()
	// 5 MB of junk, then a limit of 3 MB: every write is refused until
	// the junk is deleted, whatever else moves the used memory a little.
	junk := strings.Repeat("x", 64<<10)
	const n = 80
	for i := range n {
		if err := admin.Set(bg, fmt.Sprintf("junk:%d", i), junk, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := admin.ConfigSet(bg, "maxmemory", "3mb").Err(); err != nil {
		t.Fatal(err)
	}
	c := New(r.Client(nil), nil)
	_, err := c.Acquire(bg, "res", time.Second)
	if err == nil || errors.Is(err, ErrConfig) || !errors.Is(err, ErrRedisOutOfMemory) || !strings.Contains(err.Error(), "out of memory") {
		t.Fatalf("Acquire at maxmemory: %v; want ErrRedisOutOfMemory, not ErrConfig", err)
	}
	if v := getKey(t, admin, "fencegen:{res}:lock"); v != "" {
		t.Fatalf("lock key %q left by a refused acquire", v)
	}

	r.ResetStats()
	ctx, cancel := context.WithTimeout(bg, 30*time.Second)
	defer cancel()
	type result struct {
		l   *Lease
		err error
	}
	done := make(chan result, 1)
	go func() {
		l, err := c.AcquireWait(ctx, "res", time.Second)
		done <- result{l, err}
	}()
	// Two refused attempts: AcquireWait did not give up at the first.
	for r.CommandCalls()["evalsha"] < 2 {
		select {
		case res := <-done:
			t.Fatalf("AcquireWait returned while Redis was out of memory: %v", res.err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	for i := range n {
		if err := admin.Del(bg, fmt.Sprintf("junk:%d", i)).Err(); err != nil {
			t.Fatal(err)
		}
	}
	res := <-done
	if res.err != nil {
		t.Fatalf("AcquireWait after memory was freed: %v", res.err)
	}
	if err := res.l.Release(bg); err != nil {
		t.Fatal(err)
	}
}
