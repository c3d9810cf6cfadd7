package lease

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// pipeliner is implemented by *redis.Client, *redis.ClusterClient,
// *redis.Ring and every redis.UniversalClient. When the Client's
// redis.Scripter has it, due renewals are sent in one pipeline per batch.
type pipeliner interface {
	Pipeline() redis.Pipeliner
}

// idleLinger is how long the scheduler goroutine waits for a new lease
// before exiting when none is queued.
const idleLinger = 50 * time.Millisecond

// maxBatchesInFlight caps the renewal batches in flight at once.
const maxBatchesInFlight = 2

// renewChunk is the most leases one renew_many call renews, and the most
// leases of one renewal group.
const renewChunk = 1000

// maxBatch caps the renewals sent in one pipeline (a few groups).
const maxBatch = 4 * renewChunk

// group is a set of leases of one timing (TTL and the options derived from
// it) that the heartbeat renews together and whose local deadlines one
// timer watches: the unit of scheduling, so that the scheduler's queue,
// its timers and its wake-ups grow with the number of groups (about
// HeartbeatInterval / window per timing), not with the number of leases.
// A new lease joins the queued group of its timing whose renewal is due in
// the same window as the lease's own jittered first renewal (never later
// than HeartbeatInterval after the acquire), else it starts a group; after
// each renewal a group is queued again at send + HeartbeatInterval − a
// jitter of up to a tenth. Every field is guarded by scheduler.mu.
type group struct {
	tm timing
	// leases are the members. Leases that were stopped or have ended are
	// removed when the group is next taken off the queue or its renewal
	// has been applied (the group's renewal skips them until then).
	leases []*Lease
	next   time.Time // when the group's next renewal is due
	key    groupKey  // its entry in scheduler.open, while queued
	queued bool
	// inflight is closed when the renewal in flight has been applied; nil
	// when none is.
	inflight chan struct{}
	// deadline fires at deadlineAt (when armed), no later than the
	// earliest local deadline of a member; onDeadline loses the members
	// whose deadline has passed and arms it for the next one. A renewal
	// does not re-arm it (one timer operation per group per deadline, not
	// per lease per renewal).
	deadline   timer
	deadlineAt time.Time
	armed      bool
	// floor is no later than any member's local deadline: exact after a
	// scan of the members, and after a renewal that succeeded for every
	// member its send + TTL − margin, so that the deadline timer finds
	// the next deadline without a look at each lease.
	floor time.Time
	// failedRounds counts the renewal rounds in a row in whose batch a
	// renewal failed (see renewBound); guarded like floor.
	failedRounds int
	// gone counts the members stopped or dropped (forget), seen the
	// number of them when the group was last compacted: while they are
	// equal, no member needs a look before its renewal. Atomic so that a
	// renewal in flight reads it without mu.
	gone atomic.Int64
	seen int64
	// wire is the renew_many command for the members, built again only
	// after they change (see buildWire); nil if not built.
	wire []any
}

// groupKey finds the queued group that a new lease of timing tm, first due
// in window number slot, joins.
type groupKey struct {
	tm   timing
	slot int64
}

// scheduler renews every heartbeat-enabled lease of one Client from a single
// goroutine (Redisson's renewal batching, instead of one goroutine and timer
// per lease), in groups of leases due together (see group). Groups sit in a
// min-heap by next renewal time; the loop takes every group due within its
// coalescing window, merges those of one timing while they fit one
// renew_many call, and a short-lived goroutine per batch sends their
// renewals in one pipelined round trip bounded by the time its leases have
// left (see renewBound), applies the results and queues the groups again. The loop
// goroutine exits when no lease is queued and restarts with the next one,
// so an idle Client holds no goroutine.
type scheduler struct {
	c     *Client
	epoch time.Time // origin of the window numbers of groupKey

	mu   sync.Mutex
	q    groupHeap
	open map[groupKey]*group // queued groups new leases may join
	// live counts the leases added and neither stopped nor dropped.
	live    int
	running bool
	wake    chan struct{} // capacity 1
	// wakeAt is when the loop will look at the queue next, by its timer;
	// a group added with a later renewal time needs no wake-up (no futex
	// wake and context switch per Acquire).
	wakeAt time.Time
	// lingering: wakeAt was set to the loop's linger (a time no later
	// than idleLinger from now), so forget need not read the clock.
	lingering bool
	// timer is the loop's timer while the loop runs: it is reset under mu
	// (by the loop, and by forget for the Client's last lease), so that a
	// Release never has to wake the loop goroutine.
	timer timer
	// batches counts renewal batches in flight.
	batches int
	// pausing is set once a test has paused a lease's heartbeat (the
	// hb.paused hook): only then does the loop look for paused leases.
	pausing atomic.Bool
	// spare is a group left when the Client's last lease ended, with its
	// deadline timer (still armed, if it was), for the next newGroup: a
	// Client that acquires and releases one lease at a time allocates no
	// group and no timer per lease, and resets the timer about once per
	// TTL.
	spare *group
	// wired: the Client's redis.Scripter is a *redis.Client, whose
	// pipeline takes a group's prebuilt command as it is (see buildWire).
	wired bool
}

// init prepares s for c (before first use).
func (s *scheduler) init(c *Client) {
	s.c, s.epoch, s.open, s.wake = c, c.clk.Now(), map[groupKey]*group{}, make(chan struct{}, 1)
	_, s.wired = c.rdb.(*redis.Client)
}

