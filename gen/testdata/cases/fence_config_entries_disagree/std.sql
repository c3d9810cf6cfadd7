-- name: SetQty :exec
UPDATE inventory SET qty = @qty WHERE sku = @sku AND warehouse = @warehouse;
