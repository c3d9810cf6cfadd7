-- name: I1 :exec
INSERT INTO books (author_id, title, pages, isbn) SELECT authors.id, name, age, bio FROM authors WHERE authors.id = @id;

-- name: I2 :one
INSERT INTO books (author_id, title, pages) VALUES (@author_id, @title, COALESCE(@pages, 0)) RETURNING *;

-- name: U2 :exec
UPDATE books SET pages = b.n FROM (SELECT author_id, count(*) AS n FROM books GROUP BY author_id) b WHERE books.author_id = b.author_id AND books.id = @bid;

-- name: L1 :many
SELECT a.id, x.n, x.mx FROM authors a LEFT JOIN LATERAL (SELECT count(*) AS n, max(pages) AS mx FROM books WHERE author_id = a.id) x ON true;

-- name: S2 :many
SELECT s.id, s.total, s.title FROM (SELECT a.id, sum(b.pages) AS total, max(b.title) AS title FROM authors a LEFT JOIN books b ON b.author_id = a.id GROUP BY a.id) s;

-- name: E1 :many
SELECT sqlc.embed(a), sqlc.embed(b) FROM authors a JOIN books b ON b.author_id = a.id;

-- name: N1 :many
SELECT id, sqlc.narg(x)::int AS x, @y::text AS y FROM authors;

-- name: C2 :many
SELECT id, CASE WHEN age > 1 THEN age::bigint ELSE NULL::bigint END AS c1, CASE WHEN age > 1 THEN name ELSE bio END AS c2,
  CASE WHEN age IS NULL THEN 0 ELSE age END AS c3, CASE WHEN active THEN weight ELSE 0.5 END AS c4,
  COALESCE(sum(age), 0)::int AS c6, COALESCE(max(age), 0) AS c7, COALESCE(NULL, age) AS c8,
  COALESCE(age, small) AS c9, COALESCE(age::bigint, 0) AS c10
FROM authors GROUP BY id;

-- name: G1 :many
SELECT generate_series(1, 10) AS g, unnest(tags) AS t, array_to_string(tags, ',') AS ats, string_to_array(name, ',') AS sta FROM authors;

-- name: J1 :many
SELECT meta->'a'->>'b' AS x, doc->>'k' AS y, jsonb_typeof(meta) AS ty, meta @> '{}' AS con, (meta->>'n')::int AS n FROM authors;

-- name: T1 :many
SELECT created_at::date AS d, extract(epoch FROM created_at)::bigint AS e, created_at + interval '1h' AS p, now() - created_at AS ago,
  date_part('hour', created_at)::int AS h, born - 1 AS bm, current_date - born AS days, to_char(now(), 'YYYY') AS y FROM authors;

-- name: Cnt1 :one
SELECT count(*) FROM authors WHERE age > @age;

-- name: Cnt2 :one
SELECT (SELECT count(*) FROM books) AS b, (SELECT count(*) FROM authors) AS a;

-- name: Ex1 :one
SELECT EXISTS (SELECT 1 FROM authors WHERE name = @name);

-- name: Sum1 :one
SELECT sum(pages) FROM books WHERE author_id = @author_id;

-- name: Sum2 :one
SELECT COALESCE(sum(pages), 0)::bigint AS total FROM books;

-- name: Max1 :one
SELECT max(created_at)::timestamptz AS last FROM authors;

-- name: P9 :many
SELECT id FROM authors WHERE created_at > @since::timestamptz AND name ~ @re AND age >= @minage::int
  AND (@name::text = '' OR name = @name) AND tags && @tags::text[] AND id <> @not_id AND bio IS DISTINCT FROM @bio AND small = @small + 1;

-- name: P10 :many
SELECT id FROM authors WHERE age IN (@a1, @a2) AND name NOT IN (@n1) AND uid = @uid AND ip = @ip AND feeling IN ('ok', @f);

-- name: P11 :many
SELECT id FROM authors ORDER BY id LIMIT sqlc.arg(lim)::int OFFSET sqlc.arg(off)::int;

-- name: V1 :many
SELECT id, up FROM author_names;

