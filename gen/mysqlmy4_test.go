package gen_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/fencegen/fencegen/internal/testenv"
)

const my4Tables = "CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL DEFAULT 0, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token') ENGINE=InnoDB;\n" +
	"CREATE TABLE plain (id BIGINT PRIMARY KEY, v BIGINT) ENGINE=InnoDB;\n"

// TestMySQLSchemaClientCharset (issue 27, trial-my4 F7): a schema
// statement that sets the client character set to one whose multi-byte
// characters may end in an ASCII byte, or to a value fencegen cannot
// read, is refused at the assignment; utf8mb4 and mysqldump's save and
// restore of the set through a user variable pass.
func TestMySQLSchemaClientCharset(t *testing.T) {
	q := "-- name: AddPlain :exec\nINSERT INTO plain (id, v) VALUES (?, ?);\n"
	for _, c := range []struct {
		set, want string
	}{
		{"SET NAMES gbk;\n", "schema.sql:3:5:"},
		{"SET NAMES 'big5' COLLATE big5_chinese_ci;\n", "schema.sql:3:5:"},
		{"/*!50003 SET character_set_client = gbk */ ;\n", "schema.sql:3:14:"},
		{"SET SESSION character_set_client = sjis;\n", "schema.sql:3:5:"},
		{"SET @@session.character_set_client = 'cp932';\n", "schema.sql:3:5:"},
		{"SET CHARACTER SET gb18030;\n", "schema.sql:3:5:"},
		{"SET character_set_client = @cs;\n", "schema.sql:3:5:"},
		{"SET NAMES utf8mb4;\n", ""},
		{"/*!40101 SET @saved_cs_client = @@character_set_client */;\n/*!40101 SET character_set_client = utf8 */;\n/*!40101 SET character_set_client = @saved_cs_client */;\n", ""},
		{"SET NAMES latin1;\nSET NAMES DEFAULT;\n", ""},
	} {
		msg := mysqlGenerate(t, map[string]string{"schema.sql": my4Tables + c.set + "CREATE TABLE later (id BIGINT PRIMARY KEY);\n", "q.sql": q})
		switch {
		case c.want == "" && msg != "":
			t.Errorf("%s: want no error, got:\n%s", c.set, msg)
		case c.want != "" && (!strings.Contains(msg, c.want) || !strings.Contains(msg, "client character set")):
			t.Errorf("%s: want an error at %s on the client character set, got:\n%s", c.set, c.want, msg)
		}
	}
}

