package gen

import (
	"strings"
	"testing"
)

// TestVetNoOperator: a query PostgreSQL refuses for want of an operator
// is generated as sqlc generates it, and vet says what PostgreSQL will
// answer, at the operator, and claims no Go type for its columns (issue
// 23, trial t23a F3).
func TestVetNoOperator(t *testing.T) {
	out := generateTree(t, map[string]string{
		"sqlc.yaml":    sqlcYAML,
		"schema/1.sql": "CREATE TABLE books (id bigint PRIMARY KEY, title text NOT NULL);\n",
		"q.sql":        "-- name: Plus :many\nSELECT title + 1 AS x FROM books;\n",
	})
	if !strings.Contains(string(out.Files["db/q.sql.go"]), "func (q *Queries) Plus(ctx context.Context) ([]int32, error) {") {
		t.Errorf("Plus not generated as sqlc generates it:\n%s", out.Files["db/q.sql.go"])
	}
	want := "q.sql:2:14: note: query Plus: PostgreSQL refuses this query: operator does not exist: text + integer; generated as sqlc generates it"
	found := false
	for _, v := range out.Vet {
		found = found || strings.Contains(v, want)
		if strings.Contains(v, "result column x") {
			t.Errorf("vet claims a type for a query PostgreSQL refuses: %s", v)
		}
	}
	if !found {
		t.Errorf("vet = %q, want %q", out.Vet, want)
	}
}
