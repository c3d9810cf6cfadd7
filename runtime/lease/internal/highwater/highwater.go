// Package highwater keeps, per resource, the highest fencing token a
// lease Client minted or raised its counter to: the in-process high-water
// mark both coordinators (the Redis lease and etcdlease) compare each new
// token with, to catch a counter or revision that went back (a Redis
// restart without persistence, an etcd snapshot restore) before a token
// is handed out twice.
package highwater

import (
	"sync"
	"sync/atomic"

	"github.com/fencegen/fencegen/runtime/fence"
)

// Marks maps a resource name to its mark. The zero value is ready to use
// and safe for concurrent use; it keeps one entry per resource name it was
// raised for.
type Marks struct {
	m sync.Map // resource name -> *atomic.Int64
}

// Get returns resource's mark, 0 if it was never raised.
func (ms *Marks) Get(resource string) fence.Token {
	if v, ok := ms.m.Load(resource); ok {
		return fence.Token(v.(*atomic.Int64).Load())
	}
	return 0
}

// Raise sets resource's mark to t if t is above it.
func (ms *Marks) Raise(resource string, t fence.Token) { ms.Observe(resource, t) }

// Observe raises resource's mark to t if t is above it, as Raise does, and
// reports the mark it found: prev, and raised true when t was above it.
// raised false means t is at or below a token seen before (prev ≥ t), and
// the mark is unchanged. One map lookup: a Get then a Raise in one.
func (ms *Marks) Observe(resource string, t fence.Token) (prev fence.Token, raised bool) {
	v, ok := ms.m.Load(resource)
	if !ok {
		v, _ = ms.m.LoadOrStore(resource, new(atomic.Int64))
	}
	p := v.(*atomic.Int64)
	for {
		old := p.Load()
		if int64(t) <= old {
			return fence.Token(old), false
		}
		if p.CompareAndSwap(old, int64(t)) {
			return fence.Token(old), true
		}
	}
}
