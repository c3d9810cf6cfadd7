// Package parallel runs independent pieces of the generator's work on
// several goroutines while keeping its results in input order, so that
// output and error lists do not depend on scheduling.
package parallel

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
)

// For calls f(i) for every i in [0, n), on up to runtime.GOMAXPROCS(0)
// goroutines, and returns when all calls have returned. The calls must be
// independent: f(i) writes only what belongs to index i (typically
// results[i]). With n ≤ 1 or GOMAXPROCS 1, f runs on the calling goroutine
// in order.
//
// A panic in f is raised again on the calling goroutine once the other
// calls have finished (the first one by index wins), with the panicking
// goroutine's stack in its message, so that a caller's recover still sees
// it.
func For(n int, f func(i int)) {
	forOrder(n, nil, f)
}

// ForHeaviestFirst is For with the calls started in order of decreasing
// weight[i] (ties in index order), so that the longest call does not
// start last while the other goroutines run out of work: with n calls on
// two goroutines, the last call to start decides when For returns
// (Graham's longest-processing-time-first rule, 1969). weight is each
// call's expected cost in any unit (the bytes of a file to parse). A
// panic is raised again as For raises it. With n ≤ 1 or GOMAXPROCS 1, f
// runs on the calling goroutine in index order.
func ForHeaviestFirst(weight []int64, f func(i int)) {
	forOrder(len(weight), heaviestFirst(weight), f)
}

// heaviestFirst is the indices of weight in order of decreasing weight,
// ties in index order.
func heaviestFirst(weight []int64) []int {
	order := make([]int, len(weight))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return weight[order[a]] > weight[order[b]] })
	return order
}

// forOrder calls f(order[k]) (f(k) with a nil order) for every k in
// [0, n), on up to GOMAXPROCS goroutines, taking the k in increasing
// order.
func forOrder(n int, order []int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		mu      sync.Mutex
		panicAt = -1
		panicV  any
	)
	call := func(i int) {
		defer func() {
			if r := recover(); r != nil {
				mu.Lock()
				defer mu.Unlock()
				if panicAt < 0 || i < panicAt {
					panicAt = i
					panicV = fmt.Sprintf("%v\n\n(in a worker goroutine:)\n%s", r, debug.Stack())
				}
			}
		}()
		f(i)
	}
	wg.Add(workers)
	for w := 0; w < workers; w++ {
		go func() {
			defer wg.Done()
			growStack()
			for {
				k := int(next.Add(1) - 1)
				if k >= n {
					return
				}
				if order != nil {
					call(order[k])
				} else {
					call(k)
				}
			}
		}()
	}
	wg.Wait()
	if panicAt >= 0 {
		panic(panicV)
	}
}

// workerStack is the stack a worker starts with (growStack): the parse of
// a file, its analysis and the formatting of its Go recurse deep, to 64
// or 128 KiB of stack on sqlc's example projects. A goroutine's stack
// starts at 8 KiB and doubles on overflow, each time copying the stack and
// adjusting every frame's pointers (runtime.copystack): about 2% of a
// small project's instructions, as the collector that would size new
// stacks by the average use (GODEBUG adaptivestackstart) does not run in a
// small run (cmd/fencegen/internal/gcstart).
const workerStack = 48 << 10

// growStack grows the calling goroutine's stack to hold workerStack bytes
// more at once, called where the stack is still short and cheap to copy:
// its frame is that large, and the runtime doubles the stack until the
// frame fits.
//
//go:noinline
func growStack() {
	var frame [workerStack]byte
	touch(&frame)
}

// touch writes one byte of *f (a frame the compiler must keep).
//
//go:noinline
func touch(f *[workerStack]byte) { f[0] = 1 }
