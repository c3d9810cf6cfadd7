package gen_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestMySQLStarQuotesAsSqlc (issue 27 trial t27 F3): an expanded star
// quotes exactly the names sqlc v1.31.1 quotes, those in its MySQL
// reserved-word list (its dolphin IsReservedKeyword, used by the
// compiler's quoteIdent): system, cube, function, empty, json_table and
// the others it lists are written `name`. Before, fencegen quoted by the
// TiDB parser's list: the text differed from sqlc's, and SELECT id,
// system, ... is a syntax error on MySQL 8. The file is compared with
// sqlc's, text for text, below the header. Words the TiDB parser
// reserves and sqlc's list lacks (array, intersect, until, ilike) sqlc
// writes unquoted and then refuses its own text; fencegen quotes them,
// and MariaDB prepares the statement.
func TestMySQLStarQuotesAsSqlc(t *testing.T) {
	cols := []string{"system", "cube", "function", "empty", "json_table", "each", "loop", "return", "schema", "signal",
		"dec", "get", "grouping", "separator", "reads", "purge", "order", "rank", "rows", "plain"}
	var defs []string
	for _, c := range cols {
		defs = append(defs, "`"+c+"` INT")
	}
	schema := "CREATE TABLE kw (id BIGINT PRIMARY KEY, " + strings.Join(defs, ", ") + ");\n" +
		"CREATE TABLE `signal` (id BIGINT PRIMARY KEY, `each` INT NOT NULL);\n"
	queries := `-- name: All :many
SELECT * FROM kw;

-- name: Qualified :many
SELECT s.*, kw.* FROM ` + "`signal`" + ` s JOIN kw ON kw.id = s.id;

-- name: Returning :many
SELECT ` + "`signal`" + `.* FROM ` + "`signal`" + `;
`
	got, want, _ := sqlcBodyOf(t, "mysql", schema, queries)
	if got != want {
		t.Errorf("q.sql.go differs from sqlc's below the header:\n--- fencegen\n%s\n--- sqlc\n%s", got, want)
	}
	if !strings.Contains(got, "`system`") {
		t.Errorf("no quoted system in the expansion:\n%s", got)
	}

	r := sqlcAndFencegen(t, map[string]string{
		"schema.sql": "CREATE TABLE tk (id BIGINT PRIMARY KEY, `array` INT, `intersect` INT, `until` INT, `ilike` INT, n INT);\n",
		"q.sql":      "-- name: AllTK :many\nSELECT * FROM tk;\n",
		"sqlc.yaml":  "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}, "sqlc.yaml")
	if r.sqlcErr == nil || !strings.Contains(string(r.sqlcOut), "edited query syntax is invalid") {
		t.Errorf("sqlc v1.31.1 generated SELECT * over array, intersect, until, ilike (%v):\n%s", r.sqlcErr, r.sqlcOut)
	}
	if r.cfgErr != nil || r.err != nil {
		t.Fatalf("fencegen: %v %v", r.cfgErr, r.err)
	}
	src := string(r.out.Files["out/q.sql.go"])
	for _, c := range []string{"array", "intersect", "until", "ilike"} {
		if !strings.Contains(src, "`"+c+"`") {
			t.Errorf("%s not quoted:\n%s", c, src)
		}
	}
	db := testenv.MySQL(t, "", "CREATE TABLE tk (id BIGINT PRIMARY KEY, `array` INT, `intersect` INT, `until` INT, `ilike` INT, n INT)")
	m := regexp.MustCompile("(?s)const allTK = `-- name: AllTK :many\n(.*?)\n`").FindStringSubmatch(src)
	if m == nil {
		t.Fatalf("no allTK constant:\n%s", src)
	}
	text := strings.ReplaceAll(m[1], "` + \"`\" + `", "`")
	if _, err := db.Exec(text); err != nil {
		t.Errorf("MariaDB refuses %q: %v", text, err)
	}
}
