package golang_test

import "testing"

// Where sqlc v1.31.1 without a database answers interface{} (a result
// column whose expression its analysis does not type, a parameter it
// leaves untyped), fencegen's API says interface{} too; where sqlc types
// the column, fencegen's type is PostgreSQL's. The interface{} fields
// below are the ones sqlc v1.31.1 generates for this input (pgx/v5 and
// database/sql alike).
func TestSqlcAnyAsSqlc(t *testing.T) {
	schema := `CREATE TABLE t (id bigint PRIMARY KEY, name text NOT NULL, tags text[] NOT NULL, n int, ts timestamptz NOT NULL, j jsonb);`
	q := `
-- name: Ops :one
SELECT name || 'x' AS cat, j->>'a' AS jf, name LIKE 'a%' AS lk, id BETWEEN 1 AND 2 AS btw, n IS NULL AS isn,
  n IS DISTINCT FROM 3 AS dist, id IN (1, 2) AS inl, NULL AS nul, ARRAY[id] AS arr, GREATEST(id, 2) AS gr,
  tags[1] AS el, (n IS TRUE) AS bt, ARRAY(SELECT name FROM t) AS arrsub, CURRENT_DATE AS cd, id = ANY(ARRAY[1]) AS anyop
FROM t;
-- name: Funcs :one
SELECT upper(name) AS up, lower(name) AS lo, count(*) AS cnt, array_agg(id) AS agg, to_char(ts, 'YYYY') AS tc,
  concat(name, 'x') AS cc, coalesce(n, 0) AS co, coalesce(max(n), 0) AS co2, now() AS nw
FROM t;
-- name: Cases :one
SELECT CASE WHEN n > 1 THEN name ELSE 'x' END AS c1, CASE WHEN n > 1 THEN name END AS c2,
  CASE WHEN n > 1 THEN name ELSE name END AS c3, CASE WHEN n > 1 THEN 1 ELSE NULL END AS c4
FROM t;
-- name: Ctes :one
WITH x AS (SELECT max(id) AS m, name FROM t GROUP BY name)
SELECT m, name, (SELECT max(id) FROM t) AS sub FROM x;
-- name: Untyped :many
SELECT id FROM t WHERE @flag AND (CASE WHEN @sort = 'name' THEN name END) IS NOT NULL AND n = @n;
`
	for _, pkg := range []string{"pgx/v5", "database/sql"} {
		t.Run(pkg, func(t *testing.T) {
			cfg := `version: "2"
sql:
  - engine: postgresql
    schema: schema.sql
    queries: query.sql
    gen:
      go:
        package: db
        out: out
        sql_package: ` + pkg + "\n"
			a := parseAPI(t, generate(t, cfg, schema, q))
			for _, f := range []string{
				"OpsRow.Cat", "OpsRow.Jf", "OpsRow.Lk", "OpsRow.Btw", "OpsRow.Isn", "OpsRow.Nul", "OpsRow.Arr",
				"OpsRow.Gr", "OpsRow.El", "OpsRow.Bt", "OpsRow.Arrsub", "OpsRow.Cd",
				"FuncsRow.Up", "FuncsRow.Agg", "FuncsRow.Cc", "FuncsRow.Co2", "FuncsRow.Nw",
				"CasesRow.C2", "CasesRow.C3", "CasesRow.C4",
				"CtesRow.M", "CtesRow.Sub",
				"UntypedParams.Flag", "UntypedParams.Sort",
			} {
				a.has(t, "field "+f+" interface{}")
			}
			typed := []string{
				"field OpsRow.Dist bool", "field OpsRow.Inl bool", "field OpsRow.Anyop bool",
				"field FuncsRow.Lo string", "field FuncsRow.Cnt int64", "field FuncsRow.Tc string",
				"field FuncsRow.Co int32", "field CasesRow.C1 string", "field CtesRow.Name string",
			}
			if pkg == "pgx/v5" {
				typed = append(typed, "field UntypedParams.N pgtype.Int4")
			} else {
				typed = append(typed, "field UntypedParams.N sql.NullInt32")
			}
			for _, w := range typed {
				a.has(t, w)
			}
		})
	}
}
