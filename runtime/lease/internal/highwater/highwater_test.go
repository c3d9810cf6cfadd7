package highwater

import (
	"testing"

	"github.com/fencegen/fencegen/runtime/fence"
)

// TestObserve: Observe raises a resource's mark only above it and says
// what it found, as a Get followed by a Raise would.
func TestObserve(t *testing.T) {
	var ms Marks
	steps := []struct {
		resource string
		token    fence.Token
		prev     fence.Token
		raised   bool
		mark     fence.Token // Get after the step
	}{
		{"a", 3, 0, true, 3},  // first token of a resource
		{"a", 5, 3, true, 5},  // above the mark
		{"a", 5, 5, false, 5}, // the same token again: the counter went back
		{"a", 4, 5, false, 5}, // below the mark: left as it was
		{"b", 1, 0, true, 1},  // another resource has its own mark
		{"a", 9, 5, true, 9},
	}
	for i, s := range steps {
		prev, raised := ms.Observe(s.resource, s.token)
		if prev != s.prev || raised != s.raised {
			t.Fatalf("step %d: Observe(%q, %d) = %d, %v; want %d, %v", i, s.resource, s.token, prev, raised, s.prev, s.raised)
		}
		if got := ms.Get(s.resource); got != s.mark {
			t.Fatalf("step %d: Get(%q) = %d after Observe; want %d", i, s.resource, got, s.mark)
		}
	}
	ms.Raise("b", 7)
	ms.Raise("b", 2)
	if got := ms.Get("b"); got != 7 {
		t.Fatalf("Get(b) = %d after Raise 7 and 2; want 7", got)
	}
}
