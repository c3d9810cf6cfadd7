-- name: A1 :many
SELECT id, name FROM authors WHERE feeling = ANY(@moods::mood[]) AND bio = ANY(@bios::text[]);

-- name: A2 :exec
UPDATE authors SET feeling = @feeling, tags = @tags, meta = @meta, ip = @ip, born = @born, rating = @rating, score = @score WHERE id = @id;

-- name: A3 :exec
UPDATE authors SET name = COALESCE(sqlc.narg(name), name), bio = CASE WHEN @set_bio::bool THEN @bio ELSE bio END, age = NULLIF(@age, 0) WHERE id = @id;

-- name: A4 :copyfrom
INSERT INTO books (author_id, title, pages, isbn) VALUES ($1, $2, $3, $4);

-- name: A5 :batchexec
UPDATE books SET pages = pages + @delta WHERE id = @id;

-- name: A6 :many
SELECT b.id, b.title, a.name AS author, (SELECT count(*) FROM books x WHERE x.author_id = a.id) AS n,
  (SELECT array_agg(title) FROM books y WHERE y.author_id = a.id) AS titles, (SELECT bio FROM authors z WHERE z.id = a.id) AS bio2
FROM books b JOIN authors a ON a.id = b.author_id WHERE b.pages BETWEEN @minp AND @maxp ORDER BY b.id LIMIT @lim;

-- name: A7 :one
SELECT count(*) AS total, count(*) FILTER (WHERE active) AS act, coalesce(sum(age), 0) AS ages, coalesce(avg(weight), 0)::float8 AS aw,
  max(age) - min(age) AS spread, sum(age) / count(*) AS mean, round(avg(weight)::numeric, 2) AS r2, sum(weight) AS sw, sum(small) AS ssm FROM authors;

-- name: A8 :many
SELECT a.id, b.id AS book_id, b.title, b.pages FROM authors a LEFT JOIN books b ON b.author_id = a.id WHERE a.id = @id;

-- name: A9 :many
SELECT a.id, count(b.id) AS books, max(b.pages) AS maxp, sum(b.pages) AS sump FROM authors a LEFT JOIN books b ON b.author_id = a.id GROUP BY a.id;

-- name: B1 :many
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT n FROM r;

-- name: B2 :one
WITH ins AS (INSERT INTO books (author_id, title, pages) VALUES (@author_id, @title, @pages) RETURNING id, pages) SELECT id, pages * 2 AS dbl FROM ins;

-- name: B3 :many
SELECT id, name FROM authors WHERE name ILIKE @q OR bio ILIKE @q OR @q = '';

-- name: B4 :many
SELECT id FROM authors WHERE created_at BETWEEN @start_at AND @end_at AND age > @min_age - 1;

-- name: B5 :many
SELECT id, age::float / 2 AS half, weight::int AS wi, (age > 1)::int AS flag, age::numeric(10,2) AS an, name::bytea AS nb, created_at::text AS ct FROM authors;

-- name: B6 :many
SELECT id, CASE feeling WHEN 'sad' THEN 1 WHEN 'ok' THEN 2 END AS f1, CASE WHEN bio IS NULL THEN 'none' ELSE bio END AS b1,
  CASE WHEN age > 1 THEN true ELSE false END AS b2, CASE WHEN age > 1 THEN created_at ELSE NULL END AS b3,
  CASE WHEN age > 1 THEN created_at::date ELSE born END AS b4 FROM authors;

-- name: B7 :many
SELECT id FROM authors WHERE (@active::bool IS NULL OR active = @active) AND (sqlc.narg(min_age)::int IS NULL OR age >= sqlc.narg(min_age));

-- name: B8 :many
SELECT id FROM authors WHERE age = $1 OR age = $1 + 1;

-- name: B9 :many
SELECT id FROM authors WHERE extract(year FROM created_at) = @year AND date(created_at) = @day AND length(name) > @len;
