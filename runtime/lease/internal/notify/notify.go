// Package notify delivers the callbacks of a lease Client (Observer events
// and Logger records) in order on a goroutine of its own, so that a
// callback that blocks never sits on the renewal path or inside Release's
// wait (kubernetes#139991, ray#63773: a user callback on the election
// thread starves renewal).
package notify

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// SlowAfter is how long a callback may run before the Queue counts it as
// slow and warns through slog.Default, and the longest Sync waits.
const SlowAfter = time.Second

// MaxPending is the most callbacks a Queue holds behind a blocked one;
// beyond it new ones are dropped and counted.
const MaxPending = 1 << 16

// Queue runs posted callbacks one at a time, in the order posted, on a
// goroutine it starts when there is work and that exits when there is
// none (a Client needs no Close). The zero value is ready to use.
type Queue struct {
	// Name prefixes the warnings (the package: "lease", "etcdlease").
	Name string

	mu      sync.Mutex
	pending []item
	spare   []item
	running bool   // a goroutine is draining pending
	stuck   bool   // the callback running has run longer than SlowAfter
	gen     uint64 // counts the callbacks run, so that a late timer of one never marks the next stuck

	slow     atomic.Uint64
	dropped  atomic.Uint64
	panicked atomic.Uint64
}

// About says what a callback was called for: the warnings about a slow or
// panicking one name it, so that an operator with many leases finds the
// hook and the lease it held up (trial r26s N1). Empty fields are left
// out.
type About struct {
	Hook     string // "Observer.Event", "Observer.OnLost", "Logger", ...
	Event    string // the event kind, or the log record's message
	Resource string
	Token    int64
}

// attrs returns a's fields as slog key-value pairs, empty ones left out.
func (a About) attrs() []any {
	var args []any
	for _, kv := range []struct{ k, v string }{{"hook", a.Hook}, {"event", a.Event}, {"resource", a.Resource}} {
		if kv.v != "" {
			args = append(args, kv.k, kv.v)
		}
	}
	if a.Token != 0 {
		args = append(args, "token", a.Token)
	}
	return args
}

// item is a posted callback and what it was called for.
type item struct {
	f     func()
	about About
}

// Post queues f, called for about, to run after every callback posted
// before it. It never blocks; with MaxPending callbacks waiting, f is
// dropped and counted.
func (q *Queue) Post(f func(), about About) {
	q.mu.Lock()
	if len(q.pending) >= MaxPending {
		q.mu.Unlock()
		q.dropped.Add(1)
		return
	}
	q.pending = append(q.pending, item{f, about})
	if !q.running {
		q.running = true
		go q.run()
	}
	q.mu.Unlock()
}

// Sync waits until every callback posted before it has run, or SlowAfter
// passes; it returns at once when nothing is pending or the callback
// running is already slow (so that a callback that never returns costs
// each caller nothing, not SlowAfter each). It does not heed a context:
// a caller whose context has ended still has its own records written
// before it returns, unless a callback is slow.
func (q *Queue) Sync() {
	q.mu.Lock()
	if !q.running || q.stuck {
		q.mu.Unlock()
		return
	}
	done := make(chan struct{})
	q.pending = append(q.pending, item{f: func() { close(done) }})
	q.mu.Unlock()
	t := time.NewTimer(SlowAfter)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// Slow counts the callbacks that ran longer than SlowAfter (counted when
// they pass it, so one that never returns counts too).
func (q *Queue) Slow() uint64 { return q.slow.Load() }

// Dropped counts the callbacks dropped because MaxPending were waiting.
func (q *Queue) Dropped() uint64 { return q.dropped.Load() }

// Panicked counts the callbacks that panicked. A panic in a callback is
// recovered on the Queue's goroutine (the caller that posted it cannot
// recover it there), logged at error level through slog.Default with its
// value and stack, and the callbacks after it still run, as net/http does
// for a handler's panic: a metrics hook with a bug must not take down a
// process that holds leases, which would then be neither released nor
// fenced by a drain.
func (q *Queue) Panicked() uint64 { return q.panicked.Load() }

func (q *Queue) run() {
	for {
		q.mu.Lock()
		batch := q.pending
		if len(batch) == 0 {
			q.running = false
			q.mu.Unlock()
			return
		}
		q.pending = q.spare[:0]
		q.mu.Unlock()
		for i, it := range batch {
			q.call(it.f, it.about)
			batch[i] = item{}
		}
		q.mu.Lock()
		q.spare = batch[:0]
		q.mu.Unlock()
	}
}

// call runs f, warning through slog.Default (not Options.Logger, which may
// be what blocks) once f has run SlowAfter and again when it returns,
// naming what f was called for.
func (q *Queue) call(f func(), about About) {
	start := time.Now()
	q.mu.Lock()
	gen := q.gen
	q.mu.Unlock()
	t := time.AfterFunc(SlowAfter, func() {
		q.mu.Lock()
		if q.gen != gen {
			q.mu.Unlock()
			return
		}
		q.stuck = true
		n := len(q.pending)
		q.mu.Unlock()
		q.slow.Add(1)
		slog.Default().Warn(q.Name+": an Observer callback or Logger handler has not returned after "+SlowAfter.String()+
			"; the events and log records after it wait, in order (renewals and Release do not)", append(about.attrs(), "pending", n)...)
	})
	q.protect(f, about)
	stopped := t.Stop()
	q.mu.Lock()
	q.gen++
	q.stuck = false
	q.mu.Unlock()
	if !stopped {
		slog.Default().Warn(q.Name+": a slow Observer callback or Logger handler returned", append(about.attrs(), "took", time.Since(start).Round(time.Millisecond))...)
	}
}

// protect runs f, recovering a panic (see Panicked).
func (q *Queue) protect(f func(), about About) {
	defer func() {
		if v := recover(); v != nil {
			q.panicked.Add(1)
			q.logPanic(v, debug.Stack(), about)
		}
	}()
	f()
}

// logPanic reports a recovered panic through slog.Default. That handler
// is often the application's only one, the same that just panicked as
// Options.Logger's (trial r26 N3): a panic of the report itself is
// dropped, so that it cannot take the process down either; the count in
// Panicked still records it.
func (q *Queue) logPanic(v any, stack []byte, about About) {
	defer func() { _ = recover() }()
	slog.Default().Error(q.Name+": an Observer callback or Logger handler panicked; the panic was recovered and the events after it are still delivered",
		append(about.attrs(), "panic", fmt.Sprint(v), "stack", string(stack))...)
}

// Record returns the About of a log record with message msg and
// attributes args (slog key-value pairs): hook "Logger", the message as
// the event, and the "resource" and "token" attributes (an int64) if
// present.
func Record(msg string, args []any) About {
	a := About{Hook: "Logger", Event: msg}
	for i := 0; i+1 < len(args); i += 2 {
		switch k, _ := args[i].(string); k {
		case "resource":
			a.Resource, _ = args[i+1].(string)
		case "token":
			a.Token, _ = args[i+1].(int64)
		}
	}
	return a
}
