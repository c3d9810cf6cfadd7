package mysqloracle

import (
	"context"
	"testing"
)

// TestOracleSchemaANSIQuotes (issue 27, trial-rc27 N2): a view after the
// schema's SET sql_mode = 'ANSI_QUOTES' (or a mode that holds it, ANSI)
// whose double-quoted alias MariaDB reads as the name a\ followed by a
// call of fw, which updates accounts, and the default mode as a string
// alias. The analysis refuses the query that reads the view (no escape),
// and MariaDB shows it writes.
func TestOracleSchemaANSIQuotes(t *testing.T) {
	db := admin(t)
	for _, mode := range []string{"ANSI_QUOTES", "ANSI"} {
		schema := `CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
DELIMITER //
CREATE FUNCTION fw(x BIGINT) RETURNS BIGINT MODIFIES SQL DATA BEGIN UPDATE accounts SET balance = 55 WHERE id >= 0; RETURN x; END//
DELIMITER ;
SET sql_mode = '` + mode + `';
CREATE ALGORITHM=TEMPTABLE VIEW v AS SELECT 1 AS "a\", fw(1) AS y -- "
;
SET sql_mode = DEFAULT;
INSERT INTO accounts VALUES (1, 500, 9);
`
		rep, err := Check(context.Background(), db, mysqlURL(), Case{
			Label:   "ansi quotes " + mode,
			Schema:  [][]byte{[]byte(schema)},
			Queries: []string{"SELECT COUNT(*) FROM v"},
			Fenced:  []string{"accounts"},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Schema {
			t.Errorf("schema: %s", f)
		}
		requireSound(t, rep)
		if rep.Refused != 1 || rep.NotObserved != 0 {
			t.Errorf("%s: refused %d (%d without a fenced write on MariaDB): want the read of v refused, writing accounts", mode, rep.Refused, rep.NotObserved)
		}
	}
}

// TestOracleSchemaLatin1Names (issue 27, trial-rc27 N1): a trigger created
// after the schema's SET NAMES latin1 that names `ét` in a UTF-8 file,
// which MariaDB decodes as latin1: the fenced table `Ã©t`. The analysis
// refuses the insert that fires it (no escape), and MariaDB shows it
// writes the fenced table.
func TestOracleSchemaLatin1Names(t *testing.T) {
	db := admin(t)
	schema := "CREATE TABLE `Ã©t` (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL DEFAULT 0, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n" +
		"CREATE TABLE `ét` (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL DEFAULT 0);\n" +
		"CREATE TABLE plain (id BIGINT PRIMARY KEY, v BIGINT);\n" +
		"SET NAMES latin1;\n" +
		"CREATE TRIGGER plain_ai AFTER INSERT ON plain FOR EACH ROW UPDATE `ét` SET balance = 0 WHERE id >= 0;\n" +
		"SET NAMES utf8mb4;\n" +
		"INSERT INTO `Ã©t` VALUES (1, 500, 9);\n"
	rep, err := Check(context.Background(), db, mysqlURL(), Case{
		Label:   "latin1 names",
		Schema:  [][]byte{[]byte(schema)},
		Queries: []string{"INSERT INTO plain (id, v) VALUES (?, ?)"},
		Fenced:  []string{"Ã©t"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Schema {
		t.Errorf("schema: %s", f)
	}
	requireSound(t, rep)
	if rep.Refused != 1 || rep.NotObserved != 0 {
		t.Errorf("refused %d (%d without a fenced write on MariaDB): want the insert refused, its trigger writing the fenced table", rep.Refused, rep.NotObserved)
	}
}