// buildWire builds g's renew_many command: "evalsha", the script's SHA1,
// the number of keys, the lock keys, the TTL and the lock key values
// ("<owner>:<token>"), with every key and value a *string into one string holding all their bytes
// in order. A renewal of an unchanged group then writes out memory that
// is contiguous and allocates nothing per lease; with 100,000 leases the
// reads of each lease's own strings were a large part of a renewal's
// cost. A *redis.Client writes a *string argument as the string; a
// Cluster client or Ring would hash it wrongly, and gets renewCommand
// instead.
func (g *group) buildWire() {
	n, size := len(g.leases), 0
	for _, l := range g.leases {
		size += len(l.lockKey) + len(l.value)
	}
	var b strings.Builder
	b.Grow(size)
	for _, l := range g.leases {
		b.WriteString(l.lockKey)
		b.WriteString(l.value)
	}
	all := b.String()
	strs := make([]string, 2*n)
	for i, pos := 0, 0; i < n; i++ {
		l := g.leases[i]
		strs[i], pos = all[pos:pos+len(l.lockKey)], pos+len(l.lockKey)
		strs[n+i], pos = all[pos:pos+len(l.value)], pos+len(l.value)
	}
	cmd := make([]any, 0, 4+2*n)
	cmd = append(cmd, "evalsha", renewManyScript.Hash(), n)
	for i := range n {
		cmd = append(cmd, &strs[i])
	}
	cmd = append(cmd, g.leases[0].ttlArg)
	for i := range n {
		cmd = append(cmd, &strs[n+i])
	}
	g.wire = cmd
}

// window is how early a lease may be renewed so that leases due at nearly
// the same time share a round trip.
func window(tm timing) time.Duration { return max(min(tm.interval/4, 20*time.Millisecond), 1) }

func (s *scheduler) keyOf(tm timing, next time.Time) groupKey {
	return groupKey{tm: tm, slot: int64(next.Sub(s.epoch) / window(tm))}
}

// add schedules new lease l, acquired (sent) at send: it joins a group due
// at its first renewal, send + HeartbeatInterval shortened by a jitter of
// up to half of it.
func (s *scheduler) add(l *Lease, send time.Time) {
	next := send.Add(s.nextInterval(*l.tm, true))
	s.mu.Lock()
	defer s.mu.Unlock()
	l.hb.added = true
	s.live++
	key := s.keyOf(*l.tm, next)
	if g := s.open[key]; g != nil && len(g.leases) < renewChunk && !g.next.After(send.Add(l.tm.interval)) {
		// Its deadline is the latest of the group's: the timer stays.
		g.leases = append(g.leases, l)
		g.wire = nil
		l.hb.g = g
		return
	}
	// l's local deadline, as l.localDeadline reads it without its lock:
	// start set l.lastSend to send, and l has not ended (nothing else
	// holds it yet).
	at := send.Add(l.tm.ttl - l.tm.margin)
	if g := s.spare; g != nil {
		s.push(s.newGroupAt(*l.tm, append(g.leases[:0], l), next, at, true))
		return
	}
	s.push(s.newGroupAt(*l.tm, []*Lease{l}, next, at, true))
}

// newGroup returns a group of leases, due at next, with its deadline timer
// armed.
func (s *scheduler) newGroup(tm timing, leases []*Lease, next time.Time) *group {
	at, ok := earliestDeadline(leases)
	return s.newGroupAt(tm, leases, next, at, ok)
}

// newGroupAt is newGroup for leases whose earliest local deadline is at
// (ok false: every one has ended), as earliestDeadline returns it.
func (s *scheduler) newGroupAt(tm timing, leases []*Lease, next time.Time, at time.Time, ok bool) *group {
	g := s.spare
	pending, pendingAt := false, time.Time{}
	if g != nil {
		// No member, not queued, not in flight; its timer may still be
		// armed (pending, at pendingAt: forget leaves it so). A callback
		// of its timer already running finds no member whose deadline
		// passed, or loses one that did (correct for any group), and
		// re-arms the timer for floor if that is still ahead. leases may
		// be built on its array (add).
		s.spare = nil
		pending, pendingAt = g.armed, g.deadlineAt
		*g = group{tm: tm, leases: leases, next: next, deadline: g.deadline}
	} else {
		g = &group{tm: tm, leases: leases, next: next}
	}
	for _, l := range leases {
		l.hb.g = g
	}
	if ok {
		g.floor = at
		if pending && !pendingAt.After(at) {
			// The timer fires first and re-arms itself for floor
			// (onDeadline): one timer reset per TTL for a Client that
			// acquires and releases one lease at a time, not one per
			// lease, each of which can wake an idle thread (runtime
			// wakeNetPoller) that then competes for the cores.
			g.deadlineAt, g.armed = pendingAt, true
		} else {
			s.arm(g, at)
		}
	}
	return g
}

// earliestDeadline returns the earliest local deadline of the leases that
// have not ended, or false if all have.
func earliestDeadline(leases []*Lease) (time.Time, bool) {
	var at time.Time
	found := false
	for _, l := range leases {
		d, ended := l.localDeadline()
		if !ended && (!found || d.Before(at)) {
			at, found = d, true
		}
	}
	return at, found
}

