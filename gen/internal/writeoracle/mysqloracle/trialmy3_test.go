package mysqloracle

import (
	"context"
	"testing"
)

// bodyWrappers are stored programs whose write of accounts (fenced) sits
// behind a statement wrapper or a compound statement the body reading
// must follow (issue 27, trial-my3 F2): MariaDB's SET STATEMENT ... FOR
// in a procedure, a stored function and a trigger, a handler's statement
// (DECLARE ... HANDLER FOR <statement>), MariaDB's ANALYZE, which runs the
// statement it explains, and a labelled loop; p_read only reads (with
// SELECT ... FOR UPDATE) and passes.
const bodyWrappers = `CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
CREATE TABLE notes (id BIGINT PRIMARY KEY, body VARCHAR(100) NOT NULL DEFAULT '');
DELIMITER //
CREATE PROCEDURE ps() BEGIN SET STATEMENT max_statement_time=100 FOR UPDATE accounts SET balance = 1 WHERE id >= 0; END//
CREATE FUNCTION fs(x BIGINT) RETURNS BIGINT BEGIN SET STATEMENT max_statement_time=100 FOR UPDATE accounts SET balance = 10 WHERE id >= 0; RETURN x; END//
CREATE TRIGGER trg_notes AFTER INSERT ON notes FOR EACH ROW SET STATEMENT max_statement_time=100 FOR UPDATE accounts SET balance = 12 WHERE id >= 0//
CREATE PROCEDURE p_handler()
BEGIN
  DECLARE CONTINUE HANDLER FOR SQLSTATE '45000', SQLWARNING UPDATE accounts SET balance = 2 WHERE id >= 0;
  SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'x';
END//
CREATE PROCEDURE p_analyze() BEGIN ANALYZE FORMAT=JSON DELETE FROM accounts WHERE id >= 0; END//
CREATE PROCEDURE p_loop()
BEGIN
  DECLARE n INT DEFAULT 0;
  l: LOOP
    IF n > 0 THEN LEAVE l; END IF;
    SET n = CASE WHEN n = 0 THEN 1 ELSE 2 END;
    UPDATE accounts SET balance = n WHERE id >= 0;
  END LOOP l;
END//
CREATE PROCEDURE p_read()
BEGIN
  DECLARE x BIGINT;
  SELECT balance INTO x FROM accounts WHERE id = 1 FOR UPDATE;
  SELECT x;
END//
DELIMITER ;
`

