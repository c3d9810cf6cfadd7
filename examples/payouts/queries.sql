-- name: CreatePayout :exec
-- CreatePayout is what the API that accepts payouts runs, outside any
-- lease: the token column's DEFAULT (0) is below every token a lease mints.
INSERT INTO payouts (id, amount_cents, last_fencing_token) VALUES (@id, @amount_cents, DEFAULT);

-- name: GetPayout :one
SELECT * FROM payouts WHERE id = @id;

-- name: MarkPaid :exec
-- MarkPaid records the provider's answer: a stale holder's call is refused
-- here, after its payment went out (what fencing does not cover).
UPDATE payouts SET status = 'paid', provider_ref = @provider_ref::text WHERE id = @id;

-- name: ClaimIdempotencyKey :one
-- ClaimIdempotencyKey stores key as the payout's idempotency key unless a
-- holder stored one before, and returns the stored one: every holder sends
-- the payment with the key of the first holder that decided to pay.
UPDATE payouts SET idempotency_key = coalesce(idempotency_key, @key::text) WHERE id = @id
RETURNING idempotency_key;

-- name: QueuePayout :exec
-- QueuePayout marks a payout queued; the same transaction writes its
-- outbox row (EnqueuePayment), so a refused QueuePayout sends nothing.
UPDATE payouts SET status = 'queued', idempotency_key = @key::text WHERE id = @id;

-- name: EnqueuePayment :exec
INSERT INTO payout_outbox (payout_id, idempotency_key, amount_cents)
VALUES (@payout_id, @idempotency_key, @amount_cents);

-- name: NextUnsent :one
-- NextUnsent locks the oldest unsent outbox row; SKIP LOCKED lets several
-- dispatchers run at once, each on its own row.
SELECT * FROM payout_outbox WHERE sent_at IS NULL ORDER BY id LIMIT 1
FOR UPDATE SKIP LOCKED;

-- name: MarkSent :exec
UPDATE payout_outbox SET sent_at = now(), provider_ref = @provider_ref::text WHERE id = @id;

-- name: OutboxRows :many
SELECT * FROM payout_outbox WHERE payout_id = @payout_id ORDER BY id;