// arm sets g's deadline timer to fire at at.
func (s *scheduler) arm(g *group, at time.Time) {
	g.deadlineAt, g.armed = at, true
	if g.deadline == nil {
		g.deadline = s.c.clk.AfterFunc(until(s.c.clk, at), func() { s.onDeadline(g) })
		return
	}
	g.deadline.Reset(until(s.c.clk, at))
}

// armBy makes g's deadline timer fire no later than at.
func (s *scheduler) armBy(g *group, at time.Time) {
	if !g.armed || at.Before(g.deadlineAt) {
		s.arm(g, at)
	}
}

// onDeadline runs when g's deadline timer fires: it loses the members whose
// local deadline has passed and arms the timer for the earliest of the
// others.
func (s *scheduler) onDeadline(g *group) {
	now := s.c.clk.Now()
	s.mu.Lock()
	g.armed = false
	if g.floor.After(now) && len(g.leases) > 0 {
		// Renewed since the timer was armed: no deadline before floor.
		s.arm(g, g.floor)
		s.mu.Unlock()
		return
	}
	var due []*Lease
	var next time.Time
	found := false
	for _, l := range g.leases {
		at, ended := l.localDeadline()
		switch {
		case ended:
		case !at.After(now):
			due = append(due, l)
		case !found || at.Before(next):
			next, found = at, true
		}
	}
	if found {
		g.floor = next
		s.arm(g, next)
	}
	s.mu.Unlock()
	for _, l := range due {
		if at, lost := l.expire(); !lost {
			// Renewed since: keep its deadline watched.
			s.mu.Lock()
			if h := l.hb.g; h != nil && len(h.leases) > 0 {
				s.armBy(h, at)
			}
			s.mu.Unlock()
		}
	}
}

// push queues g at g.next and makes sure the loop runs and wakes for it.
func (s *scheduler) push(g *group) {
	g.queued = true
	g.key = s.keyOf(g.tm, g.next)
	if s.open[g.key] == nil {
		s.open[g.key] = g
	}
	s.q.push(hbEntry{next: g.next, g: g})
	if !s.running {
		s.running = true
		go s.loop()
		return
	}
	if g.next.Before(s.wakeAt) {
		s.poke()
	}
}

func (s *scheduler) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// retire ends g: it has no member left.
func (s *scheduler) retire(g *group) {
	g.leases = nil
	g.armed = false
	if g.deadline != nil {
		g.deadline.Stop()
	}
}

// compact removes from g the leases that were stopped or have ended, and
// returns (and removes) those whose heartbeat is paused (a test hook) if
// paused is true.
func (s *scheduler) compact(g *group, paused bool) (frozen []*Lease) {
	paused = paused && s.pausing.Load()
	if gone := g.gone.Load(); gone == g.seen && !paused {
		// No member was stopped or dropped since: nothing to look at (a
		// lease lost just now, whose drop has not run yet, is skipped
		// by applyRenewal and removed after its drop).
		return nil
	} else {
		g.seen = gone
	}
	g.wire = nil
	keep := g.leases[:0]
	for _, l := range g.leases {
		switch {
		case l.hb.stopped.Load() || l.over.Load():
			l.hb.g = nil
		case paused && l.hb.paused.Load():
			frozen = append(frozen, l)
		default:
			keep = append(keep, l)
		}
	}
	clear(g.leases[len(keep):])
	g.leases = keep
	return frozen
}

// stop takes l off the schedule for good. It returns a channel that is
// closed when a renewal of l that is in flight has been applied, or nil if
// none is.
func (s *scheduler) stop(l *Lease) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	l.hb.stopped.Store(true)
	s.forget(l)
	if g := l.hb.g; g != nil && g.inflight != nil {
		return g.inflight
	}
	return nil
}

// nextInterval is the time from a renewal's send (or the acquire's) to the
// next renewal: HeartbeatInterval shortened by a random jitter, up to half
// of it for the first renewal after the acquire (per lease) and up to a
// tenth after that (per group), so that leases taken at the same moment by
// many processes (or renewed by them in step) do not renew in lockstep
// forever. Renewals only come earlier than HeartbeatInterval, never later.
func (s *scheduler) nextInterval(tm timing, first bool) time.Duration {
	span := tm.interval / 10
	if first {
		span = tm.interval / 2
	}
	if span <= 0 {
		return tm.interval
	}
	return tm.interval - s.c.clk.N(span)
}

// drop takes l off the schedule, without waiting for a renewal in flight
// (lose calls it, possibly from the renewal's own goroutine).
func (s *scheduler) drop(l *Lease) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forget(l)
}

