package lease

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// The watch closes each context's Done at its deadline (Err
// DeadlineExceeded), never before; a context stopped first is Canceled and
// stays so; whatever the order in which contexts of different timeouts
// arrive and stop, and the watch holds nothing once all have ended; a
// parent's earlier deadline wins, also a zero one (already passed), and
// whatever a caller derived from a call's context or registered with
// context.AfterFunc ends when the call's context is stopped.
func TestDeadlineWatchEndsEachContextAtItsDeadline(t *testing.T) {
	var w deadlineWatch
	const n = 300
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			timeout := time.Duration(rand.IntN(40)) * time.Millisecond
			if i%3 == 0 { // stopped well before its deadline, as a call that returned
				timeout += 200 * time.Millisecond
			}
			c := w.ctx(context.Background(), timeout)
			if i%3 == 0 {
				c.stop()
				select {
				case <-c.Done():
				default:
					errs <- "a stopped context's Done is open"
				}
				time.Sleep(timeout + 20*time.Millisecond)
				if c.Err() != context.Canceled {
					errs <- "a stopped context's Err is not Canceled after its deadline"
				}
				return
			}
			select {
			case <-c.Done():
			case <-time.After(timeout + 5*time.Second):
				errs <- "Done not closed long after the deadline"
				return
			}
			if time.Now().Before(c.deadline) {
				errs <- "Done closed before the deadline"
			}
			if c.Err() != context.DeadlineExceeded {
				errs <- "Err after Done is not DeadlineExceeded"
			}
			c.stop() // after the watch ended it: nothing to do
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	w.mu.Lock()
	left := len(w.h)
	w.mu.Unlock()
	if left != 0 {
		t.Errorf("watch holds %d contexts after all ended", left)
	}

	parent, cancel := context.WithDeadline(context.WithoutCancel(context.Background()), time.Now().Add(10*time.Millisecond))
	defer cancel()
	c := w.ctx(context.WithoutCancel(parent), time.Hour) // WithoutCancel keeps no deadline
	if d, _ := c.Deadline(); time.Until(d) < 59*time.Minute {
		t.Fatalf("deadline %v, want an hour away (WithoutCancel drops the parent's)", time.Until(d))
	}
	c.stop()
	p := deadlineOnly{context.Background(), time.Now().Add(10 * time.Millisecond)}
	c = w.ctx(p, time.Hour)
	if d, _ := c.Deadline(); !d.Equal(p.d) {
		t.Fatalf("deadline %v, want the parent's %v", d, p.d)
	}
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed at the parent's deadline")
	}

	// A zero deadline (long passed) is not taken for "no timer armed":
	// the context after it does not push the timer past it.
	zero := w.ctx(deadlineOnly{context.Background(), time.Time{}}, time.Hour)
	later := w.ctx(context.Background(), time.Hour)
	defer later.stop()
	select {
	case <-zero.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done of a context with a zero deadline not closed")
	}

	// What a hook derives from a call's context, or registers on it,
	// ends when the call returns.
	call := w.ctx(context.Background(), time.Hour)
	child, cancelChild := context.WithCancel(call)
	defer cancelChild()
	ran := make(chan struct{})
	context.AfterFunc(call, func() { close(ran) })
	call.stop()
	for _, ch := range []<-chan struct{}{child.Done(), ran} {
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Fatal("a context derived from, or a func registered on, a stopped call context did not end")
		}
	}
	if err := context.Cause(child); err != context.Canceled {
		t.Fatalf("Cause of the derived context = %v, want context.Canceled", err)
	}
}

// deadlineOnly is a context with a deadline that is never cancelled (Done
// nil), as a caller's custom context may be.
type deadlineOnly struct {
	context.Context
	d time.Time
}

func (c deadlineOnly) Deadline() (time.Time, bool) { return c.d, true }
