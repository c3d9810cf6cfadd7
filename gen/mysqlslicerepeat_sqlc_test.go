package gen_test

import "testing"

// mysqlSliceRepeatQueries are MySQL queries with sqlc.slice lists and
// parameters used more than once, in several orders, for :many, :one,
// :exec and :execrows (trial t27g; ranger-ims-go's SearchIncidents).
const mysqlSliceRepeatQueries = `-- name: ArgSliceArg :many
SELECT id FROM t WHERE name = sqlc.arg(n) AND ev IN (sqlc.slice(evs)) AND name = sqlc.arg(n);

-- name: SliceTwice :many
SELECT id FROM t WHERE ev IN (sqlc.slice(evs)) OR id IN (sqlc.slice(evs));

-- name: SliceArgSlice :one
SELECT id FROM t WHERE id IN (sqlc.slice(ids)) AND name = sqlc.arg(n) AND ev IN (sqlc.slice(evs)) AND id IN (sqlc.slice(ids)) AND name = sqlc.arg(n) LIMIT 1;

-- name: SliceFirst :exec
DELETE FROM t WHERE ev IN (sqlc.slice(evs)) AND name = sqlc.arg(n) AND id IN (sqlc.slice(evs)) AND name <> concat(sqlc.arg(n), 'x');

-- name: PlainBetween :execrows
UPDATE t SET ev = ev + 1 WHERE id IN (sqlc.slice(ids)) AND (ev = ? OR ev IN (sqlc.slice(ids)));
`

// TestMySQLSliceRepeatedParamsAsSqlc (trial t27g): a MySQL query with
// IN (sqlc.slice(x)) lists whose named parameters or lists are used more
// than once is generated as sqlc v1.31.1 generates it: one append (or
// list expansion, the list's first remaining marker) per placeholder in
// text order. fencegen expanded each list and sent each parameter once,
// so that the method sent too few arguments (sql: expected 3 arguments,
// got 2). The files are compared with sqlc's below the header, with
// sqlc's defaults, with prepared queries, and with every parameter a
// Params field (query_parameter_limit: 0).
func TestMySQLSliceRepeatedParamsAsSqlc(t *testing.T) {
	for name, opts := range map[string]string{
		"default":  "",
		"prepared": ", emit_prepared_queries: true, emit_interface: true",
		"limit0":   ", query_parameter_limit: 0, emit_db_tags: true",
	} {
		t.Run(name, func(t *testing.T) {
			filesAsSqlc(t, map[string]string{
				"schema.sql": "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20), ev INT NOT NULL);\n",
				"q.sql":      mysqlSliceRepeatQueries,
				"sqlc.yaml":  "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out" + opts + "}}}\n",
			}, "sqlc.yaml")
		})
	}
}
