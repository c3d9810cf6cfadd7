package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsShowRealOutput keeps the output the README and docs/ show equal
// to what fencegen prints: generate's summary line for the accounts
// example (run on a copy, with the checked-in generated code), and the
// limits the guard's header lists.
func TestDocsShowRealOutput(t *testing.T) {
	root := filepath.Join("..", "..")
	readme := readDoc(t, filepath.Join(root, "README.md"))
	guardDoc := readDoc(t, filepath.Join(root, "docs", "database-guard.md"))

	dir := t.TempDir()
	ex := filepath.Join(root, "examples", "accounts")
	for _, name := range []string{"fencegen.yaml", "schema.sql", "queries.sql", "accountsdb/db.go", "accountsdb/models.go", "accountsdb/queries.sql.go", "accountsdb/batch.go", "accountsdb/fencegen_guard.sql",
		"stdlib_queries.sql", "accountssql/db.go", "accountssql/models.go", "accountssql/stdlib_queries.sql.go", "accountssql/fencegen_guard.sql"} {
		copyFile(t, ex, dir, name)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"generate", "-f", filepath.Join(dir, "fencegen.yaml")}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("generate: exit %d\n%s", code, stderr.String())
	}
	if line := stdout.String(); !strings.Contains(readme, "```\n"+line+"```\n") {
		t.Errorf("README.md does not show generate's output for the example (is examples/accounts/accountsdb current?):\n%s", line)
	}

	// A first generate, into an empty out directory, as go.generate.md shows it.
	fresh := t.TempDir()
	for _, name := range []string{"fencegen.yaml", "schema.sql", "queries.sql", "stdlib_queries.sql"} {
		copyFile(t, ex, fresh, name)
	}
	stdout.Reset()
	if code := run([]string{"generate", "-f", filepath.Join(fresh, "fencegen.yaml")}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("generate: exit %d\n%s", code, stderr.String())
	}
	if line := strings.TrimSuffix(stdout.String(), "\n"); !strings.Contains(readDoc(t, filepath.Join(root, "go.generate.md")), "`"+line+"`") {
		t.Errorf("go.generate.md does not show a first generate's output for the example:\n%s", line)
	}

	// The limits block of the guard's header, as docs/database-guard.md
	// quotes it.
	guard := readDoc(t, filepath.Join(dir, "accountsdb", "fencegen_guard.sql"))
	start := strings.Index(guard, "-- What it cannot catch:\n")
	end := strings.Index(guard, "-- (PostgreSQL docs, 43.10")
	if start < 0 || end < start {
		t.Fatalf("no limits block in the guard's header:\n%s", guard)
	}
	if block := guard[start:end]; !strings.Contains(guardDoc, "```sql\n"+block+"```\n") {
		t.Errorf("docs/database-guard.md does not list the guard header's limits:\n%s", block)
	}
}

// copyFile copies the file name (slash-separated) from the directory
// from to the same place under to, creating its directory.
func copyFile(t *testing.T, from, to, name string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(from, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(to, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readDoc(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