// TestMySQLClientCharsetTriggerOnMariaDB (issue 27, trial-my4 F7a): a
// trigger created under SET NAMES gbk whose `中` back-quote hides an
// UPDATE of a fenced table from a UTF-8 reading. Applied to MariaDB as
// a migration tool sends it, INSERT INTO plain changes accounts (the
// escape is real); fencegen refuses the schema, at the SET and at the
// back-quote.
func TestMySQLClientCharsetTriggerOnMariaDB(t *testing.T) {
	trigger := "CREATE TRIGGER plain_ai AFTER INSERT ON plain FOR EACH ROW BEGIN SET @a = (SELECT 1 AS `中`); /* `); UPDATE accounts SET balance = 0 WHERE id = NEW.id; /* */ END"
	schema := my4Tables + "SET NAMES gbk;\nDELIMITER //\n" + trigger + "//\nDELIMITER ;\nSET NAMES utf8mb4;\n"
	msg := mysqlGenerate(t, map[string]string{"schema.sql": schema, "q.sql": "-- name: AddPlain :exec\nINSERT INTO plain (id, v) VALUES (?, ?);\n"})
	for _, want := range []string{"schema.sql:3:5:", "schema.sql:5:", "client character set"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	dsn := testenv.NewMySQLDatabase(t, "")
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, st := range append(strings.Split(strings.TrimSpace(my4Tables), ";\n"),
		"INSERT INTO accounts VALUES (1, 500, 5)", "SET NAMES gbk", trigger, "SET NAMES utf8mb4", "INSERT INTO plain VALUES (1, 1)") {
		if _, err := conn.ExecContext(ctx, strings.TrimSuffix(st, ";")); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	var balance int64
	if err := conn.QueryRowContext(ctx, "SELECT balance FROM accounts WHERE id = 1").Scan(&balance); err != nil {
		t.Fatal(err)
	}
	if balance != 0 {
		t.Errorf("MariaDB: the trigger created under gbk left balance %d, want 0 (the hidden UPDATE ran): the oracle does not show the escape", balance)
	}
}

// TestMySQLCarriageReturnInQuery (issue 27, trial-my4 F8): a carriage
// return that the generated Go raw string drops and whose removal
// changes the query's tokens is refused at it, in a fenced write (*<CR>/
// would end the comment before OR 1=1), in a read, in a back-quoted name
// and before M!; a query file with CRLF line ends (and a CR inside a
// multi-line comment) is generated.
func TestMySQLCarriageReturnInQuery(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{"-- name: SetBalance :exec\nUPDATE accounts SET balance = ? WHERE id = ? /* *\r/ OR 1=1 /* */\n;\n", "q.sql:2:50:"},
		{"-- name: Probe :exec\nSELECT 1 /* *\r/ , 2 /* */\n;\n", "q.sql:2:14:"},
		{"-- name: Zero :exec\nUPDATE `acc\rounts` SET balance = 0 WHERE id = ?;\n", "q.sql:2:12:"},
		{"-- name: CrComment :exec\nUPDATE plain p /*\rM! , accounts a */ SET p.v = 1 WHERE p.id = ?;\n", "q.sql:2:18:"},
		{"-- name: SetBalance :exec\r\nUPDATE accounts /* one\r\n two */ SET balance = ?\r\nWHERE id = ?;\r\n-- name: Get :one\r\nSELECT balance FROM accounts\r\nWHERE id = ?;\r\n", ""},
	} {
		msg := mysqlGenerate(t, map[string]string{"schema.sql": my4Tables, "q.sql": c.q})
		switch {
		case c.want == "" && msg != "":
			t.Errorf("%q: want no error, got:\n%s", c.q, msg)
		case c.want != "" && (!strings.Contains(msg, c.want) || !strings.Contains(msg, "carriage return")):
			t.Errorf("%q: want an error at %s on the carriage return, got:\n%s", c.q, c.want, msg)
		}
	}
}

// TestMySQLSchemaDefaultEngineOnMariaDB (issue 27, trial-my4 F6): a
// schema's own SET default_storage_engine (SESSION, GLOBAL, @@, in a
// version comment; storage_engine) is honoured like ENGINE= on the
// table: an UPDATE of several rows of a fenced table it leaves on an
// engine other than InnoDB is refused, as the all-or-nothing guard is
// InnoDB's. MariaDB is the oracle: each session-level schema is applied
// and the engine it gives the table read from information_schema; the
// query is refused exactly when that engine is not InnoDB.
func TestMySQLSchemaDefaultEngineOnMariaDB(t *testing.T) {
	const create = "CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL DEFAULT 0, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n"
	q := "-- name: SetAll :execrows\nUPDATE accounts SET balance = ? WHERE balance >= 0;\n"
	refused := func(sets string) bool {
		msg := mysqlGenerate(t, map[string]string{"schema.sql": sets + create, "q.sql": q})
		if msg != "" && !strings.Contains(msg, "q.sql:2:") {
			t.Errorf("%s: want a refusal at q.sql:2 or none, got:\n%s", sets, msg)
		}
		return msg != ""
	}
	// GLOBAL would change the shared server's other sessions: fencegen
	// only.
	for _, c := range []struct {
		sets string
		want bool
	}{
		{"SET GLOBAL default_storage_engine = MyISAM;\n", true},
		{"SET @@global.default_storage_engine = Aria;\nSET default_storage_engine = DEFAULT;\n", true},
		{"SET GLOBAL default_storage_engine = InnoDB;\n", false},
		{"SET default_storage_engine = @e;\n", true},
	} {
		if got := refused(c.sets); got != c.want {
			t.Errorf("%s: refused %v, want %v", c.sets, got, c.want)
		}
	}
	sessions := []string{
		"SET default_storage_engine=MyISAM;\n",
		"SET SESSION default_storage_engine = 'MyISAM';\n",
		"SET @@session.default_storage_engine = Aria;\n",
		"/*!40101 SET default_storage_engine = MEMORY */;\n",
		"SET default_storage_engine = MyISAM;\nSET default_storage_engine = DEFAULT;\n",
		"SET default_storage_engine = MyISAM;\nSET default_storage_engine = InnoDB;\n",
		"",
	}
	dsn := testenv.NewMySQLDatabase(t, "")
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	nonInnoDB := 0
	for _, sets := range sessions {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range append(strings.Split(sets, ";\n"), "DROP TABLE IF EXISTS accounts", create) {
			if st = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(st), ";")); st == "" {
				continue
			}
			if _, err := conn.ExecContext(ctx, st); err != nil {
				t.Fatalf("%s: %v", st, err)
			}
		}
		var engine string
		if err := conn.QueryRowContext(ctx, "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'accounts'").Scan(&engine); err != nil {
			t.Fatal(err)
		}
		conn.Close()
		onInnoDB := strings.EqualFold(engine, "InnoDB")
		if !onInnoDB {
			nonInnoDB++
		}
		if got := refused(sets); got != !onInnoDB {
			t.Errorf("%q: MariaDB puts accounts on %s; fencegen refused the UPDATE of several rows: %v", sets, engine, got)
		}
	}
	if nonInnoDB < 3 {
		t.Errorf("MariaDB put accounts on another engine than InnoDB for only %d schemas: the oracle tests little", nonInnoDB)
	}
}

