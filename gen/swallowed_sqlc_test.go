package gen_test

import (
	"strings"
	"testing"
)

// TestSwallowedParamsAsSqlc (issue 23, GoAlert's CleanupAlertLogs):
// sqlc v1.31.1's parser reads @b - 1 as PostgreSQL's prefix operator @
// over b - 1, and its rewrite puts one parameter, named -b (its
// flatten of the operand), in place of that whole operand, wherever the
// operand stands: a BETWEEN bound, an IN list, a cast, LIMIT and
// OFFSET, an INSERT's value. The parameter is typed as one standing
// there (B int64 after id for BETWEEN $1 AND $2- 1), numbered apart
// from a plain @b (the names differ: LIMIT $4 and OFFSET $1- 1 for
// @batch_size), and its text takes the blank after the name ($2- 1).
// fencegen wrote $2 - 1, typed B interface{} and reused $1. The files
// are compared with sqlc's, text for text, below the header.
func TestSwallowedParamsAsSqlc(t *testing.T) {
	schema := "CREATE TABLE alert_logs (id bigint PRIMARY KEY, n integer NOT NULL, alert_id bigint);\nCREATE TABLE alerts (id bigint PRIMARY KEY);\n"
	queries := "-- name: Between :many\nSELECT id FROM alert_logs WHERE id BETWEEN @a AND @b - 1;\n\n" +
		"-- name: BetweenPlain :many\nSELECT id FROM alert_logs WHERE id BETWEEN @a AND @b;\n\n" +
		"-- name: BetweenLow :many\nSELECT id FROM alert_logs WHERE id BETWEEN @a + 1 AND @b;\n\n" +
		"-- name: NotBetween :many\nSELECT id FROM alert_logs WHERE id NOT BETWEEN @a * 2 AND @b / 2;\n\n" +
		"-- name: InList :many\nSELECT id FROM alert_logs WHERE n IN (@a - 1, @b);\n\n" +
		"-- name: Cast :many\nSELECT id FROM alert_logs WHERE n = (@a % 3)::int AND id = @b;\n\n" +
		"-- name: Compare :many\nSELECT id FROM alert_logs WHERE n > @a - 1 AND id = @b;\n\n" +
		"-- name: LimitOffset :many\nSELECT id FROM alert_logs LIMIT @a - 1 OFFSET @b;\n\n" +
		"-- name: Insert :exec\nINSERT INTO alert_logs (id, n) VALUES (@a + 1, @b * 2);\n\n" +
		"-- name: Update :exec\nUPDATE alert_logs SET n = @a - 1 WHERE id = @b;\n\n" +
		// GoAlert's engine/cleanupmanager query, as written there.
		"-- name: CleanupAlertLogs :one\nWITH scope AS (\n    SELECT\n        id\n    FROM\n        alert_logs l\n    WHERE\n        l.id BETWEEN @start_id AND @end_id - 1\n    ORDER BY\n        l.id\n    LIMIT @batch_size\n),\n" +
		"id_range AS (\n    SELECT\n        min(id),\n        max(id)\n    FROM\n        scope\n),\n" +
		"_delete AS (\n    DELETE FROM alert_logs\n    WHERE id = ANY (\n            SELECT\n                id\n            FROM\n                alert_logs\n            WHERE\n                id BETWEEN (\n                    SELECT\n                        min\n                    FROM\n                        id_range)\n                    AND (\n                        SELECT\n                            max\n                        FROM\n                            id_range)\n                        AND NOT EXISTS (\n                            SELECT\n                                1\n                            FROM\n                                alerts\n                            WHERE\n                                alert_id = id)\n                            FOR UPDATE\n                                SKIP LOCKED))\n" +
		"                SELECT\n                    id\n                FROM\n                    scope OFFSET @batch_size - 1\n                LIMIT 1;\n"
	for _, pkg := range []string{"database/sql", "pgx/v5"} {
		t.Run(pkg, func(t *testing.T) {
			q := queries
			if pkg == "pgx/v5" {
				// sqlc's pgx/v5 template declares a Params field once per
				// number (BatchSize twice), which does not compile: the
				// repeated name is compared on database/sql only.
				q = q[:strings.Index(q, "-- name: CleanupAlertLogs")]
			}
			filesAsSqlc(t, map[string]string{
				"schema.sql": schema,
				"q.sql":      q,
				"sqlc.yaml":  "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, sql_package: " + pkg + "}}}\n",
			}, "sqlc.yaml")
		})
	}
}

