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

// TestMySQLLastInsertIDReadFormsNoted (issue 27, trial r27 N2): every
// read of the session's LAST_INSERT_ID() is noted, as LAST_INSERT_ID(),
// @@identity and @@last_insert_id (any scope spelling) all return it,
// and so is a read in another sql entry of the same database, whose
// package may run on the connection after the guarded write of the
// entry that has one. MariaDB shows the three reads return the token a
// guarded UPDATE presented, and that a guarded upsert leaves the value
// as the last INSERT set it (a package with upserts only gets no note).
func TestMySQLLastInsertIDReadFormsNoted(t *testing.T) {
	schema := "CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance INT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n" +
		"CREATE TABLE logs (id BIGINT AUTO_INCREMENT PRIMARY KEY, msg TEXT NOT NULL);\n"
	upsert := "-- name: Up :exec\nINSERT INTO accounts (id, balance) VALUES (?, ?) ON DUPLICATE KEY UPDATE balance = VALUES(balance);\n\n"
	update := "-- name: Upd :exec\nUPDATE accounts SET balance = ? WHERE id = ?;\n\n"
	reads := "-- name: Ident :one\nSELECT @@identity AS a,\n  @@SESSION.last_insert_id AS b, LAST_INSERT_ID() AS c;\n"
	vet := func(files map[string]string) []string {
		files["schema.sql"] = schema
		var notes []string
		for _, n := range generateDir(t, files).Vet {
			if strings.Contains(n, "LAST_INSERT_ID()") {
				notes = append(notes, n)
			}
		}
		return notes
	}
	two := "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: a.sql, gen: {go: {package: a, out: a}}}\n" +
		"  - {engine: mysql, schema: schema.sql, queries: b.sql, gen: {go: {package: b, out: b}}}\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"one package", map[string]string{"a.sql": update + reads, "b.sql": "-- name: One :one\nSELECT 1;\n", "fencegen.yaml": two}, []string{
			"a.sql:5:8: note: query Ident reads @@identity, the session's LAST_INSERT_ID(), which the guarded writes of this package set to a fencing token (Upd, for one)",
			"a.sql:6:3: note: query Ident reads @@last_insert_id, the session's LAST_INSERT_ID(), which the guarded writes of this package set",
			"a.sql:6:34: note: query Ident reads LAST_INSERT_ID(), which the guarded writes of this package set",
		}},
		{"another entry", map[string]string{"a.sql": upsert + update, "b.sql": reads, "fencegen.yaml": two}, []string{
			"b.sql:2:8: note: query Ident reads @@identity, the session's LAST_INSERT_ID(), which the guarded writes of sql entry a, on the same database, set to a fencing token (Upd, for one)",
			"b.sql:3:3: note: query Ident reads @@last_insert_id, the session's LAST_INSERT_ID(), which the guarded writes of sql entry a, on the same database, set",
			"b.sql:3:34: note: query Ident reads LAST_INSERT_ID(), which the guarded writes of sql entry a, on the same database, set",
		}},
		{"upserts only", map[string]string{"a.sql": upsert, "b.sql": reads, "fencegen.yaml": two}, nil},
	} {
		notes := vet(c.files)
		if len(notes) != len(c.want) {
			t.Errorf("%s: notes %q, want %d", c.name, notes, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(notes[i], w) {
				t.Errorf("%s: note %q, want it to hold %q", c.name, notes[i], w)
			}
		}
	}

	out := generateDir(t, map[string]string{"schema.sql": schema, "a.sql": upsert + update, "b.sql": reads, "fencegen.yaml": two})
	src := string(out.Files["a/a.sql.go"])
	text := func(name string) string {
		m := regexp.MustCompile("(?s)const " + name + " = `-- name: [A-Za-z]+ :exec\\n(?:-- fencegen:[^\\n]*\\n)?(.*?)`").FindStringSubmatch(src)
		if m == nil {
			t.Fatalf("no %s:\n%s", name, src)
		}
		return m[1]
	}
	stmts := strings.Split(strings.TrimSpace(schema), ";\n")
	db := testenv.MySQL(t, "", stmts[0], strings.TrimSuffix(stmts[1], ";"), "INSERT INTO accounts VALUES (1, 0, 3)")
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if n := strings.Count(q, "?"); n != len(args) {
			t.Fatalf("%d parameters in %s", n, q)
		}
		if _, err := conn.ExecContext(t.Context(), q, args...); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string, want int64) {
		t.Helper()
		var a, b, c int64
		if err := conn.QueryRowContext(t.Context(), "SELECT @@identity, @@SESSION.last_insert_id, LAST_INSERT_ID()").Scan(&a, &b, &c); err != nil {
			t.Fatal(err)
		}
		if a != want || b != want || c != want {
			t.Errorf("%s: @@identity %d, @@last_insert_id %d, LAST_INSERT_ID() %d; want %d", when, a, b, c, want)
		}
	}
	exec("INSERT INTO logs (msg) VALUES ('x')")
	exec("INSERT INTO logs (msg) VALUES ('y')")
	check("after two inserts", 2)
	// (id, balance, token): the row exists, the upsert updates it.
	exec(text("up"), 1, 5, 9)
	var balance, tok int64
	if err := conn.QueryRowContext(t.Context(), "SELECT balance, tok FROM accounts WHERE id = 1").Scan(&balance, &tok); err != nil || balance != 5 || tok != 9 {
		t.Fatalf("the upsert left balance %d, token %d (%v); want 5, 9", balance, tok, err)
	}
	check("after the guarded upsert", 2)
	// SET balance = ?, tok = LAST_INSERT_ID(<token>) WHERE (id = ?) AND
	// <stored token> <= <token>.
	exec(text("upd"), 10, 11, 1, 11)
	check("after the guarded UPDATE", 11)
}
