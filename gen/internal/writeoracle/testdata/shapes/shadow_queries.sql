-- name: ShadowLower :one
SELECT lower($1::text);

-- name: ShadowLength :one
SELECT length(state) FROM jobs WHERE id = $1;

-- name: ShadowUpperVarchar :one
SELECT upper($1::varchar);

-- name: ShadowLowerQualified :one
SELECT public.lower($1::text);
