package lease

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/fencegen/fencegen/internal/faults"
)

// Issue 26, the first hour: a lease lost at its local deadline with no
// failed renewal before it (here the heartbeat is disabled and nothing
// renews) logs what happened, the reason, and no empty error: never
// "lease lost ... err=<nil>".
func TestLostAtDeadlineLogsNoNilError(t *testing.T) {
	e := newEnv(t)
	var logs syncWriter
	c := New(e.rdb, &Options{HeartbeatInterval: -1, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	l := mustAcquire(t, c, e.resource, 300*time.Millisecond)
	waitDone(t, l.Context(), 2*time.Second)
	_ = l.Release(bg)
	out := logs.String()
	var lost string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, `msg="lease lost"`) {
			lost = line
		}
	}
	if !strings.Contains(lost, `reason="local deadline passed"`) {
		t.Fatalf("no lease lost record with its reason in:\n%s", out)
	}
	if strings.Contains(out, "<nil>") {
		t.Fatalf("a record logs an empty error:\n%s", out)
	}
}

// Issue 26, the first hour: Check keeps configuration errors and
// persistence warnings apart, so that "log the warnings and go on" cannot
// swallow an error. On a server without persistence (a warning), an
// invalid option is refused by New with ErrConfig alone, not
// ErrUnsafeConfig, before Check could run; with valid options Check
// returns the warnings alone, not ErrConfig.
func TestCheckSeparatesErrorsFromWarnings(t *testing.T) {
	_, rdb := private(t, faults.RedisOptions{})
	err := newRefusal(rdb, &Options{KeyPrefix: "a{b}"})
	if !errors.Is(err, ErrConfig) || errors.Is(err, ErrUnsafeConfig) {
		t.Fatalf("New with an invalid KeyPrefix = %v, want ErrConfig and not ErrUnsafeConfig", err)
	}
	err = New(rdb, nil).Check(bg)
	if !errors.Is(err, ErrUnsafeConfig) || errors.Is(err, ErrConfig) {
		t.Fatalf("Check on a server without persistence = %v, want ErrUnsafeConfig and not ErrConfig", err)
	}
}
