package mysqlwrites

import (
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
)

// TestBodyStatementKinds: a body's statements are read by kind; a
// statement the reading does not classify makes the body opaque (the
// CALL refused), and one it reads as writing nothing passes.
func TestBodyStatementKinds(t *testing.T) {
	for _, c := range []struct {
		body string
		want string // "" passes, "refused", or a fenced write's summary
	}{
		{"BEGIN DECLARE x INT; SELECT balance INTO x FROM accounts WHERE id = 1 FOR UPDATE; END", ""},
		{"BEGIN HANDLER accounts OPEN; END", "refused"},
		{"BEGIN XA START 'x'; END", "refused"},
		{"SET STATEMENT max_statement_time = 1 FOR DELETE FROM accounts", "DELETE accounts via procedure p"},
		{"BEGIN DECLARE EXIT HANDLER FOR NOT FOUND, SQLSTATE VALUE '42000' DELETE FROM accounts; END", "DELETE accounts via procedure p"},
		{"BEGIN EXPLAIN FORMAT=JSON UPDATE accounts SET balance = 1; END", "UPDATE accounts via procedure p"},
		{"BEGIN IF (SELECT COUNT(*) FROM notes) > 0 THEN SELECT 1; ELSEIF 1 THEN BEGIN END; ELSE SELECT CASE WHEN 1 THEN 2 END; END IF; END", ""},
		{"BEGIN WHILE 0 DO SELECT 1; END WHILE; REPEAT SELECT 1; UNTIL 1 END REPEAT; END", ""},
		{"BEGIN FOR r IN (SELECT id FROM notes) DO UPDATE accounts SET balance = r.id; END FOR; END", "UPDATE accounts via procedure p"},
		{"BEGIN SELECT 1 UPDATE accounts SET balance = 1; END", "refused"},
		{"BEGIN IF 1 THEN SELECT 1; END", "refused"},
	} {
		src := "CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT, fence BIGINT);\nCREATE TABLE notes (id BIGINT PRIMARY KEY);\nDELIMITER //\nCREATE PROCEDURE p() " + c.body + "//\n"
		sc, err := ReadSchema([]byte(src))
		if err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		sc.Fence("accounts")
		stmts, _, err := parser.New().Parse("CALL p()", "", "")
		if err != nil {
			t.Fatal(err)
		}
		r := Of(stmts[0], 0, sc)
		got := summary(r, sc)
		if strings.HasSuffix(got, "refused") && c.want == "refused" {
			continue
		}
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q (%v)", c.body, got, c.want, r.Refusals)
		}
	}
}
