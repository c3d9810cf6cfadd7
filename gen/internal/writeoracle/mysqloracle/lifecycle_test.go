package mysqloracle

import (
	"context"
	"testing"
)

// lifecycleSchema renames, replaces and re-creates views, stored routines
// and triggers as a schema's migrations do (issue 27's README trial): each
// write of accounts below reaches it only through the definition the
// server keeps, which the analysis must follow exactly.
const lifecycleSchema = `CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL DEFAULT 0, tok BIGINT NOT NULL DEFAULT 0);
CREATE TABLE t2 (id BIGINT PRIMARY KEY, body BIGINT NOT NULL DEFAULT 0);
CREATE TABLE t3 (id BIGINT PRIMARY KEY, body BIGINT NOT NULL DEFAULT 0);
CREATE VIEW rich AS SELECT id, balance FROM accounts;
RENAME TABLE rich TO rich2;
CREATE VIEW v1 AS SELECT id, balance AS body FROM accounts;
CREATE VIEW v3 AS SELECT id, body FROM t3;
RENAME TABLE v3 TO v3_old, v1 TO v3;
CREATE VIEW va AS SELECT id, body FROM t2;
CREATE VIEW vb AS SELECT id, balance AS body FROM accounts;
RENAME TABLE va TO tmp, vb TO va, tmp TO vb;
CREATE VIEW vk AS SELECT id, balance AS body FROM accounts;
CREATE VIEW vk AS SELECT id, body FROM t2;
CREATE VIEW vr AS SELECT id, body FROM t2;
CREATE OR REPLACE VIEW vr AS SELECT id, balance AS body FROM accounts;
CREATE VIEW vd AS SELECT id, balance AS body FROM accounts;
DROP VIEW vd;
CREATE VIEW vd AS SELECT id, body FROM t3;
DELIMITER //
CREATE FUNCTION f1(x BIGINT) RETURNS BIGINT MODIFIES SQL DATA
BEGIN
  UPDATE accounts SET balance = 0 WHERE id = x;
  RETURN 1;
END //
CREATE FUNCTION IF NOT EXISTS f1(x BIGINT) RETURNS BIGINT
BEGIN
  RETURN 1;
END //
CREATE PROCEDURE p1(IN x BIGINT)
BEGIN
  UPDATE accounts SET balance = 0 WHERE id = x;
END //
CREATE PROCEDURE IF NOT EXISTS p1(IN x BIGINT)
BEGIN
  SELECT 1;
END //
CREATE FUNCTION p1(x BIGINT) RETURNS BIGINT RETURN x //
CREATE PROCEDURE f1(IN x BIGINT)
BEGIN
  SELECT 1;
END //
CREATE TRIGGER tr AFTER INSERT ON t2 FOR EACH ROW UPDATE accounts SET balance = 0 //
CREATE TRIGGER IF NOT EXISTS tr AFTER INSERT ON t2 FOR EACH ROW SET @x = 1 //
DELIMITER ;
`

// TestOracleSchemaLifecycle: views renamed one pair at a time (rename,
// swap, three-way exchange), views re-created without OR REPLACE (the
// server refuses; the old view stays), OR REPLACE and DROP VIEW, and
// CREATE FUNCTION/PROCEDURE/TRIGGER IF NOT EXISTS of a name that exists
// (a no-op on the server; functions and procedures are two namespaces).
// MariaDB is the oracle: every write of accounts it records is reported
// by the analysis (no escape; before issue 27's fix six were), and the
// statements through the replaced definitions write nothing fenced.
func TestOracleSchemaLifecycle(t *testing.T) {
	db := admin(t)
	writes := []string{
		"UPDATE rich2 SET balance = 0 WHERE id = ?",
		"UPDATE v3 SET body = 0 WHERE id = ?",
		"UPDATE va SET body = 0 WHERE id = ?",
		"UPDATE vk SET body = 0 WHERE id = ?",
		"UPDATE vr SET body = 0 WHERE id = ?",
		"SELECT f1(?)",
		"CALL p1(?)",
		"INSERT INTO t2 (id, body) VALUES (? + 10, 1)",
	}
	unfenced := []string{
		"UPDATE v3_old SET body = 0 WHERE id = ?",
		"UPDATE vb SET body = 0 WHERE id = ?",
		"UPDATE vd SET body = 0 WHERE id = ?",
		"SELECT p1(?)",
		"CALL f1(?)",
	}
	rep, err := Check(context.Background(), db, mysqlURL(), Case{
		Label: "lifecycle", Schema: [][]byte{[]byte(lifecycleSchema)}, Fenced: []string{"accounts"},
		Queries: append(append([]string{}, writes...), unfenced...),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Schema {
		t.Logf("%s", f)
	}
	for _, f := range rep.Rejects {
		t.Errorf("%s", f)
	}
	for _, f := range rep.Observed {
		t.Errorf("%s", f)
	}
	requireSound(t, rep)
	if rep.Refused != len(writes) || rep.Passed != len(unfenced) {
		t.Errorf("%d refused, %d passed; want the %d writes of accounts refused and the %d others passed", rep.Refused, rep.Passed, len(writes), len(unfenced))
	}
}
