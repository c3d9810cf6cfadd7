-- name: TwoParams :exec
UPDATE user_accounts SET x_1 = $1 WHERE id = $2;

-- name: ThreeNamed :many
SELECT id FROM user_accounts WHERE html_url = @html_url AND api_key = @api_key AND user_id = @user_id;

-- name: OneParam :one
SELECT id FROM user_accounts WHERE html_url = @html_url;

-- name: RepeatedParam :many
SELECT id FROM user_accounts WHERE user_id = $1 OR user_id = $2;

-- name: KeywordParams :exec
UPDATE user_accounts SET "type" = @type, "select" = sqlc.arg('select') WHERE id = @id;

-- name: CamelParams :many
SELECT "CamelCol" FROM "CamelTable" WHERE "CamelCol" = $1 AND "ID" = $2;
