package gen_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// TestMySQLWritesRefusedAtTheTable: on engine mysql, a query that writes
// a fenced table through a view, a foreign-key action, a procedure or a
// trigger, or with REPLACE, a multi-table UPDATE or :copyfrom, is refused at the
// name of the table (or routine) it writes through, every one in the
// same run; a SELECT of the fenced table is not.
func TestMySQLWritesRefusedAtTheTable(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"schema.sql": `CREATE TABLE accounts (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL COMMENT 'fencegen:token', balance INT NOT NULL);
CREATE TABLE owners (id BIGINT PRIMARY KEY);
CREATE TABLE holds (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL COMMENT 'fencegen:token', owner_id BIGINT,
  FOREIGN KEY (owner_id) REFERENCES owners (id) ON DELETE CASCADE);
CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT);
CREATE VIEW rich AS SELECT id, balance FROM accounts;
CREATE PROCEDURE pay(a BIGINT) UPDATE accounts SET balance = balance - 1 WHERE id = a;
`,
		"q.sql": `-- name: GetAccount :one
SELECT * FROM accounts WHERE id = ?;

-- name: Pay :exec
CALL pay(?);

-- name: UpdateRich :exec
UPDATE rich SET balance = ? WHERE id = ?;

-- name: ReplaceAccount :exec
REPLACE INTO accounts (id, fence, balance) VALUES (?, ?, ?);

-- name: DeleteOwner :exec
DELETE FROM owners WHERE id = ?;

-- name: Multi :exec
UPDATE notes n JOIN accounts a ON a.id = n.id SET a.balance = 0 WHERE n.id = ?;

-- name: Note :exec
UPDATE notes SET body = ? WHERE id = ?;

-- name: CopyAccounts :copyfrom
INSERT INTO accounts (id, balance) VALUES (?, ?);
`,
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	cfg := mysqlConfig(t, dir, files, "fencegen.yaml")
	_, err := gen.Generate(context.Background(), cfg)
	if err == nil {
		t.Fatal("generated the writes that reach fenced tables")
	}
	msg := err.Error()
	for _, want := range []string{
		"q.sql:5:6: query Pay writes fenced table accounts through procedure pay",
		"q.sql:8:8: query UpdateRich writes fenced table accounts through view rich",
		"q.sql:11:14: query ReplaceAccount runs REPLACE INTO fenced table accounts",
		"q.sql:14:13: query DeleteOwner writes fenced table holds through foreign key of holds to owners ON DELETE CASCADE",
		"q.sql:17:21: query Multi writes fenced table accounts in a multi-table UPDATE",
		"q.sql:23:13: query CopyAccounts loads rows into fenced table accounts with :copyfrom",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
	for _, line := range strings.Split(msg, "\n") {
		if strings.Contains(line, "GetAccount") || strings.Contains(line, "query Note ") {
			t.Errorf("refused a query that writes no fenced table: %s", line)
		}
	}
}

// TestMySQLFencedDocs: the doc comment of each guarded MySQL form says
// what it returns (an INSERT no StaleError or NotFoundError, an UPDATE by
// key its ConcurrentChangeError), and a guarded :execresult's sql.Result
// is fenceimpl.MySQLResult: LastInsertId the driver's for an upsert, an
// error for a write by key. The fencegen_guard.sql header names
// clientFoundRows=true.
func TestMySQLFencedDocs(t *testing.T) {
	files := map[string]string{
		"schema.sql": "CREATE TABLE authors (id BIGINT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(40) NOT NULL UNIQUE, bio TEXT, fence_token BIGINT NOT NULL DEFAULT 0);\n",
		"q.sql": `/* name: CreateAuthor :execresult */
INSERT INTO authors (name, bio) VALUES (?, ?);

/* name: UpdateBio :execresult */
UPDATE authors SET bio = ? WHERE id = ?;

/* name: UpsertAuthor :execresult */
INSERT INTO authors (name, bio) VALUES (?, ?) ON DUPLICATE KEY UPDATE bio = VALUES(bio);
`,
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\nfence:\n  tables:\n    - {table: authors, column: fence_token}\n",
	}
	out := generateDir(t, files)
	code := string(out.Files["out/q.sql.go"])
	if code == "" {
		t.Fatalf("no out/q.sql.go in %v", out.Files)
	}
	// doc returns the doc comment of method name, joined into one line.
	doc := func(name string) string {
		i := strings.Index(code, "\nfunc (q *Queries) "+name+"(")
		if i < 0 {
			t.Fatalf("no method %s in:\n%s", name, code)
		}
		lines := strings.Split(code[:i], "\n")
		var d []string
		for j := len(lines) - 1; j >= 0 && strings.HasPrefix(lines[j], "// "); j-- {
			d = append([]string{strings.TrimPrefix(lines[j], "// ")}, d...)
		}
		return strings.Join(d, " ")
	}
	create, update, upsert := doc("CreateAuthor"), doc("UpdateBio"), doc("UpsertAuthor")
	for _, c := range []struct {
		name, doc string
		want, not []string
	}{
		{"CreateAuthor", create, []string{"stores token in authors.fence_token", "the driver's result and error"}, []string{"StaleError", "NotFoundError", "matched"}},
		{"UpdateBio", update, []string{"*fence.StaleError", "*fence.NotFoundError", "*fence.ConcurrentChangeError", "locked read", "LastInsertId returns an error"}, nil},
		{"UpsertAuthor", upsert, []string{"ON DUPLICATE KEY UPDATE", "*fence.StaleError", "LastInsertId is the driver's"}, []string{"NotFoundError"}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.doc, w) {
				t.Errorf("%s's doc lacks %q: %s", c.name, w, c.doc)
			}
		}
		for _, w := range c.not {
			if strings.Contains(c.doc, w) {
				t.Errorf("%s's doc says %q: %s", c.name, w, c.doc)
			}
		}
	}
	for _, want := range []string{"fenceimpl.MySQLResult(n, nil)", "fenceimpl.MySQLResult(n, result)"} {
		if !strings.Contains(code, want) {
			t.Errorf("generated code lacks %s:\n%s", want, code)
		}
	}
	if strings.Contains(code, "fenceimpl.Result(") {
		t.Errorf("a guarded MySQL :execresult uses the PostgreSQL result:\n%s", code)
	}
	if g := string(out.Files["out/fencegen_guard.sql"]); !strings.Contains(g, "clientFoundRows=true") {
		t.Errorf("fencegen_guard.sql's header does not name clientFoundRows=true:\n%s", g)
	}
}

