package lease

import (
	"context"
	"fmt"
	"sync"
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

// maxBatch caps the renewals sent in one pipeline.
const maxBatch = 4 * renewChunk

// scheduler renews every heartbeat-enabled lease of one Client from a single
// goroutine (Redisson's renewal batching, instead of one goroutine and timer
// per lease). Leases sit in a min-heap by next renewal time; the loop takes
// every lease due within its coalescing window, and a short-lived goroutine
// per batch sends their renewals in one pipelined round trip bounded by the
// smallest CallTimeout in the batch, applies the results and queues the
// leases again at (send time + HeartbeatInterval). The loop goroutine exits
// when no lease is queued and restarts with the next one, so an idle Client
// holds no goroutine.
type scheduler struct {
	c *Client

	mu      sync.Mutex
	q       leaseHeap
	running bool
	wake    chan struct{} // capacity 1
	// wakeAt is when the loop will look at the queue next, by its timer;
	// a lease added with a later renewal time needs no wake-up (no futex
	// wake and context switch per Acquire).
	wakeAt time.Time
	// batches counts renewal batches in flight.
	batches int
	// dead counts queued entries of leases that were stopped or dropped
	// (see forget).
	dead int
}

// add queues l for a renewal at next, unless its heartbeat was stopped.
func (s *scheduler) add(l *Lease, next time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addLocked(l, next)
}

func (s *scheduler) addLocked(l *Lease, next time.Time) {
	if l.hb.stopped {
		return
	}
	l.hb.next = next
	l.hb.queued = true
	s.q.push(hbEntry{next: next, l: l})
	if !s.running {
		s.running = true
		go s.loop()
		return
	}
	if next.Before(s.wakeAt) {
		s.poke()
	}
}

func (s *scheduler) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// stop removes l for good. It returns a channel that is closed when a
// renewal of l that is in flight has been applied, or nil if none is.
func (s *scheduler) stop(l *Lease) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	l.hb.stopped = true
	if l.hb.queued && !l.hb.gone {
		// No wake-up while other leases remain: the loop finds nothing due
		// when its timer fires for a lease that is gone, and sleeps again.
		// The last one wakes a loop that would sleep past its linger, so
		// that it ends soon after the Client's last lease.
		s.forget(l)
		if len(s.q) == 0 && s.wakeAt.After(s.c.clk.Now().Add(idleLinger)) {
			s.poke()
		}
	}
	return l.hb.inflight
}

// nextInterval is the time from a renewal's send (or the acquire's) to the
// next renewal of l: HeartbeatInterval shortened by a random jitter, up to
// half of it for the first renewal after the acquire and up to a tenth
// after that, so that leases taken at the same moment by many processes
// (or renewed by them in step) do not renew in lockstep forever. Renewals
// only come earlier than HeartbeatInterval, never later.
func (s *scheduler) nextInterval(l *Lease, first bool) time.Duration {
	span := l.tm.interval / 10
	if first {
		span = l.tm.interval / 2
	}
	if span <= 0 {
		return l.tm.interval
	}
	return l.tm.interval - s.c.clk.N(span)
}

// drop takes l off the queue, if it is queued, without waiting for a
// renewal in flight (lose calls it, possibly from the renewal's own
// goroutine).
func (s *scheduler) drop(l *Lease) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.hb.queued && !l.hb.gone {
		s.forget(l)
	}
}

// forget marks queued lease l as gone. Removal is lazy: the loop skips the
// entry when it comes up (no position to maintain per swap, so the heap's
// entries need no pointer chasing); when only gone entries remain, the
// queue is emptied at once, so that the scheduler can go idle.
func (s *scheduler) forget(l *Lease) {
	l.hb.gone = true
	s.dead++
	if s.dead < len(s.q) {
		return
	}
	for _, e := range s.q {
		e.l.hb.queued = false
	}
	clear(s.q)
	s.q, s.dead = s.q[:0], 0
}

// window is how early a lease may be renewed so that leases due at nearly
// the same time share a round trip.
func window(l *Lease) time.Duration { return min(l.tm.interval/4, 20*time.Millisecond) }

