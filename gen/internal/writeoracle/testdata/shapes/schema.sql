-- The write-shape schema: a fenced table with a view, functions and a
-- materialized view over it, an unfenced table, an unfenced INHERITS parent
-- whose child is fenced, and a partitioned table whose partition is fenced.
CREATE TABLE jobs (
    id bigint PRIMARY KEY,
    state text NOT NULL,
    tok bigint NOT NULL DEFAULT 0
);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';

CREATE TABLE events (
    id bigint PRIMARY KEY,
    job_id bigint,
    note text
);

CREATE TABLE parent (
    id bigint PRIMARY KEY,
    v text
);
CREATE TABLE child (
    tok bigint NOT NULL DEFAULT 0
) INHERITS (parent);
COMMENT ON COLUMN child.tok IS 'fencegen:token';

CREATE TABLE pparent (
    id bigint NOT NULL,
    v text,
    tok bigint NOT NULL DEFAULT 0
) PARTITION BY RANGE (id);
CREATE TABLE ppart PARTITION OF pparent FOR VALUES FROM (0) TO (1000);
COMMENT ON COLUMN ppart.tok IS 'fencegen:token';

CREATE VIEW jobs_v AS SELECT id, state FROM jobs;
CREATE MATERIALIZED VIEW job_states AS SELECT state, count(*) AS n FROM jobs GROUP BY state;

CREATE FUNCTION touch_job(bigint) RETURNS void LANGUAGE sql AS $$ UPDATE jobs SET state = 'touched' WHERE id = $1 $$;
CREATE FUNCTION job_state(bigint) RETURNS text LANGUAGE sql STABLE AS $$ SELECT state FROM jobs WHERE id = $1 $$;
CREATE FUNCTION job_state(text) RETURNS text LANGUAGE sql AS $$ UPDATE jobs SET state = $1 RETURNING state $$;
CREATE FUNCTION says_update() RETURNS text LANGUAGE plpgsql STABLE AS $$ BEGIN RETURN 'UPDATE jobs SET state = 1'; END $$;
CREATE PROCEDURE bump(bigint) LANGUAGE sql AS $$ UPDATE jobs SET state = 'bumped' WHERE id = $1 $$;

-- Writes PostgreSQL makes without the query naming the fenced table: a
-- trigger, a rule and a foreign key's cascade of unfenced tables, a view
-- with an INSTEAD OF trigger and one with a DO INSTEAD rule, a column
-- default that calls a writing function.
CREATE TABLE notes (id bigint PRIMARY KEY, body text);
CREATE FUNCTION notes_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE jobs SET state = 'noted' WHERE id = NEW.id;
    RETURN NEW;
END
$$;
CREATE TRIGGER notes_touch AFTER INSERT OR UPDATE ON notes FOR EACH ROW EXECUTE FUNCTION notes_touch();

CREATE TABLE inbox (id bigint PRIMARY KEY, body text);
CREATE RULE inbox_touch AS ON INSERT TO inbox DO ALSO UPDATE jobs SET state = 'inboxed' WHERE id = NEW.id;

CREATE TABLE tasks (
    id bigint PRIMARY KEY,
    event_id bigint REFERENCES events (id) ON DELETE CASCADE ON UPDATE CASCADE,
    tok bigint NOT NULL DEFAULT 0
);
COMMENT ON COLUMN tasks.tok IS 'fencegen:token';

CREATE VIEW jobs_iv AS SELECT id, state FROM jobs;
CREATE FUNCTION jobs_iv_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE jobs SET state = NEW.state WHERE id = NEW.id;
    RETURN NEW;
END
$$;
CREATE TRIGGER jobs_iv_write INSTEAD OF INSERT OR UPDATE ON jobs_iv FOR EACH ROW EXECUTE FUNCTION jobs_iv_write();

CREATE VIEW jobs_rv AS SELECT id, state FROM jobs;
CREATE RULE jobs_rv_update AS ON UPDATE TO jobs_rv DO INSTEAD UPDATE jobs SET state = NEW.state WHERE id = OLD.id;

CREATE FUNCTION stamp_job() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    UPDATE jobs SET state = 'stamped' WHERE id = 1;
    RETURN 'stamped';
END
$$;
CREATE TABLE stamps (id bigint PRIMARY KEY, v text DEFAULT stamp_job());
