-- name: UpdateViaView :exec
UPDATE jobs_v SET state = 'v' WHERE id = @id;

-- name: CallTouch :exec
SELECT touch_job(@id::bigint);

-- name: ExplainOnly :exec
EXPLAIN UPDATE jobs SET state = 'x';

-- name: ExplainAnalyze :exec
EXPLAIN ANALYZE UPDATE jobs SET state = 'x';

-- name: DeclareOverSelect :exec
DECLARE c1 CURSOR FOR SELECT id FROM jobs;

-- name: ReadOverload :one
SELECT job_state(@id::bigint);

-- name: WriteOverload :one
SELECT job_state(@state::text);

-- name: MentionsUpdate :one
SELECT says_update();

-- name: RefreshStates :exec
REFRESH MATERIALIZED VIEW job_states;

-- name: DeleteUnfenced :exec
DELETE FROM events WHERE id = @id;

-- name: UpdateFenced :exec
UPDATE jobs SET state = @state WHERE id = @id;

-- name: UpsertFenced :exec
INSERT INTO jobs (id, state) VALUES (@id, @state)
ON CONFLICT (id) DO UPDATE SET state = excluded.state;

-- name: UpdateChild :exec
UPDATE child SET v = @v WHERE id = @id;

-- name: DeleteFenced :exec
DELETE FROM jobs WHERE id = @id;

-- name: InsertFenced :exec
INSERT INTO jobs (id, state) VALUES (@id, @state);

-- name: WithUnderSelect :many
WITH u AS (UPDATE jobs SET state = 'u' WHERE id = @id RETURNING id) SELECT id FROM u;

-- name: WithUnderValues :one
WITH u AS (DELETE FROM jobs WHERE id = @id RETURNING id) VALUES ((SELECT count(*) FROM u));

-- name: WithUnderUnion :many
WITH u AS (UPDATE jobs SET state = 'n' WHERE id = @id RETURNING id) SELECT id FROM u UNION ALL SELECT 0;

-- name: WithUnderInsert :exec
WITH u AS (UPDATE jobs SET state = 'i' WHERE id = @id RETURNING id) INSERT INTO events (id) SELECT id + 100 FROM u;

-- name: WithUnderUpdate :exec
WITH u AS (UPDATE jobs SET state = 'e' WHERE id = @id RETURNING id) UPDATE events SET note = 'e' FROM u WHERE events.id = u.id;

-- name: UpdateParent :exec
UPDATE parent SET v = @v WHERE id = @id;

-- name: UpdateOnlyParent :exec
UPDATE ONLY parent SET v = @v WHERE id = @id;

-- name: InsertParent :exec
INSERT INTO parent (id, v) VALUES (@id, @v);

-- name: UpdatePartitioned :exec
UPDATE pparent SET v = @v WHERE id = @id;

-- name: UpdatePartition :exec
UPDATE ppart SET v = @v WHERE id = @id;

-- name: CopyOut :exec
COPY (SELECT id FROM jobs) TO STDOUT;

-- name: MergeWithUpdate :exec
WITH u AS (UPDATE jobs SET state = 'x' WHERE id = @id RETURNING id)
MERGE INTO events e USING u ON e.id = u.id
WHEN MATCHED THEN UPDATE SET note = 'n';

-- name: MergeWithDelete :exec
WITH d AS (DELETE FROM jobs WHERE id = @id RETURNING id)
MERGE INTO events e USING d ON e.id = d.id
WHEN NOT MATCHED THEN INSERT (id) VALUES (d.id);

-- name: MergeParent :exec
MERGE INTO parent p USING (SELECT $1::bigint AS id) s ON p.id = s.id
WHEN MATCHED THEN UPDATE SET v = 'x';

-- name: MergePartitioned :exec
MERGE INTO pparent p USING (SELECT $1::bigint AS id) s ON p.id = s.id
WHEN MATCHED THEN DELETE;

-- name: TruncateParent :exec
TRUNCATE parent;

-- name: TruncatePartitioned :exec
TRUNCATE pparent;

-- name: CreateTempAsWith :exec
CREATE TEMP TABLE t1 AS WITH u AS (UPDATE jobs SET state = 'x' RETURNING id) SELECT id FROM u;

-- name: SelectIntoTempWith :exec
WITH u AS (UPDATE jobs SET state = 'y' WHERE id = @id RETURNING id) SELECT id INTO TEMP TABLE t2 FROM u;
