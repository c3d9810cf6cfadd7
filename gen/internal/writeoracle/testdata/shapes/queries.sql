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

-- name: Through00 :exec
TRUNCATE logs;

-- name: Through01 :exec
REFRESH MATERIALIZED VIEW stamped;

-- name: Through02 :exec
DELETE FROM refs WHERE id = $1;

-- name: Through03 :exec
INSERT INTO holders (id) VALUES ($1);

-- name: Through04 :exec
INSERT INTO holders (id, ref_id) VALUES ($1, $1);

-- name: Through05 :exec
INSERT INTO checked (id, v) VALUES ($1, 'x');

-- name: Through06 :exec
UPDATE checked SET v = 'y' WHERE id = $1;

-- name: Through08 :exec
CREATE TEMP VIEW v9 AS SELECT 1 AS id;

-- name: Through09 :exec
SELECT write_sum(id) FROM events;

-- name: Through10 :exec
SELECT id FROM events WHERE id === $1;

-- name: Through11 :exec
SELECT * FROM jobs_rows();

-- name: Through12 :exec
SELECT id FROM events, LATERAL jobs_rows() r;

-- name: Through13 :exec
SELECT (SELECT count(*) FROM jobs_rows());

-- name: Through14 :exec
VALUES (write_id());

-- name: Through15 :exec
SELECT * FROM ROWS FROM (jobs_rows()) AS r(id);

-- name: Through16 :exec
INSERT INTO events (id) SELECT * FROM jobs_rows() ON CONFLICT DO NOTHING;

-- name: Through17 :exec
WITH x AS (SELECT write_id()) SELECT 1;

-- name: Through18 :exec
SELECT 1 WHERE EXISTS (SELECT write_id());

-- A WITH entry shadowed by an inner one of its name, and a subquery
-- under LIMIT 0, are not run (issue 24 precision).
-- name: ShadowedWith :exec
WITH x AS (SELECT write_id() AS v) SELECT v FROM (WITH x AS (SELECT 2 AS v) SELECT v FROM x) s;

-- name: LimitZero :exec
SELECT * FROM (SELECT write_id() FROM jobs LIMIT 0) s;

-- name: LimitZeroOffset :exec
SELECT id FROM jobs LIMIT 0 OFFSET write_id();

-- name: Through19 :exec
SELECT id FROM events ORDER BY write_id();

-- name: Through20 :exec
SELECT id FROM events GROUP BY id HAVING write_sum(id) > 0;

-- name: Through21 :exec
CREATE TEMP TABLE t8 AS SELECT write_id();

-- name: Through22 :exec
DO $$ BEGIN PERFORM write_id(); END $$;

-- name: Through23 :exec
DO $$ DECLARE r record; BEGIN FOR r IN SELECT * FROM jobs_rows() LOOP END LOOP; END $$;

-- name: Through24 :exec
SELECT id FROM jobs WHERE id = $1 FOR UPDATE;

-- name: Through26 :exec
INSERT INTO notes (id, body) VALUES ($1, 'x') ON CONFLICT (id) DO UPDATE SET body = excluded.body;

-- name: Through27 :exec
INSERT INTO inbox (id) SELECT id FROM events;

-- name: Through28 :exec
UPDATE jobs_iv SET state = 'i' WHERE id = $1;

-- name: Through29 :exec
UPDATE jobs_rv SET state = 'r' WHERE id = $1;

-- name: Through30 :exec
DELETE FROM events WHERE id = $1;

-- name: Through31 :exec
UPDATE events SET id = id WHERE id = $1;

-- name: KeyPlusZero :exec
UPDATE events SET id = id + 0, note = 'z' WHERE id = $1;

-- name: KeyZeroPlus :exec
UPDATE events SET id = 0 + events.id WHERE id = $1;

-- name: KeyTimesOne :exec
UPDATE events SET id = id * 1 WHERE id = $1;

-- name: KeyPlusOne :exec
UPDATE events SET id = id + 1 WHERE id = $1;

