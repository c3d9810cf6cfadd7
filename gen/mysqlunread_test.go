package gen_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestMySQLUnreadParamsAsSqlc (issues 23 and 27): sqlc v1.31.1's MySQL
// converter does not read some expressions and clauses (x REGEXP ?, NOT
// (x <=> ?), ? COLLATE c, (a, b) IN ((?, ?)), x = ANY (SELECT ...), a
// GROUP BY expression, OVER (...), GROUP_CONCAT(... ORDER BY ...), an
// UPDATE's ORDER BY, sqlc.arg in any of them), and its resolver drops an
// element of an IN list whose left side is no column (LOWER(name) IN (?,
// ?)) or a BETWEEN's parameter when it tests no column (COUNT(*) BETWEEN
// ? AND ?), and names no parameter after an operand without a column
// (HAVING COUNT(*) > ? is Column2 interface{}): its method leaves their
// parameters out. For a configuration sqlc reads, fencegen generates
// every file as sqlc does (compared below the header) and vet notes each
// such parameter at its place, naming mysql_types; with mysql_types (a
// fencegen.yaml that extends sqlc.yaml) every method sends one value per
// placeholder. The queries are mysqltest's, whose tests run both forms
// on MariaDB.
//
// sqlc is $(go env GOPATH)/bin/sqlc; without it the test skips with one
// line, and fails under CI=true.
func TestMySQLUnreadParamsAsSqlc(t *testing.T) {
	sqlc := testenv.SqlcBinary()
	if sqlc == "" {
		testenv.UnavailableAt(t, "sqlc v1.31.1 (go install github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1)", "SQLC", "", errors.New("not in $SQLC, GOPATH/bin or PATH"))
	}
	dir := t.TempDir()
	for _, f := range []string{"schema.sql", "unread.sql"} {
		b, err := os.ReadFile(filepath.Join("internal", "golang", "mysqltest", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src, _ := os.ReadFile(filepath.Join(dir, "unread.sql"))
	// Named parameters and IN (sqlc.slice) lists sqlc does not read
	// (sqlc leaves their text as written), and values of the expressions
	// sqlc reads as an ast.TODO: an untyped, unnamed parameter compared
	// with one, an interface{} result column.
	more := `-- name: NamedTwice :many
SELECT id FROM t WHERE name REGEXP sqlc.arg(p) OR name = sqlc.arg(p);

-- name: SliceUnread :many
SELECT id FROM t WHERE NOT (id IN (sqlc.slice(ids))) AND a > ?;

-- name: SliceRead :many
SELECT id FROM t WHERE id IN (sqlc.slice(ids)) AND NOT (a = ?) AND b = sqlc.arg(b);

-- name: NullableUnread :one
SELECT id FROM t WHERE NOT (note <=> sqlc.narg(n)) AND id = sqlc.arg(id) LIMIT 1;

-- name: SliceDropped :many
SELECT id FROM t WHERE LOWER(name) IN (sqlc.slice(names)) AND id > ?;

-- name: ComparedWithTODO :many
SELECT id FROM t WHERE -a = ? AND ~a = ? AND (name REGEXP 'x') = ? AND name COLLATE utf8mb4_bin = ?;

-- name: InCoalesce :many
SELECT id FROM t WHERE LOWER(name) IN (COALESCE(?, 'x')) AND id > ?;

-- name: ParamBetween :many
SELECT id FROM t WHERE ? BETWEEN a AND b AND a + 1 BETWEEN ? AND COALESCE(?, 5) AND id > ?;

-- name: HavingCount :many
SELECT a, COUNT(*) AS n FROM t WHERE name = ? GROUP BY a HAVING COUNT(*) > ?;

-- name: TODOResults :many
SELECT -a AS neg, name REGEXP 'x' AS m, NOT a AS na, (a > 1) IS TRUE AS t1, -a, name REGEXP 'y', id FROM t;
`
	if err := os.WriteFile(filepath.Join(dir, "more.sql"), []byte(more), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sqlc.yaml"), []byte("version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: [unread.sql, more.sql], gen: {go: {package: x, out: out}}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sqlc, "generate")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sqlc generate: %v\n%s", err, b)
	}
	cfg, err := gen.LoadConfig(filepath.Join(dir, "sqlc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatalf("refused what sqlc generates: %v", err)
	}
	body := func(b []byte) string {
		_, rest, _ := strings.Cut(string(b), "\npackage ")
		return rest
	}
	for _, n := range []string{"out/db.go", "out/models.go", "out/unread.sql.go", "out/more.sql.go"} {
		want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n)))
		if err != nil {
			t.Fatal(err)
		}
		if g, w := body(out.Files[n]), body(want); g != w {
			t.Errorf("%s differs from sqlc's below the header:\n--- fencegen\n%s\n--- sqlc\n%s", n, g, w)
		}
	}
	// One note at each parameter left out, at a ? or sqlc.arg.
	lines := strings.Split(string(src), "\n")
	unread := 0
	for _, n := range out.Vet {
		m := regexp.MustCompile(`/unread\.sql:(\d+):(\d+): note: query \w+: sqlc v1\.31\.1 .*, and its method takes no argument for it; .*; mysql_types: true sends it$`).FindStringSubmatch(n)
		if m == nil {
			continue
		}
		unread++
		var line, col int
		for i, s := range m[1:] {
			v := 0
			for _, c := range s {
				v = v*10 + int(c-'0')
			}
			if i == 0 {
				line = v
			} else {
				col = v
			}
		}
		at := lines[line-1][col-1:]
		if !strings.HasPrefix(at, "?") && !strings.HasPrefix(at, "sqlc.arg(") {
			t.Errorf("note not at a parameter (%q): %s", at, n)
		}
	}
	// The placeholders sqlc leaves out in unread.sql, counted by hand
	// from its queries: one each but two in RowIn, RowEqual, LowerIn
	// and CountBetween.
	if unread != 20 {
		t.Errorf("%d notes on parameters sqlc leaves out, want 20:\n%s", unread, strings.Join(out.Vet, "\n"))
	}
	// docs/mysql.md quotes three of them as vet prints them.
	doc, err := os.ReadFile(filepath.Join("..", "docs", "mysql.md"))
	if err != nil {
		t.Fatal(err)
	}
	quoted := 0
	for _, n := range out.Vet {
		for _, q := range []string{"Regexp", "NamedRegexp", "OnlyUnread"} {
			if strings.Contains(n, "note: query "+q+": ") {
				quoted++
				note := n[strings.Index(n, "unread.sql:"):]
				if !strings.Contains(string(doc), "\n"+note+"\n") {
					t.Errorf("docs/mysql.md does not quote vet's note:\n%s", note)
				}
			}
		}
	}
	if quoted != 3 {
		t.Errorf("%d notes on Regexp, NamedRegexp and OnlyUnread, want 3", quoted)
	}
	if vet := strings.Join(out.Vet, "\n"); !strings.Contains(vet, "mysql_types is fencegen's option, which sqlc refuses in sqlc.yaml") || strings.Contains(vet, "postgresql_types") {
		t.Errorf("vet does not advise mysql_types alone:\n%s", vet)
	}

	// mysql_types through a fencegen.yaml that keeps sqlc.yaml as sqlc
	// reads it: each method sends a value per placeholder.
	if err := os.WriteFile(filepath.Join(dir, "fencegen.yaml"), []byte("version: \"2\"\nextends: sqlc.yaml\ngen: {go: {mysql_types: true}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err = gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err = gen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range out.Vet {
		if strings.Contains(n, "its method takes no argument for it") {
			t.Errorf("note with mysql_types on: %s", n)
		}
	}
	checkSendsEachPlaceholder(t, string(out.Files["out/unread.sql.go"]), 16)
}

// checkSendsEachPlaceholder requires that each of the queries methods of
// a generated MySQL file sends as many values as its SQL constant has
// placeholders (outside quotes: the queries checked have none inside).
func checkSendsEachPlaceholder(t *testing.T, src string, queries int) {
	t.Helper()
	consts := regexp.MustCompile("(?s)const (\\w+) = `-- name: \\w+ :\\w+\n(.*?)`").FindAllStringSubmatch(src, -1)
	if len(consts) != queries {
		t.Fatalf("%d SQL constants, want %d:\n%s", len(consts), queries, src)
	}
	for _, c := range consts {
		call := regexp.MustCompile(`(?s)(?:Query|QueryRow|Exec)Context\(ctx, ` + c[1] + `(.*?)\)\n`).FindStringSubmatch(src)
		if call == nil {
			t.Errorf("no call sends %s", c[1])
			continue
		}
		sent := 0
		if args := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(call[1]), ",")); args != "" {
			sent = strings.Count(args, ",")
		}
		if n := strings.Count(c[2], "?"); n != sent {
			t.Errorf("%s: %d placeholders in its SQL, %d values sent (%s):\n%s", c[1], n, sent, call[1], c[2])
		}
	}
}

