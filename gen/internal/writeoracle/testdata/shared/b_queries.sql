-- name: DeleteParent :exec
DELETE FROM parents WHERE id = $1;

-- name: RecodeParent :exec
UPDATE parents SET code = $2 WHERE id = $1;

-- name: RenameParent :exec
UPDATE parents SET name = $2 WHERE id = $1;

-- name: InsertParent :exec
INSERT INTO parents (id, code, name) VALUES ($1, $2, $3);

-- name: UpsertParentCode :exec
INSERT INTO parents (id, code, name) VALUES ($1, $2, $3)
ON CONFLICT (id) DO UPDATE SET code = excluded.code;

-- name: UpsertParentName :exec
INSERT INTO parents (id, code, name) VALUES ($1, $2, $3)
ON CONFLICT (id) DO UPDATE SET name = excluded.name;

-- name: DeleteKind :exec
DELETE FROM kinds WHERE id = $1;

-- name: RelabelKind :exec
UPDATE kinds SET label = $2 WHERE id = $1;

-- name: TruncateKinds :exec
TRUNCATE kinds CASCADE;

-- name: RenameOwner :exec
UPDATE owners SET name = $2 WHERE id = $1;

-- name: RenumberOwner :exec
UPDATE owners SET id = $2 WHERE id = $1;

-- name: DeleteParentInWith :exec
WITH gone AS (DELETE FROM parents WHERE id = $1 RETURNING id) SELECT count(*) FROM gone;

-- name: DropParent :exec
SELECT drop_parent($1);

-- name: AddKind :exec
SELECT add_kind($1);

-- name: UseApp :exec
SET search_path = app, public;

-- name: SetRunState :exec
UPDATE runs SET state = $2 WHERE id = $1;

-- name: SetPublicRunState :exec
UPDATE public.runs SET state = $2 WHERE id = $1;

-- name: DeleteParentView :exec
DELETE FROM parents_v WHERE id = $1;

-- name: RenameParentView :exec
UPDATE parents_v SET name = $2 WHERE id = $1;

-- name: Retire :exec
INSERT INTO retired (id) VALUES ($1);

-- The names below resolve in the shared database to entry a's objects
-- (trial r24s N11 to N19).
-- name: CallHelper :one
SELECT helper(1);

-- name: UseAppPath :exec
SET search_path = app, public;

-- name: CallLookup :one
SELECT lookup(1);

-- name: UpperNotes :many
SELECT upper(v) FROM notes;

-- name: CompareIDs :one
SELECT 1::bigint === 2::bigint AS same;

-- name: ReadRep :many
SELECT id FROM rep;

-- name: TempView :exec
CREATE TEMP VIEW bt AS SELECT 1 AS x;

-- Entry b's DDL on entry a's fenced table (trial r24s N18).
-- name: DisableJobTriggers :exec
ALTER TABLE jobs DISABLE TRIGGER ALL;

-- name: ResetJobTokens :exec
ALTER TABLE jobs ALTER COLUMN tok TYPE bigint USING 0;

-- name: RenameJobs :exec
ALTER TABLE IF EXISTS jobs RENAME TO jobs_x;

-- name: DropJobs :exec
DROP TABLE IF EXISTS jobs;
