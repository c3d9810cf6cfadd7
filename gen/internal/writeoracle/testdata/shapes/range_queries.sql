-- name: AddSlot :exec
INSERT INTO slots (id, r) SELECT max(id) + 1, '[1,4)' FROM slots;