// TestMySQLUnreadParamsInFencedWrites: a write of a fenced table takes
// the parameters sqlc v1.31.1 does not read whatever mysql_types says,
// in its guarded form too, and vet says so; the guarded statement sends
// one value per placeholder.
func TestMySQLUnreadParamsInFencedWrites(t *testing.T) {
	files := map[string]string{
		"schema.sql": "CREATE TABLE f (id BIGINT PRIMARY KEY, name TEXT NOT NULL, n INT NULL, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n",
		"q.sql": `-- name: Rename :exec
UPDATE f SET name = ? WHERE id = ? AND NOT (n <=> ?);

-- name: Drop :execrows
DELETE FROM f WHERE id = ? AND name REGEXP ?;
`,
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, mysql_types: false}}}\n",
	}
	out := generateDir(t, files)
	vet := strings.Join(out.Vet, "\n")
	for _, want := range []string{
		"q.sql:2:51: note: query Rename: sqlc v1.31.1 leaves this parameter out of its method, which therefore fails on every call; this query writes a fenced table, so its method takes it, as with mysql_types: true",
		"q.sql:5:44: note: query Drop: sqlc v1.31.1 leaves this parameter out of its method",
	} {
		if !strings.Contains(vet, want) {
			t.Errorf("vet has no %q:\n%s", want, vet)
		}
	}
	src := string(out.Files["out/q.sql.go"])
	for name, args := range map[string]string{
		"rename": "arg.Name, int64(token), arg.ID, arg.N, arg.ID, arg.N, int64(token)",
		"drop":   "arg.ID, arg.Name, int64(token)",
	} {
		c := regexp.MustCompile("(?s)const " + name + " = `(.*?)`").FindStringSubmatch(src)
		e := regexp.MustCompile(`(?s)ExecContext\(ctx, ` + name + `,\s*(.*?)\)\n`).FindStringSubmatch(src)
		if c == nil || e == nil {
			t.Fatalf("no SQL or ExecContext for %s:\n%s", name, src)
		}
		got := strings.Join(strings.Fields(strings.TrimSuffix(strings.TrimSpace(e[1]), ",")), " ")
		if n := strings.Count(c[1], "?"); n != strings.Count(got, ",")+1 {
			t.Errorf("%s: %d placeholders in its SQL, sends %s:\n%s", name, n, got, c[1])
		}
		if got != args {
			t.Errorf("%s sends %s, want %s", name, got, args)
		}
	}
}

