-- The same database as entry b declares it: the tables it writes,
-- without a's foreign keys, trigger, jobs and app.runs.
CREATE TABLE parents (id bigint PRIMARY KEY, code text UNIQUE, name text NOT NULL);
CREATE TABLE kinds (id bigint PRIMARY KEY, label text);
CREATE TABLE owners (id bigint PRIMARY KEY, name text NOT NULL);
CREATE TABLE runs (id bigint PRIMARY KEY, state text NOT NULL);
CREATE FUNCTION drop_parent(p bigint) RETURNS void LANGUAGE sql AS $$
  DELETE FROM parents WHERE id = p;
$$;
CREATE FUNCTION add_kind(k bigint) RETURNS void LANGUAGE sql AS $$
  INSERT INTO kinds (id, label) VALUES (k, 'k');
$$;
CREATE VIEW parents_v AS SELECT id, code, name FROM parents;
CREATE TABLE retired (id bigint PRIMARY KEY);
CREATE FUNCTION retire() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM parents WHERE id = NEW.id;
  RETURN NEW;
END
$$;
CREATE TRIGGER retired_parent AFTER INSERT ON retired FOR EACH ROW EXECUTE FUNCTION retire();
-- Entry b's own objects of the names entry a's schema defines otherwise
-- (trial r24s N11 to N19; where a's came first, the database keeps a's).
CREATE TABLE notes (id bigint PRIMARY KEY, v varchar(20));
CREATE FUNCTION helper(i bigint) RETURNS bigint LANGUAGE sql AS $$ SELECT 1::bigint $$;
CREATE FUNCTION lookup(i bigint) RETURNS bigint LANGUAGE sql AS $$ SELECT 1::bigint $$;
CREATE FUNCTION opf(a bigint, b bigint) RETURNS boolean LANGUAGE sql AS $$ SELECT true $$;
CREATE OPERATOR === (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = opf);
CREATE TABLE IF NOT EXISTS rep (id bigint);
