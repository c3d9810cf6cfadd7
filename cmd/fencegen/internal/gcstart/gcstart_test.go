package gcstart

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestLargeRunRestoresCollectorDefaults: a small live heap keeps the
// small-run settings through collections; once a collection finds a live
// heap of largeRunLive bytes or more, the collector is back at GOGC=100
// with no memory limit.
func TestLargeRunRestoresCollectorDefaults(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("SKIP: GOGC or GOMEMLIMIT is set, so init left the collector alone")
	}
	// The state init leaves (earlier tests in this binary may have grown
	// the heap past it already).
	runtime.GC()
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(smallRunHeap)
	watchCollections()
	for i := 0; i < 3; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if limit := debug.SetMemoryLimit(-1); limit != smallRunHeap {
		t.Fatalf("memory limit with a small live heap = %d bytes, want %d", limit, smallRunHeap)
	}
	live := make([][]byte, 0, 64)
	for n := 0; n < 2*largeRunLive; n += 1 << 20 {
		live = append(live, make([]byte, 1<<20))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()                      // the finalizer runs after a collection, in its own goroutine
		limit := debug.SetMemoryLimit(-1) // -1 reads without changing
		if limit > smallRunHeap {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("memory limit still %d bytes with %d MiB live after 10 s of collections", limit, len(live))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if prev := debug.SetGCPercent(100); prev != 100 {
		t.Errorf("GOGC after a large run's collection = %d, want 100", prev)
	}
	runtime.KeepAlive(live)
}
