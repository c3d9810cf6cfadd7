package lease

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrNotReplicated is returned (wrapped) by [Client.Acquire] when the
// primary had replicas but they did not all acknowledge the acquire's
// writes (the lock key and the INCR of the fence counter) within the
// acquire's call: a failover to a replica that lacks them would let the
// next Acquire mint the same token again, for a second live holder. The
// acquisition is released (compare-and-delete) before Acquire returns: the
// lease fails closed. It is not [ErrNotAcquired]; [Client.AcquireWait]
// retries it.
var ErrNotReplicated = errors.New("lease: acquire not acknowledged by the replicas")

// ReplicaError is the error of [Client.Acquire] and [Client.Check] when
// the server the client writes to is a replica (INFO replication shows a
// role other than master): its fence counter and lock keys are not the
// primary's, so the primary can mint the same tokens for other holders,
// and both holders' writes are accepted. It matches [ErrConfig]
// (errors.Is); errors.As finds it; [Client.AcquireWait] does not retry it.
//
// Acquire returns it when a replica accepted the acquire's writes
// (replica-read-only no): the acquisition is given back
// (compare-and-delete on the replica) before Acquire returns, and no lease
// is made of it. A read-only replica answers READONLY instead, which
// Acquire reports as [ErrRedisUnavailable] and AcquireWait retries: a
// primary demoted by a failover in progress answers the same. Acquire
// reads the role with the INFO replication it pipelines with its script
// (a *redis.Client, a Sentinel FailoverClient included), on a Client's
// first attempt, then at least once a second, and on every attempt while
// the server is a replica; a Redis Cluster client writes to masters only;
// a plain redis.Scripter under Options.UnsafeNoReplicas reads no INFO:
// only Check finds the replica then.
type ReplicaError struct {
	// Role is INFO replication's role ("slave").
	Role string
	// Primary is the "host:port" of the replica's primary (INFO's
	// master_host and master_port), "" when INFO does not name it.
	Primary string
}

// Error returns "lease: configuration error: the server is a replica
// (role:<role> of <primary>): ...".
func (e *ReplicaError) Error() string {
	return ErrConfig.Error() + ": the server is a replica (role:" + e.Role + " of " + e.Primary + "): " +
		"its fence counter and lock keys are not the primary's, so the primary can mint the same tokens for other holders; " +
		"point the client at the primary (with Sentinel, a FailoverClient)"
}

// Unwrap returns ErrConfig.
func (e *ReplicaError) Unwrap() error { return ErrConfig }

// replicaOf returns a *ReplicaError when info, the text of INFO
// replication, shows a role other than master, else nil.
func replicaOf(info string) *ReplicaError {
	if strings.Contains(info, "\nrole:master") {
		return nil // a primary: no line split (read on every attempt while it has replicas)
	}
	role := infoField(info, "role")
	if role == "" || role == "master" {
		return nil
	}
	e := &ReplicaError{Role: role}
	if h, p := infoField(info, "master_host"), infoField(info, "master_port"); h != "" {
		e.Primary = net.JoinHostPort(h, p)
	}
	return e
}

// replicaRefresh is how often the Client re-reads how many replicas the
// primary has (INFO replication, in the same round trip as an acquire).
const replicaRefresh = time.Second

// replicaState is what a Client knows of the primary's replicas: how many
// are attached (online or still in their initial synchronisation), as of
// when.
type replicaState struct {
	mu       sync.Mutex
	attached int64
	at       time.Time // zero: never read
	// replica: the last INFO showed a replica (see ReplicaError), so
	// every attempt reads INFO again until it shows a master.
	replica bool
}

