package main

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// harness adapts internal/faults, whose helpers take a testing.TB, to a
// command: Fatalf panics with a fatal value that try turns into an error,
// Cleanup functions run at close, TempDir is a real temporary directory.
// Only the methods internal/faults calls are implemented; the embedded nil
// testing.TB makes any other call panic loudly.
type harness struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
}

type fatal struct{ msg string }

func (h *harness) Helper()                        {}
func (h *harness) Name() string                   { return "chaos" }
func (h *harness) Fatalf(format string, a ...any) { panic(fatal{fmt.Sprintf(format, a...)}) }
func (h *harness) Fatal(a ...any)                 { panic(fatal{fmt.Sprint(a...)}) }
func (h *harness) Skipf(format string, a ...any)  { panic(fatal{fmt.Sprintf(format, a...)}) }
func (h *harness) Errorf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "chaos: "+format+"\n", a...)
}
func (h *harness) Logf(format string, a ...any) { fmt.Fprintf(os.Stderr, "chaos: "+format+"\n", a...) }
func (h *harness) Cleanup(f func())             { h.mu.Lock(); h.cleanups = append(h.cleanups, f); h.mu.Unlock() }
func (h *harness) TempDir() string {
	dir, err := os.MkdirTemp("", "fencegen-chaos-")
	if err != nil {
		h.Fatalf("temp dir: %v", err)
	}
	h.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// close runs the cleanups, last registered first.
func (h *harness) close() {
	h.mu.Lock()
	cs := h.cleanups
	h.cleanups = nil
	h.mu.Unlock()
	for i := len(cs) - 1; i >= 0; i-- {
		func() {
			defer func() { _ = recover() }()
			cs[i]()
		}()
	}
}

// try runs f and returns the message of a Fatalf inside it as an error.
func try(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if f, ok := r.(fatal); ok {
				err = fmt.Errorf("%s", f.msg)
				return
			}
			panic(r)
		}
	}()
	f()
	return nil
}

// mono reads CLOCK_MONOTONIC, shared by every process on the machine, so
// that the coordinator and its workers stamp events on one clock.
func mono() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic(err)
	}
	return ts.Nano()
}
