package etcdlease_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencegen/fencegen/internal/faults/etcdfaults"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
	"github.com/fencegen/fencegen/runtime/lease/etcdlease"
)

// blockingHandler is a log sink that stops returning once block is
// closed: a full stderr pipe, a stuck log shipper.
type blockingHandler struct {
	block, unblock <-chan struct{}
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
// hang Release(context.Background()) or Do, nor the renewals of the
// Client's other leases; the events queued behind it arrive in order once
// it returns.
func TestBlockingCallbackHoldsNothing(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	for _, variant := range []string{"observer", "logger"} {
		t.Run(variant, func(t *testing.T) {
			block, unblock := make(chan struct{}), make(chan struct{})
			var once sync.Once
			var mu sync.Mutex
			var got []string
			const res = "cb"
			opts := &etcdlease.Options{TTL: ttl}
			if variant == "observer" {
				opts.Observer = &lease.Observer{Event: func(_ context.Context, ev lease.Event) {
					if ev.Resource != res {
						return
					}
					mu.Lock()
					got = append(got, string(ev.Kind))
					mu.Unlock()
					if ev.Kind == lease.EventRenewed {
						once.Do(func() { close(block) })
						<-unblock
					}
				}}
			} else {
				opts.Logger = slog.New(blockingHandler{block: block, unblock: unblock})
			}
			unblocked := false
			defer func() {
				if !unblocked {
					close(unblock)
				}
			}()
			c := etcdlease.New(e.Client(), opts)
			ctx := ctxT(t, 60*time.Second)
			l, err := c.Acquire(ctx, res, 0)
			if err != nil {
				t.Fatal(err)
			}
			other, err := c.Acquire(ctx, res+"-other", 0)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Release(context.Background())
			if variant == "logger" {
				close(block)
			}
			select {
			case <-block:
			case <-time.After(15 * time.Second):
				t.Fatal("no renewal event within 15s")
			}
			time.Sleep(ttl + ttl/2) // past the TTL with the callbacks blocked
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
			case <-time.After(15 * time.Second):
				t.Fatal("Release(context.Background()) still blocked after 15s by a blocked callback")
			}
			calls := 0
			if err := c.Do(ctx, res, 0, func(context.Context, fence.Token) error { calls++; return nil }); err != nil || calls != 1 {
				t.Fatalf("Do with a blocked callback: %v (%d calls)", err, calls)
			}
			if s := c.Stats(); s.SlowCallbacks == 0 {
				t.Fatal("Stats().SlowCallbacks = 0 with a callback blocked for seconds")
			}
			if variant != "observer" {
				return
			}
			close(unblock)
			unblocked = true
			deadline := time.Now().Add(15 * time.Second)
			for {
				mu.Lock()
				seq := strings.Join(got, ",") + ","
				mu.Unlock()
				if okOrder(seq) {
					return
				}
				if strings.Count(seq, "released") == 2 || time.Now().After(deadline) {
					t.Fatalf("events of %s after the callback returned: %s", res, seq)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// okOrder reports whether seq is acquired, renewed..., released, twice.
func okOrder(seq string) bool {
	for range 2 {
		var ok bool
		if seq, ok = strings.CutPrefix(seq, "acquired,"); !ok {
			return false
		}
		for strings.HasPrefix(seq, "renewed,") {
			seq = seq[len("renewed,"):]
		}
		if seq, ok = strings.CutPrefix(seq, "released,"); !ok {
			return false
		}
	}
	return seq == ""
}

// TestPanickingCallbackKeepsTheProcess: as for the Redis lease, an
// Observer.Event that panics is recovered on the Client's callback
// goroutine (trial t26 F2); the lease is released normally afterwards and
// Stats counts the panic.
func TestPanickingCallbackKeepsTheProcess(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	const res = "panicking-cb"
	logs := &syncBuf{}
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(logs, nil)))
	var mu sync.Mutex
	var kinds []lease.EventKind
	c := etcdlease.New(e.Client(), &etcdlease.Options{TTL: ttl, Observer: &lease.Observer{Event: func(_ context.Context, ev lease.Event) {
		if ev.Resource != res {
			return
		}
		mu.Lock()
		kinds = append(kinds, ev.Kind)
		mu.Unlock()
		if ev.Kind == lease.EventAcquired {
			panic("observer boom")
		}
	}}})
	ctx := ctxT(t, 60*time.Second)
	l, err := c.Acquire(ctx, res, 0)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(ttl / 2) // a renewal at TTL/3 comes after the panic
	if err := l.Release(ctx); err != nil {
		t.Fatalf("Release after a panicking callback: %v", err)
	}
	if got := c.Stats().PanickedCallbacks; got != 1 {
		t.Errorf("Stats().PanickedCallbacks = %d, want 1", got)
	}
	// The record names the hook, the event and the lease it was for, so
	// that an operator with many leases finds them (trial r26s N1).
	if want := fmt.Sprintf("hook=Observer.Event event=acquired resource=%s token=%d panic=\"observer boom\"", res, l.Token()); !strings.Contains(logs.String(), want) {
		t.Errorf("slog.Default got %q, want a record with %q", logs.String(), want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(kinds) < 3 || kinds[0] != lease.EventAcquired || kinds[len(kinds)-1] != lease.EventReleased {
		t.Errorf("events %v: want acquired, renewed..., released", kinds)
	}
}
