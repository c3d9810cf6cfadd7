package gen_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
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
	for n, s := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestMySQLGuardKeysAsTheKeyCompares (issue 27): the BEFORE INSERT guard
// trigger looks a stored row up as its unique key compares it: on a
// prefix (UNIQUE (email(10)): a REPLACE of 'carol@examZZZ' conflicts with
// 'carol@example.com'), in the column's collation (a case-insensitive one
// makes 'ABC' and 'abc ' one key under PAD SPACE; utf8mb4_nopad_bin keeps
// 'x' and 'x ' apart), in characters (a prefix of ééé) and bytes
// (VARBINARY), and by a primary key added by ALTER TABLE. On MariaDB each
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
