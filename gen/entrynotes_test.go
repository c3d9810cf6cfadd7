package gen_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// TestNotesNameTheirEntry: two sql entries that read the same query file
// each get their notes for it; where both have a note at one place, each
// note names its entry, so that a reader tells the pgx/v5 note from the
// pgx/v4 one at the same file:line:col. A note only one entry has is
// left as it is.
func TestNotesNameTheirEntry(t *testing.T) {
	dir := t.TempDir()
	for n, s := range map[string]string{
		"schema.sql": "CREATE TABLE k (id bigint PRIMARY KEY, atn timestamptz NOT NULL, total int NOT NULL);\n",
		"query.sql":  "-- name: Days :many\nSELECT date_trunc('day', atn) AS day FROM k;\n-- name: Total :one\nSELECT sum(total::bigint) FROM k;\n",
		"sqlc.yaml": `version: "2"
sql:
  - {engine: postgresql, schema: schema.sql, queries: query.sql, gen: {go: {package: v5, out: v5, sql_package: pgx/v5}}}
  - {engine: postgresql, schema: schema.sql, queries: query.sql, gen: {go: {package: v4, out: v4, sql_package: pgx/v4}}}
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := gen.LoadConfig(filepath.Join(dir, "sqlc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	vet := strings.Join(out.Vet, "\n")
	for _, want := range []string{
		"query.sql:1:1: note: sql entry v5: query Days: result column day is pgtype.Interval, as sqlc declares it; postgresql_types: true declares pgtype.Timestamptz",
		"query.sql:1:1: note: sql entry v4: query Days: result column day is int64, as sqlc declares it; postgresql_types: true declares time.Time",
		"query.sql:1:1: note: sql entry v4: query Days: result column day is declared int64, as sqlc declares it for pgx/v4, reading it as an interval",
	} {
		if !strings.Contains(vet, want) {
			t.Errorf("vet notes:\n%s\nwant one starting %q", vet, want)
		}
	}
	if i := slices.IndexFunc(out.Vet, func(n string) bool {
		return strings.HasPrefix(n, "query.sql:") && !strings.Contains(n, ": note: sql entry v")
	}); i >= 0 {
		t.Errorf("a note at a place both entries have notes at does not name its entry: %s", out.Vet[i])
	}
}
