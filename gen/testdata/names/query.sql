-- name: GetUserAccount :one
SELECT * FROM user_accounts WHERE id = $1;

-- name: ListByUserID :many
SELECT id, user_id, api_key FROM user_accounts WHERE user_id = @user_id AND id = @userID;

-- name: UpdateType :exec
UPDATE user_accounts SET "type" = @type, "select" = sqlc.arg('select') WHERE id = @id;

-- name: ReservedParams :many
SELECT id FROM user_accounts WHERE api_key = @ctx AND html_url = @q AND "type" = @arg AND café = @db AND x_1 = @err;

-- name: NullableArgs :many
SELECT id FROM user_accounts WHERE api_key = sqlc.narg('maybe_key') OR html_url = sqlc.arg(html_url);

-- name: DuplicateParams :many
SELECT id FROM user_accounts WHERE user_id = $1 OR user_id = $2;

-- name: InsertInvoice :one
INSERT INTO billing.invoices (state, total_cents) VALUES ($1, $2) RETURNING *;

-- name: CountMoods :many
SELECT mood, count(*) FROM user_accounts GROUP BY mood;

-- name: Expressions :one
SELECT count(*), max(id), now()::date AS today, COALESCE(api_key, '') AS "API key" FROM user_accounts LIMIT 1;

-- name: JoinTwo :many
SELECT u.id, i.id, u.api_key, i.total_cents FROM user_accounts u JOIN billing.invoices i ON i.id = u.id;

-- name: GetApiKey :one
SELECT * FROM api_keys WHERE id = $1;

-- name: ListNews :many
SELECT * FROM news_items;

-- name: ListStatuses :many
SELECT * FROM statuses;

-- name: ListCampus :many
SELECT * FROM campus;

-- name: Get2fa :one
SELECT * FROM "2fa_codes" WHERE code = $1;

-- name: ItemTags :many
SELECT * FROM "item-tags" WHERE item_id = ANY(@item_ids::int[]);

-- name: CamelRows :many
SELECT "CamelCol", "ID" FROM "CamelTable" WHERE "CamelCol" > $1;

-- name: Embedded :many
SELECT sqlc.embed(people), sqlc.embed(news_items) FROM people JOIN news_items ON news_items.id = people.id;

-- name: InsertMany :exec
INSERT INTO people (id, name) VALUES ($1, $2);

-- name: lowerName :one
SELECT id FROM people WHERE name = $1;

-- name: Overrides :one
SELECT money_col, uuid_col, geo_col, yaml_col, v2_col, null_col, dec_col, upper_col, dotted_col, gouuid_col, minus_col FROM user_accounts WHERE money_col = $1;

-- name: ByHTMLURL :one
SELECT id FROM user_accounts WHERE html_url = $1;

-- name: ByAPIKey :many
SELECT id FROM user_accounts WHERE api_key = @api_key;

-- name: ByUUID :one
SELECT id FROM user_accounts WHERE uuid_col = @uuid;

-- name: ByTime :many
SELECT id FROM user_accounts WHERE html_url = @time;

-- name: ByToken :many
SELECT id FROM user_accounts WHERE api_key = @token;

-- name: ByUnderscores :many
SELECT id FROM user_accounts WHERE a__b = $1;

-- name: ByPrivate :many
SELECT id FROM user_accounts WHERE _private = $1;

-- name: ByUserIDCamel :many
SELECT id FROM user_accounts WHERE user_id = @userId;

-- name: ByDollar :many
SELECT id FROM user_accounts WHERE user_id = $1 + 1;

-- name: ByCafe :many
SELECT id FROM user_accounts WHERE café = $1;

-- name: ByMood :many
SELECT id FROM user_accounts WHERE mood = $1;

