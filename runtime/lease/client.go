package lease

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease/internal/highwater"
	"github.com/fencegen/fencegen/runtime/lease/internal/notify"
)

var (
	//go:embed acquire.lua
	acquireLua string
	//go:embed renew.lua
	renewLua string
	//go:embed release.lua
	releaseLua string
	//go:embed advance.lua
	advanceLua string
	//go:embed renew_many.lua
	renewManyLua string

	// Each script is wrapped once; Script.Run sends EVALSHA and falls back
	// to EVAL when the server answers NOSCRIPT.
	acquireScript   = redis.NewScript(acquireLua)
	renewScript     = redis.NewScript(renewLua)
	releaseScript   = redis.NewScript(releaseLua)
	advanceScript   = redis.NewScript(advanceLua)
	renewManyScript = redis.NewScript(renewManyLua)

	// The SHA1s of the acquire and release scripts as command arguments,
	// boxed once (boxing a string allocates).
	acquireSHA, releaseSHA any = acquireScript.Hash(), releaseScript.Hash()

	// leaseScripts is the source of every script a lease sends with
	// EVALSHA, by SHA1: a NOSCRIPT reply to any of them loads all of them
	// (see Client.resend).
	leaseScripts = map[string]string{
		acquireScript.Hash(): acquireLua, renewScript.Hash(): renewLua, releaseScript.Hash(): releaseLua,
		advanceScript.Hash(): advanceLua, renewManyScript.Hash(): renewManyLua,
	}
)

// loadScripts queues a SCRIPT LOAD of every script of leaseScripts on pipe.
func loadScripts(ctx context.Context, pipe redis.Pipeliner) {
	for _, s := range []string{acquireLua, renewLua, renewManyLua, releaseLua, advanceLua} {
		pipe.ScriptLoad(ctx, s)
	}
}

// resend sends again the EVALSHA commands cmds ("evalsha", a SHA1 of
// leaseScripts, then the arguments) that the server answered NOSCRIPT (a
// server that never ran them, or lost its script cache in a restart or a
// SCRIPT FLUSH), and returns their replies in order.
//
// The server lacks the package's other scripts too, so a client whose
// pipeline reaches one server (c.loader: a *redis.Client, a Sentinel
// FailoverClient) sends one pipeline, one round trip as EVAL would be:
// SCRIPT LOAD of every script, then cmds again. Otherwise the first renewal
// after a first Acquire paid NOSCRIPT and EVAL, two round trips, which on
// a link whose round trip is above TTL/6 timed out (issue 26, trial N5).
// Scripts loaded with SCRIPT LOAD are also never evicted, unlike those that
// EVAL adds from Redis 7.4 on. Any other client (a ClusterClient, whose
// pipeline would send a SCRIPT LOAD to any node, or a plain
// redis.Scripter) gets EVAL of each command's script, and every script is
// loaded in the background (on every master of a cluster).
func (c *Client) resend(ctx context.Context, cmds [][]any) []*redis.Cmd {
	out := make([]*redis.Cmd, len(cmds))
	if c.loader != nil {
		pipe := c.loader.Pipeline()
		loadScripts(ctx, pipe)
		for i, cmd := range cmds {
			out[i] = pipe.Do(ctx, cmd...)
		}
		_, _ = pipe.Exec(ctx)
		return out
	}
	c.loadLater()
	for i, cmd := range cmds {
		keys, args := splitCmd(cmd)
		out[i] = c.rdb.Eval(ctx, leaseScripts[cmd[1].(string)], keys, args...)
	}
	return out
}

// loadLater loads every script of leaseScripts with SCRIPT LOAD (on every
// master of a Redis Cluster) in the background, once at a time, bounded by
// scriptLoadTimeout.
func (c *Client) loadLater() {
	if !c.loading.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer c.loading.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), scriptLoadTimeout)
		defer cancel()
		for _, src := range []string{acquireLua, renewLua, renewManyLua, releaseLua, advanceLua} {
			if c.rdb.ScriptLoad(ctx, src).Err() != nil {
				return
			}
		}
	}()
}

// scriptLoadTimeout bounds loadLater.
const scriptLoadTimeout = 10 * time.Second

// evalScript runs script s (one of leaseScripts) with EVALSHA, and after
// NOSCRIPT sends it again with resend.
func (c *Client) evalScript(ctx context.Context, s *redis.Script, keys []string, args ...any) *redis.Cmd {
	r := s.EvalSha(ctx, c.rdb, keys, args...)
	if !redis.HasErrorPrefix(r.Err(), "NOSCRIPT") {
		return r
	}
	unsent(args)
	cmd := make([]any, 0, 3+len(keys)+len(args))
	cmd = append(cmd, "evalsha", s.Hash(), len(keys))
	for _, k := range keys {
		cmd = append(cmd, k)
	}
	return c.resend(ctx, [][]any{append(cmd, args...)})[0]
}

// Client takes leases on named resources in one Redis deployment. It is safe
// for concurrent use; create one per Redis client and share it.
type Client struct {
	rdb  redis.Scripter
	opts *Options
	clk  clock
	hb   scheduler
	repl replicaState
	// replicas is how an acquire waits for replicas (see classify), and
	// nodeRepl the replicaState of each Redis Cluster master by address.
	replicas replicaKind
	nodeRepl sync.Map
	// ctxDeadlines: rdb is a go-redis client with ContextTimeoutEnabled,
	// which bounds each call by its context itself (see run).
	ctxDeadlines bool
	// deadlines ends the contexts of calls made inline at their deadlines
	// (see callContext).
	deadlines deadlineWatch
	// oneTry: rdb is a go-redis client that makes a single attempt per
	// call (no MaxRetries, no cluster redirects), so the error of a call
	// describes the only request it may have sent (see neverSent).
	oneTry bool
	// dial, if set, connects once with the go-redis client's own dialer
	// and returns the dial's error (see withDialCause).
	dial func() error
	// do is rdb when it is a *redis.Client, *redis.ClusterClient or
	// *redis.Ring (exactly: not a type that embeds one and may override
	// EvalSha): Acquire and Release send their prebuilt EVALSHA commands
	// with Do, without go-redis building (and boxing) the arguments again.
	do doer
	// loader is rdb when its pipeline reaches one server (not a
	// ClusterClient): see resend. loading: loadLater is running.
	loader  pipeliner
	loading atomic.Bool
	// timings caches the timing of the last TTL Acquire derived, with the
	// TTL in milliseconds boxed once as a command argument.
	timings atomic.Pointer[timingEntry]
	// observed: Options has a Logger or an Observer callback, which get
	// the values of the ctx given to Acquire (Lease.vals).
	observed bool
	// notes delivers Observer callbacks and Logger records in order, off
	// the heartbeat and the callers' waits (see Observer).
	notes notify.Queue
	stats struct {
		acquires, renewals, releases atomic.Uint64
	}
	// tokens holds, for each resource this Client acquired or advanced,
	// the highest token it minted for it, or that Advance
	// raised its counter to. Redis's counter only goes up, so a token at
	// or below it means Redis lost or rewound the counter (a restart
	// without persistence, a failover to a replica that never saw it), and
	// the token may be held by a live lease this Client handed out: see
	// Acquire. One entry per resource name, as in the etcd lease.
	tokens highwater.Marks
	// highWater holds the resources whose Options.HighWater mark this
	// Client has applied (asked for it and raised the counter above it
	// with Advance), as the etcd lease's does: the first Acquire of each
	// resource applies it, and every resource asks again after Acquire
	// caught the counter going back. Unused without Options.HighWater.
	highWater sync.Map // resource name -> struct{}
}

// New returns a Client that runs its scripts on rdb, which may be a
// *redis.Client (a Sentinel FailoverClient included), a
// *redis.ClusterClient, a redis.UniversalClient holding either, or a type
// embedding one of them, or, with Options.UnsafeNoReplicas, any other
// redis.Scripter (anything with EVAL/EVALSHA, as in bsm/redislock). opts
// may be nil, meaning every default; New keeps a copy, so later changes to
// *opts have no effect.
//
// New panics, as for a nil rdb, when opts cannot be kept with Options.TTL,
// or with the default TTL of 10s when Options.TTL is zero (a negative
// option, a TTL below the 1ms resolution of PX or too short for TTL/6 to
// leave a Redis call a millisecond, a HeartbeatInterval, MinValidity or
// SafetyMargin that leaves no time before the local deadline, a
// CallTimeout as long as the TTL): the panic value is an error wrapping an
// [*OptionsError] (errors.As), whose Fields name the options and whose
// message names the rule and the least TTL the options allow; set
// Options.TTL to the TTL the leases use when it is not 10s. New panics too when rdb
// is a *redis.Ring, whatever the options (a Ring that marks a shard down
// moves its resources to a shard whose fence counter is behind, so one
// token can reach two holders); when rdb is a redis.Pipeliner (a
// Pipeline or TxPipeline only queues commands until Exec, so no script
// would run), whatever the options; and when rdb is any other type that the
// acquire cannot make wait for the replicas of the primary it wrote to
// (a plain redis.Scripter, or a pipelining type that is not one of the
// go-redis clients above; see "Replicas and failover" in the package
// documentation) and Options.UnsafeNoReplicas is not set: such a Client
// could mint a token twice after a failover. Each message names the
// client's type and the way out.
func New(rdb redis.Scripter, opts *Options) *Client {
	if rdb == nil {
		panic("lease: New with nil redis.Scripter")
	}
	kind, refusal := classify(rdb, opts != nil && opts.UnsafeNoReplicas)
	if refusal != "" {
		panic(refusal)
	}
	c := &Client{rdb: rdb, replicas: kind}
	if opts != nil {
		o := *opts
		c.opts = &o
	}
	if opts != nil {
		// A default TTL the lease cannot keep with the other options would
		// fail every Acquire and Do that uses it: refuse it here, not at
		// the first call, also when it is the default 10s (issue 26, r26
		// N4).
		if _, err := c.timing(0); err != nil {
			panic(newPanicValue(opts.TTL, c.opts.ttl(), err))
		}
	}
	c.clk = realClock{}
	if h := c.opts.testHooks(); h.clock != nil {
		c.clk = h.clock
	}
	c.hb.init(c)
	switch rdb.(type) {
	case *redis.Client, *redis.ClusterClient, *redis.Ring:
		c.do = rdb.(doer)
	}
	if p, ok := rdb.(pipeliner); ok {
		if _, cluster := rdb.(forEachMaster); !cluster {
			c.loader = p
		}
	}
	c.observed = c.opts.logger() != nil || c.opts.observer().set()
	c.notes.Name = "lease"
	switch r := rdb.(type) {
	case interface{ Options() *redis.Options }:
		o := r.Options()
		// NewClient normalizes MaxRetries: -1 (no retries) becomes 0, and
		// 0 (the default) becomes 3.
		c.ctxDeadlines, c.oneTry = o.ContextTimeoutEnabled, o.MaxRetries == 0
		if o.Dialer != nil { // NewClient and NewFailoverClient set it
			c.dial = func() error { return probeDial(o) }
		}
	case interface{ Options() *redis.ClusterOptions }:
		o := r.Options()
		// NewClusterClient normalizes MaxRedirects like MaxRetries above;
		// its node clients retry when MaxRetries > 0.
		c.ctxDeadlines, c.oneTry = o.ContextTimeoutEnabled, o.MaxRedirects == 0 && o.MaxRetries <= 0
	}
	return c
}

