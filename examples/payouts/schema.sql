-- The payouts example: a worker pays each payout out through an outside
-- payment provider, under a Redis lease on the payout.
CREATE TABLE payouts (
    id                 BIGINT PRIMARY KEY,
    amount_cents       BIGINT NOT NULL,
    -- pending, then paid (or queued, when the outbox sends it).
    status             TEXT NOT NULL DEFAULT 'pending',
    -- The idempotency key the payment goes out with, stored by the first
    -- holder that decided to pay: "payout:<id>/<that holder's token>".
    idempotency_key    TEXT,
    -- The provider's reference for the payment, once it answered.
    provider_ref       TEXT,
    last_fencing_token BIGINT NOT NULL DEFAULT 0
);

COMMENT ON COLUMN payouts.last_fencing_token IS 'fencegen:token';

-- The outbox: a row per payment to send, written in the same transaction
-- as the payout's guarded status change, and sent by a dispatcher. Not
-- fenced: a stale holder's row never commits, because its guarded write
-- in the same transaction is refused and the transaction rolls back.
CREATE TABLE payout_outbox (
    id              BIGSERIAL PRIMARY KEY,
    payout_id       BIGINT NOT NULL REFERENCES payouts (id),
    idempotency_key TEXT NOT NULL UNIQUE,
    amount_cents    BIGINT NOT NULL,
    sent_at         TIMESTAMPTZ,
    provider_ref    TEXT
);
