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

// mysqlGuardProject writes a project of engine mysql with schema and
// queries to a temporary directory and returns its configuration.
func mysqlGuardProject(t *testing.T, schema, queries string) *gen.Config {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"schema.sql":    schema,
		"q.sql":         queries,
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	cfg := mysqlConfig(t, dir, files, "fencegen.yaml")
	return cfg
}

// TestMySQLGuardKeysAsTheKeyCompares (issue 27): the BEFORE INSERT guard
// trigger looks a stored row up as its unique key compares it: on a
// prefix (UNIQUE (email(10)): a REPLACE of 'carol@examZZZ' conflicts with
// 'carol@example.com'), in the column's collation (a case-insensitive one
// makes 'ABC' and 'abc ' one key under PAD SPACE; utf8mb4_nopad_bin keeps
// 'x' and 'x ' apart), in characters (a prefix of ééé) and bytes
// (VARBINARY), on a column renamed since (CHANGE), and by a primary key
// added by ALTER TABLE. On MariaDB each
// REPLACE with token 0 of a key a token-9 row holds is refused (the row
// stays), and a REPLACE of a key no stored row holds passes.
func TestMySQLGuardKeysAsTheKeyCompares(t *testing.T) {
	schema := `CREATE TABLE acc (
  id BIGINT PRIMARY KEY,
  email VARCHAR(100) NOT NULL,
  code VARCHAR(20) NOT NULL,
  tag VARCHAR(20) NOT NULL,
  name VARCHAR(40) NOT NULL,
  bin VARBINARY(20) NOT NULL,
  fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token',
  UNIQUE KEY uq_email (email(10)),
  UNIQUE KEY uq_code (code),
  UNIQUE KEY uq_tag (tag)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE UNIQUE INDEX uq_name ON acc (name(3));
ALTER TABLE acc ADD UNIQUE uq_bin (bin(4));
ALTER TABLE acc CHANGE email mail VARCHAR(100) NOT NULL;
CREATE TABLE acc2 (id BIGINT NOT NULL, slug VARCHAR(20) NOT NULL UNIQUE, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
ALTER TABLE acc2 ADD PRIMARY KEY (id);
`
	cfg := mysqlGuardProject(t, schema, "-- name: Get :one\nSELECT id FROM acc WHERE id = ?;\n")
	out, err := gen.GenerateGuard(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	files, err := out.Guards[0].Migration("dbmate", "1")
	if err != nil {
		t.Fatal(err)
	}
	up, _, _ := strings.Cut(string(files["1_fencegen_guard.sql"]), "-- migrate:down")
	var stmts []string
	for _, s := range strings.Split(schema, ";\n") {
		if strings.TrimSpace(s) != "" {
			stmts = append(stmts, s)
		}
	}
	// The TiDB parser knows no NO PAD collation of MariaDB's: tag gets it
	// on MariaDB only (the trigger compares in the column's collation,
	// whichever it is).
	stmts = append(stmts,
		"ALTER TABLE acc MODIFY tag VARCHAR(20) COLLATE utf8mb4_nopad_bin NOT NULL",
		"INSERT INTO acc VALUES (10, 'carol@example.com', 'ABC', 'x', 'ééé1', 0x01020304aa, 9)",
		"INSERT INTO acc2 VALUES (1, 's1', 9)",
		up)
	db := testenv.MySQL(t, "multiStatements=true", stmts...)
	ctx := context.Background()
	refused := []string{
		"REPLACE INTO acc VALUES (11, 'carol@examZZZ', 'C11', 'x11', 'n11', 0x11, 0)",
		"REPLACE INTO acc VALUES (11, 'CAROL@EXAMzzz', 'C11', 'x11', 'n11', 0x11, 0)",
		"REPLACE INTO acc VALUES (11, 'dave@example.com', 'abc ', 'x11', 'n11', 0x11, 0)",
		"REPLACE INTO acc VALUES (11, 'dave@example.com', 'C11', 'x11', 'ÉÉÉ2', 0x11, 0)",
		"REPLACE INTO acc VALUES (11, 'dave@example.com', 'C11', 'x11', 'n11', 0x01020304bb, 0)",
		"INSERT INTO acc VALUES (11, 'carol@examZZZ', 'C11', 'x11', 'n11', 0x11, 0) ON DUPLICATE KEY UPDATE fence_token = 0",
		"REPLACE INTO acc2 VALUES (1, 'other', 0)",
	}
	for _, q := range refused {
		_, err := db.ExecContext(ctx, q)
		var se *fence.StaleError
		if stale := fenceimpl.TriggerError("Q", err, "acc"); !errors.As(stale, &se) || se.Presented != 0 || se.Stored != 9 {
			t.Errorf("%s: %v; want the guard's refusal, presented 0 stored 9", q, err)
		}
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT (SELECT COUNT(*) FROM acc WHERE id = 10 AND fence_token = 9) + (SELECT COUNT(*) FROM acc2 WHERE id = 1 AND fence_token = 9)").Scan(&n); err != nil || n != 2 {
		t.Fatalf("the token-9 rows: %d of 2 left (%v)", n, err)
	}
	// No stored row holds these keys as the keys compare them ('x ' is
	// not 'x' in a NO PAD collation; the prefixes differ): the guard
	// lets them in.
	for _, q := range []string{
		"REPLACE INTO acc VALUES (12, 'carol@exa.org', 'C12', 'x ', 'ééx', 0x01020305, 0)",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Errorf("%s: %v; want it to pass", q, err)
		}
	}
}

