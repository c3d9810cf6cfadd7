-- name: MarkPaid :exec
UPDATE payouts SET status = 'paid' WHERE id = @id;

-- name: SetState :exec
UPDATE runs SET state = @state WHERE id = @id;
