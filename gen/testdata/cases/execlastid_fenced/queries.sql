-- name: CreateT :execlastid
INSERT INTO t (name) VALUES ($1);
