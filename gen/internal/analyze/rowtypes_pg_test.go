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

// recursiveSchema is the schema of recursiveQueries.
const recursiveSchema = `
CREATE TABLE docs (id bigserial PRIMARY KEY, parent_id bigint REFERENCES docs (id), title text NOT NULL, pos int NOT NULL DEFAULT 0);
CREATE TABLE edges (src bigint NOT NULL, dst bigint NOT NULL);
`

// recursiveQueries are recursive CTEs in the shapes of real projects: a
// column's type is the non-recursive term's (PostgreSQL docs, 7.8.2
// "Recursive Queries").
var recursiveQueries = []string{
	`WITH RECURSIVE t AS (SELECT id, parent_id, title, 1 AS depth FROM docs WHERE docs.id = $1 UNION ALL SELECT d.id, d.parent_id, d.title, t.depth + 1 FROM docs d JOIN t ON d.parent_id = t.id) SELECT * FROM t`,
	`WITH RECURSIVE t(id, lvl) AS (SELECT id, 0 FROM docs WHERE parent_id IS NULL UNION ALL SELECT d.id, t.lvl + 1 FROM docs d, t WHERE d.parent_id = t.id) SELECT id, lvl FROM t ORDER BY lvl`,
	`WITH RECURSIVE path AS (SELECT id, parent_id, ARRAY[id] AS ids, title::text AS p FROM docs WHERE id = $1 UNION ALL SELECT d.id, d.parent_id, path.ids || d.id, path.p || '/' || d.title FROM docs d JOIN path ON path.parent_id = d.id) SELECT ids, p FROM path WHERE parent_id IS NULL`,
	`WITH RECURSIVE reach(node) AS (SELECT $1::bigint UNION SELECT e.dst FROM edges e JOIN reach r ON e.src = r.node) SELECT node FROM reach`,
	`WITH RECURSIVE ancestors AS (SELECT id, parent_id, title FROM docs WHERE id = $1 UNION ALL SELECT d.id, d.parent_id, d.title FROM docs d INNER JOIN ancestors a ON a.parent_id = d.id), counted AS (SELECT count(*) AS n FROM ancestors) SELECT a.id, a.title, c.n FROM ancestors a, counted c`,
	`WITH RECURSIVE cnt(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM cnt WHERE x < $1) SELECT sum(x) FROM cnt`,
	`WITH RECURSIVE t(n) AS (VALUES (1) UNION ALL SELECT n + 1 FROM t WHERE n < 10) SELECT n FROM t`,
	`WITH RECURSIVE tree AS (SELECT id, parent_id, title, title AS full_path, 0 AS level FROM docs WHERE parent_id IS NULL UNION ALL SELECT c.id, c.parent_id, c.title, tree.full_path || ' > ' || c.title, tree.level + 1 FROM docs c JOIN tree ON c.parent_id = tree.id) SELECT id, full_path, level FROM tree ORDER BY full_path`,
	`WITH RECURSIVE t AS (SELECT id, parent_id, pos, NULL::bigint AS root FROM docs WHERE parent_id IS NULL UNION ALL SELECT d.id, d.parent_id, d.pos, COALESCE(t.root, t.id) FROM docs d JOIN t ON d.parent_id = t.id) SELECT * FROM t`,
	`WITH RECURSIVE t AS (SELECT d.* FROM docs d WHERE d.id = $1 UNION ALL SELECT d.* FROM docs d JOIN t ON d.parent_id = t.id) SELECT * FROM t`,
	`SELECT * FROM (WITH RECURSIVE t AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT n FROM t) s`,
	`WITH RECURSIVE fibonacci(n, x, y) AS (SELECT 1 AS n, 0::int AS x, 1::int AS y UNION ALL SELECT n + 1 AS n, y AS x, x + y AS y FROM fibonacci WHERE n < $1::int) SELECT x FROM fibonacci`,
	`WITH RECURSIVE t AS (SELECT id, parent_id FROM docs WHERE id = $1 UNION ALL SELECT d.id, d.parent_id FROM docs d JOIN t ON d.id = t.parent_id) SEARCH DEPTH FIRST BY id SET ordercol SELECT id, ordercol FROM t ORDER BY ordercol`,
	`WITH RECURSIVE t AS (SELECT id, parent_id FROM docs WHERE id = $1 UNION ALL SELECT d.id, d.parent_id FROM docs d JOIN t ON d.id = t.parent_id) SEARCH BREADTH FIRST BY id SET ordercol SELECT * FROM t ORDER BY ordercol`,
	`WITH RECURSIVE t AS (SELECT id, parent_id FROM docs WHERE id = $1 UNION ALL SELECT d.id, d.parent_id FROM docs d JOIN t ON d.id = t.parent_id) CYCLE id SET is_cycle USING cpath SELECT * FROM t`,
	`WITH RECURSIVE t AS (SELECT id, parent_id FROM docs WHERE id = $1 UNION ALL SELECT d.id, d.parent_id FROM docs d JOIN t ON d.id = t.parent_id) CYCLE id, parent_id SET done TO 'Y' DEFAULT 'N' USING p SELECT id, done FROM t`,
	`WITH RECURSIVE sub AS (SELECT id FROM docs WHERE id = $1 UNION SELECT d.id FROM docs d JOIN sub ON d.parent_id = sub.id) SELECT count(*) FROM docs WHERE id IN (SELECT id FROM sub)`,
}

// TestRecursiveCTEColumnsArePostgresColumns PREPAREs each of
// recursiveQueries and compares the result columns with PostgreSQL's.
func TestRecursiveCTEColumnsArePostgresColumns(t *testing.T) {
	pool := testenv.Database(t, recursiveSchema)
	compareColumns(t, pool, recursiveSchema, recursiveQueries)
}

// TestTablesampleArePostgresTypes PREPAREs queries reading a table
// through TABLESAMPLE: the columns are the table's, and the parameters
// of the sampling method and its seed are typed as PostgreSQL types
// them (real and double precision; sqlc's API leaves them interface{}).
func TestTablesampleArePostgresTypes(t *testing.T) {
	pool := testenv.Database(t, recursiveSchema)
	queries := []string{
		"SELECT id, title FROM docs TABLESAMPLE BERNOULLI ($1)",
		"SELECT d.id FROM docs d TABLESAMPLE SYSTEM (10) REPEATABLE ($1) WHERE d.id > $2",
	}
	compareColumns(t, pool, recursiveSchema, queries)
	typeName := pgTypeNames(t, pool)
	for _, query := range queries {
		sd, err := pool.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		st, err := sd.Conn().Prepare(context.Background(), "", query)
		sd.Release()
		if err != nil {
			t.Fatal(err)
		}
		files, errs := analyzeSrc(t, recursiveSchema, "-- name: Q :many\n"+query+";\n")
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		for i, p := range files[0].Queries[0].Params {
			if got, want := p.Type.Name, typeName[st.ParamOIDs[i]]; got != want {
				t.Errorf("%s: $%d is %s, PostgreSQL says %s", query, i+1, got, want)
			}
		}
	}
}
