package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/examples/payouts/payoutsdb"
	"github.com/fencegen/fencegen/runtime/fence"
)

// How a worker pays a payout out (the three runs of the demo).
const (
	// Plain calls the provider without an idempotency key, then marks the
	// payout paid with a fenced write: the write of a stale holder is
	// refused, but its payment has already gone out.
	Plain = "no key, no outbox"
	// Keyed stores an idempotency key in the payout with a fenced write
	// before calling the provider, and every holder calls with the stored
	// key: the provider deduplicates a stale holder's call.
	Keyed = "idempotency key"
	// Outboxed writes an outbox row in the same transaction as the
	// payout's fenced status change; a dispatcher sends it. A stale
	// holder's transaction is refused and rolls back: no row, no payment.
	Outboxed = "outbox"
)

// Modes lists the modes in the order the demo runs them.
var Modes = []string{Plain, Keyed, Outboxed}

// Resource is the lease resource of a payout: one resource per fenced row
// (docs/lease.md, "One token counter per resource").
func Resource(payoutID int64) string { return fmt.Sprintf("payout:%d", payoutID) }

// IdempotencyKey is the key a holder derives for a payout: the resource
// and the holder's fencing token, unique to one decision to pay. Keyed
// stores the first holder's key in the row and every later holder reuses
// it; Outboxed writes it into the outbox row.
func IdempotencyKey(payoutID int64, token fence.Token) string {
	return fmt.Sprintf("%s/%d", Resource(payoutID), token)
}

// Worker pays payouts out through the provider at ProviderURL.
type Worker struct {
	Pool        *pgxpool.Pool
	ProviderURL string
	// Say receives one line per step (nil: none).
	Say func(format string, args ...any)
}

// Plan is what Prepare decided, before the provider is called.
type Plan struct {
	Payout payoutsdb.Payout
	// Skip is set when the payout is no longer pending.
	Skip bool
	// Key is the idempotency key the payment goes out with (Keyed only).
	Key string
}

// Outcome is what Finish did.
type Outcome struct {
	// Ref and Replayed are the provider's answer (Plain and Keyed).
	Ref      string
	Replayed bool
	// Write is the result of the fenced write that records the payment
	// (MarkPaid) or queues it (QueuePayout); a *fence.StaleError when a
	// newer holder wrote the payout.
	Write error
}

func (w Worker) say(format string, args ...any) {
	if w.Say != nil {
		w.Say(format, args...)
	}
}

// Prepare is the part of a payment before the pause in the demo: read the
// payout under the lease and, for Keyed, store the idempotency key (the
// first holder's stays). ctx is the lease's context.
func (w Worker) Prepare(ctx context.Context, mode string, payoutID int64, token fence.Token) (Plan, error) {
	q := payoutsdb.New(w.Pool)
	p, err := q.GetPayout(ctx, payoutID)
	if err != nil {
		return Plan{}, fmt.Errorf("read payout %d: %w", payoutID, err)
	}
	plan := Plan{Payout: p}
	if p.Status != "pending" {
		plan.Skip = true
		w.say("payout %d is %s: nothing to do", payoutID, p.Status)
		return plan, nil
	}
	if mode != Keyed {
		return plan, nil
	}
	stored, err := q.ClaimIdempotencyKey(ctx, payoutsdb.ClaimIdempotencyKeyParams{Key: IdempotencyKey(payoutID, token), ID: payoutID}, token)
	if err != nil {
		return Plan{}, fmt.Errorf("claim the idempotency key of payout %d: %w", payoutID, err)
	}
	plan.Key = stored.String
	if plan.Key == IdempotencyKey(payoutID, token) {
		w.say("stored idempotency key %s in payout %d", plan.Key, payoutID)
	} else {
		w.say("payout %d already has idempotency key %s: using it", payoutID, plan.Key)
	}
	return plan, nil
}