// replicated is the replication check of one acquire attempt: the attempt
// is sent as one pipeline, EVALSHA acquire, then WAIT <attached> <timeout>
// when replicas are known (Redis WAIT: blocks until that many replicas
// acknowledged every write of this connection so far, and returns how many
// did), then INFO replication: on every attempt while the primary has
// replicas, else when the known count is older than replicaRefresh. If INFO
// shows more replicas attached than the WAIT asked for, the acquire is
// sent again (for this owner it only refreshes the TTL) followed by a WAIT
// for all of them, in one pipeline, so on one connection: WAIT counts the
// writes of its own connection only. A minted token is returned
// only when every replica attached after the write acknowledged it
// (Redisson's synced-replica check); otherwise ErrNotReplicated. A replica
// still in its initial synchronisation (INFO state wait_bgsave,
// send_bulk, ...; for instance a demoted primary catching up after a
// failover) counts: it acknowledges nothing until it is online, so Acquire
// fails closed meanwhile rather than hand out a token that a promotion of
// that replica would mint again. A replica that attaches within
// replicaRefresh of an acquire on a primary that had none gets the write
// with its initial synchronisation.
//
// It applies to a *redis.Client (a FailoverClient from Sentinel included),
// to anything embedding one, and to a *redis.ClusterClient (or anything
// embedding one): there the pipeline goes to the master of the lock key's
// slot through that node's own client (ClusterClient.MasterForKey), so that
// WAIT, which names no key and which the ClusterClient would route to an
// arbitrary node, runs on the connection that wrote and counts the
// replicas of that master. New refuses the rest (see classify).
func (c *Client) replicated() bool {
	return c.replicas != noReplicaCheck && !c.opts.testHooks().noReplicaCheck
}

// replicaKind is how a Client waits for the replicas of the primary an
// acquire wrote to.
type replicaKind uint8

const (
	// noReplicaCheck: Options.UnsafeNoReplicas with a client that cannot
	// wait (a plain redis.Scripter or an unknown pipelining type).
	noReplicaCheck replicaKind = iota
	// pipelineWait: a *redis.Client (or a type embedding one), whose
	// pipeline runs on one connection to the one primary.
	pipelineWait
	// clusterWait: a *redis.ClusterClient (or a type embedding one): the
	// pipeline runs on the client of the lock key's master.
	clusterWait
)

// masterForKey is the part of *redis.ClusterClient that names the master
// node of a key's slot.
type masterForKey interface {
	MasterForKey(ctx context.Context, key string) (*redis.Client, error)
}

// classify says how a Client on rdb waits for replicas, or why it cannot
// be used: a *redis.Ring (or a type embedding one) is refused whatever the
// options say, because the risk is not replicas: a Ring that marks a shard
// down (its own heartbeat, per process) hashes that shard's resources to
// another shard, whose fence counter is behind or missing, so two
// processes can hold one resource at once on two shards and the second
// shard can mint a token the first already handed out, even with
// Options.HighWater (the durable mark is at most the last token written).
// A type that pipelines but is none of the go-redis clients the check
// knows, and a plain redis.Scripter, cannot be shown to wait on the
// connection that wrote: they need Options.UnsafeNoReplicas.
// queuedPipeline is a redis.Pipeliner (Client.Pipeline, TxPipeline): its
// commands are queued, not sent, until Exec.
type queuedPipeline interface {
	Exec(ctx context.Context) ([]redis.Cmder, error)
	Discard()
}

func classify(rdb redis.Scripter, unsafeNoReplicas bool) (replicaKind, string) {
	if _, ok := rdb.(interface{ Options() *redis.RingOptions }); ok {
		return noReplicaCheck, fmt.Sprintf("lease: New with a %T: a go-redis Ring moves a resource to another shard when it marks a shard down, "+
			"and that shard's fence counter is behind, so two holders could get one token (Options.UnsafeNoReplicas does not cover this); "+
			"use one *redis.Client per resource group, or a *redis.ClusterClient", rdb)
	}
	if _, ok := rdb.(masterForKey); ok {
		return clusterWait, ""
	}
	if _, ok := rdb.(interface{ Options() *redis.Options }); ok {
		if _, ok := rdb.(pipeliner); ok {
			return pipelineWait, ""
		}
	}
	if _, ok := rdb.(queuedPipeline); ok {
		return noReplicaCheck, fmt.Sprintf("lease: New with a %T: a pipeline only queues commands until Exec, so the lease's scripts "+
			"would not run when Acquire, the heartbeat and Release need their replies (Options.UnsafeNoReplicas does not cover this); "+
			"pass the client the pipeline came from", rdb)
	}
	if unsafeNoReplicas {
		return noReplicaCheck, ""
	}
	return noReplicaCheck, fmt.Sprintf("lease: New with a %T, which cannot wait for Redis replicas to acknowledge an acquire on the connection that wrote it: "+
		"after a failover the promoted replica could mint a token again for a second holder; "+
		"pass a *redis.Client (a Sentinel FailoverClient included) or a *redis.ClusterClient, or set Options.UnsafeNoReplicas "+
		"if the server has no replicas", rdb)
}

