package lease

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/runtime/fence"
)

type traceKey struct{}

// ctxHandler is a slog.Handler that records, per message, the trace value
// of the context each record was logged with.
type ctxHandler struct {
	mu   *sync.Mutex
	seen map[string]any
}

func (h ctxHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h ctxHandler) Handle(ctx context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seen[r.Message] = ctx.Value(traceKey{})
	return nil
}
func (h ctxHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h ctxHandler) WithGroup(string) slog.Handler      { return h }

// Observer.Event gets the caller's context (its values, for the heartbeat's
// events), and so do the slog records; the deprecated On* callbacks still
// run.
func TestObserverEventsAndLogsCarryCallerContext(t *testing.T) {
	e := newEnv(t)
	var mu sync.Mutex
	events := map[EventKind]any{}
	old := 0
	h := ctxHandler{mu: &mu, seen: map[string]any{}}
	c := New(e.rdb, &Options{
		Logger: slog.New(h),
		Observer: &Observer{
			Event: func(ctx context.Context, ev Event) {
				mu.Lock()
				defer mu.Unlock()
				events[ev.Kind] = ctx.Value(traceKey{})
			},
			OnAcquired: func(string, fence.Token) { mu.Lock(); old++; mu.Unlock() },
			OnReleased: func(string, fence.Token, error) { mu.Lock(); old++; mu.Unlock() },
		},
	})
	ctx := context.WithValue(bg, traceKey{}, "trace-1")
	l := mustAcquireCtx(t, c, ctx, e.resource, 300*time.Millisecond)
	time.Sleep(200 * time.Millisecond) // one renewal
	if err := l.Release(context.WithValue(bg, traceKey{}, "trace-2")); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := map[EventKind]any{EventAcquired: "trace-1", EventRenewed: "trace-1", EventReleased: "trace-2"}
	for k, v := range want {
		if events[k] != v {
			t.Errorf("event %q had trace %v, want %v (events %v)", k, events[k], v, events)
		}
	}
	for msg, v := range map[string]any{"lease acquired": "trace-1", "lease renewed": "trace-1", "lease released": "trace-2"} {
		if h.seen[msg] != v {
			t.Errorf("log %q had trace %v, want %v", msg, h.seen[msg], v)
		}
	}
	if old != 2 {
		t.Errorf("deprecated callbacks ran %d times, want 2", old)
	}
}

func mustAcquireCtx(t *testing.T, c *Client, ctx context.Context, res string, ttl time.Duration) *Lease {
	t.Helper()
	l, err := c.Acquire(ctx, res, ttl)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// AllKeys names every key the package writes: after acquires, releases, a
// failed acquire's cleanup and an Advance, every key on a private server
// is one of them (the abandon marks by their prefix).
func TestAllKeysCoversEveryKeyWritten(t *testing.T) {
	r := faults.StartRedis(t, faults.RedisOptions{})
	p := faults.StartProxy(t, r.Addr())
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	c := New(rdb, &Options{AcquireRetries: -1})
	l := mustAcquire(t, c, "a", time.Second)
	if err := l.Release(bg); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Advance(bg, "a", 10); err != nil {
		t.Fatal(err)
	}
	p.SetLatency(faults.Downstream, 300*time.Millisecond) // reply after CallTimeout: cleanup
	if _, err := c.Acquire(bg, "a", time.Second); err == nil {
		t.Fatal("Acquire succeeded through a 300ms reply latency")
	}
	p.Heal()
	time.Sleep(500 * time.Millisecond)
	keys, err := r.Admin().Keys(bg, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	all := c.AllKeys("a")
	abandoned := false
	for _, k := range keys {
		ok := false
		for _, a := range all {
			if k == a || (strings.HasSuffix(a, ":") && strings.HasPrefix(k, a)) {
				ok = true
				abandoned = abandoned || strings.HasSuffix(a, ":")
			}
		}
		if !ok {
			t.Errorf("key %q written but not in AllKeys %v", k, all)
		}
	}
	if !abandoned {
		t.Errorf("no abandon mark among %v: the cleanup did not run", keys)
	}
}

// Do and DoWait without a function say so (ErrConfig) before they acquire
// anything, instead of panicking inside the lease.
func TestDoWithNilFnIsConfigErrorAndAcquiresNothing(t *testing.T) {
	e := newEnv(t)
	c := New(e.rdb, nil)
	if err := c.Do(bg, e.resource, time.Second, nil); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "fn is nil") {
		t.Fatalf("Do(nil fn) = %v, want ErrConfig saying fn is nil", err)
	}
	if err := c.DoWait(bg, e.resource, time.Second, nil); !errors.Is(err, ErrConfig) {
		t.Fatalf("DoWait(nil fn) = %v, want ErrConfig", err)
	}
	if s := c.Stats(); s.Acquires != 0 {
		t.Fatalf("Stats = %+v: Do with a nil fn reached Redis", s)
	}
}
