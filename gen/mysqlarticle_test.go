package gen_test

import (
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// TestMySQLMessagesArticle (trial t27g): a message that names a
// statement or an action writes its article for the word it names. It
// read "a subquery in an DELETE" and "an update of parents" was "a
// update of parents".
func TestMySQLMessagesArticle(t *testing.T) {
	schema := "CREATE TABLE parents (id BIGINT PRIMARY KEY);\n" +
		"CREATE TABLE accounts (id BIGINT PRIMARY KEY, parent_id BIGINT REFERENCES parents (id) ON UPDATE CASCADE, balance BIGINT NOT NULL DEFAULT 0,\n" +
		"  tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n"
	msg := mysqlGenerate(t, map[string]string{"schema.sql": schema,
		"q.sql": "-- name: DelSub :exec\nDELETE FROM accounts WHERE balance < (SELECT COUNT(*) FROM parents);\n\n" +
			"-- name: SetSub :exec\nUPDATE accounts SET balance = 0 WHERE balance < (SELECT COUNT(*) FROM parents);\n"})
	for _, want := range []string{"a subquery in a DELETE of fenced table accounts", "a subquery in an UPDATE of fenced table accounts"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	out, msg := mysqlGenerateOut(t, map[string]string{"schema.sql": schema, "q.sql": "-- name: Get :one\nSELECT id FROM accounts WHERE id = ?;\n"})
	if out == nil {
		t.Fatal(msg)
	}
	notes := gen.GuardNotes(out)
	if len(notes) != 1 || !strings.Contains(notes[0], ": an update of parents by a writer outside the generated code") {
		t.Errorf("guard notes %q, want one saying an update of parents", notes)
	}
}