// Stats counts what a Client has sent to Redis: acquire attempts, lease
// renewals and releases, each when it was sent (a call whose context had
// already ended is not sent and not counted; nor is a renewal or release
// that a go-redis client without retries failed to connect for, or to get
// a pooled connection for, which proves nothing was sent, while every
// acquire attempt counts; a call counts once even when
// go-redis has to follow an EVALSHA with EVAL after NOSCRIPT, or retries
// internally). Tests and metrics use it to check that each operation is a
// single round trip.
type Stats struct {
	// Acquires counts acquire-script calls, including retries and calls
	// that answered "not acquired".
	Acquires uint64
	// Renewals counts lease renewals sent, by the heartbeat and by Renew;
	// the heartbeat renews the leases due together with one renew_many
	// script call per 1000 leases, so this is not a count of calls.
	Renewals uint64
	// Releases counts release-script calls, by Release and by the cleanup
	// after a failed Acquire.
	Releases uint64
	// SlowCallbacks counts the Observer callbacks and Logger records whose
	// call ran longer than 1s (counted when it passes 1s, so one that
	// never returns counts too); each also logs a warning through
	// slog.Default. DroppedCallbacks counts those dropped because 65,536
	// were already waiting behind a blocked one. PanickedCallbacks counts
	// those that panicked: the panic is recovered on the Client's callback
	// goroutine and logged at error level through slog.Default with its
	// stack, and the events after it are still delivered. See [Observer].
	SlowCallbacks, DroppedCallbacks, PanickedCallbacks uint64
}

// Stats returns the script-call counters of c since New.
func (c *Client) Stats() Stats {
	return Stats{
		Acquires: c.stats.acquires.Load(),
		Renewals: c.stats.renewals.Load(),
		Releases: c.stats.releases.Load(),

		SlowCallbacks:     c.notes.Slow(),
		DroppedCallbacks:  c.notes.Dropped(),
		PanickedCallbacks: c.notes.Panicked(),
	}
}

// AllKeys returns every Redis key the package writes for resource, all in
// the hash slot of {resource}: the lock key, the fence counter, the
// :minted record (see [Client.Keys]), the :released record (the owner
// of the last lease released, which clients before 2026-12-07 wrote and
// this one neither writes nor reads; listed so that it is deleted with
// the others), and the prefix of the owner marks
// "<prefix>:{<resource>}:abandoned:" followed by an owner value (32 hex
// digits), which the cleanup of a failed Acquire (and the Release of a
// lease whose Acquire had an attempt that may still arrive) sets with a
// TTL of max(10·TTL, 30s) so that a late attempt of that Acquire writes
// nothing.
// To list those with SCAN MATCH, put a backslash before each glob
// character (* ? [ ] \) of that prefix, since a resource name may contain
// them, and append "*".
func (c *Client) AllKeys(resource string) []string {
	lock, counter := c.Keys(resource)
	return []string{lock, counter, mintKey(lock), releasedKey(lock), abandonKey(lock, "")}
}

// Keys returns the Redis keys used for resource: the lock key, which holds
// the holder's owner value (32 hex digits, fresh per Acquire) with a TTL
// while the lease is held, and the counter key,
// which holds the last minted fencing token and never has a TTL. Both share
// the hash tag {resource}, so they live in one Redis Cluster slot, with a
// third key, <prefix>:{<resource>}:minted, that records which acquisition
// minted last (see acquire.lua).
func (c *Client) Keys(resource string) (lock, counter string) {
	base := c.opts.keyPrefix() + ":{" + resource + "}:"
	return base + lockSuffix, base + counterSuffix
}

// The ends of a resource's keys, after "<prefix>:{<resource>}:": the lock,
// the fence counter, the :minted record and the abandon mark (followed by
// an owner value). Keys, mintKey, abandonKey and Client.prepare build every
// key from them.
const (
	lockSuffix     = "lock"
	counterSuffix  = "token"
	mintSuffix     = "minted"
	releasedSuffix = "released"
	abandonSuffix  = "abandoned:"
)

// mintKey is the key beside a lock key that records the last acquisition
// that minted a token, "<owner>:<token>", without a TTL: an Acquire retry
// whose first attempt landed but whose lock key has since vanished gets its
// own token back instead of minting a second one.
func mintKey(lockKey string) string { return strings.TrimSuffix(lockKey, lockSuffix) + mintSuffix }

// abandonKey is the mark that the cleanup of a failed Acquire sets for its
// owner value (with a TTL, see abandonLife), so that an attempt of that
// Acquire still on its way to Redis writes nothing when it arrives.
func abandonKey(lockKey, owner string) string {
	return strings.TrimSuffix(lockKey, lockSuffix) + abandonSuffix + owner
}

// abandonLife is how long the abandon mark of a failed Acquire lives: long
// enough for a request held by a stalled server or socket to arrive.
func abandonLife(ttl time.Duration) time.Duration { return max(10*ttl, 30*time.Second) }

// releasedKey is the key beside a lock key where clients before
// 2026-12-07 recorded the owner of the last lease released, without a TTL
// (see release.lua); this package no longer writes or reads it, and
// AllKeys lists it so that it can be deleted with the others.
func releasedKey(lockKey string) string {
	return strings.TrimSuffix(lockKey, lockSuffix) + releasedSuffix
}

// timing is the per-lease configuration derived from the TTL and Options.
type timing struct {
	ttl, interval, callTimeout, releaseTimeout, margin, minValidity time.Duration
	maxFailures                                                     int
}

// minCallTime is the least time the package allows for one Redis round
// trip: the per-call timeout (CallTimeout), and the window in which an
// acquire reply must arrive to leave MinValidity of validity (TTL −
// SafetyMargin − MinValidity), must each be at least this long. A round trip
// takes a fraction of it on loopback; with less, every acquire attempt or
// renewal would time out (or come back too late) before Redis could answer.
// It is also the resolution of PX.
const minCallTime = time.Millisecond

// MinRenewSlack is the least time a renewal sent on schedule must have
// before the local deadline, TTL − SafetyMargin − HeartbeatInterval (with
// the defaults, 0.57·TTL), on both coordinators: [New] and etcdlease.New
// refuse options, and Acquire a TTL, that leave less, with an
// [*OptionsError] naming the least TTL allowed (36ms with the default
// options on Redis; etcd's least TTL, 1s, leaves more). The renewal has to
// be sent, answered and applied within it by goroutines that each wait
// for a CPU when the process or the machine is busy, and a goroutine
// ready to run can wait a scheduling slice (Go preempts one that has run
// 10ms; the kernel's slices are of that order) before it runs: below two
// slices, a busy moment loses the lease. A README-only trial (F4) lost 1
// lease in 20 at a TTL of 10ms (5.67ms) on an idle loopback; the least
// TTL allowed was 6ms then.
// The heartbeat disabled (HeartbeatInterval negative), no renewal is due
// and the rule does not apply.
const MinRenewSlack = 20 * time.Millisecond

// timing derives the lease's timing from ttl (0: Options.TTL) and checks
// it. Each check fails for a TTL below some minimum (with defaults, TTL −
// TTL/10 − TTL/3 must reach MinRenewSlack: at least 36ms); the error, an *OptionsError
// (ErrConfig), names the fields, says which rule failed and the minimum
// TTL the options allow.
func (c *Client) timing(ttl time.Duration) (timing, error) {
	ttlField := "ttl"
	if ttl == 0 {
		ttl, ttlField = c.opts.ttl(), "Options.TTL"
	}
	t := c.derive(ttl)
	if strings.ContainsAny(c.opts.keyPrefix(), "{}") {
		return t, optionsError([]string{"Options.KeyPrefix"}, "KeyPrefix %q contains '{' or '}'", c.opts.keyPrefix())
	}
	if err := c.check(t); err != nil {
		for i, f := range err.Fields {
			if f == "TTL" {
				err.Fields[i] = ttlField
			}
		}
		if m, ok := c.minTTL(); ok && err.TTL != 0 {
			err.Problem += fmt.Sprintf(" (minimum TTL with these options: %v)", m)
		}
		return t, err
	}
	return t, nil
}

func (c *Client) derive(ttl time.Duration) timing {
	return timing{
		ttl:            ttl,
		interval:       c.opts.heartbeatInterval(ttl),
		callTimeout:    c.opts.callTimeout(ttl),
		releaseTimeout: c.opts.releaseTimeout(ttl),
		margin:         c.opts.safetyMargin(ttl),
		minValidity:    c.opts.minValidity(ttl),
		maxFailures:    c.opts.maxRenewFailures(),
	}
}

