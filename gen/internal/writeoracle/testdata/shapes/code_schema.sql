-- Schema statements that other schema statements run (issue 24, trial
-- x24 F8, F11, F12, F14): triggers, a rule and a default created by DO
-- blocks (an IF's branches, a constant EXECUTE, an EXCEPTION block), a
-- table and trigger created as CREATE SCHEMA elements, a base type whose
-- TYPMOD_IN writes, and tables whose defaults or CHECKs write, which a
-- query file's temporary INHERITS child copies. Each writes jobs.
CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'new');
CREATE FUNCTION bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN UPDATE jobs SET state = 'hacked'; RETURN NULL; END $$;
CREATE FUNCTION bumpv() RETURNS int LANGUAGE plpgsql AS $$
BEGIN UPDATE jobs SET state = 'hacked'; RETURN 1; END $$;

CREATE TABLE job_events (id bigint PRIMARY KEY, kind text);
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'job_events_apply') THEN
    CREATE TRIGGER job_events_apply AFTER INSERT ON job_events FOR EACH ROW EXECUTE FUNCTION bump();
  END IF;
END $$;

CREATE TABLE audits (id bigint PRIMARY KEY, note text);
DO $$ BEGIN
  EXECUTE 'CREATE TRIGGER audits_w AFTER UPDATE ON audits FOR EACH ROW EXECUTE FUNCTION bump()';
END $$;

CREATE TABLE inbox (id bigint PRIMARY KEY, body text);
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_rules WHERE rulename = 'inbox_w') THEN
    RAISE NOTICE 'exists';
  ELSE
    CREATE RULE inbox_w AS ON DELETE TO inbox DO ALSO UPDATE jobs SET state = 'hacked';
  END IF;
END $$;

CREATE TABLE stamps (id bigint PRIMARY KEY, v int);
DO $$ BEGIN
  ALTER TABLE stamps ALTER COLUMN v SET DEFAULT bumpv();
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;

CREATE SCHEMA side
  CREATE TABLE ev (id bigint PRIMARY KEY, note text)
  CREATE TRIGGER ev_w AFTER INSERT ON ev FOR EACH ROW EXECUTE FUNCTION public.bump();

CREATE TYPE mt;
CREATE FUNCTION mt_in(cstring) RETURNS mt LANGUAGE internal IMMUTABLE STRICT AS 'int4in';
CREATE FUNCTION mt_out(mt) RETURNS cstring LANGUAGE internal IMMUTABLE STRICT AS 'int4out';
CREATE FUNCTION mt_tmi(cstring[]) RETURNS int LANGUAGE plpgsql AS $$
BEGIN PERFORM bumpv(); RETURN 5; END $$;
CREATE TYPE mt (INPUT = mt_in, OUTPUT = mt_out, INTERNALLENGTH = 4, PASSEDBYVALUE, ALIGNMENT = int4, TYPMOD_IN = mt_tmi);

CREATE TABLE other (id bigint PRIMARY KEY, v int);
CREATE TABLE other2 (id bigint PRIMARY KEY, v int);
CREATE TABLE wd (id bigint, v int DEFAULT bumpv());
CREATE TABLE wc (id bigint, v int CHECK (bumpv() > 0));
