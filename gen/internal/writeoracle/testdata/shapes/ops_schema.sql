-- Functions PostgreSQL runs for an operator the statement does not name
-- (its NEGATOR) and for index-maintenance builtins (issue 24, trial-pg3
-- findings 10 and 8).
CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'new');
CREATE FUNCTION bump() RETURNS int LANGUAGE plpgsql AS $$
BEGIN UPDATE jobs SET state = 'hacked'; RETURN 1; END $$;
CREATE FUNCTION same(a int, b int) RETURNS bool LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN a = b; END $$;
CREATE FUNCTION differ(a int, b int) RETURNS bool LANGUAGE plpgsql AS $$ BEGIN PERFORM bump(); RETURN a <> b; END $$;
CREATE OPERATOR ~=~ (LEFTARG = int, RIGHTARG = int, FUNCTION = same, NEGATOR = !~=~);
CREATE OPERATOR !~=~ (LEFTARG = int, RIGHTARG = int, FUNCTION = differ, NEGATOR = ~=~);
CREATE FUNCTION plain_eq(a int, b int) RETURNS bool LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN a = b; END $$;
CREATE OPERATOR === (LEFTARG = int, RIGHTARG = int, FUNCTION = plain_eq);
CREATE TABLE t (id bigint PRIMARY KEY, n int);
-- (An index expression that writes, which the index-maintenance builtins
-- run, takes an IMMUTABLE function: one that can write a fenced table is
-- an error at its CREATE FUNCTION, analyze's nonVolatileWriters.)
