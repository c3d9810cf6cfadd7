package gen_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestGeneratedAsSqlcGenerates (issue 23, class A of trial-sw3): queries
// that sqlc v1.31.1 generates and the server refuses are generated as
// sqlc generates them, every file's text below the header sqlc's, with a
// vet note saying what the server will answer: sqlc.embed(x) of a CTE
// aliased x where a table x exists (F1), an unresolved column in an
// INSERT's VALUES (F6, PostgreSQL and MySQL), an INSERT naming a column
// the table lacks where no parameter takes its type (F11), an
// operator that swallows a named parameter's @ (F11, %@name), and an
// upsert's references sqlc does not check (ON CONFLICT DO UPDATE outside
// an INSERT of one VALUES row, ON DUPLICATE KEY UPDATE without a
// parameter assigned to the column; TestUpsertMissingColumnOnServers
// runs them). Where a
// bare parameter takes the missing column's type, sqlc refuses, and so
// does fencegen. MySQL's x IS NULL is bool and ? IN (foo.a, foo.b) is
// named a, as sqlc's MySQL reading has them (F7); a parameter compared
// with a CASE is named after the CASE's first column (F3b); MySQL's
// HAVING reads a select-list alias without a note (F9); an IN
// (sqlc.slice(x)) list over a nullable column is []sql.NullInt64 (F4), which the
// MariaDB test of TestMySQLHavingAlias runs.
//
// sqlc is $(go env GOPATH)/bin/sqlc; without it the test skips with one
// line, and fails under CI=true.
func TestGeneratedAsSqlcGenerates(t *testing.T) {
	needSqlc(t) // one skip line, not one a row
	const pgSchema = `CREATE TABLE items (id bigint PRIMARY KEY, priority int NOT NULL, tenant_id uuid NOT NULL);
CREATE TABLE authors (id bigint PRIMARY KEY, name text NOT NULL, bio text);
CREATE TABLE auth_users (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, email text NOT NULL, name text NOT NULL);
`
	for _, tt := range []struct {
		name, engine, schema, query string
		goOpts                      string   // more of the entry's go options (", emit_interface: true")
		notes                       []string // parts of the vet notes, one each
		sqlcErr                     string   // both refuse: a part of sqlc's error and of fencegen's
	}{
		{name: "embed of a CTE", engine: "postgresql", schema: pgSchema, query: `-- name: ListCandidates :many
WITH candidates AS (SELECT * FROM items WHERE tenant_id = @tenant_id::uuid)
SELECT sqlc.embed(items) FROM candidates AS items ORDER BY priority DESC;
`},
		{name: "embed of a CTE with other columns", engine: "postgresql", schema: pgSchema, query: `-- name: ListTop :many
WITH top AS (SELECT id, priority FROM items)
SELECT sqlc.embed(items) FROM top AS items;
`, notes: []string{`q.sql:3:8: note: query ListTop: PostgreSQL refuses this query: sqlc.embed(items): items is no table but a CTE or subquery whose columns are not those of table items`}},
		{name: "VALUES reference pg", engine: "postgresql", schema: pgSchema, query: `-- name: CreateAuthorBad :exec
INSERT INTO authors (name, bio) VALUES (nme, bio);
`, notes: []string{`q.sql:2:41: note: query CreateAuthorBad: PostgreSQL refuses this query: column "nme" does not exist`, `q.sql:2:46: note: query CreateAuthorBad: PostgreSQL refuses this query: column "bio" does not exist`}},
		{name: "VALUES reference mysql", engine: "mysql", schema: "CREATE TABLE authors (id bigint PRIMARY KEY, name text NOT NULL, bio text);\n", query: `-- name: CreateAuthor :exec
INSERT INTO authors (name, bio) VALUES ($1, $2);

-- name: CreateAuthorBad :exec
INSERT INTO authors (name, bio) VALUES (nme, ?);
`, notes: []string{`q.sql:2:41: note: query CreateAuthor: MariaDB/MySQL refuses this query: column "$1" does not exist`, `q.sql:2:45: note: query CreateAuthor: MariaDB/MySQL refuses this query: column "$2" does not exist`, `q.sql:5:41: note: query CreateAuthorBad: MariaDB/MySQL refuses this query: column "nme" does not exist`}},
		{name: "INSERT of a missing column", engine: "postgresql", schema: pgSchema, query: `-- name: CreateUser :exec
INSERT INTO auth_users (email, tenant_id) VALUES (@email, NULL);
`, notes: []string{`q.sql:2:32: note: query CreateUser: PostgreSQL refuses this query: column "tenant_id" of relation "auth_users" does not exist`}},
		{name: "operator swallowing @", engine: "postgresql", schema: pgSchema, query: `-- name: FindByName :many
SELECT id FROM auth_users WHERE name LIKE (%@name::varchar % || '%');
`, notes: []string{`q.sql:2:44: note: query FindByName: PostgreSQL refuses this query: PostgreSQL reads %@ as one operator`}},
		// Class B (F7): sqlc's MySQL API.
		{name: "IS NULL on mysql", engine: "mysql", schema: "CREATE TABLE bar (id serial not null);\n", query: `-- name: IsNull :many
SELECT id IS NULL FROM bar;

-- name: IsNotNull :many
SELECT id IS NOT NULL FROM bar;
`},
		{name: "parameter IN columns on mysql", engine: "mysql", schema: "CREATE TABLE foo (a text, b text);\n", query: `-- name: FooByAorB :many
SELECT a, b from foo where ? in (foo.a, foo.b);

-- name: FooByBorA :many
SELECT a, b from foo where ? in (b, a);
`},
		// Class B (F3b): a parameter compared with a CASE is named after
		// the first column in it, as sqlc names it.
		{name: "parameter compared with a CASE", engine: "postgresql", schema: "CREATE TABLE events (id bigint PRIMARY KEY, event_name text NOT NULL);\n", query: `-- name: ListEvents :many
SELECT * FROM events WHERE id > $1
  AND CASE WHEN event_name LIKE 'inngest/%' THEN TRUE ELSE FALSE END = $2;
`, notes: []string{"q.sql:1:1: note: query ListEvents: parameter event_name is string, as sqlc declares it; postgresql_types: true declares bool", "postgresql_types is fencegen's option"}},
		// Class E (F9): MySQL's HAVING reads a select-list alias; a
		// name that is neither is still noted.
		{name: "HAVING on an alias on mysql", engine: "mysql", schema: "CREATE TABLE users (id bigint primary key, name text);\nCREATE TABLE posts (id bigint primary key, user_id bigint);\n", query: `-- name: ActiveUsers :many
SELECT users.id, COUNT(posts.id) AS recent_posts FROM users LEFT JOIN posts ON users.id = posts.user_id
GROUP BY users.id, users.name HAVING recent_posts > 0;

-- name: Nope :many
SELECT users.id, COUNT(posts.id) AS recent_posts FROM users LEFT JOIN posts ON users.id = posts.user_id
GROUP BY users.id HAVING nope > 0;
`, notes: []string{`q.sql:7:26: note: query Nope: MariaDB/MySQL refuses this query: column "nope" does not exist`}},
		// Class B (F4): sqlc.slice over a nullable column.
		{name: "sqlc.slice of a nullable column on mysql", engine: "mysql", schema: "CREATE TABLE class (class_id bigint PRIMARY KEY, grade_id bigint);\n", query: `-- name: ListClassInGradeIDs :many
SELECT * FROM class WHERE grade_id IN (sqlc.slice('gradeIDs'));
`, notes: []string{"q.sql:1:1: note: query ListClassInGradeIDs: parameter gradeIDs is []sql.NullInt64, as sqlc declares it; mysql_types: true declares []int64", "mysql_types is fencegen's option"}},
		// Class C (F5): MySQL's # comment lines, above the annotation or
		// under it, are the method's doc comment and the Querier's, not
		// part of the SQL constant.
		{name: "hash comments on mysql", engine: "mysql", goOpts: ", emit_interface: true", schema: "CREATE TABLE t (id bigint PRIMARY KEY);\n", query: `# MySQL hash comment above the annotation
-- name: ListT :many
SELECT * FROM t;

-- name: GetT :one
# hash comment below the annotation
#no space
-- a dash comment
SELECT * FROM t WHERE id = ?;
`},
		// Class C: :execlastid on pgx/v5 has no method; its SQL constant
		// and params struct are written, as sqlc writes them.
		{name: "execlastid on pgx", engine: "postgresql", goOpts: ", emit_interface: true", schema: pgSchema, query: `-- name: GetAuthor :one
SELECT * FROM authors WHERE id = $1;

-- name: DeleteAuthorExecLastID :execlastid
DELETE FROM authors WHERE id = $1;

-- name: CreateAuthorExecLastID :execlastid
INSERT INTO authors (id, name) VALUES ($1, $2);
`, notes: []string{"note: query DeleteAuthorExecLastID has no method, only its SQL constant", "note: query CreateAuthorExecLastID has no method, only its SQL constant"}},
		// Class B (F7, case_value_param): a CASE operand in an UPDATE's
		// SET is typed and named as the assigned column, as sqlc types
		// it; with postgresql_types PostgreSQL's text (an unknown CASE operand is
		// text, and PostgreSQL then refuses text = boolean when it runs).
		{name: "CASE operand in SET", engine: "postgresql", schema: "CREATE TABLE testing (id bigint PRIMARY KEY, value text);\n", query: `-- name: Update :exec
UPDATE testing SET value = CASE $1 WHEN true THEN 'Hello' WHEN false THEN 'Goodbye' ELSE value END;
`, notes: []string{"q.sql:1:1: note: query Update: parameter value is pgtype.Text, as sqlc declares it; postgresql_types: true declares string", "postgresql_types is fencegen's option"}},
		// Class B (F3): a parameter in a COALESCE that is a function's
		// argument is interface{}, as sqlc declares it; PostgreSQL's
		// text with postgresql_types.
		{name: "COALESCE in a function call", engine: "postgresql", schema: "CREATE TABLE users (id bigint PRIMARY KEY, name text NOT NULL, email text NOT NULL);\n", query: `-- name: UpdateUser :exec
UPDATE users SET name = COALESCE(sqlc.narg('name'), name),
  email = lower(COALESCE(sqlc.narg('email'), email)) WHERE id = @id;

-- name: FindUser :many
SELECT id FROM users WHERE email = lower(COALESCE(sqlc.narg('email'), email));
`, notes: []string{"query UpdateUser: parameter email is interface{}, as sqlc declares it; postgresql_types: true declares pgtype.Text", "query FindUser: parameter email is interface{}, as sqlc declares it; postgresql_types: true declares pgtype.Text", "postgresql_types is fencegen's option"}},
		// ON CONFLICT DO UPDATE (issue 23): sqlc checks the conflict
		// columns, SET columns and SET col = EXCLUDED.col only in an
		// INSERT of one VALUES row, a SET column elsewhere only for a
		// parameter assigned to it, and no other reference.
		{name: "upsert references pg", engine: "postgresql", schema: pgSchema, query: upsertPG,
			notes: []string{`q.sql:2:95: note: query WhereMissing: PostgreSQL refuses this query: column "nme" does not exist in authors`,
				`q.sql:5:95: note: query WhereExcluded: PostgreSQL refuses this query: column "nme" does not exist in excluded`,
				`q.sql:8:92: note: query NestedExcluded: PostgreSQL refuses this query: column "nme" does not exist in excluded`,
				`q.sql:11:86: note: query OwnMissing: PostgreSQL refuses this query: column "nme" does not exist in authors`,
				`q.sql:14:77: note: query SelectSetMissing: PostgreSQL refuses this query: column "nme" of relation "authors" does not exist`,
				`q.sql:17:89: note: query ManyRowsSetMissing: PostgreSQL refuses this query: column "nme" of relation "authors" does not exist`}},
		{name: "upsert SET of a missing column pg", engine: "postgresql", schema: pgSchema, query: `-- name: SetMissing :exec
INSERT INTO authors (id, name) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET nme = 'x';
`, sqlcErr: `column "nme" of relation "authors" does not exist`},
		{name: "upsert SET of EXCLUDED's missing column pg", engine: "postgresql", schema: pgSchema, query: `-- name: SetExcluded :exec
INSERT INTO authors (id, name) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.nme;
`, sqlcErr: `column "nme"`}, // sqlc: of relation "EXCLUDED" does not exist
		{name: "upsert references mysql", engine: "mysql", schema: "CREATE TABLE authors (id bigint PRIMARY KEY, name text NOT NULL, bio text);\n", query: upsertMySQL,
			notes: []string{`q.sql:2:1: note: query SetMissing: MariaDB/MySQL refuses this query: column "nme" of relation "authors" does not exist`,
				`q.sql:5:77: note: query ValueMissing: MariaDB/MySQL refuses this query: column "nme" does not exist`,
				`q.sql:8:1: note: query SelectSetMissing: MariaDB/MySQL refuses this query: column "nme" of relation "authors" does not exist`,
				`q.sql:11:91: note: query ValuesMissing: MariaDB/MySQL refuses this query: column "nme" does not exist`}},
		{name: "upsert SET of a missing column from a parameter mysql", engine: "mysql", schema: "CREATE TABLE authors (id bigint PRIMARY KEY, name text NOT NULL, bio text);\n", query: `-- name: SetMissing :exec
INSERT INTO authors (id, name) VALUES (?, ?) ON DUPLICATE KEY UPDATE nme = ?;
`, sqlcErr: `column "nme" does not exist`},
		{name: "INSERT of a missing column from a parameter", engine: "postgresql", schema: pgSchema, query: `-- name: CreateUser :exec
INSERT INTO auth_users (email, tenant_id) VALUES (@email, @tenant_id);
`, sqlcErr: `column "tenant_id" does not exist`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{
				"schema.sql": tt.schema,
				"q.sql":      tt.query,
				"sqlc.yaml":  "version: \"2\"\nsql:\n  - {engine: " + tt.engine + ", schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, sql_package: pgx/v5" + tt.goOpts + "}}}\n",
			}
			if tt.engine == "mysql" {
				files["sqlc.yaml"] = strings.Replace(files["sqlc.yaml"], ", sql_package: pgx/v5", "", 1)
			}
			r := sqlcAndFencegen(t, files, "sqlc.yaml")
			if r.cfgErr != nil {
				t.Fatal(r.cfgErr)
			}
			out, err := r.out, r.err
			if tt.sqlcErr != "" {
				if r.sqlcErr == nil || !strings.Contains(string(r.sqlcOut), tt.sqlcErr) {
					t.Fatalf("sqlc generate: %v, want an error with %q:\n%s", r.sqlcErr, tt.sqlcErr, r.sqlcOut)
				}
				if err == nil || !strings.Contains(err.Error(), strings.TrimSuffix(tt.sqlcErr, " does not exist")) {
					t.Fatalf("fencegen: %v, want an error with %q", err, tt.sqlcErr)
				}
				return
			}
			r.mustBoth(t)
			var names []string
			for n := range out.Files {
				names = append(names, n)
			}
			sort.Strings(names)
			if want := 3 + strings.Count(tt.goOpts, "emit_interface: true"); len(names) != want {
				t.Errorf("files %v, want db.go, models.go, q.sql.go (and querier.go with emit_interface)", names)
			}
			for _, n := range names {
				want, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(n)))
				if err != nil {
					t.Errorf("%s: sqlc wrote no such file: %v", n, err)
					continue
				}
				if g, w := belowHeader(out.Files[n]), belowHeader(want); g != w {
					t.Errorf("%s differs from sqlc's below the header:\n--- fencegen\n%s\n--- sqlc\n%s", n, g, w)
				}
			}
			vet := strings.Join(out.Vet, "\n")
			if len(out.Vet) != len(tt.notes) {
				t.Errorf("%d vet notes, want %d:\n%s", len(out.Vet), len(tt.notes), vet)
			}
			for _, n := range tt.notes {
				if !strings.Contains(vet, n) {
					t.Errorf("vet has no note %q:\n%s", n, vet)
				}
			}
		})
	}
}

