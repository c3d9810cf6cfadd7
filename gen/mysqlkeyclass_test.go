package gen_test

import (
	"database/sql"
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

	t.Run("override", func(t *testing.T) { keyOverrideAllOrNothing(t, db) })
}

// keyOverrideAllOrNothing (issue 27 trial r27 N4): a parameter typed as
// the VARCHAR key, whose Go type a sqlc override makes numeric (by
// column, codes.code: int64; by db_type, varchar: float64), is sent as a
// number, which MariaDB compares with the key as a floating-point number
// ('0' and '00' both equal 0): the write is all or nothing, and, run as
// generated with code 0 and token 7 over rows '0' (token 9) and '00'
// (token 5), fails and changes no row. Without an override, or with one
// to another string type, it stays by key.
func keyOverrideAllOrNothing(t *testing.T, db *sql.DB) {
	schema := "CREATE TABLE codes (code VARCHAR(20) PRIMARY KEY, n INT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n"
	queries := "-- name: UpdCode :exec\nUPDATE codes SET n = ? WHERE code = ?;\n\n-- name: DelCode :exec\nDELETE FROM codes WHERE code = ?;\n"
	for _, c := range []struct{ name, override, goType, form string }{
		{"column int64", `{column: "codes.code", go_type: "int64"}`, "int64", "all or nothing"},
		{"db_type float64", `{db_type: "varchar", go_type: "float64"}`, "float64", "all or nothing"},
		{"column string", `{column: "codes.code", go_type: "database/sql.NullString"}`, "sql.NullString", "by key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := generateDir(t, map[string]string{
				"schema.sql": schema,
				"q.sql":      queries,
				"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, overrides: [" +
					c.override + "]}}}\n",
			})
			src := string(res.Files["out/q.sql.go"])
			if !regexp.MustCompile(`(?m)^\s*Code\s+`+regexp.QuoteMeta(c.goType)+`\b`).MatchString(src) &&
				!strings.Contains(src, "code "+c.goType) {
				t.Fatalf("the override did not type the key parameter %s:\n%s", c.goType, src)
			}
			for _, name := range []string{"UpdCode", "DelCode"} {
				m := regexp.MustCompile("(?s)const " + lowerFirstASCII(name) + " = `-- name: " + name + " :exec\\n(.*?)`").FindStringSubmatch(src)
				if m == nil {
					t.Fatalf("no const for %s:\n%s", name, src)
				}
				text := m[1]
				if !strings.Contains(text, "-- fencegen: guarded"+map[string]string{"by key": " ", "all or nothing": ", "}[c.form]+c.form) {
					t.Errorf("%s is not guarded %s:\n%s", name, c.form, text)
				}
				if c.form != "all or nothing" {
					continue
				}
				call := regexp.MustCompile("(?s)ExecContext\\(ctx, " + lowerFirstASCII(name) + ",(.*?)\\)\\n?\\s*\\}, func").FindStringSubmatch(src)
				if call == nil {
					t.Fatalf("no ExecContext call for %s:\n%s", name, src)
				}
				var args []any
				for _, a := range strings.Split(call[1], ",") {
					switch a = strings.TrimSpace(a); a {
					case "":
					case "arg.N", "n":
						args = append(args, 42)
					case "arg.Code", "code":
						args = append(args, 0) // the override's number, as the driver sends it
					case "int64(token)":
						args = append(args, 7)
					default:
						t.Fatalf("%s: unexpected argument %q", name, a)
					}
				}
				for _, s := range []string{"DELETE FROM codes", "INSERT INTO codes VALUES ('0', 1, 9), ('00', 1, 5)"} {
					if _, err := db.Exec(s); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := db.Exec(text, args...); err == nil {
					t.Errorf("%s with code 0 and token 7 succeeded over the stored token 9 of row '0'", name)
				}
				var got string
				if err := db.QueryRow("SELECT GROUP_CONCAT(CONCAT(code, ':', n, ':', tok) ORDER BY code) FROM codes").Scan(&got); err != nil {
					t.Fatal(err)
				}
				if got != "0:1:9,00:1:5" {
					t.Errorf("%s changed the rows: %s, want 0:1:9,00:1:5", name, got)
				}
			}
		})
	}
}

// lowerFirstASCII is s with its first (ASCII) letter in lower case: a
// query's constant name.
func lowerFirstASCII(s string) string { return strings.ToLower(s[:1]) + s[1:] }
