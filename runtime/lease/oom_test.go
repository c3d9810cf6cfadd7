package lease

import (
	"context"
	"errors"
	"fmt"
	"os"
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

	waitsOutRefusal(t, r, c, "Redis was out of memory", func() {
		for i := range n {
			if err := admin.Del(bg, fmt.Sprintf("junk:%d", i)).Err(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// Issue 26 (trial rt4 F6, from node-redlock#11): Redis refusing writes
// because an RDB save failed (MISCONF, under stop-writes-on-bgsave-error,
// e.g. on a full disk) clears once a save succeeds or the operator turns
// the setting off. Acquire reports it as ErrRedisCannotPersist, not as a
// configuration error, writes nothing, and AcquireWait keeps retrying
// until it succeeds.
func TestCannotPersistIsTransient(t *testing.T) {
	dir := t.TempDir()
	r := faults.StartRedis(t, faults.RedisOptions{Args: []string{"--dir", dir, "--save", "3600 1", "--stop-writes-on-bgsave-error", "yes"}})
	admin := r.Admin()
	if err := os.RemoveAll(dir); err != nil { // the save's temporary file cannot be created
		t.Fatal(err)
	}
	if err := admin.BgSave(bg).Err(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		info := admin.Info(bg, "persistence").Val()
		if strings.Contains(info, "rdb_last_bgsave_status:err") && !strings.Contains(info, "rdb_bgsave_in_progress:1") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("BGSAVE did not fail:\n%s", info)
		}
		time.Sleep(10 * time.Millisecond)
	}
	c := New(r.Client(nil), nil)
	_, err := c.Acquire(bg, "res", time.Second)
	if err == nil || errors.Is(err, ErrConfig) || !errors.Is(err, ErrRedisCannotPersist) || !strings.Contains(err.Error(), "MISCONF") {
		t.Fatalf("Acquire while Redis cannot persist: %v; want ErrRedisCannotPersist, not ErrConfig", err)
	}
	if v := getKey(t, admin, "fencegen:{res}:lock"); v != "" {
		t.Fatalf("lock key %q left by a refused acquire", v)
	}

	waitsOutRefusal(t, r, c, "Redis could not persist", func() {
		if err := admin.ConfigSet(bg, "stop-writes-on-bgsave-error", "no").Err(); err != nil {
			t.Fatal(err)
		}
	})
}

// waitsOutRefusal checks that AcquireWait on c keeps retrying while Redis
// r refuses its writes (two refused attempts at least: it did not give
// up at the first), then succeeds once clear has made Redis take writes
// again; what names the refusal in messages.
func waitsOutRefusal(t *testing.T, r *faults.Redis, c *Client, what string, clear func()) {
	t.Helper()
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
	for r.CommandCalls()["evalsha"] < 2 {
		select {
		case res := <-done:
			t.Fatalf("AcquireWait returned while %s: %v", what, res.err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	clear()
	res := <-done
	if res.err != nil {
		t.Fatalf("AcquireWait after %s no more: %v", what, res.err)
	}
	if err := res.l.Release(bg); err != nil {
		t.Fatal(err)
	}
}
