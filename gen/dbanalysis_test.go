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

	"github.com/jackc/pgx/v5"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestDatabaseAnalysisAsSqlc (issue 23, trial sw4 F2): an entry with
// sqlc's database key (database: {uri: ...}), which sqlc v1.31.1
// analyses with the database, generates sqlc's files. Each case creates
// a scratch database holding the schema, runs sqlc generate against it
// and fencegen's Generate, and compares every file below the header.
// Without sqlc or PostgreSQL the test skips with one line, and fails
// under CI=true.
func TestDatabaseAnalysisAsSqlc(t *testing.T) {
	sqlc := testenv.SqlcBinary()
	if sqlc == "" {
		testenv.UnavailableAt(t, "sqlc v1.31.1 (go install github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1)", "SQLC", "", errors.New("not in $SQLC, GOPATH/bin or PATH"))
	}
	const schema = `CREATE TABLE t (a int NOT NULL, b text NOT NULL, c int NOT NULL);
CREATE TABLE u (id int NOT NULL, t_a int NOT NULL, note text NOT NULL);
`
	for _, tt := range []struct {
		name, schema, query string
		notes               []string // parts of the vet notes, one each
	}{
		{name: "mixed parameters fill the gaps", schema: schema, query: `-- name: Ins :exec
INSERT INTO t (a, b, c) VALUES ($1, @b, $3);

-- name: Upd :execrows
UPDATE t SET b = @b WHERE a = $2 AND c = @c;

-- name: Sel :many
SELECT a, b FROM t WHERE c = $3 AND a = @a AND b = $1;
`},
		{name: "parameters sqlc types only with the database", schema: schema, query: `-- name: Find :many
SELECT a FROM t WHERE b = $1 OR @flag::bool OR @q = '';

-- name: Coalesced :exec
UPDATE t SET b = lower(COALESCE(sqlc.narg('b'), b)) WHERE a = @a;

-- name: Page :many
SELECT a FROM t ORDER BY a LIMIT $1 OFFSET $2;
`},
		{name: "columns of expressions", schema: schema + "CREATE TABLE tm (at timestamp(3), n numeric(10,2), big bigint NOT NULL);\n", query: `-- name: Exprs :one
SELECT a + 1, count(*) AS n, max(c) AS mx, b || 'x' AS bx, now(), $1::numeric(10,2) AS cast_n, upper(b) FROM t GROUP BY a, b;

-- name: Sums :one
SELECT sum(big) AS total, max(at) AS latest, coalesce(n, 0) AS n0, at::date AS day FROM tm GROUP BY n, at;
`},
		{name: "nullable joins", schema: schema, query: `-- name: Join :many
SELECT t.a, u.note, u.id, t.b FROM t LEFT JOIN u ON u.t_a = t.a;

-- name: Sub :many
SELECT x.a, x.note FROM (SELECT t.a, u.note FROM t LEFT JOIN u ON u.t_a = t.a) AS x;
`},
		{name: "parameters sqlc's own reading cannot resolve", schema: schema + "CREATE TABLE roles (id int NOT NULL, user_id int NOT NULL, role text NOT NULL);\n", query: `-- name: ClaimTicket :one
WITH picked AS (SELECT * FROM t WHERE b = $1 LIMIT 1)
UPDATE t SET c = 0 WHERE a = (SELECT a FROM picked)
RETURNING *;

-- name: Promote :exec
WITH updated AS (UPDATE u SET note = @note WHERE id = @id RETURNING id)
INSERT INTO roles (id, user_id, role) SELECT 1, updated.id, @role FROM updated;
`},
		{name: "domains and enums", schema: `CREATE TYPE mood AS ENUM ('sad', 'happy');
CREATE DOMAIN email AS text;
CREATE TABLE p (id int NOT NULL, m mood NOT NULL, e email, tags text[] NOT NULL, vc varchar(20) NOT NULL, ch char(3));
`, query: `-- name: ByMood :many
SELECT id, m, e, tags, vc, ch FROM p WHERE m = $1 AND e = $2;

-- name: Star :many
SELECT * FROM p WHERE tags && @tags AND vc = ANY(@vcs::varchar[]);

-- name: Exprs :one
SELECT m::text AS mt, e || '' AS el, tags[1] AS first_tag, array_agg(id) AS ids FROM p GROUP BY m, e, tags;
`},
		// sqlc keeps its own reading's nullability with the server's
		// type: a function's argument is NOT NULL (polymorphic and
		// VARIADIC ones too), a call it resolves NOT NULL, concat
		// (not in its pg_catalog) nullable, a scalar subquery its
		// column's (trial r23s F5).
		{name: "nullability of sqlc's reading", schema: `CREATE TABLE authors (id bigint PRIMARY KEY, name text NOT NULL, tags text[] NOT NULL, meta jsonb);
CREATE TABLE books (id bigint PRIMARY KEY, author_id bigint NOT NULL, title text NOT NULL, body jsonb NOT NULL);
`, query: `-- name: Latest :many
SELECT a.id, (SELECT max(b.title) FROM books b WHERE b.author_id = a.id) AS max_title FROM authors a;

-- name: AddTag :exec
UPDATE authors SET tags = array_append(tags, @tag) WHERE id = @id;

-- name: HasTag :many
SELECT id FROM authors WHERE tags @> ARRAY[@tag]::text[];

-- name: Concat :many
SELECT concat(@prefix::text, name) AS c FROM authors;

-- name: TagPos :many
SELECT id, array_position(tags, @t) AS pos FROM authors;

-- name: Prepend :exec
UPDATE authors SET tags = array_prepend(@t, tags) WHERE id = @id;

-- name: Path :many
SELECT jsonb_extract_path_text(meta, @k) AS v FROM authors;

-- name: Removed :many
SELECT id FROM authors WHERE tags = array_remove(@arr::text[], @x);
`},
		// An extension's type on the search path, and information_schema
		// columns, whose parameters the server types (trial r23s F8).
		{name: "citext and information_schema", schema: `CREATE EXTENSION IF NOT EXISTS citext;
CREATE TABLE users (id bigint PRIMARY KEY, email citext NOT NULL UNIQUE, first text NOT NULL);
`, query: `-- name: UserByEmail :one
SELECT id, email FROM users WHERE email = $1;

-- name: CreateUser :one
INSERT INTO users (id, email, first) VALUES ($1, $2, $3) RETURNING id;

-- name: Columns :many
SELECT column_name FROM information_schema.columns WHERE table_name = @table_name;
`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			uri := testenv.NewDatabase(t)
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, uri)
			if err != nil {
				t.Fatal(err)
			}
			_, err = conn.Exec(ctx, tt.schema)
			conn.Close(ctx)
			if err != nil {
				t.Fatalf("schema: %v", err)
			}
			dir := t.TempDir()
			files := map[string]string{
				"schema.sql": tt.schema,
				"q.sql":      tt.query,
				"sqlc.yaml":  "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, database: {uri: \"" + uri + "\"}, gen: {go: {package: x, out: out, sql_package: pgx/v5}}}\n",
			}
			for n, s := range files {
				if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
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
			out, err := gen.Generate(ctx, cfg)
			if err != nil {
				t.Fatalf("refused what sqlc generates: %v", err)
			}
			body := func(src []byte) string {
				_, rest, _ := strings.Cut(string(src), "\npackage ")
				return rest
			}
			var names []string
			for n := range out.Files {
				names = append(names, n)
			}
			sort.Strings(names)
			if len(names) != 3 {
				t.Errorf("files %v, want db.go, models.go, q.sql.go", names)
			}
			for _, n := range names {
				want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n)))
				if err != nil {
					t.Errorf("%s: sqlc wrote no such file: %v", n, err)
					continue
				}
				if g, w := body(out.Files[n]), body(want); g != w {
					t.Errorf("%s differs from sqlc's below the header:\n--- fencegen\n%s\n--- sqlc\n%s", n, g, w)
				}
			}
			var vets []string
			for _, v := range out.Vet {
				// fencegen's own option, which the typing notes name.
				if !strings.Contains(v, "postgresql_types") {
					vets = append(vets, v)
				}
			}
			vet := strings.Join(vets, "\n")
			if len(vets) != len(tt.notes) {
				t.Errorf("%d vet notes, want %d:\n%s", len(vets), len(tt.notes), vet)
			}
			for _, n := range tt.notes {
				if !strings.Contains(vet, n) {
					t.Errorf("vet has no note %q:\n%s", n, vet)
				}
			}
		})
	}
}