// TestSwallowedFuncArgsAsSqlc (issue 23): an operand sqlc reads as @(x)
// that is a direct argument of a call (abs(@a - 1)) is typed as sqlc
// types a parameter standing there: from its catalog's first overload
// taking that many arguments (abs: bigint, round: double precision) or
// from a user function's declared argument. fencegen typed it
// interface{} as below a call it is no argument of, and tagged such a
// parameter with its written name (json:"a") where sqlc's tags carry its
// own (json:"-a"). The files are compared with sqlc's, text for text,
// below the header.
func TestSwallowedFuncArgsAsSqlc(t *testing.T) {
	schema := "CREATE TABLE t (id bigint PRIMARY KEY, a bigint NOT NULL, b integer NOT NULL, name text NOT NULL, f float8);\n" +
		"CREATE FUNCTION addone(x integer) RETURNS integer LANGUAGE sql AS 'SELECT x + 1';\n"
	queries := "-- name: Abs :many\nSELECT id FROM t WHERE a > abs(@a - 1) AND name = @name;\n\n" +
		"-- name: Round :many\nSELECT id FROM t WHERE a > round(@a - 1) AND name = @name;\n\n" +
		"-- name: Mod :many\nSELECT id FROM t WHERE a > mod(@a - 1, 3) AND name = @name;\n\n" +
		"-- name: Power :many\nSELECT id FROM t WHERE f > power(@f * 2, 2) AND name = @name;\n\n" +
		"-- name: Nested :many\nSELECT id FROM t WHERE a > abs(abs(@a - 1)) AND name = @name;\n\n" +
		"-- name: InCoalesce :many\nSELECT id FROM t WHERE a > coalesce(abs(@a - 1), 0) AND name = @name;\n\n" +
		"-- name: UserFunc :many\nSELECT id FROM t WHERE b > addone(@a - 1) AND name = @name;\n\n" +
		"-- name: Text :many\nSELECT id FROM t WHERE name = replace(@s || 'x', 'a', 'b') AND a = @a;\n\n" +
		"-- name: SelectList :many\nSELECT abs(@a - 1) AS x, id FROM t WHERE name = @name;\n\n" +
		"-- name: InCase :many\nSELECT id FROM t WHERE a > CASE WHEN name = @name THEN abs(@a - 1) ELSE 0 END;\n\n" +
		"-- name: Insert :exec\nINSERT INTO t (id, a, b, name) VALUES (@id, abs(@a - 1), @b, @name);\n\n" +
		"-- name: Update :exec\nUPDATE t SET a = abs(@a - 1), name = @name WHERE id = @id;\n"
	// sqlc's db and json tags carry its name of the parameter (-a, *f),
	// in every json_tags_case_style.
	queries += "\n-- name: Times :many\nSELECT id FROM t WHERE a > @w * 2 AND name = @name;\n"
	for _, pkg := range []string{"database/sql", "pgx/v5"} {
		for _, tags := range []string{"", ", emit_db_tags: true, emit_json_tags: true", ", emit_json_tags: true, json_tags_case_style: pascal", ", emit_json_tags: true, json_tags_case_style: camel"} {
			t.Run(pkg+tags, func(t *testing.T) {
				filesAsSqlc(t, map[string]string{
					"schema.sql": schema,
					"q.sql":      queries,
					"sqlc.yaml":  "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, sql_package: " + pkg + tags + "}}}\n",
				}, "sqlc.yaml")
			})
		}
	}
}