-- name: KeyTimesZero :exec
UPDATE events SET id = id * 0 WHERE id = $1;

-- name: Through32 :exec
MERGE INTO events t USING (SELECT $1::bigint AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE;

-- name: Through33 :exec
SELECT jobs_rows();

-- name: Through34 :exec
CALL bump($1);

-- name: Through35 :exec
EXPLAIN ANALYZE SELECT write_id();

-- name: Through36 :exec
EXPLAIN SELECT write_id();

-- name: Through37 :exec
COPY (SELECT write_id()) TO STDOUT;

-- name: Through38 :exec
DECLARE c9 CURSOR FOR SELECT write_id();

-- name: Through39 :exec
PREPARE p9 AS SELECT write_id();

-- name: ViewUpdateLogs :exec
UPDATE logs_v SET msg = $2 WHERE id = $1;

-- name: ViewInsertLogs :exec
INSERT INTO logs_v (id, msg) VALUES ($1, 'v');

-- name: ViewDeleteLogs :exec
DELETE FROM logs_v WHERE id = $1;

-- name: ViewUpsertLogs :exec
INSERT INTO logs_v (id, msg) VALUES ($1, 'v') ON CONFLICT (id) DO UPDATE SET msg = excluded.msg;

-- name: ViewOnViewLogs :exec
UPDATE logs_vv SET msg = 'vv' WHERE id = $1;

-- name: ViewBarrierLogs :exec
DELETE FROM logs_sb WHERE id = $1;

-- name: ViewWithLogs :many
WITH w AS (UPDATE logs_v SET msg = 'w' WHERE id = $1 RETURNING id) SELECT id FROM w;

-- name: ViewUpdateJobs :exec
UPDATE jobs_v SET state = 'v' WHERE id = $1;

-- name: ViewOnViewJobs :exec
UPDATE jobs_vv SET state = 'vv' WHERE id = $1;

-- name: ViewBarrierJobs :exec
DELETE FROM jobs_sb WHERE id = $1;

-- name: ViewInsertJobs :exec
INSERT INTO jobs_sb (id, state) VALUES ($1, 'sb');

-- name: ViewWithJobs :many
WITH w AS (DELETE FROM jobs_v WHERE id = $1 RETURNING id) SELECT id FROM w;

-- name: ViewParent :exec
UPDATE parent_v SET v = 'p' WHERE id = $1;

-- name: ViewParentOnly :exec
UPDATE parent_only_v SET v = 'p' WHERE id = $1;

-- name: ViewNotes :exec
INSERT INTO notes_v (id, body) VALUES ($1, 'n');

-- name: ViewInsteadOfLogs :exec
UPDATE jobs_lv SET state = 'lv' WHERE id = $1;

-- name: ViewInsteadOfDelete :exec
DELETE FROM jobs_lv WHERE id = $1;

-- name: ViewRuleDelete :exec
DELETE FROM jobs_nv WHERE id = $1;

-- name: ViewRuleUpdate :exec
UPDATE jobs_nv SET state = 'nv' WHERE id = $1;

-- name: ViewDistinctTrigger :exec
UPDATE jobs_dv SET state = 'dv' WHERE id = $1;

-- name: ViewDefaultInsert :exec
INSERT INTO logs_dv (id) VALUES ($1);

-- name: ViewDefaultUpdate :exec
UPDATE logs_dv SET msg = 'dv' WHERE id = $1;

-- name: ViewOnInsteadOf :exec
UPDATE jobs_lvv SET state = 'lvv' WHERE id = $1;

-- name: ViewOnInsteadOfDelete :exec
DELETE FROM jobs_lvv WHERE id = $1;

-- name: ViewRenamedBase :exec
UPDATE old_jobs_v SET state = 'o' WHERE id = $1;

-- name: ViewMergeLogs :exec
MERGE INTO logs_v t USING (SELECT $1::bigint AS id) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET msg = 'm';

-- name: ViewCopyLogs :exec
COPY logs_v FROM STDIN;

-- name: ViewFromFunction :exec
SELECT write_logs_v($1);

-- name: ViewFromFunctionJobs :exec
SELECT write_jobs_v($1);

-- name: ViewFromRule :exec
INSERT INTO logs_rule (id) VALUES ($1);

-- Issue 24 §1 precision: shapes that write no fenced table, each of a
-- class the analysis once refused (preciseShapes), beside the same class
-- where PostgreSQL does write one.

-- name: ExistsTargetList :exec
SELECT 1 FROM events WHERE NOT EXISTS (SELECT write_id(), $1::bigint FROM jobs WHERE jobs.id = events.id);

-- name: ExistsAggregate :exec
SELECT 1 WHERE EXISTS (SELECT write_id(), count(*));

-- name: DefaultUpdate :exec
UPDATE stamps SET v = $2 WHERE id = $1;

-- name: DefaultGiven :exec
INSERT INTO stamps (id, v) VALUES ($1 + 10, 'given');

-- name: DefaultGivenUpsert :exec
INSERT INTO stamps (id, v) VALUES ($1, 'given') ON CONFLICT (id) DO UPDATE SET v = excluded.v;

-- name: DefaultSetDefault :exec
UPDATE stamps SET v = DEFAULT WHERE id = $1;

-- name: DefaultLeftOut :exec
INSERT INTO stamps (id) VALUES ($1 + 10);

-- name: KeyUnchangedMerge :exec
MERGE INTO events t USING (SELECT $1::bigint AS id) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET id = t.id, note = 'k';

-- name: EventTagOther :exec
CREATE TEMP TABLE tag_other AS SELECT 1 AS id;

-- name: EventTagListed :exec
CREATE TEMP VIEW tag_listed AS SELECT 1 AS id;

-- EXPLAIN with the parameters and commands sqlc generates it with: without
-- ANALYZE PostgreSQL plans the statement and writes nothing; with ANALYZE
-- it runs it, so a write of a fenced table is refused as the bare
-- statement's would be guarded or refused.
-- name: ExplainMany :many
EXPLAIN SELECT id, state FROM jobs WHERE id = @id;

-- name: ExplainUpdateParams :many
EXPLAIN UPDATE jobs SET state = @state WHERE id = @id;

-- name: ExplainNotes :exec
EXPLAIN INSERT INTO notes (id, body) VALUES (@id, @body);

-- name: ExplainAnalyzeFalse :many
EXPLAIN (ANALYZE false) DELETE FROM jobs WHERE id = @id;

-- name: ExplainAnalyzeRead :many
EXPLAIN (ANALYZE, FORMAT JSON) SELECT id FROM jobs WHERE id = @id;

-- name: ExplainAnalyzeParams :many
EXPLAIN (ANALYZE, FORMAT JSON) UPDATE jobs SET state = @state WHERE id = @id;

-- name: ExplainAnalyzeNotes :exec
EXPLAIN ANALYZE INSERT INTO notes (id, body) VALUES (@id, @body);

-- name: ExplainAnalyzeWith :exec
EXPLAIN ANALYZE WITH u AS (UPDATE jobs SET state = 'c' WHERE id = @id RETURNING id) SELECT id FROM u;

-- name: ExplainAnalyzePartition :exec
EXPLAIN ANALYZE UPDATE pparent SET v = @v WHERE id = @id;

-- name: ExplainAnalyzeRule :exec
EXPLAIN ANALYZE UPDATE jobs_rv SET state = @state WHERE id = @id;

-- name: ExplainAnalyzeUnfenced :exec
EXPLAIN ANALYZE UPDATE events SET note = @note WHERE id = @id;

-- Query-file DDL whose CASCADE drops a fenced table's columns or trigger,
-- or that rewrites its values (issue 24, trial-pg3 15 and 16): refused;
-- the same of an unfenced table's types runs.
-- name: DropMoodCascade :exec
DROP TYPE mood CASCADE;

-- name: DropLabelCascade :exec
DROP DOMAIN label CASCADE;

-- name: RenameMoodValue :exec
ALTER TYPE mood RENAME VALUE 'ok' TO 'fine';

-- name: DropGuardRoutine :exec
DROP ROUTINE IF EXISTS feelings_guard() CASCADE;

-- name: DropHueCascade :exec
DROP TYPE hue CASCADE;

-- name: DropTagCascade :exec
DROP DOMAIN tag CASCADE;

-- name: RenameHueValue :exec
ALTER TYPE hue RENAME VALUE 'blue' TO 'green';

-- Guarded writes that read tables named like the guard's WITH queries:
-- the guard's names avoid them (PostgreSQL would otherwise resolve the
-- table's name to the guard's entry).
-- name: UpdateWhereFenceCheck :exec
UPDATE jobs SET state = 'y' WHERE id IN (SELECT fence_key_1 FROM fence_check);

