-- Functions of the schema with the name of one of PostgreSQL's own (trial
-- r24 F7): one with its parameter types too is never reached by an
-- unqualified call, which runs pg_catalog's (searched first); one with
-- other parameter types is, where the argument's type matches it exactly.
CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'new');
CREATE FUNCTION public.lower(text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN UPDATE jobs SET state = 'hacked'; RETURN $1; END $$;
CREATE FUNCTION public.upper(varchar) RETURNS text LANGUAGE plpgsql AS $$
BEGIN UPDATE jobs SET state = 'hacked'; RETURN $1; END $$;
CREATE FUNCTION public.length(text) RETURNS int LANGUAGE plpgsql AS $$
BEGIN UPDATE jobs SET state = 'hacked'; RETURN 0; END $$;
