// Package fence holds the fencing-token types shared by fencegen's generated
// code and its lease runtime.
//
// A fencing token is a number that grows with every acquisition of a lease
// (Kleppmann, "How to do distributed locking", 2016). Each fenced row stores
// the highest token that wrote it, and a write presenting a lower token is
// rejected by the database itself, in the same statement as the write. A
// worker that lost its lease during a GC pause or a network stall therefore
// cannot overwrite what a newer holder wrote.
//
// The package depends only on the standard library: generated repositories
// import it, so they never pull the Redis client into a user's build. The
// readers that generated methods run their writes through live in
// github.com/fencegen/fencegen/runtime/fenceimpl, which only generated code
// imports.
//
// A worked flow, with the lease runtime in
// github.com/fencegen/fencegen/runtime/lease and a generated method
// CreditAccount:
//
//	l, err := locker.Acquire(ctx, "account:42", 10*time.Second) // mints token n
//	if err != nil { ... }
//	defer l.Release(context.Background())
//	err = q.CreditAccount(l.Context(), params, l.Token())
//	var stale *fence.StaleError
//	switch {
//	case errors.As(err, &stale):
//		// a newer holder (token stale.Stored) wrote the row: stop
//	case errors.Is(err, fence.ErrNotFound):
//		// no row matched: not a fencing problem
//	}
//
// [ErrStaleToken] and [ErrNotFound] are distinct results: a missing row is
// never reported as a stale token, and a stale token never as a missing row.
package fence
