package lease

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// configGetter is the part of *redis.Client that Check uses to read the
// server's settings; forEachMaster is the part of *redis.ClusterClient.
type (
	configGetter interface {
		ConfigGet(ctx context.Context, parameter string) *redis.MapStringStringCmd
	}
	forEachMaster interface {
		ForEachMaster(ctx context.Context, fn func(ctx context.Context, client *redis.Client) error) error
	}
)

// Check is the start-up probe. Call it once after New (it is not run
// implicitly, so Acquire stays one round trip). It:
//
//   - checks the Options and the default TTL as Acquire would (an invalid
//     KeyPrefix or duration is [ErrConfig], before anything is sent);
//   - loads the acquire, renew, release and advance scripts (SCRIPT LOAD,
//     on every master of a cluster) and runs the release script once on a
//     probe key, which reports a Redis Cluster whose keys cannot share a
//     slot, a missing EVAL permission or a wrong key type as [ErrConfig],
//     and times that call, one round trip: when it took CallTimeout
//     (TTL/6 of Options.TTL) or longer, every acquire attempt would time
//     out, which is logged as a warning through Options.Logger (a slow
//     link, not a setting: not an error);
//   - reads INFO replication through a script (not on a Redis Cluster)
//     and reports as a [*ReplicaError] ([ErrConfig]) a server that is itself a replica (its
//     counter is not the primary's) and, under Options.UnsafeNoReplicas
//     with a client that cannot wait for replicas (the option is what let
//     New accept it), a server with connected replicas (the option's
//     statement is false, and a failover to one could mint a token again);
//     an INFO the server refuses leaves that statement unverified, which
//     is reported wrapped in [ErrUnsafeConfig];
//   - reads maxmemory-policy, appendonly, appendfsync and save with CONFIG
//     GET (on every master of a cluster) and reports, each in an error
//     wrapping [ErrUnsafeConfig] (returned whether or not Options.Logger is
//     set) and as a warning through Options.Logger (none without it: see
//     Options.Logger):
//     any allkeys-* policy, which can evict the fence counter so that
//     tokens start again from 1 (tokens regress; see [Client.Advance]);
//     any volatile-* policy, which can evict live lock keys (they carry a
//     TTL) so that leases end early — the counter has no TTL and is safe;
//     no persistence at all (appendonly no and save ""), which loses the
//     counter on restart; RDB snapshots alone (appendonly no), which lose
//     the INCRs since the last snapshot in a crash; and an append-only file
//     not synced on every write (appendfsync everysec or no), which can
//     lose the last INCRs when the machine crashes (Redis docs,
//     "Persistence"). Each of these can hand out a token again, and equal
//     tokens are both accepted by the non-strict guard.
//
// Only noeviction with appendonly yes and appendfsync always passes. When
// CONFIG GET cannot be read, because the server refuses it (CONFIG
// renamed away, an ACL user without +config, a managed service) or the
// client cannot send it (a plain redis.Scripter under
// Options.UnsafeNoReplicas), maxmemory-policy and appendonly are read
// from INFO memory and persistence instead (through a script, on every
// master of a cluster) and checked as above; appendfsync, which INFO does
// not show, is reported unverified, wrapped in [ErrUnsafeConfig] like the
// rest (and logged as a warning through Options.Logger when set), so
// Check never returns nil for such a server; an INFO refused too leaves
// the whole configuration reported unverified.
// Check returns nil, an error wrapping ErrConfig, errors wrapping
// ErrUnsafeConfig joined together, or a Redis or context error. With a
// *redis.Client (a FailoverClient included) it first dials Redis once
// with the client's own dialer: a refused connection or an unreachable
// host is returned at once, wrapping the dial's error
// (errors.Is(err, syscall.ECONNREFUSED)), not after go-redis's dial
// retries or ctx's deadline; when ctx ends while the probe waits and
// Redis then refuses connections, the error is ctx's with that dial
// error beside it. It returns
// as soon as ctx ends, with ctx's error, even when Redis has stopped
// answering (the probe goes on in the background until go-redis gives up
// on it); under a context that cannot be cancelled it is bounded only by
// the go-redis client's own timeouts, so give ctx a deadline.
func (c *Client) Check(ctx context.Context) error {
	defer c.sync() // its warnings are written before it returns
	if err := c.refused(); err != nil {
		// Nothing listens (or the host is unreachable): said at once,
		// not after go-redis's dial retries or ctx's whole deadline
		// (a README-only trial, t26h F4).
		return &opError{op: "check", err: err}
	}
	// go-redis notices a context's deadline (with ContextTimeoutEnabled),
	// not its cancellation, while it waits for a reply: under a
	// cancellable ctx the probe is abandoned when ctx ends, as a script
	// call is (runFn).
	_, abandoned, err := c.runFn(ctx, ctx.Done() == nil, func(ctx context.Context) (int64, error) { return 0, c.probe(ctx) })
	if abandoned != nil {
		err = opFailed("check", ctx, ctx, "check", 0, context.Cause(ctx))
		if derr := c.dialFailure(); derr != nil {
			// Redis stopped accepting connections meanwhile: ctx's end,
			// and why (as Acquire reports it).
			err = &opError{op: "check", err: context.Cause(ctx), label: "connecting", detail: derr}
		}
	}
	return err
}

