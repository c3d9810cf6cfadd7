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
	cfg := mysqlConfig(t, dir, files, "sqlc.yaml")
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

// TestMySQLCreateProcedureIfNotExists: CREATE PROCEDURE IF NOT EXISTS of
// a procedure the schema has is a no-op on the server (MariaDB's note
// 1304), so the schema generates and CALL takes the first procedure's
// parameters; without IF NOT EXISTS the server refuses the statement, and
// so does fencegen, at the statement and naming a procedure (sqlc
// v1.31.1 refuses both, as relation "p1" already exists).
func TestMySQLCreateProcedureIfNotExists(t *testing.T) {
	run := func(second string) (string, error) {
		dir := t.TempDir()
		files := map[string]string{
			"schema.sql": "CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT);\nDELIMITER //\nCREATE PROCEDURE p1(IN x BIGINT)\nBEGIN\n  DELETE FROM notes WHERE id = x;\nEND //\n" +
				second + " p1(IN x VARCHAR(10))\nBEGIN\n  SELECT 1;\nEND //\nDELIMITER ;\n",
			"query.sql":     "-- name: CallP1 :exec\nCALL p1(?);\n",
			"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: query.sql, gen: {go: {package: db, out: db}}}\n",
		}
		cfg := mysqlConfig(t, dir, files, "fencegen.yaml")
		out, err := gen.Generate(context.Background(), cfg)
		if err != nil {
			return "", err
		}
		return string(out.Files["db/query.sql.go"]), nil
	}
	code, err := run("CREATE PROCEDURE IF NOT EXISTS")
	if err != nil {
		t.Fatalf("CREATE PROCEDURE IF NOT EXISTS of an existing procedure refused: %v", err)
	}
	if !strings.Contains(code, "func (q *Queries) CallP1(ctx context.Context, x int64) error") {
		t.Errorf("CallP1 does not take the first p1's BIGINT:\n%s", code)
	}
	_, err = run("CREATE PROCEDURE")
	if err == nil || !strings.Contains(err.Error(), `schema.sql:7:1: procedure "p1" already exists`) {
		t.Errorf("a second CREATE PROCEDURE p1: %v; want schema.sql:7:1: procedure \"p1\" already exists", err)
	}
}

// TestMySQLOtherDatabaseNames: through generate (the catalog's parsed
// statements and the write analysis's text), a DROP TRIGGER of another
// database's trigger (db.x, or after USE), of a case variant of the name,
// or a RENAME of another database's table leaves the project's trigger
// notes_touch firing on notes, as on MariaDB (TestOracleSchemaNames), so
// the INSERT that fires it is refused; the control drops it.
func TestMySQLOtherDatabaseNames(t *testing.T) {
	const base = "CREATE DATABASE otherdb;\nCREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n" +
		"CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT);\nDELIMITER //\n" +
		"CREATE TRIGGER notes_touch AFTER INSERT ON notes FOR EACH ROW BEGIN UPDATE accounts SET balance = 0 WHERE id = NEW.id; END//\nDELIMITER ;\n"
	run := func(pre, more string) error {
		dir := t.TempDir()
		files := map[string]string{
			"schema.sql":    pre + base + more,
			"query.sql":     "-- name: AddNote :exec\nINSERT INTO notes (id, body) VALUES (?, ?);\n",
			"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: query.sql, gen: {go: {package: db, out: db}}}\n",
		}
		cfg := mysqlConfig(t, dir, files, "fencegen.yaml")
		_, err := gen.Generate(context.Background(), cfg)
		return err
	}
	for _, more := range []string{
		"DROP TRIGGER IF EXISTS otherdb.notes_touch;\n",
		"USE otherdb;\nDROP TRIGGER IF EXISTS notes_touch;\n",
		"DROP TRIGGER IF EXISTS Notes_Touch;\n",
		"CREATE TABLE otherdb.notes (id BIGINT PRIMARY KEY, body TEXT);\nRENAME TABLE otherdb.notes TO otherdb.notes_old;\n",
	} {
		err := run("", more)
		if err == nil || !strings.Contains(err.Error(), "query.sql:2:13: query AddNote writes fenced table accounts through trigger notes_touch on notes") {
			t.Errorf("with %q: %v; want the INSERT refused through trigger notes_touch", more, err)
		}
	}
	if err := run("", "DROP TRIGGER IF EXISTS notes_touch;\n"); err != nil {
		t.Errorf("after DROP TRIGGER notes_touch: %v", err)
	}
	// A table dropped, altered or renamed through a name in another
	// case may be another table (lower_case_table_names=0): refused,
	// also when no table is fenced in the end.
	err := run("", "DROP TABLE IF EXISTS Accounts;\nCREATE TABLE Accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, tok BIGINT NOT NULL DEFAULT 0);\n")
	if err == nil || !strings.Contains(err.Error(), "schema.sql:7:1: table Accounts is written accounts before: MySQL keeps names that differ only in case apart") {
		t.Errorf("DROP TABLE Accounts: %v; want refused at the DROP", err)
	}
	// The catalog refuses a USE of a database that may not be the
	// project's (its tables would be read as the project's)...
	err = run("", "USE otherdb;\nDROP TABLE accounts;\n")
	if err == nil || !strings.Contains(err.Error(), "schema.sql:7:1: USE otherdb: fencegen reads the schema's unqualified names as the project's database") {
		t.Errorf("USE otherdb; DROP TABLE accounts: %v; want refused at the USE", err)
	}
	// ... and takes a USE before anything is defined (a dump's) as
	// selecting the project's database, in the catalog and the write
	// analysis alike.
	if err := run("CREATE DATABASE IF NOT EXISTS `tm2`;\nUSE `tm2`;\n", "USE tm2;\nDROP TRIGGER notes_touch;\n"); err != nil {
		t.Errorf("a dump's USE tm2, and DROP TRIGGER notes_touch after USE tm2: %v", err)
	}
}