// upsertPG and upsertMySQL are upserts with references to a missing
// column nme that sqlc v1.31.1 does not check (TestGeneratedAsSqlcGenerates)
// and the server refuses (TestUpsertMissingColumnOnServers).
const (
	upsertPG = `-- name: WhereMissing :exec
INSERT INTO authors (id, name) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET name = $3 WHERE authors.nme = 'x';

-- name: WhereExcluded :exec
INSERT INTO authors (id, name) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET name = $3 WHERE EXCLUDED.nme = 'x';

-- name: NestedExcluded :exec
INSERT INTO authors (id, name) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET name = lower(EXCLUDED.nme);

-- name: OwnMissing :exec
INSERT INTO authors (id, name) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET name = authors.nme;

-- name: SelectSetMissing :exec
INSERT INTO authors (id, name) SELECT $1, $2 ON CONFLICT (id) DO UPDATE SET nme = 'a';

-- name: ManyRowsSetMissing :exec
INSERT INTO authors (id, name) VALUES (1, 'a'), (2, 'b') ON CONFLICT (id) DO UPDATE SET nme = 'a';
`
	upsertMySQL = `-- name: SetMissing :exec
INSERT INTO authors (id, name) VALUES (?, ?) ON DUPLICATE KEY UPDATE nme = 'x';

-- name: ValueMissing :exec
INSERT INTO authors (id, name) VALUES (?, ?) ON DUPLICATE KEY UPDATE name = nme;

-- name: SelectSetMissing :exec
INSERT INTO authors (id, name) SELECT ?, ? ON DUPLICATE KEY UPDATE nme = 'a';

-- name: ValuesMissing :exec
INSERT INTO authors (id, name) VALUES (?, ?) ON DUPLICATE KEY UPDATE name = CONCAT(VALUES(nme), 'x');
`
)

