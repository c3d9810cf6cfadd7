package lease

import (
	"context"
	"errors"
	"fmt"
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
// It applies to a *redis.Client (a FailoverClient from Sentinel included)
// and any non-cluster client that pipelines. Not to a *redis.ClusterClient,
// whose keyless WAIT would go to an arbitrary node, nor to a plain
// redis.Scripter: see the package documentation.
func (c *Client) replicated() bool {
	if c.opts.testHooks().noReplicaCheck {
		return false
	}
	if _, ok := c.rdb.(*redis.ClusterClient); ok {
		return false
	}
	_, ok := c.rdb.(pipeliner)
	return ok
}

// acquireCall runs one acquire attempt, cmd (the whole EVALSHA command,
// see Acquire): a plain script call, or the pipeline
// with the replication check.
func (c *Client) acquireCall(ctx context.Context, inline bool, tm timing, cmd []any) (int64, *call, error) {
	if !c.replicated() {
		return c.runCmd(ctx, inline, acquireScript, acquireLua, cmd)
	}
	c.repl.mu.Lock()
	attached, refresh := c.repl.attached, c.repl.at.IsZero() || c.repl.attached > 0 || c.clk.Now().Sub(c.repl.at) >= replicaRefresh
	c.repl.mu.Unlock()
	if attached == 0 && !refresh {
		return c.runCmd(ctx, inline, acquireScript, acquireLua, cmd)
	}
	keys, args := splitCmd(cmd)
	return c.runFn(ctx, inline, func(ctx context.Context) (int64, error) {
		return c.acquireReplicated(ctx, tm, attached, refresh, keys, args...)
	})
}

func (c *Client) acquireReplicated(ctx context.Context, tm timing, attached int64, refresh bool, keys []string, args ...any) (int64, error) {
	p := c.rdb.(pipeliner)
	// WAIT's own timeout: a fifth of the attempt's CallTimeout, so that its
	// answer (0 acknowledgements) arrives well within the attempt's bound.
	wait := max(millis(tm.callTimeout/5), 1)
	send := func(script bool) (*redis.Cmd, *redis.Cmd, *redis.StringCmd) {
		pipe := p.Pipeline()
		var ev *redis.Cmd
		if script {
			ev = pipe.Eval(ctx, acquireLua, keys, args...)
		} else {
			ev = pipe.EvalSha(ctx, acquireScript.Hash(), keys, args...)
		}
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
	if err != nil || n <= 0 {
		return n, err
	}
	want := attached
	var syncing int64 // replicas not online yet, per INFO
	if info != nil && info.Err() == nil {
		var now int64
		now, syncing = attachedReplicas(info.Val())
		c.repl.mu.Lock()
		c.repl.attached, c.repl.at = now, c.clk.Now()
		c.repl.mu.Unlock()
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
		again := slices.Clone(args)
		again[3], again[4] = argZero, argOne // the counter exists; a retry
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