-- name: UpdateWhereFenceLock :execrows
UPDATE jobs SET state = 'z' WHERE id IN (SELECT id FROM fence_lock) OR id IN (SELECT id FROM fence_lock_1);

-- name: DeleteUsingFenceLock :exec
DELETE FROM jobs USING fence_lock WHERE jobs.id = fence_lock.id;

-- DECLARE CURSOR with the parameters sqlc generates it with (issue 24):
-- PostgreSQL binds them to the cursor's SELECT, run when fetched; a
-- cursor over a writer of a fenced table is refused, one over a read or
-- a row lock (FOR UPDATE) is not.
-- name: DeclareParams :exec
DECLARE cp1 CURSOR FOR SELECT id, state FROM jobs WHERE id = @id AND state = @state;

-- name: DeclareParamsMany :many
DECLARE cp2 NO SCROLL CURSOR WITH HOLD FOR SELECT id FROM notes WHERE body = @body;

-- name: DeclareForUpdate :exec
DECLARE cp3 CURSOR FOR SELECT id FROM jobs WHERE id = @id FOR UPDATE;

-- name: DeclareValues :one
DECLARE cp4 CURSOR FOR VALUES (@id::bigint);

-- name: DeclareWriterParams :exec
DECLARE cp5 CURSOR FOR SELECT write_id() WHERE @id::bigint > 0;

