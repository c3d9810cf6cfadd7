package mysqlwrites

import (
	"strings"
	"testing"
)

// TestSQLModes: statements whose tokens depend on the session's sql_mode
// are refused naming the mode when a reading differs or the statement
// writes a fenced table; those without such tokens, or whose readings
// agree on writing no fenced table, are not.
func TestSQLModes(t *testing.T) {
	sc := shapesSchema(t)
	for _, c := range []struct{ q, mode string }{
		{"SELECT 'a\\', bump(1) -- ' AS s FROM notes", "NO_BACKSLASH_ESCAPES"},
		{"UPDATE notes n JOIN accounts a ON a.id = n.id SET n.body = 'a\\', a.balance = 99 -- '\nWHERE n.id = ?", "NO_BACKSLASH_ESCAPES"},
		{"INSERT INTO notes (id, body) VALUES (2, 'it\\'s')", "NO_BACKSLASH_ESCAPES"},
		{"UPDATE accounts SET balance = 2 WHERE id = ? AND 'a\\\\' <> ''", "NO_BACKSLASH_ESCAPES"},
		{"UPDATE accounts SET balance = 2 WHERE id = ? AND \"x\" <> ''", "ANSI_QUOTES"},
		{"SELECT 'a\\nb' AS s FROM notes WHERE id = ?", ""},
		{"SELECT \"plain\" AS s FROM notes WHERE id = ?", ""},
		{"UPDATE notes SET body = 'it''s' WHERE id = ?", ""},
		{"UPDATE accounts SET balance = 1 WHERE id = ?", ""},
	} {
		r := Of(mustParse(t, c.q), 0, sc)
		var got string
		for _, f := range r.Refusals {
			if f.Kind == "sql_mode" {
				got = f.Reason
			}
		}
		switch {
		case c.mode == "" && got != "":
			t.Errorf("%s: refused: %s", c.q, got)
		case c.mode != "" && !strings.HasPrefix(got, "reads differently under sql_mode "+c.mode+" "):
			t.Errorf("%s: got %q, want a refusal naming %s", c.q, got, c.mode)
		}
	}
}
