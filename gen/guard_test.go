package gen_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// The guard migration quotes reserved words: a fenced table named "order"
// gets CREATE TRIGGER ... ON "order".
func TestGuardSQLQuotesReservedNames(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"schema.sql":    `CREATE TABLE "order" (id bigint PRIMARY KEY, "user" bigint NOT NULL DEFAULT 0); COMMENT ON COLUMN "order"."user" IS 'fencegen:token';`,
		"q.sql":         "-- name: Get :one\nSELECT id FROM \"order\" WHERE id = $1;\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	for n, s := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	guard := string(out.Files["out/"+gen.GuardFile])
	for _, want := range []string{`ON "order"`, `NEW."user" < OLD."user"`} {
		if !strings.Contains(guard, want) {
			t.Errorf("guard SQL lacks %s:\n%s", want, guard)
		}
	}
}
