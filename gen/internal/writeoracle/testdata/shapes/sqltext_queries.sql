-- name: ViaQueryToXml :one
SELECT query_to_xml('SELECT bump()', true, false, '')::text;

-- A constant that only reads is the statement it is (issue 24
-- precision).
-- name: QueryToXmlRead :one
SELECT query_to_xml('SELECT id, state FROM jobs', true, false, '')::text;

-- name: ViaTableToXml :one
SELECT table_to_xml('bumpview', true, false, '')::text;

-- name: ViaTsStat :many
SELECT * FROM ts_stat('SELECT bump()::text::tsvector');

-- name: ViaSchemaToXml :one
SELECT schema_to_xml('public', true, false, '')::text;

-- name: ViaTsRewrite :one
SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, ''b''::tsquery FROM (SELECT bump()) s')::text;

-- name: ViaQueryToXmlParam :one
SELECT query_to_xml('SELECT bump()' || repeat(' ', length(coalesce(@pad::text, ''))), true, false, '')::text;
