//lint:file-ignore SA1019 the deprecated Observer.On* fields are still called, as the Redis lease calls them

package etcdlease

import (
	"errors"

	"github.com/fencegen/fencegen/runtime/lease"
)

// onHook returns the call of o's deprecated On* field for e, or nil when
// that field is not set (or e's Err is not the *lease.LostError that
// OnLost takes).
func onHook(o *lease.Observer, e lease.Event) func() {
	switch e.Kind {
	case lease.EventAcquired:
		if f := o.OnAcquired; f != nil {
			return func() { f(e.Resource, e.Token) }
		}
	case lease.EventRenewed:
		if f := o.OnRenewed; f != nil {
			return func() { f(e.Resource, e.Token) }
		}
	case lease.EventRenewFailed:
		if f := o.OnRenewFailed; f != nil {
			return func() { f(e.Resource, e.Token, e.Err, e.Consecutive) }
		}
	case lease.EventLost:
		var lost *lease.LostError
		if f := o.OnLost; f != nil && errors.As(e.Err, &lost) {
			return func() { f(lost) }
		}
	case lease.EventCounterRegressed:
		if f := o.OnCounterRegressed; f != nil {
			return func() { f(e.Resource, e.From, e.To) }
		}
	case lease.EventReleased:
		if f := o.OnReleased; f != nil {
			return func() { f(e.Resource, e.Token, e.Err) }
		}
	}
	return nil
}

// onName is the suffix of the deprecated Observer field for kind k
// ("Acquired" for OnAcquired), for the warnings about a slow or
// panicking hook.
func onName(k lease.EventKind) string {
	switch k {
	case lease.EventAcquired:
		return "Acquired"
	case lease.EventRenewed:
		return "Renewed"
	case lease.EventRenewFailed:
		return "RenewFailed"
	case lease.EventLost:
		return "Lost"
	case lease.EventCounterRegressed:
		return "CounterRegressed"
	case lease.EventReleased:
		return "Released"
	}
	return string(k)
}
