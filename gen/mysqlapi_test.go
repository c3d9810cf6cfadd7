package gen_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestMySQLFuncResultsAsSqlc: on engine mysql a function call in the
// select list is typed by sqlc v1.31.1's MySQL catalog
// (internal/engine/dolphin/stdlib.go: the first overload taking the
// call's number of arguments, its return type, nullable only where the
// catalog says so), not by its pg_catalog: SUM, AVG and MAX return any
// there (interface{}), GROUP_CONCAT nullable text, DATE_ADD date; and
// COALESCE and IFNULL without a column reference are interface{}. The
// expected field types are what sqlc v1.31.1 generates for this query.
func TestMySQLFuncResultsAsSqlc(t *testing.T) {
	files := map[string]string{
		"schema.sql": "CREATE TABLE books (id INT PRIMARY KEY, author TEXT NOT NULL, pages INT NOT NULL, born DATE NOT NULL, price FLOAT, words integer NOT NULL);\n",
		"q.sql": `-- name: Stats :many
SELECT author, COUNT(*) AS n, SUM(pages) AS total, AVG(price) AS mean, MAX(pages) AS most, SUM(words) AS total_words,
  GROUP_CONCAT(author) AS names, DATE_ADD(born, INTERVAL 1 DAY) AS next_day, NOW() AS at,
  LENGTH(author) AS len, COALESCE(SUM(pages), 0) AS total0, IFNULL(price, 0) AS p0
FROM books GROUP BY author, born;
`,
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	out := generateDir(t, files)
	src := string(out.Files["out/q.sql.go"])
	for field, want := range map[string]string{
		"Author": "string", "N": "int64", "Total": "interface{}", "Mean": "interface{}", "Most": "interface{}", "TotalWords": "interface{}",
		"Names": "sql.NullString", "NextDay": "time.Time", "At": "time.Time", "Len": "int32",
		"Total0": "interface{}", "P0": "interface{}",
	} {
		re := regexp.MustCompile(`(?m)^\t` + field + `\s+(\S+)$`)
		m := re.FindStringSubmatch(src)
		if m == nil {
			t.Errorf("no field %s in StatsRow:\n%s", field, src)
			continue
		}
		if m[1] != want {
			t.Errorf("StatsRow.%s is %s, sqlc declares %s", field, m[1], want)
		}
	}
}

// TestMySQLCaseParamsAsSqlc: on engine mysql a parameter inside a CASE is
// typed as sqlc v1.31.1 types it: by the nearest comparison or UPDATE
// assignment the CASE is an operand of (sqlc's find_params.go parent; a
// CASE is not one), so the ELSE's parameter of title = CASE ... END is
// title's sql.NullString, and CASE ? WHEN ... in SET body = is body's
// string; in INSERT ... VALUES sqlc types only a parameter that is the
// value itself, so one inside a CASE stays interface{}. A COALESCE in a
// function call's arguments is typed by the call, which types only its
// direct arguments: COALESCE(sqlc.narg(t), title) in CONCAT is interface{},
// unless a comparison stands between (IF(stars = COALESCE(...), ...)).
// A parameter passed to a function is named after it as sqlc's catalog
// spells it (LENGTH), or as written when the catalog lacks it (MyFn).
// A name used twice is two of sqlc's parameters: a Params struct of one
// field, sent for both placeholders. The expected
// types are what sqlc v1.31.1 generates for these queries.
func TestMySQLCaseParamsAsSqlc(t *testing.T) {
	files := map[string]string{
		"schema.sql": "CREATE TABLE notes (id INT PRIMARY KEY, title VARCHAR(20) NULL, body TEXT NOT NULL, stars INT NOT NULL);\n",
		"q.sql": `-- name: FindNote :one
SELECT id FROM notes WHERE title = CASE WHEN sqlc.arg(want) = '' THEN NULL ELSE sqlc.arg(want) END
  OR body = CASE WHEN sqlc.arg(other) = '' THEN NULL ELSE sqlc.arg(other) END LIMIT 1;

-- name: FindLike :many
SELECT id FROM notes WHERE title LIKE CONCAT('%', COALESCE(sqlc.narg(t), title), '%') AND stars = COALESCE(sqlc.narg(s), stars)
  AND body = CONCAT(IF(stars = COALESCE(sqlc.arg(n), stars), 'a', 'b'), 'c');

-- name: FindLen :many
SELECT id FROM notes WHERE stars = length(?) AND stars = LOCATE(?, body) AND body = CONCAT(body, ?) AND stars = my_fn(?) AND body = concat(?);

-- name: FindTwice :many
SELECT id FROM notes WHERE body = sqlc.arg(b) OR body > sqlc.arg(b);

-- name: SetBody :exec
UPDATE notes SET body = CASE ? WHEN true THEN 'yes' ELSE body END WHERE id = ?;

-- name: AddNote :exec
INSERT INTO notes (id, body, stars) VALUES (?, CASE WHEN sqlc.arg(kind) = 'x' THEN 'a' ELSE sqlc.arg(kind) END, ?);
`,
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	out := generateDir(t, files)
	src := string(out.Files["out/q.sql.go"])
	for _, want := range []string{
		"type FindNoteParams struct {\n\tWant  sql.NullString\n\tOther string\n}",
		"type FindLikeParams struct {\n\tT interface{}\n\tS sql.NullInt32\n\tN int32\n}",
		"type FindLenParams struct {\n\tLENGTH   string\n\tLOCATE   string\n\tCONCAT   interface{}\n\tMyFn     interface{}\n\tCONCAT_2 interface{}\n}",
		"type FindTwiceParams struct {\n\tB string\n}",
		"findTwice, arg.B, arg.B)",
		"type SetBodyParams struct {\n\tBody string\n\tID   int32\n}",
		"type AddNoteParams struct {\n\tID    int32\n\tKind  interface{}\n\tStars int32\n}",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("missing\n%s\nin:\n%s", want, src)
		}
	}
}

// TestMySQLRefusalsAsSqlc: on engine mysql fencegen refuses what sqlc
// v1.31.1 refuses, at sqlc's line:col (the lines below are sqlc's
// stderr for these files). sqlc gives an unknown sqlc.<name> and an
// INSERT whose values do not fit its column list no position: it reports
// them where its dolphin parser places the statement (the start of the
// file for the first, else after the previous statement's newline and
// any white space and "--" comments, not "/* */" ones), while a
// malformed sqlc.arg is at the call. The INSERT rule is sqlc's: one
// VALUES row of another length than the column list (none: length 0),
// or a parameter value or SELECT target past the last column named;
// other mismatches sqlc generates. A named parameter used with two Go
// types is refused as sqlc refuses it (at generation, "named param X has
// incompatible types: <second>, <first>"), here at its first use. A
// call of a function sqlc's MySQL catalog has, with an argument count no
// overload takes, is refused at the call (an aggregate at the statement,
// having no position in sqlc's tree); an unknown function passes.
func TestMySQLRefusalsAsSqlc(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		want        []string // sqlc's lines (its named-param error located); nil: sqlc generates
	}{
		{"sqlc funcs", `-- name: TooManyArgs :one
select id from users where id = sqlc.arg('foo', 'bar');

-- name: WrongFunc :one
select id from users where id = sqlc.argh(target_id);

/* name: WrongEmbed :one */ select id from users where id = sqlc.embed(target_id, 2);
-- name: WrongFunc4 :one
/* leading */ select id from users where id = sqlc.bar(target_id);
/* name: WrongFunc5 :one */

  select id from users where id = sqlc.bar(target_id);
`, []string{
			"q.sql:2:33: expected 1 parameter to sqlc.arg; got 2",
			`q.sql:5:1: function "sqlc.argh" does not exist`,
			"q.sql:7:61: expected 1 parameter to sqlc.embed; got 2",
			`q.sql:9:1: function "sqlc.bar" does not exist`,
			`q.sql:10:1: function "sqlc.bar" does not exist`,
		}},
		{"first statement", "-- name: WrongFunc :one\nselect id from users where id = sqlc.argh(target_id);\n",
			[]string{`q.sql:1:1: function "sqlc.argh" does not exist`}},
		{"insert select param", "-- name: A :exec\nSELECT 1;\n\n-- name: B :exec\nINSERT INTO users (name) SELECT 1, ?, ?;\n",
			[]string{"q.sql:5:1: INSERT has more expressions than target columns"}},
		{"insert one row", "-- name: B :exec\nINSERT INTO users (id, name) VALUES (1);\n",
			[]string{"q.sql:1:1: INSERT has more target columns than expressions"}},
		{"insert no column list", "-- name: A :exec\nSELECT 1;\n-- name: B :exec\nINSERT INTO users VALUES (1, 'x');\n",
			[]string{"q.sql:4:1: INSERT has more expressions than target columns"}},
		{"insert param past the list", "-- name: B :exec\nINSERT INTO users (id) VALUES (1), (2, ?);\n",
			[]string{"q.sql:1:1: INSERT has more expressions than target columns"}},
		{"function arity", "-- name: A :many\nSELECT id FROM users WHERE LOWER(name, ?) = 'a';\n-- name: B :many\nSELECT ADDDATE(id, 1) AS x, NOSUCHFN(name) AS y FROM users;\n-- name: C :many\nSELECT COUNT(DISTINCT id, name) AS c FROM users;\n",
			[]string{
				"q.sql:2:28: function lower(unknown, unknown) does not exist",
				"q.sql:4:8: function adddate(unknown, unknown, unknown) does not exist",
				"q.sql:6:1: function count(unknown, unknown) does not exist",
			}},
		// Issue 27: sqlc's message (without the trailing space TiDB's
		// has), then what to write instead.
		{"row alias", "-- name: Up :exec\nINSERT INTO users (id, name) VALUES (?, ?) AS new ON DUPLICATE KEY UPDATE name = new.name;\n",
			[]string{`q.sql:2:46: syntax error near "AS new ON DUPLICATE KEY UPDATE name = new.name"; the row alias of an upsert (VALUES (...) AS new ... ON DUPLICATE KEY UPDATE c = new.c) is MySQL 8.0.19+ syntax that MariaDB and the TiDB parser sqlc uses do not read: write c = VALUES(c), which MySQL and MariaDB both run (MySQL 8 deprecates it with a warning only)`}},
		// Issue 27, trial-my4 F5: sqlc's MySQL catalog looks a
		// qualified name's database up first, then the table by its
		// name alone.
		{"qualified table", "-- name: A :exec\nSELECT 1;\n-- name: B :exec\nUPDATE nodb.users SET name = ? WHERE id = ?;\n-- name: C :many\nSELECT id FROM nodb.users;\n-- name: D :exec\nDELETE FROM nodb.users WHERE id = ?;\n",
			[]string{`q.sql:4:1: schema "nodb" does not exist`, `q.sql:6:1: schema "nodb" does not exist`, `q.sql:8:1: schema "nodb" does not exist`}},
		{"insert rows without list", "-- name: B :exec\nINSERT INTO users VALUES (1, 'x'), (2, 'y');\n", nil},
		{"insert set", "-- name: B :exec\nINSERT INTO users SET name = ?;\n", nil},
		{"named param types", "-- name: A :one\nSELECT id FROM users\nWHERE id = sqlc.arg(my_param)\n  OR bio = sqlc.arg(my_param) LIMIT 1;\n",
			[]string{"q.sql:3:12: query A: named param MyParam has incompatible types: sql.NullString, int64"}},
		{"named param one type", "-- name: A :one\nSELECT id FROM users WHERE id = sqlc.arg(p) OR id > sqlc.arg(p) OR name = sqlc.narg(q) OR bio = sqlc.narg(q) OR bio = sqlc.arg(r) OR 1 = sqlc.arg(r);\n", nil},
		{"named param nullability", "-- name: A :one\nSELECT id FROM users WHERE name = sqlc.arg(q) OR bio = sqlc.arg(q);\n",
			[]string{"q.sql:2:35: query A: named param Q has incompatible types: sql.NullString, string"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				"schema.sql":    "CREATE TABLE users (id BIGINT PRIMARY KEY, name TEXT NOT NULL, bio TEXT);\n",
				"q.sql":         tc.query,
				"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
			}
			cfg := mysqlConfig(t, dir, files, "fencegen.yaml")
			_, err := gen.Generate(context.Background(), cfg)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused what sqlc generates: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("generated; sqlc refuses it with %q", tc.want)
			}
			got := regexp.MustCompile(`(?m)^\S*q\.sql:`).ReplaceAllString(err.Error(), "q.sql:")
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("error lacks sqlc's %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestMySQLOrderByParamsInWrites: a ? in the ORDER BY of a single-table
// UPDATE or DELETE is a parameter of the method, named and typed as
// sqlc names and types the same ORDER BY item in a SELECT (FIELD(id, ?)
// is FIELD string, n = ? is N), in the order of the placeholders; sqlc
// v1.31.1 drops the ORDER BY of these statements and with it the
// parameter, so that its method sends one value too few. The guarded
// forms of a fenced table's writes keep the clause and send it too.
// Every method sends as many values as its SQL has placeholders.
func TestMySQLOrderByParamsInWrites(t *testing.T) {
	files := map[string]string{
		"schema.sql": "CREATE TABLE t (id BIGINT PRIMARY KEY, name TEXT NOT NULL, n INT NOT NULL);\n" +
			"CREATE TABLE f (id BIGINT PRIMARY KEY, name TEXT NOT NULL, n INT NOT NULL, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n",
		"q.sql": `-- name: U :exec
UPDATE t SET name = ? WHERE n > ? ORDER BY FIELD(id, ?) LIMIT ?;

-- name: D :exec
DELETE FROM t WHERE n > ? ORDER BY id = ? DESC LIMIT ?;

-- name: U2 :exec
UPDATE t SET name = ? ORDER BY IF(n > ?, 1, 0) LIMIT 3;

-- name: FU :exec
UPDATE f SET name = ? WHERE id = ? ORDER BY FIELD(n, ?) LIMIT ?;

-- name: FD :exec
DELETE FROM f WHERE id = ? ORDER BY n = ? DESC LIMIT ?;
`,
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	out := generateDir(t, files)
	src := string(out.Files["out/q.sql.go"])
	for name, want := range map[string]struct{ fields, args string }{
		"U":  {"Name string; N int32; FIELD string; Limit int32", "arg.Name, arg.N, arg.FIELD, arg.Limit"},
		"D":  {"N int32; ID int64; Limit int32", "arg.N, arg.ID, arg.Limit"},
		"U2": {"Name string; N int32", "arg.Name, arg.N"},
		"FU": {"Name string; ID int64; FIELD string; Limit int32", "arg.Name, int64(token), arg.ID, int64(token), arg.FIELD, arg.Limit"},
		"FD": {"ID int64; N int32; Limit int32", "arg.ID, int64(token), arg.N, arg.Limit"},
	} {
		m := regexp.MustCompile(`(?s)type ` + name + `Params struct \{\n(.*?)\n\}`).FindStringSubmatch(src)
		if m == nil {
			t.Errorf("no %sParams:\n%s", name, src)
			continue
		}
		var fields []string
		for _, l := range strings.Split(m[1], "\n") {
			fields = append(fields, strings.Join(strings.Fields(l), " "))
		}
		if got := strings.Join(fields, "; "); got != want.fields {
			t.Errorf("%sParams is {%s}, want {%s}", name, got, want.fields)
		}
		c := regexp.MustCompile("(?s)const " + strings.ToLower(name[:1]) + name[1:] + " = `(.*?)`").FindStringSubmatch(src)
		e := regexp.MustCompile(`(?s)ExecContext\(ctx, ` + strings.ToLower(name[:1]) + name[1:] + `,\s*(.*?)\)\n`).FindStringSubmatch(src)
		if c == nil || e == nil {
			t.Errorf("no SQL or ExecContext for %s:\n%s", name, src)
			continue
		}
		args := strings.Join(strings.Fields(strings.TrimSuffix(strings.TrimSpace(e[1]), ",")), " ")
		if args != want.args {
			t.Errorf("%s sends %s, want %s", name, args, want.args)
		}
		if n, sent := strings.Count(c[1], "?"), strings.Count(want.args, ",")+1; n != sent {
			t.Errorf("%s: %d placeholders in its SQL, %d values sent:\n%s", name, n, sent, c[1])
		}
	}
}

// writeGuardMigration runs fencegen guard (gen.GenerateGuard) on dir's
// fencegen.yaml and writes its first guard's goose migration, numbered
// version, as migrations/<version>_fencegen_guard.sql in dir.
func writeGuardMigration(t *testing.T, dir, version string) {
	t.Helper()
	cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.GenerateGuard(context.Background(), cfg) // as fencegen guard
	if err != nil {
		t.Fatal(err)
	}
	files, err := out.Guards[0].Migration("goose", version)
	if err != nil {
		t.Fatal(err)
	}
	name := version + "_fencegen_guard.sql"
	gen.WriteTree(t, dir, map[string]string{"migrations/" + name: string(files[name])})
}

// TestMySQLCheckReplaysGuardMigrations: generate (and so fencegen check)
// replays the guard migrations among an engine mysql entry's schema
// files, as on PostgreSQL: with jobs fenced after the guard migration was
// written, the run fails at that migration, naming the triggers jobs
// lacks; once a guard migration for both tables follows, it passes.
func TestMySQLCheckReplaysGuardMigrations(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		t.Helper()
		gen.WriteTree(t, dir, map[string]string{name: s})
	}
	write("migrations/00001_init.sql", "-- +goose Up\nCREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\nCREATE TABLE jobs (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);\n-- +goose Down\nDROP TABLE jobs;\nDROP TABLE accounts;\n")
	write("q.sql", "-- name: Get :one\nSELECT id FROM accounts WHERE id = ?;\n")
	write("fencegen.yaml", "version: \"2\"\nsql:\n  - {engine: mysql, schema: migrations, queries: q.sql, gen: {go: {package: x, out: out}}}\n")
	run := func() (*gen.Output, error) {
		t.Helper()
		cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		return gen.Generate(context.Background(), cfg)
	}
	writeGuardMigration(t, dir, "00002")
	if _, err := run(); err != nil {
		t.Fatalf("the current guard migration is reported: %v", err)
	}
	write("migrations/00001_init.sql", strings.Replace(func() string {
		b, _ := os.ReadFile(filepath.Join(dir, "migrations/00001_init.sql"))
		return string(b)
	}(), "jobs (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0)", "jobs (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token')", 1))
	_, err := run()
	msg := ""
	if err != nil {
		msg = regexp.MustCompile(`(?m)^\S*migrations/`).ReplaceAllString(err.Error(), "migrations/")
	}
	for _, want := range []string{
		"migrations/00002_fencegen_guard.sql:1:1: fenced table jobs has no guard trigger fencegen_bu_jobs in the guard migrations",
		"migrations/00002_fencegen_guard.sql:1:1: fenced table jobs has no guard trigger fencegen_bd_jobs in the guard migrations",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	writeGuardMigration(t, dir, "00003")
	if _, err := run(); err != nil {
		t.Fatalf("after the new guard migration: %v", err)
	}
}

// TestMySQLPreparesSliceQueries: with emit_prepared_queries, Prepare
// prepares a MySQL query with IN (sqlc.slice(x)) as sqlc v1.31.1 does
// (its text, IN (/*SLICE:x*/?), is a statement with one ? on MySQL),
// though its method builds its text when run and passes no statement.
func TestMySQLPreparesSliceQueries(t *testing.T) {
	files := map[string]string{
		"schema.sql":    "CREATE TABLE users (id BIGINT PRIMARY KEY, name TEXT NOT NULL);\n",
		"q.sql":         "-- name: ByIDs :many\nSELECT name FROM users WHERE id IN (sqlc.slice(ids));\n\n-- name: ByID :one\nSELECT name FROM users WHERE id = ?;\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, emit_prepared_queries: true}}}\n",
	}
	out := generateDir(t, files)
	db := string(out.Files["out/db.go"])
	for _, want := range []string{
		"if q.byIDStmt, err = db.PrepareContext(ctx, byID); err != nil {",
		"if q.byIDsStmt, err = db.PrepareContext(ctx, byIDs); err != nil {\n\t\treturn nil, fmt.Errorf(\"error preparing query ByIDs: %w\", err)",
	} {
		if !strings.Contains(db, want) {
			t.Errorf("db.go lacks %q:\n%s", want, db)
		}
	}
}

// TestMySQLOperatorResultsAsSqlc: on engine mysql an operator's result is
// typed by the name sqlc v1.31.1's converter gives the operator (a
// comparison bool, arithmetic int, any other interface{}): / is "div"
// there and & "bitand", so both are interface{}, while DIV and ^ are
// int32; a window function is interface{}. The expected field types are
// what sqlc generates for these queries.
func TestMySQLOperatorResultsAsSqlc(t *testing.T) {
	files := map[string]string{
		"schema.sql": "CREATE TABLE posts (id BIGINT PRIMARY KEY, views INT NOT NULL);\n",
		"q.sql": "-- name: Ops :many\nSELECT views / 3 AS third, views DIV 2 AS half, views * 2 AS d, views & 1 AS b, views ^ 1 AS x, views | 1 AS o, views << 1 AS l, views <=> 1 AS ns, views % 2 AS m FROM posts;\n\n" +
			"-- name: W :many\nSELECT id, ROW_NUMBER() OVER (ORDER BY id), RANK() OVER (ORDER BY views) AS r, SUM(views) OVER () AS s FROM posts;\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	out := generateDir(t, files)
	src := string(out.Files["out/q.sql.go"])
	m := regexp.MustCompile(`(?s)type OpsRow struct \{\n(.*?)\n\}`).FindStringSubmatch(src)
	if m == nil {
		t.Fatalf("no OpsRow:\n%s", src)
	}
	var got []string
	for _, l := range strings.Split(m[1], "\n") {
		got = append(got, strings.Join(strings.Fields(l), " "))
	}
	want := "Third interface{}; Half int32; D int32; B interface{}; X int32; O interface{}; L int32; Ns interface{}; M int32"
	if g := strings.Join(got, "; "); g != want {
		t.Errorf("OpsRow is {%s}, sqlc declares {%s}", g, want)
	}
	// A window function: sqlc's converter has no node for it, so its
	// result is interface{}, named column_N without an alias.
	if w := "type WRow struct {\n\tID      int64\n\tColumn2 interface{}\n\tR       interface{}\n\tS       interface{}\n}"; !strings.Contains(src, w) {
		t.Errorf("WRow is not sqlc's %q:\n%s", w, src)
	}
}

// TestMySQLConstNamesAsSqlc: on engine mysql a query's SQL constant keeps
// sqlc's name when it is the name of a package only PostgreSQL output
// imports (query Uuid's constant is uuid, as in sqlc); with an override
// that imports package uuid it is renamed, or the package would not
// compile.
func TestMySQLConstNamesAsSqlc(t *testing.T) {
	for _, tc := range []struct{ overrides, want string }{
		{"", "const uuid = `"},
		{", overrides: [{column: \"t.ref\", go_type: \"github.com/google/uuid.UUID\"}]", "const uuidQuery = `"},
	} {
		dir := t.TempDir()
		files := map[string]string{
			"schema.sql":    "CREATE TABLE t (id BIGINT PRIMARY KEY, ref CHAR(36) NOT NULL);\n",
			"q.sql":         "-- name: Uuid :one\nSELECT UUID() AS u;\n\n-- name: Ref :one\nSELECT ref FROM t WHERE id = ?;\n",
			"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out" + tc.overrides + "}}}\n",
		}
		cfg := mysqlConfig(t, dir, files, "fencegen.yaml")
		out, err := gen.Generate(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if src := string(out.Files["out/q.sql.go"]); !strings.Contains(src, tc.want) {
			t.Errorf("overrides %q: no %q:\n%s", tc.overrides, tc.want, src)
		}
	}
}

// TestMySQLIntervalParamsAsSqlc: in DATE_ADD(d, INTERVAL ? unit) and
// DATE_SUB, which sqlc's converter reads as a call of two arguments (d
// and an interval holding the ?), the interval's parameter is neither
// named after the function nor typed (dollar_1, Column2), as sqlc
// generates it; a ? as d is (DATEADD), and so is the d of
// "? + INTERVAL 1 DAY" (DATEADD_2).
func TestMySQLIntervalParamsAsSqlc(t *testing.T) {
	files := map[string]string{
		"schema.sql": "CREATE TABLE posts (id BIGINT PRIMARY KEY, at DATETIME NOT NULL);\n",
		"q.sql": "-- name: I1 :many\nSELECT id FROM posts WHERE at > DATE_SUB(NOW(), INTERVAL ? DAY);\n\n" +
			"-- name: I2 :many\nSELECT DATE_ADD(?, INTERVAL ? HOUR) AS t FROM posts WHERE at < ? + INTERVAL 1 DAY;\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	out := generateDir(t, files)
	src := string(out.Files["out/q.sql.go"])
	for _, want := range []string{
		"func (q *Queries) I1(ctx context.Context, dollar_1 interface{}) ([]int64, error) {",
		"q.db.QueryContext(ctx, i2, arg.DATEADD, arg.Column2, arg.DATEADD_2)",
		"\tColumn2   interface{}\n",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("no %q (sqlc's):\n%s", want, src)
		}
	}
}

// TestMySQLInsertSetAsSqlc: INSERT ... SET a = ?, b = ? is read as sqlc
// reads it, the column list (a, b) with one VALUES row: its parameters
// are named and typed by their columns (Email string, Name
// sql.NullString; they were Column1 and Column2 interface{}). On a fenced
// table the guard does not rewrite this form, and it stays refused.
func TestMySQLInsertSetAsSqlc(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"schema.sql": "CREATE TABLE users (id BIGINT PRIMARY KEY AUTO_INCREMENT, email VARCHAR(50) NOT NULL, name TEXT);\n" +
			"CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n",
		"q.sql":         "-- name: U :exec\nINSERT INTO users SET email = ?, name = ?;\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	for n, s := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func() (*gen.Output, error) {
		cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		return gen.Generate(context.Background(), cfg)
	}
	out, err := run()
	if err != nil {
		t.Fatal(err)
	}
	if src, want := string(out.Files["out/q.sql.go"]), "type UParams struct {\n\tEmail string\n\tName  sql.NullString\n}"; !strings.Contains(src, want) {
		t.Errorf("no %q (sqlc's):\n%s", want, src)
	}
	if err := os.WriteFile(filepath.Join(dir, "q.sql"), []byte("-- name: A :exec\nINSERT INTO accounts SET id = ?, balance = ?;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(); err == nil || !strings.Contains(err.Error(), "q.sql:2:13: query A writes fenced table accounts (INSERT) in a form fencegen's analysis does not hand to the guard") {
		t.Errorf("a fenced INSERT ... SET: %v, want it refused at the table", err)
	}
}

// TestMySQLMultiTableSetAsSqlc: sqlc v1.31.1 types SET col = ? of a
// multi-table UPDATE by the column of that name in the first table the
// UPDATE names, whichever table the assignment's qualifier names, and
// refuses the query when that table has no such column (issue 27's
// README trial: fencegen generated what sqlc refuses). fencegen refuses
// the same queries with sqlc's message, at the statement, and types the
// others as sqlc does; when sqlc is installed, its verdicts are checked
// too. A single-table UPDATE's unknown SET column has sqlc's MySQL
// message as well (no relation named).
func TestMySQLMultiTableSetAsSqlc(t *testing.T) {
	schema := "CREATE TABLE authors (id BIGINT PRIMARY KEY, name TEXT NOT NULL, bio TEXT);\n" +
		"CREATE TABLE books (isbn VARCHAR(20) NOT NULL PRIMARY KEY, author_id BIGINT NOT NULL, title VARCHAR(200) NOT NULL, name INT);\n"
	for _, tc := range []struct {
		query string
		want  string // the error, or a line of the generated code
	}{
		{"UPDATE authors a JOIN books b ON b.author_id = a.id SET a.bio = ?, b.title = ? WHERE a.id = ?", `q.sql:2:1: column "title" does not exist`},
		{"UPDATE authors a, books b SET b.title = ? WHERE b.author_id = a.id", `q.sql:2:1: column "title" does not exist`},
		{"UPDATE books b JOIN authors a ON b.author_id = a.id SET a.bio = ?, b.title = ?", `q.sql:2:1: column "bio" does not exist`},
		{"UPDATE authors a JOIN books b ON b.author_id = a.id SET b.title = 'x', a.bio = ?", "func (q *Queries) Q(ctx context.Context, bio sql.NullString) error {"},
		{"UPDATE books b JOIN authors a ON b.author_id = a.id SET b.title = ?", "func (q *Queries) Q(ctx context.Context, title string) error {"},
		{"UPDATE authors SET title = ? WHERE id = ?", `q.sql:2:1: column "title" does not exist`},
		// books.name is INT; sqlc types the parameter by authors.name.
		{"UPDATE authors a JOIN books b ON b.author_id = a.id SET b.name = ?", "func (q *Queries) Q(ctx context.Context, name string) error {"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				"schema.sql": schema,
				"q.sql":      "-- name: Q :exec\n" + tc.query + ";\n",
				"sqlc.yaml":  "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
			}
			cfg := mysqlConfig(t, dir, files, "sqlc.yaml")
			out, err := gen.Generate(context.Background(), cfg)
			refused := strings.Contains(tc.want, "does not exist")
			switch {
			case refused && err == nil:
				t.Fatalf("generated; sqlc refuses it with %q", tc.want)
			case refused && !strings.HasSuffix(regexp.MustCompile(`(?m)^\S*q\.sql:`).ReplaceAllString(err.Error(), "q.sql:"), tc.want):
				t.Fatalf("error %q, want %q", err, tc.want)
			case !refused && err != nil:
				t.Fatalf("refused what sqlc generates: %v", err)
			case !refused && !strings.Contains(string(out.Files["out/q.sql.go"]), tc.want):
				t.Fatalf("generated code lacks %q:\n%s", tc.want, out.Files["out/q.sql.go"])
			}
			sqlc := testenv.SqlcBinary()
			if sqlc == "" {
				return
			}
			cmd := exec.Command(sqlc, "--no-remote", "generate")
			cmd.Dir = dir
			b, err := cmd.CombinedOutput()
			if refused != (err != nil) {
				t.Fatalf("sqlc generate: %v\n%s", err, b)
			}
			_, msg, _ := strings.Cut(tc.want, ": ")
			_, msg, _ = strings.Cut(msg, ": ")
			if refused && !strings.Contains(string(b), msg) {
				t.Fatalf("sqlc says %s, not %q", b, msg)
			}
			if g, _ := os.ReadFile(filepath.Join(dir, "out", "q.sql.go")); !refused && !strings.Contains(string(g), tc.want) {
				t.Fatalf("sqlc's code lacks %q:\n%s", tc.want, g)
			}
		})
	}
}
