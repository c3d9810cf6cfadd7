-- Parameters passed to built-in functions, inside a cast of COALESCE, and
-- a db_type override of a domain over text (sqlc's parameter typing).

-- name: Lower :many
SELECT id FROM users WHERE email = LOWER(@email);

-- name: Trim :many
SELECT id FROM users WHERE email = TRIM(@x);

-- name: TrimBoth :many
SELECT id FROM users WHERE email = TRIM(BOTH ' ' FROM @y);

-- name: InsLower :exec
INSERT INTO users (id, email) VALUES (@id, LOWER(@email));

-- name: Upper :many
SELECT id FROM users WHERE note = UPPER(@note);

-- name: SelUpper :many
SELECT UPPER(@a)::text AS u, LOWER(@b) AS l;

-- name: Length :many
SELECT id FROM users WHERE length(email) > length(@s);

-- name: InsB :exec
INSERT INTO ev (id, created_at) VALUES (@id, COALESCE(@created_at, now())::TIMESTAMPTZ);

-- name: InsN :exec
INSERT INTO ev (id, n) VALUES (@id, COALESCE(@n, 0)::int);

-- name: InsNote :exec
INSERT INTO ev (id, note) VALUES (@id, COALESCE(@note, 'x')::text);

-- name: UpdE :exec
UPDATE ev SET created_at = COALESCE(@created_at, now())::timestamptz WHERE id = @id;

-- name: CastSlug :many
SELECT email::slug AS s FROM users WHERE email = @e::slug;

-- name: LowerCast :many
SELECT id FROM users WHERE email = LOWER(@e2::slug);

-- name: UseNorm :one
SELECT norm(@v) AS o;

-- name: PostBySlug :many
SELECT id, s FROM posts WHERE s = @s OR s = ANY(@many::slug[]) OR s = LOWER(@l);

-- name: InsPost :exec
INSERT INTO posts (id, s, ss) VALUES (@id, @s, @ss);
