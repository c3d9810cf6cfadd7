-- name: GetMember :one
SELECT * FROM user_accounts WHERE id = $1;

-- name: ListNews :many
SELECT * FROM news_items WHERE title = @title AND id > @min_id;

-- name: ListStatuses :many
SELECT * FROM statuses;

-- name: ListFolks :many
SELECT * FROM people WHERE name = $1;

-- name: UpdateURL :exec
UPDATE user_accounts SET html_url = @html_url, api_key = @api_key WHERE id = @id AND level = @level;

-- name: InvoiceStates :many
SELECT state, count(*) FROM billing.invoices GROUP BY state;

-- name: camelCaseQuery :one
SELECT "CamelCol", "ID" FROM "CamelTable" LIMIT 1;

-- name: JSONData :one
SELECT json_data, user_id, html_url FROM user_accounts WHERE id = $1;

-- name: CreatedAfter :many
SELECT id FROM user_accounts WHERE created_at > @time;

-- name: ByUUIDName :many
SELECT id FROM user_accounts WHERE api_key = @uuid;

-- name: UnknownFunc :many
SELECT id FROM user_accounts WHERE id = frobnicate($1);

-- name: Any :many
SELECT id FROM user_accounts;

-- name: Max :one
SELECT max(id) FROM user_accounts;
