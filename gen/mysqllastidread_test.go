package gen_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestMySQLLastInsertIDReadNoted (issue 27 trial t27 F2): a guarded
// UPDATE or DELETE carries the tokens through LAST_INSERT_ID(expr), so
// on its connection the session's LAST_INSERT_ID() is then the token
// (shown on MariaDB: after an insert of id 1 and the guarded write with
// token 7 it reads 7). fencegen vet notes each LAST_INSERT_ID() a query
// of the package reads, at the call; a package without a guarded
// UPDATE or DELETE gets no such note.
func TestMySQLLastInsertIDReadNoted(t *testing.T) {
	schema := "CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance INT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n" +
		"CREATE TABLE logs (id BIGINT AUTO_INCREMENT PRIMARY KEY, msg TEXT NOT NULL);\n"
	reads := "-- name: InsLog :execlastid\nINSERT INTO logs (msg) VALUES (?);\n\n" +
		"-- name: LastID :one\nSELECT LAST_INSERT_ID() AS id;\n\n" +
		"-- name: Child :exec\nINSERT INTO logs (msg) VALUES (CONCAT('child of ', LAST_INSERT_ID()));\n"
	write := "-- name: UpdAcc :exec\nUPDATE accounts SET balance = ? WHERE id = ?;\n\n"
	gen := func(queries string) ([]string, string) {
		res := generateDir(t, map[string]string{
			"schema.sql":    schema,
			"q.sql":         queries,
			"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
		})
		var notes []string
		for _, n := range res.Vet {
			if strings.Contains(n, "LAST_INSERT_ID()") {
				notes = append(notes, n)
			}
		}
		return notes, string(res.Files["out/q.sql.go"])
	}
	notes, src := gen(write + reads)
	want := []*regexp.Regexp{
		regexp.MustCompile(`q\.sql:8:8: note: query LastID reads LAST_INSERT_ID\(\), which the guarded writes of this package set to a fencing token \(UpdAcc, for one\)`),
		regexp.MustCompile(`q\.sql:11:52: note: query Child reads LAST_INSERT_ID\(\)`),
	}
	if len(notes) != len(want) {
		t.Fatalf("notes %q, want %d", notes, len(want))
	}
	for i, re := range want {
		if !re.MatchString(notes[i]) {
			t.Errorf("note %q does not match %s", notes[i], re)
		}
	}
	if notes, _ := gen(reads); len(notes) != 0 {
		t.Errorf("notes without a guarded write: %q", notes)
	}

	m := regexp.MustCompile("(?s)const updAcc = `-- name: UpdAcc :exec\\n(.*?)`").FindStringSubmatch(src)
	if m == nil {
		t.Fatalf("no updAcc:\n%s", src)
	}
	db := testenv.MySQL(t, "", strings.Split(strings.TrimSpace(schema), ";\n")[0], strings.TrimSuffix(strings.Split(strings.TrimSpace(schema), ";\n")[1], ";"),
		"INSERT INTO accounts VALUES (1, 0, 3)")
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "INSERT INTO logs (msg) VALUES ('x')"); err != nil {
		t.Fatal(err)
	}
	// SET balance = ?, tok = LAST_INSERT_ID(<token>) WHERE (id = ?) AND
	// <stored token> <= <token>.
	args := []any{10, 7, 1, 7}
	if n := strings.Count(m[1], "?"); n != len(args) {
		t.Fatalf("%d parameters in %s", n, m[1])
	}
	if _, err := conn.ExecContext(t.Context(), m[1], args...); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := conn.QueryRowContext(t.Context(), "SELECT LAST_INSERT_ID()").Scan(&id); err != nil || id != 7 {
		t.Errorf("LAST_INSERT_ID() after the guarded write: %d (%v), docs/mysql.md says the token 7", id, err)
	}
}