// forget counts l as gone, once. Removal from its group is lazy (the group
// skips it from now on and removes it when it is next taken off the queue);
// when no live lease remains, the queue is emptied at once, so that the
// scheduler can go idle.
func (s *scheduler) forget(l *Lease) {
	if !l.hb.added || l.hb.gone {
		return
	}
	l.hb.gone = true
	if g := l.hb.g; g != nil {
		g.gone.Add(1)
	}
	s.live--
	if s.live > 0 {
		return
	}
	for _, e := range s.q {
		e.g.queued = false
		for _, l := range e.g.leases {
			l.hb.g = nil
		}
		buf := e.g.leases[:0]
		clear(e.g.leases)
		if e.g.inflight == nil && e.g.deadline != nil {
			// The spare keeps its deadline timer armed (see newGroup):
			// a timer reset per lease can wake an idle thread.
			if s.spare != nil {
				s.retire(s.spare)
			}
			e.g.leases = buf // no member; the array is reused
			s.spare = e.g
			continue
		}
		s.retire(e.g)
	}
	clear(s.q)
	s.q = s.q[:0]
	clear(s.open)
	// The loop would sleep past its linger: bring its timer forward, so
	// that it ends soon after the Client's last lease (a timer reset, not
	// a goroutine wake-up on the caller's path). While it lingers it ends
	// within idleLinger anyway, and the clock is not read.
	if s.timer == nil || s.lingering {
		return
	}
	if now := s.c.clk.Now(); s.wakeAt.After(now.Add(idleLinger)) {
		s.wakeAt, s.lingering = now.Add(idleLinger), true
		s.timer.Reset(idleLinger)
	}
}

func (s *scheduler) loop() {
	t := s.c.clk.NewTimer(time.Hour)
	defer t.Stop()
	s.mu.Lock()
	s.timer = t
	s.mu.Unlock()
	for {
		s.mu.Lock()
		if len(s.q) == 0 {
			// Linger briefly, so a Client that acquires and releases in a
			// loop does not start a goroutine per lease.
			s.wakeAt, s.lingering = s.c.clk.Now().Add(idleLinger), true
			t.Reset(idleLinger)
			s.mu.Unlock()
			s.sleep(t)
			s.mu.Lock()
			if len(s.q) == 0 {
				s.running = false
				s.timer = nil
				s.mu.Unlock()
				return
			}
		}
		if s.batches >= maxBatchesInFlight {
			// Back-pressure: a Redis that is slow to answer gets no more
			// concurrent pipelines; the due groups wait (and then share
			// one larger batch) until a batch in flight is applied.
			s.wakeAt, s.lingering = time.Time{}, false
			s.mu.Unlock()
			<-s.wake
			continue
		}
		now := s.c.clk.Now()
		var batch, frozen []*group
		n := 0
		for len(s.q) > 0 && n < maxBatch {
			g := s.q[0].g
			if g.next.After(now.Add(window(g.tm))) {
				break
			}
			s.q.pop()
			g.queued = false
			if s.open[g.key] == g {
				delete(s.open, g.key)
			}
			if paused := s.compact(g, true); len(paused) > 0 {
				// A frozen heartbeat sends nothing; they are looked at
				// again soon.
				frozen = append(frozen, s.newGroup(g.tm, paused, now.Add(max(g.tm.interval/10, time.Millisecond))))
			}
			if len(g.leases) == 0 {
				s.retire(g)
				continue
			}
			if s.merge(batch, g) {
				continue
			}
			batch = append(batch, g)
			n += len(g.leases)
		}
		for _, g := range frozen {
			s.push(g)
		}
		var wait time.Duration
		if len(s.q) > 0 {
			wait = max(until(s.c.clk, s.q[0].next), 0)
		}
		s.wakeAt, s.lingering = s.c.clk.Now().Add(wait), false
		full := n >= maxBatch
		if full {
			s.wakeAt = time.Time{} // it loops again at once
		} else {
			t.Reset(wait)
		}
		var sends []renewSend
		if len(batch) > 0 {
			s.batches++
			sends = make([]renewSend, len(batch))
			for i, g := range batch {
				g.inflight = make(chan struct{})
				if s.wired && g.wire == nil {
					g.buildWire()
				}
				sends[i] = renewSend{leases: append([]*Lease(nil), g.leases...), wire: g.wire, gone: g.gone.Load(), floor: g.floor,
					last: g.failedRounds >= g.tm.maxFailures-1}
			}
		}
		s.mu.Unlock()
		if len(batch) > 0 {
			go s.renew(batch, sends)
		}
		if full {
			continue
		}
		s.sleep(t)
	}
}

// merge moves the leases of g into a group of batch of the same timing that
// has room for them, and reports whether it did (g is then retired).
func (s *scheduler) merge(batch []*group, g *group) bool {
	for _, h := range batch {
		if h.tm != g.tm || len(h.leases)+len(g.leases) > renewChunk {
			continue
		}
		for _, l := range g.leases {
			l.hb.g = h
		}
		h.leases = append(h.leases, g.leases...)
		h.wire = nil
		if g.floor.Before(h.floor) {
			h.floor = g.floor
		}
		if g.armed {
			s.armBy(h, g.deadlineAt)
		}
		s.retire(g)
		return true
	}
	return false
}

// renewSend is what the loop hands a batch's goroutine for one group: its
// members and wire command when it was taken off the queue, its gone count
// then (a renewal checks each member only if it has moved since), and its
// floor then (no later than any member's local deadline; see renewBound).
type renewSend struct {
	leases []*Lease
	wire   []any
	gone   int64
	floor  time.Time
	// last: a failure of this renewal may lose a member (see renewBound).
	last bool
}

