package analyze

import (
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// TestNullabilityFromRowCounts: a scalar subquery that always returns one
// row (an aggregate without GROUP BY) is as nullable as its column, and an
// aggregate that is NULL over no rows only (count, array and JSON
// aggregates) is NOT NULL in the groups of a GROUP BY, which have a row
// each; everything that can return no row or an empty group stays
// nullable.
func TestNullabilityFromRowCounts(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{"select (select count(*) from t2 where t2.fk = t1.fk) as n from t1", "n int8 not null"},
		{"select (select count(t2.b) + 1 from t2) as n from t1", "n int8 not null"},
		{"select (select max(t2.fk) from t2) as n from t1", "n int4"},
		{"select (select count(*) from t2 group by b) as n from t1", "n int8"},
		{"select (select count(*) from t2 having count(*) > 1) as n from t1", "n int8"},
		{"select (select count(*) from t2 limit $1) as n from t1", "n int8"},
		{"select (select count(*) from t2 union all select 1) as n from t1", "n int8"},
		{"select (select fk from t2 limit 1) as n from t1", "n int4"},
		{"select (select (select count(*) from t3) from t2) as n from t1", "n int8"},
		{"select (select count(*) over () from t2 limit 1) as n from t1", "n int8"},
		{"select (select count(*) + 0 * generate_series(1, 0) from t2) as n from t1", "n int8"},
		{"select (select count(*) + length('x') from t2) as n from t1", "n int8 not null"},
		{"select fk, jsonb_agg(b) as j, array_agg(b) as a, count(b) as c from t2 group by fk", "fk int4 not null, j jsonb not null, a text[] not null, c int8 not null"},
		{"select fk, max(b) as m, string_agg(b, ',') as s from t2 group by fk", "fk int4 not null, m text, s text"},
		{"select a, sum(fk) as s, max(a) as m, avg(fk) as v, string_agg(a, ',') as g from t1 group by a", "a text not null, s int8 not null, m text not null, v numeric not null, g text not null"},
		{"select sum(fk) as s from t1", "s int8"},
		{"select a, stddev(fk) as d, sum(fk) filter (where fk > 1) as s from t1 group by a", "a text not null, d numeric, s int8"},
		{"select t1.a, sum(t2.fk) as s from t1 left join t2 on t1.fk = t2.fk group by t1.a", "a text not null, s int8"},
		{"select t1.a, sum(t2.fk) as s from t1 join t2 on t1.fk = t2.fk group by t1.a", "a text not null, s int8 not null"},
		{"select jsonb_agg(b) as j from t2", "j jsonb"},
		{"select fk, jsonb_agg(b) filter (where b <> '') as j from t2 group by fk", "fk int4 not null, j jsonb"},
		{"select jsonb_agg(b) as j from t2 group by rollup (fk)", "j jsonb"},
		{"select jsonb_agg(b) as j from t2 group by ()", "j jsonb"},
	} {
		q := mustAnalyze(t, joinSchema, "-- name: Q :many\n"+tc.query+";")
		if got := cols(q[0]); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.query, got, tc.want)
		}
	}
}

// TestStrictFunctionChecks: with sqlc's strict_function_checks a call of a
// function nobody defines is an error at the call; without, an untyped
// result.
func TestStrictFunctionChecks(t *testing.T) {
	sf, err := sqlparse.Parse("schema.sql", []byte(joinSchema))
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.New(catalog.WithColumnGenerator(ColumnGenerator{}))
	for _, s := range sf.Stmts {
		cat.Update(sf, s)
	}
	qf, err := sqlparse.Parse("query.sql", []byte("-- name: F :one\nSELECT doesntexist();"))
	if err != nil {
		t.Fatal(err)
	}
	files := []*sqlparse.File{qf}
	if _, errs := AnalyzeWith(cat, files, Options{StrictFunctionChecks: true}); len(errs) != 1 || !strings.Contains(errs[0].Error(), `query.sql:2:8: function "doesntexist" does not exist`) {
		t.Errorf("strict: got %v", errs)
	}
	if qs, errs := AnalyzeWith(cat, files, Options{}); len(errs) != 0 || len(qs) != 1 || qs[0].Queries[0].Columns[0].Known {
		t.Errorf("not strict: got %v, %v", qs, errs)
	}
}

// TestLargeIntegerConstant: an integer constant beyond int4 is int8 when
// it fits (PostgreSQL's make_const), numeric beyond; a decimal is numeric.
func TestLargeIntegerConstant(t *testing.T) {
	q := mustAnalyze(t, joinSchema, "-- name: Q :one\nselect 2147483648 as a, 9223372036854775807 as b, 9223372036854775808 as c, 1.5 as d, 1 as e;")
	if got, want := cols(q[0]), "a int8 not null, b int8 not null, c numeric not null, d numeric not null, e int4 not null"; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
