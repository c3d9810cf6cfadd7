package gen_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// TestMySQLBodyRefusedWhereItIs (issue 27, trial F9): what a stored
// program's body holds that fencegen cannot classify (a syntax error in
// a procedure or trigger defined between DELIMITER lines, a CALL of a
// procedure the schema does not define) is refused at the body's own
// file:line:col, naming the query that reaches it and where that query
// is, not at the query's CALL or statement start.
func TestMySQLBodyRefusedWhereItIs(t *testing.T) {
	schema := `CREATE TABLE jobs (id BIGINT PRIMARY KEY, state VARCHAR(10), fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
CREATE TABLE logs (id BIGINT PRIMARY KEY);

DELIMITER //
CREATE PROCEDURE p()
BEGIN
  SELECT 1;
  SELEC garbage here;
END //
CREATE TRIGGER tr BEFORE INSERT ON logs FOR EACH ROW
BEGIN
  SET @x = 1;
  CALL nowhere();
END //
DELIMITER ;
`
	queries := "-- name: RunP :exec\nCALL p();\n\n-- name: Log :exec\nINSERT INTO logs (id) VALUES (?);\n"
	_, err := gen.Generate(context.Background(), mysqlGuardProject(t, schema, queries))
	if err == nil {
		t.Fatal("generated; want the two bodies refused")
	}
	msg := err.Error()
	for _, want := range []string{
		"schema.sql:8:3: query RunP (",
		"q.sql:2:6) reaches, through procedure p, something that holds a statement fencegen does not classify (\"SELEC garbage here; END ...\")",
		"schema.sql:13:8: query Log (",
		"q.sql:5:13) reaches, through trigger tr on logs, a CALL of nowhere, a procedure the schema does not define",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("errors lack %q:\n%s", want, msg)
		}
	}
}