// TestTypesOptionOfTheEngine: postgresql_types on a MySQL entry, or
// mysql_types on a PostgreSQL one, is an error at the key naming the
// entry's option; in a fencegen.yaml that extends sqlc.yaml each applies
// to its engine's entries and is an error when sqlc.yaml has none.
func TestTypesOptionOfTheEngine(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"postgresql_types on mysql", map[string]string{
			"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: s.sql, queries: q.sql, gen: {go: {package: x, out: out, postgresql_types: true}}}\n",
		}, `fencegen.yaml:3:103: postgresql_types applies to engine "postgresql" entries; this entry's engine is "mysql": use mysql_types`},
		{"mysql_types on postgresql", map[string]string{
			"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: s.sql, queries: q.sql, gen: {go: {package: x, out: out, mysql_types: true}}}\n",
		}, `fencegen.yaml:3:103: mysql_types applies to engine "mysql" entries; this entry's engine is "postgresql": use postgresql_types`},
		{"extends with postgresql_types, mysql only", map[string]string{
			"sqlc.yaml":     "version: \"2\"\nsql:\n  - {engine: mysql, schema: s.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
			"fencegen.yaml": "version: \"2\"\nextends: sqlc.yaml\ngen: {go: {postgresql_types: true}}\n",
		}, `fencegen.yaml:3:30: postgresql_types applies to engine "postgresql" entries, and sqlc.yaml has none: use mysql_types for its engine "mysql" entries`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.files["s.sql"] = "CREATE TABLE t (id bigint PRIMARY KEY);\n"
			c.files["q.sql"] = "-- name: GetT :one\nSELECT id FROM t WHERE id = ?;\n"
			for n, s := range c.files {
				if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("load: %v, want an error with %q", err, c.want)
			}
		})
	}
}