// check applies the rules that tie the durations to the TTL, after
// checkOptions has checked each option on its own. Its Fields say "TTL"
// for the lease TTL, which timing names.
func (c *Client) check(t timing) *OptionsError {
	if err := c.opts.checkOptions(); err != nil {
		return err
	}
	err := func(fields []string, format string, args ...any) *OptionsError {
		e := optionsError(fields, format, args...)
		e.TTL = t.ttl
		return e
	}
	switch valid := t.ttl - t.margin; {
	case t.ttl < minCallTime:
		return err([]string{"TTL"}, "TTL %v below the %v resolution of Redis PX", dur(t.ttl), minCallTime)
	case t.margin >= t.ttl:
		return err([]string{"Options.SafetyMargin", "TTL"}, "SafetyMargin %v not below TTL %v", dur(t.margin), dur(t.ttl))
	case c.opts != nil && c.opts.CallTimeout > 0 && t.callTimeout >= t.ttl:
		// A renewal that may take a whole TTL cannot keep a lease: the key
		// may expire while it waits, and the failures that lose the lease
		// come after its deadline.
		return err([]string{"Options.CallTimeout", "TTL"}, "Options.CallTimeout %v not below TTL %v", dur(t.callTimeout), dur(t.ttl))
	case t.interval >= valid:
		return err([]string{"Options.HeartbeatInterval", "TTL", "Options.SafetyMargin"}, "HeartbeatInterval %v not below TTL − SafetyMargin %v", dur(t.interval), dur(valid))
	case t.minValidity >= valid:
		return err([]string{"Options.MinValidity", "TTL", "Options.SafetyMargin"}, "MinValidity %v not below TTL − SafetyMargin %v", dur(t.minValidity), dur(valid))
	case t.callTimeout < minCallTime && c.opts != nil && c.opts.CallTimeout > 0:
		return err([]string{"Options.CallTimeout"}, "Options.CallTimeout %v below the %v a Redis call needs", durBelow(t.callTimeout, minCallTime), minCallTime)
	case t.callTimeout < minCallTime:
		return err([]string{"TTL"}, "TTL %v too short: its CallTimeout (TTL/6) %v is below the %v a Redis call needs", durBelow(t.ttl, 6*minCallTime), durBelow(t.callTimeout, minCallTime), minCallTime)
	case valid-t.minValidity < minCallTime:
		return err([]string{"TTL", "Options.SafetyMargin", "Options.MinValidity"}, "TTL %v too short: an acquire reply must arrive within TTL − SafetyMargin − MinValidity = %v, below the %v a Redis call needs",
			dur(t.ttl), durBelow(valid-t.minValidity, minCallTime), minCallTime)
	case t.interval > 0 && valid-t.interval < MinRenewSlack:
		slack := durBelow(valid-t.interval, MinRenewSlack)
		if c.opts == nil || (c.opts.HeartbeatInterval == 0 && c.opts.SafetyMargin == 0) {
			return err([]string{"TTL"}, "TTL %v too short: a renewal sent on schedule has TTL − SafetyMargin (TTL/10) − HeartbeatInterval (TTL/3) = %v before the local deadline, below the %v it needs on a busy machine (lease.MinRenewSlack)", dur(t.ttl), slack, MinRenewSlack)
		}
		return err([]string{"Options.HeartbeatInterval", "TTL", "Options.SafetyMargin"}, "HeartbeatInterval %v leaves a renewal %v before the local deadline (TTL − SafetyMargin %v), below the %v it needs on a busy machine (lease.MinRenewSlack)", dur(t.interval), slack, dur(valid), MinRenewSlack)
	}
	return nil
}

