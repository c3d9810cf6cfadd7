package diag

import "testing"

// TestA: a message's article before a word it is given (trial t27g: "in
// an DELETE").
func TestA(t *testing.T) {
	for w, want := range map[string]string{
		"UPDATE": "an UPDATE", "DELETE": "a DELETE", "INSERT": "an INSERT", "update": "an update",
		"event": "an event", "trigger": "a trigger", "index": "an index", "AlterTableStmt": "an AlterTableStmt",
		"SelectStmt": "a SelectStmt", "UNION": "a UNION", "unique index": "a unique index", "UseStmt": "a UseStmt",
		"upsert": "an upsert", "operator": "an operator", "": "a ",
	} {
		if got := A(w); got != want {
			t.Errorf("A(%q) = %q, want %q", w, got, want)
		}
	}
}
