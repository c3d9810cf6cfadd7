package gen_test

import (
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/writes/mysqlwrites"
	"github.com/fencegen/fencegen/internal/testenv"
)

// forLoopSchema is a schema without DELIMITER lines (as a migration tool
// that sends the file with multiStatements runs it) whose procedure and
// trigger hold MariaDB's FOR ... END FOR loops, next to the other uses
// of FOR (FOR EACH ROW, FOR UPDATE, HANDLER FOR, CURSOR FOR).
const forLoopSchema = `CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
CREATE TABLE notes (id BIGINT PRIMARY KEY);
CREATE PROCEDURE p()
BEGIN
  DECLARE done INT DEFAULT 0;
  DECLARE c CURSOR FOR SELECT id FROM notes;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
  lbl: FOR r IN 1 .. 3 DO
    SELECT id FROM notes WHERE id = r FOR UPDATE;
  END FOR lbl;
  FOR q IN (SELECT id FROM notes) DO
    UPDATE accounts SET balance = q.id WHERE id = q.id;
  END FOR;
END;
CREATE TRIGGER t BEFORE UPDATE ON notes FOR EACH ROW FOR r IN 1 .. 2 DO
  SET @n = r;
END FOR;
CREATE TABLE later (id BIGINT PRIMARY KEY);
`

// TestMySQLForLoopSplit (issue 27, trial t27 F9): a FOR ... END FOR loop
// opens a block as BEGIN, WHILE and LOOP do, so the schema's procedure
// and trigger are one statement each, as MariaDB reads them (each piece
// runs on MariaDB); before, the semicolon after END FOR ended the
// procedure, and generate reported a syntax error at the procedure's
// last END instead of reading its body.
func TestMySQLForLoopSplit(t *testing.T) {
	stmts := mysqlwrites.SplitStatements(forLoopSchema)
	var firsts []string
	for _, st := range stmts {
		f := strings.Fields(st.Text)
		firsts = append(firsts, strings.Join(f[:min(3, len(f))], " "))
	}
	want := []string{"CREATE TABLE accounts", "CREATE TABLE notes", "CREATE PROCEDURE p()", "CREATE TRIGGER t", "CREATE TABLE later"}
	if strings.Join(firsts, "|") != strings.Join(want, "|") {
		t.Fatalf("statements:\n got %q\nwant %q", firsts, want)
	}
	db := testenv.MySQL(t, "")
	for _, st := range stmts {
		if _, err := db.Exec(st.Text); err != nil {
			t.Errorf("MariaDB refuses the statement as split (%v):\n%s", err, st.Text)
		}
	}

	// generate reads the procedure's body: the call is refused for the
	// write the FOR loop makes, and nothing else is reported.
	msg := mysqlGenerate(t, map[string]string{
		"schema.sql": forLoopSchema,
		"q.sql":      "-- name: P :exec\nCALL p();\n-- name: N :exec\nUPDATE notes SET id = ? WHERE id = ?;\n",
	})
	wantMsg := "q.sql:2:6: query P writes fenced table accounts through procedure p (update), inside the database where no token comparison can be added; write the fenced table's rows with their own guarded query"
	if !strings.HasSuffix(msg, "/"+wantMsg) {
		t.Errorf("generate:\n got %s\nwant %s", msg, wantMsg)
	}

	// A syntax error after the loops is reported at its own token.
	msg = mysqlGenerate(t, map[string]string{
		"schema.sql": forLoopSchema + "CREATE TABLE broken (id BIGINT PRIMARY KEY,, x INT);\n",
		"q.sql":      "-- name: N :exec\nUPDATE notes SET id = ? WHERE id = ?;\n",
	})
	if !strings.Contains(msg, "schema.sql:19:") || strings.Count(msg, "\n") != 0 {
		t.Errorf("generate: got %s\nwant one syntax error on line 19", msg)
	}
}
