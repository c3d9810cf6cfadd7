package gen_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestMySQLDumpSchemaGenerates (issue 27, trial t27s F5): a schema taken
// unchanged from mariadb-dump (tables, a trigger, a procedure, a view:
// --no-data --routines --triggers) generates, as sqlc generates it. The
// dump opens with /*M!999999\- enable the sandbox mode */, a command of
// the mysql client in a comment no server runs, which fencegen read as
// statement text: the next statement, the dump's save of the client
// character set (SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT),
// was not read as one, and the dump's closing restore from it was refused
// as a set fencegen cannot read. The fenced table's UPDATE by key is
// guarded by key; the trigger's table is read (its write is refused).
func TestMySQLDumpSchemaGenerates(t *testing.T) {
	dumpTool, err := exec.LookPath("mariadb-dump")
	if err != nil {
		testenv.UnavailableAt(t, "mariadb-dump", "PATH", "", err)
	}
	db := testenv.MySQL(t, "",
		"CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance DECIMAL(12,2) NOT NULL, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token')",
		"CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT)",
		"CREATE TABLE notes_log (id BIGINT AUTO_INCREMENT PRIMARY KEY, note BIGINT)",
		"CREATE TRIGGER notes_ai AFTER INSERT ON notes FOR EACH ROW INSERT INTO notes_log (note) VALUES (NEW.id)",
		"CREATE PROCEDURE clear_log() BEGIN DELETE FROM notes_log; END",
		"CREATE VIEW rich AS SELECT id, balance FROM accounts WHERE balance > 100",
	)
	var name string
	if err := db.QueryRow("SELECT DATABASE()").Scan(&name); err != nil {
		t.Fatal(err)
	}
	cfg, err := mysql.ParseDSN(testenv.MySQLURL())
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := strings.Cut(cfg.Addr, ":")
	args := []string{"--no-data", "--routines", "--triggers", "-h", host, "-u", cfg.User}
	if port != "" {
		args = append(args, "-P", port)
	}
	if cfg.Passwd != "" {
		args = append(args, "-p"+cfg.Passwd)
	}
	dump, err := exec.Command(dumpTool, append(args, name)...).Output()
	if err != nil {
		t.Fatalf("mariadb-dump: %v", err)
	}
	for _, want := range []string{"SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT", "SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT", "TRIGGER", "PROCEDURE", "VIEW"} {
		if !strings.Contains(string(dump), want) {
			t.Fatalf("the dump holds no %q:\n%s", want, dump)
		}
	}
	out, msg := mysqlGenerateOut(t, map[string]string{
		"schema.sql": string(dump),
		"q.sql": "-- name: Credit :exec\nUPDATE accounts SET balance = balance + ? WHERE id = ?;\n\n" +
			"-- name: Rich :many\nSELECT id, balance FROM rich;\n\n" +
			"-- name: AddNote :exec\nINSERT INTO notes (id, body) VALUES (?, ?);\n",
	})
	if out == nil {
		t.Fatalf("a mariadb-dump schema does not generate: %s\n%s", msg, dump)
	}
	var src string
	for n, b := range out.Files {
		if strings.HasSuffix(n, "q.sql.go") {
			src = string(b)
		}
	}
	if !strings.Contains(src, "guarded by key") || !strings.Contains(src, "func (q *Queries) AddNote(") {
		t.Errorf("q.sql.go: want Credit guarded by key and AddNote generated:\n%s", src)
	}
}