func (s *scheduler) loop() {
	t := s.c.clk.NewTimer(time.Hour)
	defer t.Stop()
	for {
		s.mu.Lock()
		if len(s.q) == 0 {
			// Linger briefly, so a Client that acquires and releases in a
			// loop does not start a goroutine per lease.
			s.wakeAt = s.c.clk.Now().Add(idleLinger)
			s.mu.Unlock()
			s.sleep(t, idleLinger)
			s.mu.Lock()
			if len(s.q) == 0 {
				s.running = false
				s.mu.Unlock()
				return
			}
		}
		if s.batches >= maxBatchesInFlight {
			// Back-pressure: a Redis that is slow to answer gets no more
			// concurrent pipelines; the due leases wait (and then share
			// one larger batch) until a batch in flight is applied.
			s.wakeAt = time.Time{}
			s.mu.Unlock()
			<-s.wake
			continue
		}
		now := s.c.clk.Now()
		var batch, paused []*Lease
		var inflight chan struct{}
		for len(s.q) > 0 && len(batch) < maxBatch {
			e := s.q[0]
			l := e.l
			if gone := l.hb.stopped || l.ctx.Err() != nil; !gone && e.next.After(now.Add(window(l))) {
				break
			}
			s.q.pop()
			l.hb.queued = false
			if l.hb.stopped || l.ctx.Err() != nil {
				// Lost or released: never renewed again.
				if l.hb.gone {
					s.dead--
				}
				continue
			}
			if l.hb.paused.Load() { // test hook: a frozen heartbeat sends nothing
				paused = append(paused, l)
				continue
			}
			if inflight == nil {
				inflight = make(chan struct{}) // one per batch, closed when it is applied
			}
			l.hb.inflight = inflight
			batch = append(batch, l)
		}
		for _, l := range paused {
			l.hb.next = now.Add(max(l.tm.interval/10, time.Millisecond))
			l.hb.queued = true
			s.q.push(hbEntry{next: l.hb.next, l: l})
		}
		var wait time.Duration
		if len(s.q) > 0 {
			wait = max(until(s.c.clk, s.q[0].next), 0)
		}
		s.wakeAt = s.c.clk.Now().Add(wait)
		if len(batch) == maxBatch {
			s.wakeAt = time.Time{} // it loops again at once
		}
		if len(batch) > 0 {
			s.batches++
		}
		s.mu.Unlock()
		if len(batch) > 0 {
			go s.renew(batch)
		}
		if len(batch) == maxBatch {
			continue
		}
		s.sleep(t, wait)
	}
}

// renewResult is one lease's renewal outcome: ok true (extended), ok false
// with nil err (definitive "not owner"), or an error (unknown outcome).
type renewResult struct {
	skipped bool // not sent: the lease had ended
	ok      bool
	err     error
}

