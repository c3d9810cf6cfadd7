-- The database, as entry a declares it: fenced jobs, which foreign keys
-- and a trigger reach from tables entry b also declares (without them),
-- and fenced app.runs beside public.runs (trial r24 N6, N8).
CREATE SCHEMA app;
CREATE TABLE parents (id bigint PRIMARY KEY, code text UNIQUE, name text NOT NULL);
CREATE TABLE kinds (id bigint PRIMARY KEY, label text);
CREATE TABLE owners (id bigint PRIMARY KEY, name text NOT NULL);
CREATE TABLE jobs (
  id bigint PRIMARY KEY,
  parent_id bigint REFERENCES parents (id) ON DELETE CASCADE,
  parent_code text REFERENCES parents (code) ON UPDATE CASCADE,
  kind_id bigint REFERENCES kinds (id) ON DELETE SET NULL,
  state text NOT NULL,
  tok bigint NOT NULL DEFAULT 0
);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';
CREATE FUNCTION owner_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE jobs SET state = 'owner ' || NEW.name WHERE id = NEW.id;
  RETURN NEW;
END
$$;
CREATE TRIGGER owners_touch AFTER UPDATE OF name ON owners FOR EACH ROW EXECUTE FUNCTION owner_touch();
CREATE TABLE runs (id bigint PRIMARY KEY, state text NOT NULL);
CREATE TABLE app.runs (id bigint PRIMARY KEY, state text NOT NULL, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN app.runs.tok IS 'fencegen:token';
-- Objects of entry a that names in entry b's queries reach in the shared
-- database, though b's schema has none or others of those names (trial
-- r24s N11, N12, N13, N19): an overload b's call picks (helper(integer)
-- for helper(1), upper(varchar) for a varchar column), a function of
-- another schema, an operator whose function differs, a view over a
-- writing function where b has a table, an event trigger. (A policy is
-- left out: the oracle's superuser bypasses row-level security.)
CREATE FUNCTION helper(i integer) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN UPDATE jobs SET state = 'helper'; RETURN 1; END
$$;
CREATE FUNCTION app.lookup(i bigint) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN UPDATE app.runs SET state = 'lookup'; RETURN 1; END
$$;
CREATE FUNCTION upper(s varchar) RETURNS text LANGUAGE plpgsql AS $$
BEGIN UPDATE jobs SET state = 'upper'; RETURN s; END
$$;
CREATE FUNCTION opf(a bigint, b bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN UPDATE jobs SET state = 'operator'; RETURN true; END
$$;
CREATE OPERATOR === (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = opf);
CREATE FUNCTION vw(i bigint) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN UPDATE jobs SET state = 'view'; RETURN i; END
$$;
CREATE VIEW rep AS SELECT vw(id) AS id FROM kinds;
CREATE FUNCTION ddl_touch() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN UPDATE jobs SET state = 'ddl'; END
$$;
CREATE EVENT TRIGGER ddl_touch ON ddl_command_end WHEN TAG IN ('CREATE VIEW') EXECUTE FUNCTION ddl_touch();
