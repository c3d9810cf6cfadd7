package analyze

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestOperatorResultsArePostgresTypes asks PostgreSQL the result type of
// every binary operator expression between columns of common types and
// constants: each built-in operator name that pg_operator has on them,
// PREPAREd as SELECT l <op> r. The analyzer must give the type PostgreSQL
// gives (operator type resolution, PostgreSQL docs 10.2): wherever
// PostgreSQL accepts the expression and the analyzer knows a type, the two
// are equal.
func TestOperatorResultsArePostgresTypes(t *testing.T) {
	types := []string{"int2", "int4", "int8", "float4", "float8", "numeric", "date", "time", "timestamp", "timestamptz", "interval", "text", "varchar", "bool", "jsonb", "int4[]"}
	var cols []string
	for i, ty := range types {
		cols = append(cols, fmt.Sprintf("c%d %s NOT NULL", i, ty))
	}
	schema := "CREATE TABLE t (id bigint PRIMARY KEY, " + strings.Join(cols, ", ") + ");"
	ctx := context.Background()
	pool := testenv.Database(t, schema)
	rows, err := pool.Query(ctx, `SELECT DISTINCT oprname FROM pg_operator WHERE oprkind = 'b'
		AND oprleft IN (SELECT oid FROM pg_type WHERE typname = ANY($1)) ORDER BY 1`, []string{"int2", "int4", "int8", "float4", "float8", "numeric", "date", "time", "timestamp", "timestamptz", "interval", "text", "varchar", "bool", "jsonb", "_int4"})
	if err != nil {
		t.Fatal(err)
	}
	ops, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	operands := []string{"2", "2.5", "'1'"}
	for i := range types {
		operands = append(operands, fmt.Sprintf("c%d", i))
	}
	var exprs []string
	for _, op := range ops {
		for _, l := range operands {
			for _, r := range operands {
				exprs = append(exprs, l+" "+op+" "+r)
			}
		}
	}
	n, compared, wrong := compareResultTypes(t, pool, schema, exprs)
	t.Logf("%d operators, %d expressions PostgreSQL accepts, %d typed by the analyzer, %d wrong", len(ops), n, compared, wrong)
}

// TestCommonTypesArePostgresTypes asks PostgreSQL the result type of the
// constructs that resolve one type from several expressions (PostgreSQL
// docs, 10.5 "UNION, CASE, and Related Constructs"): CASE, COALESCE,
// GREATEST, LEAST and ARRAY[...] over every pair of columns of common types
// and constants, PREPAREd. Wherever PostgreSQL accepts the expression and
// the analyzer knows a type, the two are equal.
func TestCommonTypesArePostgresTypes(t *testing.T) {
	types := []string{"int2", "int4", "int8", "float4", "float8", "numeric", "date", "timestamp", "timestamptz", "interval", "text", "varchar", "bool", "jsonb"}
	var cols []string
	for i, ty := range types {
		cols = append(cols, fmt.Sprintf("c%d %s NOT NULL", i, ty))
	}
	schema := "CREATE TABLE t (id bigint PRIMARY KEY, b bool NOT NULL, " + strings.Join(cols, ", ") + ");"
	pool := testenv.Database(t, schema)
	operands := []string{"2", "2.5", "'1'", "NULL"}
	for i := range types {
		operands = append(operands, fmt.Sprintf("c%d", i))
	}
	forms := []string{"CASE WHEN b THEN %s ELSE %s END", "COALESCE(%s, %s)", "GREATEST(%s, %s)", "LEAST(%s, %s)", "ARRAY[%s, %s]"}
	var exprs []string
	for _, form := range forms {
		for _, l := range operands {
			for _, r := range operands {
				exprs = append(exprs, fmt.Sprintf(form, l, r))
			}
		}
	}
	n, compared, wrong := compareResultTypes(t, pool, schema, exprs)
	t.Logf("%d expressions PostgreSQL accepts, %d typed by the analyzer, %d wrong", n, compared, wrong)
}

// compareResultTypes PREPAREs SELECT expr AS v FROM t for each of exprs
// in PostgreSQL, analyses those it accepts (one query each) against
// schema, and reports each result type the analyzer knows that differs
// from PostgreSQL's; n is how many PostgreSQL accepts, compared how many
// of those the analyzer types, wrong how many differ.
func compareResultTypes(t *testing.T, pool *pgxpool.Pool, schema string, exprs []string) (n, compared, wrong int) {
	t.Helper()
	ctx := context.Background()
	typeName := pgTypeNames(t, pool)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	var src strings.Builder
	var accepted, want []string
	for _, expr := range exprs {
		sd, err := conn.Conn().Prepare(ctx, "", "SELECT "+expr+" AS v FROM t")
		if err != nil {
			continue
		}
		accepted = append(accepted, expr)
		want = append(want, typeName[sd.Fields[0].DataTypeOID])
		fmt.Fprintf(&src, "-- name: Q%d :many\nSELECT %s AS v FROM t;\n\n", len(accepted), expr)
	}
	files, errs := analyzeSrc(t, schema, src.String())
	if len(errs) > 0 {
		t.Fatalf("the analyzer refuses expressions PostgreSQL accepts: %q", errs)
	}
	for i, q := range files[0].Queries {
		c := q.Columns[0]
		if !c.Known || c.Type.Name == "any" {
			continue
		}
		compared++
		if got := c.Type.Name + strings.Repeat("[]", c.Type.ArrayDims); got != want[i] {
			wrong++
			if wrong <= 40 {
				t.Errorf("SELECT %s: the analyzer says %s, PostgreSQL %s", accepted[i], got, want[i])
			}
		}
	}
	if compared < len(accepted)/2 {
		t.Errorf("the analyzer types %d of %d expressions: want most", compared, len(accepted))
	}
	return len(accepted), compared, wrong
}
