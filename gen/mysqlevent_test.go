package gen_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/writes/mysqlwrites"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestMySQLEventWritesNoted (issue 27): an event (CREATE EVENT ... DO)
// runs in the server on its schedule, outside the generated code and with
// no fencing token, like a trigger or procedure no query reaches. vet
// notes, at the event's name, each one whose body writes a fenced table,
// itself or through a procedure it CALLs, or whose body fencegen cannot
// read; an event writing only other tables, and one dropped again, get
// none.
func TestMySQLEventWritesNoted(t *testing.T) {
	notes := eventNotes(t, `CREATE TABLE jobs (id BIGINT PRIMARY KEY, state VARCHAR(10), fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
CREATE TABLE logs (id BIGINT PRIMARY KEY);
CREATE PROCEDURE reset_jobs() UPDATE jobs SET state = 'new';
CREATE EVENT purge ON SCHEDULE EVERY 1 HOUR DO DELETE FROM jobs WHERE id < 0;
DELIMITER //
CREATE EVENT nightly ON SCHEDULE EVERY 1 DAY COMMENT 'do it' DO
BEGIN
  INSERT INTO logs VALUES (1);
  CALL reset_jobs();
END //
CREATE EVENT dyn ON SCHEDULE EVERY 1 DAY DO
BEGIN
  PREPARE s FROM @q;
  EXECUTE s;
END //
DELIMITER ;
CREATE EVENT quiet ON SCHEDULE EVERY 1 DAY DO DELETE FROM logs;
CREATE EVENT gone ON SCHEDULE EVERY 1 DAY DO DELETE FROM jobs;
DROP EVENT gone;
`)
	want := []string{
		"schema.sql:4:14: note: event purge writes fenced table jobs (DELETE) on its schedule, in the server, outside the generated code and with no fencing token: fencegen cannot guard it",
		"schema.sql:6:14: note: event nightly writes fenced table jobs (UPDATE, through procedure reset_jobs) on its schedule",
		"schema.sql:11:14: note: event dyn may write any fenced table (its body runs dynamic SQL (PREPARE)",
	}
	if len(notes) != len(want) {
		t.Fatalf("event notes %q, want %d", notes, len(want))
	}
	for i, w := range want {
		if !strings.HasSuffix(strings.SplitN(notes[i], ": note: ", 2)[0], strings.SplitN(w, ": note: ", 2)[0]) || !strings.Contains(notes[i], strings.SplitN(w, ": note: ", 2)[1]) {
			t.Errorf("note %d = %q, want %q", i, notes[i], w)
		}
	}
}

// alterEventSchema creates events and changes them with ALTER EVENT:
// sweep gets a body that deletes from the fenced table, tidy one that no
// longer writes it, old is renamed and then given a compound body that
// updates it, moved is renamed and dropped, and sweep's DISABLE leaves
// its body as it is. later's new body is a compound statement without
// DELIMITER lines (one statement, as MariaDB reads it), whose second
// statement deletes from the fenced table.
const alterEventSchema = `CREATE TABLE jobs (id BIGINT PRIMARY KEY, state VARCHAR(10), fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
CREATE TABLE logs (id BIGINT PRIMARY KEY);
CREATE EVENT sweep ON SCHEDULE EVERY 1 HOUR DO DELETE FROM logs;
ALTER EVENT sweep ON SCHEDULE EVERY 2 HOUR DO DELETE FROM jobs WHERE id < 0;
CREATE EVENT tidy ON SCHEDULE EVERY 1 HOUR DO DELETE FROM jobs;
ALTER EVENT tidy DO DELETE FROM logs;
CREATE EVENT old ON SCHEDULE EVERY 1 DAY DO DELETE FROM logs;
ALTER EVENT old RENAME TO renamed;
DELIMITER //
ALTER DEFINER = CURRENT_USER EVENT renamed COMMENT 'DO it' DO
BEGIN
  INSERT INTO logs VALUES (1);
  UPDATE jobs SET state = 'x';
END //
DELIMITER ;
ALTER EVENT sweep DISABLE;
CREATE EVENT later ON SCHEDULE EVERY 1 DAY DO DELETE FROM logs;
ALTER EVENT later DO BEGIN
  DELETE FROM logs;
  DELETE FROM jobs WHERE id = 2;
END;
CREATE EVENT moved ON SCHEDULE EVERY 1 DAY DO UPDATE jobs SET state = 'y';
ALTER EVENT moved RENAME TO gone;
DROP EVENT gone;
`

