package golang_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/golang"
)

// TestQueryBatchesAreOneFile generates a query file of more queries than
// one batch, rendered in batches and whole, and requires the same files:
// the batches use different imports (time, pgtype, encoding/json), and the
// smallest batch makes every query a batch of its own.
func TestQueryBatchesAreOneFile(t *testing.T) {
	var schema, queries strings.Builder
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&schema, "CREATE TABLE t%d (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL, at TIMESTAMPTZ, doc JSONB NOT NULL, n NUMERIC);\n", i)
		for j := 0; j < 40; j++ {
			switch j % 4 {
			case 0:
				fmt.Fprintf(&queries, "-- name: Name%d_%d :one\nSELECT name FROM t%d WHERE id = $1;\n\n", i, j, i)
			case 1:
				fmt.Fprintf(&queries, "-- name: At%d_%d :many\nSELECT id, at FROM t%d WHERE name = $1;\n\n", i, j, i)
			case 2:
				fmt.Fprintf(&queries, "-- name: Doc%d_%d :exec\nUPDATE t%d SET doc = $1, n = $2 WHERE id = $3;\n\n", i, j, i)
			default:
				fmt.Fprintf(&queries, "-- name: Get%d_%d :one\nSELECT * FROM t%d WHERE id = $1;\n\n", i, j, i)
			}
		}
	}
	for _, opts := range []string{"", "sql_package: database/sql, emit_json_tags: true"} {
		cfg := goConfig(opts)
		batched := generate(t, cfg, schema.String(), queries.String()) // 800 queries
		prev := golang.SetQueryBatch(1 << 30)
		whole := generate(t, cfg, schema.String(), queries.String())
		golang.SetQueryBatch(1)
		single := generate(t, cfg, schema.String(), queries.String())
		golang.SetQueryBatch(prev)
		if len(whole["query.sql.go"]) == 0 {
			t.Fatalf("%s: no query file: %v", opts, whole)
		}
		for name, want := range whole {
			if batched[name] != want {
				t.Errorf("%s: %s rendered in batches of the default size differs from the file rendered whole", opts, name)
			}
			if single[name] != want {
				t.Errorf("%s: %s rendered a query at a time differs from the file rendered whole", opts, name)
			}
		}
	}
}
