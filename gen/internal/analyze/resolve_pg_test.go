package analyze

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestResolveMatchesPostgres prepares each query of resolveCases, as the
// analyzer rewrote it (stars spelt out, named parameters numbered), in
// PostgreSQL and checks that the analyzer found as many result columns as
// PostgreSQL does, and the same type for every column and parameter it
// types (the nullability PostgreSQL does not report).
func TestResolveMatchesPostgres(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Database(t, resolveSchema)
	typeName := pgTypeNames(t, pool)
	var src strings.Builder
	for _, tc := range resolveCases {
		src.WriteString("-- name: " + tc.name + " :many\n" + tc.query + ";\n\n")
	}
	// The statements with stars spelt out (TestStarSpeltOut) must run as
	// written, with the columns the star stood for.
	for i, tc := range starCases {
		src.WriteString(fmt.Sprintf("-- name: Star%d :many\n%s;\n\n", i+1, tc.query))
	}
	qs := mustAnalyze(t, resolveSchema, src.String())
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	ours := func(known bool, name string, dims int) string {
		if !known || name == "any" || name == "record" {
			return ""
		}
		return name + strings.Repeat("[]", dims)
	}
	for qi, q := range qs {
		sd, err := conn.Conn().Prepare(ctx, "", q.SQL)
		if err != nil {
			t.Errorf("%s: PostgreSQL refuses %s: %v", q.Name, q.SQL, err)
			continue
		}
		if k := qi - len(resolveCases); k >= 0 && !starCases[k].asSqlc {
			// The star as written returns the same columns.
			orig, err := conn.Conn().Prepare(ctx, "", starCases[k].query)
			if err != nil {
				t.Fatal(err)
			}
			var got, want []string
			for _, f := range sd.Fields {
				got = append(got, f.Name+" "+typeName[f.DataTypeOID])
			}
			for _, f := range orig.Fields {
				want = append(want, f.Name+" "+typeName[f.DataTypeOID])
			}
			if strings.Join(got, ", ") != strings.Join(want, ", ") {
				t.Errorf("%s: spelt out, %s returns %q; as written, %q", q.Name, q.SQL, got, want)
			}
		}
		if len(sd.Fields) != len(q.Columns) {
			t.Errorf("%s: %d result columns, PostgreSQL returns %d", q.Name, len(q.Columns), len(sd.Fields))
			continue
		}
		for i, c := range q.Columns {
			if want, got := typeName[sd.Fields[i].DataTypeOID], ours(c.Known, c.Type.Name, c.Type.ArrayDims); got != "" && got != want {
				t.Errorf("%s: column %d (%s) is %s, PostgreSQL says %s", q.Name, i+1, c.Name, got, want)
			}
		}
		if len(sd.ParamOIDs) != len(q.Params) {
			t.Errorf("%s: %d parameters, PostgreSQL has %d", q.Name, len(q.Params), len(sd.ParamOIDs))
			continue
		}
		for i, p := range q.Params {
			if want, got := typeName[sd.ParamOIDs[i]], ours(p.Known, p.Type.Name, p.Type.ArrayDims); got != "" && got != want {
				t.Errorf("%s: %s is %s, PostgreSQL says %s", q.Name, fmt.Sprintf("$%d", p.Number), got, want)
			}
		}
	}
}

// pgTypeNames maps each pg_type OID of the database to its name, an
// array type as its element's name with [] (int4[]).
func pgTypeNames(t *testing.T, pool *pgxpool.Pool) map[uint32]string {
	t.Helper()
	typeName := map[uint32]string{}
	rows, err := pool.Query(context.Background(), `SELECT oid, CASE WHEN typelem <> 0 AND typname LIKE '\_%' THEN substr(typname, 2) || '[]' ELSE typname END FROM pg_type`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var oid uint32
		var name string
		if err := rows.Scan(&oid, &name); err != nil {
			t.Fatal(err)
		}
		typeName[oid] = name
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return typeName
}