// TestMySQLLenientWritesRefused: on engine mysql, an INSERT, UPDATE or
// DELETE of a fenced table with IGNORE (which turns the guard's refusal,
// an error, into a warning) or DELAYED is refused at the table's name,
// every one in the same run, by key, several rows and upsert alike; the
// modifiers that change only when the write runs (LOW_PRIORITY,
// HIGH_PRIORITY, QUICK) are guarded as without them, and IGNORE on a
// table that is not fenced is sqlc's. IGNORE in an executable comment
// (/*!IGNORE*/, which MySQL and MariaDB run) is IGNORE.
func TestMySQLLenientWritesRefused(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"schema.sql": `CREATE TABLE jobs (id BIGINT PRIMARY KEY, status VARCHAR(20), n INT, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT);
`,
		"q.sql": `-- name: Upsert :exec
INSERT IGNORE INTO jobs (id, status) VALUES (?, ?) ON DUPLICATE KEY UPDATE status = VALUES(status);

-- name: Insert :exec
INSERT IGNORE INTO jobs (id, status) VALUES (?, ?);

-- name: SetStatus :exec
UPDATE IGNORE jobs SET status = ? WHERE id = ?;

-- name: SetAll :exec
UPDATE IGNORE jobs SET n = n + 1 WHERE status = ?;

-- name: DeleteAll :exec
DELETE LOW_PRIORITY QUICK IGNORE FROM jobs WHERE status = ?;

-- name: Later :exec
INSERT DELAYED INTO jobs (id, status) VALUES (?, ?);

-- name: Low :exec
UPDATE LOW_PRIORITY jobs SET n = n + 1 WHERE status = ?;

-- name: Quick :exec
DELETE QUICK FROM jobs WHERE id = ?;

-- name: High :exec
INSERT HIGH_PRIORITY INTO jobs (id, status) VALUES (?, ?);

-- name: Note :exec
INSERT IGNORE INTO notes (id, body) VALUES (?, ?);

-- name: Hidden :exec
UPDATE /*!IGNORE*/ jobs SET n = n + 1 WHERE status = ?;
`,
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	cfg := mysqlConfig(t, dir, files, "fencegen.yaml")
	_, err := gen.Generate(context.Background(), cfg)
	if err == nil {
		t.Fatal("generated writes with IGNORE of a fenced table")
	}
	msg := err.Error()
	for _, want := range []string{
		"q.sql:2:20: query Upsert runs INSERT IGNORE on fenced table jobs: IGNORE turns the guard's refusal (an error) into a warning",
		"q.sql:5:20: query Insert runs INSERT IGNORE on fenced table jobs",
		"q.sql:8:15: query SetStatus runs UPDATE IGNORE on fenced table jobs",
		"q.sql:11:15: query SetAll runs UPDATE IGNORE on fenced table jobs",
		"q.sql:14:39: query DeleteAll runs DELETE IGNORE on fenced table jobs",
		"q.sql:17:21: query Later runs INSERT DELAYED on fenced table jobs",
		"q.sql:32:20: query Hidden runs UPDATE IGNORE on fenced table jobs",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
	for _, line := range strings.Split(msg, "\n") {
		for _, ok := range []string{"query Low ", "query Quick ", "query High ", "query Note "} {
			if strings.Contains(line, ok) {
				t.Errorf("refused a write whose modifier keeps its errors: %s", line)
			}
		}
	}
}

// TestMySQLRewriteKeepsTheQuery: on engine mysql, the guarded text is the
// query's own with the guard spliced in, so CHAR(65) and INSERT(...),
// which the TiDB parser would write back as CHAR_FUNC and INSERT_FUNC,
// are guarded as written; refused at the statement, every one in the same
// run: a string with a backslash (read otherwise under sql_mode
// NO_BACKSLASH_ESCAPES), LAST_INSERT_ID in an UPDATE (its guard sets it)
// and PARTITION (...) (the guard's read is not limited to it). The write
// oracle is gen/internal/guard/mysqlguard's
// TestGuardedWriteIsTheWriteOnMariaDB.
func TestMySQLRewriteKeepsTheQuery(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"schema.sql": "CREATE TABLE jobs (id BIGINT PRIMARY KEY, state VARCHAR(50), n INT, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n",
		"q.sql": `-- name: Path :exec
UPDATE jobs SET state = 'C:\\tmp' WHERE id = ?;

-- name: Match :exec
DELETE FROM jobs WHERE id = ? AND state = 'a\\nb';

-- name: Nul :exec
UPDATE jobs SET state = '\0' WHERE id = ?;

-- name: Char :exec
UPDATE jobs SET state = CHAR(65) WHERE id = ?;

-- name: Ins :exec
UPDATE jobs SET state = INSERT(state, 1, 1, 'x') WHERE id = ?;

-- name: LastID :exec
UPDATE jobs SET n = LAST_INSERT_ID() WHERE id = ?;

-- name: Part :exec
UPDATE jobs PARTITION (p0) SET n = 9 WHERE id = ?;

-- name: Plain :exec
UPDATE jobs SET state = 'it''s' WHERE id = ?;
`,
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	cfg := mysqlConfig(t, dir, files, "fencegen.yaml")
	_, err := gen.Generate(context.Background(), cfg)
	if err == nil {
		t.Fatal("generated writes the guard re-renders as other statements")
	}
	msg := err.Error()
	for _, want := range []string{
		// A backslash in a string of a fenced write is refused first at
		// the string, as a statement sql_mode NO_BACKSLASH_ESCAPES reads
		// otherwise (mysqlwrites.checkModes); the guard's own check of
		// its literals is TestRewriteKeepsTheUsersText's (mysqlguard).
		`q.sql:2:25: query Path reads differently under sql_mode NO_BACKSLASH_ESCAPES`,
		`q.sql:5:43: query Match reads differently under sql_mode NO_BACKSLASH_ESCAPES`,
		`q.sql:8:25: query Nul reads differently under sql_mode NO_BACKSLASH_ESCAPES`,
		`q.sql:17:1: query LastID: cannot add the fencing guard: LAST_INSERT_ID in a write to fenced table jobs is not guarded on MySQL`,
		`q.sql:20:1: query Part: cannot add the fencing guard: PARTITION (...) in a write to fenced table jobs is not guarded on MySQL`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not hold %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "Plain") || strings.Contains(msg, "query Char") || strings.Contains(msg, "query Ins") {
		t.Errorf("refused a write it keeps as written:\n%s", msg)
	}
}
