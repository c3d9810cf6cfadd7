-- name: CopyFromSource :exec
-- Several columns from one subquery, with its own parameter.
UPDATE jobs SET (status, owner) = (SELECT s.status, s.owner FROM sources s WHERE s.id = @source) WHERE id = @id;

-- name: SetPayloadEU :exec
UPDATE events_eu SET payload = @payload WHERE id = @id AND region = 'eu';

-- name: AddEventUS :exec
INSERT INTO events_us (id, region, payload) VALUES (@id, 'us', @payload);

-- name: SetThing :exec
UPDATE things SET v = @v WHERE id = @id;

-- name: RetireActive :many
WITH active AS (SELECT id FROM sources WHERE status = 'active')
UPDATE jobs SET status = 'retired' WHERE id IN (SELECT id FROM active) RETURNING id;

-- name: SetSetting :exec
INSERT INTO settings (id, name, value) VALUES (@id, @name, @value)
ON CONFLICT ON CONSTRAINT settings_name_uq DO UPDATE SET value = EXCLUDED.value;

-- name: SetSettings :many
INSERT INTO settings (id, name, value)
SELECT unnest(@ids::bigint[]), unnest(@names::text[]), @value
ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value
RETURNING id;

-- name: SetTwoSettings :execrows
INSERT INTO settings (id, name, value) VALUES (@id1, @name1, @value), (@id2, @name2, @value)
ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value;

-- name: SetSettingsFrom :many
-- An upsert whose INSERT has a WITH clause of its own: its entries join the
-- guard's WITH list.
WITH src AS (SELECT unnest(@ids::bigint[]) AS id, @value::text AS value)
INSERT INTO settings (id, name, value) SELECT id, 'n' || id, value FROM src
ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value
RETURNING id;

-- name: SetSettingFrom :exec
WITH src AS (SELECT @id::bigint AS id)
INSERT INTO settings (id, name, value) VALUES ((SELECT id FROM src), @name, @value)
ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value;

-- name: SetSettingLogged :exec
WITH s AS (
    INSERT INTO settings (id, name, value) VALUES (@id, @name, @value)
    ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value RETURNING id
)
INSERT INTO plain_log (msg) SELECT 'setting ' || id FROM s;

-- name: AddToLedger :exec
-- @fence non-strict
UPDATE ledgers SET total = total + @amount WHERE id = @id;

-- name: RenameJob :execresult
UPDATE jobs SET status = @status WHERE id = @id;

-- name: RenameJobs :execresult
UPDATE jobs SET status = @status WHERE id >= @min_id;

-- name: SetCodes :exec
INSERT INTO codes (id, c3, b3) VALUES (@id1, @c1, @b1), (@id2, @c2, @b2)
ON CONFLICT (id) DO UPDATE SET c3 = EXCLUDED.c3, b3 = EXCLUDED.b3;

-- name: AddUsers :many
INSERT INTO users (id, email) SELECT unnest(@ids::bigint[]), unnest(@emails::text[])
ON CONFLICT (email) WHERE NOT deleted DO UPDATE SET id = EXCLUDED.id
RETURNING id;

-- name: AddBases :execrows
INSERT INTO bases (id, v) SELECT unnest(@ids::bigint[]), 'v'
ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v;

-- name: EditEarlyLog :exec
-- @fence non-strict
UPDATE logs_early SET msg = @msg WHERE id = @id AND day = @day;

-- name: RequeueFailed :exec
UPDATE jobs AS j SET status = 'queued' WHERE j.id = @id AND j.status = 'failed';

-- name: RequeueFailedBatch :batchexec
UPDATE jobs AS j SET status = 'queued' WHERE j.id = @id AND j.status = 'failed';

-- name: RenameOne :one
UPDATE jobs SET status = @status WHERE id = @id RETURNING *;

-- name: UpsertLedger :one
INSERT INTO ledgers (id, total) VALUES (@id, @total)
ON CONFLICT (id) DO UPDATE SET total = EXCLUDED.total RETURNING *;

-- name: UpsertLedgers :many
INSERT INTO ledgers (id, total) SELECT unnest(@ids::bigint[]), unnest(@totals::bigint[])
ON CONFLICT (id) DO UPDATE SET total = EXCLUDED.total RETURNING *;

-- name: AddLedger :one
INSERT INTO ledgers (id, total) VALUES (@id, @total) RETURNING *;

-- name: SetLedgerTotal :one
UPDATE ledgers SET total = @total WHERE id = @id RETURNING *;

-- name: JobsWithSources :many
SELECT j.*, s.status AS source_status FROM jobs j JOIN sources s ON s.id = j.id ORDER BY j.id;

-- name: JobsFromSubquery :many
SELECT * FROM (SELECT * FROM jobs WHERE status <> @skip) x ORDER BY id;

-- name: JobsAndSources :many
SELECT * FROM jobs JOIN sources USING (id) ORDER BY id;

-- name: SetStatusClassic :exec
-- The classic hand-written comparison of the token: its parameter is the
-- method's one token (a vet note says the comparison can be dropped).
UPDATE jobs SET status = @status WHERE id = @id AND tok <= @token;

-- name: RequeueOwned :execrows
-- A sweeper's requeue of the rows an owner left running, under the lease
-- the workers take for the queue: none found is 0, not an error.
-- @fence sweep
UPDATE jobs SET status = 'queued', owner = NULL WHERE status = 'running' AND owner = @owner;

-- name: RequeueOwnedBeaten :execrows
-- The same sweep, skipping the rows a newer holder wrote (the comparison
-- chooses the rows swept) instead of refusing the whole sweep.
-- @fence sweep
UPDATE jobs SET status = 'queued', owner = NULL WHERE status = 'running' AND owner = @owner AND tok <= @token;

-- name: RequeueOwnedBatch :batchexec
-- @fence sweep
UPDATE jobs SET status = 'queued', owner = NULL WHERE status = 'running' AND owner = @owner;
