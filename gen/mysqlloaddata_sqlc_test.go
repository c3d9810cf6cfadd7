package gen_test

import (
	"strings"
	"testing"
)

// TestMySQLLoadDataOnlyQueryAsSqlc (trial t27h): sqlc v1.31.1 drops a
// LOAD DATA statement with its annotation (its MySQL converter has no
// node for it), so a query file whose one query is a LOAD DATA has no
// query, which sqlc refuses ("no queries contained in paths"). fencegen
// refused it too, but told the user the query needed the comment line it
// has; it now says what sqlc does with the statement. Beside another
// query, the dropped one is a note of vet.
func TestMySQLLoadDataOnlyQueryAsSqlc(t *testing.T) {
	const schema = "CREATE TABLE inventory (sku VARCHAR(64) NOT NULL PRIMARY KEY, qty INT NOT NULL, tok BIGINT NOT NULL DEFAULT 0);\n"
	const load = "-- name: LoadStock :exec\nLOAD DATA LOCAL INFILE '/tmp/stock.tsv' INTO TABLE inventory (sku, qty);\n"
	cfg := "version: \"2\"\nsql:\n  - engine: mysql\n    schema: schema.sql\n    queries: q.sql\n    gen: {go: {package: db, out: db}}\n"
	r := sqlcGenerate(t, map[string]string{"schema.sql": schema, "q.sql": load, "sqlc.yaml": cfg})
	if r.sqlcErr == nil || !strings.Contains(string(r.sqlcOut), "no queries contained in paths") {
		t.Fatalf("sqlc generate: %v\n%s", r.sqlcErr, r.sqlcOut)
	}
	r.fencegen("sqlc.yaml")
	if r.cfgErr != nil {
		t.Fatal(r.cfgErr)
	}
	want := "sqlc.yaml:3:5: no queries contained in paths q.sql: sqlc v1.31.1 drops query LoadStock (LOAD DATA, "
	if r.err == nil || !strings.Contains(r.err.Error(), want) || !strings.Contains(r.err.Error(), "q.sql:2:1) with its annotation") || strings.Contains(r.err.Error(), "needs a comment line") {
		t.Fatalf("fencegen: %v, want %q", r.err, want)
	}

	r = sqlcGenerate(t, map[string]string{"schema.sql": schema, "q.sql": load + "\n-- name: GetStock :one\nSELECT qty FROM inventory WHERE sku = ?;\n", "sqlc.yaml": cfg})
	r.fencegen("sqlc.yaml")
	r.mustBoth(t)
	if !strings.Contains(strings.Join(r.out.Vet, "\n"), "q.sql:2:1: note: query LoadStock: sqlc v1.31.1 drops this LOAD DATA statement with its annotation") {
		t.Errorf("vet notes lack the dropped LOAD DATA:\n%s", strings.Join(r.out.Vet, "\n"))
	}
	if strings.Contains(string(r.out.Files["db/q.sql.go"]), "LoadStock") {
		t.Errorf("LoadStock generated, which sqlc drops")
	}
}
