package gen_test

import (
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// TestMySQLMergeTableOfFencedTable (issue 27, trial-my3 F5): a write of
// a MERGE table whose UNION names a fenced table is refused where it is
// written, a read of it is generated, and the MERGE table is noted (and
// printed by fencegen guard): MariaDB fires no trigger of accounts for
// the rows accounts_all writes.
func TestMySQLMergeTableOfFencedTable(t *testing.T) {
	schema := "CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token') ENGINE=MyISAM;\n" +
		"CREATE TABLE accounts_all (id BIGINT NOT NULL, balance BIGINT NOT NULL, tok BIGINT NOT NULL DEFAULT 0, KEY (id))\n  ENGINE=MERGE UNION=(accounts) INSERT_METHOD=LAST;\n"
	msg := mysqlGenerate(t, map[string]string{"schema.sql": schema,
		"q.sql": "-- name: ZeroViaMerge :execrows\nUPDATE accounts_all SET balance = 0, tok = 0 WHERE id = ?;\n" +
			"-- name: DelViaMerge :exec\nDELETE FROM accounts_all WHERE id = ?;\n"})
	for _, want := range []string{"q.sql:2:", "q.sql:4:", "MERGE table accounts_all"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	out, msg := mysqlGenerateOut(t, map[string]string{"schema.sql": schema,
		"q.sql": "-- name: ListViaMerge :many\nSELECT id FROM accounts_all;\n"})
	if out == nil {
		t.Fatalf("a read of the MERGE table: %s", msg)
	}
	notes := gen.GuardNotes(out)
	if len(notes) != 1 || !strings.Contains(notes[0], "schema.sql:2:1: note: MERGE table accounts_all has fenced table accounts in its UNION option") {
		t.Errorf("guard notes %q, want one at schema.sql:2:1 on accounts_all", notes)
	}
}

// TestMySQLRemoteEngineRefused: a write of a table whose engine may
// write another table (FEDERATED, here) is refused while a table is
// fenced.
func TestMySQLRemoteEngineRefused(t *testing.T) {
	msg := mysqlGenerate(t, map[string]string{"schema.sql": "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n" +
		"CREATE TABLE acc_remote (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL) ENGINE=FEDERATED CONNECTION='mysql://root@127.0.0.1/test/accounts';\n",
		"q.sql": "-- name: Lower :exec\nUPDATE acc_remote SET tok = 0 WHERE id = ?;\n"})
	if !strings.Contains(msg, "q.sql:2:") || !strings.Contains(msg, "ENGINE=FEDERATED") {
		t.Errorf("want a refusal at q.sql:2 naming ENGINE=FEDERATED, got:\n%s", msg)
	}
}

// TestMySQLSchemaReadUnderItsMode (issue 27, trial-my3 F10): a schema
// statement after the schema's SET sql_mode that reads as another
// statement under that mode (a view that calls a function, a foreign key
// hidden in a comment, under NO_BACKSLASH_ESCAPES) is refused at the
// statement; the same text without the SET, and a statement the mode
// reads the same, pass.
func TestMySQLSchemaReadUnderItsMode(t *testing.T) {
	const tables = "CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n" +
		"CREATE TABLE notes (id BIGINT PRIMARY KEY, body VARCHAR(100));\n"
	view := "CREATE ALGORITHM=TEMPTABLE VIEW v AS SELECT id, 'x\\', fw(id) AS z FROM notes -- ' AS s FROM notes\n;\n"
	fk := "CREATE TABLE kids (id BIGINT PRIMARY KEY, parent_id BIGINT COMMENT 'p\\', FOREIGN KEY (parent_id) REFERENCES notes (id) ON DELETE CASCADE -- '\n, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n"
	plain := "CREATE TABLE plain (id BIGINT PRIMARY KEY, body VARCHAR(10) DEFAULT 'a\\nb');\n"
	q := "-- name: ListNotes :many\nSELECT id FROM notes;\n"
	for _, c := range []struct {
		schema, want string
	}{
		{tables + "SET sql_mode = 'NO_BACKSLASH_ESCAPES';\n" + view, "schema.sql:4:"},
		{tables + "SET SESSION sql_mode = 'STRICT_TRANS_TABLES,NO_BACKSLASH_ESCAPES';\n" + fk, "schema.sql:4:"},
		{tables + "SET @@sql_mode = CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES');\n" + fk, "schema.sql:4:"},
		{tables + "SET sql_mode = 'NO_BACKSLASH_ESCAPES';\n" + plain, ""},
		{tables + fk, ""},
		{tables + "SET sql_mode = 'NO_BACKSLASH_ESCAPES';\nSET sql_mode = DEFAULT;\n" + fk, ""},
	} {
		msg := mysqlGenerate(t, map[string]string{"schema.sql": c.schema, "q.sql": q})
		switch {
		case c.want == "" && msg != "":
			t.Errorf("%s\nwant no error, got:\n%s", c.schema, msg)
		case c.want != "" && (!strings.Contains(msg, c.want) || !strings.Contains(msg, "NO_BACKSLASH_ESCAPES")):
			t.Errorf("%s\nwant an error at %s naming NO_BACKSLASH_ESCAPES, got:\n%s", c.schema, c.want, msg)
		}
	}
}