// acquireCall runs one acquire attempt, cmd (the whole EVALSHA command,
// see Acquire): a plain script call, or the pipeline
// with the replication check. now is the attempt's send time (c.clk),
// which also dates the replica count's refresh.
func (c *Client) acquireCall(ctx context.Context, inline bool, tm timing, cmd []any, now time.Time) (int64, *call, error) {
	if !c.replicated() {
		return c.runCmd(ctx, inline, acquireScript, cmd)
	}
	if c.replicas == clusterWait {
		return c.runFn(ctx, inline, func(ctx context.Context) (int64, error) {
			return c.acquireOnMaster(ctx, tm, cmd, now)
		})
	}
	attached, refresh := c.repl.plan(now)
	if attached == 0 && !refresh {
		return c.runCmd(ctx, inline, acquireScript, cmd)
	}
	keys, args := splitCmd(cmd)
	p := c.rdb.(pipeliner)
	return c.runFn(ctx, inline, func(ctx context.Context) (int64, error) {
		return c.acquireReplicated(ctx, p, &c.repl, tm, attached, refresh, keys, args...)
	})
}

// plan says how many replicas the next acquire waits for, and whether it
// reads INFO replication again.
func (s *replicaState) plan(now time.Time) (attached int64, refresh bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attached, s.at.IsZero() || s.attached > 0 || s.replica || now.Sub(s.at) >= replicaRefresh
}

// acquireOnMaster runs one acquire attempt on a Redis Cluster: the
// pipeline of acquireReplicated on the client of the lock key's master,
// with that master's replica count. A master without replicas (known
// within replicaRefresh) gets the plain script call through the
// ClusterClient, which follows redirects. A MOVED or ASK reply (the slot
// moved since the ClusterClient last read the cluster's layout: the script
// did not run) makes the ClusterClient read it again, and the attempt
// fails with the redirect, which Acquire retries. cmd is split into keys
// and arguments only for the pipeline.
func (c *Client) acquireOnMaster(ctx context.Context, tm timing, cmd []any, now time.Time) (int64, error) {
	cl := c.rdb.(masterForKey)
	node, err := cl.MasterForKey(ctx, argString(cmd[3])) // the lock key
	if err != nil {
		return 0, err
	}
	st := c.nodeReplicas(node.Options().Addr)
	attached, refresh := st.plan(now)
	if attached == 0 && !refresh {
		return c.evalCmd(ctx, acquireScript, cmd)
	}
	keys, args := splitCmd(cmd)
	n, err := c.acquireReplicated(ctx, node, st, tm, attached, refresh, keys, args...)
	if isRedirect(err) {
		if r, ok := c.rdb.(interface{ ReloadState(context.Context) }); ok {
			r.ReloadState(ctx)
		}
	}
	return n, err
}

// isRedirect reports whether err is a Redis Cluster MOVED or ASK reply.
func isRedirect(err error) bool {
	if err == nil {
		return false
	}
	_, moved := redis.IsMovedError(err)
	_, ask := redis.IsAskError(err)
	return moved || ask
}

// nodeReplicas returns the replica state of the cluster master at addr.
func (c *Client) nodeReplicas(addr string) *replicaState {
	if st, ok := c.nodeRepl.Load(addr); ok {
		return st.(*replicaState)
	}
	st, _ := c.nodeRepl.LoadOrStore(addr, new(replicaState))
	return st.(*replicaState)
}

