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
		{"UPDATE accounts SET balance = 2 WHERE id = ? AND (1 || 0)", "PIPES_AS_CONCAT"},
		// Tree modes (issue 27): a fenced write is refused only when
		// its tree differs under the mode (other rows or values).
		{"UPDATE accounts SET balance = 2 WHERE id = ? AND NOT balance BETWEEN 1 AND 2", "HIGH_NOT_PRECEDENCE"},
		{"DELETE FROM accounts WHERE NOT id = ?", "HIGH_NOT_PRECEDENCE"},
		{"UPDATE accounts SET balance = 2 WHERE id = count (balance)", "IGNORE_SPACE"},
		{"SELECT mid (body, 1) AS s FROM notes", ""},
		{"UPDATE accounts SET balance = 2 WHERE id = ? AND NOT (balance BETWEEN 1 AND 2) AND balance IS NOT NULL AND id NOT IN (3) AND NOT EXISTS (SELECT 1 FROM notes)", ""},
		{"UPDATE accounts SET balance = 2 WHERE id = ? AND !balance", ""},
		{"SELECT * FROM notes WHERE NOT id BETWEEN 1 AND 2", ""},
		{"SELECT body || 'x' AS s FROM notes WHERE id = ?", ""},
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

// modeBodies is a schema whose stored programs read differently under
// a sql_mode the session that created them may have had (MySQL stores it
// with the program): p_nbe updates accounts only under
// NO_BACKSLASH_ESCAPES, where 'a\' is a whole string and the rest of the
// line code; p_quotes uses a double-quoted string and p_pipes ||, which
// change nothing it writes.
const modeBodies = `CREATE TABLE accounts (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL DEFAULT 0, balance INT NOT NULL DEFAULT 0);
CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT);
CREATE TABLE logs (id BIGINT PRIMARY KEY);
DELIMITER $$
CREATE PROCEDURE p_nbe()
BEGIN
  UPDATE notes n JOIN accounts a ON a.id = n.id SET n.body = 'a\', a.balance = 99 -- '
  WHERE n.id > 0;
END$$
CREATE PROCEDURE p_quotes()
BEGIN
  UPDATE notes SET body = "it's" WHERE id > 0;
END$$
CREATE PROCEDURE p_pipes()
BEGIN
  UPDATE notes SET body = body || 'x' WHERE id > 0;
END$$
CREATE TRIGGER logs_nbe AFTER INSERT ON logs FOR EACH ROW
BEGIN
  UPDATE notes n JOIN accounts a ON a.id = n.id SET n.body = 'a\', a.balance = 99 -- '
  WHERE n.id < 0;
END$$
DELIMITER ;
`

// TestSQLModesInBodies: a stored program's body is read again under each
// sql_mode that changes its tokens or its tree; one whose writes,
// calls or refusals then differ is opaque, and what reaches it is refused
// naming the mode (MariaDB runs p_nbe created under NO_BACKSLASH_ESCAPES
// in mysqloracle's TestOracleBodySQLModes). Bodies whose readings agree
// pass.
func TestSQLModesInBodies(t *testing.T) {
	sc, err := ReadSchema([]byte(modeBodies))
	if err != nil {
		t.Fatal(err)
	}
	sc.Fence("accounts")
	for _, c := range []struct{ q, mode string }{
		{"CALL p_nbe()", "NO_BACKSLASH_ESCAPES"},
		{"INSERT INTO accounts (id) VALUES (1)", ""},
		{"INSERT INTO logs (id) VALUES (?)", "NO_BACKSLASH_ESCAPES"}, // sets off logs_nbe
		{"CALL p_quotes()", ""},
		{"CALL p_pipes()", ""},
	} {
		r := Of(mustParse(t, c.q), 0, sc)
		var got string
		for _, f := range r.Refusals {
			if strings.Contains(f.Reason, "reads differently under sql_mode") {
				got = f.Reason
			}
		}
		switch {
		case c.mode == "" && len(r.Refusals) > 0:
			t.Errorf("%s: refused: %v", c.q, r.Refusals)
		case c.mode != "" && !strings.Contains(got, "reads differently under sql_mode "+c.mode+" "):
			t.Errorf("%s: refusals %v, want one naming %s", c.q, r.Refusals, c.mode)
		}
	}
}

// TestTreeModesInBodies (issue 27): under IGNORE_SPACE, mid (1), a
// built-in's name, a space and (, is the built-in MID; in the default
// mode MySQL and MariaDB call the stored function mid (checked on
// MariaDB 10.11: SELECT mid (5) ran the function, under IGNORE_SPACE a
// syntax error). The default reading, which follows the stored function,
// reports its write of accounts, and so does a body calling it so (a
// body's words naming a stored function count as its call under every
// mode). A body whose NOT binds otherwise under HIGH_NOT_PRECEDENCE but
// writes the same tables passes.
func TestTreeModesInBodies(t *testing.T) {
	sc, err := ReadSchema([]byte(`CREATE TABLE accounts (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL DEFAULT 0, balance INT NOT NULL DEFAULT 0);
CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT);
DELIMITER $$
CREATE FUNCTION ` + "`mid`" + `(a INT) RETURNS INT
BEGIN
  UPDATE accounts SET balance = 0 WHERE id = a;
  RETURN a;
END$$
CREATE PROCEDURE p_is()
BEGIN
  SELECT mid (1) INTO @x;
END$$
CREATE PROCEDURE p_not()
BEGIN
  UPDATE notes SET body = 'x' WHERE NOT id BETWEEN 1 AND 2;
END$$
DELIMITER ;
`))
	if err != nil {
		t.Fatal(err)
	}
	sc.Fence("accounts")
	for _, q := range []string{"SELECT mid (1) AS x", "CALL p_is()"} {
		if r := Of(mustParse(t, q), 0, sc); len(r.FencedWrites(sc)) == 0 {
			t.Errorf("%s: writes %v, refusals %v; want the stored function's write of accounts", q, r.FencedWrites(sc), r.Refusals)
		}
	}
	for _, c := range []struct{ q, mode string }{
		{"SELECT mid (1) AS x", "IGNORE_SPACE"},
		{"CALL p_not()", ""},
	} {
		r := Of(mustParse(t, c.q), 0, sc)
		var got string
		for _, f := range r.Refusals {
			if strings.Contains(f.Reason, "reads differently under sql_mode") {
				got = f.Reason
			}
		}
		switch {
		case c.mode == "" && len(r.Refusals) > 0:
			t.Errorf("%s: refused: %v", c.q, r.Refusals)
		case c.mode != "" && !strings.Contains(got, "reads differently under sql_mode "+c.mode+" "):
			t.Errorf("%s: refusals %v, want one naming %s", c.q, r.Refusals, c.mode)
		}
	}
}
