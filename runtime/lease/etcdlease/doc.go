// Package etcdlease takes leases that mint fencing tokens from an etcd
// cluster, with the contract of the Redis lease in runtime/lease: one
// Acquire mints a token that every later holder of the resource exceeds,
// a heartbeat renews at TTL/3, the lease's context is cancelled with a
// *lease.LostError after two failed renewals or at the local deadline,
// before etcd can expire it, Release deletes only this lease's key, Do
// scopes it, and the errors are runtime/lease's sentinels (test them with
// errors.Is). [Client] implements lease.Locker[*Lease], so a worker
// written against lease.Locker switches from Redis to etcd by changing
// how its Locker is constructed.
//
// It is a package of its own so that a program using the Redis lease does
// not link the etcd client and gRPC.
//
// # etcd layout
//
// For resource "account:42" and the default key prefix:
//
//	fencegen/account:42/lock   exists while the lease is held; attached to the
//	                           holder's etcd lease, so it goes when that lease
//	                           is revoked or expires
//	fencegen/account:42/base   the offset added to revisions (absent: 0), raised
//	                           only by Client.Advance after a snapshot restore
//	                           rewound the revision
//
// Acquire grants an etcd lease of its own (the TTL rounded up to whole
// seconds) and puts the lock key attached to it in a transaction that
// requires the key's create revision to be 0. The token is the lock key's
// create revision plus the base. etcd's revision is one counter for the
// whole cluster, raised by every write, decided by Raft and persisted on
// a quorum before the reply: a later holder creates its key at a higher
// revision, whichever member leads, and a leader change cannot hand out a
// revision twice, unlike a Redis counter on a replica that never saw the
// last INCR. An etcd lease ID is not a token: IDs are not ordered by time
// and one ID can carry any number of keys.
//
// Kleppmann ("How to do distributed locking", 2016) names this revision
// as a fencing token; etcd's own concurrency.Mutex (client/v3/concurrency)
// uses a session lease per client and per-waiter keys under a prefix,
// ordered by create revision. This package keeps one key per resource and
// one etcd lease per acquisition, so that a lease that could not be
// cleaned up expires alone, after its TTL, without ending other leases.
//
// # What etcd users have hit, and what happens here
//
//   - A lock granted on a session lease that had expired while waiting:
//     the put is attached to the lease in the same transaction, and etcd
//     refuses a put with a lease it no longer has (lease.ErrAcquireTooSlow).
//   - A waiter whose session expired keeps waiting: every attempt of
//     AcquireWait grants a fresh lease, and waits on a watch of the lock
//     key bounded by HeartbeatInterval.
//   - The cleanup of a cancelled lock hangs on an unreachable cluster
//     because it does not use the caller's context: Acquire returns when
//     its ctx ends; the revoke runs in the background bounded by
//     ReleaseTimeout, and an etcd lease it cannot revoke expires by itself
//     with the key.
//   - A lock key deleted by hand (an etcdctl del of a "stuck" lock) or
//     overwritten leaves its etcd lease alive, so keep-alives still
//     succeed: each lease watches its lock key from the revision after
//     its creation, and the first change that takes the key away loses
//     the lease (lease.ReasonNotOwner) and makes Release return
//     lease.ErrNotHeld, as the Redis lease's renewal does; a Release that
//     finds it out first loses the lease with the same cause.
//   - A snapshot restore rewinds the revision, so tokens repeat: restore
//     with --bump-revision <n> --mark-compacted (etcdutl and etcdctl
//     snapshot restore from etcd 3.5.10, etcd-io/etcd#16165, and 3.6;
//     etcd 3.4's etcdctl has neither flag), the bump larger than the
//     writes the snapshot misses. Without it: a Client that minted
//     tokens before the restore mints above the highest of them, for
//     every resource it minted for (or advanced), at its next Acquire of
//     that resource, and above the highest revision it saw for any other
//     resource at its first Acquire after the restore: it compares the
//     token (base + revision, the base being rewound too) with the
//     highest it minted for the resource, and the revision with the
//     highest it saw; Options.HighWater makes a
//     new Client mint above the durable mark at its first Acquire of each
//     resource; and when the database refuses a low token with a
//     *fence.StaleError, [Lease.Observe] (and Do) detects the regression.
//     Each raises the resource's base ([Client.Advance]) and reports
//     lease.EventCounterRegressed. None catches a new process without
//     HighWater minting a token equal to one handed out before the
//     restore (the guard accepts an equal token, and Observe sees only a
//     lower one), nor a token minted but not written before it (no row
//     shows it): set HighWater on a cluster that may be restored, restore
//     with the bump, and see [Client.Check], which warns soon after a
//     restore (the store revision above the Raft index).
//
// # The same surface as the Redis lease
//
// [Client] is a lease.Coordinator[*Lease], as the Redis lease's Client is
// a lease.Coordinator[*lease.Lease]: Acquire, AcquireWait, Do, DoWait,
// Check (configuration errors as lease.ErrConfig, persistence warnings as
// lease.ErrUnsafeConfig, never in one error), Advance, Stats and Keys, and
// Options with the same names (TTL, KeyPrefix, HighWater, Logger,
// Observer and the timings). Renewals are batched as far as etcd allows:
// a keep-alive request names one lease, so where the Redis lease sends
// the renewals due together in one script call, every lease of a Client
// here sends its keep-alives, pipelined, on one LeaseKeepAlive stream
// that the Client keeps open while it holds a lease (clientv3's
// KeepAliveOnce opens a stream per call: a round of renewals costs 1.5-1.9×
// as much, BENCHMARKS.md). A renewal cut off while that stream has
// answered nothing since the request closes it, and the next renewal
// opens another.
package etcdlease