-- name: WatchedSetV :exec
UPDATE watched SET v = @v WHERE id = @id;

-- name: WatchedSetW :exec
UPDATE watched SET w = @w WHERE id = @id;

-- name: WatchedSetWToItself :exec
UPDATE watched SET w = w WHERE id = @id;

-- name: WatchedSetRow :exec
UPDATE watched SET (v, w) = (SELECT 'a', 'b') WHERE id = @id;

-- name: WatchedSetRowV :exec
UPDATE watched SET (v) = ROW(@v::text) WHERE id = @id;

-- name: WatchedSetRowVId :exec
UPDATE watched SET (v, id) = (SELECT @v::text, @id::bigint) WHERE id = @id;

-- name: WatchedSetRowW :exec
UPDATE watched SET (id, w) = (@id::bigint, @w::text) WHERE id = @id;

-- name: WatchedUpsertV :exec
INSERT INTO watched (id, v) VALUES (@id, @v) ON CONFLICT (id) DO UPDATE SET v = excluded.v;

-- name: WatchedUpsertW :exec
INSERT INTO watched (id, w) VALUES (@id, @w) ON CONFLICT (id) DO UPDATE SET w = excluded.w;

-- name: WatchedMergeV :exec
MERGE INTO watched t USING (SELECT $1::bigint AS id) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = 'm';

-- name: WatchedMergeW :exec
MERGE INTO watched t USING (SELECT $1::bigint AS id) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET w = 'm';

-- name: WatchedCTEV :many
WITH u AS (UPDATE watched SET v = @v WHERE id = @id RETURNING id) SELECT id FROM u;

-- name: GaugesSetV :exec
UPDATE gauges SET v = @v WHERE id = @id;

-- name: GaugesSetW :exec
UPDATE gauges SET w = @w WHERE id = @id;
