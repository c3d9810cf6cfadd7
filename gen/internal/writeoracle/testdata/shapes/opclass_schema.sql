-- An operator class's operator runs where the planner picks its index,
-- and a COMMUTATOR where it swaps the operands to match one (issue 24,
-- trial-pg3 finding 10, case com): every statement may run it.
CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'new');
CREATE FUNCTION bump() RETURNS int LANGUAGE plpgsql AS $$
BEGIN UPDATE jobs SET state = 'hacked'; RETURN 1; END $$;
CREATE FUNCTION eqw(a int, b int) RETURNS bool LANGUAGE plpgsql AS $$ BEGIN PERFORM bump(); RETURN a = b; END $$;
CREATE FUNCTION eqh(a int, b int) RETURNS bool LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN a = b; END $$;
CREATE OPERATOR ~~= (LEFTARG = int, RIGHTARG = int, FUNCTION = eqh, COMMUTATOR = =~~);
CREATE OPERATOR =~~ (LEFTARG = int, RIGHTARG = int, FUNCTION = eqw, COMMUTATOR = ~~=);
CREATE TABLE t (id bigint PRIMARY KEY, n int);
CREATE OPERATOR CLASS myops FOR TYPE int USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =~~, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 btint4cmp(int, int);
CREATE INDEX t_n ON t (n myops);
INSERT INTO t SELECT g, g FROM generate_series(1, 5000) g;
ANALYZE t;
