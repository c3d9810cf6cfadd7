package notify

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// TestPanickingCallbackIsRecovered: a callback that panics runs on the
// Queue's goroutine, where its poster cannot recover it (trial t26 F2:
// a panicking Observer took the whole process down). The Queue recovers
// it, logs it at error level with its value and stack, counts it, and
// still runs the callbacks posted after it, in order.
func TestPanickingCallbackIsRecovered(t *testing.T) {
	var buf bytes.Buffer
	var logMu sync.Mutex
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(lockedWriter{&logMu, &buf}, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })

	q := &Queue{Name: "lease"}
	var mu sync.Mutex
	var ran []int
	for i := range 4 {
		q.Post(func() {
			mu.Lock()
			ran = append(ran, i)
			mu.Unlock()
			if i == 1 {
				panic("observer boom")
			}
		}, About{Hook: "Observer.Event", Event: "acquired", Resource: "boom", Token: 7})
	}
	done := make(chan struct{})
	q.Post(func() { close(done) }, About{})
	<-done

	mu.Lock()
	defer mu.Unlock()
	if len(ran) != 4 || ran[0] != 0 || ran[1] != 1 || ran[2] != 2 || ran[3] != 3 {
		t.Errorf("callbacks ran %v, want [0 1 2 3] (the ones after the panic too, in order)", ran)
	}
	if got := q.Panicked(); got != 1 {
		t.Errorf("Panicked() = %d, want 1", got)
	}
	logMu.Lock()
	out := buf.String()
	logMu.Unlock()
	// The record names the hook, the event and the lease it was for
	// (trial r26s N1).
	for _, want := range []string{"level=ERROR", "lease: an Observer callback or Logger handler panicked", "hook=Observer.Event event=acquired resource=boom token=7 panic=", "observer boom", "notify_test.go"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

type panickingHandler struct{}

func (panickingHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (panickingHandler) Handle(context.Context, slog.Record) error { panic("slog handler boom") }
func (h panickingHandler) WithAttrs([]slog.Attr) slog.Handler      { return h }
func (h panickingHandler) WithGroup(string) slog.Handler           { return h }

// TestPanickingDefaultHandler: the application's one logger, set as
// slog.Default and as Options.Logger, panics. The record posted to the
// Queue panics, and so does the report of that panic through
// slog.Default; neither may take the process down (trial r26 N3: "panic:
// slog handler boom [recovered, repanicked]"), and both callbacks after
// it still run.
func TestPanickingDefaultHandler(t *testing.T) {
	prev := slog.Default()
	slog.SetDefault(slog.New(panickingHandler{}))
	t.Cleanup(func() { slog.SetDefault(prev) })

	q := &Queue{Name: "lease"}
	lg := slog.Default()
	q.Post(func() { lg.Info("lease acquired") }, About{Hook: "Logger", Event: "lease acquired"})
	ran := make(chan struct{})
	q.Post(func() { close(ran) }, About{})
	<-ran
	if got := q.Panicked(); got != 1 {
		t.Errorf("Panicked() = %d, want 1", got)
	}
}
