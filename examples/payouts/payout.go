package main

import (
	"context"
	"time"

	"github.com/fencegen/fencegen/examples/payouts/payoutsdb"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
)

// PayOut pays payout id out through the provider at providerURL, exactly
// once however many workers run it and however long they pause: under the
// lease on the payout, the first holder stores the idempotency key
// "payout:<id>/<its token>" with a fenced write, every holder calls the
// provider with the stored key (the provider moves money once per key),
// and the provider's reference is stored with a fenced write. It returns
// an error matching fence.ErrStaleToken when a newer holder wrote the
// payout, lease.ErrNotAcquired when another worker holds the lease, and
// lease.ErrLost when the lease was lost while it ran.
func PayOut(ctx context.Context, locker *lease.Client, q *payoutsdb.Queries, providerURL string, id int64) error {
	return locker.Do(ctx, Resource(id), 10*time.Second, func(ctx context.Context, token fence.Token) error {
		p, err := q.GetPayout(ctx, id)
		if err != nil || p.Status == "paid" {
			return err
		}
		key, err := q.ClaimIdempotencyKey(ctx, payoutsdb.ClaimIdempotencyKeyParams{Key: IdempotencyKey(id, token), ID: id}, token)
		if err != nil {
			return err // errors.Is(err, fence.ErrStaleToken): a newer holder took over
		}
		res, err := Pay(ctx, providerURL, PaymentRequest{PayoutID: id, AmountCents: p.AmountCents}, key.String)
		if err != nil {
			return err
		}
		return q.MarkPaid(ctx, payoutsdb.MarkPaidParams{ProviderRef: res.Ref, ID: id}, token)
	})
}
