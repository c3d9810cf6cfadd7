package analyze

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/internal/testenv"
)

// rowSchema has a table, a composite type and functions returning rows
// of each shape: SETOF a composite type, one composite, OUT parameters,
// RETURNS TABLE and SETOF a table.
const rowSchema = `
CREATE TABLE docs (id bigserial PRIMARY KEY, parent_id bigint REFERENCES docs (id), title text NOT NULL, data jsonb NOT NULL, tags text[] NOT NULL);
CREATE TYPE pair AS (a int, b text);
CREATE FUNCTION pairs(n int) RETURNS SETOF pair LANGUAGE sql AS $$ SELECT i, i::text FROM generate_series(1, n) i $$;
CREATE FUNCTION one_pair(n int) RETURNS pair LANGUAGE sql AS $$ SELECT n, n::text $$;
CREATE FUNCTION outs(n int, OUT x int, OUT y text) RETURNS SETOF record LANGUAGE sql AS $$ SELECT i, i::text FROM generate_series(1, n) i $$;
CREATE FUNCTION tbl(n int) RETURNS TABLE (k int, v text) LANGUAGE sql AS $$ SELECT i, i::text FROM generate_series(1, n) i $$;
CREATE FUNCTION docs_of(p bigint) RETURNS SETOF docs LANGUAGE sql AS $$ SELECT * FROM docs WHERE parent_id = p $$;
CREATE TABLE holder (id int PRIMARY KEY, p pair NOT NULL);
`

// rowQueries read the rows of functions and row-typed values: in FROM,
// PostgreSQL expands a function's row result into its columns, and
// (x).* in a select list into x's fields. (A field selection, (p).a,
// keeps sqlc's name, column_N, and is not listed.)
var rowQueries = []string{
	"SELECT * FROM pairs($1)",
	"SELECT p.* FROM pairs($1) p",
	"SELECT a, b FROM pairs($1)",
	"SELECT * FROM pairs($1) WITH ORDINALITY",
	"SELECT * FROM pairs($1) AS p(x)",
	"SELECT * FROM one_pair($1)",
	"SELECT * FROM unnest($1::pair[])",
	"SELECT * FROM unnest($1::int[], $2::pair[])",
	"SELECT * FROM jsonb_populate_recordset(NULL::pair, $1::jsonb)",
	"SELECT * FROM jsonb_populate_record(NULL::docs, $1::jsonb)",
	"SELECT * FROM ROWS FROM (pairs($1), generate_series(1, 3))",
	"SELECT * FROM outs($1)",
	"SELECT o.* FROM outs($1) o",
	"SELECT * FROM tbl($1)",
	"SELECT * FROM docs_of($1)",
	"SELECT * FROM jsonb_each($1::jsonb)",
	"SELECT (one_pair($1)).*",
	"SELECT (pairs($1)).*",
	"SELECT id, (p).* FROM holder",
	"SELECT (d).* FROM docs d",
	"SELECT (jsonb_each(data)).* FROM docs",
}

// TestRowColumnsArePostgresColumns PREPAREs each of rowQueries and
// compares the columns PostgreSQL returns (their number, names and types)
// with the analyzer's.
func TestRowColumnsArePostgresColumns(t *testing.T) {
	pool := testenv.Database(t, rowSchema)
	compareColumns(t, pool, rowSchema, rowQueries)
}

// compareColumns PREPAREs each query in PostgreSQL, which must accept it,
// analyses it against schema and reports every difference in the number,
// names or (where the analyzer knows it) types of the result columns.
func compareColumns(t *testing.T, pool *pgxpool.Pool, schema string, queries []string) {
	t.Helper()
	ctx := context.Background()
	typeName := pgTypeNames(t, pool)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, query := range queries {
		sd, err := conn.Conn().Prepare(ctx, "", query)
		if err != nil {
			t.Errorf("PostgreSQL refuses %s: %v", query, err)
			continue
		}
		var want []string
		for _, f := range sd.Fields {
			want = append(want, f.Name+" "+typeName[f.DataTypeOID])
		}
		files, errs := analyzeSrc(t, schema, fmt.Sprintf("-- name: Q :many\n%s;\n", query))
		if len(errs) > 0 {
			t.Errorf("%s: the analyzer refuses it: %q", query, errs)
			continue
		}
		var got []string
		for i, c := range files[0].Queries[0].Columns {
			typ := c.Type.Name + strings.Repeat("[]", c.Type.ArrayDims)
			if (!c.Known || c.Type.Name == "any") && i < len(want) {
				typ = want[i][strings.LastIndex(want[i], " ")+1:] // unknown: not compared
			}
			got = append(got, c.Name+" "+typ)
		}
		if strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Errorf("%s:\n the analyzer's columns: %s\n PostgreSQL's:           %s", query, strings.Join(got, ", "), strings.Join(want, ", "))
		}
	}
}
