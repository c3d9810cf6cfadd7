package analyze

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/internal/testenv"
)

// sqlcFromQueries are functions in FROM that sqlc v1.31.1 reads with
// other columns than PostgreSQL's (sqlcRangeFunc), each with the columns
// of sqlc's reading (Query.Alt).
var sqlcFromQueries = []struct{ query, cols string }{
	{"SELECT * FROM pairs($1)", "pairs"},
	{"SELECT * FROM pairs($1) AS p", "p"},
	{"SELECT * FROM one_pair($1)", "one_pair"},
	{"SELECT * FROM outs($1)", "outs"}, // RETURNS SETOF record with OUT parameters
	{"SELECT * FROM tbl($1)", "tbl"},
	{"SELECT * FROM jsonb_each($1::jsonb)", "jsonb_each"},
	{"SELECT * FROM generate_series(1, 3) WITH ORDINALITY", "generate_series"},
	{"SELECT * FROM generate_series(1, 3) WITH ORDINALITY AS g(n)", "n"},
	{"SELECT * FROM ROWS FROM (tbl($1), generate_series(1, 3))", "tbl"},
	{"SELECT * FROM jsonb_to_record($1::jsonb) AS x(a int, b text)", "x"},
	{"SELECT * FROM CURRENT_DATE", ""},
	{"SELECT * FROM COALESCE(1, 2)", ""},
	{"SELECT id, title, tbl FROM docs, tbl($1)", "id, title, tbl"},
	// A VALUES list has no columns in sqlc's reading, whatever its
	// alias names them (sqlcValues): in FROM and in WITH.
	{"SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(n, s)", ""},
	{"SELECT * FROM (VALUES (1, 'a')) AS v", ""},
	{"SELECT v.* FROM (VALUES (1, 'a')) AS v(n)", ""},
	{"SELECT * FROM docs JOIN (VALUES (1::bigint, 'a')) AS v(n, s) ON v.n = docs.id", "id, parent_id, title, data, tags"},
	{"SELECT * FROM docs, LATERAL (VALUES (docs.id)) AS l(x)", "id, parent_id, title, data, tags"},
	{"WITH v(n, s) AS (VALUES (1, 'a')) SELECT * FROM v", ""},
	{"SELECT * FROM (SELECT * FROM (VALUES ($1::int)) AS a(n)) AS b", ""},
	// A star over a USING or NATURAL join has both sides' columns in
	// sqlc's reading, spelt by table where a name repeats.
	{"SELECT * FROM docs JOIN holder USING (id)", "id, parent_id, title, data, tags, id, p"},
	{"SELECT * FROM docs LEFT JOIN holder USING (id) WHERE title = $1", "id, parent_id, title, data, tags, id, p"},
	{"SELECT * FROM docs AS a NATURAL JOIN docs AS b", "id, parent_id, title, data, tags, id, parent_id, title, data, tags"},
}

