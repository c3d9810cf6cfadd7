package gen_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
)

// guardTriggers are the CREATE TRIGGER statements of a generated
// fencegen_guard.sql for engine mysql (each between DELIMITER // and //).
func guardTriggers(t *testing.T, guardSQL string) []string {
	t.Helper()
	var out []string
	for _, part := range strings.Split(guardSQL, "DELIMITER //\n")[1:] {
		body, _, ok := strings.Cut(part, " //\nDELIMITER ;")
		if !ok {
			t.Fatalf("no end of a trigger in:\n%s", guardSQL)
		}
		out = append(out, body)
	}
	if len(out) == 0 {
		t.Fatalf("no trigger in:\n%s", guardSQL)
	}
	return out
}

// TestMySQLExecLastIDFencedInsertOnMariaDB: on engine mysql an INSERT
// into a fenced table stores the presented token and needs no guard, so
// :execlastid is generated for it as for a table that is not fenced, and
// on MariaDB, with the generated guard triggers installed, it returns the
// AUTO_INCREMENT id of the row it inserted, which holds the token. On a
// guarded upsert or UPDATE, whose result the guard reads, :execlastid is
// refused with MySQL's advice (:execresult), not PostgreSQL's RETURNING.
func TestMySQLExecLastIDFencedInsertOnMariaDB(t *testing.T) {
	const jobs = "CREATE TABLE jobs (id BIGINT PRIMARY KEY AUTO_INCREMENT, state VARCHAR(50), n INT, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token')"
	generate := func(queries string) (*gen.Output, error) {
		dir := t.TempDir()
		files := map[string]string{
			"schema.sql":    jobs + ";\n",
			"q.sql":         queries,
			"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
		}
		cfg := mysqlConfig(t, dir, files, "fencegen.yaml")
		return gen.Generate(context.Background(), cfg)
	}
	out, err := generate("-- name: NewJob :execlastid\nINSERT INTO jobs (state) VALUES (?);\n")
	if err != nil {
		t.Fatal(err)
	}
	code := string(out.Files["out/q.sql.go"])
	joined := strings.ReplaceAll(code, "\n// ", " ")
	for _, want := range []string{
		"func (q *Queries) NewJob(ctx context.Context, state sql.NullString, token fence.Token) (int64, error) {",
		"return result.LastInsertId()",
		"It returns the driver's last-insert id (LastInsertId) and error",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("generated code lacks %q:\n%s", want, code)
		}
	}
	_, err = generate(`-- name: UpJob :execlastid
INSERT INTO jobs (id, state) VALUES (?, ?) ON DUPLICATE KEY UPDATE state = VALUES(state);

-- name: SetJob :execlastid
UPDATE jobs SET state = ? WHERE id = ?;
`)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	for _, want := range []string{
		"q.sql:2:1: query UpJob: cannot add the fencing guard: :execlastid on a fenced upsert: ",
		"use :execresult, whose LastInsertId is the driver's",
		"q.sql:5:1: query SetJob: cannot add the fencing guard: :execlastid on a fenced UPDATE: ",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal lacks %q: %v", want, err)
		}
	}
	if strings.Contains(msg, "PostgreSQL") || strings.Contains(msg, "RETURNING") {
		t.Errorf("a MySQL refusal names PostgreSQL's terms: %v", err)
	}

	ctx := context.Background()
	db := testenv.MySQL(t, "", append([]string{jobs, "INSERT INTO jobs (id, state) VALUES (41, 'old')"}, guardTriggers(t, string(out.Files["out/fencegen_guard.sql"]))...)...)
	q := generatedConst(t, code, "newJob")
	for want := int64(42); want <= 43; want++ {
		res, err := db.ExecContext(ctx, q, "new", int64(7))
		if err != nil {
			t.Fatal(err)
		}
		id, err := res.LastInsertId()
		if err != nil || id != want {
			t.Fatalf("LastInsertId = %d, %v; want %d", id, err, want)
		}
		var tok int64
		if err := db.QueryRowContext(ctx, "SELECT fence_token FROM jobs WHERE id = ?", id).Scan(&tok); err != nil || tok != 7 {
			t.Fatalf("row %d's token = %d (%v); want 7", id, tok, err)
		}
	}
}
