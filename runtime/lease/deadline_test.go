package lease

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// The watch closes each context's Done at its deadline, never before and
// never for a context stopped first, whatever the order in which contexts
// of different timeouts arrive and stop, and holds nothing once all have
// ended; a parent's earlier deadline wins.
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
				time.Sleep(timeout + 20*time.Millisecond)
				select {
				case <-c.Done():
					errs <- "a stopped context's Done was closed"
				default:
				}
				if c.Err() != nil {
					errs <- "a stopped context has an error"
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
}

// deadlineOnly is a context with a deadline that is never cancelled (Done
// nil), as a caller's custom context may be.
type deadlineOnly struct {
	context.Context
	d time.Time
}

func (c deadlineOnly) Deadline() (time.Time, bool) { return c.d, true }
