package gen_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestMySQLKeyOfAnotherTypeAllOrNothingOnMariaDB (issue 27 trial t27
// F1): a WHERE clause that pins a VARCHAR primary key with a number, a
// boolean or a float (code = 0, code = FALSE, code = 0e0), or an integer
// key with a string (id = '1'), is no key lookup: MySQL compares the two
// as floating-point numbers, and '0' and '00' both equal 0. Such a write
// takes the all-or-nothing form, not the by-key one (whose guard runs
// row by row, so it wrote '00', skipped the newer holder's '0' and
// returned nil). On MariaDB, with rows '0' (token 9) and '00' (token 5),
// each statement as generated, run with token 7, fails and leaves both
// rows as they were. Pinned by a parameter typed as the column, or by a
// literal of the column's class, the write stays by key.
func TestMySQLKeyOfAnotherTypeAllOrNothingOnMariaDB(t *testing.T) {
	schema := `CREATE TABLE codes (code VARCHAR(20) PRIMARY KEY, n INT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
CREATE TABLE nums (id BIGINT PRIMARY KEY, n INT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
`
	queries := `-- name: UpdZero :exec
UPDATE codes SET n = ? WHERE code = 0;

-- name: UpdTrue :exec
UPDATE codes SET n = ? WHERE code = FALSE;

-- name: UpdFloat :exec
UPDATE codes SET n = ? WHERE code = 0e0;

-- name: DelZero :exec
DELETE FROM codes WHERE code = 0;

-- name: UpdNumStr :exec
UPDATE nums SET n = ? WHERE id = '1';

-- name: UpdParam :exec
UPDATE codes SET n = ? WHERE code = ?;

-- name: UpdStr :exec
UPDATE codes SET n = ? WHERE code = '0';

-- name: UpdNum :exec
UPDATE nums SET n = ? WHERE id = 1;
`
	files := map[string]string{
		"schema.sql":    schema,
		"q.sql":         queries,
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	res := generateDir(t, files)
	src := string(res.Files["out/q.sql.go"])
	consts := map[string]string{}
	for _, m := range regexp.MustCompile("(?s)const \\w+ = `-- name: (\\w+) :exec\\n(.*?)`").FindAllStringSubmatch(src, -1) {
		consts[m[1]] = m[2]
	}
	for name, form := range map[string]string{
		"UpdZero": "all or nothing", "UpdTrue": "all or nothing", "UpdFloat": "all or nothing", "DelZero": "all or nothing",
		"UpdNumStr": "all or nothing", "UpdParam": "by key", "UpdStr": "by key", "UpdNum": "by key",
	} {
		if !strings.Contains(consts[name], "-- fencegen: guarded"+map[string]string{"by key": " ", "all or nothing": ", "}[form]+form) {
			t.Errorf("%s is not guarded %s:\n%s", name, form, consts[name])
		}
	}
	db := testenv.MySQL(t, "", strings.Split(strings.TrimSpace(schema), ";\n")[0], strings.Split(strings.TrimSpace(schema), ";\n")[1])
	for _, name := range []string{"UpdZero", "UpdTrue", "UpdFloat", "DelZero"} {
		for _, s := range []string{"DELETE FROM codes", "INSERT INTO codes VALUES ('0', 1, 9), ('00', 1, 5)"} {
			if _, err := db.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
		text := consts[name]
		var args []any
		if strings.HasPrefix(name, "Upd") {
			args = append(args, 42)
		}
		for len(args) < strings.Count(text, "?") {
			args = append(args, 7)
		}
		if _, err := db.Exec(text, args...); err == nil {
			t.Errorf("%s with token 7 succeeded over the stored token 9 of row '0'", name)
		}
		var got string
		if err := db.QueryRow("SELECT GROUP_CONCAT(CONCAT(code, ':', n, ':', tok) ORDER BY code) FROM codes").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != "0:1:9,00:1:5" {
			t.Errorf("%s changed the rows: %s, want 0:1:9,00:1:5", name, got)
		}
	}
}
