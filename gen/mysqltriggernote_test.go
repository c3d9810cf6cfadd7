package gen_test

import (
	"strings"
	"testing"
)

// TestMySQLTriggeredGroupWriteNoted (issue 27 trials t27 F6, t27s F1): a
// guarded UPDATE of several rows or by key of a fenced table that has a
// trigger (an audit trigger, not fencegen's; fencegen's guard triggers,
// in the schema's guard migration, count as any trigger) gets a vet note
// at the query naming the trigger, the column and clientFoundRows=true
// when it sets a column whose stored value the locked read cannot
// compare with the value written (CHAR drops trailing spaces): the
// trigger clears the reply's last-insert id, and without the matched-rows
// count a retry that changes nothing is told only by that comparison,
// which then errs towards "differs" and fails after
// fenceimpl.MaxAttempts runs. An UPDATE that sets only INT, DECIMAL or
// DATETIME columns (compared as the column stores them), the same write
// of a table without a trigger, and a DELETE by key get none.
func TestMySQLTriggeredGroupWriteNoted(t *testing.T) {
	res := generateDir(t, map[string]string{
		"schema.sql": `CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance INT NOT NULL, amount DECIMAL(12,2) NOT NULL, at DATETIME NULL, code CHAR(4) NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
CREATE TABLE quiet (id BIGINT PRIMARY KEY, code CHAR(4) NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
CREATE TABLE audit (id BIGINT AUTO_INCREMENT PRIMARY KEY, acc BIGINT NOT NULL);
CREATE TRIGGER accounts_audit AFTER UPDATE ON accounts FOR EACH ROW INSERT INTO audit (acc) VALUES (NEW.id);
`,
		"q.sql": "-- name: CodeAccounts :execrows\nUPDATE accounts SET code = ?, balance = 0 WHERE id IN (sqlc.slice(ids));\n\n" +
			"-- name: CodeQuiet :execrows\nUPDATE quiet SET code = ? WHERE id IN (sqlc.slice(ids));\n\n" +
			"-- name: CodeOne :exec\nUPDATE accounts SET code = ? WHERE id = ?;\n\n" +
			"-- name: ZeroOne :exec\nUPDATE accounts SET balance = 0, amount = ?, at = ? WHERE id = ?;\n\n" +
			"-- name: ZeroAll :exec\nUPDATE accounts SET balance = 0, amount = ?, at = ? WHERE id > ?;\n\n" +
			"-- name: DropOne :exec\nDELETE FROM accounts WHERE id = ?;\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	})
	var notes []string
	for _, n := range res.Vet {
		if strings.Contains(n, "clientFoundRows") {
			notes = append(notes, n)
		}
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "q.sql:1:1: note: query CodeAccounts writes several rows of fenced table accounts, which has trigger(s) accounts_audit") || !strings.Contains(notes[0], "for column(s) code (CHAR) ") || !strings.Contains(notes[0], "set clientFoundRows=true") ||
		!strings.Contains(notes[1], "q.sql:7:1: note: query CodeOne writes a row, by key, of fenced table accounts, which has trigger(s) accounts_audit") || !strings.Contains(notes[1], "for column(s) code (CHAR) ") {
		t.Errorf("notes %q, want one at CodeAccounts and one at CodeOne naming accounts_audit and column code", notes)
	}
}
