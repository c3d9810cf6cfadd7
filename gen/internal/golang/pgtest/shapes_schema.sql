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

-- Types whose name alone means one character or bit.
CREATE TABLE codes (id BIGINT PRIMARY KEY, c3 CHAR(3) NOT NULL, b3 BIT(3) NOT NULL, tok BIGINT NOT NULL DEFAULT 0);
COMMENT ON COLUMN codes.tok IS 'fencegen:token';

-- A partial unique index as an upsert's conflict target, and a parent
-- with an INHERITS child (whose rows its unique index does not hold).
CREATE TABLE users (id BIGINT PRIMARY KEY, email TEXT NOT NULL, deleted BOOLEAN NOT NULL DEFAULT false, tok BIGINT NOT NULL DEFAULT 0);
CREATE UNIQUE INDEX users_live_email ON users (email) WHERE NOT deleted;
COMMENT ON COLUMN users.tok IS 'fencegen:token';
CREATE TABLE bases (id BIGINT PRIMARY KEY, v TEXT NOT NULL, tok BIGINT NOT NULL DEFAULT 0);
COMMENT ON COLUMN bases.tok IS 'fencegen:token';
CREATE TABLE sub_bases (PRIMARY KEY (id)) INHERITS (bases);

-- Strict and partitioned, with a non-strict query on one partition.
CREATE TABLE logs (id BIGINT NOT NULL, day INT NOT NULL, msg TEXT NOT NULL, tok BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (id, day)) PARTITION BY RANGE (day);
CREATE TABLE logs_early PARTITION OF logs FOR VALUES FROM (0) TO (100);
COMMENT ON COLUMN logs.tok IS 'fencegen:token strict';
