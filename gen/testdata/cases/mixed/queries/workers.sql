-- name: Heartbeat :exec
INSERT INTO workers (id, last_seen) VALUES (@id, now())
ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen;

-- name: Log :exec
INSERT INTO task_log (task_id, message) VALUES (@task_id, @message);

-- name: TasksOf :many
SELECT t.id, t.status, w.last_seen
FROM tasks t JOIN workers w ON w.id = t.worker_id
WHERE w.id = @worker_id;

-- name: PurgeLog :execrows
DELETE FROM task_log WHERE task_id = @task_id;
