package gen_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// docs/guard.md's section on functions declared IMMUTABLE or STABLE that
// write shows a schema and the error generate prints for it: this test
// generates that schema (with a query that names neither the function nor
// the fenced table) and compares the error with the one the page shows.
func TestGuardDocNonVolatileWriter(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "guard.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "### Functions declared `IMMUTABLE` or `STABLE` that write\n")
	if !ok {
		t.Fatal("docs/guard.md has no section on functions declared IMMUTABLE or STABLE")
	}
	m := regexp.MustCompile("(?s)```sql\n(.*?)```\n\n```\n(.*?)```\n").FindStringSubmatch(sec)
	if m == nil {
		t.Fatal("the section shows no schema and output blocks")
	}
	schema, want := m[1], strings.TrimSuffix(m[2], "\n")
	dir := t.TempDir()
	for n, s := range map[string]string{
		"schema.sql":    schema,
		"queries.sql":   "-- name: GetNote :one\nSELECT note FROM other WHERE id = $1;\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: queries.sql, gen: {go: {package: db, out: db}}}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = gen.Generate(context.Background(), cfg)
	if err == nil {
		t.Fatal("generate succeeded; want the error docs/guard.md shows")
	}
	// The files are named relative to the working directory.
	got := regexp.MustCompile(`[^\s(]*schema\.sql`).ReplaceAllString(err.Error(), "schema.sql")
	if got != want {
		t.Errorf("generate's error:\n%s\ndocs/guard.md shows:\n%s", got, want)
	}
}
