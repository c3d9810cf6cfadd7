-- name: Funcs1 :one
SELECT id, count(*) AS c1, count(bio) AS c2, sum(age) AS s1, sum(score) AS s2, sum(weight) AS s3, avg(age) AS a1, avg(score) AS a2,
  min(age) AS mi, max(name) AS ma, bool_and(active) AS ba, string_agg(name, ',') AS sa, round(score) AS r1, round(score, 1) AS r2,
  length(name) AS l1, char_length(name) AS l2, octet_length(name) AS l3, lower(name) AS lo, trim(name) AS tr, substr(name, 1, 2) AS su,
  to_char(created_at, 'YYYY') AS tc, extract(year FROM created_at) AS ex, date_part('year', created_at) AS dp, age(created_at) AS ag,
  coalesce(bio, '') AS co1, coalesce(age, 0) AS co2, coalesce(bio, name) AS co3, greatest(age, 1) AS gr, nullif(age, 0) AS nu,
  random() AS ra, floor(weight) AS fl, sqrt(weight) AS sq, mod(age, 2) AS mo, abs(age) AS ab, abs(weight) AS ab2, row_number() OVER () AS rn,
  rank() OVER (ORDER BY age) AS rk, lag(age) OVER (ORDER BY age) AS lg, array_length(tags, 1) AS al, cardinality(tags) AS card,
  jsonb_build_object('a', 1) AS jb, json_build_object('a', 1) AS jo, to_jsonb(name) AS tj, jsonb_array_length(meta) AS jal,
  gen_random_uuid() AS gu, md5(name) AS md, concat_ws(',', name, bio) AS cw, replace(name, 'a', 'b') AS rp, position('a' in name) AS po,
  split_part(name, ',', 1) AS sp, left(name, 2) AS lf, right(name, 2) AS rt, reverse(name) AS rv, initcap(name) AS ic, add_one(age) AS ao,
  current_timestamp AS cts, localtimestamp AS lts, now() AS nw, clock_timestamp() AS ct, date_trunc('day', created_at) AS dt, make_date(2020, 1, 1) AS mkd,
  to_timestamp(1.0) AS tts, to_date('2020', 'YYYY') AS tdd, ceil(weight) AS ce, trunc(weight) AS tu, sign(weight) AS sg, pi() AS p, power(age, 2) AS pw,
  exp(weight) AS ep, ln(weight) AS lnn, log(weight) AS lg10, width_bucket(weight, 0, 10, 5) AS wb, char_length(bio) AS cl2, lpad(name, 5) AS lp,
  regexp_replace(name, 'a', 'b') AS rr, upper(bio) AS ub, starts_with(name, 'a') AS sw, array_position(tags, 'a') AS ap, ascii(name) AS asc1
FROM authors GROUP BY id;

-- name: Ops1 :one
SELECT id, age + 1 AS o1, weight * 2 AS o2, age / 2 AS o3, score + 1 AS o4, small + small AS o5, -age AS o6, age % 3 AS o7,
  created_at - interval '1 day' AS o8, born + 1 AS o9, updated - updated AS o10, name || bio AS o11, tags || 'x' AS o12,
  meta -> 'a' AS o13, meta ->> 'a' AS o14, meta #> '{a}' AS o15, age > 1 AS o16, name = bio AS o17, name LIKE 'a%' AS o18,
  age IS NULL AS o19, age IS NOT NULL AS o20, NOT active AS o21, active AND age > 1 AS o22, age BETWEEN 1 AND 2 AS o23,
  age IN (1, 2) AS o24, meta ? 'a' AS o25, tags @> ARRAY['a'] AS o26, weight ^ 2 AS o27, age << 1 AS o28, ip << '10.0.0.0/8' AS o29,
  1 AS o30, 'x' AS o31, 1.5 AS o32, true AS o33, NULL AS o34, age::text AS o35, bio::int AS o36, NULL::text AS o37, name::varchar(3) AS o38,
  EXISTS (SELECT 1 FROM books WHERE author_id = authors.id) AS o39, NOT EXISTS (SELECT 1 FROM books) AS o40,
  (SELECT title FROM books WHERE author_id = authors.id LIMIT 1) AS o41, (SELECT count(*) FROM books) AS o42,
  (SELECT isbn FROM books LIMIT 1) AS o43, (SELECT max(pages) FROM books) AS o44, ARRAY(SELECT title FROM books) AS o45,
  CASE WHEN age > 1 THEN 'a' ELSE 'b' END AS o46, CASE WHEN age > 1 THEN age END AS o47, CASE WHEN age > 1 THEN 1 ELSE 2.5 END AS o48,
  CASE age WHEN 1 THEN name ELSE bio END AS o49, CASE WHEN age > 1 THEN age ELSE 0::bigint END AS o50, CASE WHEN active THEN NULL ELSE 1 END AS o51,
  feeling AS o52, feeling::text AS o53, price AS o54, price + 1 AS o55, uid AS o56, tags[1] AS o57, created_at AT TIME ZONE 'UTC' AS o58,
  age IS DISTINCT FROM 1 AS o59, (age > 1) IS TRUE AS o60, ROW(1, 2) AS o61, COALESCE(sum(age) OVER (), 0) AS o62
