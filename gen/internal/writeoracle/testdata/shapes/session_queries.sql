-- Session statements (a pool hands the connection on, with its temporary
-- objects and settings): the oracle runs each before every statement
-- generated without a guard (sessionPairs).

-- name: TempViewShadowsEvents :exec
CREATE TEMP VIEW events AS SELECT id, state AS note FROM jobs;

-- name: TempViewOnViewShadowsEvents :exec
CREATE OR REPLACE TEMP VIEW events AS SELECT id, state AS note FROM jobs_v;

-- name: TempStaging :exec
CREATE TEMP TABLE staging (id bigint, v text);

-- name: DeleteEvent :exec
DELETE FROM events WHERE id = $1;

-- name: UpdateEvent :exec
UPDATE events SET note = 'e' WHERE id = $1;

-- name: RenameViewToLonely :exec
ALTER VIEW jobs_v RENAME TO lonely;

-- name: UpdateLonely :exec
UPDATE lonely SET state = 'l' WHERE id = $1;

-- name: SetSearchPathApp :exec
SET search_path = app, public;

-- name: SetConfigSearchPath :exec
SELECT set_config('search_path', 'app, public', false);

-- name: UpdateGadgets :exec
UPDATE gadgets SET v = 'g' WHERE id = $1;