// renewBound returns how long the renewal of batch (sends[i] is batch[i]),
// sent at send, may take before it is cut off and counted as a failed
// renewal of each lease: for each group, until CallTimeout before the
// earliest local deadline of its members (as far as its floor tells), so
// that a renewal cut off there leaves time for one more attempt bounded
// by CallTimeout; but at most its HeartbeatInterval and at least its
// CallTimeout; the smallest over the batch's groups. So a Redis that is
// slow but alive (a loaded server answering in 700ms at TTL 3s, where
// CallTimeout is 500ms and a renewal is sent with about 1.7s left) keeps
// the leases, while a call that never returns holds one of the
// maxBatchesInFlight slots for at most one HeartbeatInterval, and a lease
// whose renewals keep failing is still lost by MaxRenewFailures failures
// before its local deadline, as with CallTimeout alone.
//
// A renewal after MaxRenewFailures − 1 failed rounds (last) leaves no time
// for another attempt: a failure loses the lease. It is waited for until
// CallTimeout/4 before the floor, close to the local deadline, where a
// reply stops counting anyway: on a slow link, a renewal sent after one
// that was cut off by a delayed reply needs a round trip, more than the
// CallTimeout it had (issue 26, trial N5).
func renewBound(batch []*group, sends []renewSend, send time.Time) time.Duration {
	var bound time.Duration
	for i, g := range batch {
		keep := g.tm.callTimeout // time left for one more attempt
		if sends[i].last {
			// No attempt after this one: a quarter of CallTimeout, so
			// that a call that never returns is counted as failed
			// before the deadline timer fires (ReasonRenewFailed).
			keep = g.tm.callTimeout / 4
		}
		b := max(g.tm.callTimeout, min(sends[i].floor.Sub(send)-keep, g.tm.interval))
		if i == 0 || b < bound {
			bound = b
		}
	}
	return bound
}

