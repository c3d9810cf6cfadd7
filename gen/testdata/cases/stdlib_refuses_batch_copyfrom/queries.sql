-- name: CopyItems :copyfrom
INSERT INTO items (id, name) VALUES (@id, @name);

-- name: RenameItems :batchexec
UPDATE items SET name = @name WHERE id = @id;

-- name: GetItems :batchone
SELECT * FROM items WHERE id = @id;
