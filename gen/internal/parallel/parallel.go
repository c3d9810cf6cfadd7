// Package parallel runs independent pieces of the generator's work on
// several goroutines while keeping its results in input order, so that
// output and error lists do not depend on scheduling.
package parallel

import (
	"fmt"
	"runtime"
	"runtime/debug"
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
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				call(i)
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