// renew sends one batch (sends[i] is batch[i] when it was taken off the
// queue) and applies the results.
func (s *scheduler) renew(batch []*group, sends []renewSend) {
	total := 0
	for i := range batch {
		total += len(sends[i].leases)
	}
	// A lease whose context ended since it was taken off the queue (its
	// local deadline fired, or it was lost or released) is not renewed:
	// a renewal sent after the lease ended would keep the key for a full
	// TTL with nobody holding it. A group none of whose members was
	// stopped or dropped since is sent as its prebuilt command (wire);
	// otherwise its members are looked at one by one. (A lease lost in
	// the microseconds before its drop may still be renewed: the renewal
	// is then undone below, as for one that ends while in flight.)
	//
	// Nor is a lease whose local deadline has passed by the send time
	// although its deadline timer has not run yet (a process resumed after
	// a suspension, or a clock jump, wakes the loop and the timer at once,
	// in either order): it is lost here, before anything is sent. A group
	// whose floor (no later than any member's local deadline) is still
	// ahead has no such member, and only then may go as its wire.
	send := s.c.clk.Now()
	live := make([]*Lease, 0, total)
	var wires [][]any // per group of live, in order, when every group has one
	var overdue []*Lease
	for i, g := range batch {
		if w := sends[i].wire; w != nil && g.gone.Load() == sends[i].gone && sends[i].floor.After(send) {
			live = append(live, sends[i].leases...)
			wires = append(wires, w)
			continue
		}
		for _, l := range sends[i].leases {
			if l.hb.stopped.Load() || l.over.Load() {
				continue
			}
			if at, ended := l.localDeadline(); ended {
				continue
			} else if !at.After(send) {
				overdue = append(overdue, l)
				continue
			}
			live = append(live, l)
		}
	}
	for _, l := range overdue {
		l.expire()
	}
	if len(wires) != len(batch) {
		wires = nil // a group was looked at one by one: none goes as its wire
	}
	timeout := renewBound(batch, sends, send)
	ctx, cancel := context.WithTimeoutCause(context.Background(), timeout, ErrRedisTimeout)
	// A renewal cut off at the batch's deadline may still land: late
	// applies its outcome (lateRenewal), as undo does below for a reply
	// in time.
	late := func(got []renewResult) {
		for i, l := range live {
			l.lateRenewal(send, got[i])
		}
	}
	var res []renewResult
	switch {
	case wires != nil:
		res = s.c.renewWires(ctx, wires, sends, len(live), late)
	case len(live) > 0:
		res = s.c.renewMany(ctx, live, late)
	}
	cancel()
	var undo []*Lease
	failed := false       // a renewal of the batch failed
	var dial func() error // the batch's probe dial, made once if needed
	// A group whose members were all renewed has its deadline floor
	// moved (below). That is tracked only when every group went as its
	// wire, so that live is the groups' members in order (the ends of the
	// groups in live are known); otherwise allOK stays false and the
	// floor stays.
	allOK := make([]bool, len(batch))
	gi, end := 0, 0
	if wires != nil {
		for i := range allOK {
			allOK[i] = true
		}
		end = len(sends[0].leases)
	}
	for i, l := range live {
		if i%touchRun == 0 {
			touch(live[i:min(i+touchRun, len(live))])
		}
		// A renewal cut off by the batch's deadline is a *TimeoutError,
		// not context.DeadlineExceeded: no caller's context ended.
		r := res[i]
		if r.err != nil {
			failed = true
			r.err = callError(context.Background(), ctx, "renew", timeout, r.err)
			if dial == nil && s.c.dial != nil {
				// One probe for the batch, as Acquire and Release do
				// (withDialCause): a renewal cut off while go-redis
				// was still dialing says why it could not connect.
				dial = sync.OnceValue(s.c.dial)
			}
			r.err = addDialCause(r.err, dial)
		}
		if wires != nil {
			for i >= end {
				gi++
				end += len(sends[gi].leases)
			}
			if !r.ok || r.err != nil {
				allOK[gi] = false
			}
		}
		stopped := l.hb.stopped.Load()
		if !l.applyRenewal(send, r, stopped) && r.ok && !stopped {
			undo = append(undo, l)
		}
	}
	// A renewal that was sent while the lease was valid but whose lease
	// ended before the reply (the local deadline fired in between) has
	// extended a key that nobody holds: delete it (compare-and-delete).
	for _, l := range undo {
		l.c.undoRenewal(l)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches--
	if s.batches == maxBatchesInFlight-1 {
		s.poke() // the loop may be waiting for this slot
	}
	for gi, g := range batch {
		close(g.inflight)
		g.inflight = nil
		if g.failedRounds++; !failed {
			g.failedRounds = 0
		}
		if s.compact(g, false); len(g.leases) == 0 {
			s.retire(g)
			continue
		}
		if allOK[gi] && g.gone.Load() == sends[gi].gone {
			// Every member was renewed, and none left or joined since.
			g.floor = send.Add(g.tm.ttl - g.tm.margin)
		}
		if !g.armed { // every member's deadline is watched, always
			if at, ok := earliestDeadline(g.leases); ok {
				g.floor = at
				s.arm(g, at)
			}
		}
		g.next = send.Add(s.nextInterval(g.tm, false))
		s.push(g)
	}
}

// touchRun is how many leases touch reads ahead of their renewal's
// outcome being applied: their memory stays in the CPU's caches until then.
const touchRun = 256

// touch reads the words of each lease in ls that applying a renewal reads
// first (over and the heartbeat state; ttlArg, never written after
// Acquire, after mu and before lastSend; c, after lastErr: see Lease, no
// two reads more than 64 bytes apart, so every cache line of those fields
// is loaded), and nothing else. With 100,000
// leases each lease's memory is a cache miss at each renewal: read one
// after the other in a loop that does nothing else, the misses overlap
// (the loads are independent), where the apply loop waits for each in
// turn (it was half of the client's CPU time in the soak's profile).
func touch(ls []*Lease) (n int) {
	for _, l := range ls {
		if l.over.Load() || l.ttlArg == nil || l.c == nil {
			n++
		}
	}
	return n
}

// renewWires sends the prebuilt renew_many command of each group (wires[i]
// for sends[i].leases, n leases in all) in one pipeline, then EVAL for any
// that answered NOSCRIPT, and returns the outcomes in the order of the
// groups' leases. It returns when ctx ends even if Redis never answers.
func (c *Client) renewWires(ctx context.Context, wires [][]any, sends []renewSend, n int, late func(got []renewResult)) []renewResult {
	p := c.rdb.(pipeliner)
	// Even a client that enforces ctx's deadline itself
	// (ContextTimeoutEnabled) runs the pipeline beside a watch of ctx: a
	// call that outlives its deadline for any reason must not hold the
	// scheduler, whose batches in flight are capped.
	var life time.Duration
	for _, s := range sends {
		life = max(life, callLife(s.leases))
	}
	return c.countRenewals(watchPipeline(ctx, life, n, func(ctx context.Context, res []renewResult) {
		at := 0
		for i, cmd := range c.execRenewMany(ctx, p, wires) {
			k := len(sends[i].leases)
			v, err := cmd.Int64Slice()
			decodeRange(res[at:at+k], v, err)
			at += k
		}
	}, late))
}

// countRenewals counts the renewals of res in Stats, but not those whose
// error proves they were never sent (see neverSent), and returns res.
func (c *Client) countRenewals(res []renewResult) []renewResult {
	n := 0
	for _, r := range res {
		if r.err == nil || !c.neverSent(r.err) {
			n++
		}
	}
	c.stats.renewals.Add(uint64(n))
	return res
}

// callLife is how long a renewal call of leases may run on its own context,
// the longest TTL among them: see watchPipeline.
func callLife(leases []*Lease) time.Duration {
	var life time.Duration
	for _, l := range leases {
		life = max(life, l.tm.ttl)
	}
	return life
}

// watchPipeline runs fill, which stores n renewal outcomes in the slice it
// is given, on its own goroutine, and returns them; if ctx ends first, it
// returns n outcomes of ctx.Err() without waiting for fill, and late (if
// not nil) gets fill's outcomes once fill returns.
//
// fill's context is not ctx: it ends life after the call starts, or at
// ctx's deadline if that is later (issue 26, trial N5). go-redis puts a
// call's deadline on its socket (ContextTimeoutEnabled), and closes a
// connection whose read or write timed out; and a call that needs a new
// connection (one closed so, or the first of go-redis's pipeline pool)
// pays the dial and the handshake (HELLO, CLIENT SETINFO: round trips of
// their own) inside that deadline. Cut off at the renewal's bound, such a
// call closed its connection or its handshake each time, so on a link
// whose round trip was near the bound no later call found an open
// connection and every lease was lost. On its own context the call goes
// on after the bound: its late reply moves the leases' local deadlines
// (late), and its connection, opened or kept, serves the next renewal.
func watchPipeline(ctx context.Context, life time.Duration, n int, fill func(ctx context.Context, res []renewResult), late func(got []renewResult)) []renewResult {
	const (
		running = iota
		filled
		abandoned
	)
	var state atomic.Int32
	done := make(chan struct{})
	got := make([]renewResult, n) // written only by fill
	go func() {
		callCtx, cancel := detached(ctx, life)
		fill(callCtx, got)
		cancel()
		if !state.CompareAndSwap(running, filled) && late != nil {
			late(got) // the watch gave up on it
		}
		close(done)
	}()
	select {
	case <-done:
		return got
	case <-ctx.Done():
		if !state.CompareAndSwap(running, abandoned) {
			<-done // filled just now
			return got
		}
		res := make([]renewResult, n)
		for i := range res {
			res[i].err = ctx.Err()
		}
		return res
	}
}

// detached returns a context for a call watched under ctx that ends life
// after now, or at ctx's deadline if that is later, but not when ctx ends
// (see watchPipeline).
func detached(ctx context.Context, life time.Duration) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok {
		life = max(life, time.Until(d))
	}
	return context.WithTimeoutCause(context.WithoutCancel(ctx), life, ErrRedisTimeout)
}