// refused dials Redis once with the go-redis client's own dialer (a
// *redis.Client, a FailoverClient included; see probeDial) and returns the
// dial's error when the connection was refused or the host unreachable,
// nil when it connected, timed out (a slow link proves nothing) or the
// client has no dialer to try.
func (c *Client) refused() error {
	err := c.dialFailure()
	var ne net.Error
	if err == nil || errors.As(err, &ne) && ne.Timeout() {
		return nil
	}
	return fmt.Errorf("cannot connect to Redis: %w", err)
}

func (c *Client) probe(ctx context.Context) error {
	tm, err := c.timing(0)
	if err != nil {
		return &opError{op: "check", err: err}
	}
	if c.loader != nil {
		// In one pipeline, which also opens a connection of go-redis's
		// pipeline pool (the first Acquire reads INFO replication in
		// one), under ctx rather than under an acquire attempt's
		// CallTimeout: on a slow link the handshake takes round trips.
		pipe := c.loader.Pipeline()
		loadScripts(ctx, pipe)
		cmds, _ := pipe.Exec(ctx)
		for _, cmd := range cmds {
			if err := cmd.Err(); err != nil {
				return c.checkErr(ctx, "load script", err)
			}
		}
	} else {
		for _, s := range []*redis.Script{acquireScript, renewScript, renewManyScript, releaseScript, advanceScript} {
			if err := s.Load(ctx, c.rdb).Err(); err != nil {
				return c.checkErr(ctx, "load script", err)
			}
		}
	}
	lockKey, _ := c.Keys("fencegen-check")
	start := time.Now()
	if _, _, err := c.run(ctx, c.inline(ctx), releaseScript, []string{lockKey, mintKey(lockKey)}, newOwner(), "ended"); err != nil {
		return c.checkErr(ctx, "probe script", err)
	}
	if rtt := time.Since(start); rtt >= tm.callTimeout {
		// One round trip on the connection the SCRIPT LOADs opened.
		c.log(ctx, slog.LevelWarn, "lease check: a round trip to Redis took longer than CallTimeout: every acquire attempt of a lease of this TTL times out; see \"Slow links\" in docs/lease.md", "", 0,
			"round_trip", rtt, "call_timeout", tm.callTimeout, "ttl", tm.ttl)
	}

	replWarning, err := c.checkReplication(ctx)
	if err != nil {
		return err
	}

	var (
		mu       sync.Mutex // ForEachMaster calls get concurrently
		settings []map[string]string
	)
	get := func(ctx context.Context, cg configGetter) error {
		m := map[string]string{}
		for _, p := range []string{"maxmemory-policy", "appendonly", "appendfsync", "save"} {
			v, err := cg.ConfigGet(ctx, p).Result()
			if err != nil {
				return err
			}
			m[p] = v[p]
		}
		mu.Lock()
		settings = append(settings, m)
		mu.Unlock()
		return nil
	}
	switch r := c.rdb.(type) {
	case forEachMaster:
		err = r.ForEachMaster(ctx, func(ctx context.Context, cl *redis.Client) error { return get(ctx, cl) })
	case configGetter:
		err = get(ctx, r)
	default:
		// A plain redis.Scripter cannot send CONFIG GET, nor can a script
		// call CONFIG: what INFO shows is read through a script and what
		// it cannot show is reported unverified, never passed silently
		// (r26 N2c).
		return c.checkThroughInfo(ctx, replWarning, fmt.Sprintf("the client (%T) cannot send CONFIG GET", c.rdb))
	}
	if err != nil {
		if ctx.Err() != nil {
			return opFailed("check", ctx, ctx, "check", 0, err)
		}
		// A server that refuses CONFIG (renamed away, an ACL without
		// +config, a managed service): INFO shows most of what CONFIG GET
		// would, and what it cannot show is reported unverified, never
		// passed in silence (a README-only trial, F1: Check returned nil on
		// allkeys-lru without persistence).
		return c.checkThroughInfo(ctx, replWarning, fmt.Sprintf("CONFIG GET failed (%v)", err))
	}
	var problems []error
	if replWarning != nil {
		problems = append(problems, replWarning)
	}
	seen := map[string]bool{}
	for _, m := range settings {
		for _, p := range unsafeSettings(m) {
			if !seen[p] {
				seen[p] = true
				problems = append(problems, fmt.Errorf("%w: %s", errUnsafeRedis, p))
				c.log(ctx, slog.LevelWarn, "lease check: "+p, "", 0)
			}
		}
	}
	return errors.Join(problems...)
}

