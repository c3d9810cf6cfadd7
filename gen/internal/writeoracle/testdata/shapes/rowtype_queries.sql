-- name: PopRecord :one
SELECT (jsonb_populate_record(NULL::notes, '{"id": 1, "n": 5}'::jsonb)).id;

-- name: RecordIn :one
SELECT ('(1,5)'::text::notes).id;

-- name: RowCast :one
SELECT (ROW(1, 2)::notes).id;

-- name: PopulateWholeRow :many
SELECT (jsonb_populate_record(x, '{"n": 7}')).id FROM notes x;

-- name: HolderInsert :exec
INSERT INTO holder (id, r) VALUES (@id, '(1,5)');

-- name: HolderUpdate :exec
UPDATE holder SET r = '(1,5)' WHERE id = @id;

-- name: PairInsert :exec
INSERT INTO pairs (id, p) VALUES (@id, '(1,5)');

-- name: NotesRead :many
SELECT id FROM notes WHERE id = @id;

-- name: NotesDelete :exec
DELETE FROM notes WHERE id = @id;

-- name: HolderRead :many
SELECT id, r FROM holder WHERE id = @id;

-- name: RangeConstructor :one
SELECT grange(@lo::float8, @lo::float8 + 1)::text AS r;

-- name: MultirangeConstructor :one
SELECT gmultirange(grange(1, 2), grange(3, 4))::text AS r;
