package analyze

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/jackc/pgx/v5"
)

const overloadSchema = `
create extension if not exists pgcrypto;
create extension if not exists pg_trgm;
create extension if not exists "uuid-ossp";
create table t (
  i2 int2 not null, i4 int4 not null, i8 int8 not null, n numeric not null, f4 float4 not null,
  f8 float8 not null, tx text not null, vc varchar not null, ts timestamp not null,
  tz timestamptz not null, d date not null, j jsonb not null, b bytea not null,
  ia int4[] not null, ta text[] not null
);
`

// TestBuiltinOverloadsAgainstPostgreSQL prepares calls of overloaded
// built-in functions on the real server and checks that the analyzer picks
// the overload PostgreSQL does: the same result type and the same
// parameter types (PostgreSQL docs, 10.3 "Functions").
func TestBuiltinOverloadsAgainstPostgreSQL(t *testing.T) {
	exprs := []string{
		"abs(i2)", "abs(i8)", "abs(n)", "round(n)", "round(f8)", "round(i4)", "round(n, 2)", "trunc(f4)", "ceil(n)",
		"sum(i2)", "sum(i4)", "sum(i8)", "sum(n)", "sum(f4)", "avg(i4)", "avg(f8)", "max(tz)", "min(vc)", "max(ta)",
		"date_trunc('day', ts)", "date_trunc('day', tz)", "date_part('year', d)", "length(vc)", "lower(vc)",
		"generate_series(1, 10)", "generate_series(i8, 10)", "generate_series(ts, ts, '1 day')",
		"jsonb_build_object('a', i4)", "jsonb_extract_path(j, 'a')", "jsonb_set(j, '{a}', j)", "array_append(ia, 1)",
		"array_length(ta, 1)", "digest(tx, 'sha256')", "digest(b, 'sha256')", "to_char(tz, 'YYYY')", "left(tx, 2)",
		"power(i4, 2)", "mod(i8, 3)", "string_agg(tx, ',')", "array_agg(i8)", "now()", "concat(tx, i4)",
		"substr(vc, 1, 2)", "ln(i4)", "sqrt(n)", "unnest(ta)", "to_tsvector(tx)", "count(*)", "row_number() over ()",
		"lag(i8) over ()", "split_part(tx, ',', 1)", "extract(epoch from tz)",
		// Parameters take the resolved function's argument types.
		"lower($1)", "date_trunc('day', $1::timestamp)", "pg_advisory_lock($1)", "make_interval(days => $1)",
		"substr(tx, $1)", "jsonb_set(j, $1, $2)", "round(n, $1)", "left($1, 2)", "digest($1, 'sha1')",
		"to_tsvector($1)", "array_append(ia, $1)", "generate_series(i4, $1)", "abs($1::int8)", "md5($1)",
		"jsonb_build_object('a', $1::text)", "coalesce(sum(i4), $1)",
		// Ordered-set aggregates take their WITHIN GROUP expressions as
		// arguments; VARIADIC passes the array itself.
		"percentile_cont(0.5) within group (order by f8)", "percentile_disc(0.5) within group (order by tz)",
		"mode() within group (order by tx)", "concat_ws(',', variadic ta)", "json_build_array(variadic ta)",
		"percentile_cont($1) within group (order by n)",
		"to_char(n, '999')", "format('%s', i4)", "array_to_string(ta, ',')", "jsonb_path_exists(j, '$.a')",
		"string_to_array(tx, ',')", "position('a' in tx)", "trim(tx)", "substring(tx from 2)", "age(tz)", "age(tz, tz)",
		"to_timestamp($1)", "make_date($1, $2, $3)", "similarity(tx, $1)", "uuid_generate_v4()", "hmac(tx, $1, 'sha256')",
		"date_part('epoch', $1::timestamptz)", "array_position(ta, $1)", "array_cat(ia, $1)", "encode(b, $1)",
		"regexp_replace(tx, $1, $2)", "jsonb_array_length(j)", "to_jsonb(i4)", "json_agg(tz)", "bool_and(i4 > 0)",
		"nullif(i4, 1)", "char_length(vc)", "octet_length(b)", "lpad(tx, $1, '0')", "log(n)", "log(2, n)", "width_bucket(f8, 0, 1, $1)",
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool := testenv.Database(t, overloadSchema)
	for _, e := range exprs {
		query := "SELECT " + e + " FROM t"
		qs := mustAnalyze(t, overloadSchema, "-- name: Q :many\n"+query+";")
		q := qs[0]
		conn, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sd, err := conn.Conn().Prepare(ctx, "", query)
		if err != nil {
			conn.Release()
			t.Fatalf("%s: %v", query, err)
		}
		var resultTypes, paramTypes []string
		for _, f := range sd.Fields {
			resultTypes = append(resultTypes, oidName(t, conn.Conn(), f.DataTypeOID))
		}
		for _, o := range sd.ParamOIDs {
			paramTypes = append(paramTypes, oidName(t, conn.Conn(), o))
		}
		var got, gotParams []string
		for _, c := range q.Columns {
			got = append(got, regtype(t, conn.Conn(), c.Type.String(), c.Known))
		}
		for _, p := range q.Params {
			gotParams = append(gotParams, regtype(t, conn.Conn(), p.Type.String(), p.Known))
		}
		conn.Release()
		if fmt.Sprint(got) != fmt.Sprint(resultTypes) || fmt.Sprint(gotParams) != fmt.Sprint(paramTypes) {
			t.Errorf("%s: analyzer %v (params %v), PostgreSQL %v (params %v)", e, got, gotParams, resultTypes, paramTypes)
		}
	}
}

// regtype spells an analyzer type as PostgreSQL's regtype output does.
func regtype(t *testing.T, conn *pgx.Conn, typ string, known bool) string {
	t.Helper()
	if !known {
		return "unknown-to-fencegen"
	}
	var s string
	if err := conn.QueryRow(context.Background(), "SELECT $1::regtype::text", strings.TrimPrefix(typ, "pg_catalog.")).Scan(&s); err != nil {
		return "bad type " + typ
	}
	return s
}

func oidName(t *testing.T, conn *pgx.Conn, oid uint32) string {
	t.Helper()
	var s string
	if err := conn.QueryRow(context.Background(), "SELECT $1::oid::regtype::text", oid).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBuiltinResultNullabilityAndParamNames pins fencegen's nullability
// rules for built-in calls and the names parameters take from pg_proc's
// argument names (as sqlc names them, internal/compiler/resolve.go).
func TestBuiltinResultNullabilityAndParamNames(t *testing.T) {
	const schema = `create table u (a int4, b text, c int4 not null, d text not null, e jsonb not null, f text[]);`
	for _, tc := range []struct{ query, cols, params string }{
		// sqlc's catalog marks no function nullable: a normal function is
		// NOT NULL whatever its arguments...
		{"select lower(b), length(b), now() from u", "lower text not null, length int4 not null, now timestamptz not null", ""},
		// ...except the numeric ones returning their argument's type, which
		// follow it, and those documented to return NULL.
		// round(int4) is round(float8), as in PostgreSQL.
		{"select abs(a), abs(c), round(a), array_length(f, 1) from u", "abs int4, abs int4 not null, round float8, array_length int4", ""},
		// Aggregates other than count are NULL over no rows; window
		// functions reading another row may find none.
		{"select count(a), sum(c), max(d), string_agg(d, ',') from u", "count int8 not null, sum int8, max text, string_agg text", ""},
		{"select row_number() over (), lag(c) over (), ntile(2) over () from u", "row_number int8 not null, lag int4, ntile int4 not null", ""},
		// Strict polymorphic results follow the argument they come from
		// (array_append is not strict: array_append(NULL, x) is {x}).
		{"select array_append(f, d), unnest(f) from u", "array_append text[] not null, unnest text", ""},
		// Parameters are named after the function's argument, or the
		// function when the argument has no name.
		{"select jsonb_set(e, $1, $2) from u", "jsonb_set jsonb not null", "1 path text[] not null, 2 replacement jsonb not null"},
		{"select pg_advisory_lock($1)", "pg_advisory_lock void not null", "1 pg_advisory_lock int8 not null"},
		{"select make_interval(days => $1)", "make_interval interval not null", "1 days int4 not null"},
		// A schema-qualified call finds pg_catalog's functions too, as in
		// sqlc.
		{"select public.gen_random_uuid(), public.uuid_generate_v4()", "gen_random_uuid uuid not null, uuid_generate_v4 uuid not null", ""},
		// An unknown function's result is unknown, as in sqlc.
		{"select no_such_function(c) from u", "no_such_function any", ""},
	} {
		q := mustAnalyze(t, schema, "-- name: Q :many\n"+tc.query+";")[0]
		if got := cols(q); got != tc.cols {
			t.Errorf("%s:\n got %s\nwant %s", tc.query, got, tc.cols)
		}
		if got := strings.Join(paramList(q), ", "); got != tc.params {
			t.Errorf("%s: params\n got %s\nwant %s", tc.query, got, tc.params)
		}
	}
	for _, tc := range []struct{ query, want string }{
		{"select lower(1, 2)", "function lower(integer, integer) does not exist"},
		{"select make_interval(fortnights => 1)", "function make_interval(integer) does not exist"},
	} {
		_, msgs := analyzeSrc(t, schema, "-- name: Q :many\n"+tc.query+";")
		if len(msgs) != 1 || !strings.Contains(msgs[0], tc.want) {
			t.Errorf("%s: got %q, want %q", tc.query, msgs, tc.want)
		}
	}
}
