package lease

import (
	"errors"
	"fmt"

	"github.com/fencegen/fencegen/runtime/fence"
)

var (
	// ErrNotAcquired is returned by [Client.Acquire] and [Client.Do] when
	// another owner holds the lease. It is a definitive answer from Redis:
	// nothing was written. Test for it with errors.Is.
	ErrNotAcquired = errors.New("lease: not acquired")

	// ErrLost is the sentinel for a lease that stopped being valid before it
	// was released: Redis answered a renewal with "not owner", renewals kept
	// failing, or the local deadline passed. The lease context's cause is
	// then a [*LostError], whose Unwrap includes ErrLost.
	ErrLost = errors.New("lease: lost")

	// ErrNotOwner is the definitive "not owner" answer of the renew script:
	// the lock key was missing or held another owner's value. It appears as
	// [LostError.Err] with [ReasonNotOwner].
	ErrNotOwner = errors.New("lease: not owner")

	// ErrReleased is the cause of a lease context cancelled by
	// [Lease.Release] (or by [Client.Do] returning) while the lease was still
	// valid. [Lease.Renew] returns it after Release.
	ErrReleased = errors.New("lease: released")

	// ErrNotHeld is returned (wrapped) by [Lease.Release] when the
	// compare-and-delete found the lock key missing or held by another
	// owner: the lease had already expired or been taken over, and nothing
	// was deleted.
	ErrNotHeld = errors.New("lease: not held")

	// ErrAcquireTooSlow is returned by [Client.Acquire] when the acquire
	// reply arrived after the validity floor: more than TTL − SafetyMargin
	// elapsed since the request was sent. The lease that was taken is
	// released (compare-and-delete) before Acquire returns.
	ErrAcquireTooSlow = errors.New("lease: acquire reply arrived too late")

	// ErrConfig marks a configuration error, never a lease outcome: invalid
	// Options or TTL, or a Redis reply that no retry can fix (CROSSSLOT or
	// "non local key" on Redis Cluster, WRONGTYPE on a lease key, NOPERM,
	// an unknown command, a failing script, a failing high-water mark
	// hook). [Client.Acquire] wraps it around the underlying error (both
	// match errors.Is) and never reports such an error as
	// [ErrNotAcquired]; [Client.AcquireWait] does not retry it.
	ErrConfig = errors.New("lease: configuration error")

	// ErrUnsafeConfig is wrapped by the error [Client.Check] returns when
	// the Redis server's settings can lose lease state: an eviction policy
	// other than noeviction, or no persistence.
	ErrUnsafeConfig = errors.New("lease: unsafe Redis configuration")

	// ErrInvalidResource is returned by [Client.Acquire] for an empty
	// resource name or one containing '{' or '}', which would break the
	// shared hash tag of the lease keys.
	ErrInvalidResource = errors.New("lease: invalid resource name")
)

// Reason says why a lease was lost. See the Reason* constants.
type Reason string

const (
	// ReasonNotOwner: a renewal got the definitive answer that the lock key
	// is missing or belongs to another owner (it expired, was evicted,
	// deleted or taken over). The lease context is cancelled at once.
	ReasonNotOwner Reason = "not owner"
	// ReasonRenewFailed: MaxRenewFailures consecutive renewals failed with
	// errors or timeouts, so Redis may or may not still hold the key.
	ReasonRenewFailed Reason = "renewals failed"
	// ReasonDeadline: the local deadline passed, send time of the last
	// successful acquire or renew + TTL − SafetyMargin on the monotonic
	// clock, without a successful renewal (e.g. Redis never answered).
	ReasonDeadline Reason = "local deadline passed"
	// ReasonSuperseded: a fenced write made with the lease's token was
	// refused because the row stores a higher token ([Lease.Observe] saw a
	// *fence.StaleError): a later acquisition exists, or Redis lost the
	// counter and re-minted lower tokens. Err is the *fence.StaleError.
	ReasonSuperseded Reason = "superseded by a higher token"
)

// LostError is the cause of a lease context cancelled because the lease was
// lost, retrieved with context.Cause(l.Context()). Its Unwrap returns
// [ErrLost] and, when set, Err; so errors.Is(err, ErrLost) holds for every
// lost lease and errors.Is(err, ErrNotOwner) for a takeover.
type LostError struct {
	// Resource is the name passed to Acquire.
	Resource string
	// Token is the fencing token of the lost lease.
	Token fence.Token
	// Reason says what detected the loss.
	Reason Reason
	// Err is the underlying error: ErrNotOwner for ReasonNotOwner, the last
	// renewal error for ReasonRenewFailed, and for ReasonDeadline the last
	// renewal error if any (else nil).
	Err error
}

// Error returns "lease: lost <resource> (token <n>): <reason>[: <err>]".
func (e *LostError) Error() string {
	msg := fmt.Sprintf("lease: lost %q (token %d): %s", e.Resource, e.Token, e.Reason)
	if e.Err != nil && !errors.Is(e.Err, ErrNotOwner) {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns ErrLost and, when non-nil, Err.
func (e *LostError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrLost}
	}
	return []error{ErrLost, e.Err}
}
