// Package lease takes Redis leases that mint fencing tokens, for fencegen's
// generated repositories.
//
// A lease is a lock with a time-to-live. On its own it cannot make a worker
// safe: a worker paused by GC, swapping or a network stall can outlive its
// lease and keep writing while another worker holds it. Kleppmann's answer
// ("How to do distributed locking", 2016) is a fencing token, a number that
// grows with every acquisition, checked by the storage on every write. Each
// [Client.Acquire] here mints one, as a [fence.Token], and fencegen's
// generated methods store it in each fenced row and reject writes that
// present a lower one. The lease makes collisions rare; the token makes them
// harmless.
//
// # Redis layout
//
// For resource "account:42" and the default key prefix, three keys and a mark:
//
//	fencegen:{account:42}:lock    "<owner>" of the holder, with a TTL (PX): the
//	                              lease itself; gone when released or expired
//	fencegen:{account:42}:token   the fence counter: the last minted token; never has a TTL
//	fencegen:{account:42}:minted  "<owner>:<token>" of the last acquisition that
//	                              minted a token, then the abandon list
//	                              "|<owner>..." while abandon marks live;
//	                              never has a TTL
//
//	fencegen:{account:42}:abandoned:<owner>  set (with a TTL of max(10·TTL, 30s)) by the
//	                              cleanup of an Acquire that gave up, so that its late
//	                              attempts write nothing; and by the Release of a lease
//	                              whose Acquire had an attempt that may still arrive
//	                              (cut off, or written twice), so that it writes nothing
//	                              after the release; both also list the owner in
//	                              :minted's abandon list (at most 64)
//
// The owner is 128 random bits from crypto/rand, fresh for every Acquire.
// The :minted key lets an Acquire retry whose first attempt landed (the
// reply was lost) but whose lock key has since expired or been deleted take
// the lease again with its own token, instead of minting a second one.
// [Client.Keys] returns the first two, [Client.AllKeys] all of them (and
// fencegen:{account:42}:released, which clients before 2026-12-07 wrote).
//
// Release deletes the lock key and writes nothing else: GET, compare, DEL,
// the calls bsm/redislock's release makes. A release sent twice (go-redis
// retries after a connection closed before the reply) finds the key gone,
// or another owner's, on its second run; the Client tells that from a lost
// lease without a record in Redis: the owner argument counts the times
// go-redis wrote the command, and when it was written more than once and
// the reply came back before the lease's local deadline (the last
// acquire's or renewal's send + TTL − SafetyMargin), the key cannot have
// expired before the earlier write arrived, which therefore deleted it:
// Release returns nil, also when another owner took the lock in between.
// A resend whose reply comes after the deadline, or a single write that
// finds the key gone, is [ErrNotHeld], unless the lease was valid when
// Release was called, the key is missing (not another owner's) and the
// reply came after the local deadline: the key expired by its TTL while
// the release was on its way, and Release returns nil (see
// [Lease.Release]). The one misreading left: a key
// deleted by something else (by hand, a failover that lost it) before a
// release that go-redis wrote more than once without the earlier write
// running (a connection that failed first, a cluster redirect) is
// reported as released (nil), not ErrNotHeld. An Acquire retry that finds
// the lock key absent takes no released lease back: an Acquire whose
// attempt may still arrive (cut off, failed after it may have landed, or
// written twice by go-redis) has its Release set the owner's abandon mark,
// as the cleanup of a failed Acquire does, and the retry finds it.
//
// A cycle (Acquire and Release) writes four keys in five calls: the lock
// (SET, DEL), the counter and :minted; bsm/redislock writes the lock
// (SET, DEL) in three. Until 2026-12-07 Release also SET :released to the
// owner (five writes; a client of before then still does, and reads it in
// its own retries, which concern its own owners only), and before
// 2026-12-06 it also marked :minted "<owner>:<token>:released" (six
// writes); until the same day's owner-only lock value the lock key
// and :released held "<owner>:<token>"; the lock key now holds the owner
// alone (the owner is fresh per Acquire, so it names the acquisition; the
// token is in :minted), which spares the acquire script its lock read and
// number formatting (SET NX is the lock check) and both scripts their
// rare-path arguments (bench/redislock BenchmarkScriptWrites). A first
// attempt (the hot path) names no abandon mark: it finds its owner in
// :minted's abandon list, which its SET of :minted (with GET) returns, so
// the check costs no Redis call of its own; retries check their mark with
// EXISTS. A client from before the abandon list (2026-12-06) drops the list
// when it writes :minted, which leaves a late first attempt of a newer
// client's abandoned Acquire free to lock the resource for one TTL (no
// token reaches anyone) until the upgrade is complete. Old and new
// clients can share the keys during an upgrade: each compares only its own
// owners' values, and the renewal scripts, unchanged, take both forms.
//
// The :token and :minted keys (and :released of older clients) are never
// deleted or given a TTL by this package, also after Release: the counter must outlive every
// lease so that tokens keep growing. Every resource ever acquired
// therefore leaves these keys behind, by design; so do tests and applications that use
// throwaway resource names or key prefixes. Delete them only for a
// resource no holder will use again (or whose fenced rows are gone): a
// counter deleted while rows still store its tokens restarts from 1 unless
// Options.HighWater re-seeds it, and the database refuses those lower
// tokens until [Lease.Observe] raises it.
//
// All of them share the hash tag {account:42}, so the scripts, which
// touch several of them, also run on Redis Cluster (otherwise
// CROSSSLOT). Each operation is one Lua script, embedded from its own .lua
// file and sent with EVALSHA; a NOSCRIPT reply (a server that never ran
// them, or was restarted or flushed) loads all of them with SCRIPT LOAD in
// the round trip that sends the call again (on Redis Cluster: EVAL, and
// SCRIPT LOAD on every master in the background); see the Redis EVAL,
// SCRIPT LOAD and SET (NX, PX) command pages:
//
//   - acquire.lua: unless this owner's abandon mark exists (retries), SET
//     the lock key NX PX ttl to the owner; if it was absent, INCR the
//     counter and record "<owner>:<token>" in :minted, carrying its abandon
//     list over (without owners whose marks have expired); if this owner is
//     in the list, undo all three writes and return -2. If the key holds another owner,
//     return 0 ([ErrNotAcquired]); if it already holds this owner (a retry
//     after an ambiguous reply), refresh its TTL and return the token
//     :minted records. A retry that finds the key absent, when :minted
//     shows that this owner minted last and the counter has not moved
//     since, SETs the lock again and returns that token (unless its mark
//     exists: then it writes nothing).
//   - renew.lua: PEXPIRE the lock key only if it holds this owner, else
//     return 0 ([ErrNotOwner]); a missing key is never re-created. The
//     lease sends its whole value (its owner; "<owner>:<token>" from a
//     client before the owner-only lock value), compared with ==; only a
//     key that differs is compared by its owner alone (an older acquire
//     script wrote a token of 1e14 and above as "1e+14").
//     renew_many.lua does the same for up to 1000 leases of one TTL in one
//     call (the TTL sent once, the keys read with MGET, 100 at a time):
//     the heartbeat renews the leases due together with one call per 1000
//     (per hash slot on a cluster), pipelined.
//   - release.lua: DEL the lock key only if it holds this owner, else
//     return 0 ([ErrNotHeld], or nil for a release sent twice, above);
//     never a plain DEL.
//
// The counter key must survive, and never go back: use maxmemory-policy
// noeviction, appendonly yes and appendfsync always, or tokens can restart
// from 1 (no persistence, eviction) or be handed out again (RDB snapshots
// only, or an append-only file synced every second, after a crash).
// [Client.Check] warns at start-up when they are not set. If the counter is lost or
// goes back anyway, Options.HighWater raises it above a durable
// high-water mark at each Client's first Acquire of a resource, and
// re-seeds it whenever it is missing, and
// [Lease.Observe] (applied by [Client.Do]) feeds a *fence.StaleError's
// stored token back through [Client.Advance], so the system recovers.
//
// # One token counter per resource
//
// Tokens are minted per resource name (and key prefix): each has its own
// counter, and tokens of two counters are not comparable. A fenced row must
// therefore only ever be written under leases of one resource, named after
// the row ("account:42" for account 42's row), not after the job. Written
// under two resources ("transfer:42:43" and "account:42"), the leases do
// not exclude each other, and the row's stored token comes from whichever
// counter wrote last: a valid holder of one resource is refused with
// fence.ErrStaleToken on a row the other wrote with a larger token, and a
// stale holder of the larger counter is let through. A job that writes
// several rows holds the lease of each, acquired in a fixed order (sorted
// names), and writes each row with its own lease's token.
//
// # Replicas and failover
//
// A token minted on a primary that dies before its replica has the INCR is
// minted again after the failover, for a second holder, and the non-strict
// guard accepts equal tokens. So with a *redis.Client (a go-redis
// FailoverClient from Sentinel included) the acquire is pipelined with
// WAIT for every replica attached to the primary (INFO replication, read
// in the same round trip: on every acquire while there are replicas, at
// most once a second while there are none; a replica seen after the write
// is waited for too) and returns a token only when every one of them
// acknowledged it, else it releases the lease and fails closed with
// [ErrNotReplicated] (Redisson's synced-replica check). A replica still in
// its initial synchronisation (a demoted primary catching up after a
// failover, say) acknowledges nothing until it is online, so Acquire fails
// closed meanwhile. A replica that attaches to a primary that had none
// within a second of an acquire receives the write in its initial
// synchronisation, but is not waited for; Redis's min-replicas-to-write
// closes that window on the server. A plain
// redis.Scripter, which cannot send WAIT, is refused by [New] unless
// Options.UnsafeNoReplicas states that the server has no replicas, and so
// is a pipelining type that is not a go-redis Client or ClusterClient. On
// Redis Cluster (a *redis.ClusterClient) the pipeline goes to the master
// of the lock key's slot through that node's client, so that the keyless
// WAIT runs on the connection that wrote and counts that master's
// replicas; a MOVED or ASK reply makes the ClusterClient re-read the
// slots, and the attempt is retried. A *redis.Ring is refused whatever the
// options: it moves a shard's resources to another shard when it marks the
// first one down (each process on its own), and that shard's counter is
// behind, so one token could reach two holders without any replica. Renewals and releases do not wait: a lost renewal on the new
// primary only ends the lease early, and the higher token of the next
// holder fences the old one out.
//
// [Client.Acquire] never blocks; [Client.AcquireWait] and [Client.DoWait]
// wait with jittered exponential backoff bounded by the caller's context.
//
// # Lifetime
//
// A [Lease] has its own context ([Lease.Context], [Lease.Done]), not derived
// from the context given to Acquire, and is renewed every HeartbeatInterval
// (default TTL/3) by its Client's heartbeat scheduler, one goroutine that
// pipelines the renewals of all due leases (Redisson-style batching), each
// batch bounded by the time its leases have left: until CallTimeout
// (default TTL/6) before the earliest local deadline of its leases, at
// most HeartbeatInterval and at least CallTimeout after its send, so that
// a Redis slower than CallTimeout but alive keeps the leases (see
// Options.CallTimeout). The scheduler keeps leases of one TTL that are due
// within the same 20ms window in renewal groups of up to 1000: one queue
// entry, one renew_many call and one deadline timer per group, not per
// lease, so 100,000 leases cost one process about a tenth of a core (see
// BENCHMARKS.md). The context is cancelled with a [*LostError] cause
// (errors.Is(err, [ErrLost])) at once when a renewal answers "not owner",
// after MaxRenewFailures (default 2) consecutive failed renewals, or at
// the local deadline: the send time of the last successful acquire or
// renew plus TTL minus SafetyMargin (default TTL/10), measured on Go's
// monotonic clock by a timer, so it fires even if Redis never answers.
// Nothing is derived from Redis TIME or PTTL. [Lease.Release] stops the
// heartbeat, waits for it to exit, compare-and-deletes the key and
// cancels the context with cause [ErrReleased], or with a [*LostError]
// when the key had been taken from the lease before (deleted or
// overwritten, expired). context.Cause therefore
// tells a lost lease from a released one, and both from the caller's own
// cancellation of a context derived from it.
//
// Every script call gets its own deadline (CallTimeout for acquire attempts
// and [Lease.Renew], the bound above for the heartbeat's renewals,
// ReleaseTimeout for releases), enforced by the package itself:
// go-redis applies context deadlines to sockets only when the client sets
// ContextTimeoutEnabled, so otherwise the call is abandoned at its deadline
// and its goroutine ends when go-redis gives up. Setting
// ContextTimeoutEnabled on the client is recommended: the calls are then
// made in the calling goroutine, and an acquire+release cycle is 10-35%
// faster than with the goroutine hand-off per call (BENCHMARKS.md).
// go-redis does not interrupt a socket read when a context is cancelled,
// only at its deadline, so a call whose context can be cancelled runs in a
// goroutine of its own on either client and is abandoned at the
// cancellation; only a context that cannot be cancelled
// (context.Background, context.WithoutCancel) gets the calling goroutine.
// Such a call's deadline arms no timer of its own: go-redis puts it on
// every socket read and write, and one timer per Client closes the call
// context's Done at the deadline for go-redis's waits that select on it (a
// connection dialled in a goroutine of its own, a free pool connection,
// the backoff between its retries).
//
// The design follows bsm/redislock (a redis.Scripter, Lua scripts, options
// with nil-safe defaults) and etcd's client/v3/concurrency Session (a
// lease-scoped context, Done, explicit close).
//
// # A worked flow
//
// Acquire, let the heartbeat run, make a fenced write with the token, and
// release; q.CreditAccount stands for a fencegen-generated method:
//
//	locker := lease.New(rdb, nil)
//	l, err := locker.Acquire(ctx, "account:42", 10*time.Second) // mints token n
//	if errors.Is(err, lease.ErrNotAcquired) {
//		return nil // Redis answered: someone else is doing it
//	} else if err != nil {
//		return err
//	}
//	defer l.Release(context.Background()) // stops the heartbeat, then compare-and-delete
//
//	work, cancel := context.WithCancel(l.Context()) // ends when the lease is lost
//	defer cancel()
//	// Observe raises the counter above a refused write's stored token
//	// (Redis lost its counter); without it every later Acquire mints a
//	// token the database refuses until the counter catches up.
//	err = l.Observe(ctx, q.CreditAccount(work, params, l.Token()))
//	switch {
//	case errors.Is(err, fence.ErrStaleToken):
//		// a newer holder wrote the row, or Redis lost its counter (now
//		// raised): our lease was lost; stop, the next Acquire mints above.
//	case errors.Is(context.Cause(work), lease.ErrLost):
//		// the heartbeat found the lease lost before or during the write.
//	}
//
// [Client.Do] packages the same flow, including release on panic:
//
//	err := locker.Do(ctx, "account:42", 0, func(ctx context.Context, token fence.Token) error {
//		return q.CreditAccount(ctx, params, token)
//	})
//
// A lease that is never released keeps renewing until it is lost; always
// call Release or use Do. Observability: Options.Logger (log/slog),
// Options.Observer callbacks and [Client.Stats] counters of script calls.
package lease
