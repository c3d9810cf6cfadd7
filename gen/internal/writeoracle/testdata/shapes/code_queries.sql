-- name: AddEvent :exec
INSERT INTO job_events (id, kind) VALUES ($1, 'e');

-- name: TouchAudit :exec
UPDATE audits SET note = 'n' WHERE id = $1;

-- name: DropInbox :exec
DELETE FROM inbox WHERE id = $1;

-- name: AddStamp :exec
INSERT INTO stamps (id) VALUES ($1);

-- name: AddSideEvent :exec
INSERT INTO side.ev (id, note) VALUES ($1, 'n');

-- name: TypmodCast :one
SELECT '1'::mt(5) IS NULL AS n;

-- name: TypmodCastFn :one
SELECT CAST(NULL AS mt(7)) IS NULL AS n;

-- The session statements run before every other statement (sessionPairs).

-- name: InheritDefaults :exec
CREATE TEMP TABLE other () INHERITS (wd);

-- name: InheritChecks :exec
CREATE TEMP TABLE other2 () INHERITS (wc);

-- name: AddOther :exec
INSERT INTO other (id) VALUES ($1);

-- name: AddOther2 :exec
INSERT INTO other2 (id, v) VALUES ($1, 1);
