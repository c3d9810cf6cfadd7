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
CREATE FUNCTION chk(x int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN PERFORM bump(); RETURN x; END $$;
CREATE TABLE readings (id bigint PRIMARY KEY, v int);
CREATE INDEX readings_brin ON readings USING brin ((chk(v))) WITH (pages_per_range = 1);
INSERT INTO readings SELECT g, g FROM generate_series(1, 2000) g;
