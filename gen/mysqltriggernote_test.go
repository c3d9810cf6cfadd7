package gen_test

import (
	"strings"
	"testing"
)

// TestMySQLTriggeredGroupWriteNoted (issue 27 trial t27 F6): a guarded
// UPDATE of several rows of a fenced table that has a trigger (an audit
// trigger, not fencegen's) gets a vet note at the query naming the
// trigger and clientFoundRows=true: the trigger clears the reply's
// last-insert id, and without it a retry that changes nothing is told
// only by comparing the rows with what the UPDATE writes, which errs
// towards "differs" (DECIMAL 12.00 for 12) and then fails after
// fenceimpl.MaxAttempts runs. The same write of a table without a
// trigger gets none. An UPDATE by key of the triggered table gets its
// own (issue 27, trial t27s F1: a value equal to the stored one only
// once converted, a Go time with fractional seconds into DATETIME, fails
// the same way; fencegen's guard triggers, in the schema's guard
// migration, count as any trigger); a DELETE by key gets none.
func TestMySQLTriggeredGroupWriteNoted(t *testing.T) {
	res := generateDir(t, map[string]string{
		"schema.sql": `CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance INT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
CREATE TABLE quiet (id BIGINT PRIMARY KEY, balance INT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
CREATE TABLE audit (id BIGINT AUTO_INCREMENT PRIMARY KEY, acc BIGINT NOT NULL);
CREATE TRIGGER accounts_audit AFTER UPDATE ON accounts FOR EACH ROW INSERT INTO audit (acc) VALUES (NEW.id);
`,
		"q.sql": "-- name: ZeroBalances :execrows\nUPDATE accounts SET balance = 0 WHERE id IN (sqlc.slice(ids));\n\n" +
			"-- name: ZeroQuiet :execrows\nUPDATE quiet SET balance = 0 WHERE id IN (sqlc.slice(ids));\n\n" +
			"-- name: ZeroOne :exec\nUPDATE accounts SET balance = 0 WHERE id = ?;\n\n" +
			"-- name: DropOne :exec\nDELETE FROM accounts WHERE id = ?;\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	})
	var notes []string
	for _, n := range res.Vet {
		if strings.Contains(n, "clientFoundRows") {
			notes = append(notes, n)
		}
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "q.sql:1:1: note: query ZeroBalances writes several rows of fenced table accounts, which has trigger(s) accounts_audit") || !strings.Contains(notes[0], "set clientFoundRows=true") ||
		!strings.Contains(notes[1], "q.sql:7:1: note: query ZeroOne writes a row, by key, of fenced table accounts, which has trigger(s) accounts_audit") || !strings.Contains(notes[1], "a Go time with fractional seconds into DATETIME") {
		t.Errorf("notes %q, want one at ZeroBalances and one at ZeroOne naming accounts_audit", notes)
	}
}