// TestMySQLAlterEventNoted (issue 27): ALTER EVENT ... DO gives an event
// a new body, which vet notes as it notes a CREATE EVENT body (the same
// note), at the new body; a body an ALTER EVENT replaced is not noted,
// and RENAME TO carries the event's body to its new name. MariaDB is the
// oracle for what the ALTERs leave: after the schema runs there, the
// events noted are those whose definition writes the fenced table jobs.
func TestMySQLAlterEventNoted(t *testing.T) {
	db := testenv.MySQL(t, "")
	for _, st := range mysqlwrites.SplitStatements(alterEventSchema) {
		if _, err := db.Exec(st.Text); err != nil {
			t.Fatalf("MariaDB refuses %q: %v", st.Text, err)
		}
	}
	rows, err := db.Query("SELECT EVENT_NAME, EVENT_DEFINITION FROM information_schema.EVENTS WHERE EVENT_SCHEMA = DATABASE() ORDER BY EVENT_NAME")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var writers, all []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			t.Fatal(err)
		}
		all = append(all, name)
		if strings.Contains(def, "jobs") {
			writers = append(writers, name)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(all, " ") != "later renamed sweep tidy" || strings.Join(writers, " ") != "later renamed sweep" {
		t.Fatalf("MariaDB has events %q, writing jobs %q: the schema does not show what the test says", all, writers)
	}

	notes := eventNotes(t, alterEventSchema)
	var noted []string
	for _, n := range notes {
		noted = append(noted, strings.Fields(strings.SplitN(n, ": note: event ", 2)[1])[0])
	}
	slices.Sort(noted)
	if strings.Join(noted, " ") != strings.Join(writers, " ") {
		t.Fatalf("events noted %q, MariaDB's events writing jobs %q:\n%s", noted, writers, strings.Join(notes, "\n"))
	}
	want := map[string]string{
		"sweep":   "schema.sql:4:47: note: event sweep writes fenced table jobs (DELETE) on its schedule",
		"renamed": "schema.sql:11:1: note: event renamed writes fenced table jobs (UPDATE) on its schedule",
		"later":   "schema.sql:18:22: note: event later writes fenced table jobs (DELETE) on its schedule",
	}
	for _, n := range notes {
		name := strings.Fields(strings.SplitN(n, ": note: event ", 2)[1])[0]
		pos, w := strings.SplitN(want[name], ": note: ", 2)[0], strings.SplitN(want[name], ": note: ", 2)[1]
		if !strings.HasSuffix(strings.SplitN(n, ": note: ", 2)[0], pos) || !strings.Contains(n, w) {
			t.Errorf("note %q, want %q", n, want[name])
		}
	}

	// The note is the one a CREATE EVENT with the same body gets.
	created := eventNotes(t, strings.Replace(alterEventSchema, "CREATE EVENT sweep ON SCHEDULE EVERY 1 HOUR DO DELETE FROM logs;\nALTER EVENT sweep ON SCHEDULE EVERY 2 HOUR DO",
		"CREATE EVENT sweep ON SCHEDULE EVERY 2 HOUR DO", 1))
	of := func(notes []string, name string) string {
		for _, n := range notes {
			if strings.Contains(n, ": note: event "+name+" ") {
				return strings.SplitN(n, ": note: ", 2)[1]
			}
		}
		return ""
	}
	if a, c := of(notes, "sweep"), of(created, "sweep"); a == "" || a != c {
		t.Errorf("ALTER EVENT's note %q, CREATE EVENT's %q", a, c)
	}

	// An event renamed into the schema from elsewhere has a body
	// fencegen does not know: the query is refused, naming the statement.
	msg := mysqlGenerate(t, map[string]string{
		"schema.sql": alterEventSchema + "ALTER EVENT other.e RENAME TO e;\n",
		"q.sql":      "-- name: SetJob :exec\nUPDATE jobs SET state = ? WHERE id = ?;\n",
	})
	if !strings.HasSuffix(msg, "/q.sql:2:1: query SetJob runs against a schema with a statement fencegen could not read (ALTER EVENT other.e RENAME ..., which renames an event the schema does not create, whose body fencegen cannot read), which may define a view, trigger, routine or foreign key that writes a fenced table") {
		t.Errorf("generate with an event renamed from another database: %q, want the query refused naming the statement", msg)
	}
}

// eventNotes generates schema with one query writing jobs and returns
// vet's event notes.
func eventNotes(t *testing.T, schema string) []string {
	t.Helper()
	res := generateDir(t, map[string]string{
		"schema.sql":    schema,
		"q.sql":         "-- name: SetJob :exec\nUPDATE jobs SET state = ? WHERE id = ?;\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	})
	var notes []string
	for _, n := range res.Vet {
		if strings.Contains(n, ": note: event ") {
			notes = append(notes, n)
		}
	}
	return notes
}
