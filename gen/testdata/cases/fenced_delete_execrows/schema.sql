CREATE TABLE sessions (
    id          UUID PRIMARY KEY,
    user_id     BIGINT NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL,
    token       BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE banned_users (
    user_id BIGINT PRIMARY KEY
);

COMMENT ON COLUMN sessions.token IS 'fencegen:token';
