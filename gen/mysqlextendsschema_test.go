package gen_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestMySQLExtendsSchemaReadsTriggers (trial t27g, k3): sqlc v1.31.1
// stops at a CREATE TRIGGER in a MySQL schema (syntax error), so a
// project that runs sqlc keeps its triggers in migrations sqlc.yaml does
// not list, and fencegen, reading sqlc.yaml's schema, did not see a
// trigger on relay that updates fenced table acct: UPDATE relay was
// generated unguarded. A fencegen.yaml that extends sqlc.yaml names such
// files in its schema key; fencegen reads them after the entry's schema
// and refuses the UPDATE, while sqlc still reads sqlc.yaml and the
// unfenced query's file is sqlc's. A file there that defines anything
// but stored programs is refused at the statement, and a missing one at
// its place in fencegen.yaml.
func TestMySQLExtendsSchemaReadsTriggers(t *testing.T) {
	files := map[string]string{
		"schema.sql": "CREATE TABLE acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL DEFAULT 0, tok BIGINT NOT NULL DEFAULT 0);\n" +
			"CREATE TABLE relay (id BIGINT PRIMARY KEY, n BIGINT NOT NULL DEFAULT 0);\n",
		"query.sql":                         "-- name: BumpRelay :exec\nUPDATE relay SET n = n + 1 WHERE id = ?;\n\n-- name: GetRelay :one\nSELECT n FROM relay WHERE id = ?;\n",
		"sqlc.yaml":                         "version: \"2\"\nsql:\n  - engine: mysql\n    schema: schema.sql\n    queries: query.sql\n    gen: {go: {package: db, out: db}}\n",
		"migrations/triggers/001_relay.sql": "DELIMITER //\nCREATE TRIGGER relay_touch AFTER UPDATE ON relay FOR EACH ROW\nBEGIN\n  UPDATE acct SET bal = bal + 1 WHERE id = NEW.id;\nEND//\nDELIMITER ;\n",
		"without.yaml":                      "extends: sqlc.yaml\nfence:\n  tables:\n    - {table: acct, column: tok}\n",
		"fencegen.yaml":                     "extends: sqlc.yaml\nschema: migrations/triggers\nfence:\n  tables:\n    - {table: acct, column: tok}\n",
		"more.sql":                          "CREATE TABLE extra (id INT);\nCREATE TRIGGER t2 AFTER INSERT ON relay FOR EACH ROW UPDATE acct SET bal = 0;\n",
		"bad.yaml":                          "extends: sqlc.yaml\nschema: [more.sql, migrations/trigger]\nfence:\n  tables:\n    - {table: acct, column: tok}\n",
	}
	r := sqlcGenerate(t, files)
	if r.sqlcErr != nil {
		t.Fatalf("sqlc generate: %v\n%s", r.sqlcErr, r.sqlcOut)
	}
	// Without the schema key the trigger is unseen.
	r.fencegen("without.yaml")
	if r.cfgErr != nil || r.err != nil {
		t.Fatalf("without schema: %v %v", r.cfgErr, r.err)
	}
	if !strings.Contains(string(r.out.Files["db/query.sql.go"]), "func (q *Queries) BumpRelay(ctx context.Context, id int64) error {") {
		t.Fatalf("without schema, BumpRelay is not generated unfenced:\n%s", r.out.Files["db/query.sql.go"])
	}
	r.fencegen("fencegen.yaml")
	if r.cfgErr != nil {
		t.Fatal(r.cfgErr)
	}
	if want := "query.sql:2:8: query BumpRelay writes fenced table acct through trigger relay_touch on relay (update)"; r.err == nil || !strings.Contains(r.err.Error(), want) {
		t.Fatalf("with schema: %v, want %q", r.err, want)
	}
	if strings.Contains(r.err.Error(), "GetRelay") || strings.Count(r.err.Error(), "\n") > 0 {
		t.Errorf("with schema, more than BumpRelay refused:\n%v", r.err)
	}

	// Both problems in one run: a file missing, at its place in
	// bad.yaml, and a table in a file only fencegen reads.
	r.fencegen("bad.yaml")
	msg := fmt.Sprint(r.cfgErr, r.err)
	msg = strings.ReplaceAll(msg, r.dir+string(filepath.Separator), "")
	for _, want := range []string{
		"bad.yaml:2:20: migrations/trigger: no such file or directory (did you mean migrations/triggers?)",
		"more.sql:1:1: a statement other than a stored program in a schema file only fencegen reads (schema in bad.yaml) would define what sqlc's API lacks: list it in the schema of sqlc.yaml",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("bad.yaml: error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "more.sql:2:") {
		t.Errorf("bad.yaml: the trigger in more.sql refused:\n%s", msg)
	}
}
