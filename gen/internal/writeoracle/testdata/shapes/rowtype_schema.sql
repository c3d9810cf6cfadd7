-- A table's row type is a composite type: building a value of it runs its
-- columns' domain CHECKs (issue 24, trial-pg3 findings 4, 7 "cc" and 9's
-- ALTER TYPE ... ADD ATTRIBUTE).
CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'new');
CREATE FUNCTION bump() RETURNS int LANGUAGE plpgsql AS $$
BEGIN UPDATE jobs SET state = 'hacked'; RETURN 1; END $$;
CREATE FUNCTION chk(x int) RETURNS bool LANGUAGE plpgsql AS $$ BEGIN PERFORM bump(); RETURN true; END $$;
CREATE DOMAIN pos AS int CHECK (chk(VALUE));
-- notes has the oracle's token column itself: holder.r is of its row type.
CREATE TABLE notes (id bigint PRIMARY KEY, n pos, fence_tok bigint NOT NULL DEFAULT 0);
CREATE TABLE holder (id bigint PRIMARY KEY, r notes);
CREATE TYPE pair AS (a int);
ALTER TYPE pair ADD ATTRIBUTE b pos;
CREATE TABLE pairs (id bigint PRIMARY KEY, p pair);

INSERT INTO jobs (id) VALUES (101), (102);
-- A range type's automatic constructors (issue 24, trial-pg3 finding 2's
-- over-refusal): grange() and gmultirange() exist, and run nothing of the
-- schema.
CREATE TYPE grange AS RANGE (subtype = float8);
