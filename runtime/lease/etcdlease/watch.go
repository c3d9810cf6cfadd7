package etcdlease

import (
	"context"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fencegen/fencegen/runtime/lease"
)

// watchKey watches the lock key from the revision after its creation
// until ctx ends or the key stops being this lease's: deleted (by hand,
// an etcdctl del of a "stuck" lock), or put with another create revision
// (deleted and re-created meanwhile) or without this etcd lease (a put
// that detached it). The first such change loses the lease
// (lease.ReasonNotOwner, lease.ErrNotOwner, as the Redis lease's renewal
// finds a missing or foreign key) and records its revision for Release.
//
// A keep-alive cannot see this: it renews the etcd lease, which lives on
// without the key, so the heartbeat would keep a lease whose lock anyone
// may take. etcd's concurrency.Mutex does not watch its own key either
// (its Session only keeps the lease alive); this package does because
// its lease promises the Redis lease's contract, under which a worker's
// context ends when its key is gone. The watch starts at the key's
// create revision + 1, so a change made before the watch was set up is
// replayed, and shares the Client's one Watch stream with every other
// lease. When the watch breaks (the revision was compacted, the member
// lost its leader), one read of the key decides, and the watch resumes
// after the read's revision.
func (l *Lease) watchKey(ctx context.Context) {
	defer close(l.watched)
	from := l.rev + 1
	for ctx.Err() == nil && l.c.cli.Ctx().Err() == nil {
		wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
		for wr := range l.c.cli.Watch(wctx, l.lockKey, clientv3.WithRev(from)) {
			if wr.Err() != nil {
				break
			}
			for _, ev := range wr.Events {
				if ev.Type == clientv3.EventTypeDelete || l.foreign(ev.Kv) {
					cancel()
					l.sawLoss(ev.Kv.ModRevision)
					return
				}
				from = ev.Kv.ModRevision + 1
			}
		}
		cancel()
		if ctx.Err() != nil {
			return
		}
		gctx, gcancel := context.WithTimeout(ctx, l.tm.callTimeout)
		g, err := l.c.cli.Get(gctx, l.lockKey)
		gcancel()
		switch {
		case err != nil:
			sleep(ctx, l.tm.callTimeout)
		case len(g.Kvs) == 0:
			l.sawLoss(g.Header.Revision) // deleted at or before it
			return
		case l.foreign(g.Kvs[0]):
			l.sawLoss(g.Kvs[0].ModRevision)
			return
		default:
			from = g.Header.Revision + 1
		}
	}
}

// foreign reports whether kv, a version of the lock key, is not this
// lease's: another create revision, or another (or no) etcd lease.
func (l *Lease) foreign(kv *mvccpb.KeyValue) bool {
	return kv.CreateRevision != l.rev || kv.Lease != int64(l.id)
}

// loss returns the revision of the first change that took the lock key
// from this lease, 0 if the watch has seen none.
func (l *Lease) loss() int64 {
	l.watchMu.Lock()
	defer l.watchMu.Unlock()
	return l.lossRev
}

func (l *Lease) sawLoss(rev int64) {
	l.watchMu.Lock()
	if l.lossRev == 0 {
		l.lossRev = rev
	}
	l.watchMu.Unlock()
	_ = l.lose(lease.ReasonNotOwner, lease.ErrNotOwner)
}

// heldAt reports whether the lock key was still this lease's just before
// revision rev, the revision of Release's revoke, which deleted the key
// at rev if it was attached. The watch decides (its first change of the
// key is at rev exactly when the revoke was the first), usually with no
// wait: a watch that has caught up is sent the revoke's delete as the
// revoke commits. If it has not told within half of what ctx has left
// (at most CallTimeout), one read of the key at rev−1 decides; if that
// fails too (the revision was compacted), it reports true, as before the
// watch existed.
func (l *Lease) heldAt(ctx context.Context, rev int64) bool {
	wait := l.tm.callTimeout
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl)/2)
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-l.watched:
		loss := l.loss()
		return loss == 0 || loss >= rev
	case <-ctx.Done():
		return true
	case <-t.C:
	}
	g, err := l.c.cli.Get(ctx, l.lockKey, clientv3.WithRev(rev-1))
	if err != nil {
		return true
	}
	return len(g.Kvs) == 1 && !l.foreign(g.Kvs[0])
}
