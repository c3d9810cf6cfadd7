-- name: ListAlerts :many
SELECT id FROM alerts WHERE to_secs(freq) > 1;

-- name: SquashFreq :many
SELECT squash(freq) FROM alerts WHERE id = $1;

-- name: CountMatching :one
SELECT count_matching();

-- name: MarkJob :exec
SELECT mark_job($1);

-- name: Sneaky :one
SELECT sneaky();

-- name: SneakyExecute :exec
SELECT sneaky_execute();

-- name: ByName :one
SELECT by_name();
