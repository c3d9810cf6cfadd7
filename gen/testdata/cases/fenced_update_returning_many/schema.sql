CREATE TABLE shards (
    id          INTEGER PRIMARY KEY,
    owner       TEXT NOT NULL,
    region      TEXT NOT NULL,
    moved_at    TIMESTAMPTZ,
    epoch       BIGINT NOT NULL DEFAULT 0
);

COMMENT ON COLUMN shards.epoch IS 'fencegen:token';
