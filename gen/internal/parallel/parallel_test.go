package parallel

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

func TestForCallsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 1000} {
		counts := make([]int32, n)
		For(n, func(i int) { atomic.AddInt32(&counts[i], 1) })
		for i, c := range counts {
			if c != 1 {
				t.Fatalf("n=%d: f(%d) ran %d times, want 1", n, i, c)
			}
		}
	}
}

func TestForRaisesTheLowestPanicOnTheCaller(t *testing.T) {
	defer func() {
		r := recover()
		s, _ := r.(string)
		if !strings.HasPrefix(s, "boom 3\n") {
			t.Fatalf("recovered %q, want the panic of index 3 first", r)
		}
	}()
	For(100, func(i int) {
		if i == 3 || i == 50 {
			panic("boom " + string(rune('0'+i%10)))
		}
	})
	t.Fatal("For returned after a panic")
}

// TestForHeaviestFirst: every index runs once, and the calls are handed
// out heaviest first, ties in index order (heaviestFirst).
func TestForHeaviestFirst(t *testing.T) {
	weight := []int64{3, 10, 1, 10, 0, 7, 3}
	if got, want := heaviestFirst(weight), []int{1, 3, 5, 0, 6, 2, 4}; !slices.Equal(got, want) {
		t.Errorf("heaviestFirst(%v) = %v, want %v", weight, got, want)
	}
	for _, n := range []int{0, 1, 2, 7, 1000} {
		w := make([]int64, n)
		for i := range w {
			w[i] = int64(i % 5)
		}
		counts := make([]int32, n)
		ForHeaviestFirst(w, func(i int) { atomic.AddInt32(&counts[i], 1) })
		for i, c := range counts {
			if c != 1 {
				t.Fatalf("n=%d: f(%d) ran %d times, want 1", n, i, c)
			}
		}
	}
}
