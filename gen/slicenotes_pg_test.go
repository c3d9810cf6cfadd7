package gen

import (
	"database/sql"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/lib/pq"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestVetSliceNotes: on database/sql, fencegen's method sends
// sqlc.slice(x) so that it runs, where sqlc v1.31.1's appends each
// element as an argument of its own: an = ANY(...) or <> ALL(...) array
// as one pq.Array, an IN (...) list expanded into one $n per element.
// vet notes each, at the query (issue 23, trial F6); a pgx entry, which
// sends the array as sqlc's does, gets no such note, nor does a
// sqlc.slice that is a cast's argument, which sqlc sends as one array
// too (trial t23f).
func TestVetSliceNotes(t *testing.T) {
	queries := "-- name: ByIDs :many\nSELECT id FROM t WHERE id = ANY(sqlc.slice(ids));\n\n" +
		"-- name: NotIDs :many\nSELECT id FROM t\nWHERE id <> ALL(sqlc.slice('xs')) AND name = @name;\n\n" +
		"-- name: InIDs :many\nSELECT id FROM t WHERE id IN (sqlc.slice(ids));\n\n" +
		// A cast's argument is one value for sqlc, sent as one array
		// by its method as by fencegen's: no note (TestSliceCastAsSqlc).
		"-- name: CastIDs :many\nSELECT id FROM t WHERE id = ANY(sqlc.slice(ids)::bigint[]);\n"
	for _, pkg := range []string{"database/sql", "pgx/v5"} {
		out := generateTree(t, map[string]string{
			"sqlc.yaml":    strings.Replace(sqlcYAML, "pgx/v5", pkg, 1),
			"schema/1.sql": "CREATE TABLE t (id bigint PRIMARY KEY, name text NOT NULL);\n",
			"q.sql":        queries,
		})
		var got []string
		for _, v := range out.Vet {
			if i := strings.LastIndex(v, "/q.sql:"); i >= 0 && strings.Contains(v, "sqlc.slice") {
				got = append(got, v[i+1:]) // the test's directory left out
			}
		}
		want := []string{
			"q.sql:1:1: note: query ByIDs: fencegen's method sends sqlc.slice(ids) as one array (pq.Array), which = ANY(...) and <> ALL(...) compare with; sqlc's sends each element as an argument of its own and fails when run for any number of elements (one is not an array; more or none do not match the statement's one parameter $1)",
			"q.sql:4:1: note: query NotIDs: fencegen's method sends sqlc.slice(xs) as one array (pq.Array), which = ANY(...) and <> ALL(...) compare with; sqlc's sends each element as an argument of its own and fails when run for any number of elements (one is not an array; more or none do not match the statement's one parameter $1)",
			"q.sql:8:1: note: query InIDs: fencegen's method expands IN (sqlc.slice(ids)) into one $n per element when it runs; sqlc's sends $1 with all the elements and fails when run for other than one element",
		}
		if pkg != "database/sql" {
			// pgx: the IN list's note is PostgreSQL's refusal (generate.go).
			want = []string{"q.sql:9:31: note: query InIDs: PostgreSQL refuses this query when it runs: IN (sqlc.slice(ids)): with PostgreSQL sqlc.slice is one array parameter, and IN (...) would compare with the array as a single value; write = ANY(sqlc.slice(ids)) (or <> ALL for NOT IN); generated as sqlc generates it"}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: vet's sqlc.slice notes:\n%s\nwant:\n%s", pkg, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestSqlcSliceArgumentsFail runs what sqlc v1.31.1's database/sql
// method sends for sqlc.slice on PostgreSQL (its text with $1, then each
// element as an argument of its own) through both drivers, as the notes
// of TestVetSliceNotes say: = ANY($1) fails for 0, 1 and 2 elements,
// IN ($1) for all but one; fencegen's pq.Array runs.
func TestSqlcSliceArgumentsFail(t *testing.T) {
	testenv.Database(t) // one loud skip when PostgreSQL is unreachable
	for _, driver := range []string{"postgres", "pgx"} {
		db, err := sql.Open(driver, testenv.DatabaseURL())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		run := func(query string, args ...any) error {
			rows, err := db.Query(query, args...)
			if err == nil {
				err = rows.Close()
			}
			return err
		}
		for n := range 3 {
			var args []any
			ids := []int64{}
			for i := range n {
				args = append(args, int64(i+1))
				ids = append(ids, int64(i+1))
			}
			if err := run("SELECT 1 WHERE 1::bigint = ANY($1)", args...); err == nil {
				t.Errorf("%s: = ANY($1) with %d elements as arguments of their own ran", driver, n)
			}
			if err := run("SELECT 1 WHERE 1::bigint IN ($1)", args...); (err == nil) != (n == 1) {
				t.Errorf("%s: IN ($1) with %d elements as arguments of their own: %v", driver, n, err)
			}
			if err := run("SELECT 1 WHERE 1::bigint = ANY($1)", pq.Array(ids)); err != nil {
				t.Errorf("%s: = ANY($1) with the %d elements as one array: %v", driver, n, err)
			}
		}
	}
}
