package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestDocsShowRealOutput keeps the output the README and docs/ show equal
// to what fencegen prints: generate's summary line for the accounts and
// payouts examples (run on a copy, with the checked-in generated code), and the
// limits the guard's header lists.
func TestDocsShowRealOutput(t *testing.T) {
	root := filepath.Join("..", "..")
	readme := readDoc(t, filepath.Join(root, "README.md"))
	guardDoc := readDoc(t, filepath.Join(root, "docs", "database-guard.md"))

	dir := t.TempDir()
	ex := filepath.Join(root, "examples", "accounts")
	for _, name := range []string{"fencegen.yaml", "schema.sql", "queries.sql", "accountsdb/db.go", "accountsdb/models.go", "accountsdb/queries.sql.go", "accountsdb/batch.go", "accountsdb/fencegen_guard.sql",
		"stdlib_queries.sql", "accountssql/db.go", "accountssql/models.go", "accountssql/stdlib_queries.sql.go", "accountssql/fencegen_guard.sql",
		"mysql_schema.sql", "mysql_queries.sql", "accountsmy/db.go", "accountsmy/models.go", "accountsmy/mysql_queries.sql.go", "accountsmy/fencegen_guard.sql"} {
		copyFile(t, ex, dir, name)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"generate", "-f", filepath.Join(dir, "fencegen.yaml")}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("generate: exit %d\n%s", code, stderr.String())
	}
	if line := stdout.String(); !strings.Contains(readme, "```\n"+line+"```\n") {
		t.Errorf("README.md does not show generate's output for the example (is examples/accounts/accountsdb current?):\n%s", line)
	}

	// The payouts example, the README's first fenced worker.
	payouts := t.TempDir()
	for _, name := range []string{"fencegen.yaml", "schema.sql", "queries.sql", "payoutsdb/db.go", "payoutsdb/models.go", "payoutsdb/queries.sql.go", "payoutsdb/fencegen_guard.sql"} {
		copyFile(t, filepath.Join(root, "examples", "payouts"), payouts, name)
	}
	stdout.Reset()
	if code := run([]string{"generate", "-f", filepath.Join(payouts, "fencegen.yaml")}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("generate: exit %d\n%s", code, stderr.String())
	}
	if line := stdout.String(); !strings.Contains(readme, "```\n"+line+"```\n") {
		t.Errorf("README.md does not show generate's output for examples/payouts (is examples/payouts/payoutsdb current?):\n%s", line)
	}

	// A first generate, into an empty out directory, as go.generate.md shows it.
	fresh := t.TempDir()
	for _, name := range []string{"fencegen.yaml", "schema.sql", "queries.sql", "stdlib_queries.sql", "mysql_schema.sql", "mysql_queries.sql"} {
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

// TestDocLinksResolve checks every relative link of the README, go.generate.md
// and docs/ (the reference index, docs/README.md, is made of them): the
// file exists, and a #fragment names one of its headings, slugged as
// GitHub does (lower case; letters, digits, '-' and '_' kept; spaces
// become '-'; the rest dropped).
func TestDocLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"), filepath.Join(root, "go.generate.md"))
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, page := range pages {
		for _, m := range link.FindAllStringSubmatch(stripCode(readDoc(t, page)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			p := page
			if file != "" {
				p = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
			}
			checked++
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s links to %s: %v", page, target, err)
				continue
			}
			if frag == "" || !strings.HasSuffix(p, ".md") {
				continue
			}
			if !slices.Contains(headingSlugs(readDoc(t, p)), frag) {
				t.Errorf("%s links to %s: no heading of %s has the slug %q", page, target, p, frag)
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d links; the README and docs/ have more", checked)
	}
}

// stripCode removes fenced code blocks, whose text is not Markdown.
func stripCode(doc string) string {
	parts := strings.Split(doc, "```")
	var b strings.Builder
	for i := 0; i < len(parts); i += 2 {
		b.WriteString(parts[i])
	}
	return b.String()
}

func headingSlugs(doc string) []string {
	var slugs []string
	for _, line := range strings.Split(stripCode(doc), "\n") {
		h := strings.TrimLeft(line, "#")
		if len(h) == len(line) || !strings.HasPrefix(h, " ") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(h)) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		slugs = append(slugs, b.String())
	}
	return slugs
}

// TestDocsShowPgTypesAdvice keeps docs/sqlc.md's quote of vet's advice
// on where postgresql_types goes (sqlc refuses it in sqlc.yaml) equal to
// what vet prints for sqlc.yaml read as it is, line breaks aside.
func TestDocsShowPgTypesAdvice(t *testing.T) {
	doc := strings.Join(strings.Fields(readDoc(t, filepath.Join("..", "..", "docs", "sqlc.md"))), " ")
	dir := t.TempDir()
	for name, src := range map[string]string{
		"sqlc.yaml":  "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: schema.sql\n    queries: query.sql\n    gen:\n      go: {package: db, out: db, sql_package: pgx/v5}\n",
		"schema.sql": "CREATE TABLE t (id bigint PRIMARY KEY, n bigint NOT NULL);\n",
		"query.sql":  "-- name: SumBig :one\nSELECT sum(n) AS total FROM t;\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"vet"}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("vet: exit %d\n%s", code, stderr.String())
	}
	var advice string
	for _, l := range strings.Split(stdout.String(), "\n") {
		if strings.Contains(l, "postgresql_types is fencegen's option") {
			advice = l
		}
	}
	if advice == "" {
		t.Fatalf("vet gives no advice on where postgresql_types goes:\n%s", stdout.String())
	}
	if !strings.Contains(doc, "`"+advice+"`") {
		t.Errorf("docs/sqlc.md does not quote vet's advice:\n%s", advice)
	}
}