// unsafeSettings explains what in one server's settings can lose lease
// state.
func unsafeSettings(m map[string]string) []string {
	var out []string
	switch policy := m["maxmemory-policy"]; {
	case policy == "noeviction":
	case strings.HasPrefix(policy, "allkeys-"):
		out = append(out, fmt.Sprintf("maxmemory-policy %s can evict the fence counter, so tokens restart from 1; use noeviction", policy))
	case strings.HasPrefix(policy, "volatile-"):
		out = append(out, fmt.Sprintf("maxmemory-policy %s can evict live lock keys (they have a TTL), ending leases early; use noeviction", policy))
	default:
		out = append(out, fmt.Sprintf("maxmemory-policy %q is not noeviction", policy))
	}
	switch save := strings.TrimSpace(m["save"]); {
	case m["appendonly"] != "yes" && save == "":
		out = append(out, "persistence is off (appendonly no, save \"\"): a restart loses the fence counter and tokens restart from 1")
	case m["appendonly"] != "yes":
		out = append(out, fmt.Sprintf("only RDB snapshots persist (save %q, appendonly no): a crash loses the INCRs made since the last snapshot, so tokens already handed out are handed out again; use appendonly yes with appendfsync always", save))
	case m["appendfsync"] != "always":
		out = append(out, fmt.Sprintf("appendfsync %s: a crash of the machine (not only of Redis) can lose the last INCRs of the fence counter (about a second's worth with everysec), so tokens already handed out are handed out again; use appendfsync always", m["appendfsync"]))
	}
	return out
}

// infoSettingsScript reads INFO memory and persistence from inside a
// script, for a client that cannot send CONFIG GET or whose CONFIG GET
// the server refuses.
var infoSettingsScript = redis.NewScript(`return redis.call('INFO', 'memory') .. redis.call('INFO', 'persistence')`)

// checkThroughInfo is the settings part of Check for a client that cannot
// send CONFIG GET (a plain redis.Scripter) or whose CONFIG GET failed (why
// says which): INFO memory and persistence, read through a script (on
// every master of a cluster), show maxmemory_policy and aof_enabled,
// checked as CONFIG GET's values are; they do not show appendfsync or
// save, so an append-only file is reported unverified, and no append-only
// file is reported unsafe whatever save is (RDB snapshots alone lose INCRs
// too). Each problem wraps ErrUnsafeConfig (once for all masters that
// share it), joined with replWarning, and is logged as a warning.
func (c *Client) checkThroughInfo(ctx context.Context, replWarning error, why string) error {
	var (
		mu    sync.Mutex // ForEachMaster calls read concurrently
		infos []string
	)
	read := func(ctx context.Context, rdb redis.Scripter) error {
		info, err := infoSettingsScript.Run(ctx, rdb, nil).Text()
		if err != nil {
			return err
		}
		mu.Lock()
		infos = append(infos, info)
		mu.Unlock()
		return nil
	}
	var err error
	if r, ok := c.rdb.(forEachMaster); ok {
		err = r.ForEachMaster(ctx, func(ctx context.Context, cl *redis.Client) error { return read(ctx, cl) })
	} else {
		err = read(ctx, c.rdb)
	}
	var msgs []string
	switch {
	case err != nil && ctx.Err() != nil:
		return opFailed("check", ctx, ctx, "check", 0, err)
	case err != nil:
		msgs = []string{fmt.Sprintf("the eviction policy and persistence could not be verified: %s and INFO failed (%v); make sure maxmemory-policy is noeviction, appendonly yes and appendfsync always", why, err)}
	default:
		seen := map[string]bool{}
		for _, info := range infos {
			for _, m := range infoProblems(info, why) {
				if !seen[m] {
					seen[m] = true
					msgs = append(msgs, m)
				}
			}
		}
	}
	problems := []error{replWarning}
	for _, m := range msgs {
		problems = append(problems, fmt.Errorf("%w: %s", errUnsafeRedis, m))
		c.log(ctx, slog.LevelWarn, "lease check: "+m, "", 0)
	}
	return errors.Join(problems...)
}

