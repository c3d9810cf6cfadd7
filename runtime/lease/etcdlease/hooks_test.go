//lint:file-ignore SA1019 the test sets the deprecated Observer.On* fields, which must still be called

package etcdlease_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fencegen/fencegen/internal/faults/etcdfaults"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
	"github.com/fencegen/fencegen/runtime/lease/etcdlease"
)

// hookLog records, in delivery order, every Observer.Event and every call
// of a deprecated On* field, each as one line; the On* lines are written
// as the Event they stand for, prefixed "On ", so that the two sequences
// can be compared.
type hookLog struct {
	mu     sync.Mutex
	events []string
	ons    []string
}

func (h *hookLog) add(on bool, kind lease.EventKind, resource string, token fence.Token, extra string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	line := fmt.Sprintf("%s %s %d%s", kind, resource, token, extra)
	if on {
		h.ons = append(h.ons, line)
	} else {
		h.events = append(h.events, line)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return " err=" + err.Error()
}

func (h *hookLog) observer() *lease.Observer {
	return &lease.Observer{
		Event: func(_ context.Context, e lease.Event) {
			extra := errText(e.Err)
			switch e.Kind {
			case lease.EventCounterRegressed:
				extra = fmt.Sprintf(" %d->%d", e.From, e.To)
			case lease.EventRenewFailed:
				extra += fmt.Sprintf(" #%d", e.Consecutive)
			}
			h.add(false, e.Kind, e.Resource, e.Token, extra)
		},
		OnAcquired: func(r string, tok fence.Token) { h.add(true, lease.EventAcquired, r, tok, "") },
		OnRenewed:  func(r string, tok fence.Token) { h.add(true, lease.EventRenewed, r, tok, "") },
		OnRenewFailed: func(r string, tok fence.Token, err error, n int) {
			h.add(true, lease.EventRenewFailed, r, tok, errText(err)+fmt.Sprintf(" #%d", n))
		},
		OnLost: func(err *lease.LostError) { h.add(true, lease.EventLost, err.Resource, err.Token, errText(err)) },
		OnCounterRegressed: func(r string, from, to fence.Token) {
			h.add(true, lease.EventCounterRegressed, r, 0, fmt.Sprintf(" %d->%d", from, to))
		},
		OnReleased: func(r string, tok fence.Token, err error) { h.add(true, lease.EventReleased, r, tok, errText(err)) },
	}
}

func (h *hookLog) take() (events, ons []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.events), slices.Clone(h.ons)
}

// TestDeprecatedHooksOnBothCoordinators: the deprecated Observer.On*
// fields are called on etcd as on Redis (trial t26 F8: switching
// coordinator silently dropped every one, so an alert on OnLost or
// OnCounterRegressed went quiet). One table of steps runs on both; each
// must deliver the same kinds of events, in order, and every Event must
// be followed by the call of its On* field with the same arguments.
func TestDeprecatedHooksOnBothCoordinators(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	rdb := testenv.Redis(t)
	cli := e.Client()
	want := []lease.EventKind{
		lease.EventAcquired,         // Acquire
		lease.EventRenewed,          // Renew
		lease.EventLost,             // the lock key deleted by hand
		lease.EventReleased,         // Release (ErrNotHeld)
		lease.EventCounterRegressed, // Advance above the counter
	}
	// The heartbeat is off, so that every event comes from a step.
	const long = 30 * time.Second
	t.Run("redis", func(t *testing.T) {
		h := &hookLog{}
		c := lease.New(rdb, &lease.Options{KeyPrefix: testenv.Key(t, "hooks"), TTL: long, HeartbeatInterval: -1, Observer: h.observer()})
		hookSteps(t, c, h, want, func(ctx context.Context, l *lease.Lease, lock string) {
			if err := rdb.Del(ctx, lock).Err(); err != nil {
				t.Fatal(err)
			}
			_ = l.Renew(ctx) // finds the key gone
		})
	})
	t.Run("etcd", func(t *testing.T) {
		h := &hookLog{}
		c := etcdlease.New(cli, &etcdlease.Options{TTL: long, HeartbeatInterval: -1, Observer: h.observer()})
		hookSteps(t, c, h, want, func(ctx context.Context, l *etcdlease.Lease, lock string) {
			if _, err := cli.Delete(ctx, lock); err != nil {
				t.Fatal(err)
			}
			select { // the watch of the lock key sees it
			case <-l.Done():
			case <-ctx.Done():
				t.Fatal("lease not lost after its lock key was deleted")
			}
		})
	})
}

func hookSteps[L lease.Held](t *testing.T, c lease.Coordinator[L], h *hookLog, want []lease.EventKind, loseKey func(context.Context, L, string)) {
	ctx := ctxT(t, 60*time.Second)
	const res = "hooks"
	l, err := c.Acquire(ctx, res, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	lock, _ := c.Keys(res)
	loseKey(ctx, l, lock)
	if err := l.Release(ctx); !errors.Is(err, lease.ErrNotHeld) {
		t.Fatalf("release after the key was deleted: %v, want ErrNotHeld", err)
	}
	if _, err := c.Advance(ctx, res, l.Token()+1000); err != nil {
		t.Fatal(err)
	}
	events, ons := h.take()
	var kinds []lease.EventKind
	for _, ev := range events {
		for _, k := range want {
			if len(ev) > len(k) && ev[:len(k)+1] == string(k)+" " {
				kinds = append(kinds, k)
				break
			}
		}
	}
	if !slices.Equal(kinds, want) {
		t.Fatalf("events %q, want kinds %q", events, want)
	}
	if !slices.Equal(ons, events) {
		t.Fatalf("On* calls\n%q\nwant one per event, with its arguments:\n%q", ons, events)
	}
}

// TestOnHookEveryKind: each event kind, including "renew failed", which
// the steps above do not produce, reaches its On* field with the event's
// arguments, and a kind whose field is nil calls nothing.
func TestOnHookEveryKind(t *testing.T) {
	h := &hookLog{}
	o := h.observer()
	lost := &lease.LostError{Resource: "r", Token: 7, Reason: lease.ReasonNotOwner, Err: lease.ErrNotOwner}
	fail := errors.New("etcd renew call timed out")
	table := []lease.Event{
		{Kind: lease.EventAcquired, Resource: "r", Token: 7},
		{Kind: lease.EventRenewed, Resource: "r", Token: 7},
		{Kind: lease.EventRenewFailed, Resource: "r", Token: 7, Err: fail, Consecutive: 1},
		{Kind: lease.EventLost, Resource: "r", Token: 7, Err: lost},
		{Kind: lease.EventReleased, Resource: "r", Token: 7, Err: lease.ErrNotHeld},
		{Kind: lease.EventCounterRegressed, Resource: "r", From: 3, To: 9},
	}
	for _, e := range table {
		f := etcdlease.OnHook(o, e)
		if f == nil {
			t.Fatalf("no On* call for %+v", e)
		}
		f()
		o.Event(context.Background(), e)
		if f := etcdlease.OnHook(&lease.Observer{Event: o.Event}, e); f != nil {
			t.Fatalf("an On* call for %+v with no On* field set", e)
		}
	}
	events, ons := h.take()
	if !slices.Equal(ons, events) {
		t.Fatalf("On* calls\n%q\nwant\n%q", ons, events)
	}
}
