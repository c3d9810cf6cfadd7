package gen_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// generatedConst is the text of Go raw-string constant name in code.
func generatedConst(t *testing.T, code, name string) string {
	t.Helper()
	i := strings.Index(code, "\nconst "+name+" = `")
	if i < 0 {
		t.Fatalf("no const %s in:\n%s", name, code)
	}
	s := code[i+len("\nconst "+name+" = `"):]
	return s[:strings.IndexByte(s, '`')]
}

// TestMySQLUpsertScopeOnMariaDB: in MySQL's INSERT ... ON DUPLICATE KEY
// UPDATE an unqualified column is the target table's row (there is no
// excluded; the inserted value is VALUES(col)), so the most common MySQL
// upsert, n = n + 1, is generated, as sqlc v1.31.1 generates it: on a
// table that is not fenced with sqlc's text (bio = CONCAT(bio, 'x'),
// id = id + 1000), on the fenced jobs guarded: run on MariaDB with the
// stored token 5, the stale token 3 is a *fence.StaleError and changes
// nothing, the fresh token 7 adds 1 and stores 7. Setting the token in
// the clause is refused in MySQL's words.
func TestMySQLUpsertScopeOnMariaDB(t *testing.T) {
	const jobs = "CREATE TABLE jobs (id BIGINT PRIMARY KEY, state VARCHAR(50), n INT, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token')"
	const authors = "CREATE TABLE authors (id BIGINT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(40) NOT NULL UNIQUE, bio TEXT)"
	queries := `-- name: BumpJob :exec
INSERT INTO jobs (id) VALUES (?) ON DUPLICATE KEY UPDATE n = n + 1;

-- name: AddJob :exec
INSERT INTO jobs (id, n) VALUES (?, ?) ON DUPLICATE KEY UPDATE n = jobs.n + VALUES(n);

-- name: AppendBio :exec
INSERT INTO authors (name, bio) VALUES (?, ?) ON DUPLICATE KEY UPDATE bio = CONCAT(bio, 'x');

-- name: ShiftID :exec
INSERT INTO authors (name) VALUES (?) ON DUPLICATE KEY UPDATE id = id + 1000;
`
	generate := func(queries string) (string, error) {
		dir := t.TempDir()
		files := map[string]string{
			"schema.sql":    jobs + ";\n" + authors + ";\n",
			"q.sql":         queries,
			"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
		}
		cfg := mysqlConfig(t, dir, files, "fencegen.yaml")
		out, err := gen.Generate(context.Background(), cfg)
		if err != nil {
			return "", err
		}
		return string(out.Files["out/q.sql.go"]), nil
	}
	code, err := generate(queries)
	if err != nil {
		t.Fatal(err)
	}
	// sqlc v1.31.1's text for the tables that are not fenced.
	for _, want := range []string{
		"const appendBio = `-- name: AppendBio :exec\nINSERT INTO authors (name, bio) VALUES (?, ?) ON DUPLICATE KEY UPDATE bio = CONCAT(bio, 'x')\n`",
		"func (q *Queries) AppendBio(ctx context.Context, arg AppendBioParams) error {\n\t_, err := q.db.ExecContext(ctx, appendBio, arg.Name, arg.Bio)",
		"const shiftID = `-- name: ShiftID :exec\nINSERT INTO authors (name) VALUES (?) ON DUPLICATE KEY UPDATE id = id + 1000\n`",
		"func (q *Queries) ShiftID(ctx context.Context, name string) error {",
		"func (q *Queries) BumpJob(ctx context.Context, id int64, token fence.Token) error {",
		"func (q *Queries) AddJob(ctx context.Context, arg AddJobParams, token fence.Token) error {",
	} {
		if !strings.Contains(code, want) {
			t.Errorf("generated code lacks %q:\n%s", want, code)
		}
	}
	// The refusal names the query, as the others do (trial t27h).
	for _, tc := range []struct{ q, want string }{
		{"-- name: SetToken :exec\nINSERT INTO jobs (id) VALUES (?) ON DUPLICATE KEY UPDATE fence_token = 9;\n", "query SetToken: ON DUPLICATE KEY UPDATE sets fencing token column jobs.fence_token by hand"},
		{"-- name: ForceToken :exec\nUPDATE jobs SET fence_token = ? WHERE id = ?;\n", "query ForceToken: UPDATE sets fencing token column jobs.fence_token by hand"},
		{"-- name: InsertToken :exec\nINSERT INTO jobs (id, fence_token) VALUES (?, ?);\n", "query InsertToken: INSERT sets fencing token column jobs.fence_token by hand"},
	} {
		if _, err := generate(tc.q); err == nil || !strings.Contains(err.Error(), "q.sql:2:") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.q, err, tc.want)
		}
	}

	ctx := context.Background()
	db := testenv.MySQL(t, "", jobs, authors, "INSERT INTO jobs (id, state, n, fence_token) VALUES (1, 'a', 0, 5)")
	run := func(name string, token fence.Token, args ...any) error {
		q := generatedConst(t, code, strings.ToLower(name[:1])+name[1:])
		stored := generatedConst(t, code, "fenceStored"+name)
		res, err := db.ExecContext(ctx, q, append(args, int64(token))...)
		_, err = fenceimpl.MySQLUpsert(ctx, name, "jobs", fence.NonStrict, token, res, err, func(ctx context.Context) (*sql.Rows, error) {
			return db.QueryContext(ctx, stored, args[0])
		})
		return err
	}
	state := func() (n, tok int64) {
		t.Helper()
		if err := db.QueryRowContext(ctx, "SELECT n, fence_token FROM jobs WHERE id = 1").Scan(&n, &tok); err != nil {
			t.Fatal(err)
		}
		return n, tok
	}
	var se *fence.StaleError
	if err := run("BumpJob", 3, int64(1)); !errors.As(err, &se) || se.Presented != 3 || se.Stored != 5 {
		t.Fatalf("stale BumpJob: %v; want a *fence.StaleError presented 3 stored 5", err)
	}
	if n, tok := state(); n != 0 || tok != 5 {
		t.Fatalf("after the stale BumpJob n = %d, token %d; want 0, 5", n, tok)
	}
	if err := run("BumpJob", 7, int64(1)); err != nil {
		t.Fatalf("fresh BumpJob: %v", err)
	}
	if n, tok := state(); n != 1 || tok != 7 {
		t.Fatalf("after the fresh BumpJob n = %d, token %d; want 1, 7", n, tok)
	}
	if err := run("AddJob", 3, int64(1), int64(10)); !errors.Is(err, fence.ErrStaleToken) {
		t.Fatalf("stale AddJob: %v", err)
	}
	if err := run("AddJob", 7, int64(1), int64(10)); err != nil {
		t.Fatalf("fresh AddJob: %v", err)
	}
	if n, tok := state(); n != 11 || tok != 7 {
		t.Fatalf("after AddJob n = %d, token %d; want 11, 7", n, tok)
	}

	for range 2 {
		if _, err := db.ExecContext(ctx, generatedConst(t, code, "appendBio"), "ann", "b"); err != nil {
			t.Fatal(err)
		}
	}
	var bio string
	if err := db.QueryRowContext(ctx, "SELECT bio FROM authors WHERE name = 'ann'").Scan(&bio); err != nil || bio != "bx" {
		t.Fatalf("AppendBio twice: bio %q (%v); want bx", bio, err)
	}
}
