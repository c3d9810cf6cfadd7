// Package gcstart sets the collector for one generator run, at package
// initialisation: imported by the command (package main) only, never by
// the generator's packages, which are a library too.
//
// It must initialise early: pg_query's and TiDB's packages and the
// generator's allocate a few MiB at start-up, so under
// the default settings (a first collection at a 4 MiB heap) about half the
// runs collected once before main, with a stop-the-world pause and a mark
// phase in a run of a few tens of milliseconds. The linker orders package
// initialisation by dependency, the lexically first ready package first
// (cmd/link's inittask.go); this package depends only on the standard
// library, so it runs once runtime/debug has, before TiDB's parser and
// character sets and before the generator's stages (catalog, analyze,
// golang) (0 of 100 runs collected before main under load 14;
// TestInitOrder in package main checks the order). Keep it free of other
// imports.
package gcstart

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// The collector's settings for one generator run. A run is a short-lived
// process whose live heap is a few MiB on most projects (about 20 MiB at
// peak on sqlc's example projects): under Go's default (GOGC=100, a
// collection each time the heap doubles from a small start) such a run
// collects many times and spends about a third of its CPU on the collector
// and on faulting in the memory it keeps returning (BenchmarkGenerateSmall,
// BENCHMARKS.md). So a run starts with the collector off and a soft memory
// limit of smallRunHeap (Go's GC guide, "Memory limit": the limit alone
// decides when to collect): a small project is generated with at most a
// collection or two, in less memory than sqlc takes.
//
// After the first collection whose live heap passes half that limit
// (largeRunLive), the project is a large one: GOGC=largeRunGOGC under a
// soft limit of largeRunHeap. At 1,000 tables the live heap after a
// collection is 25 to 70 MiB, so GOGC=100 collected each time 25 to 70
// MiB more were allocated; at 200 it collects half as often while the
// live heap is small, and the limit stops the heap where GOGC=100 would
// have stopped it at the live heap's peak, so the peak memory is no
// higher (issue 23, the benchmark's 1,000 tables: 5% fewer instructions
// under callgrind, 9 collections instead of 12, peak RSS 170 MiB against
// 180 under GOGC=100 and sqlc's 220). Above half the limit of live heap
// the limit collects more often than GOGC=100 would (by at most a fifth
// up to hugeRunLive, 3/5 of the limit): once a collection's live heap
// passes hugeRunLive, Go's defaults return (GOGC=100, no limit), so a
// larger project's peak is what it was before, not a collector held at
// a limit.
//
// GOGC or GOMEMLIMIT in the environment is the user's choice and is left
// alone.
const (
	smallRunHeap = 48 << 20             // bytes: the soft memory limit of a small run
	largeRunLive = 24 << 20             // bytes of live heap after a collection: a large run
	largeRunGOGC = 200                  // GOGC of a large run
	largeRunHeap = 140 << 20            // bytes: the soft memory limit of a large run
	hugeRunLive  = largeRunHeap * 3 / 5 // bytes of live heap after a collection: Go's defaults
)

func init() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(smallRunHeap)
	watchCollections()
}

// watchCollections arranges for checkRun to run after the next
// collection: a finalizer runs once its object has been found unreachable,
// that is after a collection, and re-arms itself until the run turns out
// huge.
func watchCollections() {
	sentinel := new([16]byte) // not a zero-size object: those may never be finalized
	runtime.SetFinalizer(sentinel, func(*[16]byte) {
		if !checkRun() {
			watchCollections()
		}
	})
}

// large is set once checkRun has set the large run's settings.
var large atomic.Bool

// checkRun sets the large run's settings when the live heap after the
// last collection is at least largeRunLive bytes, and Go's defaults when
// it is at least hugeRunLive bytes (or the runtime does not report it), and
// reports whether it did the latter: nothing changes after that.
func checkRun() bool {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 && s[0].Value.Uint64() < hugeRunLive {
		if s[0].Value.Uint64() >= largeRunLive && !large.Load() {
			large.Store(true)
			debug.SetGCPercent(largeRunGOGC)
			debug.SetMemoryLimit(largeRunHeap)
		}
		return false
	}
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
	return true
}
