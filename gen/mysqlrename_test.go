package gen_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestMySQLRenameTablePairs: MySQL's RENAME TABLE a TO b, c TO d, ...
// renames the pairs left to right, so a pair may take a name an earlier
// one freed: a swap (jobs TO jobs_old, jobs_new TO jobs, then DROP TABLE
// jobs_old) and a three-way exchange (a TO tmp, b TO a, tmp TO b). The
// catalog reads it as sqlc v1.31.1 does (it failed with `table
// "jobs_old" does not exist`): the generated Go equals sqlc's but for
// the header line.
func TestMySQLRenameTablePairs(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"schema.sql": `CREATE TABLE jobs (id BIGINT PRIMARY KEY, status VARCHAR(20));
CREATE TABLE jobs_new (id BIGINT PRIMARY KEY, status VARCHAR(20), n INT NOT NULL);
RENAME TABLE jobs TO jobs_old, jobs_new TO jobs;
DROP TABLE jobs_old;
CREATE TABLE a (x INT NOT NULL);
CREATE TABLE b (y TEXT);
RENAME TABLE a TO tmp, b TO a, tmp TO b;
`,
		"query.sql": `-- name: GetJob :one
SELECT * FROM jobs WHERE id = ?;

-- name: ListA :many
SELECT * FROM a;

-- name: ListB :many
SELECT * FROM b;
`,
		"sqlc.yaml": "version: \"2\"\nsql:\n  - engine: mysql\n    schema: schema.sql\n    queries: query.sql\n    gen:\n      go: {package: db, out: db}\n",
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
	out, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	models := string(out.Files["db/models.go"])
	for _, want := range []string{
		"type A struct {\n\tY sql.NullString\n}",
		"type B struct {\n\tX int32\n}",
		"type Job struct {\n\tID     int64\n\tStatus sql.NullString\n\tN      int32\n}",
	} {
		if !strings.Contains(models, want) {
			t.Errorf("models.go lacks\n%s\nin:\n%s", want, models)
		}
	}

	sqlc := testenv.SqlcBinary()
	if sqlc == "" {
		testenv.UnavailableAt(t, "sqlc v1.31.1 (go install github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1)", "SQLC", "", errors.New("not in $SQLC, GOPATH/bin or PATH"))
	}
	cmd := exec.Command(sqlc, "--no-remote", "generate")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sqlc generate: %v\n%s", err, b)
	}
	body := func(b []byte) string {
		_, rest, _ := strings.Cut(string(b), "\npackage ")
		return rest
	}
	for _, name := range []string{"db.go", "models.go", "query.sql.go"} {
		want, err := os.ReadFile(filepath.Join(dir, "db", name))
		if err != nil {
			t.Fatal(err)
		}
		if got := out.Files["db/"+name]; body(got) != body(want) || body(got) == "" {
			t.Errorf("db/%s differs from sqlc's:\n--- fencegen\n%s\n--- sqlc\n%s", name, got, want)
		}
	}
}
