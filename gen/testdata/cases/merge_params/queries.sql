-- sqlc v1.31.1 generates these with no arguments and the parameters left
-- in the text, so every call fails: fencegen generates them as sqlc does,
-- with a note at the first parameter of each.

-- name: MergeNamed :exec
MERGE INTO plain p USING src s ON p.id = s.id AND s.id = @id
WHEN MATCHED THEN UPDATE SET v = @v
WHEN NOT MATCHED THEN INSERT (id, v) VALUES (@id, @v);

-- name: MergePositional :exec
MERGE INTO plain p USING src s ON p.id = s.id
WHEN MATCHED THEN UPDATE SET v = $1;

-- name: MergeArg :exec
MERGE INTO plain p USING src s ON p.id = s.id
WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, sqlc.narg(v));

-- name: MergeNoParams :exec
MERGE INTO plain p USING src s ON p.id = s.id
WHEN MATCHED THEN UPDATE SET v = s.v;