// TestUpsertMissingColumnOnServers: PostgreSQL and MariaDB refuse each
// upsert of upsertPG and upsertMySQL, which fencegen generates as sqlc
// does with a note that says so (TestGeneratedAsSqlcGenerates), naming
// the missing column.
func TestUpsertMissingColumnOnServers(t *testing.T) {
	const schema = "CREATE TABLE authors (id bigint PRIMARY KEY, name text NOT NULL, bio text)"
	t.Run("postgresql", func(t *testing.T) {
		db := testenv.Database(t, schema)
		for _, q := range strings.Split(upsertPG, "\n\n") {
			args := []any{int64(1), "a", "b"}[:strings.Count(q, "$")]
			if _, err := db.Exec(context.Background(), q, args...); err == nil || !strings.Contains(err.Error(), "nme") || !strings.Contains(err.Error(), "does not exist") {
				t.Errorf("%s\nPostgreSQL: %v, want column nme does not exist", q, err)
			}
		}
	})
	t.Run("mysql", func(t *testing.T) {
		db := testenv.MySQL(t, "", schema)
		for _, q := range strings.Split(upsertMySQL, "\n\n") {
			args := []any{int64(1), "a"}[:strings.Count(q, "?")]
			if _, err := db.Exec(q, args...); err == nil || !strings.Contains(err.Error(), "Unknown column 'nme'") {
				t.Errorf("%s\nMariaDB: %v, want Unknown column 'nme'", q, err)
			}
		}
	})
}

