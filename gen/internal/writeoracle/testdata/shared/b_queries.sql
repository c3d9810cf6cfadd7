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