// minTTL returns the least TTL, in whole milliseconds, that passes check
// with c's options, or false if none does (an explicit CallTimeout below
// minCallTime). Every duration check compares is either fixed by an option
// or a fraction of the TTL, so a longer TTL never fails a check a shorter
// one passed, and a binary search finds the least.
func (c *Client) minTTL() (time.Duration, bool) {
	ok := func(ttl time.Duration) bool { return c.check(c.derive(ttl)) == nil }
	const limit = 1 << 40 * time.Millisecond // about 35 years
	hi := minCallTime
	for !ok(hi) {
		if hi >= limit {
			return 0, false
		}
		hi *= 2
	}
	lo := hi / 2 // fails: the least TTL that passes is in (lo, hi]
	for hi-lo > time.Microsecond {
		if mid := lo + (hi-lo)/2; ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	m := (lo/time.Millisecond + 1) * time.Millisecond // the first whole millisecond above lo
	for !ok(m) {
		m += time.Millisecond
	}
	return m, true
}

// newOwner returns 128 random bits in hex: the value that proves ownership
// of one acquisition.
func newOwner() string {
	h := ownerHex()
	return string(h[:])
}

// ownerHex returns 128 random bits as 32 hex digits.
//
// The bits come from crypto/rand, read 512 bytes (32 owners) at a time
// into buffers that one goroutine at a time consumes (a sync.Pool, per P):
// one read per 32 owners instead of one each. Every byte is used once;
// a buffer the pool drops is simply never used again.
func ownerHex() (h [32]byte) {
	rb := randBufs.Get().(*randBuf)
	if rb.n == len(rb.b) {
		_, _ = rand.Read(rb.b[:]) // crypto/rand.Read never returns an error (Go 1.24+)
		rb.n = 0
	}
	hex.Encode(h[:], rb.b[rb.n:rb.n+16])
	rb.n += 16
	randBufs.Put(rb)
	return h
}

// randBuf is random bytes not yet used, from b[n:].
type randBuf struct {
	b [512]byte
	n int
}

var randBufs = sync.Pool{New: func() any { return &randBuf{n: 512} }}

// millis converts d to milliseconds for PX/PEXPIRE, rounded up (at least 1),
// so that Redis keeps the key at least as long as the local validity
// assumes.
func millis(d time.Duration) int64 {
	ms := int64(d / time.Millisecond) // not (d+999µs)/ms, which overflows near MaxInt64
	if d%time.Millisecond != 0 {
		ms++
	}
	return max(ms, 1)
}

// Acquire takes the lease on resource for ttl without blocking: one
// acquire-script round trip that, atomically, sets the lock key (SET NX PX
// ttl) to a fresh 128-bit owner value and mints the next fencing token by
// INCR of the resource's counter key. ttl 0 means Options.TTL. To wait for
// a held lease, use [Client.AcquireWait].
//
// On success the returned [*Lease] holds the token and is renewed every
// HeartbeatInterval by the Client's heartbeat until [Lease.Release]; the
// caller must call Release. The heartbeat starts only after Acquire has
// decided to return the lease. The lease's lifetime does not depend on
// ctx: ctx bounds only the acquire call itself.
//
// After an ambiguous failure (timeout, connection error, LOADING, READONLY,
// ...) Acquire resends the script up to Options.AcquireRetries times with
// the same owner value while ctx allows, each attempt bounded by
// CallTimeout; if an earlier attempt had landed, the script returns the
// token it minted then instead of minting another.
//
// Cleanup, and how long Acquire can take: when Acquire fails after a
// request may have landed without its outcome being known (a timeout, a
// lost reply, a reply that would arrive after ctx ended), it waits for the
// requests still in flight and then deletes the lock key with a
// compare-and-delete, retried after transient failures, all on a context
// detached from ctx and bounded by ReleaseTimeout, so that no ghost lease
// is left behind. So when ctx ends with a request possibly in flight,
// Acquire returns up to ReleaseTimeout after ctx ended; without a deadline
// on ctx it takes at most (AcquireRetries+1)·CallTimeout plus short pauses
// between attempts, plus up to ReleaseTimeout. There is no cleanup, and
// Acquire returns as soon as its attempts have failed, when every attempt
// provably never reached Redis: go-redis could not connect (a dial error,
// such as connection refused) or found no free connection (ErrPoolTimeout,
// ErrPoolExhausted), and the client made that single attempt per call
// (MaxRetries -1; for a cluster client MaxRedirects -1 too). A bare
// context error proves nothing: go-redis v9 dials in the background and
// retries a refused dial (DialerRetries, 5 by default, 100ms apart), and a
// call whose deadline ends first reports only its context error, so set
// DialerRetries to 1 if a dead Redis should fail fast. The cleanup also
// stops at once when its delete fails with a dial error: Redis refuses
// connections, and a key it may hold expires within the TTL.
//
// With Options.HighWater set, the first Acquire of each resource by the
// Client asks HighWater for the durable high-water mark and raises the
// counter to it with Advance (one more round trip), and a missing counter
// key costs one more round trip: Acquire asks HighWater again and mints
// above the mark (see Options.HighWater).
//
// A Client remembers, per resource, the highest token it minted or
// raised the counter to (Advance), as the etcd lease does. When Redis
// mints a token at or below it (the counter was lost or rewound: a restart
// without persistence, a failover to a replica that never saw it), the
// token may belong to a live lease of this process, or have been handed
// out before: Acquire gives that acquisition back at once (no lease is
// made of it: no OnAcquired, EventAcquired or EventReleased), reports the
// regression (EventCounterRegressed with Token the token minted again,
// From the same token, To the remembered one, and an error log record,
// also when the counter has meanwhile caught up), raises the counter to
// the remembered token with Advance, and acquires once more, so one
// Client never hands out a token twice. Tokens minted by other processes
// are covered by Options.HighWater and Lease.Observe.
//
// May return [ErrNotAcquired] (another owner holds the lease; definitive),
// [ErrAcquireTooSlow] (less than MinValidity of local validity was left when
// the reply arrived; the lease was released), [ErrInvalidResource],
// [ErrConfig] (invalid options, a TTL below the minimum the options allow,
// a Redis reply such as CROSSSLOT or WRONGTYPE, which is never reported
// as ErrNotAcquired, or a fence counter set to a negative value by hand:
// a minted token is always at least 1, and nothing is written then; raise
// the counter with Advance; or a [*ReplicaError]: the server is a
// writable replica, and the acquisition was given back),
// [ErrNotReplicated], [ErrRedisUnavailable] (a READONLY, LOADING,
// MASTERDOWN, TRYAGAIN or CLUSTERDOWN reply to every attempt: a failover
// or restart in progress; transient, never ErrConfig), ctx's error with the last attempt's error (both
// match errors.Is) when ctx ended first, or else the last attempt's error:
// a Redis error, or a [*TimeoutError] when the attempt was cut off by
// CallTimeout or a go-redis timeout.
func (c *Client) Acquire(ctx context.Context, resource string, ttl time.Duration) (*Lease, error) {
	defer c.sync() // its events and records, also of a failure, before it returns
	l, again, err := c.acquire(ctx, resource, ttl)
	if again == nil {
		return l, err
	}
	// Redis minted a token this Client already minted (or raised the
	// counter past): acquire gave it back and reported the regression.
	// Raise the counter above every token this Client saw and take the
	// lease once more.
	if _, _, aerr := c.advance(ctx, resource, again.mark, notReported); aerr != nil {
		return nil, &opError{op: acquireOp(resource), err: fmt.Errorf("fence counter went back (minted %d, this Client had minted %d); raising it: %w", again.minted, again.mark, aerr)}
	}
	// Counters may have gone back for other resources too: each asks
	// for its high-water mark again (as on etcd).
	c.highWater.Clear()
	l, again, err = c.acquire(ctx, resource, ttl)
	if again != nil {
		return nil, &opError{op: acquireOp(resource), err: fmt.Errorf("%w: fence counter went back again while it was being raised (minted %d, this Client had minted %d)", ErrNotAcquired, again.minted, again.mark)}
	}
	return l, err
}

// mintedAgain is a token Redis minted at or below mark, the highest token
// the Client minted or raised the counter to for the resource.
type mintedAgain struct{ minted, mark fence.Token }

// acquire is one Acquire without its second try: when Redis mints a
// token at or below the Client's mark for resource, it gives the
// acquisition back, reports the regression and returns it in again (with
// a nil lease and error), for Acquire to raise the counter and try once
// more.
func (c *Client) acquire(ctx context.Context, resource string, ttl time.Duration) (_ *Lease, again *mintedAgain, _ error) {
	if err := resourceError("acquire", resource); err != nil {
		return nil, nil, err
	}
	if ttl < 0 {
		return nil, nil, &opError{op: acquireOp(resource), err: fmt.Errorf("%w: ttl %v is negative (0 means Options.TTL)", ErrConfig, dur(ttl))}
	}
	te, err := c.timingFor(ttl)
	if err != nil {
		return nil, nil, &opError{op: acquireOp(resource), err: err}
	}
	tm := te.tm
	highWater := c.opts.highWater()
	askMissing := highWater != nil // ask for a high-water mark if the counter is missing
	var floor fence.Token
	if highWater != nil {
		if _, applied := c.highWater.Load(resource); !applied {
			// The first Acquire of resource by this Client: the counter
			// may exist and still be behind the mark (an RDB restore, an
			// append-only file synced every second, a failover), which the
			// missing-counter question below cannot see. Raise it above
			// the mark with Advance (one more round trip, this once), as
			// the etcd lease raises its base (trial t26h F2).
			hw, err := c.applyHighWater(ctx, resource, highWater)
			if err != nil {
				return nil, nil, err
			}
			floor, askMissing = hw, false // a counter missing now is seeded from the mark
		}
	}
	l, keys := c.prepare(resource, &te.tm)
	owner, lockKey := l.owner, l.lockKey
	hooks := c.opts.testHooks()
	// The acquire command of a first attempt without a high-water mark
	// (acquire.lua's hot path): "evalsha", the SHA1, 3, the keys (lock,
	// counter, minted), then owner and TTL in ms; the script finds an
	// abandoned owner in the :minted record's abandon list, which its
	// write returns anyway. Retries and the high-water question send the
	// long form (long): 4 keys (this owner's abandon mark too), then
	// owner, TTL, floor, askMissing, retry; the last three change between
	// attempts.
	var cmd []any
	mark := keys[3] // boxed only if sent (see long, Lease.mark)
	long := func() []any {
		lc := make([]any, longAcquireLen)
		lc[0], lc[1], lc[2] = "evalsha", acquireSHA, 4
		copy(lc[3:6], cmd[3:6])
		lc[6], lc[7], lc[8] = mark, l.valueArg, l.ttlArg
		lc[9], lc[10], lc[11] = int64(0), flagArg(askMissing), argZero
		return lc
	}
	// The first attempt's command, its call context and the counter and
	// :minted keys as arguments share one allocation; the lock key goes
	// out as a pointer to l.lockKey (see keyStr): no key is boxed.
	first := new(struct {
		args          [8]any
		dc            deadlineCtx
		counter, mint keyStr
	})
	first.counter, first.mint = keyStr(keys[1]), keyStr(keys[2])
	cmd = first.args[:]
	cmd[0], cmd[1], cmd[2] = "evalsha", acquireSHA, 3
	// The owner goes out as l.ownerArg, which counts the times go-redis
	// writes it (see sentArg): an attempt written twice may land twice.
	cmd[3], cmd[4], cmd[5], cmd[6], cmd[7] = l.keyArg, &first.counter, &first.mint, &l.ownerArg, te.ttlArg
	l.valueArg, l.ttlArg = cmd[6], cmd[7]
	if highWater != nil {
		cmd = long()
		cmd[9] = int64(floor)
	}

	var (
		lastErr error   // the last attempt's error, as reported
		unsure  bool    // a finished attempt may have landed without us learning its outcome
		pending []*call // attempts abandoned at their deadline, still running
	)
	attempts := 1 + c.opts.acquireRetries()
	sent := 0 // attempts made
	noSleep := false
	for i := 0; i < attempts; i++ {
		if i > 0 && !noSleep && !sleepOn(ctx, c.clk, time.Duration(i)*10*time.Millisecond) {
			break
		}
		noSleep = false
		if ctx.Err() != nil {
			break
		}
		send := c.clk.Now() // also the call's deadline's base: one clock read
		var dc *deadlineCtx
		if i == 0 {
			dc = &first.dc
		}
		callCtx, cs, inline := c.callContextIn(dc, ctx, send, tm.callTimeout)
		if i > 0 {
			// An abandoned attempt may still be writing cmd out: the
			// next one gets its own copy.
			if len(cmd) < longAcquireLen {
				cmd = long()
			} else {
				cmd = slices.Clone(cmd)
			}
			cmd[9], cmd[11] = int64(floor), argOne // retry: an earlier attempt may have landed
		}
		writes := l.ownerArg.writes.Load()
		n, abandoned, err := c.acquireCall(callCtx, inline, tm, cmd, send)
		if l.ownerArg.writes.Load()-writes > 1 {
			// go-redis wrote this attempt more than once (a retry after a
			// connection failed): an earlier write may still arrive.
			unsure = true
		}
		c.stats.acquires.Add(1) // every attempt, also one that could not connect
		sent++
		if err != nil && failsClosed(err) {
			// The lease was taken on the primary only, or on a writable
			// replica: fail closed.
			cs.stop()
			c.cleanup(ctx, resource, lockKey, owner, tm, true, pending)
			return nil, nil, &opError{op: acquireOp(resource), err: err}
		}
		if abandoned != nil {
			pending = append(pending, abandoned)
		}
		if err == nil && n == -1 && askMissing {
			cs.stop()
			// The counter key is missing: first use, or Redis lost it.
			hw, herr := highWater(ctx, resource)
			if herr != nil {
				c.cleanup(ctx, resource, lockKey, owner, tm, unsure, pending)
				return nil, nil, &opError{op: acquireOp(resource), err: fmt.Errorf("%w: high-water mark: %w", ErrConfig, herr)}
			}
			floor, askMissing = max(hw, 0), false
			cmd = slices.Clone(cmd)
			cmd[9], cmd[10] = int64(floor), argZero
			if floor > 0 {
				c.regressed(ctx, resource, 0, floor, 0, raisedByHighWater)
			}
			attempts++ // this round trip was not a failure
			noSleep = true
			continue
		}
		if err == nil && n == -3 {
			// The counter holds a negative value: minting from it would
			// give a token below 1, which generated code refuses
			// (fence.ErrInvalidToken). The script wrote nothing.
			cs.stop()
			c.cleanup(ctx, resource, lockKey, owner, tm, unsure, pending)
			_, counter := c.Keys(resource)
			return nil, nil, &opError{op: acquireOp(resource), err: fmt.Errorf("%w: fence counter %s holds a negative value, and a fencing token is at least 1: raise it with Advance to the highest token the fenced rows store", ErrConfig, counter)}
		}
		if err == nil && n < 0 {
			err = fmt.Errorf("unexpected acquire reply %d", n)
		}
		if err != nil {
			if abandoned == nil && c.mayHaveLanded(0, err) {
				unsure = true
			}
			if isConfigError(err) {
				cs.stop()
				c.cleanup(ctx, resource, lockKey, owner, tm, unsure, pending) // after earlier attempts
				return nil, nil, &opError{op: acquireOp(resource), err: configError(err)}
			}
			switch {
			case isOOM(err):
				err = fmt.Errorf("%w: %w", ErrRedisOutOfMemory, err)
			case isMisconf(err):
				err = fmt.Errorf("%w: %w", ErrRedisCannotPersist, err)
			case isUnavailable(err):
				err = fmt.Errorf("%w: %w", ErrRedisUnavailable, err)
			}
			if e := closedCause(callError(ctx, callCtx, "acquire", tm.callTimeout, err)); lastErr == nil || !cutOffByCtx(ctx, e) {
				// An attempt cut off by ctx itself says nothing new: the
				// error of the one before it (a timeout, a refused
				// connection) is what the caller is told.
				lastErr = e
			}
			cs.stop()
			if !retryable(err) {
				break
			}
			if c.logs(ctx, slog.LevelDebug) {
				// With the dial's cause: a refused connection reads as
				// refused, not as a bare timeout.
				c.log(ctx, slog.LevelDebug, "lease acquire attempt failed", resource, 0, "attempt", i+1, "err", c.withDialCause(lastErr))
			}
			continue
		}
		cs.stop()
		if n == 0 {
			return nil, nil, &opError{op: acquireOp(resource), err: ErrNotAcquired}
		}
		token := fence.Token(n)
		if hooks.afterAcquireReply != nil {
			hooks.afterAcquireReply()
		}
		if left := tm.ttl - tm.margin - since(c.clk, send); left < tm.minValidity {
			c.cleanup(ctx, resource, lockKey, owner, tm, true, pending)
			return nil, nil, &opError{op: acquireOp(resource), err: fmt.Errorf("%w: %v of validity left, below the floor of %v (TTL %v, safety margin %v)",
				ErrAcquireTooSlow, dur(max(left, 0)), dur(tm.minValidity), dur(tm.ttl), dur(tm.margin))}
		}
		if err := ctx.Err(); err != nil {
			c.cleanup(ctx, resource, lockKey, owner, tm, true, pending)
			return nil, nil, &opError{op: acquireOp(resource), err: err}
		}
		if unsure || len(pending) > 0 {
			// An attempt of this Acquire may still be on its way (cut
			// off at its deadline): Release sets this owner's mark, as
			// the cleanup of a failed Acquire does, so that the late
			// attempt writes nothing after the release.
			l.mark = &markArgs{key: mark, mint: keys[2], life: millis(abandonLife(tm.ttl))}
		}
		// The mark is raised to token at once when it is above it (the
		// common case: one map lookup); else it is left as it was.
		if prev, raised := c.tokens.Observe(resource, token); !raised {
			// Redis minted a token this Client already minted (or raised
			// the counter past) for resource: the counter went back, and
			// a lease of this process may hold the token. The detection
			// is the regression, whatever Advance finds later (a mint
			// of exactly the remembered token has raised the counter back
			// to it). The acquisition is given back as a failed one is,
			// and never reported as acquired.
			c.cleanup(ctx, resource, lockKey, owner, tm, true, pending)
			c.regressed(ctx, resource, token, prev, token, notReported)
			return nil, &mintedAgain{minted: token, mark: prev}, nil
		}
		c.start(l, ctx, token, send)
		if c.logs(ctx, slog.LevelDebug) {
			c.log(ctx, slog.LevelDebug, "lease acquired", resource, token, "ttl", tm.ttl)
		}
		c.emit(ctx, Event{Kind: EventAcquired, Resource: resource, Token: token})
		if f := c.opts.observer().OnAcquired; f != nil {
			c.notes.Post(func() { f(resource, token) }, notify.About{Hook: "Observer.OnAcquired", Event: string(EventAcquired), Resource: resource, Token: int64(token)})
		}
		return l, nil, nil
	}
	ended := ctx.Err() // before the cleanup, which may outlast ctx
	c.cleanup(ctx, resource, lockKey, owner, tm, unsure, pending)
	if ended != nil {
		if lastErr != nil && cutOffByCtx(ctx, lastErr) {
			lastErr = nil // the attempt was cut off by ctx itself
		}
		if lastErr == nil && sent > 0 {
			lastErr = c.dialFailure() // cut off while go-redis was dialing?
		}
		return nil, nil, &opError{op: acquireOp(resource), err: ended, label: "last attempt", detail: c.withDialCause(lastErr)}
	}
	return nil, nil, &opError{op: acquireOp(resource), err: c.withDialCause(lastErr)}
}

// applyHighWater asks hw for the durable high-water mark of resource and
// raises its counter to it with Advance (one script: never lowered,
// compared and set atomically; a counter found below it is reported as a
// regression), then records resource as applied. It returns the mark, or
// an error: hw's wrapped in ErrConfig, or Advance's.
func (c *Client) applyHighWater(ctx context.Context, resource string, hw func(context.Context, string) (fence.Token, error)) (fence.Token, error) {
	mark, err := hw(ctx, resource)
	if err != nil {
		return 0, &opError{op: acquireOp(resource), err: fmt.Errorf("%w: high-water mark: %w", ErrConfig, err)}
	}
	mark = max(mark, 0)
	if _, _, err := c.advance(ctx, resource, mark, raisedByHighWater); err != nil {
		return 0, &opError{op: acquireOp(resource), err: fmt.Errorf("raising the fence counter to the high-water mark %d: %w", mark, trimmed{err})}
	}
	c.highWater.Store(resource, struct{}{})
	return mark, nil
}

// failsClosed reports whether err, an acquire attempt's, says that a
// token was minted where it is not safe to hand out: on a primary whose
// replicas did not acknowledge it (ErrNotReplicated), or on a writable
// replica (*ReplicaError).
func failsClosed(err error) bool {
	var re *ReplicaError
	return errors.Is(err, ErrNotReplicated) || errors.As(err, &re)
}

// cutOffByCtx reports whether err is ctx's own end.
func cutOffByCtx(ctx context.Context, err error) bool {
	ended := ctx.Err()
	return ended != nil && errors.Is(err, ended)
}

func acquireOp(resource string) string { return fmt.Sprintf("acquire %q", resource) }

// Script arguments boxed once.
var argZero, argOne, argEnded any = "0", "1", "ended"

// longAcquireLen is the length of the long form of the acquire command
// (retries and the high-water question): "evalsha", the SHA1, 4, the lock
// key, the counter, :minted, the abandon mark, then owner, TTL, floor,
// askMissing and retry.
const longAcquireLen = 12

// sentArg is a command argument, the owner value, that counts the times
// go-redis writes it to a connection: go-redis calls MarshalBinary once
// per write of the command, and writes a command again when a connection
// failed before its reply (MaxRetries) or on a cluster redirect. A count
// above one after a call means that an earlier write of the same call may
// have run, or may still arrive: Acquire then has Release set its abandon
// mark, and Release tells its own earlier run from a lost lease by it (see
// Lease.Release). String gives the owner, so that go-redis's Cmd.String
// and tracing hooks print it as they print a string argument.
type sentArg struct {
	s      string
	writes atomic.Int32
}

// MarshalBinary returns the owner's bytes (read only by go-redis's
// writer, never changed) and counts the write.
func (a *sentArg) MarshalBinary() ([]byte, error) {
	a.writes.Add(1)
	return unsafe.Slice(unsafe.StringData(a.s), len(a.s)), nil
}

func (a *sentArg) String() string { return a.s }

// keyStr is a key as a command argument that costs no allocation: a
// pointer to it (to a string field of a Lease, or of an acquire's command)
// goes into the command's []any as it is, where a string would be boxed.
// go-redis writes it with MarshalBinary, and prints it (Cmd.String, tracing
// hooks) and finds a Cluster slot from it with String, as it would the
// string.
type keyStr string

// MarshalBinary returns the key's bytes (read only by go-redis's writer,
// never changed).
func (k *keyStr) MarshalBinary() ([]byte, error) {
	return unsafe.Slice(unsafe.StringData(string(*k)), len(*k)), nil
}

func (k *keyStr) String() string { return string(*k) }

// argString returns a key argument of a prebuilt command as a string: a
// string, or a *keyStr.
func argString(a any) string {
	if k, ok := a.(*keyStr); ok {
		return string(*k)
	}
	return a.(string)
}

// unsent takes back the count of a write that the server answered
// NOSCRIPT (it ran nothing) from every sentArg among args, before the
// command is sent again.
func unsent(args []any) {
	for _, a := range args {
		if s, ok := a.(*sentArg); ok {
			s.writes.Add(-1)
		}
	}
}

// flagArg is a script's "1"/"0" argument for b.
func flagArg(b bool) any {
	if b {
		return argOne
	}
	return argZero
}

// splitCmd returns the keys and the arguments of a prebuilt EVALSHA
// command ("evalsha", the SHA1, the number of keys as an int, the keys as
// strings, the arguments).
func splitCmd(cmd []any) (keys []string, args []any) {
	keys = make([]string, cmd[2].(int))
	for i := range keys {
		keys[i] = argString(cmd[3+i])
	}
	return keys, cmd[3+len(keys):]
}

// doer is the Do method of go-redis clients.
type doer interface {
	Do(ctx context.Context, args ...any) *redis.Cmd
}

// timingEntry is a TTL's derived timing, with the TTL in milliseconds as a
// command argument (boxed once).
type timingEntry struct {
	ttl    time.Duration // as passed to Acquire (0: Options.TTL)
	tm     timing
	ttlArg any
}

// timingFor returns the timing of ttl (see timing), from a one-entry
// cache: Options cannot change after New, so a TTL's timing never does.
func (c *Client) timingFor(ttl time.Duration) (*timingEntry, error) {
	if e := c.timings.Load(); e != nil && e.ttl == ttl {
		return e, nil
	}
	tm, err := c.timing(ttl)
	if err != nil {
		return nil, err
	}
	e := &timingEntry{ttl: ttl, tm: tm, ttlArg: millis(tm.ttl)}
	c.timings.Store(e)
	return e, nil
}

// keySuffixesLen is the length of the ends of a lease's keys together, in
// the string prepare builds: those of an acquire command in its order,
// the abandon mark last, which the owner follows.
const keySuffixesLen = len(lockSuffix) + len(counterSuffix) + len(mintSuffix) + len(abandonSuffix)

// prepare returns the Lease an Acquire of resource will return if it
// succeeds, with a fresh owner value, and the four keys of its acquire
// command: the lock key, the counter, the :minted record and the abandon
// mark. Every key and the owner are slices of one string (one allocation,
// and the bytes a renewal writes out sit together).
func (c *Client) prepare(resource string, tm *timing) (*Lease, [4]string) {
	prefix := c.opts.keyPrefix()
	baseLen := len(prefix) + len(":{") + len(resource) + len("}:")
	hx := ownerHex()
	var b strings.Builder
	b.Grow(4*baseLen + keySuffixesLen + len(hx))
	b.WriteString(prefix)
	b.WriteString(":{")
	b.WriteString(resource)
	b.WriteString("}:")
	// The base, "<prefix>:{<resource>}:", is written once and copied for
	// the other keys: the Builder only appends within the capacity grown
	// above, so the bytes base refers to stay as they are.
	base := b.String()
	b.WriteString(lockSuffix)
	b.WriteString(base)
	b.WriteString(counterSuffix)
	b.WriteString(base)
	b.WriteString(mintSuffix)
	b.WriteString(base)
	b.WriteString(abandonSuffix)
	b.Write(hx[:])
	text := b.String()
	lockEnd := baseLen + len(lockSuffix)
	counterEnd := lockEnd + baseLen + len(counterSuffix)
	mintEnd := counterEnd + baseLen + len(mintSuffix)
	ownerAt := len(text) - len(hx)
	lock := text[:lockEnd]
	// The abandon mark, from mintEnd, ends with the owner.
	l := &Lease{c: c, resource: resource, tm: tm, lockKey: lock, owner: text[ownerAt:]}
	l.ownerArg.s = l.owner
	l.keyArg = (*keyStr)(&l.lockKey)
	return l, [4]string{lock, text[lockEnd:counterEnd], text[counterEnd:mintEnd], text[mintEnd:]}
}

// isConfigError reports whether err is a Redis error reply that no retry can
// fix: the deployment or the keys are misconfigured.
func isConfigError(err error) bool {
	var rerr redis.Error
	if !errors.As(err, &rerr) {
		return false
	}
	msg := rerr.Error()
	if isOOM(err) || isMisconf(err) || isUnavailable(err) {
		return false // its script reference says user_script, yet it clears
	}
	for _, p := range []string{"CROSSSLOT", "WRONGTYPE", "NOPERM", "NOAUTH", "ERR unknown command", "ERR unknown subcommand"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	for _, sub := range []string{"non local key", "undeclared key", "Error running script", "user_script", "cluster support disabled"} {
		if strings.Contains(msg, sub) {
			return true
		}
	}
	return false
}

// isOOM reports whether err is Redis refusing a write at maxmemory under
// noeviction (the policy the lease requires): transient, not a
// configuration error, since it clears when keys expire or are deleted.
// Redis refuses a script's first write only, so the script wrote nothing.
func isOOM(err error) bool {
	var rerr redis.Error
	return errors.As(err, &rerr) && strings.HasPrefix(rerr.Error(), "OOM ")
}

// isMisconf reports whether err is Redis refusing writes because it cannot
// persist (a MISCONF reply: an RDB save failed, e.g. on a full disk, under
// stop-writes-on-bgsave-error yes): transient, like an OOM reply, since it
// clears once a save succeeds. Redis refuses a script's first write, so
// the script wrote nothing.
func isMisconf(err error) bool {
	var rerr redis.Error
	return errors.As(err, &rerr) && strings.HasPrefix(rerr.Error(), "MISCONF ")
}

// isUnavailable reports whether err is a reply of a Redis that cannot take
// writes for now, the replies go-redis v9 itself retries (its shouldRetry):
// READONLY (a replica, such as a primary demoted by a Sentinel failover
// while the client still talks to it), LOADING (loading its data set after
// a restart), MASTERDOWN (a replica that lost its primary, under
// replica-serve-stale-data no), TRYAGAIN and CLUSTERDOWN (a cluster moving
// slots or without a quorum). Redis 7 runs the lease's scripts unflagged,
// so a replica refuses the script's first write (the reply then names
// user_script): nothing was written, and a later attempt can succeed once
// the failover or restart is over.
func isUnavailable(err error) bool {
	return redis.IsReadOnlyError(err) || redis.IsLoadingError(err) || redis.IsMasterDownError(err) ||
		redis.IsTryAgainError(err) || redis.IsClusterDownError(err)
}

// ErrRedisUnavailable is wrapped by the error of an Acquire whose attempts
// Redis refused because it cannot take writes for now (a READONLY,
// LOADING, MASTERDOWN, TRYAGAIN or CLUSTERDOWN reply: a failover, a
// restart loading its data set, a cluster moving slots): nothing was
// written; Acquire resends such an attempt up to Options.AcquireRetries
// times, and AcquireWait and DoWait keep retrying it with backoff until
// their context ends. It is not [ErrConfig]: a client that stays pointed at
// a replica is reported by [Client.Check].
var ErrRedisUnavailable = errors.New("lease: Redis cannot take writes now (a failover or restart in progress; retry)")

// ErrRedisCannotPersist is wrapped by the error of an Acquire that Redis
// refused because it cannot persist to disk (a MISCONF reply: the last RDB
// save failed, e.g. on a full disk, and stop-writes-on-bgsave-error is
// yes): nothing was written, and a later attempt succeeds once a save
// does, so AcquireWait keeps retrying it with backoff, as it retries
// ErrRedisOutOfMemory.
var ErrRedisCannotPersist = errors.New("lease: Redis refuses writes because it cannot persist to disk (MISCONF: the last RDB save failed; retry once a save succeeds)")

// ErrRedisOutOfMemory is wrapped by the error of an Acquire that Redis
// refused at maxmemory (an OOM reply under the noeviction policy): nothing
// was written, and a later attempt succeeds once memory is freed, so
// AcquireWait keeps retrying it with backoff.
var ErrRedisOutOfMemory = errors.New("lease: Redis is out of memory (maxmemory reached under noeviction; retry once keys expire or are deleted)")

// retryable reports whether an acquire attempt that failed with err may be
// resent with the same owner value: any transport error or timeout (the
// outcome is unknown, and a resend is idempotent), and the Redis error
// replies that mean the script did not run.
func retryable(err error) bool {
	var rerr redis.Error
	switch {
	case errors.Is(err, redis.ErrClosed), errors.Is(err, context.Canceled):
		return false
	case errors.As(err, &rerr):
		return redis.IsLoadingError(err) || redis.IsReadOnlyError(err) || redis.IsTryAgainError(err) ||
			redis.IsClusterDownError(err) || redis.IsMasterDownError(err) || isRedirect(err)
	}
	return true
}

// mayHaveLanded reports whether a finished acquire call that returned n and
// err may have left the lock key set for its owner: a success (n > 0) has,
// a Redis reply (n ≤ 0 or a Redis error) tells that it has not, and any
// other error is unknown unless it proves the request never reached Redis
// (see neverSent).
func (c *Client) mayHaveLanded(n int64, err error) bool {
	var rerr redis.Error
	switch {
	case err == nil:
		return n > 0
	case errors.As(err, &rerr):
		return false
	}
	return !c.neverSent(err)
}

// neverSent reports whether err, the error a finished script call returned,
// proves that the script never reached Redis.
//
// go-redis (v9) returns a *net.OpError with Op "dial" when it cannot
// connect (connection refused, a dial timeout, or, once PoolSize dials in a
// row have failed, the last dial error again without dialing), and
// ErrPoolTimeout or ErrPoolExhausted when it gets no connection from its
// pool: each before the command is written. That proves the call sent
// nothing only when go-redis made no other attempt within the call, which
// c.oneTry says (MaxRetries -1; with retries an earlier attempt may have
// been written, its reply lost, before the final dial failed). A client
// hook that retries is beyond what New can see. Nothing else is proof: in
// particular not a bare context error, which go-redis returns both while
// waiting for a connection and from its back-off after a written attempt,
// and which run returns for a call it abandoned.
func (c *Client) neverSent(err error) bool {
	if !c.oneTry {
		return false
	}
	return isDialError(err) || errors.Is(err, redis.ErrPoolTimeout) || errors.Is(err, redis.ErrPoolExhausted)
}

// isDialError reports whether err is go-redis's failure to connect.
func isDialError(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

// probeTimeout bounds the dial of withDialCause: a refused connection
// answers at once, and a Redis that does not answer a dial within it
// leaves the error as it was.
const probeTimeout = 100 * time.Millisecond

// probeDial connects once as the go-redis client o belongs to would, and
// returns the dial's error or nil.
func probeDial(o *redis.Options) error {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	conn, err := o.Dialer(ctx, o.Network, o.Addr)
	if err != nil {
		if !isDialError(err) {
			return nil // not a failure to connect (nor a proof of one)
		}
		return err
	}
	_ = conn.Close()
	return nil
}

// dialFailure returns the error of one probe dial (see probeDial) if the
// Client's Redis refuses connections, is unreachable, or does not accept
// within probeTimeout, else nil.
func (c *Client) dialFailure() error {
	if c.dial == nil {
		return nil
	}
	return c.dial()
}

// withDialCause returns err, adding the reason go-redis could not connect
// if that is why the call failed: when err holds a [*TimeoutError] with no
// cause of its own (the call's deadline passed while go-redis was still
// dialing, or retrying a refused dial in the background: DialerRetries),
// it dials Redis once with the go-redis client's own dialer (only on this
// failure path), and a dial that fails becomes the TimeoutError's cause:
// "Redis acquire call: connection refused until its deadline after 167ms:
// dial tcp 127.0.0.1:6390: connect: connection refused", matching
// syscall.ECONNREFUSED
// (errors.Is). A Redis that accepts connections leaves err as it was.
func (c *Client) withDialCause(err error) error {
	return addDialCause(err, c.dial)
}

// addDialCause is withDialCause with dial as the probe (nil: none).
func addDialCause(err error, dial func() error) error {
	var te *TimeoutError
	if dial == nil || !errors.As(err, &te) || isDialError(te.Err) {
		return err
	}
	if te.Err != nil && !errors.Is(te.Err, context.DeadlineExceeded) && !errors.Is(te.Err, context.Canceled) {
		return err
	}
	if derr := dial(); derr != nil {
		te.Err = derr
	}
	return err
}

// callError is the error to report for err, returned by a Redis call made
// on callCtx, a context derived from ctx by
// context.WithTimeoutCause(ctx, timeout, ErrRedisTimeout), so that an error
// that only says that a deadline passed does not claim the caller's when
// it was the call's own. If the caller's ctx has ended (or its deadline has
// passed), err is returned as it is, and the operation adds ctx's error.
// Otherwise a timeout (an error matching context.DeadlineExceeded, or a
// net.Error whose Timeout is true), and any network error once callCtx's
// own deadline has passed, becomes a [*TimeoutError] with err as its cause;
// its Timeout is the call's bound if that expired, else 0 (a go-redis
// timeout). Redis replies and other errors are returned as they are.
func callError(ctx, callCtx context.Context, op string, timeout time.Duration, err error) error {
	if err == nil || ctxEnded(ctx) != nil {
		return err
	}
	ours := context.Cause(callCtx) == ErrRedisTimeout || deadlinePassed(callCtx)
	var ne net.Error
	isNet := errors.As(err, &ne)
	if !errors.Is(err, context.DeadlineExceeded) && !(isNet && (ne.Timeout() || ours)) {
		return err
	}
	te := &TimeoutError{Op: op, Err: err}
	if ours {
		te.Timeout = timeout
	}
	if err == context.DeadlineExceeded || err == ErrRedisTimeout {
		te.Err = nil // nothing but the expired deadline
	}
	return te
}

// ctxEnded returns ctx's error, or context.DeadlineExceeded if ctx's
// deadline has passed but its timer has not fired yet (a socket deadline
// taken from ctx can report first).
func ctxEnded(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if deadlinePassed(ctx) {
		return context.DeadlineExceeded
	}
	return nil
}

func deadlinePassed(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// opFailed is the error of operation op whose Redis call, made on callCtx
// (derived from ctx, bounded by timeout), failed with err: ctx's error with
// err as detail if ctx has ended, else err (a *TimeoutError if the call
// timed out).
func opFailed(op string, ctx, callCtx context.Context, call string, timeout time.Duration, err error) error {
	err = closedCause(callError(ctx, callCtx, call, timeout, err))
	if ended := ctxEnded(ctx); ended != nil {
		if errors.Is(err, ended) {
			err = nil
		}
		return &opError{op: op, err: ended, label: "Redis", detail: err}
	}
	return &opError{op: op, err: err}
}

// cleanup makes sure that a failed Acquire leaves no lock key of owner
// behind, now or later. If held (an attempt may have landed) or an
// abandoned attempt in pending has not returned or may have landed, it
// runs the release script with the abandon mark (see release.lua): the
// mark makes any attempt of owner that reaches Redis later write nothing,
// and the compare-and-delete removes a key an earlier attempt set, in
// whichever order they arrive, so it need not wait for pending. The call
// runs on a fresh context (not ctx, which may have ended) bounded by the
// release timeout, retried after a transient failure while that bound
// allows. If it gets no answer (Redis is stalled or down), it goes on in
// the background with backoff until Redis answers (so a resource is free
// as soon as Redis is back, not a TTL later), the Client's Redis client is
// closed, or the abandon mark's lifetime has passed.
func (c *Client) cleanup(ctx context.Context, resource, lockKey, owner string, tm timing, held bool, pending []*call) {
	for _, p := range pending {
		select {
		case <-p.done:
			held = held || c.mayHaveLanded(p.n, p.err)
		default:
			held = true // still on its way
		}
	}
	if !held {
		if len(pending) > 0 {
			c.log(ctx, slog.LevelDebug, "lease acquire cleanup: no attempt reached Redis", resource, 0)
		}
		return
	}
	vals := context.WithoutCancel(ctx)
	start := time.Now()
	for attempt := 1; ; attempt++ {
		rctx, cancel := context.WithTimeout(vals, tm.releaseTimeout)
		deleted, err := c.abandon(rctx, lockKey, owner, tm.ttl)
		timedOut := err != nil && rctx.Err() != nil
		cancel()
		if c.logs(vals, slog.LevelDebug) {
			logErr := err
			if timedOut {
				logErr = c.withDialCause(&TimeoutError{Op: "cleanup", Timeout: tm.releaseTimeout})
			}
			args := []any{"lock_key", lockKey, "attempt", attempt, "deleted", deleted}
			if logErr != nil {
				args = append(args, "err", logErr)
			}
			c.log(vals, slog.LevelDebug, "lease acquire cleanup: deleting the lock key a failed acquire may have set", resource, 0, args...)
		}
		switch {
		case err == nil || isConfigError(err) || errors.Is(err, redis.ErrClosed):
			return
		case timedOut || isDialError(err) || time.Since(start) >= tm.releaseTimeout:
			go c.abandonLater(vals, resource, lockKey, owner, tm.ttl, start)
			return
		case !retryable(err):
			return
		}
		time.Sleep(time.Duration(attempt) * 10 * time.Millisecond)
	}
}

// abandonLater retries the cleanup of a failed Acquire in the background
// (see cleanup) with backoff from 50ms to 1s.
func (c *Client) abandonLater(vals context.Context, resource, lockKey, owner string, ttl time.Duration, start time.Time) {
	backoff := 50 * time.Millisecond
	for time.Since(start) < abandonLife(ttl) {
		time.Sleep(backoff)
		backoff = min(2*backoff, time.Second)
		rctx, cancel := context.WithTimeout(vals, max(c.opts.releaseTimeout(ttl), time.Second))
		deleted, err := c.abandon(rctx, lockKey, owner, ttl)
		cancel()
		// Redis refusing connections past the TTL: any key an attempt set
		// before has expired (PX is kept as an absolute time, also in the
		// append-only file), and a refused request never arrives later.
		refusedPastTTL := isDialError(err) && time.Since(start) > ttl
		if err == nil || isConfigError(err) || errors.Is(err, redis.ErrClosed) || refusedPastTTL || (!retryable(err) && !isDialError(err)) {
			args := []any{"lock_key", lockKey, "deleted", deleted}
			if err != nil { // never an err=<nil> attribute (issue 26, trial rt4 F7)
				args = append(args, "err", err)
			}
			c.log(vals, slog.LevelDebug, "lease acquire cleanup (background): deleting the lock key a failed acquire may have set", resource, 0, args...)
			return
		}
	}
}

// abandon runs the release script with owner's abandon mark.
func (c *Client) abandon(ctx context.Context, lockKey, owner string, ttl time.Duration) (deleted bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err // never sent, not counted
	}
	// ctx is derived from a context without cancellation (the cleanup's).
	n, _, err := c.run(ctx, c.ctxDeadlines, releaseScript, []string{lockKey, abandonKey(lockKey, owner), mintKey(lockKey)}, owner, millis(abandonLife(ttl)))
	c.countSent(&c.stats.releases, err)
	deleted, _, err = decodeRelease(n, err)
	return deleted, err
}

// undoRenewal deletes l's lock key (compare-and-delete, on a fresh context
// bounded by the release timeout) after a renewal that landed once l had
// already been lost: the renewal extended the key by a full TTL, and nobody
// holds it.
//
// A lease ended by Release is left alone: the renewal landed while the
// lease was held (its owner's value still in the key), and Release's own
// compare-and-delete, sent after it ended the lease, deletes the key and
// records the release. Deleting the key here first would make that
// Release find it missing and say ErrNotHeld for a lease nobody else held
// (issue 26). A Release that does not reach Redis leaves the key to expire
// within the TTL, as it would without the renewal.
func (c *Client) undoRenewal(l *Lease) {
	if l.endedByRelease() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.tm.releaseTimeout)
	defer cancel()
	deleted, _, err := c.release(ctx, c.ctxDeadlines, l, nil, nil)
	args := []any{"deleted", deleted}
	if err != nil {
		args = append(args, "err", err)
	}
	c.log(l.vals, slog.LevelDebug, "lease renewal landed after the lease ended; key deleted", l.resource, l.token, args...)
}

// release runs the compare-and-delete script for l; deleted reports
// whether the key held l's value, foreign (when not) whether it held
// another value rather than none. inline: see [Client.inline]. A nil
// owner is the heartbeat's undo of a renewal that landed after l ended,
// which is no release: it marks :minted ended (see release.lua), so that
// no Acquire retry takes the lease back. A Release passes owner, which
// counts the times go-redis writes the command (see sentArg), and buf,
// which holds the command of a lease without an abandon mark.
func (c *Client) release(ctx context.Context, inline bool, l *Lease, owner *sentArg, buf *[5]any) (deleted, foreign bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, false, err // never sent, not counted
	}
	var cmd []any
	switch {
	case owner == nil:
		cmd = []any{"evalsha", releaseSHA, 2, l.keyArg, mintKey(l.lockKey), l.valueArg, argEnded}
	case l.mark == nil:
		*buf = [5]any{"evalsha", releaseSHA, 1, l.keyArg, owner}
		cmd = buf[:]
	default:
		cmd = []any{"evalsha", releaseSHA, 3, l.keyArg, l.mark.key, l.mark.mint, owner, l.mark.life}
	}
	n, _, err := c.runCmd(ctx, inline, releaseScript, cmd)
	c.countSent(&c.stats.releases, err)
	return decodeRelease(n, err)
}

// decodeRelease decodes the release script's reply: 1 deleted, -1 another
// value (foreign), 0 missing.
func decodeRelease(n int64, err error) (deleted, foreign bool, _ error) {
	if err == nil && n == -1 {
		return false, true, nil
	}
	deleted, err = decodeBool("release", n, err)
	return deleted, false, err
}

// countSent counts a script call in counter unless its error err proves it
// was never sent (see neverSent): Stats counts what reached the wire.
func (c *Client) countSent(counter *atomic.Uint64, err error) {
	if err == nil || !c.neverSent(err) {
		counter.Add(1)
	}
}

// renew runs the compare-and-PEXPIRE script on lockKey for the lock key
// value value (the owner) and the TTL ttl in milliseconds (both
// command arguments); ok reports whether the key held that owner's value.
// ok false with a nil error is the definitive "not owner", foreign telling
// a key that held another value from a missing one. If ctx ends
// first, the call is abandoned on its way (see [Client.run]), and late (if
// not nil) gets its outcome once it returns.
func (c *Client) renew(ctx context.Context, inline bool, lockKey string, value, ttl any, late func(renewResult)) renewResult {
	n, abandoned, err := c.run(ctx, inline, renewScript, []string{lockKey}, value, ttl)
	c.countSent(&c.stats.renewals, err)
	if abandoned != nil && late != nil {
		go func() {
			<-abandoned.done
			late(decodeRenew(abandoned.n, abandoned.err))
		}()
	}
	return decodeRenew(n, err)
}

// renewWatched is the heartbeat's renewal of l alone: the renew script on
// a context of its own (see watchPipeline), watched under ctx, whose end
// abandons it; late (if not nil) gets the outcome of an abandoned call once
// it returns.
func (c *Client) renewWatched(ctx context.Context, l *Lease, late func(renewResult)) renewResult {
	keys, life := []string{l.lockKey}, l.tm.ttl
	n, abandoned, err := c.runFn(ctx, false, func(ctx context.Context) (int64, error) {
		ctx, cancel := detached(ctx, life)
		defer cancel()
		return c.evalScript(ctx, renewScript, keys, l.valueArg, l.ttlArg).Int64()
	})
	c.countSent(&c.stats.renewals, err)
	if abandoned != nil && late != nil {
		go func() {
			<-abandoned.done
			late(decodeRenew(abandoned.n, abandoned.err))
		}()
	}
	return decodeRenew(n, err)
}

// decodeRenew is the outcome of a renew script call that returned n
// (1 renewed, 0 key missing, -1 key held another value) and err.
func decodeRenew(n int64, err error) renewResult {
	if err == nil && n == -1 {
		return renewResult{foreign: true}
	}
	ok, err := decodeBool("renew", n, err)
	return renewResult{ok: ok, err: err}
}

// callContext returns the context for one Redis call under parent, bounded
// by timeout, what ends it (its stop), and whether the call is made inline (see
// [Client.inline]). An inline call's context is a [deadlineCtx] on the
// Client's [deadlineWatch] (no runtime timer per call); any other call's
// is context.WithTimeoutCause(parent, timeout, ErrRedisTimeout), whose Done
// the call is abandoned at.
func (c *Client) callContext(parent context.Context, timeout time.Duration) (context.Context, callStop, bool) {
	return c.callContextAt(parent, time.Time{}, timeout)
}

// callContextAt is callContext for a call sent at now, a time the caller
// has just read from c.clk (zero: none), which saves an inline call's
// deadline a clock read of its own when c.clk is the real clock.
func (c *Client) callContextAt(parent context.Context, now time.Time, timeout time.Duration) (context.Context, callStop, bool) {
	return c.callContextIn(nil, parent, now, timeout)
}

// callContextIn is callContextAt with an inline call's context made in dc
// when dc is not nil (zero, and used for this one call only).
func (c *Client) callContextIn(dc *deadlineCtx, parent context.Context, now time.Time, timeout time.Duration) (context.Context, callStop, bool) {
	if c.inline(parent) {
		if _, real := c.clk.(realClock); !real || now.IsZero() {
			now = time.Now()
		}
		if dc == nil {
			dc = new(deadlineCtx)
		}
		c.deadlines.watch(dc, parent, now, timeout)
		return dc, callStop{dc: dc}, true
	}
	ctx, cancel := context.WithTimeoutCause(parent, timeout, ErrRedisTimeout)
	return ctx, callStop{cancel: cancel}, false
}

// callStop ends a call context of callContext once its call has returned:
// an inline call's deadlineCtx (held as it is, as a method value dc.stop
// would cost an allocation per call) or another call's cancel function.
type callStop struct {
	dc     *deadlineCtx
	cancel context.CancelFunc
}

func (s callStop) stop() {
	if s.dc != nil {
		s.dc.stop()
		return
	}
	s.cancel()
}

// inline reports whether a call bounded by a deadline derived from parent
// can be made in the calling goroutine: rdb enforces context deadlines on
// its sockets (ContextTimeoutEnabled), and parent cannot be cancelled
// (its Done is nil: context.Background, context.WithoutCancel). A
// cancellable parent gets the call in a goroutine of its own, abandoned
// when parent is cancelled (see [Client.run]): go-redis notices a
// context's deadline, not its cancellation, while it waits for a reply.
func (c *Client) inline(parent context.Context) bool {
	return c.ctxDeadlines && parent.Done() == nil
}

// call is a script call that run abandoned when its context ended: n and err
// are its outcome once done is closed.
type call struct {
	done chan struct{}
	n    int64
	err  error
}

// run sends script with Script.Run (EVALSHA, then EVAL after NOSCRIPT) and
// returns its integer reply, or ctx's error as soon as ctx ends; abandoned
// is then the call, which is still running, else nil.
//
// A *redis.Client or *redis.ClusterClient with ContextTimeoutEnabled
// enforces ctx's deadline on its sockets, so a call whose context can end
// only by its deadline is made directly (inline, see [Client.inline]).
// go-redis does not interrupt a socket read when a context is cancelled,
// so a call under a cancellable context runs as below on every client.
//
// go-redis applies a context's deadline to the socket only when the client
// was built with ContextTimeoutEnabled; otherwise a call to a Redis that
// accepts connections but never answers blocks for the client's
// ReadTimeout (or DialTimeout), longer than a short lease. So the call runs
// in its own goroutine and is abandoned when ctx ends: the lease's
// deadlines hold whatever the client's configuration. An abandoned
// goroutine ends when go-redis gives up (its own timeouts, or Close); an
// abandoned request may still land later, which is safe: every script
// touches only keys holding this lease's owner value, or creates a lock
// key that expires within the TTL.
func (c *Client) run(ctx context.Context, inline bool, s *redis.Script, keys []string, args ...any) (n int64, abandoned *call, err error) {
	return c.runFn(ctx, inline, func(ctx context.Context) (int64, error) { return c.evalScript(ctx, s, keys, args...).Int64() })
}

// runCmd is run for a prebuilt command cmd of script s (source src):
// "evalsha", s's SHA1, the number of keys (an int), the keys (strings),
// then the arguments. A go-redis client (c.do) gets cmd as it is, and
// "eval" with the source after NOSCRIPT (as Script.Run does); any other
// redis.Scripter gets Script.Run.
func (c *Client) runCmd(ctx context.Context, inline bool, s *redis.Script, cmd []any) (n int64, abandoned *call, err error) {
	if inline {
		n, err := c.evalCmd(ctx, s, cmd)
		return n, nil, err
	}
	return c.runFn(ctx, false, func(ctx context.Context) (int64, error) { return c.evalCmd(ctx, s, cmd) })
}

func (c *Client) evalCmd(ctx context.Context, s *redis.Script, cmd []any) (int64, error) {
	if c.do == nil {
		keys, args := splitCmd(cmd)
		return c.evalScript(ctx, s, keys, args...).Int64()
	}
	n, err := c.do.Do(ctx, cmd...).Int64()
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		unsent(cmd)
		n, err = c.resend(ctx, [][]any{cmd})[0].Int64()
	}
	return n, err
}