// execRenewMany sends the renew_many commands cmds (each "evalsha", the
// script's SHA1, then its arguments) in one pipeline, or a single one as a
// plain command, then sends again those that answered NOSCRIPT (a server
// that lost its script cache; see resend), and returns the replies in the
// order of cmds. A single command of a go-redis client goes through Do, on
// the connections that acquires and releases keep open: go-redis runs a
// pipeline on a pool of its own, whose first use pays a new connection's
// handshake.
func (c *Client) execRenewMany(ctx context.Context, p pipeliner, cmds [][]any) []*redis.Cmd {
	out := make([]*redis.Cmd, len(cmds))
	if len(cmds) == 1 && c.do != nil {
		out[0] = c.do.Do(ctx, cmds[0]...)
	} else {
		pipe := p.Pipeline()
		for i, cmd := range cmds {
			out[i] = pipe.Do(ctx, cmd...)
		}
		_, _ = pipe.Exec(ctx)
	}
	var again []int
	for i, cmd := range out {
		if redis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
			again = append(again, i)
		}
	}
	if len(again) > 0 {
		resend := make([][]any, len(again))
		for j, i := range again {
			resend[j] = cmds[i]
		}
		for j, cmd := range c.resend(ctx, resend) {
			out[again[j]] = cmd
		}
	}
	return out
}

// decodeRange stores the reply v of one renew_many call for the leases of
// res, in order: the number renewed, then the index (from 1) of each lease
// not renewed ("not owner"). A reply that does not add up to len(res) is
// an error for every lease (never "not owner", never a success).
func decodeRange(res []renewResult, v []int64, err error) {
	if err == nil {
		err = checkManyReply(v, len(res))
	}
	for j := range res {
		res[j] = renewResult{ok: err == nil, err: err}
	}
	if err == nil {
		for _, i := range v[1:] {
			res[abs(i)-1] = renewResult{foreign: i < 0}
		}
	}
}

// checkManyReply checks a renew_many reply v for n leases: a count of the
// renewed and the ascending indices, in 1..n, of the others, adding up to
// n.
func checkManyReply(v []int64, n int) error {
	if len(v) == 0 || v[0] < 0 || v[0]+int64(len(v)-1) != int64(n) {
		return fmt.Errorf("unexpected renew reply %v for %d leases", v, n)
	}
	for k, i := range v[1:] {
		if i = abs(i); i < 1 || i > int64(n) || (k > 0 && i <= abs(v[k])) {
			return fmt.Errorf("unexpected renew reply %v for %d leases", v, n)
		}
	}
	return nil
}

// renewResult is one lease's renewal outcome: ok true (extended), ok false
// with nil err (definitive "not owner": foreign says the lock key held
// another value, else it was missing), or an error (unknown outcome).
type renewResult struct {
	ok      bool
	foreign bool
	err     error
}

// abs is the index of a renew_many reply entry, which is negated for a
// lease whose lock key held another value.
func abs(i int64) int64 {
	if i < 0 {
		return -i
	}
	return i
}

// renewMany renews the leases of a batch. One lease: the renew script.
// More: the renew_many script, one call for up to renewChunk leases of one
// TTL (on a Redis Cluster, one call per hash slot), all calls of the batch
// in one pipeline when the Redis client supports it (one round trip per
// batch and Redis node), else concurrently. It returns when ctx ends even
// if Redis never answers (see [Client.run]).
func (c *Client) renewMany(ctx context.Context, batch []*Lease, late func(got []renewResult)) []renewResult {
	res := make([]renewResult, len(batch))
	if len(batch) == 1 {
		l := batch[0]
		var lateOne func(renewResult)
		if late != nil {
			lateOne = func(r renewResult) { late([]renewResult{r}) }
		}
		res[0] = c.renewWatched(ctx, l, lateOne) // ctx: from context.Background
		return res
	}
	groups := c.renewGroups(batch)
	p, ok := c.rdb.(pipeliner)
	if !ok {
		var wg sync.WaitGroup
		for _, g := range groups {
			wg.Go(func() {
				keys, args := renewArgs(batch, g)
				var v []int64 // read only once the call has returned
				life := callLife(batch)
				_, abandoned, err := c.runFn(ctx, false, func(ctx context.Context) (int64, error) {
					ctx, cancel := detached(ctx, life) // see watchPipeline
					defer cancel()
					var err error
					v, err = c.evalScript(ctx, renewManyScript, keys, args...).Int64Slice()
					return 0, err
				})
				if abandoned != nil {
					decodeMany(res, g, nil, err) // v is the abandoned call's
					return
				}
				decodeMany(res, g, v, err)
			})
		}
		wg.Wait()
		return c.countRenewals(res)
	}
	// As in renewWires: watched even with ContextTimeoutEnabled.
	return c.countRenewals(watchPipeline(ctx, callLife(batch), len(batch), func(ctx context.Context, res []renewResult) {
		c.pipelineRenew(ctx, p, batch, groups, res)
	}, late))
}

