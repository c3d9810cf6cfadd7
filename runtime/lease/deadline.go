package lease

import (
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
	w.h.push(c)
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
		w.h.remove(c.idx)
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
		c := w.h.remove(0)
		c.err = context.DeadlineExceeded
		close(c.done)
	}
	w.armed = false
	if len(w.h) > 0 {
		w.arm(w.h[0].deadline)
	}
}

// deadlineHeap is a binary min-heap of call contexts, earliest deadline
// first; each knows its index. Its methods are container/heap's, typed
// (no interface call per comparison or swap: a push and a removal run for
// every call made inline).
type deadlineHeap []*deadlineCtx

func (h deadlineHeap) less(i, j int) bool { return h[i].deadline.Before(h[j].deadline) }

func (h deadlineHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}

// push adds c.
func (h *deadlineHeap) push(c *deadlineCtx) {
	c.idx = len(*h)
	*h = append(*h, c)
	h.up(c.idx)
}

// remove takes the context at index i off h and returns it, its idx -1.
func (h *deadlineHeap) remove(i int) *deadlineCtx {
	n := len(*h) - 1
	if n != i {
		h.swap(i, n)
		if !h.down(i, n) {
			h.up(i)
		}
	}
	old := *h
	c := old[n]
	old[n] = nil
	*h = old[:n]
	c.idx = -1
	return c
}

func (h deadlineHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2 // parent
		if !h.less(j, i) {
			break
		}
		h.swap(i, j)
		j = i
	}
}

// down moves the element at i0 down among the first n; it reports
// whether it moved.
func (h deadlineHeap) down(i0, n int) bool {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 { // j1 < 0 after int overflow
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && h.less(j2, j1) {
			j = j2 // right child
		}
		if !h.less(j, i) {
			break
		}
		h.swap(i, j)
		i = j
	}
	return i > i0
}
