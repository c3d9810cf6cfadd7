package lease

import (
	"github.com/redis/go-redis/v9"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock that moves only when the test calls Advance. Its
// instants keep a monotonic reading (they start from time.Now()). Timers
// made by AfterFunc run their function synchronously inside Advance, in
// time order; timers made by NewTimer send on their channel without
// blocking. N draws from a seeded generator, so jitter is reproducible.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers map[*fakeTimer]struct{}
	rng    *rand.Rand
}

func newFakeClock(seed uint64) *fakeClock {
	return &fakeClock{now: time.Now(), timers: map[*fakeTimer]struct{}{}, rng: rand.New(rand.NewPCG(seed, seed))}
}

type fakeTimer struct {
	c  *fakeClock
	at time.Time
	f  func()
	ch chan time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

func (c *fakeClock) N(n time.Duration) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Duration(c.rng.Int64N(int64(n)))
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) timer {
	return c.add(&fakeTimer{c: c, f: f}, d)
}

func (c *fakeClock) NewTimer(d time.Duration) timer {
	return c.add(&fakeTimer{c: c, ch: make(chan time.Time, 1)}, d)
}

func (c *fakeClock) add(t *fakeTimer, d time.Duration) *fakeTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t.at = c.now.Add(d)
	c.timers[t] = struct{}{}
	return t
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	_, ok := t.c.timers[t]
	delete(t.c.timers, t)
	return ok
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	_, ok := t.c.timers[t]
	t.at = t.c.now.Add(d)
	t.c.timers[t] = struct{}{}
	return ok
}

// Advance moves the clock by d and fires, in time order, every timer due
// by then (timers set by the functions it runs included).
// Jump moves the clock by d without running any timer: a process that was
// suspended, whose timers have not run yet when it resumes.
func (c *fakeClock) Jump(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		var due []*fakeTimer
		for t := range c.timers {
			if !t.at.After(end) {
				due = append(due, t)
			}
		}
		if len(due) == 0 {
			c.now = end
			c.mu.Unlock()
			return
		}
		sort.Slice(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
		t := due[0]
		delete(c.timers, t)
		if t.at.After(c.now) {
			c.now = t.at
		}
		now := c.now
		c.mu.Unlock()
		if t.f != nil {
			t.f()
		} else {
			select {
			case t.ch <- now:
			default:
			}
		}
	}
}

// withClock returns opts (a copy; nil means defaults) with clk injected.
func withClock(opts *Options, clk clock) *Options {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	h := testHooks{}
	if o.hooks != nil {
		h = *o.hooks
	}
	h.clock = clk
	o.hooks = &h
	return &o
}

// newClockClient is New with clk injected (and, for a test's plain
// Scripter wrapper on the standalone test Redis, UnsafeNoReplicas); when t
// ends (after its deferred releases) it advances clk until c's scheduler
// goroutine has exited.
func newClockClient(t testing.TB, rdb redis.Scripter, opts *Options, clk *fakeClock) *Client {
	o := withClock(opts, clk)
	if _, ok := rdb.(pipeliner); !ok {
		o.UnsafeNoReplicas = true
	}
	c := New(rdb, o)
	t.Cleanup(func() {
		for range 400 {
			if c.idle() {
				return
			}
			clk.Advance(100 * time.Millisecond)
			time.Sleep(5 * time.Millisecond)
		}
		t.Errorf("scheduler of a test-clock client still running")
	})
	return c
}
