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

-- Writes through a TRUNCATE trigger, a materialized view's query, a
-- foreign key's SET DEFAULT, a domain's CHECK, an event trigger, an
-- aggregate's state function, an operator and a set-returning function.
CREATE TABLE logs (id bigint PRIMARY KEY, msg text);
CREATE FUNCTION logs_truncated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET state = 'truncated'; RETURN NULL; END $$;
CREATE TRIGGER logs_truncated AFTER TRUNCATE ON logs FOR EACH STATEMENT EXECUTE FUNCTION logs_truncated();
CREATE FUNCTION write_id() RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET state = 'w' WHERE id = 1; RETURN 1; END $$;
CREATE MATERIALIZED VIEW stamped AS SELECT write_id() AS id WITH NO DATA;
-- A writer in a prepared statement (trial N9's shape): declared IMMUTABLE,
-- the planner would fold it while planning EXPLAIN EXECUTE, and the
-- schema would be an error at its CREATE FUNCTION (analyze's
-- nonVolatileWriters, trial t24 F1-F3); VOLATILE, planning runs it not.
CREATE FUNCTION folded_write(n bigint) RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN PERFORM write_id(); RETURN n; END $$;
CREATE TABLE refs (id bigint PRIMARY KEY);
CREATE TABLE holders (id bigint PRIMARY KEY, ref_id bigint DEFAULT write_id() REFERENCES refs (id) ON DELETE SET DEFAULT);
CREATE DOMAIN checked_text AS text CHECK (write_id() = 1);
CREATE TABLE checked (id bigint PRIMARY KEY, v checked_text);
CREATE FUNCTION on_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET state = 'ddl' WHERE id = 1; END $$;
CREATE EVENT TRIGGER on_ddl ON ddl_command_end WHEN TAG IN ('CREATE VIEW') EXECUTE FUNCTION on_ddl();
CREATE FUNCTION write_agg_sfunc(bigint, bigint) RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET state = 'agg' WHERE id = 1; RETURN coalesce($1, 0) + $2; END $$;
CREATE AGGREGATE write_sum(bigint) (SFUNC = write_agg_sfunc, STYPE = bigint);
CREATE FUNCTION write_eq(bigint, bigint) RETURNS boolean LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET state = 'op' WHERE id = 1; RETURN $1 = $2; END $$;
CREATE OPERATOR === (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = write_eq);
CREATE FUNCTION jobs_rows() RETURNS SETOF bigint LANGUAGE sql AS $$ UPDATE jobs SET state = 'srf' RETURNING id $$;

-- Views written (issue 24 precision): automatically updatable views over an
-- unfenced table and over fenced ones, views on views, WITH CHECK OPTION,
-- security_barrier, FROM ONLY over a parent whose child is fenced, a view
-- over a table whose trigger writes a fenced table, INSTEAD OF triggers and
-- rules that take some events only, a view with a column default, a view
-- that is not automatically updatable, and a view whose fenced base table
-- was renamed and replaced by an unfenced one of the old name (PostgreSQL
-- binds the view to the renamed table).
CREATE VIEW logs_v AS SELECT id, msg FROM logs;
CREATE VIEW logs_vv AS SELECT id, msg FROM logs_v WHERE id > 0 WITH CASCADED CHECK OPTION;
CREATE VIEW logs_sb WITH (security_barrier) AS SELECT id, msg FROM logs WHERE id > 0;
CREATE VIEW jobs_vv AS SELECT id, state FROM jobs_v WHERE id > 0 WITH LOCAL CHECK OPTION;
CREATE VIEW jobs_sb WITH (security_barrier = true) AS SELECT id, state FROM jobs;
CREATE VIEW parent_v AS SELECT id, v FROM parent;
CREATE VIEW parent_only_v AS SELECT id, v FROM ONLY parent;
CREATE VIEW notes_v AS SELECT id, body FROM notes;
CREATE VIEW jobs_lv AS SELECT id, state FROM jobs;
CREATE FUNCTION jobs_lv_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE logs SET msg = NEW.state WHERE id = NEW.id;
    RETURN NEW;
END
$$;
CREATE TRIGGER jobs_lv_write INSTEAD OF UPDATE ON jobs_lv FOR EACH ROW EXECUTE FUNCTION jobs_lv_write();
CREATE VIEW jobs_nv AS SELECT id, state FROM jobs;
CREATE RULE jobs_nv_delete AS ON DELETE TO jobs_nv DO INSTEAD DELETE FROM logs WHERE id = OLD.id;
CREATE VIEW jobs_dv AS SELECT DISTINCT id, state FROM jobs;
CREATE TRIGGER jobs_dv_write INSTEAD OF UPDATE ON jobs_dv FOR EACH ROW EXECUTE FUNCTION jobs_lv_write();
CREATE VIEW logs_dv AS SELECT id, msg FROM logs;
ALTER VIEW logs_dv ALTER COLUMN msg SET DEFAULT stamp_job();
CREATE VIEW jobs_lvv AS SELECT id, state FROM jobs_lv;
CREATE TABLE old_jobs (id bigint PRIMARY KEY, state text, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN old_jobs.tok IS 'fencegen:token';
CREATE VIEW old_jobs_v AS SELECT id, state FROM old_jobs;
ALTER TABLE old_jobs RENAME TO older_jobs;
CREATE TABLE old_jobs (id bigint PRIMARY KEY, state text);
CREATE FUNCTION write_logs_v(bigint) RETURNS void LANGUAGE sql AS $$ UPDATE logs_v SET msg = 'f' WHERE id = $1 $$;
CREATE FUNCTION write_jobs_v(bigint) RETURNS void LANGUAGE sql AS $$ UPDATE jobs_vv SET state = 'f' WHERE id = $1 $$;
CREATE TABLE logs_rule (id bigint PRIMARY KEY);
CREATE RULE logs_rule_touch AS ON INSERT TO logs_rule DO ALSO UPDATE logs_v SET msg = 'r' WHERE id = NEW.id;

-- Objects a fenced table's columns depend on (issue 24, trial-pg3 16): a
-- DROP ... CASCADE of one drops the columns, ALTER TYPE ... RENAME VALUE
-- rewrites them; those of an unfenced table alike.
CREATE TYPE mood AS ENUM ('sad', 'ok');
CREATE DOMAIN label AS text;
CREATE TABLE feelings (id bigint PRIMARY KEY, m mood, l label, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN feelings.tok IS 'fencegen:token';
CREATE TYPE hue AS ENUM ('red', 'blue');
CREATE DOMAIN tag AS text;
CREATE TABLE colours (id bigint PRIMARY KEY, h hue, t tag);
CREATE FUNCTION feelings_guard() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
CREATE TRIGGER feelings_guard BEFORE UPDATE ON feelings FOR EACH ROW EXECUTE FUNCTION feelings_guard();

-- Tables named like the guard's WITH queries (issue 24, trial-pg3 18): a
-- guarded write that reads them gets WITH queries of other names.
CREATE TABLE fence_check (fence_key_1 bigint);
CREATE TABLE fence_lock (id bigint);
CREATE TABLE fence_lock_1 (id bigint);

-- Triggers declared UPDATE OF a column (issue 24 F3): PostgreSQL fires
-- them only for an UPDATE whose SET list (an upsert's DO UPDATE, a MERGE's
-- UPDATE actions) names the column; one on an unfenced table writes the
-- fenced one, one on the fenced table replaces the token it stores.
CREATE TABLE watched (id bigint PRIMARY KEY, v text, w text);
CREATE FUNCTION watched_touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET state = 'watched' WHERE id = NEW.id; RETURN NEW; END $$;
CREATE TRIGGER watched_touch AFTER UPDATE OF w ON watched FOR EACH ROW EXECUTE FUNCTION watched_touch();
CREATE TABLE gauges (id bigint PRIMARY KEY, v text, w text, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN gauges.tok IS 'fencegen:token';
CREATE FUNCTION gauges_reset() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.tok := 0; RETURN NEW; END $$;
CREATE TRIGGER gauges_reset BEFORE UPDATE OF w ON gauges FOR EACH ROW EXECUTE FUNCTION gauges_reset();
