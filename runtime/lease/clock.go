package lease

import (
	"context"
	"math/rand/v2"
	"time"
)

// clock is the lease's source of time: the monotonic clock, timers and the
// random jitter of renewals and backoff. The Client uses realClock; tests
// inject a clock they advance by hand (Options.hooks), so that deadline and
// suspended-clock cases are exact instead of slept.
type clock interface {
	// Now returns the current time with its monotonic reading.
	Now() time.Time
	// Since returns the time elapsed since t, a time from Now (for the
	// real clock, time.Since: the monotonic reading alone, cheaper than
	// Now).
	Since(t time.Time) time.Duration
	// AfterFunc calls f in its own goroutine after d (time.AfterFunc).
	AfterFunc(d time.Duration, f func()) timer
	// NewTimer returns a timer that sends on its channel after d.
	NewTimer(d time.Duration) timer
	// N returns a uniformly random duration in [0, n) (n > 0).
	N(n time.Duration) time.Duration
}

// timer is the part of *time.Timer the lease uses.
type timer interface {
	Stop() bool
	Reset(d time.Duration) bool
	// C is the channel of a timer made by NewTimer (nil for AfterFunc).
	C() <-chan time.Time
}

type realClock struct{}

type realTimer struct{ *time.Timer }

func (t realTimer) C() <-chan time.Time { return t.Timer.C }

func (realClock) Now() time.Time                            { return time.Now() }
func (realClock) Since(t time.Time) time.Duration           { return time.Since(t) }
func (realClock) AfterFunc(d time.Duration, f func()) timer { return realTimer{time.AfterFunc(d, f)} }
func (realClock) NewTimer(d time.Duration) timer            { return realTimer{time.NewTimer(d)} }
func (realClock) N(n time.Duration) time.Duration           { return rand.N(n) }

// since and until are time.Since and time.Until on clk.
func since(clk clock, t time.Time) time.Duration { return clk.Since(t) }
func until(clk clock, t time.Time) time.Duration { return t.Sub(clk.Now()) }

// sleepOn waits d on clk or until ctx ends; it reports whether d elapsed.
func sleepOn(ctx context.Context, clk clock, d time.Duration) bool {
	t := clk.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return true
	case <-ctx.Done():
		return false
	}
}
