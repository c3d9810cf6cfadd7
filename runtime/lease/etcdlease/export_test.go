package etcdlease

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// AfterGrant sets a hook run between an Acquire's grant and its
// transaction.
func AfterGrant(c *Client, f func(clientv3.LeaseID)) { c.afterGrant = f }

// KeepAlive sends one keep-alive of id on c's shared stream (see
// keepAliver.renew) and returns the TTL etcd granted.
func KeepAlive(ctx context.Context, c *Client, id clientv3.LeaseID) (int64, error) {
	return c.ka.renew(ctx, id)
}

// BeforeWatch sets a hook run in AcquireWait between the read of a held
// lock key and the watch from fromRev.
func BeforeWatch(c *Client, f func(fromRev int64)) { c.beforeWatch = f }

// OnHook returns the call of o's deprecated On* field for e (see emit).
var OnHook = onHook

// Pause stops l's heartbeat and its local deadline's timer, as a process
// paused (SIGSTOP) past its TTL is: the etcd lease expires on the server
// and its lock key goes with it, and the watch of the key, the one part
// left running, sees the delete first.
func Pause(l *Lease) {
	l.stopHeartbeat()
	<-l.stopped
	l.mu.Lock()
	l.deadline.Stop()
	l.mu.Unlock()
}
