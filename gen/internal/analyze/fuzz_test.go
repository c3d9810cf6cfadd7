package analyze

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// FuzzAnalyze analyses arbitrary query files against a fixed schema: it
// must never panic, and every statement it generates must keep its
// parameters numbered without gaps. Seeds: the resolution cases and, when
// the corpora are present, sqlc's end-to-end query files.
func FuzzAnalyze(f *testing.F) {
	for _, tc := range resolveCases {
		f.Add("-- name: Q :many\n" + tc.query + ";\n")
	}
	seeds, _ := filepath.Glob("../../../../shared/corpus/sqlc/*/postgresql/pgx/v5/query.sql")
	for i, s := range seeds {
		if i >= 40 {
			break
		}
		if b, err := os.ReadFile(s); err == nil {
			f.Add(string(b))
		}
	}
	// The token's own shapes (issue 24): hand-written comparisons, whose
	// parameter becomes the token and the others are numbered again;
	// sweeps; rows created outside a lease.
	for _, q := range []string{
		"-- name: A :exec\nUPDATE t SET name = @name WHERE id = @id AND tok <= @token AND note = @note;\n",
		"-- name: B :execrows\n-- @fence sweep\nUPDATE t SET note = $1 WHERE $3 >= t.tok AND name = $2 AND tok < $3;\n",
		"-- name: C :exec\nINSERT INTO t (id, name, tok) VALUES (@id, @name, DEFAULT), (@id2, 'x', DEFAULT);\n",
		"-- name: D :exec\nWITH x AS (DELETE FROM t WHERE tok <= sqlc.arg(tok) AND id = ANY(sqlc.slice(ids)) RETURNING id) SELECT count(*) FROM x;\n",
	} {
		f.Add(q)
	}
	schema := resolveSchema + fencedSchema
	f.Fuzz(func(t *testing.T, queries string) {
		sf, err := sqlparse.Parse("schema.sql", []byte(schema))
		if err != nil {
			t.Fatal(err)
		}
		cat := catalog.New(catalog.WithColumnGenerator(ColumnGenerator{}))
		for _, s := range sf.Stmts {
			cat.Update(sf, s)
		}
		qf, err := sqlparse.Parse("query.sql", []byte(queries))
		if err != nil {
			return
		}
		files, _ := Analyze(cat, []*sqlparse.File{qf})
		for _, file := range files {
			for _, q := range file.Queries {
				for i, p := range q.Params {
					if p.Number != i+1 {
						t.Fatalf("%s: parameter %d numbered $%d", q.Name, i+1, p.Number)
					}
				}
				if strings.TrimSpace(q.SQL) == "" {
					t.Fatalf("%s: empty SQL", q.Name)
				}
			}
		}
	})
}
