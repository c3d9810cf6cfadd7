package gen_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docs/guard.md quotes the guarded SQL of the example's schema verbatim:
// the by-key form of CreditAccount (the write, then its stored-token read)
// and the locking form of CreditOverdrawn. This test generates both and
// compares, so that the documentation shows what fencegen sends.
func TestGuardDocQuotesGeneratedSQL(t *testing.T) {
	schema, err := os.ReadFile(filepath.Join("..", "examples", "accounts", "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "guard.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := generateDir(t, map[string]string{
		"schema.sql": string(schema),
		"q.sql": "-- name: CreditAccount :exec\nUPDATE account_balances SET balance = balance + @amount WHERE id = @id;\n\n" +
			"-- name: CreditOverdrawn :exec\n-- CreditOverdrawn adds amount to every overdrawn account.\nUPDATE account_balances SET balance = balance + @amount WHERE balance < 0;\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	})
	src := string(out.Files["out/q.sql.go"])
	constant := func(name string) string {
		m := regexp.MustCompile("(?s)const " + name + " = `(.*?)`").FindStringSubmatch(src)
		if m == nil {
			t.Fatalf("no constant %s in the generated code:\n%s", name, src)
		}
		return m[1]
	}
	// The by-key write and its read, without their "-- name:" lines.
	withoutName := func(s string) string {
		_, rest, _ := strings.Cut(s, "\n")
		return rest
	}
	for _, want := range []string{
		withoutName(constant("creditAccount")),
		withoutName(constant("fenceStoredCreditAccount")),
		constant("creditOverdrawn"),
	} {
		if !strings.Contains(string(doc), "```sql\n"+want+"```\n") {
			t.Errorf("docs/guard.md does not quote this generated statement verbatim in a sql block:\n%s", want)
		}
	}
	if !strings.HasPrefix(withoutName(constant("creditOverdrawn")), "-- fencegen: guarded by locking the rows it matches (account_balances.last_fencing_token <= $2)\n") {
		t.Errorf("the locking form's comment line is missing:\n%s", constant("creditOverdrawn"))
	}
}