// TestFencedWriteRefusedWhereSqlcGenerates: the class-A problems above are
// errors in a query that writes a fenced table, where the guard is added
// only to a statement the server accepts.
func TestFencedWriteRefusedWhereSqlcGenerates(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"schema.sql": "CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL, tok bigint NOT NULL DEFAULT 0);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n",
		"q.sql": "-- name: AddJob :exec\nINSERT INTO jobs (id, state, gone) VALUES (@id, stat, NULL);\n\n" +
			"-- name: UpsertJob :exec\nINSERT INTO jobs (id, state) SELECT @id, 'a' ON CONFLICT (id) DO UPDATE SET stat = 'b' WHERE EXCLUDED.gone;\n",
		"sqlc.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, sql_package: pgx/v5}}}\n",
	}
	for n, s := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := gen.LoadConfig(filepath.Join(dir, "sqlc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = gen.Generate(context.Background(), cfg)
	if err == nil {
		t.Fatal("fenced INSERT with unresolved references generated")
	}
	for _, want := range []string{
		`q.sql:2:30: column "gone" of relation "jobs" does not exist; query AddJob writes fenced table jobs`,
		`q.sql:2:49: column "stat" does not exist; query AddJob writes fenced table jobs`,
		`q.sql:5:77: column "stat" of relation "jobs" does not exist; query UpsertJob writes fenced table jobs`,
		`q.sql:5:94: column "gone" does not exist in excluded; query UpsertJob writes fenced table jobs`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error has no %q:\n%v", want, err)
		}
	}

	// MySQL: VALUES(col) of a column jobs lacks, in a fenced upsert.
	mysqlDir := t.TempDir()
	for n, text := range map[string]string{
		"schema.sql": "CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL, tok bigint NOT NULL DEFAULT 0);\n",
		"q.sql":      "-- name: UpsertJob :exec\nINSERT INTO jobs (id, state) VALUES (?, ?) ON DUPLICATE KEY UPDATE state = VALUES(stat);\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n  - engine: mysql\n    schema: schema.sql\n    queries: q.sql\n    gen: {go: {package: x, out: out}}\n" +
			"    fence: {tables: [{table: jobs, column: tok}]}\n",
	} {
		if err := os.WriteFile(filepath.Join(mysqlDir, n), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err = gen.LoadConfig(filepath.Join(mysqlDir, "fencegen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gen.Generate(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), `q.sql:2:83: column "stat" does not exist; query UpsertJob writes fenced table jobs`) {
		t.Errorf("fenced MySQL upsert of VALUES(stat): %v, want the refusal at VALUES(stat)", err)
	}
}

// TestIdentityTypedAsSqlc (issue 23, trial-sw3 F2): an identity column
// without NOT NULL or PRIMARY KEY of its own is NOT NULL in PostgreSQL
// and nullable in sqlc v1.31.1's catalog. A configuration sqlc reads gets
// sqlc's files (pgx/v5 and database/sql, compared below the header) and a
// vet note for each place; postgresql_types (fencegen.yaml extending it)
// declares PostgreSQL's int64, and PostgreSQL itself reports the column
// NOT NULL.
func TestIdentityTypedAsSqlc(t *testing.T) {
	sqlc := testenv.SqlcBinary()
	if sqlc == "" {
		testenv.UnavailableAt(t, "sqlc v1.31.1 (go install github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1)", "SQLC", "", errors.New("not in $SQLC, GOPATH/bin or PATH"))
	}
	const schema = `CREATE TABLE t (a bigint GENERATED ALWAYS AS IDENTITY, b bigint GENERATED BY DEFAULT AS IDENTITY, d int GENERATED ALWAYS AS IDENTITY NOT NULL, name text NOT NULL);
CREATE TABLE u (id bigint GENERATED ALWAYS AS IDENTITY, v int GENERATED BY DEFAULT AS IDENTITY, PRIMARY KEY (id));
CREATE TABLE w (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, x int GENERATED BY DEFAULT AS IDENTITY);
ALTER TABLE w ALTER COLUMN x SET NOT NULL;
`
	const queries = `-- name: ListT :many
SELECT * FROM t;

-- name: GetT :one
SELECT name FROM t WHERE a = $1 AND b = @b;

-- name: ListU :many
SELECT * FROM u WHERE v = $1;

-- name: ListW :many
SELECT * FROM w;
`
	for _, tt := range []struct{ pkg, nullable string }{{"pgx/v5", "pgtype.Int8"}, {"database/sql", "sql.NullInt64"}} {
		t.Run(tt.pkg, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				"schema.sql":    schema,
				"q.sql":         queries,
				"sqlc.yaml":     "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, sql_package: " + tt.pkg + "}}}\n",
				"fencegen.yaml": "extends: sqlc.yaml\ngen: {go: {postgresql_types: true}}\n",
			}
			for n, s := range files {
				if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(sqlc, "generate")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("sqlc generate: %v\n%s", err, out)
			}
			cfg, err := gen.LoadConfig(filepath.Join(dir, "sqlc.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			out, err := gen.Generate(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			body := func(src []byte) string {
				_, rest, _ := strings.Cut(string(src), "\npackage ")
				return rest
			}
			for _, n := range []string{"out/models.go", "out/q.sql.go"} {
				want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n)))
				if err != nil {
					t.Fatal(err)
				}
				if g, w := body(out.Files[n]), body(want); g != w {
					t.Errorf("%s differs from sqlc's below the header:\n--- fencegen\n%s\n--- sqlc\n%s", n, g, w)
				}
			}
			vet := strings.Join(out.Vet, "\n")
			for _, want := range []string{
				"column t.a is " + tt.nullable + ", as sqlc declares it; postgresql_types: true declares int64",
				"column t.b is " + tt.nullable + ", as sqlc declares it; postgresql_types: true declares int64",
				"query GetT: parameter b is " + tt.nullable + ", as sqlc declares it; postgresql_types: true declares int64",
			} {
				if !strings.Contains(vet, want) {
					t.Errorf("vet has no note %q:\n%s", want, vet)
				}
			}
			for _, not := range []string{"t.d ", "u.id ", "w.x ", "w.id "} {
				if strings.Contains(vet, "column "+not) {
					t.Errorf("vet notes %s, which sqlc types NOT NULL too:\n%s", not, vet)
				}
			}
			cfg, err = gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			out, err = gen.Generate(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if m := string(out.Files["out/models.go"]); !strings.Contains(m, "\tA    int64\n") || !strings.Contains(m, "\tB    int64\n") {
				t.Errorf("postgresql_types: models.go declares no int64 A and B:\n%s", m)
			}
		})
	}
	db := testenv.Database(t, schema)
	var n int
	if err := db.QueryRow(context.Background(), `SELECT count(*) FROM pg_attribute WHERE attrelid = 't'::regclass AND attname IN ('a', 'b') AND attnotnull`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("PostgreSQL reports %d of t.a and t.b NOT NULL, want 2 (postgresql_types' int64)", n)
	}
}

