package lease

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fencegen/fencegen/runtime/fence"
)

// syncWriter is a bytes.Buffer safe for concurrent slog writes.
type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// An operator can alert on lease loss: the Observer hooks and the slog
// records cover acquired, renewed, renewal failed, lost (with its cause) and
// released.
func TestObserverAndLogsCoverLifecycle(t *testing.T) {
	e := newEnv(t)
	var fail atomic.Bool
	f := &flaky{Scripter: e.rdb, fault: func(sha string) (error, bool) {
		if fail.Load() && sha == renewScript.Hash() {
			return errTimeout, false
		}
		return nil, false
	}}
	var (
		mu     sync.Mutex
		events []string
		lostE  *LostError
	)
	add := func(s string) { mu.Lock(); events = append(events, s); mu.Unlock() }
	var logs syncWriter
	c := New(f, &Options{UnsafeNoReplicas: true,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Observer: &Observer{
			OnAcquired:    func(string, fence.Token) { add("acquired") },
			OnRenewed:     func(string, fence.Token) { add("renewed") },
			OnRenewFailed: func(string, fence.Token, error, int) { add("renew failed") },
			OnLost:        func(err *LostError) { add("lost"); mu.Lock(); lostE = err; mu.Unlock() },
			OnReleased:    func(_ string, _ fence.Token, err error) { add("released") },
		},
	})
	const ttl = 600 * time.Millisecond
	l := mustAcquire(t, c, e.resource, ttl)
	time.Sleep(ttl/3 + 50*time.Millisecond)
	fail.Store(true)
	waitDone(t, l.Context(), ttl)
	// OnLost runs after the context is cancelled: wait for it.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		seen := lostE != nil
		mu.Unlock()
		if seen || time.Now().After(deadline) {
			break
		}
	}
	_ = l.Release(bg)
	mu.Lock()
	got := strings.Join(events, ",")
	lost := lostE
	mu.Unlock()
	for _, want := range []string{"acquired", "renewed", "renew failed", "lost", "released"} {
		if !strings.Contains(got, want) {
			t.Errorf("events %q lack %q", got, want)
		}
	}
	if lost == nil || lost.Reason != ReasonRenewFailed || !errors.Is(lost, errTimeout) {
		t.Errorf("OnLost got %v, want renewals failed with the timeout as cause", lost)
	}
	out := logs.String()
	for _, want := range []string{"lease acquired", "lease renewed", "lease renewal failed", "lease lost", "reason=\"renewals failed\"", "lease released"} {
		if !strings.Contains(out, want) {
			t.Errorf("logs lack %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "level=WARN msg=\"lease lost\"") {
		t.Errorf("loss not logged at WARN:\n%s", out)
	}
}