// TestSqlcReadingIsRunByPostgres PREPAREs the SQL of sqlc's reading of
// each of sqlcFromQueries (its star spelt as sqlc spells it: SELECT tbl
// FROM tbl($1), SELECT  FROM CURRENT_DATE), which PostgreSQL must
// accept, and compares the columns it returns with the reading's; the
// statements where sqlc's reading is refused by PostgreSQL (t.* of a
// function of several columns, sqlc's t.t) or would write its record
// column as a row (INSERT ... SELECT) keep PostgreSQL's reading only.
func TestSqlcReadingIsRunByPostgres(t *testing.T) {
	pool := testenv.Database(t, rowSchema)
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, tc := range sqlcFromQueries {
		files, errs := analyzeSrc(t, rowSchema, fmt.Sprintf("-- name: Q :many\n%s;\n", tc.query))
		if len(errs) > 0 {
			t.Errorf("%s: refused: %q", tc.query, errs)
			continue
		}
		alt := files[0].Queries[0].Alt
		if alt == nil {
			t.Errorf("%s: no sqlc reading", tc.query)
			continue
		}
		var got []string
		for _, c := range alt.Columns {
			got = append(got, c.Name)
		}
		if strings.Join(got, ", ") != tc.cols {
			t.Errorf("%s: sqlc's reading has columns %q, want %q", tc.query, got, tc.cols)
		}
		sql := alt.SQL[strings.Index(alt.SQL, "\n")+1:]
		sd, err := conn.Conn().Prepare(ctx, "", sql)
		if err != nil {
			t.Errorf("%s: PostgreSQL refuses sqlc's reading %q: %v", tc.query, sql, err)
			continue
		}
		var pg []string
		for _, f := range sd.Fields {
			pg = append(pg, f.Name)
		}
		if len(pg) != len(got) {
			t.Errorf("%s: sqlc's reading %q returns %q in PostgreSQL, declared %q", tc.query, sql, pg, got)
		}
	}
	// sqlc's text of @min - 1, which it reads as @(min - 1): its rewrite
	// takes the blank after the name too (Query.SqlcSQL).
	files, errs := analyzeSrc(t, rowSchema, "-- name: Q :many\nSELECT id FROM docs WHERE id > @min - 1 AND id < @max*2;\n")
	if len(errs) > 0 {
		t.Fatalf("refused: %q", errs)
	}
	q := files[0].Queries[0]
	if want := "SELECT id FROM docs WHERE id > $1- 1 AND id < $2*2"; !strings.HasSuffix(q.SqlcSQL, want) || !strings.HasSuffix(q.SQL, "SELECT id FROM docs WHERE id > $1 - 1 AND id < $2*2") {
		t.Errorf("SqlcSQL %q, SQL %q; want sqlc's text ending %q", q.SqlcSQL, q.SQL, want)
	}
	if _, err := conn.Conn().Prepare(ctx, "", q.SqlcSQL); err != nil {
		t.Errorf("PostgreSQL refuses sqlc's text %q: %v", q.SqlcSQL, err)
	}
	for _, q := range []string{
		"SELECT t.* FROM tbl($1) AS t",
		"SELECT k, v FROM tbl($1)",
		"INSERT INTO holder (id, p) SELECT * FROM tbl($1) RETURNING id",
		"WITH ins AS (INSERT INTO holder (id, p) VALUES ($1, NULL) RETURNING id) SELECT * FROM tbl($1)",
	} {
		files, errs := analyzeSrc(t, rowSchema, fmt.Sprintf("-- name: Q :many\n%s;\n", q))
		if len(errs) > 0 {
			t.Errorf("%s: refused: %q", q, errs)
			continue
		}
		if alt := files[0].Queries[0].Alt; alt != nil {
			t.Errorf("%s: has sqlc's reading %q, which PostgreSQL refuses or writes", q, alt.SQL)
		}
	}
	// Where sqlc's reading is refused by PostgreSQL, vet says that the
	// query is generated as PostgreSQL reads it.
	for _, q := range []string{
		"SELECT t.* FROM tbl($1) AS t",
		"SELECT * FROM docs_of($1) AS d(a, b)",
		"SELECT * FROM (docs JOIN holder USING (id)) AS j",
		"SELECT * FROM docs AS d(a, b)",
		"SELECT s.* FROM (SELECT id, title FROM docs) AS s(a)",
		"WITH c AS (SELECT id FROM docs) SELECT * FROM c AS d(x)",
	} {
		files, errs := analyzeSrc(t, rowSchema, fmt.Sprintf("-- name: Q :many\n%s;\n", q))
		if len(errs) > 0 {
			t.Errorf("%s: refused: %q", q, errs)
			continue
		}
		notes := strings.Join(files[0].Queries[0].Notes, "\n")
		if !strings.Contains(notes, "is refused by PostgreSQL, so the query is generated as PostgreSQL reads it") {
			t.Errorf("%s: notes %q, want one saying sqlc's reading is refused", q, notes)
		}
	}
}