FROM authors;

-- name: Joins1 :many
SELECT a.id, a.name, b.title, b.pages, b.isbn, coalesce(b.pages, 0) AS p0, count(b.id) OVER () AS cnt
FROM authors a LEFT JOIN books b ON b.author_id = a.id;

-- name: Joins2 :many
SELECT a.name, b.title FROM books b RIGHT JOIN authors a ON b.author_id = a.id;

-- name: Joins3 :many
SELECT a.name, b.title FROM books b FULL JOIN authors a ON b.author_id = a.id;

-- name: Joins4 :many
SELECT a.*, b.* FROM authors a LEFT JOIN books b ON b.author_id = a.id;

-- name: Cte1 :many
WITH c AS (SELECT author_id, count(*) AS n, sum(pages) AS p, max(title) AS mt, avg(pages) AS av FROM books GROUP BY author_id),
     d AS (SELECT author_id, n, p + 1 AS p1, mt FROM c)
SELECT a.name, d.n, d.p1, d.mt, c.av FROM authors a JOIN d ON d.author_id = a.id JOIN c ON c.author_id = a.id;

-- name: Cte2 :many
WITH c AS (SELECT author_id, count(*) AS n FROM books GROUP BY author_id)
SELECT a.name, c.n FROM authors a LEFT JOIN c ON c.author_id = a.id;

-- name: Sub1 :many
SELECT s.n, s.t FROM (SELECT count(*) AS n, max(title) AS t, author_id FROM books GROUP BY author_id) s;

-- name: Union1 :many
SELECT name, age FROM authors UNION SELECT title, pages FROM books;

-- name: Union2 :many
SELECT title, pages FROM books UNION ALL SELECT name, age FROM authors;

-- name: View1 :many
SELECT * FROM author_names;

-- name: Params1 :many
SELECT id FROM authors WHERE name = $1 AND bio = $2 AND age > $3 AND weight < @w AND created_at > @since AND tags @> @tags
  AND meta ? @key AND feeling = @feeling AND price = @price AND uid = ANY(@uids::uuid[])
  LIMIT @lim OFFSET @off;

-- name: Params2 :many
SELECT id FROM authors WHERE name LIKE @pattern AND lower(name) = lower(@lname) AND age = add_one(@n) AND bio ILIKE '%' || @q || '%'
  AND (@everything::boolean OR active) AND age BETWEEN @lo AND @hi AND COALESCE(bio, '') = @b2 AND created_at > now() - @dur::interval
  AND score > @minscore AND NOT @excl AND @x = 1 AND age + @inc > 5 AND date_trunc('day', created_at) = @day;

-- name: Params3 :many
SELECT id FROM authors WHERE age = COALESCE(sqlc.narg(age), age) AND name = COALESCE(@n2, name) AND bio = COALESCE(sqlc.narg(bio), 'x')
  AND rating > COALESCE(@r, 0) AND born = COALESCE(sqlc.narg(born)::date, born) AND (sqlc.narg(s)::text IS NULL OR name = sqlc.narg(s));

-- name: Params4 :one
INSERT INTO authors (name, bio, age, weight, small, tags, doc, uid, active, price, feeling)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id, price, age + 1 AS next, upper(name) AS up;

-- name: Params5 :exec
UPDATE authors SET bio = @bio, age = age + @delta, tags = array_append(tags, @tag), meta = meta || @patch, price = @price,
  updated = COALESCE(@upd, updated) WHERE id = @id;

-- name: Params6 :many
SELECT id, name FROM authors WHERE id = ANY(@ids::bigint[]) AND name <> ALL(@names::text[]) AND age = ANY(@ages) ORDER BY CASE WHEN @ascending::bool THEN name END;

-- name: Params7 :many
SELECT id FROM authors WHERE (name, age) > (@n, @a) AND weight > @w * 2 AND small < @s + 1 AND score = @sc::numeric AND rating = @r;

-- name: Params8 :many
SELECT id FROM authors WHERE EXISTS (SELECT 1 FROM books WHERE author_id = authors.id AND books.pages > @pages) AND id = (SELECT author_id FROM books bk WHERE bk.isbn = @isbn);

-- name: Info1 :many
SELECT table_name, column_name, is_nullable, ordinal_position, data_type FROM information_schema.columns WHERE table_schema = @schema AND table_name = @tname;

-- name: Cat1 :many
SELECT relname, relkind, reltuples, oid FROM pg_catalog.pg_class WHERE relname = @name;

-- name: Agg2 :one
SELECT count(*) FILTER (WHERE age > 1) AS f, array_agg(name) AS names, json_agg(name) AS ja, jsonb_agg(meta) AS jba, bool_or(active) AS bo,
  every(active) AS ev, max(created_at) AS mc, min(score) AS ms, sum(small) AS ss, sum(rating) AS sr, avg(weight) AS aw, stddev(weight) AS sd,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY weight) AS pc, string_agg(DISTINCT name, ',') AS sad, count(DISTINCT name) AS cd, sum(age)::bigint AS sb
FROM authors;
