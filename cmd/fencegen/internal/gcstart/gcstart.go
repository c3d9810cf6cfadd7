// Package gcstart sets the collector for one generator run, at package
// initialisation: imported by the command (package main) only, never by
// the generator's packages, which are a library too.
//
// It must initialise early: pg_query's and TiDB's packages, the
// generator's and the goroutine gen/internal/pgwarm starts for protobuf's
// set-up of pg_query's messages allocate about 3 MiB at start-up, so under
// the default settings (a first collection at a 4 MiB heap) about half the
// runs collected once before main, with a stop-the-world pause and a mark
// phase in a run of a few tens of milliseconds. The linker orders package
// initialisation by dependency, the lexically first ready package first
// (cmd/link's inittask.go); this package depends only on the standard
// library, so it runs once runtime/debug has, before TiDB's parser and
// character sets and before the generator's stages (catalog, analyze,
// golang), a few packages after pgwarm has started its goroutine (0 of
// 100 runs collected before main under load 14; TestInitOrder in package
// main checks the order). Keep it free of other imports.
package gcstart

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
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
// collection or two, in less memory than sqlc takes. After the first
// collection whose live heap passes half the limit, the project is a large
// one and the defaults return (GOGC=100, no limit), so a large run's peak
// is what it was, not a collector held at the limit.
//
// GOGC or GOMEMLIMIT in the environment is the user's choice and is left
// alone.
const (
	smallRunHeap = 48 << 20 // bytes: the soft memory limit of a small run
	largeRunLive = 24 << 20 // bytes of live heap after a collection: a large run
)

func init() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(smallRunHeap)
	watchCollections()
}

// watchCollections arranges for largeRunCheck to run after the next
// collection: a finalizer runs once its object has been found unreachable,
// that is after a collection, and re-arms itself until the run turns out
// large.
func watchCollections() {
	sentinel := new([16]byte) // not a zero-size object: those may never be finalized
	runtime.SetFinalizer(sentinel, func(*[16]byte) {
		if !largeRunCheck() {
			watchCollections()
		}
	})
}

// largeRunCheck restores the collector's defaults when the live heap after
// the last collection is at least largeRunLive bytes (or the runtime does
// not report it), and reports whether it did.
func largeRunCheck() bool {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 && s[0].Value.Uint64() < largeRunLive {
		return false
	}
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
	return true
}