// TestMySQLGuardRefusesExpressionKey (issue 27): a unique key on an
// expression (MySQL 8's functional key parts), in CREATE TABLE, CREATE
// UNIQUE INDEX or ALTER TABLE, is a key the BEFORE INSERT trigger could
// not look rows up by: fencegen guard refuses at its statement and says
// what to do, rather than write a trigger a REPLACE conflicting on it
// gets past.
func TestMySQLGuardRefusesExpressionKey(t *testing.T) {
	const table = "CREATE TABLE acc (id BIGINT PRIMARY KEY, email VARCHAR(100) NOT NULL, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token'"
	for _, c := range []struct{ schema, at string }{
		{table + ",\n  UNIQUE KEY uq ((LOWER(email))));\n", "1:1"},
		{table + ");\nCREATE UNIQUE INDEX uq ON acc ((LOWER(email)));\n", "2:1"},
		{table + ");\nALTER TABLE acc ADD UNIQUE uq ((LOWER(email)));\n", "2:1"},
	} {
		cfg := mysqlGuardProject(t, c.schema, "-- name: Get :one\nSELECT id FROM acc WHERE id = ?;\n")
		_, err := gen.GenerateGuard(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), "schema.sql:"+c.at+": fenced table acc has a unique key fencegen does not model") ||
			!strings.Contains(err.Error(), "make the key one of columns") {
			t.Errorf("%s: %v", c.schema, err)
		}
	}
}