// TestDatabaseAnalysisFails: where sqlc v1.31.1's analysis with the
// database fails, fencegen's does too, at the same place: an unreachable
// database (at the database key), a query PostgreSQL refuses to prepare
// (at the query); and without a database (analyzer: {database: false})
// a gap in the $n that a named parameter would fill is refused by both.
func TestDatabaseAnalysisFails(t *testing.T) {
	sqlc := testenv.SqlcBinary()
	if sqlc == "" {
		testenv.UnavailableAt(t, "sqlc v1.31.1 (go install github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1)", "SQLC", "", errors.New("not in $SQLC, GOPATH/bin or PATH"))
	}
	uri := testenv.NewDatabase(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	const schema = "CREATE TABLE t (a int NOT NULL, b text NOT NULL, c int NOT NULL);\n"
	_, err = conn.Exec(ctx, schema)
	conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, db, query string
		sqlcErr, err    string
	}{
		{name: "unreachable", db: `database: {uri: "postgresql://postgres@127.0.0.1:1/x"}`, query: "-- name: A :many\nSELECT a FROM t;\n",
			sqlcErr: "connect", err: "sqlc.yaml:3:107: database: cannot connect: failed to connect"},
		{name: "refused", db: `database: {uri: "` + uri + `"}`, query: "-- name: A :many\nSELECT a FROM t WHERE a = $1 AND $1 = true;\n",
			sqlcErr: "", err: "q.sql:1:1: query A: PostgreSQL refuses to prepare it:"},
		{name: "gap without a database", db: `database: {uri: "` + uri + `"}, analyzer: {database: false}`, query: "-- name: A :exec\nINSERT INTO t (a, b, c) VALUES ($1, @b, $3);\n",
			sqlcErr: "could not determine data type of parameter $2", err: `q.sql:2:37: query A: parameter $2 is missing: sqlc v1.31.1 refuses a gap in the $n ("could not determine data type of parameter $2")`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				"schema.sql": schema,
				"q.sql":      tt.query,
				"sqlc.yaml":  "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}, " + tt.db + "}\n",
			}
			for n, s := range files {
				if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(sqlc, "generate")
			cmd.Dir = dir
			b, sqlcRunErr := cmd.CombinedOutput()
			if sqlcRunErr == nil || !strings.Contains(string(b), tt.sqlcErr) {
				t.Errorf("sqlc generate: %v, want an error with %q:\n%s", sqlcRunErr, tt.sqlcErr, b)
			}
			cfg, err := gen.LoadConfig(filepath.Join(dir, "sqlc.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = gen.Generate(ctx, cfg)
			if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""), tt.err) {
				t.Errorf("fencegen: %v, want an error with %q", err, tt.err)
			}
		})
	}
}