func (c *Client) acquireReplicated(ctx context.Context, p pipeliner, st *replicaState, tm timing, attached int64, refresh bool, keys []string, args ...any) (int64, error) {
	// WAIT's own timeout: a fifth of the attempt's CallTimeout, so that its
	// answer (0 acknowledgements) arrives well within the attempt's bound.
	wait := max(millis(tm.callTimeout/5), 1)
	send := func(load bool) (*redis.Cmd, *redis.Cmd, *redis.StringCmd) {
		pipe := p.Pipeline()
		if load {
			// NOSCRIPT: the server has none of the package's scripts;
			// load them all in this round trip (see Client.resend).
			loadScripts(ctx, pipe)
		}
		ev := pipe.EvalSha(ctx, acquireScript.Hash(), keys, args...)
		var w *redis.Cmd
		if attached > 0 {
			w = pipe.Do(ctx, "wait", attached, wait)
		}
		var info *redis.StringCmd
		if refresh {
			info = pipe.Info(ctx, "replication")
		}
		_, _ = pipe.Exec(ctx)
		return ev, w, info
	}
	ev, w, info := send(false)
	if redis.HasErrorPrefix(ev.Err(), "NOSCRIPT") {
		ev, w, info = send(true)
	}
	n, err := ev.Int64()
	var (
		now     int64 // replicas attached, per INFO
		syncing int64 // of them, not online yet
		read    = info != nil && info.Err() == nil
	)
	if read {
		now, syncing = attachedReplicas(info.Val())
		re := replicaOf(info.Val())
		st.mu.Lock()
		st.attached, st.at, st.replica = now, c.clk.Now(), re != nil
		st.mu.Unlock()
		if re != nil && err == nil {
			// A writable replica ran the script (a read-only one
			// answers READONLY: err, transient): refused, and the
			// caller gives the acquisition back (trial t26h F3).
			return n, re
		}
	}
	if err != nil || n <= 0 {
		return n, err
	}
	want := attached
	if read {
		want = max(want, now)
	}
	var acked int64
	if w != nil {
		if acked, err = w.Int64(); err != nil {
			return n, fmt.Errorf("%w: WAIT: %w", ErrNotReplicated, err)
		}
	}
	if want > acked {
		// Replicas the pipeline's WAIT did not ask for: wait for all. WAIT
		// counts the acknowledgements of the writes of its own connection
		// (its client's last write offset), and a new pipeline may run on
		// another pooled connection, one that wrote nothing or wrote
		// earlier, where WAIT would answer at once. So the acquire is sent
		// again first, in the same pipeline: for this owner it only
		// refreshes the lock's TTL and returns the same token (a retry, see
		// acquire.lua), a write whose replication offset is past the
		// INCR's, and the WAIT behind it covers both.
		// The counter exists; a retry (the long form, see acquire.lua).
		again := append(slices.Clone(args[:2]), argZero, argZero, argOne)
		if len(args) > 2 {
			again[2] = args[2] // the floor
		}
		pipe := p.Pipeline()
		ev := pipe.EvalSha(ctx, acquireScript.Hash(), keys, again...)
		w := pipe.Do(ctx, "wait", want, wait)
		_, _ = pipe.Exec(ctx)
		if m, err := ev.Int64(); err != nil || m != n {
			return n, fmt.Errorf("%w: acquire sent again before WAIT: token %d, %v", ErrNotReplicated, m, err)
		}
		if acked, err = w.Int64(); err != nil {
			return n, fmt.Errorf("%w: WAIT: %w", ErrNotReplicated, err)
		}
	}
	if acked < want {
		note := ""
		if syncing > 0 {
			note = fmt.Sprintf(" (%d still synchronising)", syncing)
		}
		return n, fmt.Errorf("%w: %d of %d replicas acknowledged within %dms%s", ErrNotReplicated, acked, want, wait, note)
	}
	return n, nil
}

// attachedReplicas counts the replicas of INFO replication (its
// "slaveN:ip=...,state=...,..." lines), and of them those whose state is
// not online.
func attachedReplicas(info string) (attached, syncing int64) {
	for _, line := range strings.Split(info, "\n") {
		if rest, ok := strings.CutPrefix(line, "slave"); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			attached++
			if !strings.Contains(line, "state=online") {
				syncing++
			}
		}
	}
	return attached, syncing
}