// infoProblems explains what one server's INFO memory and persistence
// show to be unsafe or leave unverified; why says why CONFIG GET was not
// read.
func infoProblems(info, why string) []string {
	var out []string
	if policy := infoField(info, "maxmemory_policy"); policy == "" {
		out = append(out, fmt.Sprintf("maxmemory-policy could not be verified: %s and INFO memory does not show it; make sure it is noeviction", why))
	} else {
		out = append(out, unsafeSettings(map[string]string{"maxmemory-policy": policy, "appendonly": "yes", "appendfsync": "always"})...)
	}
	switch infoField(info, "aof_enabled") {
	case "1":
		out = append(out, fmt.Sprintf("appendfsync could not be verified: %s and INFO does not show it; unless it is always, a crash of the machine can lose the last INCRs of the fence counter, so tokens already handed out are handed out again", why))
	case "0":
		out = append(out, "appendonly no (INFO persistence: aof_enabled:0): a crash or restart loses the INCRs of the fence counter made since the last RDB snapshot (all of them without snapshots), so tokens already handed out are handed out again; use appendonly yes with appendfsync always")
	default:
		out = append(out, fmt.Sprintf("persistence could not be verified: %s and INFO persistence does not show aof_enabled; make sure appendonly is yes and appendfsync always", why))
	}
	return out
}

func (c *Client) checkErr(ctx context.Context, what string, err error) error {
	if isConfigError(err) {
		return &opError{op: "check: " + what, err: configError(err)}
	}
	return opFailed("check: "+what, ctx, ctx, "check", 0, err)
}

// infoReplicationScript reads INFO replication from inside a script, so
// that any redis.Scripter can run it, a plain one included.
var infoReplicationScript = redis.NewScript(`return redis.call('INFO', 'replication')`)

// checkReplication reads INFO replication (through a script, so that any
// redis.Scripter can run it; not on a Redis Cluster, whose masters the
// cluster client picks itself) and returns an error wrapping ErrConfig
// when the server is itself a replica (trial r26 N2a: a client pointed at
// a writable replica minted from the replica's own counter, which the
// primary then minted again), or when Options.UnsafeNoReplicas is what let
// New accept rdb and the server has connected replicas (the option's
// statement is false: a failover to one could mint a token again; trial
// t26 F4). When INFO cannot be read (an ACL without +info), that
// statement is unverified: the second result wraps ErrUnsafeConfig (trial
// r26 N2b); otherwise the failure is logged at warning level.
func (c *Client) checkReplication(ctx context.Context) (warning, err error) {
	if _, ok := c.rdb.(forEachMaster); ok {
		return nil, nil
	}
	unsafeOption := c.opts != nil && c.opts.UnsafeNoReplicas && c.replicas == noReplicaCheck
	info, err := infoReplicationScript.Run(ctx, c.rdb, nil).Text()
	if err != nil {
		if ctx.Err() != nil {
			return nil, opFailed("check", ctx, ctx, "check", 0, err)
		}
		if unsafeOption {
			msg := fmt.Sprintf("Options.UnsafeNoReplicas could not be verified: INFO replication: %v; make sure the server has no replicas", err)
			c.log(ctx, slog.LevelWarn, "lease check: "+msg, "", 0)
			return fmt.Errorf("%w: %s", errUnsafeRedis, msg), nil
		}
		c.log(ctx, slog.LevelWarn, "lease check: cannot read INFO replication to check that the server is a primary", "", 0, "err", err)
		return nil, nil
	}
	if re := replicaOf(info); re != nil {
		return nil, &opError{op: "check", err: re}
	}
	if n, _ := strconv.Atoi(infoField(info, "connected_slaves")); unsafeOption && n > 0 {
		return nil, &opError{op: "check", err: configError(fmt.Errorf(
			"Options.UnsafeNoReplicas is set, but the server has %d connected replica(s): after a failover a promoted replica could mint a token again for a second holder; "+
				"pass a *redis.Client or *redis.ClusterClient, whose acquire waits for the replicas, or remove the replicas", n))}
	}
	return nil, nil
}

// infoField reads one field of an INFO section's text ("" if absent).
func infoField(info, name string) string {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return v
		}
	}
	return ""
}
