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
	// fencegen's own guard trigger counts once applied, whether from a
	// guard migration in the schema or from the guard file it writes
	// (trial t27h F6): quiet, without a trigger in the schema, gets the
	// note too.
	if len(notes) != 3 || !strings.Contains(notes[0], "q.sql:1:1: note: query CodeAccounts writes several rows of fenced table accounts, which has trigger(s) accounts_audit, and fencegen_bu_accounts once the guard fencegen writes (out/fencegen_guard.sql, or its migration: fencegen guard) is applied: ") || !strings.Contains(notes[0], "for column(s) code (CHAR) ") || !strings.Contains(notes[0], "set clientFoundRows=true") ||
		!strings.Contains(notes[1], "q.sql:4:1: note: query CodeQuiet writes several rows of fenced table quiet, which has trigger(s) fencegen_bu_quiet once the guard fencegen writes (out/fencegen_guard.sql, or its migration: fencegen guard) is applied: ") || !strings.Contains(notes[1], "for column(s) code (CHAR) ") ||
		!strings.Contains(notes[2], "q.sql:7:1: note: query CodeOne writes a row, by key, of fenced table accounts, which has trigger(s) accounts_audit") || !strings.Contains(notes[2], "for column(s) code (CHAR) ") {
		t.Errorf("notes %q, want one at CodeAccounts, CodeQuiet and CodeOne naming the triggers and column code", notes)
	}
}

// TestMySQLGuardTriggerNoteWithoutSchemaTriggers (trial t27h F6): the
// schema has no trigger, and the team applies the guard file fencegen
// writes (or a guard migration fencegen guard writes later): its BEFORE
// UPDATE trigger clears the reply's last-insert id as any trigger does,
// so an UPDATE of an ENUM or JSON column, which the locked read cannot
// compare exactly, gets the clientFoundRows note, by key and of several
// rows; before, the note named only the schema's triggers, and was not
// given. A guard migration in the schema names the trigger once.
func TestMySQLGuardTriggerNoteWithoutSchemaTriggers(t *testing.T) {
	const schema = "CREATE TABLE orders (id BIGINT PRIMARY KEY, state ENUM('new','paid') NOT NULL, meta JSON, n INT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n"
	const queries = "-- name: SetState :exec\nUPDATE orders SET state = ? WHERE id = ?;\n\n" +
		"-- name: SetMeta :execrows\nUPDATE orders SET meta = ? WHERE id IN (sqlc.slice(ids));\n\n" +
		"-- name: SetN :exec\nUPDATE orders SET n = ? WHERE id = ?;\n"
	notes := func(files map[string]string) []string {
		t.Helper()
		var out []string
		for _, n := range generateDir(t, files).Vet {
			if strings.Contains(n, "clientFoundRows") {
				out = append(out, n)
			}
		}
		return out
	}
	cfg := "version: \"2\"\nsql:\n  - {engine: mysql, schema: [001_init.sql], queries: q.sql, gen: {go: {package: x, out: out}}}\n"
	got := notes(map[string]string{"001_init.sql": schema, "q.sql": queries, "fencegen.yaml": cfg})
	if len(got) != 2 || !strings.Contains(got[0], "note: query SetState writes a row, by key, of fenced table orders, which has trigger(s) fencegen_bu_orders once the guard fencegen writes (out/fencegen_guard.sql, or its migration: fencegen guard) is applied: ") || !strings.Contains(got[0], "for column(s) state (ENUM or SET)") ||
		!strings.Contains(got[1], "note: query SetMeta writes several rows of fenced table orders, which has trigger(s) fencegen_bu_orders once") || !strings.Contains(got[1], "for column(s) meta (JSON)") {
		t.Errorf("notes %q, want SetState's (ENUM) and SetMeta's (JSON), naming fencegen_bu_orders", got)
	}
	// With the guard migration in the schema, the trigger is the schema's.
	out := generateDir(t, map[string]string{"001_init.sql": schema, "q.sql": queries, "fencegen.yaml": cfg})
	mig, err := out.Guards[0].Migration("goose", "002")
	if err != nil {
		t.Fatal(err)
	}
	cfg = strings.Replace(cfg, "[001_init.sql]", "[001_init.sql, 002_fencegen_guard.sql]", 1)
	got = notes(map[string]string{"001_init.sql": schema, "002_fencegen_guard.sql": string(mig["002_fencegen_guard.sql"]), "q.sql": queries, "fencegen.yaml": cfg})
	if len(got) != 2 || !strings.Contains(got[0], "which has trigger(s) fencegen_bu_orders, fencegen_bd_orders, fencegen_bi_orders: a trigger clears") {
		t.Errorf("with the guard migration in the schema: notes %q", got)
	}
}
