package lease

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencegen/fencegen/runtime/fence"
)

// okOrder is the order of the events of one resource held by a Lease and
// then by Do: acquired, renewed..., released, twice.
var okOrder = regexp.MustCompile(`^(acquired,(renewed,)*released,){2}$`)

func kindsString(kinds []EventKind) string {
	var b strings.Builder
	for _, k := range kinds {
		b.WriteString(string(k) + ",")
	}
	return b.String()
}

// blockingHandler is a log sink that stops returning once blocked is
// closed: a full stderr pipe, a stuck log shipper.
type blockingHandler struct {
	block   <-chan struct{}
	unblock <-chan struct{}
}

func (h blockingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h blockingHandler) Handle(context.Context, slog.Record) error {
	select {
	case <-h.block:
		<-h.unblock
	default:
	}
	return nil
}
func (h blockingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h blockingHandler) WithGroup(string) slog.Handler      { return h }

// TestBlockingCallbackHoldsNothing: an Observer.Event or a Logger handler
// that never returns (kubernetes#139991, ray#63773; trial rt4 F1) must not
// hang Release(context.Background()) or Do, nor stop the heartbeat of the
// Client's other leases; the events queued behind it are delivered in
// order once it returns, and Stats counts it as slow.
func TestBlockingCallbackHoldsNothing(t *testing.T) {
	for _, variant := range []string{"observer", "logger"} {
		t.Run(variant, func(t *testing.T) {
			e := newEnv(t)
			block, unblock := make(chan struct{}), make(chan struct{})
			var once sync.Once
			var mu sync.Mutex
			var got []Event
			opts := &Options{TTL: 600 * time.Millisecond}
			if variant == "observer" {
				opts.Observer = &Observer{Event: func(_ context.Context, ev Event) {
					mu.Lock()
					got = append(got, ev)
					mu.Unlock()
					if ev.Kind == EventRenewed && ev.Resource == e.resource {
						once.Do(func() { close(block) })
						<-unblock
					}
				}}
			} else {
				opts.Logger = slog.New(blockingHandler{block: block, unblock: unblock})
			}
			defer func() {
				select {
				case <-unblock:
				default:
					close(unblock)
				}
			}()
			c := New(e.rdb, opts)
			l := mustAcquire(t, c, e.resource, 0)
			other := mustAcquire(t, c, e.resource+"-other", 0)
			defer other.Release(bg)
			if variant == "logger" {
				close(block)
			}
			select {
			case <-block:
			case <-time.After(10 * time.Second):
				t.Fatal("no renewal event within 10s")
			}
			// Three TTLs with the callbacks blocked: the other lease must
			// be renewed all along (one heartbeat goroutine for both).
			time.Sleep(1800 * time.Millisecond)
			if err := other.Err(); err != nil {
				t.Fatalf("other lease of the Client ended while a callback blocked: %v", err)
			}
			done := make(chan error, 1)
			go func() { done <- l.Release(context.Background()) }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("Release: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Release(context.Background()) still blocked after 10s by a blocked callback")
			}
			var calls int
			err := c.Do(bg, e.resource, 0, func(ctx context.Context, _ fence.Token) error { calls++; return nil })
			if err != nil || calls != 1 {
				t.Fatalf("Do with a blocked callback: %v (%d calls)", err, calls)
			}
			if s := c.Stats(); s.SlowCallbacks == 0 {
				t.Fatalf("Stats().SlowCallbacks = 0 with a callback blocked for seconds")
			}
			if variant != "observer" {
				return
			}
			close(unblock)
			// Once it returns, the queued events arrive in order: for l,
			// acquired, renewed..., released, then Do's acquired/released.
			deadline := time.Now().Add(10 * time.Second)
			for {
				mu.Lock()
				var kinds []EventKind
				for _, ev := range got {
					if ev.Resource == e.resource {
						kinds = append(kinds, ev.Kind)
					}
				}
				mu.Unlock()
				if seq := kindsString(kinds); okOrder.MatchString(seq) {
					return
				} else if strings.Count(seq, "released") == 2 {
					t.Fatalf("events of %s out of order: %s", e.resource, seq)
				}
				if time.Now().After(deadline) {
					t.Fatalf("events of %s after the callback returned: %v", e.resource, kinds)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// TestPanickingCallbackKeepsTheProcess: an Observer.Event that panics
// (a metrics hook with a nil-map bug) runs on the Client's callback
// goroutine, where the worker cannot recover it; it must not crash the
// process holding leases (trial t26 F2). The lease goes on: renewals,
// Release and the later events all work, and Stats counts the panic.
func TestPanickingCallbackKeepsTheProcess(t *testing.T) {
	e := newEnv(t)
	logs := &syncWriter{}
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(logs, nil)))
	var mu sync.Mutex
	var kinds []EventKind
	opts := &Options{TTL: 600 * time.Millisecond, Observer: &Observer{Event: func(_ context.Context, ev Event) {
		if ev.Resource != e.resource {
			return
		}
		mu.Lock()
		kinds = append(kinds, ev.Kind)
		mu.Unlock()
		if ev.Kind == EventAcquired {
			panic("observer boom")
		}
	}}}
	c := New(e.rdb, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	l, err := c.Acquire(ctx, e.resource, 0)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // a renewal at TTL/3 comes after the panic
	if err := l.Release(ctx); err != nil {
		t.Fatalf("Release after a panicking callback: %v", err)
	}
	if got := c.Stats().PanickedCallbacks; got != 1 {
		t.Errorf("Stats().PanickedCallbacks = %d, want 1", got)
	}
	// The record names the hook, the event and the lease it was for, so
	// that an operator with many leases finds them (trial r26s N1).
	if want := fmt.Sprintf("hook=Observer.Event event=acquired resource=%s token=%d panic=\"observer boom\"", e.resource, l.Token()); !strings.Contains(logs.String(), want) {
		t.Errorf("slog.Default got %q, want a record with %q", logs.String(), want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(kinds) < 3 || kinds[0] != EventAcquired || kinds[len(kinds)-1] != EventReleased {
		t.Errorf("events %v: want acquired, renewed..., released", kinds)
	}
}
