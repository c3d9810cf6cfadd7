package mysqloracle

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
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

// namesSchema is issue 27's second MariaDB trial: statements about
// another database's objects (db.x, and after USE), and about case
// variants of a name, which on the server (lower_case_table_names=0, as
// on Linux) leave the project's objects in place. %[1]s is the other
// database.
const namesSchema = `CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL DEFAULT 0, tok BIGINT NOT NULL DEFAULT 0);
CREATE TABLE notes (id BIGINT PRIMARY KEY, body BIGINT NOT NULL DEFAULT 0);
CREATE TABLE notes3 (id BIGINT PRIMARY KEY, body BIGINT NOT NULL DEFAULT 0);
CREATE TABLE plain (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL DEFAULT 0);
CREATE TABLE %[1]s.notes (id BIGINT PRIMARY KEY, body BIGINT NOT NULL DEFAULT 0);
CREATE TABLE %[1]s.plain (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL DEFAULT 0);
CREATE VIEW rich AS SELECT id, balance FROM accounts;
CREATE VIEW rich2 AS SELECT id, balance FROM accounts;
CREATE VIEW rich3 AS SELECT id, balance FROM accounts;
CREATE VIEW %[1]s.rich AS SELECT id, balance FROM %[1]s.plain;
DROP VIEW %[1]s.rich;
CREATE OR REPLACE VIEW %[1]s.rich2 AS SELECT id, balance FROM %[1]s.plain;
CREATE OR REPLACE VIEW Rich3 AS SELECT id, balance FROM plain;
DROP VIEW IF EXISTS Rich;
DELIMITER //
CREATE TRIGGER notes_touch AFTER INSERT ON notes FOR EACH ROW UPDATE accounts SET balance = 0 //
CREATE TRIGGER n3 AFTER INSERT ON notes3 FOR EACH ROW UPDATE accounts SET balance = 0 //
CREATE FUNCTION bump(x BIGINT) RETURNS BIGINT MODIFIES SQL DATA
BEGIN
  UPDATE accounts SET balance = balance + 1 WHERE id = x;
  RETURN x;
END //
CREATE FUNCTION bump2(x BIGINT) RETURNS BIGINT MODIFIES SQL DATA
BEGIN
  UPDATE accounts SET balance = balance + 1 WHERE id = x;
  RETURN x;
END //
CREATE PROCEDURE pay(IN x BIGINT)
BEGIN
  UPDATE accounts SET balance = 0 WHERE id = x;
END //
CREATE FUNCTION bump5(x BIGINT) RETURNS BIGINT MODIFIES SQL DATA
BEGIN
  UPDATE accounts SET balance = balance + 1 WHERE id = x;
  RETURN x;
END //
CREATE OR REPLACE FUNCTION BUMP5(x BIGINT) RETURNS BIGINT RETURN x //
DELIMITER ;
DROP TRIGGER IF EXISTS %[1]s.notes_touch;
DROP FUNCTION IF EXISTS %[1]s.bump;
CREATE OR REPLACE FUNCTION %[1]s.bump2(x BIGINT) RETURNS BIGINT RETURN x;
DROP PROCEDURE IF EXISTS %[1]s.pay;
CREATE PROCEDURE %[1]s.pay(IN x BIGINT) SELECT x;
RENAME TABLE %[1]s.notes TO %[1]s.notes_old;
CREATE TRIGGER %[1]s.notes_touch AFTER INSERT ON %[1]s.notes_old FOR EACH ROW SET @x = 1;
DROP TRIGGER IF EXISTS Notes_Touch;
DROP TABLE IF EXISTS Notes3;
USE %[1]s;
DROP TRIGGER IF EXISTS n3;
`

// TestOracleSchemaNames: a schema statement that names another
// database's object (a db.x qualifier, or a name after USE, which
// fencegen cannot tell from the project's database) or a case variant of
// a name (MariaDB on Linux keeps table, view and trigger names apart by
// case) must not drop, replace or rename the project's object: each
// write below still reaches accounts on MariaDB, which the test checks,
// and the analysis must refuse it (before the fix each one passed).
// UPDATE Rich3 may mean the replaced view rich3 where names fold
// (lower_case_table_names=1): it is refused, and MariaDB (=0) writes
// plain only. Routine names are not case-sensitive on any server:
// OR REPLACE of BUMP5 replaces bump5, as the analysis reads it.
func TestOracleSchemaNames(t *testing.T) {
	db := admin(t)
	ctx := context.Background()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	other := "fencegen_other_" + hex.EncodeToString(b)
	if _, err := db.ExecContext(ctx, "CREATE DATABASE `"+other+"`"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = db.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+other+"`") })
	writes := []string{
		"INSERT INTO notes (id, body) VALUES (? + 10, 1)",
		"INSERT INTO notes3 (id, body) VALUES (? + 10, 1)",
		"SELECT bump(?)",
		"SELECT bump2(?)",
		"CALL pay(?)",
		"UPDATE rich SET balance = 0 WHERE id = ?",
		"UPDATE rich2 SET balance = 0 WHERE id = ?",
		"UPDATE rich3 SET balance = 0 WHERE id = ?",
	}
	union := "UPDATE Rich3 SET balance = 0 WHERE id = ?"
	// Routine names fold on every server: BUMP5 replaced bump5.
	unfenced := []string{"UPDATE plain SET balance = 0 WHERE id = ?", "SELECT bump5(?)"}
	rep, err := Check(ctx, db, mysqlURL(), Case{
		Label: "names", Schema: [][]byte{[]byte(fmt.Sprintf(namesSchema, other))}, Fenced: []string{"accounts"},
		Queries: append(append(append([]string{}, writes...), union), unfenced...),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Schema {
		t.Errorf("%s", f)
	}
	for _, f := range rep.Rejects {
		t.Errorf("%s", f)
	}
	for _, f := range rep.Observed {
		if f.Query != union {
			t.Errorf("%s", f)
		}
	}
	requireSound(t, rep)
	if rep.Refused != len(writes)+1 || rep.Passed != len(unfenced) {
		t.Errorf("%d refused, %d passed; want the %d writes of accounts and %s refused and the %d others passed", rep.Refused, rep.Passed, len(writes), union, len(unfenced))
	}
}
