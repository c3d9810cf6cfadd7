-- name: GetKind :one
SELECT * FROM kinds WHERE id = $1;

-- name: ListKinds :many
SELECT * FROM kinds WHERE txt = $1 OR u = $2 OR ts > $3;

-- name: AddKind :execresult
INSERT INTO kinds (s2, i2n, i4n, i8n, f4n, f8n, numn, bn, jn, jbn, byn, dn, tn, ttzn, tsn, tstzn, txtn, vcn, bcn, un, ipn, ivn, arr, mn, cpn)
VALUES (@s2, @i2n, @i4n, @i8n, @f4n, @f8n, @numn, @bn, @jn, @jbn, @byn, @dn, @tn, @ttzn, @tsn, @tstzn, @txtn, @vcn, @bcn, @un, @ipn, @ivn, @arr, @mn, @cpn);

-- name: SetNullable :execrows
UPDATE kinds SET i4 = @i4, b = @b, d = @d, u = @u, m = @m, jb = @jb WHERE id = @id;
