package lease

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// deadlineCtx is the context of one Redis call made inline (see
// [Client.inline]): parent, which cannot be cancelled (its Done is nil),
// with a deadline. Deadline reports the earlier of parent's deadline and
// the call's; Done is closed at that deadline by the Client's
// [deadlineWatch], not by a timer of its own, and Err is then
// context.DeadlineExceeded; or Done is closed by stop, once the call has
// returned, and Err is context.Canceled, as after the cancel function of
// context.WithTimeout (so that whatever a go-redis hook derived from it,
// or registered with context.AfterFunc, ends too). Value is parent's;
// context.Cause is Err (not ErrRedisTimeout: the lease tells its own
// deadline by [deadlinePassed]).
//
// go-redis (with ContextTimeoutEnabled) puts the deadline on the socket's
// reads and writes, and its waits that only a context ends (a connection
// dialled in a goroutine of its own, a free pool connection, the backoff
// between retries) select on Done, so the call ends at its deadline
// wherever it waits.
type deadlineCtx struct {
	context.Context
	deadline time.Time
	done     chan struct{}
	err      error // set, under w.mu, before done is closed
	w        *deadlineWatch
	idx      int // in w.h; -1 once off it
}

func (c *deadlineCtx) Deadline() (time.Time, bool) { return c.deadline, true }
func (c *deadlineCtx) Done() <-chan struct{}       { return c.done }

func (c *deadlineCtx) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// stop ends c (Err context.Canceled, unless its deadline ended it first)
// and takes it off its watch, once its call has returned.
func (c *deadlineCtx) stop() { c.w.remove(c) }

// deadlineWatch closes the Done channel of each call context it holds when
// that context's deadline passes, with one runtime timer for all of them.
//
// context.WithTimeout arms and stops a runtime timer per call; a timer
// that is the earliest on its P wakes an idle thread (runtime
// wakeNetPoller), which on a small machine then competes with
// redis-server for the cores (BenchmarkCycleParts in bench/redislock). Here
// a new call whose deadline is not the earliest touches no timer: calls
// share a few timeouts (CallTimeout, ReleaseTimeout), so a new one is
// almost always due after those already watched, and the timer, once armed
// for the earliest, is re-armed only when it fires (about once per
// timeout, whatever the call rate), not per call.
type deadlineWatch struct {
	mu    sync.Mutex
	h     deadlineHeap
	timer *time.Timer
	armed bool      // timer will fire at at
	at    time.Time // see armed
}

// ctx returns a context for one call under parent, bounded by timeout.
func (w *deadlineWatch) ctx(parent context.Context, timeout time.Duration) *deadlineCtx {
	return w.ctxAt(parent, time.Now(), timeout)
}

// ctxAt is ctx for a call whose timeout starts at now (time.Now, read by
// the caller).
func (w *deadlineWatch) ctxAt(parent context.Context, now time.Time, timeout time.Duration) *deadlineCtx {
	c := new(deadlineCtx)
	w.watch(c, parent, now, timeout)
	return c
}

// watch makes c, zero and never used before (so that it can be a field of
// a larger allocation: see callScratch), the context ctxAt returns.
func (w *deadlineWatch) watch(c *deadlineCtx, parent context.Context, now time.Time, timeout time.Duration) {
	d := now.Add(timeout)
	if pd, ok := parent.Deadline(); ok && pd.Before(d) {
		d = pd
	}
	*c = deadlineCtx{Context: parent, deadline: d, done: make(chan struct{}), w: w}
	w.mu.Lock()
	heap.Push(&w.h, c)
	if !w.armed || d.Before(w.at) {
		w.arm(d)
	}
	w.mu.Unlock()
}

// remove takes c off the watch and ends it with context.Canceled, unless
// its deadline ended it first.
func (w *deadlineWatch) remove(c *deadlineCtx) {
	w.mu.Lock()
	if c.idx >= 0 {
		heap.Remove(&w.h, c.idx)
		c.err = context.Canceled
		close(c.done)
	}
	w.mu.Unlock()
}

// arm sets the timer to fire at at. w.mu is held.
func (w *deadlineWatch) arm(at time.Time) {
	w.armed, w.at = true, at
	if w.timer == nil {
		w.timer = time.AfterFunc(time.Until(at), w.fire)
		return
	}
	w.timer.Reset(time.Until(at))
}

// fire ends every context whose deadline has passed (Err
// context.DeadlineExceeded) and arms the timer for the earliest one left.
func (w *deadlineWatch) fire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	for len(w.h) > 0 && !w.h[0].deadline.After(now) {
		c := heap.Pop(&w.h).(*deadlineCtx)
		c.err = context.DeadlineExceeded
		close(c.done)
	}
	w.armed = false
	if len(w.h) > 0 {
		w.arm(w.h[0].deadline)
	}
}

// deadlineHeap is a container/heap of call contexts, earliest deadline
// first; each knows its index.
type deadlineHeap []*deadlineCtx

func (h deadlineHeap) Len() int           { return len(h) }
func (h deadlineHeap) Less(i, j int) bool { return h[i].deadline.Before(h[j].deadline) }
func (h deadlineHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}

func (h *deadlineHeap) Push(x any) {
	c := x.(*deadlineCtx)
	c.idx = len(*h)
	*h = append(*h, c)
}

func (h *deadlineHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	c.idx = -1
	return c
}
