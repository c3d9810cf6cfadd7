package etcdlease

import (
	"context"
	"fmt"
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
					l.sawLoss(ev.Kv.ModRevision, ev.Type == clientv3.EventTypeDelete, ev.Kv.ModRevision, ev.Kv)
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
			l.sawLoss(g.Header.Revision, true, 0, nil) // deleted at or before it
			return
		case l.foreign(g.Kvs[0]):
			l.sawLoss(g.Kvs[0].ModRevision, false, g.Kvs[0].ModRevision, g.Kvs[0])
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

// sawLoss records rev, the revision of the first change that took the
// lock key from this lease, with the loss it makes (lossOf), and loses
// the lease with it, unless Release is under way (Lease.releasing): its
// revoke's own delete is such a change, and Release decides from the
// revoke's revision whether this one came before it.
func (l *Lease) sawLoss(rev int64, deleted bool, keyRev int64, kv *mvccpb.KeyValue) {
	lost := l.lossOf(deleted, keyRev, kv)
	l.watchMu.Lock()
	if l.lossRev == 0 {
		l.lossRev, l.lossAt, l.lossDeleted, l.lossErr = rev, time.Now(), deleted, lost
	}
	releasing := l.releasing.Load()
	l.watchMu.Unlock()
	if !releasing {
		_ = l.loseWith(lost)
	}
}

// lossOf is the loss of a lease whose lock key was taken from it:
// lease.ReasonDeadline when the key was deleted after the local deadline
// had passed (a holder paused past its TTL: the etcd lease expired on
// the server and took the key with it, which is what happened, not a
// delete by hand; trial x26 F3), else lease.ReasonNotOwner with keyLost's
// error (deleted says which, keyRev and kv as keyLost takes them).
func (l *Lease) lossOf(deleted bool, keyRev int64, kv *mvccpb.KeyValue) *lease.LostError {
	if deleted && l.pastDeadline() {
		return &lease.LostError{Resource: l.resource, Token: l.token, Reason: lease.ReasonDeadline, Err: l.expiredWith(keyRev)}
	}
	return &lease.LostError{Resource: l.resource, Token: l.token, Reason: lease.ReasonNotOwner, Err: l.keyLost(deleted, keyRev, kv)}
}

// expiredWith is the error of a lease whose lock key went after its local
// deadline had passed: deleted at revision rev (0: found missing by a
// read), as the expiry of the etcd lease on the server deletes it.
func (l *Lease) expiredWith(rev int64) error {
	if rev > 0 {
		return fmt.Errorf("its etcd lease %x expired on the server, and the lock key %q was deleted with it at revision %d", int64(l.id), l.lockKey, rev)
	}
	return fmt.Errorf("its etcd lease %x expired on the server, and the lock key %q was found deleted with it", int64(l.id), l.lockKey)
}

// keyLost is the error of a lease whose lock key the watch saw taken
// from it, wrapping lease.ErrNotOwner and saying what happened, since
// each has its own fix (trial t26 F7): deleted at revision rev (0: found
// missing by a read after the watch broke), by hand or with the etcd
// lease it was attached to (a revoke, or an expiry on the server: the
// watch cannot tell them apart), or replaced: kv, put at rev with
// another create revision or etcd lease.
func (l *Lease) keyLost(deleted bool, rev int64, kv *mvccpb.KeyValue) error {
	switch {
	case deleted && rev > 0:
		return fmt.Errorf("%w: the lock key %q was deleted at revision %d (by hand, e.g. etcdctl del, or with its etcd lease %x, revoked or expired on the server)", lease.ErrNotOwner, l.lockKey, rev, int64(l.id))
	case deleted:
		return fmt.Errorf("%w: the lock key %q was found deleted (by hand, e.g. etcdctl del, or with its etcd lease %x, revoked or expired on the server)", lease.ErrNotOwner, l.lockKey, int64(l.id))
	case kv.CreateRevision != l.rev:
		return fmt.Errorf("%w: the lock key %q was replaced at revision %d (deleted and created again at revision %d with etcd lease %x; ours was created at revision %d)", lease.ErrNotOwner, l.lockKey, rev, kv.CreateRevision, kv.Lease, l.rev)
	}
	return fmt.Errorf("%w: the lock key %q was overwritten at revision %d with etcd lease %x in place of ours, %x", lease.ErrNotOwner, l.lockKey, rev, kv.Lease, int64(l.id))
}

// heldAt reports whether the lock key was still this lease's just before
// revision rev, the revision of Release's revoke, which deleted the key
// at rev if it was attached, and if not, the loss that makes. The watch
// decides (its first change of the key is a delete at rev exactly when
// the revoke was the first), usually with no wait: a watch that has caught up is
// sent the revoke's delete as the revoke commits. If it has not told
// within half of what ctx has left (at most CallTimeout), or it stopped
// without a change (the lease was lost meanwhile), one read of the key at
// rev−1 decides; if that fails too (the revision was compacted), it
// reports true, as before the watch existed.
func (l *Lease) heldAt(ctx context.Context, rev int64) (bool, *lease.LostError) {
	wait := l.tm.callTimeout
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl)/2)
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-l.watched:
		l.watchMu.Lock()
		loss, deleted, lost := l.lossRev, l.lossDeleted, l.lossErr
		l.watchMu.Unlock()
		if loss >= rev && deleted {
			return true, nil
		}
		if loss != 0 {
			// Before the revoke, or a put, which a revoke never makes
			// (a put that detached the key is the revoke's revision
			// when nothing was written since: it deleted nothing).
			return false, lost
		}
	case <-ctx.Done():
		return true, nil
	case <-t.C:
	}
	g, err := l.c.cli.Get(ctx, l.lockKey, clientv3.WithRev(rev-1))
	switch {
	case err != nil:
		return true, nil
	case len(g.Kvs) == 0:
		return false, l.lossOf(true, 0, nil)
	case l.foreign(g.Kvs[0]):
		return false, l.lossOf(false, g.Kvs[0].ModRevision, g.Kvs[0])
	}
	return true, nil
}
