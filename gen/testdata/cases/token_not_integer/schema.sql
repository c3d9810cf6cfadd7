CREATE TABLE a (id BIGINT PRIMARY KEY, tok TEXT NOT NULL);
COMMENT ON COLUMN a.tok IS 'fencegen:token';

CREATE TABLE b (id BIGINT PRIMARY KEY, tok NUMERIC NOT NULL);
COMMENT ON COLUMN b.tok IS 'fencegen:token';

CREATE TABLE c (id BIGINT PRIMARY KEY, tok TIMESTAMPTZ NOT NULL);
COMMENT ON COLUMN c.tok IS 'fencegen:token';

CREATE TABLE d (id BIGINT PRIMARY KEY, tok BIGINT[] NOT NULL);
COMMENT ON COLUMN d.tok IS 'fencegen:token';

-- Tokens are int64 (fence.Token): smallint would fail to encode tokens
-- beyond 32,767 (integer is a vet note: TestIntegerTokenColumnNote).
CREATE TABLE f (id BIGINT PRIMARY KEY, tok SMALLINT NOT NULL);
COMMENT ON COLUMN f.tok IS 'fencegen:token';