// TestMySQLHavingAlias: MariaDB runs a HAVING that names a select-list
// alias, which TestGeneratedAsSqlcGenerates generates without a note
// (issue 23, trial-sw3 F9), and refuses one that names nothing.
func TestMySQLHavingAlias(t *testing.T) {
	db := testenv.MySQL(t, "", "CREATE TABLE users (id bigint primary key, name text)", "CREATE TABLE posts (id bigint primary key, user_id bigint)",
		"INSERT INTO users VALUES (1, 'a'), (2, 'b')", "INSERT INTO posts VALUES (10, 1)")
	var id, n int64
	if err := db.QueryRow(`SELECT users.id, COUNT(posts.id) AS recent_posts FROM users LEFT JOIN posts ON users.id = posts.user_id
GROUP BY users.id, users.name HAVING recent_posts > 0`).Scan(&id, &n); err != nil {
		t.Fatalf("MariaDB refused HAVING on an alias: %v", err)
	}
	if id != 1 || n != 1 {
		t.Errorf("got (%d, %d), want (1, 1)", id, n)
	}
	if _, err := db.Exec(`SELECT users.id, COUNT(posts.id) AS recent_posts FROM users LEFT JOIN posts ON users.id = posts.user_id
GROUP BY users.id HAVING nope > 0`); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("HAVING nope: %v, want MariaDB's unknown column", err)
	}
}
