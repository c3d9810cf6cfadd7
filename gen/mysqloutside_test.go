package gen_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestMySQLInsertOutsideLeaseOnMariaDB: on engine mysql, as on
// PostgreSQL, an INSERT ... VALUES that gives the token column DEFAULT
// creates rows outside a lease and is generated as sqlc v1.31.1 generates
// it, without a token (it was refused as "a form ... not handed to the
// guard"). On MariaDB the row stores the default 0, below every token,
// and the same INSERT of a key that a lease's write holds (token 5) fails
// with a duplicate key (1062), leaving that row as it was. With ON
// DUPLICATE KEY UPDATE, which would write an existing row without a
// token, it is refused in MySQL's words.
func TestMySQLInsertOutsideLeaseOnMariaDB(t *testing.T) {
	const tasks = "CREATE TABLE tasks (id BIGINT PRIMARY KEY, v TEXT, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token')"
	generate := func(queries string) (string, error) {
		dir := t.TempDir()
		files := map[string]string{
			"schema.sql":    tasks + ";\n",
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
	code, err := generate("-- name: NewTask :exec\nINSERT INTO tasks (id, v, fence_token) VALUES (?, ?, DEFAULT);\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "const newTask = `-- name: NewTask :exec\nINSERT INTO tasks (id, v, fence_token) VALUES (?, ?, DEFAULT)\n`\n\n" +
		"type NewTaskParams struct {\n\tID int64\n\tV  sql.NullString\n}\n\n" +
		"func (q *Queries) NewTask(ctx context.Context, arg NewTaskParams) error {\n\t_, err := q.db.ExecContext(ctx, newTask, arg.ID, arg.V)\n\treturn err\n}\n"
	if !strings.Contains(code, want) {
		t.Errorf("NewTask is not sqlc's:\n%s", code)
	}
	_, err = generate("-- name: NewTaskUp :exec\nINSERT INTO tasks (id, v, fence_token) VALUES (?, ?, DEFAULT) ON DUPLICATE KEY UPDATE v = VALUES(v);\n")
	if err == nil || !strings.Contains(err.Error(), "q.sql:2:1: INSERT gives fencing token column tasks.fence_token DEFAULT and has ON DUPLICATE KEY UPDATE") || strings.Contains(err.Error(), "ON CONFLICT") {
		t.Errorf("the DEFAULT upsert: %v", err)
	}

	ctx := context.Background()
	db := testenv.MySQL(t, "", tasks, "INSERT INTO tasks (id, v, fence_token) VALUES (1, 'leased', 5)")
	q := generatedConst(t, code, "newTask")
	if _, err := db.ExecContext(ctx, q, int64(2), "new"); err != nil {
		t.Fatal(err)
	}
	var me *mysql.MySQLError
	if _, err := db.ExecContext(ctx, q, int64(1), "outside"); !errors.As(err, &me) || me.Number != 1062 {
		t.Fatalf("NewTask of the leased key: %v; want error 1062", err)
	}
	rows := map[int64]string{}
	for _, id := range []int64{1, 2} {
		var v string
		var tok int64
		if err := db.QueryRowContext(ctx, "SELECT v, fence_token FROM tasks WHERE id = ?", id).Scan(&v, &tok); err != nil {
			t.Fatal(err)
		}
		rows[id] = fmt.Sprintf("%s/%d", v, tok)
	}
	if rows[1] != "leased/5" || rows[2] != "new/0" {
		t.Fatalf("rows = %v; want leased/5 and new/0", rows)
	}
}

// TestMySQLParamTwoTypesMessage: a named parameter used as two types in a
// fenced MySQL write is refused at the parameter in MySQL's terms (each ?
// is bound on its own; no PostgreSQL, no $1::type cast advice).
func TestMySQLParamTwoTypesMessage(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"schema.sql":    "CREATE TABLE tasks (id BIGINT PRIMARY KEY, v TEXT, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n",
		"q.sql":         "-- name: TwoTypes :exec\nUPDATE tasks SET v = sqlc.arg(id) WHERE id = sqlc.arg(id);\n\n-- name: One :one\nUPDATE tasks SET v = ? WHERE id = ?;\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	cfg := mysqlConfig(t, dir, files, "fencegen.yaml")
	_, err := gen.Generate(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "q.sql:2:22: query TwoTypes: parameter id is used as text here and as bigint elsewhere") ||
		!strings.Contains(err.Error(), "give each use its own parameter") || strings.Contains(err.Error(), "PostgreSQL") || strings.Contains(err.Error(), "$1") {
		t.Errorf("a fenced MySQL write with a parameter of two types: %v", err)
	}
	if !strings.Contains(err.Error(), "query One: :one needs a statement that returns rows (MySQL returns no rows from a write: use :exec, :execrows, :execresult or :execlastid)") || strings.Contains(err.Error(), "RETURNING") {
		t.Errorf("a MySQL :one UPDATE: %v", err)
	}
}
