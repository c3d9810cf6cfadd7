package gen_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestMySQLDecimalKeyStringParamOnMariaDB (issue 27): sqlc types a
// DECIMAL column's parameter string, and MySQL 8 compares a string with a
// DECIMAL as floating-point numbers (with interpolateParams=true, or a
// prepared statement's parameter that keeps the string's type), where
// MariaDB compares them as decimals. A DECIMAL key of more digits than a
// double keeps (DECIMAL(30,0)) may then have two rows equal to one
// parameter, so its write by such a parameter is all or nothing, not by
// key (whose guard, row by row, would write one and skip the other's
// newer token); a DECIMAL(10,2) key, whose values stay distinct as
// doubles, and an override sending the key as int64 (compared exactly)
// stay by key. On MariaDB, with keys 12345678901234567890123 (token 9)
// and ...124 (token 5): the all-or-nothing UPDATE and DELETE, sent the
// key as a double (which MariaDB compares as MySQL 8 compares the
// string), fail with token 7 and change no row; sent the string, they
// write the one row. (The server's table has no index on id, so that
// every row is compared; an index lookup converts the value to the
// key's type first, unless the conversion loses digits.)
func TestMySQLDecimalKeyStringParamOnMariaDB(t *testing.T) {
	schema := "CREATE TABLE big (id DECIMAL(30,0) PRIMARY KEY, n INT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n" +
		"CREATE TABLE small (code DECIMAL(10,2) PRIMARY KEY, n INT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n"
	queries := "-- name: UpdBig :exec\nUPDATE big SET n = ? WHERE id = ?;\n\n-- name: DelBig :exec\nDELETE FROM big WHERE id = ?;\n\n" +
		"-- name: UpdSmall :exec\nUPDATE small SET n = ? WHERE code = ?;\n"
	gen := func(overrides string) string {
		res := generateDir(t, map[string]string{
			"schema.sql":    schema,
			"q.sql":         queries,
			"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, overrides: [" + overrides + "]}}}\n",
		})
		return string(res.Files["out/q.sql.go"])
	}
	form := func(src, name string) string {
		m := regexp.MustCompile("(?s)const " + lowerFirstASCII(name) + " = `-- name: " + name + " :exec\\n-- fencegen: guarded,? (by key|all or nothing)").FindStringSubmatch(src)
		if m == nil {
			t.Fatalf("no guarded const for %s:\n%s", name, src)
		}
		return m[1]
	}
	src := gen("")
	for name, want := range map[string]string{"UpdBig": "all or nothing", "DelBig": "all or nothing", "UpdSmall": "by key"} {
		if got := form(src, name); got != want {
			t.Errorf("%s is guarded %s, want %s", name, got, want)
		}
	}
	if got := form(gen(`{column: "big.id", go_type: "int64"}`), "UpdBig"); got != "by key" {
		t.Errorf("UpdBig with the key sent as int64 is guarded %s, want by key", got)
	}

	// The server's table has no index on id, so that each row is
	// compared with the parameter (by its primary key, the server looks
	// the value up converted to the key's type, and compares after).
	stmts := strings.Split(strings.TrimSpace(schema), ";\n")
	db := testenv.MySQL(t, "", strings.Replace(stmts[0], "PRIMARY KEY", "NOT NULL", 1), strings.TrimSuffix(stmts[1], ";"))
	var both int
	for _, name := range []string{"UpdBig", "DelBig"} {
		text := regexp.MustCompile("(?s)const " + lowerFirstASCII(name) + " = `-- name: " + name + " :exec\\n(.*?)`").FindStringSubmatch(src)[1]
		call := regexp.MustCompile("(?s)ExecContext\\(ctx, " + lowerFirstASCII(name) + ",(.*?)\\)\\n?\\s*\\}, func").FindStringSubmatch(src)
		if call == nil {
			t.Fatalf("no ExecContext call for %s:\n%s", name, src)
		}
		args := func(key any) []any {
			var out []any
			for _, a := range strings.Split(call[1], ",") {
				switch a = strings.TrimSpace(a); a {
				case "":
				case "arg.N":
					out = append(out, 42)
				case "arg.ID", "id":
					out = append(out, key)
				case "int64(token)":
					out = append(out, 7)
				default:
					t.Fatalf("%s: unexpected argument %q", name, a)
				}
			}
			return out
		}
		reset := func() {
			for _, s := range []string{"DELETE FROM big", "INSERT INTO big VALUES (12345678901234567890123, 1, 9), (12345678901234567890124, 1, 5)"} {
				if _, err := db.Exec(s); err != nil {
					t.Fatal(err)
				}
			}
		}
		rows := func() string {
			var got string
			if err := db.QueryRow("SELECT GROUP_CONCAT(CONCAT(id, ':', n, ':', tok) ORDER BY id) FROM big").Scan(&got); err != nil {
				t.Fatal(err)
			}
			return got
		}
		reset()
		// Both keys equal the double: MySQL 8's reading of the string.
		if err := db.QueryRow("SELECT COUNT(*) FROM big WHERE id = ?", 12345678901234567890124.0).Scan(&both); err != nil || both != 2 {
			t.Fatalf("rows equal to the key as a double: %d (%v), want 2", both, err)
		}
		if _, err := db.Exec(text, args(12345678901234567890124.0)...); err == nil {
			t.Errorf("%s with the key as a double and token 7 succeeded over the stored token 9 of the other row", name)
		}
		if got, want := rows(), "12345678901234567890123:1:9,12345678901234567890124:1:5"; got != want {
			t.Errorf("%s refused changed the rows: %s, want %s", name, got, want)
		}
		if _, err := db.Exec(text, args("12345678901234567890124")...); err != nil {
			t.Errorf("%s with the key as sqlc's string and token 7: %v", name, err)
		}
		want := map[string]string{"UpdBig": "12345678901234567890123:1:9,12345678901234567890124:42:7", "DelBig": "12345678901234567890123:1:9"}[name]
		if got := rows(); got != want {
			t.Errorf("%s wrote rows %s, want %s", name, got, want)
		}
	}
}
