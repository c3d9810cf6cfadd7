-- A range type's subtype_diff, run by a GiST index over it (issue 24,
-- trial-pg3 finding 2): every statement may run it. (It writes only once
-- jobs has rows, so that loading slots, whose index calls it, stays quick;
-- 600 rows give the index inner pages, where an insert calls it.)
CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'new');
CREATE FUNCTION bump() RETURNS int LANGUAGE plpgsql AS $$
BEGIN UPDATE jobs SET state = 'hacked'; RETURN 1; END $$;
CREATE FUNCTION fdiff(a float8, b float8) RETURNS float8 LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN IF EXISTS (SELECT FROM jobs) THEN PERFORM bump(); END IF; RETURN a - b; END $$;
CREATE TYPE frange AS RANGE (subtype = float8, subtype_diff = fdiff);
CREATE TABLE slots (id bigint PRIMARY KEY, r frange);
CREATE INDEX slots_r ON slots USING gist (r);
INSERT INTO slots SELECT g, frange(g, g + 3) FROM generate_series(1, 600) g;