// TestMySQLDeleteHistoryOnMariaDB (issue 27, trial-my4 F3): MariaDB reads
// DELETE HISTORY FROM t as deleting t's history rows (on a table without
// system versioning it refuses it with error 4124, not 1109 for an
// unknown table history), while the parser reads a multi-table DELETE of
// a table history: a DELETE target naming no table of the FROM list
// counts as a DELETE of each of them, so it is refused on a fenced table
// and generated on another.
func TestMySQLDeleteHistoryOnMariaDB(t *testing.T) {
	msg := mysqlGenerate(t, map[string]string{"schema.sql": my4Tables, "q.sql": "-- name: Purge :exec\nDELETE HISTORY FROM accounts;\n"})
	if !strings.Contains(msg, "q.sql:2:21:") || !strings.Contains(msg, "accounts") {
		t.Errorf("DELETE HISTORY FROM accounts: want a refusal at q.sql:2:21, got:\n%s", msg)
	}
	if msg := mysqlGenerate(t, map[string]string{"schema.sql": my4Tables, "q.sql": "-- name: Purge :exec\nDELETE HISTORY FROM plain;\n"}); msg != "" {
		t.Errorf("DELETE HISTORY FROM plain (not fenced): want it generated, got:\n%s", msg)
	}
	dsn := testenv.NewMySQLDatabase(t, "")
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, strings.TrimSuffix(strings.SplitN(my4Tables, "\n", 2)[0], ";")); err != nil {
		t.Fatal(err)
	}
	_, err = db.ExecContext(ctx, "DELETE HISTORY FROM accounts")
	if err == nil || !strings.Contains(err.Error(), "4124") {
		t.Errorf("MariaDB: DELETE HISTORY FROM accounts = %v, want error 4124 (not system-versioned): it does not read it as DELETE HISTORY", err)
	}
}

// TestMySQLLowerCaseMCommentOnMariaDB (issue 27, trial-my4 F2): MariaDB
// runs the text of /*M! ... */ and reads /*m! ... */ as a plain comment;
// fencegen refuses the first and accepts the second.
func TestMySQLLowerCaseMCommentOnMariaDB(t *testing.T) {
	conn := func() *sql.DB {
		db, err := sql.Open("mysql", testenv.NewMySQLDatabase(t, ""))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}()
	for _, c := range []struct {
		comment string
		runs    bool
	}{{"/*M! , 2 */", true}, {"/*m! , 2 */", false}, {"/*M!100000 , 2 */", true}, {"/*m!100000 , 2 */", false}} {
		q := "SELECT 1 " + c.comment
		rows, err := conn.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		rows.Close()
		if got := len(cols) == 2; got != c.runs {
			t.Errorf("MariaDB: %s ran the comment's text: %v, want %v", q, got, c.runs)
		}
		msg := mysqlGenerate(t, map[string]string{"schema.sql": my4Tables, "q.sql": "-- name: Q :many\n" + q + ";\n"})
		if refused := strings.Contains(msg, "executable comment"); refused != c.runs {
			t.Errorf("%s: refused %v (MariaDB runs its text: %v):\n%s", q, refused, c.runs, msg)
		}
	}
}
