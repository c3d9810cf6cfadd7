package analyze

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestPrefixAtIsANamedParameterTypedAsPostgresTypesIt: sqlc takes every
// prefix @ followed by a name for a named parameter, but @ is also a prefix
// operator of PostgreSQL, binding looser than some operators that may
// follow the name ("Operator Precedence", PostgreSQL docs 4.1.6), so
// "@p::int + 1" parses as @(p::int + 1). For every binary operator
// pg_operator has on numbers and text (and keyword forms), the analyzer
// must read parameter p where the name stands, send the text with @p
// replaced by $1, and type the parameter and the result as PostgreSQL's
// PREPARE of that text does. EXPLAIN VERBOSE of "@p <tail>" against
// "(@p) <tail>" on a table with a column p shows that the forms include
// many PostgreSQL groups the other way. An @ not followed by one name is
// refused at the @.
func TestPrefixAtIsANamedParameterTypedAsPostgresTypesIt(t *testing.T) {
	const schema = `CREATE TABLE t (id bigint PRIMARY KEY, p int NOT NULL);`
	ctx := context.Background()
	pool := testenv.Database(t, schema)
	typeName := pgTypeNames(t, pool)
	rows, err := pool.Query(ctx, `SELECT DISTINCT oprname FROM pg_operator
		WHERE oprkind = 'b' AND oprleft IN ('int4'::regtype, 'float8'::regtype, 'text'::regtype, 'anynonarray'::regtype)
		AND oprright IN ('int4'::regtype, 'float8'::regtype, 'text'::regtype, 'anynonarray'::regtype) ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) < 15 {
		t.Fatalf("pg_operator gave %d operators: %q", len(ops), ops)
	}
	var tails []string
	for _, op := range ops {
		operand := "2"
		if op == "||" || strings.ContainsAny(op, "~") {
			operand = "'x'"
		}
		tails = append(tails, op+" "+operand)
	}
	tails = append(tails, "", "IS NULL", "IS DISTINCT FROM 1", "BETWEEN 1 AND 9", "IN (5, 6)", "+ 1 = 2", "COLLATE \"C\"", "AT TIME ZONE 'UTC'", "* 2 + 1")
	explain := func(expr string) (string, bool) {
		var plan []string
		rows, err := pool.Query(ctx, "EXPLAIN (VERBOSE, COSTS OFF) SELECT "+expr+" FROM t")
		if err != nil {
			return "", false
		}
		defer rows.Close()
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			if out, ok := strings.CutPrefix(strings.TrimSpace(line), "Output: "); ok {
				plan = append(plan, out)
			}
		}
		if rows.Err() != nil {
			return "", false
		}
		return strings.Join(plan, "; "), true
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	var grouped, typed int
	// A cast binds tighter than @: @p::int is @(p::int) in PostgreSQL's
	// grouping too.
	for _, head := range []string{"@p", "@p::int", `@"p"`, "@p::float8", "@p::bigint::numeric"} {
		for _, tail := range tails {
			expr := strings.TrimSpace(head + " " + tail)
			asWritten, ok1 := explain(expr)
			asParam, ok2 := explain("(" + head + ") " + tail)
			if ok2 && (!ok1 || asWritten != asParam) {
				grouped++ // PostgreSQL reads @ of more than the name
			}
			files, errs := analyzeSrc(t, schema, "-- name: Q :many\nSELECT "+expr+" AS v FROM t;\n")
			if len(errs) > 0 {
				t.Errorf("%s: refused: %q", expr, errs)
				continue
			}
			q := files[0].Queries[0]
			name := strings.SplitN(strings.TrimPrefix(head, "@"), "::", 2)[0]
			sent := "$1" + strings.TrimPrefix(expr, "@"+name)
			if len(q.Params) != 1 || q.Params[0].Name != "p" || !strings.Contains(q.SQL, "SELECT "+sent+" AS v") {
				t.Errorf("%s: want the named parameter p, sent as SELECT %s AS v; got %d params, SQL %q", expr, sent, len(q.Params), q.SQL)
				continue
			}
			sd, err := conn.Conn().Prepare(ctx, "", q.SQL)
			if err != nil {
				continue // no type to compare ("$1 IS NULL", "$1 || 'x'")
			}
			typed++
			p, c := q.Params[0], q.Columns[0]
			// The parameter's type is PostgreSQL's, or (as sqlc types it
			// from the context: $1 ^ 2 takes 2's int4) one PostgreSQL
			// casts to it implicitly (pg_cast), so that the value binds.
			if got, want := p.Type.Name, typeName[sd.ParamOIDs[0]]; p.Known && got != want {
				var implicit bool
				if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_cast WHERE castsource = $1::regtype AND casttarget = $2::regtype AND castcontext = 'i')`, got, want).Scan(&implicit); err != nil || !implicit {
					t.Errorf("%s: parameter p is %s, PostgreSQL's PREPARE of %q says %s, and %s is not cast to it implicitly (%v)", expr, got, q.SQL, want, got, err)
				}
			}
			if got, want := c.Type.Name, typeName[sd.Fields[0].DataTypeOID]; c.Known && got != "any" && got != want {
				t.Errorf("%s: the result is %s, PostgreSQL's PREPARE of %q says %s", expr, got, q.SQL, want)
			}
		}
	}
	for _, expr := range []string{"@ (p + 1)", "@ 5", "@t.p", "@ -p", "@(p)"} {
		_, errs := analyzeSrc(t, schema, "-- name: Q :many\nSELECT "+expr+" AS v FROM t;\n")
		if len(errs) != 1 || !strings.HasPrefix(errs[0], "query.sql:2:8: @ is sqlc's named-parameter sign") {
			t.Errorf("%s: got %q, want one error at the @", expr, errs)
		}
	}
	// Several named parameters in one expression, quoted names and
	// keywords: the text sent is the text written with each @name
	// replaced by its $n, and the result is typed as PostgreSQL's PREPARE
	// of that text types it (@a - @b - 1 is (a - b) - 1 there, where
	// PostgreSQL would read the written text as @(a - @(b - 1))).
	for expr, sent := range map[string]string{
		"@a::date + @b::int - @c::date":  "$1::date + $2::int - $3::date",
		"@a::date - @b::date + @c::date": "$1::date - $2::date + $3::date",
		"@a::int - @b::int - 1":          "$1::int - $2::int - 1",
		`@"a""b"::int + 1`:               "$1::int + 1",
		"@user::text || 'x'":             "$1::text || 'x'",
		"p * @k::int % 7":                "p * $1::int % 7",
	} {
		files, errs := analyzeSrc(t, schema, "-- name: Q :many\nSELECT "+expr+" AS v FROM t;\n")
		if len(errs) > 0 {
			t.Errorf("%s: refused: %q", expr, errs)
			continue
		}
		q := files[0].Queries[0]
		if !strings.Contains(q.SQL, "SELECT "+sent+" AS v") {
			t.Errorf("%s: sent %q, want SELECT %s AS v", expr, q.SQL, sent)
			continue
		}
		sd, err := conn.Conn().Prepare(ctx, "", q.SQL)
		if err != nil {
			t.Errorf("%s: PostgreSQL refuses the text sent, %q: %v", expr, q.SQL, err)
			continue
		}
		if c := q.Columns[0]; !c.Known || c.Type.Name != typeName[sd.Fields[0].DataTypeOID] {
			t.Errorf("%s: the result is %s (known %v), PostgreSQL's PREPARE of %q says %s", expr, c.Type.Name, c.Known, q.SQL, typeName[sd.Fields[0].DataTypeOID])
		}
	}
	if grouped < 10 || typed < 30 {
		t.Errorf("%d forms that PostgreSQL groups as @ of more than the name, %d typed by PREPARE: want the class covered", grouped, typed)
	}
	t.Logf("%d operators; %d forms PostgreSQL would group as @ of more than the name; %d typed by PREPARE", len(ops), grouped, typed)
}