// runFn is run for any call fn that returns an integer.
func (c *Client) runFn(ctx context.Context, inline bool, fn func(context.Context) (int64, error)) (n int64, abandoned *call, err error) {
	if inline {
		// The client applies ctx's deadline to its sockets itself, and
		// nothing else can end ctx.
		n, err := fn(ctx)
		return n, nil, err
	}
	cl := &call{done: make(chan struct{})}
	go func() {
		defer close(cl.done)
		cl.n, cl.err = fn(ctx)
	}()
	select {
	case <-cl.done:
		return cl.n, nil, cl.err
	case <-ctx.Done():
		select {
		case <-cl.done: // a reply that raced the deadline wins
			return cl.n, nil, cl.err
		default:
			return 0, cl, ctx.Err()
		}
	}
}

// decodeBool decodes the 1/0 integer reply of the renew and release
// scripts. Only int64(1) means success and only int64(0) means a definitive
// "not owner"; redis.Nil, any other value and any error are errors (never
// "not owner"), so a transient failure is not mistaken for a loss and a
// loss never for a success.
func decodeBool(op string, n int64, err error) (bool, error) {
	switch {
	case errors.Is(err, redis.Nil):
		return false, fmt.Errorf("unexpected nil %s reply", op)
	case err != nil:
		return false, err
	case n == 1:
		return true, nil
	case n == 0:
		return false, nil
	}
	return false, fmt.Errorf("unexpected %s reply %d", op, n)
}