-- name: ResultNames :one
SELECT u.api_key::text, api_key::varchar, 'x'::text, now()::date, 1::int, count(*)::int, (u.x_1 + 1)::bigint,
  CAST(u.x_1 AS bigint), u.x_1::int::text, NULL::text, 'lit', 42, u.x_1 + 1, -u.x_1, NOT true, u.api_key IS NULL,
  CASE WHEN u.x_1 > 1 THEN 1 ELSE 2 END, (SELECT max(id) FROM api_keys), EXISTS (SELECT 1 FROM api_keys),
  NOT EXISTS (SELECT 1 FROM news_items), ARRAY(SELECT id FROM api_keys), ROW(1, 2)::text, array_agg(u.id),
  coalesce(u.api_key, 'x'), greatest(u.x_1, 1), u.json_data->'k', u.json_data->>'k', lower(u.api_key),
  u.api_key || 'x', (u.x_1), pg_catalog.upper(u.api_key), current_date, true, u.x_1::text::int AS aliased
FROM user_accounts u GROUP BY u.api_key, u.x_1, u.json_data;

-- name: StarThenCast :one
SELECT *, 'x'::text FROM news_items;

-- name: EmbedThenCast :one
SELECT sqlc.embed(news_items), 'x'::text, 1 FROM news_items;

-- name: ReturningCasts :one
UPDATE news_items SET title = 'x' WHERE id = $1 RETURNING id::text, title::varchar, 'z'::text, CASE WHEN id > 0 THEN 'a' END;

-- name: UnionCasts :many
SELECT id::bigint, 'a'::text FROM news_items UNION SELECT id, 'b' FROM api_keys;

-- name: CTECast :many
WITH c AS (SELECT count(*)::int AS n FROM news_items) SELECT n, c.n::text, 1::int FROM c;

-- name: EmbedAlias :many
SELECT sqlc.embed(p), n.title FROM people p JOIN news_items n ON n.id = p.id;

-- name: CopyPeople :copyfrom
INSERT INTO people (id, name) VALUES ($1, $2);

-- name: CopyTags :copyfrom
INSERT INTO "item-tags" (tag) VALUES (@tag);

-- name: BatchNames :batchexec
UPDATE people SET name = @name WHERE id = @id;

-- name: BatchOne :batchone
SELECT id FROM people WHERE name = @batch;

-- name: BatchMany :batchmany
SELECT * FROM people WHERE id > @br;

-- name: ExecRows :execrows
DELETE FROM people WHERE name = @result;

-- name: ExecResult :execresult
DELETE FROM people WHERE name = @rows;

-- name: OneRow :one
SELECT id FROM people WHERE name = @row;

-- name: ManyItems :many
SELECT id FROM people WHERE name = @items;

-- name: WithI :many
SELECT id FROM people WHERE name = @i;

-- name: WithArg :many
SELECT id FROM people WHERE name = @arg;

-- name: WithDB :many
SELECT id FROM people WHERE name = @db;

-- name: ParamSources :many
SELECT id FROM user_accounts
WHERE api_key = lower($1) AND x_1 BETWEEN $2 AND $3 AND id = ANY($4::bigint[])
  AND html_url IN ($5, $6) AND x_1 + $7 > 0
  AND upper(html_url) = $8
LIMIT $9 OFFSET $10;

-- name: ParamCasts :many
SELECT $1::text, $2::int, x_1 FROM user_accounts WHERE id = $3;

-- name: InsertSelect :exec
INSERT INTO people (id, name) SELECT id, api_key FROM user_accounts WHERE user_id = $1;

-- name: UpdateFrom :exec
UPDATE people SET name = u.api_key FROM user_accounts u WHERE u.id = people.id AND u.x_1 = $1 AND people.name = $2;

-- name: CoalesceLeft :many
SELECT id FROM user_accounts WHERE COALESCE($1, api_key) = api_key;

-- name: CoalesceRight :many
SELECT id FROM user_accounts WHERE api_key = COALESCE($1, html_url);

-- name: CoalesceLeftTwo :many
SELECT id FROM user_accounts WHERE COALESCE(@a, api_key) = html_url AND x_1 = @b;
