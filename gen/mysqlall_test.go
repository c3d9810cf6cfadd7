package gen_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// TestMySQLAllOrNothingNeedsInnoDB: on engine mysql, an UPDATE or DELETE
// that may match several rows and an upsert of several rows are guarded
// all or nothing on a table of InnoDB (named, or the server's default)
// and refused at the statement on one whose engine does not roll a
// failed statement back (MyISAM, also when an ALTER TABLE sets it), with
// the reason, every one in the same run; the same writes by key are
// guarded there.
func TestMySQLAllOrNothingNeedsInnoDB(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"schema.sql": `CREATE TABLE accounts (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL COMMENT 'fencegen:token', balance INT NOT NULL) ENGINE=InnoDB;
CREATE TABLE wallets (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL COMMENT 'fencegen:token', balance INT NOT NULL);
CREATE TABLE legacy (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL COMMENT 'fencegen:token', balance INT NOT NULL);
ALTER TABLE legacy ENGINE = MyISAM;
`,
		"q.sql": `-- name: ResetAccounts :execrows
UPDATE accounts SET balance = 0 WHERE balance < ?;

-- name: DropWallets :execrows
DELETE FROM wallets WHERE balance = 0;

-- name: ResetLegacy :execrows
UPDATE legacy SET balance = 0 WHERE balance < ?;

-- name: UpsertLegacy :exec
INSERT INTO legacy (id, balance) VALUES (?, ?), (?, ?) ON DUPLICATE KEY UPDATE balance = VALUES(balance);

-- name: SetLegacy :exec
UPDATE legacy SET balance = ? WHERE id = ?;
`,
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	cfg := mysqlConfig(t, dir, files, "fencegen.yaml")
	_, err := gen.Generate(context.Background(), cfg)
	if err == nil {
		t.Fatal("generated an all-or-nothing write of a MyISAM table")
	}
	msg := err.Error()
	for _, want := range []string{
		"q.sql:8:1: query ResetLegacy: cannot add the fencing guard: an UPDATE that may match several rows of fenced table legacy is not guarded on MySQL: its engine MyISAM does not roll back",
		"q.sql:11:1: query UpsertLegacy: cannot add the fencing guard: an upsert of 2 rows of fenced table legacy is not guarded on MySQL: its engine MyISAM",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
	for _, q := range []string{"ResetAccounts", "DropWallets", "SetLegacy"} {
		if strings.Contains(msg, "query "+q+":") {
			t.Errorf("refused %s:\n%s", q, msg)
		}
	}
}

// TestMySQLRequiredDeclaresToken: on engine mysql, the writes generated
// for a table marked 'fencegen:token required' declare their token to
// the guard trigger for their statement (@fencegen_statement := ...,
// @fencegen_presented := ...); those of a non-strict table do not.
func TestMySQLRequiredDeclaresToken(t *testing.T) {
	files := map[string]string{
		"schema.sql": `CREATE TABLE accounts (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL COMMENT 'fencegen:token required', balance INT NOT NULL);
CREATE TABLE wallets (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL COMMENT 'fencegen:token', balance INT NOT NULL);
`,
		"q.sql": `-- name: SetAccount :exec
UPDATE accounts SET balance = ? WHERE id = ?;

-- name: SetWallet :exec
UPDATE wallets SET balance = ? WHERE id = ?;
`,
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	res := generateDir(t, files)
	out := string(res.Files["out/q.sql.go"])
	if !strings.Contains(out, "UPDATE accounts SET balance = ?, fence=LAST_INSERT_ID(IF((@fencegen_statement := CONCAT(NOW(6), ' ', X'6163636f756e7473')) IS NULL, NULL, @fencegen_presented := ?)) WHERE (id = ?)") {
		t.Errorf("SetAccount does not declare its token:\n%s", out)
	}
	if !strings.Contains(out, "UPDATE wallets SET balance = ?, fence=LAST_INSERT_ID(?) WHERE (id = ?)") {
		t.Errorf("SetWallet is not the non-strict guarded UPDATE:\n%s", out)
	}
}

// TestMySQLAllOrNothingMethods: on engine mysql, an UPDATE of several
// rows is read by fenceimpl.MySQLAll, a sweep of them (-- @fence sweep)
// through fenceimpl.Swept (no row is not an error), an upsert of two
// VALUES rows by fenceimpl.MySQLUpsertRows with 2; each method's doc
// comment says it is all or nothing.
func TestMySQLAllOrNothingMethods(t *testing.T) {
	files := map[string]string{
		"schema.sql": `CREATE TABLE jobs (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL COMMENT 'fencegen:token', status VARCHAR(10) NOT NULL);
`,
		"q.sql": `-- name: FinishJobs :execrows
UPDATE jobs SET status = 'done' WHERE status = ?;

-- name: RequeueJobs :execrows
-- @fence sweep
UPDATE jobs SET status = 'queued' WHERE status = 'running';

-- name: PutJobs :exec
INSERT INTO jobs (id, status) VALUES (?, ?), (?, ?) ON DUPLICATE KEY UPDATE status = VALUES(status);
`,
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	res := generateDir(t, files)
	out := string(res.Files["out/q.sql.go"])
	for _, want := range []string{
		"return fenceimpl.MySQLAll(ctx, \"FinishJobs\", \"jobs\", fence.NonStrict, token, func() (sql.Result, error) {",
		"return fenceimpl.Swept(fenceimpl.MySQLAll(ctx, \"RequeueJobs\", \"jobs\", fence.NonStrict, token, func() (sql.Result, error) {",
		"fenceimpl.MySQLUpsertRows(ctx, \"PutJobs\", \"jobs\", fence.NonStrict, token, 2, result, execErr, func(ctx context.Context) (*sql.Rows, error) {",
		"// FinishJobs is fenced on jobs.fence: it refuses to touch rows whose stored\n// fencing token is greater than token, and stores token in the row it writes.\n// All or nothing:",
		"-- fencegen: guarded, all or nothing (jobs.fence <= the presented token)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

// TestMySQLSliceInFencedWrite: on engine mysql, an UPDATE and a DELETE of
// a fenced table with IN (sqlc.slice(ids)) are guarded all or nothing (no
// longer refused): the guarded text keeps the list's marker in both copies
// of its WHERE clause and in the read, and the method expands every copy
// (strings.ReplaceAll), sends the list once per copy in the order of the
// `?`, and expands the read inside its function; a list in an INSERT is
// refused at the statement.
func TestMySQLSliceInFencedWrite(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"schema.sql": "CREATE TABLE jobs (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL COMMENT 'fencegen:token', status VARCHAR(10) NOT NULL);\n",
		"q.sql": `-- name: FinishJobs :execrows
UPDATE jobs SET status = ? WHERE id IN (sqlc.slice(ids));

-- name: DropJobs :exec
DELETE FROM jobs WHERE id IN (sqlc.slice(ids));
`,
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	cfg := mysqlConfig(t, dir, files, "fencegen.yaml")
	res, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Files["out/q.sql.go"])
	for _, want := range []string{
		"UPDATE jobs SET status = ?, fence=LAST_INSERT_ID(?) WHERE (id IN (/*SLICE:ids*/?)) AND CASE WHEN (id IN (/*SLICE:ids*/?)) THEN IF(",
		"FROM jobs WHERE (id IN (/*SLICE:ids*/?)) LIMIT 18446744073709551615 FOR UPDATE",
		"\tqueryParams = append(queryParams, arg.Status, int64(token))\n\tfor _, v := range arg.Ids {\n\t\tqueryParams = append(queryParams, v)\n\t}\n\tfor _, v := range arg.Ids {\n\t\tqueryParams = append(queryParams, v)\n\t}\n\tqueryParams = append(queryParams, int64(token))\n",
		"\t\tquery = strings.ReplaceAll(query, \"/*SLICE:ids*/?\", strings.Repeat(\",?\", len(arg.Ids))[1:])\n\t} else {\n\t\tquery = strings.ReplaceAll(query, \"/*SLICE:ids*/?\", \"NULL\")\n",
		"\t\tstoredQuery := fenceStoredFinishJobs\n",
		"\t\tstoredQuery = strings.ReplaceAll(storedQuery, \"/*SLICE:ids*/?\", \"NULL\")\n",
		"_, err := fenceimpl.MySQLAll(ctx, \"DropJobs\", \"jobs\", fence.NonStrict, token, func() (sql.Result, error) {",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}

	if err := os.WriteFile(filepath.Join(dir, "q.sql"), []byte("-- name: PutJob :exec\nINSERT INTO jobs (id, status) VALUES (?, ?);\n\n-- name: PutJobs :exec\nINSERT INTO jobs (id, status) SELECT id, 'new' FROM jobs WHERE id IN (sqlc.slice(ids));\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := gen.Generate(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "q.sql:5:1: query PutJobs: cannot add the fencing guard: a sqlc.slice parameter in an INSERT") {
		t.Errorf("an INSERT with sqlc.slice into a fenced table: %v, want a refusal at q.sql:5:1", err)
	}
}
