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
