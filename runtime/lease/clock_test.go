package lease

import (
	"strings"
	"testing"
	"time"
)

// S15 (etcd#12291, etcd#6700, raft#108, juju#6940): lease arithmetic uses
// the monotonic clock only. Besides the static check
// (TestMonotonicClockOnly), every instant the lease keeps carries a
// monotonic reading (time.Time.String shows "m=±…" only then), so a wall
// clock step of ±1h cannot move its deadlines; a value with the reading
// stripped (Round(0), as after serialising) would be rejected here.
func TestLeaseInstantsAreMonotonic(t *testing.T) {
	e := newEnv(t)
	c := New(e.rdb, nil)
	l := mustAcquire(t, c, e.resource, 600*time.Millisecond)
	defer l.Release(bg)
	time.Sleep(300 * time.Millisecond) // at least one renewal moved lastSend
	l.mu.Lock()
	last := l.lastSend
	l.mu.Unlock()
	next := l.nextRenewal()
	for name, v := range map[string]time.Time{"lastSend": last, "next renewal": next} {
		if !strings.Contains(v.String(), " m=") {
			t.Errorf("%s %v has no monotonic reading", name, v)
		}
	}
	if stripped := last.Round(0); strings.Contains(stripped.String(), " m=") {
		t.Fatal("Round(0) kept the monotonic reading: the check above proves nothing")
	}
	if rem := l.Remaining(); rem <= 0 || rem > 600*time.Millisecond {
		t.Fatalf("Remaining = %v", rem)
	}
}
