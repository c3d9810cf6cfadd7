package golang_test

import "testing"

// sqlc matches a db_type override with the type as it spells it, as a
// string: "timestamptz" matches a column written timestamptz and not one
// written TIMESTAMP WITH TIME ZONE (pg_catalog.timestamptz), an array
// through its element (NOT NULL), a cast as written, LIMIT as integer, a
// constant as int, count(*) as bigint. The expected API was produced by
// running sqlc v1.31.1 on the same input; with sqlc_untyped_params the
// parameters sqlc leaves untyped are interface{} as in sqlc.
func TestOverridesMatchSqlcSpelling(t *testing.T) {
	schema := `CREATE TABLE ev (id bigserial PRIMARY KEY, a timestamptz NOT NULL, b timestamp with time zone NOT NULL, n int NOT NULL, m int4 NOT NULL, ta timestamptz[], tb timestamp with time zone[], k bigint NOT NULL);`
	q := `
-- name: ListEv :many
SELECT id, a, b, n, m, ta, tb, k, count(*) OVER () AS total, $1::int8 AS x8, $2::bigint AS xb, 1 AS one FROM ev WHERE a > @after LIMIT @lim;
-- name: FlagEv :many
SELECT id FROM ev WHERE n > 0 AND @flag AND k = @k;
`
	cfg := `version: "2"
sql:
  - engine: postgresql
    schema: schema.sql
    queries: query.sql
    gen:
      go:
        package: db
        out: out
        sql_package: pgx/v5
        sqlc_untyped_params: true
        overrides:
          - {db_type: timestamptz, go_type: time.Time}
          - {db_type: timestamptz, nullable: true, go_type: {type: time.Time, pointer: true}}
          - {db_type: pg_catalog.int4, go_type: int}
          - {db_type: pg_catalog.int8, go_type: uint64}
          - {db_type: int8, go_type: int}
          - {db_type: integer, go_type: uint}
          - {db_type: int, go_type: uint16}
`
	a := parseAPI(t, generate(t, cfg, schema, q))
	for _, w := range []string{
		"field Ev.ID int64",
		"field Ev.A time.Time",
		"field Ev.B pgtype.Timestamptz",
		"field Ev.N int",
		"field Ev.M int32",
		"field Ev.Ta []time.Time",
		"field Ev.Tb []pgtype.Timestamptz",
		"field Ev.K uint64",
		"field ListEvParams.Column1 int",
		"field ListEvParams.Column2 uint64",
		"field ListEvParams.After time.Time",
		"field ListEvParams.Lim uint",
		"field ListEvRow.Total int64",
		"field ListEvRow.X8 int",
		"field ListEvRow.Xb uint64",
		"field ListEvRow.One uint16",
		"field FlagEvParams.Flag interface{}",
		"field FlagEvParams.K uint64",
	} {
		a.has(t, w)
	}
}

// sqlc's parser (PostgreSQL 17's grammar) reads json written without
// quotes as the keyword type pg_catalog.json, and "json" as written: a
// db_type override pg_catalog.json matches the first, json the second
// (and json written pg_catalog.json matches only the qualified override),
// in columns, casts and parameters alike. The expected API was produced
// by running sqlc v1.31.1 on the same input.
func TestJSONOverrideMatchesSqlcSpelling(t *testing.T) {
	schema := `CREATE TABLE docs (id BIGSERIAL PRIMARY KEY, a json NOT NULL, c pg_catalog.json NOT NULL, e "json" NOT NULL);`
	q := `
-- name: GetDoc :one
SELECT * FROM docs WHERE id = $1;
-- name: Cast :one
SELECT a::json AS k, $1::json AS p, $2::pg_catalog.json AS p2 FROM docs LIMIT 1;
`
	for _, tc := range []struct {
		dbType string
		want   []string
	}{
		{"json", []string{"field Doc.A []byte", "field Doc.C []byte", "field Doc.E x.T", "field CastRow.K []byte",
			"field CastRow.P []byte", "field CastRow.P2 []byte", "field CastParams.Column1 []byte", "field CastParams.Column2 []byte"}},
		{"pg_catalog.json", []string{"field Doc.A x.T", "field Doc.C x.T", "field Doc.E []byte", "field CastRow.K x.T",
			"field CastRow.P x.T", "field CastRow.P2 x.T", "field CastParams.Column1 x.T", "field CastParams.Column2 x.T"}},
	} {
		t.Run(tc.dbType, func(t *testing.T) {
			cfg := `version: "2"
sql:
  - engine: postgresql
    schema: schema.sql
    queries: query.sql
    gen:
      go:
        package: db
        out: out
        sql_package: pgx/v5
        overrides:
          - {db_type: ` + tc.dbType + `, go_type: example.com/x.T}
`
			a := parseAPI(t, generate(t, cfg, schema, q))
			for _, w := range tc.want {
				a.has(t, w)
			}
		})
	}
}
