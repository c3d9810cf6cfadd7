-- name: Typo :exexc
UPDATE t SET id = id WHERE id = $1;

-- name: NoCommand
SELECT id FROM t;

-- name: 2fast :one
SELECT id FROM t WHERE id = $1;

-- name: has-dash :many
SELECT id FROM t;

-- name:  :one
SELECT 1;

-- name: BadFlag :exec
-- @fence sometimes
UPDATE t SET id = id WHERE id = $1;

-- name: Trailing :one extra words
SELECT id FROM t WHERE id = $1;

SELECT id FROM t;

-- name: Good :one
SELECT id FROM t WHERE id = $1;

-- Name: CapitalName :one
SELECT id FROM t WHERE id = $1;

-- name : SpacedColon :one
SELECT id FROM t WHERE id = $1;
