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