// Finish is the part after the pause: for Plain and Keyed, call the
// provider, then record its reference with the fenced MarkPaid; for
// Outboxed, queue the payment: the fenced QueuePayout and the outbox row
// in one transaction, committed only if the guard let QueuePayout write.
// The error is for failures other than the fenced write's own refusal,
// which is Outcome.Write.
func (w Worker) Finish(ctx context.Context, mode string, plan Plan, token fence.Token) (Outcome, error) {
	var out Outcome
	id := plan.Payout.ID
	if plan.Skip {
		return out, nil
	}
	if mode == Outboxed {
		out.Write = w.queue(ctx, plan.Payout, token)
		var stale *fence.StaleError
		switch {
		case out.Write == nil:
			w.say("queued payout %d and its outbox row (key %s) in one transaction, token %d", id, IdempotencyKey(id, token), token)
		case errors.As(out.Write, &stale):
			w.say("queueing refused by PostgreSQL: fence.ErrStaleToken (stored token %d > %d); rolled back, no outbox row", stale.Stored, token)
		default:
			return out, out.Write
		}
		return out, nil
	}
	res, err := Pay(ctx, w.ProviderURL, PaymentRequest{PayoutID: id, AmountCents: plan.Payout.AmountCents}, plan.Key)
	if err != nil {
		return out, err
	}
	out.Ref, out.Replayed = res.Ref, res.Replayed
	if res.Replayed {
		w.say("provider answered %s again for key %s: no money moved", res.Ref, plan.Key)
	} else if plan.Key != "" {
		w.say("provider paid %s with key %s", res.Ref, plan.Key)
	} else {
		w.say("provider paid %s", res.Ref)
	}
	out.Write = payoutsdb.New(w.Pool).MarkPaid(ctx, payoutsdb.MarkPaidParams{ProviderRef: res.Ref, ID: id}, token)
	var stale *fence.StaleError
	switch {
	case out.Write == nil:
		w.say("marked payout %d paid with token %d", id, token)
	case errors.As(out.Write, &stale):
		w.say("marking paid refused by PostgreSQL: fence.ErrStaleToken (stored token %d > %d)", stale.Stored, token)
	default:
		return out, out.Write
	}
	return out, nil
}

// queue runs QueuePayout and EnqueuePayment in one transaction: the
// outbox row commits only with the guarded status change.
func (w Worker) queue(ctx context.Context, p payoutsdb.Payout, token fence.Token) error {
	key := IdempotencyKey(p.ID, token)
	return pgx.BeginFunc(ctx, w.Pool, func(tx pgx.Tx) error {
		q := payoutsdb.New(w.Pool).WithTx(tx)
		if err := q.QueuePayout(ctx, payoutsdb.QueuePayoutParams{Key: key, ID: p.ID}, token); err != nil {
			return err // a *fence.StaleError rolls the transaction back
		}
		return q.EnqueuePayment(ctx, payoutsdb.EnqueuePaymentParams{PayoutID: p.ID, IdempotencyKey: key, AmountCents: p.AmountCents})
	})
}

// Dispatch sends the outbox's unsent payments to the provider at
// providerURL until none is left, and returns how many it sent. Each row
// is sent in a transaction that locks it (FOR UPDATE SKIP LOCKED, so
// several dispatchers share the work and never send one row at the same
// time) with the row's idempotency key, and marked sent in the same
// transaction. A dispatcher that dies after the provider answered and
// before the commit leaves the row unsent: the next sends it again with
// the same key, and the provider answers without moving money again.
// (Holding a transaction open across the call is this example's
// simplification; a dispatcher that must not can mark the row claimed
// first and send after the commit.)
func Dispatch(ctx context.Context, pool *pgxpool.Pool, providerURL string, say func(format string, args ...any)) (sent int, err error) {
	for {
		done := false
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			q := payoutsdb.New(tx)
			row, err := q.NextUnsent(ctx)
			if errors.Is(err, pgx.ErrNoRows) {
				done = true
				return nil
			}
			if err != nil {
				return err
			}
			res, err := Pay(ctx, providerURL, PaymentRequest{PayoutID: row.PayoutID, AmountCents: row.AmountCents}, row.IdempotencyKey)
			if err != nil {
				return err
			}
			if say != nil {
				say("sent outbox row of payout %d (key %s): provider paid %s", row.PayoutID, row.IdempotencyKey, res.Ref)
			}
			return q.MarkSent(ctx, payoutsdb.MarkSentParams{ProviderRef: res.Ref, ID: row.ID})
		})
		if err != nil {
			return sent, fmt.Errorf("dispatch: %w", err)
		}
		if done {
			return sent, nil
		}
		sent++
	}
}