// logs reports whether a record at level would be written for ctx (so
// that a caller on a hot path builds its attributes only then).
func (c *Client) logs(ctx context.Context, level slog.Level) bool {
	lg := c.opts.logger()
	return lg != nil && lg.Enabled(ctx, level)
}

// log writes a record to Options.Logger with ctx, the caller's context (or
// for the heartbeat's records the values of the ctx given to Acquire), so
// that a handler can add its trace and request attributes.
func (c *Client) log(ctx context.Context, level slog.Level, msg, resource string, token fence.Token, args ...any) {
	lg := c.opts.logger()
	if lg == nil || !lg.Enabled(ctx, level) {
		return
	}
	switch {
	case resource != "" && token != 0:
		// Not about the client or the server (Check): about one lease.
		args = append([]any{"resource", resource, "token", int64(token)}, args...)
	case resource != "":
		// Before a token was minted (an acquire attempt, its cleanup):
		// no token=0 attribute.
		args = append([]any{"resource", resource}, args...)
	}
	c.record(ctx, lg, level, msg, args...)
}

// record queues a record for lg's handler, timed now, to be written in
// order with the Client's events (a handler that blocks holds up only
// them, see Observer).
func (c *Client) record(ctx context.Context, lg *slog.Logger, level slog.Level, msg string, args ...any) {
	if !lg.Enabled(ctx, level) {
		return
	}
	r := slog.NewRecord(time.Now(), level, msg, 0)
	r.Add(args...)
	h, vals := lg.Handler(), context.WithoutCancel(ctx)
	c.notes.Post(func() { _ = h.Handle(vals, r) }, notify.Record(msg, args))
}

// emit queues e for Observer.Event, if set.
func (c *Client) emit(ctx context.Context, e Event) {
	if f := c.opts.observer().Event; f != nil {
		vals := context.WithoutCancel(ctx)
		c.notes.Post(func() { f(vals, e) }, notify.About{Hook: "Observer.Event", Event: string(e.Kind), Resource: e.Resource, Token: int64(e.Token)})
	}
}

// sync waits, when the Client has callbacks, for those queued so far to
// run: at most notify.SlowAfter, not at all while one is already slow
// (see Observer).
func (c *Client) sync() {
	if c.observed {
		c.notes.Sync()
	}
}
