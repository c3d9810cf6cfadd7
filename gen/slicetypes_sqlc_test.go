package gen_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/lib/pq"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestSliceElementTypesAsSqlc (issue 23, trial t23f): sqlc v1.31.1 types
// a sqlc.slice as it types any parameter standing there (the first
// column reference of the operator's left operand, else its right one)
// and declares a slice of that element, nullable as the column is:
// COALESCE(key_type, 0) IN (sqlc.slice(kt)) and key_type =
// ANY(sqlc.slice(kt)) over a nullable smallint are []sql.NullInt16
// (database/sql) and []pgtype.Int2 (pgx/v5), and a column override of
// key_type gives a slice of the override's type. fencegen declared
// []int16: it typed the slice as an array, whose elements are NOT NULL,
// and dropped the column. The pgx/v5 files are compared with sqlc's, text
// for text; on database/sql, where fencegen's bodies of these queries
// differ on purpose (docs/sqlc.md), the signatures.
func TestSliceElementTypesAsSqlc(t *testing.T) {
	schema := "CREATE TABLE k (id bigint PRIMARY KEY, key_type smallint, nn smallint NOT NULL, o smallint);\n"
	queries := "-- name: CoalesceIn :many\nSELECT id FROM k WHERE COALESCE(key_type, 0) IN (sqlc.slice('kt'));\n\n" +
		"-- name: CoalesceAny :many\nSELECT id FROM k WHERE COALESCE(key_type, 0) = ANY(sqlc.slice('kt'));\n\n" +
		"-- name: ColumnAny :many\nSELECT id FROM k WHERE key_type = ANY(sqlc.slice('kt'));\n\n" +
		"-- name: ColumnIn :many\nSELECT id FROM k WHERE key_type IN (sqlc.slice('kt'));\n\n" +
		"-- name: NotNullAny :many\nSELECT id FROM k WHERE nn = ANY(sqlc.slice('kt'));\n\n" +
		"-- name: SumAny :many\nSELECT id FROM k WHERE nn + key_type = ANY(sqlc.slice('kt'));\n\n" +
		"-- name: FuncIn :many\nSELECT id FROM k WHERE abs(key_type) IN (sqlc.slice('kt'));\n\n" +
		"-- name: NoColumnAny :many\nSELECT id FROM k WHERE 1 = ANY(sqlc.slice('kt'));\n\n" +
		"-- name: OverrideAny :many\nSELECT id FROM k WHERE o = ANY(sqlc.slice('kt'));\n\n" +
		"-- name: OverrideCoalesceIn :many\nSELECT id FROM k WHERE COALESCE(o, 1) IN (sqlc.slice('kt'));\n\n" +
		"-- name: TwoSlices :many\nSELECT id FROM k WHERE id IN (sqlc.slice('a')) AND key_type = ANY(sqlc.slice('b'));\n"
	yaml := func(pkg string) string {
		return "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, sql_package: " + pkg +
			", overrides: [{column: k.o, go_type: {type: int}}]}}}\n"
	}
	t.Run("pgx/v5", func(t *testing.T) {
		filesAsSqlc(t, map[string]string{"schema.sql": schema, "q.sql": queries, "sqlc.yaml": yaml("pgx/v5")}, "sqlc.yaml")
	})
	t.Run("database/sql", func(t *testing.T) {
		r := sqlcAndFencegen(t, map[string]string{"schema.sql": schema, "q.sql": queries, "sqlc.yaml": yaml("database/sql")}, "sqlc.yaml")
		r.mustBoth(t)
		want, err := os.ReadFile(filepath.Join(r.dir, "out", "q.sql.go"))
		if err != nil {
			t.Fatal(err)
		}
		signatures := regexp.MustCompile(`(?m)^func \(q \*Queries\).*$`)
		g := strings.Join(signatures.FindAllString(string(r.out.Files["out/q.sql.go"]), -1), "\n")
		w := strings.Join(signatures.FindAllString(string(want), -1), "\n")
		if g != w {
			t.Errorf("signatures differ from sqlc's:\n--- fencegen\n%s\n--- sqlc\n%s", g, w)
		}
	})
}

// TestSliceCastAsSqlc (issue 23, trial t23f): sqlc v1.31.1 reads a
// sqlc.slice that is a cast's argument (id = ANY(sqlc.slice(ids)::
// bigint[])) as one value of the cast's type: not a sqlc.slice (its
// resolve.go's TypeCast case sets no IsSqlcSlice), so its database/sql
// method sends the slice as one array, pq.Array(ids), as fencegen's does.
// The files are sqlc's, text for text; vet notes nothing about the slice
// (it said sqlc's method fails when run), and sqlc's method, its SQL
// text with pq.Array of two ids, deletes the two rows through both
// drivers. The same query without the cast keeps its note
// (TestVetSliceNotes; TestSqlcSliceArgumentsFail runs what sqlc sends
// there).
func TestSliceCastAsSqlc(t *testing.T) {
	schema := "CREATE TABLE t (id bigint PRIMARY KEY);\n"
	queries := "-- name: Del :execrows\nDELETE FROM t WHERE id = ANY(sqlc.slice(ids)::bigint[]);\n\n" +
		"-- name: NotIDs :many\nSELECT id FROM t WHERE id <> ALL(sqlc.slice('xs')::bigint[]);\n"
	files := map[string]string{
		"schema.sql": schema,
		"q.sql":      queries,
		"sqlc.yaml":  "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	for _, v := range filesAsSqlc(t, files, "sqlc.yaml") {
		if strings.Contains(v, "sqlc.slice") {
			t.Errorf("vet: %s", v)
		}
	}
	r := sqlcGenerate(t, files)
	src, err := os.ReadFile(filepath.Join(r.dir, "out", "q.sql.go"))
	if err != nil {
		t.Fatalf("sqlc: %v\n%s", err, r.sqlcOut)
	}
	m := regexp.MustCompile("(?s)const del = `(.*?)`").FindSubmatch(src)
	if m == nil || !strings.Contains(string(src), "q.db.ExecContext(ctx, del, pq.Array(ids))") {
		t.Fatalf("sqlc's Del is not the one this test runs:\n%s", src)
	}
	testenv.Database(t) // one loud skip when PostgreSQL is unreachable
	for _, driver := range []string{"postgres", "pgx"} {
		db, err := sql.Open(driver, testenv.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		ctx := context.Background()
		if _, err := db.ExecContext(ctx, schema+"INSERT INTO t VALUES (1), (2), (3);"); err != nil {
			t.Fatal(err)
		}
		res, err := db.ExecContext(ctx, string(m[1]), pq.Array([]int64{1, 3}))
		if err != nil {
			t.Fatalf("%s: sqlc's Del with two ids: %v", driver, err)
		}
		if n, _ := res.RowsAffected(); n != 2 {
			t.Errorf("%s: sqlc's Del with two ids deleted %d rows, want 2", driver, n)
		}
	}
}
