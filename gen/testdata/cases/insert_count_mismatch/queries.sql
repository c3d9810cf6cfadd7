-- name: TooMany :exec
INSERT INTO t (id, name) VALUES ($1, $2, $3);

-- name: TooFew :exec
INSERT INTO t (id, name, qty) VALUES ($1, $2);

-- name: SecondRowShort :exec
INSERT INTO t (id, name) VALUES ($1, $2), ($3);

-- name: SelectWrongWidth :exec
INSERT INTO t (id, name) SELECT id FROM t WHERE qty > $1;
