-- name: W1 :many
SELECT id, sum(age) OVER (PARTITION BY active) AS s, avg(weight) OVER () AS a, first_value(name) OVER () AS fv, ntile(4) OVER () AS nt,
  lead(bio) OVER () AS ld, dense_rank() OVER () AS dr, percent_rank() OVER () AS pr, count(*) OVER () AS c FROM authors;

-- name: K1 :one
INSERT INTO authors (name, weight, small, tags, doc, uid, active) VALUES (@name, @weight, @small, @tags, @doc, @uid, @active)
ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, age = authors.age + 1 RETURNING id, (xmax = 0) AS inserted;

-- name: K2 :exec
UPDATE authors SET age = CASE WHEN @reset::bool THEN NULL ELSE age + @inc::int END, bio = COALESCE(@bio, bio), weight = weight * @factor WHERE id = ANY(@ids::bigint[]);

-- name: K3 :exec
DELETE FROM books WHERE author_id IN (SELECT id FROM authors WHERE name = @name) AND pages < @min_pages;

-- name: K4 :many
SELECT id, to_jsonb(authors.*) AS j, row_to_json(authors) AS rj, jsonb_set(meta, '{a}', '1') AS js, meta - 'a' AS md, doc::jsonb AS dj,
  jsonb_extract_path_text(meta, 'a') AS jt, json_array_length(doc) AS jl FROM authors;

-- name: K5 :many
SELECT id, overlay(name placing 'x' from 1 for 1) AS ov, substring(name from 1 for 2) AS ss, trim(both 'x' from name) AS tb,
  format('%s', name) AS fm, encode(sha256(name::bytea), 'hex') AS h, quote_ident(name) AS qi, repeat(name, 2) AS rp2, chr(65) AS ch FROM authors;

-- name: K6 :many
SELECT id, now()::date AS today, age(now(), created_at) AS ag, justify_days(interval '35 days') AS jd, make_interval(days => 1) AS mi,
  date_bin('15 minutes', created_at, '2000-01-01') AS db, extract(dow FROM born) AS dow, born + interval '1 day' AS tomorrow,
  isfinite(born) AS fin, created_at::time AS tm, timezone('UTC', created_at) AS tz FROM authors;

-- name: K7 :many
SELECT a.id, a.name, count(b.id) AS n, bool_or(b.pages > 100) AS big, array_agg(b.title ORDER BY b.title) FILTER (WHERE b.title IS NOT NULL) AS titles
FROM authors a LEFT JOIN books b ON b.author_id = a.id GROUP BY a.id HAVING count(b.id) > @min;

-- name: K8 :many
SELECT id FROM authors WHERE name = ANY(string_to_array(@csv, ',')) AND feeling::text = @f AND ip << @net::inet AND age IN (SELECT pages FROM books WHERE isbn = @isbn);

-- name: K9 :many
SELECT id, greatest(age, small) AS g, least(weight, 1.5) AS l, num_nonnulls(age, bio) AS nn, (age IS NULL)::int AS ni,
  CAST(age AS text) AS ct, age::text || '!' AS cat, -weight AS neg, @param::text AS echo, sqlc.narg(maybe)::text AS maybe FROM authors;

-- name: K10 :many
SELECT DISTINCT ON (feeling) feeling, name FROM authors ORDER BY feeling, name;

-- name: K11 :many
SELECT * FROM authors WHERE to_tsvector(name) @@ plainto_tsquery(@query) ORDER BY ts_rank(to_tsvector(name), plainto_tsquery(@query)) DESC;

-- name: K12 :one
SELECT count(*) > 0 AS any, count(*)::int AS n32, sum(pages)::int AS s32, max(pages)::bigint AS m64 FROM books;