// TestOracleBodyWrappers: no escape through the wrappers, each write
// seen by MariaDB, and the read-only procedure passed.
func TestOracleBodyWrappers(t *testing.T) {
	db := admin(t)
	rep, err := Check(context.Background(), db, mysqlURL(), Case{
		Label:  "body wrappers",
		Schema: [][]byte{[]byte(bodyWrappers)},
		Queries: []string{"CALL ps()", "SELECT fs(1)", "INSERT INTO notes (id, body) VALUES (5, 'x')", "CALL p_handler()",
			"CALL p_analyze()", "CALL p_loop()", "CALL p_read()"},
		Fenced: []string{"accounts"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Schema {
		t.Errorf("schema: %s", f)
	}
	for _, f := range rep.Rejects {
		t.Errorf("%s", f)
	}
	requireSound(t, rep)
	if rep.Refused != 6 || rep.NotObserved != 0 || rep.PassedRun != 1 {
		t.Errorf("refused %d (%d without a fenced write on MariaDB), passed and ran %d: want the six writers refused, each writing accounts, and p_read passed", rep.Refused, rep.NotObserved, rep.PassedRun)
	}
}

// mergeTables: accounts_all is a MERGE table over accounts (fenced,
// MyISAM): its writes are writes of accounts that fire none of accounts'
// triggers (issue 27, trial-my3 F5), which the oracle sees in accounts'
// rows. A read of it passes.
const mergeTables = `CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token') ENGINE=MyISAM;
CREATE TABLE accounts_all (id BIGINT NOT NULL, balance BIGINT NOT NULL, tok BIGINT NOT NULL DEFAULT 0, KEY (id))
  ENGINE=MERGE UNION=(accounts) INSERT_METHOD=LAST;
CREATE TABLE other (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, tok BIGINT NOT NULL DEFAULT 0) ENGINE=MyISAM;
CREATE TABLE later (id BIGINT NOT NULL, balance BIGINT NOT NULL, tok BIGINT NOT NULL DEFAULT 0, KEY (id)) ENGINE=MERGE UNION=(other) INSERT_METHOD=LAST;
ALTER TABLE later UNION=(other, accounts);
`

func TestOracleMergeTables(t *testing.T) {
	db := admin(t)
	rep, err := Check(context.Background(), db, mysqlURL(), Case{
		Label:  "merge",
		Schema: [][]byte{[]byte(mergeTables)},
		Queries: []string{"UPDATE accounts_all SET balance = 0, tok = 0 WHERE id = ?", "INSERT INTO accounts_all (id, balance, tok) VALUES (9, 1, 1)",
			"UPDATE later SET tok = 3 WHERE id = ?", "SELECT * FROM accounts_all", "DELETE FROM accounts_all WHERE id = ?"},
		Fenced: []string{"accounts"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Schema {
		t.Errorf("schema: %s", f)
	}
	for _, f := range rep.Rejects {
		t.Errorf("%s", f)
	}
	requireSound(t, rep)
	if rep.Refused != 4 || rep.NotObserved != 0 || rep.PassedRun != 1 {
		t.Errorf("refused %d (%d without a fenced write on MariaDB), passed and ran %d: want the four writes through MERGE tables refused, each changing accounts, and the read passed", rep.Refused, rep.NotObserved, rep.PassedRun)
	}
}

// TestOracleSchemaModes (issue 27, trial-my3 F10): schema statements
// after the schema's SET sql_mode = 'NO_BACKSLASH_ESCAPES' that MariaDB
// reads as other statements than the default mode does: a view whose
// column calls fw (which updates accounts), and a foreign key with ON
// DELETE CASCADE to kids (fenced) hidden in a column's COMMENT in the
// default reading. The analysis refuses the statements that reach them
// (no escape), and MariaDB shows they write.
func TestOracleSchemaModes(t *testing.T) {
	db := admin(t)
	schema := `CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
CREATE TABLE notes (id BIGINT PRIMARY KEY, body VARCHAR(100));
CREATE TABLE parents (id BIGINT PRIMARY KEY);
DELIMITER //
CREATE FUNCTION fw(x BIGINT) RETURNS BIGINT BEGIN UPDATE accounts SET balance = 55 WHERE id >= 0; RETURN x; END//
DELIMITER ;
SET sql_mode = 'NO_BACKSLASH_ESCAPES';
CREATE ALGORITHM=TEMPTABLE VIEW v AS SELECT id, 'x\', fw(id) AS z FROM notes -- ' AS s FROM notes
;
CREATE TABLE kids (id BIGINT PRIMARY KEY, parent_id BIGINT COMMENT 'p\', FOREIGN KEY (parent_id) REFERENCES parents (id) ON DELETE CASCADE -- '
, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
SET sql_mode = DEFAULT;
INSERT INTO notes VALUES (1, 'n');
INSERT INTO parents VALUES (1);
INSERT INTO kids VALUES (1, 1, 9);
`
	rep, err := Check(context.Background(), db, mysqlURL(), Case{
		Label:   "schema modes",
		Schema:  [][]byte{[]byte(schema)},
		Queries: []string{"SELECT id FROM v", "DELETE FROM parents WHERE id = ?"},
		Fenced:  []string{"accounts", "kids"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Schema {
		t.Errorf("schema: %s", f)
	}
	requireSound(t, rep)
	if rep.Refused != 2 || rep.NotObserved != 0 {
		t.Errorf("refused %d (%d without a fenced write on MariaDB): want both refused, each writing a fenced table", rep.Refused, rep.NotObserved)
	}
}
