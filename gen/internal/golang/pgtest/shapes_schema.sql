-- Write shapes of fenced tables beyond the plain ones (shapes.sql).

CREATE TABLE sources (id BIGINT PRIMARY KEY, status TEXT NOT NULL, owner TEXT);

-- A partitioned fenced table, marked after its partitions exist (as in a
-- pg_dump), one partition attached by ALTER.
CREATE TABLE events (
    id      BIGINT NOT NULL,
    region  TEXT NOT NULL,
    payload TEXT NOT NULL,
    tok     BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (id, region)
) PARTITION BY LIST (region);
CREATE TABLE events_eu PARTITION OF events FOR VALUES IN ('eu');
CREATE TABLE events_us (id BIGINT NOT NULL, region TEXT NOT NULL, payload TEXT NOT NULL, tok BIGINT NOT NULL DEFAULT 0);
ALTER TABLE events ATTACH PARTITION events_us FOR VALUES IN ('us');
COMMENT ON COLUMN events.tok IS 'fencegen:token';

-- Inheritance: a key of the parent can match a row in each child.
CREATE TABLE things (id BIGINT PRIMARY KEY, v TEXT NOT NULL, tok BIGINT NOT NULL DEFAULT 0);
COMMENT ON COLUMN things.tok IS 'fencegen:token';
CREATE TABLE special_things (extra TEXT) INHERITS (things);

-- Upserts by conflict columns and by constraint name.
CREATE TABLE settings (
    id    BIGINT PRIMARY KEY,
    name  TEXT NOT NULL,
    value TEXT NOT NULL,
    tok   BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT settings_name_uq UNIQUE (name)
);
COMMENT ON COLUMN settings.tok IS 'fencegen:token';

-- Strict, with one query that is non-strict.
CREATE TABLE ledgers (id BIGINT PRIMARY KEY, total BIGINT NOT NULL, tok BIGINT NOT NULL DEFAULT 0);
COMMENT ON COLUMN ledgers.tok IS 'fencegen:token strict';