// renew sends one batch and applies the results.
func (s *scheduler) renew(batch []*Lease) {
	timeout := batch[0].tm.callTimeout
	for _, l := range batch[1:] {
		timeout = min(timeout, l.tm.callTimeout)
	}
	// A lease whose context ended since it was taken off the queue (its
	// local deadline fired, or it was lost or released) is not renewed:
	// a renewal sent after the lease ended would keep the key for a full
	// TTL with nobody holding it.
	live := make([]*Lease, 0, len(batch))
	for _, l := range batch {
		if l.ctx.Err() == nil {
			live = append(live, l)
		}
	}
	ctx, cancel := context.WithTimeoutCause(context.Background(), timeout, ErrRedisTimeout)
	send := s.c.clk.Now()
	res := make([]renewResult, len(batch))
	if len(live) > 0 {
		got := s.c.renewMany(ctx, live)
		for i, j := 0, 0; i < len(batch); i++ {
			if j < len(live) && batch[i] == live[j] {
				res[i] = got[j]
				j++
			} else {
				res[i] = renewResult{skipped: true}
			}
		}
	}
	for i := range res {
		// A renewal cut off by the batch's deadline is a *TimeoutError,
		// not context.DeadlineExceeded: no caller's context ended.
		res[i].err = callError(context.Background(), ctx, "renew", timeout, res[i].err)
	}
	cancel()
	var undo []*Lease
	for i, l := range batch {
		if res[i].skipped {
			continue
		}
		s.mu.Lock()
		stopped := l.hb.stopped
		s.mu.Unlock()
		if !l.applyRenewal(send, res[i], stopped) && res[i].ok && !stopped {
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
	s.batches--
	if s.batches == maxBatchesInFlight-1 {
		s.poke() // the loop may be waiting for this slot
	}
	close(batch[0].hb.inflight) // shared by the batch
	for _, l := range batch {
		l.hb.inflight = nil
		if l.ctx.Err() == nil {
			s.addLocked(l, send.Add(s.nextInterval(l, false)))
		}
	}
	s.mu.Unlock()
}

// renewMany renews the leases of a batch. One lease: the renew script.
// More: the renew_many script, one call for up to renewChunk leases (on a
// Redis Cluster, one call per hash slot), all calls of the batch in one
// pipeline when the Redis client supports it (one round trip per batch and
// Redis node), else concurrently. It returns when ctx ends even if Redis
// never answers (see [Client.run]).
func (c *Client) renewMany(ctx context.Context, batch []*Lease) []renewResult {
	res := make([]renewResult, len(batch))
	if len(batch) == 1 {
		l := batch[0]
		ok, err := c.renew(ctx, l.lockKey, l.owner, l.tm.ttl)
		res[0] = renewResult{ok: ok, err: err}
		return res
	}
	groups := c.renewGroups(batch)
	c.stats.renewals.Add(uint64(len(batch)))
	p, ok := c.rdb.(pipeliner)
	if !ok {
		var wg sync.WaitGroup
		for _, g := range groups {
			wg.Go(func() {
				keys, args := renewArgs(batch, g)
				var v []int64 // read only once the call has returned
				_, abandoned, err := c.runFn(ctx, func(ctx context.Context) (int64, error) {
					var err error
					v, err = renewManyScript.Run(ctx, c.rdb, keys, args...).Int64Slice()
					return 0, err
				})
				if abandoned != nil {
					v = nil
				}
				decodeMany(res, g, v, err)
			})
		}
		wg.Wait()
		return res
	}
	if c.ctxDeadlines {
		return pipelineRenew(ctx, p, batch, groups)
	}
	ch := make(chan []renewResult, 1)
	go func() { ch <- pipelineRenew(ctx, p, batch, groups) }()
	select {
	case r := <-ch:
		return r
	case <-ctx.Done():
		select {
		case r := <-ch:
			return r
		default:
		}
		for i := range res {
			res[i].err = ctx.Err()
		}
		return res
	}
}

// renewChunk is the most leases one renew_many call renews.
const renewChunk = 1000

// renewGroups splits batch (by index) into the groups of one renew_many
// call each: chunks of renewChunk, and on a Redis Cluster by hash slot.
func (c *Client) renewGroups(batch []*Lease) [][]int {
	var bySlot [][]int
	if _, ok := c.rdb.(*redis.ClusterClient); ok {
		at := map[uint16]int{} // slot -> index in bySlot, in order of first use
		for i, l := range batch {
			s := slot(l.resource)
			j, ok := at[s]
			if !ok {
				j = len(bySlot)
				at[s] = j
				bySlot = append(bySlot, nil)
			}
			bySlot[j] = append(bySlot[j], i)
		}
	} else if len(batch) > 0 {
		all := make([]int, len(batch))
		for i := range all {
			all[i] = i
		}
		bySlot = [][]int{all}
	}
	var groups [][]int
	for _, g := range bySlot {
		for len(g) > renewChunk {
			groups, g = append(groups, g[:renewChunk]), g[renewChunk:]
		}
		groups = append(groups, g)
	}
	return groups
}

func renewArgs(batch []*Lease, g []int) ([]string, []any) {
	keys := make([]string, len(g))
	args := make([]any, 0, 2*len(g))
	for j, i := range g {
		l := batch[i]
		keys[j] = l.lockKey
		args = append(args, l.ownerArg, l.ttlArg)
	}
	return keys, args
}

// decodeMany stores the reply v of one renew_many call for group g.
func decodeMany(res []renewResult, g []int, v []int64, err error) {
	if err == nil && len(v) != len(g) {
		err = fmt.Errorf("unexpected renew reply of %d values for %d leases", len(v), len(g))
	}
	for j, i := range g {
		if err != nil {
			res[i] = renewResult{err: err}
			continue
		}
		ok, e := decodeBool("renew", v[j], nil)
		res[i] = renewResult{ok: ok, err: e}
	}
}

// pipelineRenew sends one EVALSHA renew_many per group in one pipeline,
// then EVAL for any that answered NOSCRIPT (a server that lost its script
// cache).
func pipelineRenew(ctx context.Context, p pipeliner, batch []*Lease, groups [][]int) []renewResult {
	cmds := make([]*redis.Cmd, len(groups))
	keys := make([][]string, len(groups))
	args := make([][]any, len(groups))
	pipe := p.Pipeline()
	for gi, g := range groups {
		keys[gi], args[gi] = renewArgs(batch, g)
		cmds[gi] = pipe.EvalSha(ctx, renewManyScript.Hash(), keys[gi], args[gi]...)
	}
	_, _ = pipe.Exec(ctx)
	var again []int
	for gi, cmd := range cmds {
		if redis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
			again = append(again, gi)
		}
	}
	if len(again) > 0 {
		pipe = p.Pipeline()
		for _, gi := range again {
			cmds[gi] = pipe.Eval(ctx, renewManyLua, keys[gi], args[gi]...)
		}
		_, _ = pipe.Exec(ctx)
	}
	res := make([]renewResult, len(batch))
	for gi, cmd := range cmds {
		v, err := cmd.Int64Slice()
		decodeMany(res, groups[gi], v, err)
	}
	return res
}

// hbEntry is one queued renewal: its time beside the lease, so that
// ordering reads the queue's own memory.
type hbEntry struct {
	next time.Time
	l    *Lease
}

// leaseHeap is a binary min-heap of renewals by time.
type leaseHeap []hbEntry

func (h *leaseHeap) push(e hbEntry) {
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

func (h *leaseHeap) pop() hbEntry {
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

// sleep waits on t for d, or until a lease is added (s.wake). With the
// timer semantics of Go 1.23 and later (go.mod says 1.26), Stop leaves no
// stale value in t.C, so t can be reset again at once.
func (s *scheduler) sleep(t timer, d time.Duration) {
	t.Reset(d)
	select {
	case <-t.C():
	case <-s.wake:
		t.Stop()
	}
}
