-- A range type's subtype_diff, run by a GiST index over it (issue 24,
-- trial-pg3 finding 2), is IMMUTABLE, as PostgreSQL requires: one that can
-- write a fenced table is an error at its CREATE FUNCTION (analyze's
-- nonVolatileWriters; trial N14's writing shapes are its tests), so the
-- one here only computes, and a statement that writes slots writes no
-- fenced table. (600 rows give the index inner pages, where an insert
-- calls it.)
CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'new');
CREATE FUNCTION fdiff(a float8, b float8) RETURNS float8 LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN RETURN a - b; END $$;
CREATE TYPE frange AS RANGE (subtype = float8, subtype_diff = fdiff);
CREATE TABLE slots (id bigint PRIMARY KEY, r frange);
CREATE INDEX slots_r ON slots USING gist (r);
INSERT INTO slots SELECT g, frange(g, g + 3) FROM generate_series(1, 600) g;
