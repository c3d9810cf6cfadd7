-- Builtins that run SQL text or read the relations they are given
-- (issue 24, trial-pg3 finding 1): a VOLATILE function reached through
-- the text, or a view over one, writes.
CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'new');
CREATE FUNCTION bump() RETURNS int LANGUAGE plpgsql AS $$
BEGIN UPDATE jobs SET state = 'hacked'; RETURN 1; END $$;
CREATE VIEW bumpview AS SELECT bump() AS b;
