package lease

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// AcquireWait waits for a held lease with jittered backoff and gets it soon
// after release; bounded by its context, it returns ErrNotAcquired joined
// with the context error; invalid input is not retried.
func TestAcquireWaitBackoffBoundedByContext(t *testing.T) {
	e := newEnv(t)
	c := New(e.rdb, &Options{RetryMax: 40 * time.Millisecond})
	held := mustAcquire(t, c, e.resource, time.Second)

	ctx, cancel := context.WithTimeout(bg, 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.AcquireWait(ctx, e.resource, time.Second)
	if !errors.Is(err, ErrNotAcquired) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AcquireWait = %v, want ErrNotAcquired joined with DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 300*time.Millisecond {
		t.Fatalf("AcquireWait outlived its context by %v", d-150*time.Millisecond)
	}
	before := c.Stats().Acquires

	// Five waiters: each gets the lease in turn once it is released.
	var wg sync.WaitGroup
	tokens := make(chan int64, 5)
	for range 5 {
		wg.Go(func() {
			l, err := c.AcquireWait(bg, e.resource, time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			tokens <- int64(l.Token())
			time.Sleep(10 * time.Millisecond)
			_ = l.Release(bg)
		})
	}
	time.Sleep(50 * time.Millisecond)
	released := time.Now()
	_ = held.Release(bg)
	wg.Wait()
	close(tokens)
	seen := map[int64]bool{}
	for tok := range tokens {
		if seen[tok] {
			t.Fatalf("token %d handed out twice", tok)
		}
		seen[tok] = true
	}
	if len(seen) != 5 {
		t.Fatalf("%d of 5 waiters acquired", len(seen))
	}
	if d := time.Since(released); d > time.Second {
		t.Fatalf("5 waiters took %v after release", d)
	}
	// Jitter: 5 waiters polling for ~250ms at ≤ 40ms intervals send far
	// fewer attempts than lockstep 1ms polling would.
	if n := c.Stats().Acquires - before; n > 200 {
		t.Fatalf("%d acquire attempts: backoff not applied", n)
	}

	if _, err := c.AcquireWait(bg, "", time.Second); !errors.Is(err, ErrInvalidResource) {
		t.Fatalf("AcquireWait(\"\") = %v", err)
	}
}