// renewGroups splits batch (by index) into the groups of one renew_many
// call each: leases of one TTL, at most renewChunk, and on a Redis Cluster
// of one hash slot. Off Cluster, a batch is its renewal groups one after
// the other, so runs of one TTL are cut into chunks in order.
func (c *Client) renewGroups(batch []*Lease) [][]int {
	var groups [][]int
	if _, ok := c.rdb.(*redis.ClusterClient); ok {
		type key struct {
			slot uint16
			ttl  time.Duration
		}
		at := map[key]int{} // -> index in groups of the call taking more
		for i, l := range batch {
			k := key{slot(l.resource), l.tm.ttl}
			j, ok := at[k]
			if !ok || len(groups[j]) == renewChunk {
				j = len(groups)
				at[k] = j
				groups = append(groups, nil)
			}
			groups[j] = append(groups[j], i)
		}
		return groups
	}
	idx := make([]int, len(batch)) // one allocation for every group
	for i, l := range batch {
		idx[i] = i
		if n := len(groups); n == 0 || len(groups[n-1]) == renewChunk || batch[groups[n-1][0]].tm.ttl != l.tm.ttl {
			groups = append(groups, idx[i:i:len(batch)])
		}
		groups[len(groups)-1] = groups[len(groups)-1][:len(groups[len(groups)-1])+1]
	}
	return groups
}

// renewArgs returns the KEYS and ARGV of one renew_many call for group g of
// batch: the lock keys, then the TTL once and the lock key values.
func renewArgs(batch []*Lease, g []int) ([]string, []any) {
	keys := make([]string, len(g))
	args := make([]any, 1, 1+len(g))
	args[0] = batch[g[0]].ttlArg
	for j, i := range g {
		l := batch[i]
		keys[j] = l.lockKey
		args = append(args, l.valueArg)
	}
	return keys, args
}

// renewCommand returns the whole EVALSHA command of one renew_many call for
// group g of batch, from the arguments each lease boxed once: "evalsha",
// the script's SHA1, the number of keys, the lock keys, the TTL and the
// lock key values (go-redis finds a Cluster slot from the first key, the
// fourth argument, as for its own EvalSha).
func renewCommand(batch []*Lease, g []int) []any {
	cmd := make([]any, 3+len(g), 4+2*len(g))
	cmd[0], cmd[1], cmd[2] = "evalsha", renewManyScript.Hash(), len(g)
	for j, i := range g {
		cmd[3+j] = batch[i].keyArg
	}
	cmd = append(cmd, batch[g[0]].ttlArg)
	for _, i := range g {
		cmd = append(cmd, batch[i].valueArg)
	}
	return cmd
}

// decodeMany stores the reply v of one renew_many call for group g (see
// decodeRange).
func decodeMany(res []renewResult, g []int, v []int64, err error) {
	if err == nil {
		err = checkManyReply(v, len(g))
	}
	for _, i := range g {
		res[i] = renewResult{ok: err == nil, err: err}
	}
	if err == nil {
		for _, j := range v[1:] {
			res[g[abs(j)-1]] = renewResult{foreign: j < 0}
		}
	}
}

// pipelineRenew sends one EVALSHA renew_many per group (see
// execRenewMany) and stores the outcomes in res.
func (c *Client) pipelineRenew(ctx context.Context, p pipeliner, batch []*Lease, groups [][]int, res []renewResult) {
	cmds := make([][]any, len(groups))
	for gi, g := range groups {
		cmds[gi] = renewCommand(batch, g)
	}
	for gi, cmd := range c.execRenewMany(ctx, p, cmds) {
		v, err := cmd.Int64Slice()
		decodeMany(res, groups[gi], v, err)
	}
}

// hbEntry is one queued group: its renewal time beside it, so that
// ordering reads the queue's own memory.
type hbEntry struct {
	next time.Time
	g    *group
}

// groupHeap is a binary min-heap of groups by renewal time.
type groupHeap []hbEntry

func (h *groupHeap) push(e hbEntry) {
	*h = append(*h, e)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !q[i].next.Before(q[p].next) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (h *groupHeap) pop() hbEntry {
	q := *h
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q[n] = hbEntry{}
	q = q[:n]
	for i := 0; ; {
		m, l, r := i, 2*i+1, 2*i+2
		if l < n && q[l].next.Before(q[m].next) {
			m = l
		}
		if r < n && q[r].next.Before(q[m].next) {
			m = r
		}
		if m == i {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	*h = q
	return top
}

// sleep waits until t fires (the loop resets it under mu before) or a
// group is added that is due sooner (s.wake). With the timer semantics of
// Go 1.23 and later (go.mod says 1.26), Stop and Reset leave no stale value
// in t.C, so t can be reset again at once.
func (s *scheduler) sleep(t timer) {
	select {
	case <-t.C():
	case <-s.wake:
		t.Stop()
	}
}