// TestMySQLAlteredPrimaryKeysOnMariaDB (issue 27): the catalog follows a
// primary key changed by ALTER TABLE. After DROP PRIMARY KEY, ADD
// PRIMARY KEY (id, b), UPDATE t2 ... WHERE id = ? matches rows of several
// keys and is generated all or nothing (it was "guarded by key", which
// skipped the row of a newer holder and wrote the other): run on MariaDB
// as its method runs it, a stale token is a *fence.StaleError and writes
// neither row, a current one writes both. A primary key added by ALTER
// TABLE ... ADD PRIMARY KEY makes a write by it guarded by key (it was
// refused as a table without one), and a table without one is refused
// once, saying what to do.
func TestMySQLAlteredPrimaryKeysOnMariaDB(t *testing.T) {
	schema := `CREATE TABLE t2 (id BIGINT NOT NULL, b VARCHAR(5) NOT NULL, v INT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token', PRIMARY KEY (id));
ALTER TABLE t2 DROP PRIMARY KEY, ADD PRIMARY KEY (id, b);
CREATE TABLE acc2 (id BIGINT NOT NULL, slug VARCHAR(20) NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
ALTER TABLE acc2 ADD PRIMARY KEY (id);
`
	queries := "-- name: SetV2 :exec\nUPDATE t2 SET v = ? WHERE id = ?;\n\n-- name: Bump2 :execrows\nUPDATE acc2 SET slug = ? WHERE id = ?;\n"
	out, err := gen.Generate(context.Background(), mysqlGuardProject(t, schema, queries))
	if err != nil {
		t.Fatal(err)
	}
	code := string(out.Files["out/q.sql.go"])
	for _, want := range []string{
		"-- fencegen: guarded, all or nothing (t2.tok <= the presented token)",
		"fenceimpl.MySQLAll(ctx, \"SetV2\", \"t2\", fence.NonStrict, token, func() (sql.Result, error) {\n\t\treturn q.db.ExecContext(ctx, setV2,\n\t\t\targ.V,\n\t\t\tint64(token),\n\t\t\targ.ID,\n\t\t\targ.ID,\n\t\t\tint64(token),\n\t\t)",
		"return q.db.QueryContext(ctx, fenceStoredSetV2, int64(token), int64(token), arg.V, arg.V, int64(token), arg.ID)",
		"-- fencegen: guarded by key (acc2.tok <= the presented token)",
	} {
		if !strings.Contains(code, want) {
			t.Fatalf("missing %q in:\n%s", want, code)
		}
	}
	var stmts []string
	for _, s := range strings.Split(schema, ";\n") {
		if strings.TrimSpace(s) != "" {
			stmts = append(stmts, s)
		}
	}
	stmts = append(stmts, "INSERT INTO t2 VALUES (1, 'a', 0, 9), (1, 'b', 0, 2)", "INSERT INTO acc2 VALUES (1, 's1', 9)")
	db := testenv.MySQL(t, "", stmts...)
	ctx := context.Background()
	setV2 := func(v int64, id int64, token fence.Token) (int64, error) {
		return fenceimpl.MySQLAll(ctx, "SetV2", "t2", fence.NonStrict, token, func() (sql.Result, error) {
			return db.ExecContext(ctx, generatedConst(t, code, "setV2"), v, int64(token), id, id, int64(token))
		}, func(ctx context.Context) (*sql.Rows, error) {
			return db.QueryContext(ctx, generatedConst(t, code, "fenceStoredSetV2"), int64(token), int64(token), v, v, int64(token), id)
		})
	}
	rows := func() string {
		var s string
		if err := db.QueryRowContext(ctx, "SELECT GROUP_CONCAT(CONCAT(b, '=', v, '/', tok) ORDER BY b) FROM t2").Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	var se *fence.StaleError
	if _, err := setV2(42, 1, 5); !errors.As(err, &se) || se.Stored != 9 {
		t.Fatalf("SetV2 with token 5 (row a holds 9): %v; want a *fence.StaleError stored 9", err)
	}
	if got := rows(); got != "a=0/9,b=0/2" {
		t.Fatalf("after the stale SetV2: %s; want both rows as they were", got)
	}
	if n, err := setV2(42, 1, 10); err != nil || n != 2 || rows() != "a=42/10,b=42/10" {
		t.Fatalf("SetV2 with token 10: %d, %v, rows %s; want both written", n, err, rows())
	}
	bump2 := generatedConst(t, code, "bump2")
	for _, c := range []struct {
		token fence.Token
		want  int64
	}{{5, 0}, {10, 1}} {
		res, err := db.ExecContext(ctx, bump2, "x", int64(c.token), int64(1), int64(c.token))
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != c.want {
			t.Errorf("Bump2 with token %d: %d rows; want %d", c.token, n, c.want)
		}
	}

	_, err = gen.Generate(context.Background(), mysqlGuardProject(t,
		"CREATE TABLE t3 (id BIGINT NOT NULL, v INT, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n",
		"-- name: SetV3 :exec\nUPDATE t3 SET v = ? WHERE id = ?;\n"))
	const msg = "fenced table t3 has no PRIMARY KEY"
	if err == nil || strings.Count(err.Error(), msg) != 1 || !strings.Contains(err.Error(), "q.sql:2:1: query SetV3: "+msg) || !strings.Contains(err.Error(), "ALTER TABLE t3 ADD PRIMARY KEY") {
		t.Errorf("a fenced UPDATE of a table without a primary key: %v; want it refused once, saying to add one", err)
	}
}
