-- name: ViaQueryToXml :one
SELECT query_to_xml('SELECT bump()', true, false, '')::text;

-- name: ViaTableToXml :one
SELECT table_to_xml('bumpview', true, false, '')::text;

-- name: ViaTsStat :many
SELECT * FROM ts_stat('SELECT bump()::text::tsvector');

-- query_to_xmlschema only plans the query: a STABLE function folded
-- there runs.
-- name: ViaQueryToXmlschemaFolded :one
SELECT query_to_xmlschema('SELECT stable_bump()', true, false, '')::text;

-- name: ViaSchemaToXml :one
SELECT schema_to_xml('public', true, false, '')::text;

-- name: ViaTsRewrite :one
SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, ''b''::tsquery FROM (SELECT bump()) s')::text;

-- name: ViaQueryToXmlParam :one
SELECT query_to_xml('SELECT bump()' || repeat(' ', length(coalesce(@pad::text, ''))), true, false, '')::text;
