package gcstart

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestRunSettingsFollowLiveHeap: a small live heap keeps the small-run
// settings through collections; once a collection finds a live heap of
// largeRunLive bytes or more, the collector runs at GOGC=largeRunGOGC
// under a limit of largeRunHeap; once one finds hugeRunLive bytes or
// more, it is back at GOGC=100 with no memory limit.
func TestRunSettingsFollowLiveHeap(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("SKIP: GOGC or GOMEMLIMIT is set, so init left the collector alone")
	}
	// The state init leaves (earlier tests in this binary may have grown
	// the heap past it already).
	runtime.GC()
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(smallRunHeap)
	large.Store(false)
	watchCollections()
	for i := 0; i < 3; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if limit := debug.SetMemoryLimit(-1); limit != smallRunHeap {
		t.Fatalf("memory limit with a small live heap = %d bytes, want %d", limit, smallRunHeap)
	}
	var live [][]byte
	grow := func(to int) {
		for n := len(live) << 20; n < to; n += 1 << 20 {
			live = append(live, make([]byte, 1<<20))
		}
	}
	// waitLimit collects until the memory limit is want.
	waitLimit := func(want int64) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			runtime.GC()                      // the finalizer runs after a collection, in its own goroutine
			limit := debug.SetMemoryLimit(-1) // -1 reads without changing
			if limit == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("memory limit %d bytes with %d MiB live after 10 s of collections, want %d", limit, len(live), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	grow(largeRunLive + 4<<20)
	waitLimit(largeRunHeap)
	if prev := debug.SetGCPercent(largeRunGOGC); prev != largeRunGOGC {
		t.Errorf("GOGC after a large run's collection = %d, want %d", prev, largeRunGOGC)
	}
	grow(hugeRunLive + 4<<20)
	waitLimit(math.MaxInt64)
	if prev := debug.SetGCPercent(100); prev != 100 {
		t.Errorf("GOGC after a huge run's collection = %d, want 100", prev)
	}
	runtime.KeepAlive(live)
}
