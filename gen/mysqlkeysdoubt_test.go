package gen_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// TestMySQLKeysInDoubtRefused (issue 27, trial t27s F2): when the
// catalog reads a key change of a fenced table as a statement MariaDB and
// MySQL refuse (here a second PRIMARY KEY), its primary key may not be
// the server's: an UPDATE or DELETE by the key it holds is refused at the
// query, naming the schema statement, never guarded by key on it; the
// table's INSERT is still generated. The same schema with the old key
// dropped first (DROP CONSTRAINT `PRIMARY`, which MariaDB 10.2 and MySQL
// 8.0.19 run) generates the UPDATE all or nothing on the new key.
func TestMySQLKeysInDoubtRefused(t *testing.T) {
	const table = "CREATE TABLE shards (id BIGINT NOT NULL, region INT NOT NULL, v TEXT, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token', PRIMARY KEY (id));\n"
	const queries = "-- name: PutShard :exec\nUPDATE shards SET v = ? WHERE id = ?;\n\n-- name: DropShard :exec\nDELETE FROM shards WHERE id = ?;\n\n-- name: AddShard :exec\nINSERT INTO shards (id, region, v) VALUES (?, ?, ?);\n"
	cfg := mysqlGuardProject(t, table+"ALTER TABLE shards ADD PRIMARY KEY (id, region);\n", queries)
	_, err := gen.Generate(context.Background(), cfg)
	if err == nil {
		t.Fatal("generated an UPDATE of a fenced table whose primary key is in doubt")
	}
	msg := err.Error()
	for _, want := range []string{
		"q.sql:2:1: query PutShard: the primary key of fenced table shards may not be the one fencegen read: ",
		"schema.sql:2:1: fencegen reads it as a statement MariaDB/MySQL refuses (multiple primary keys",
		"q.sql:5:1: query DropShard: the primary key of fenced table shards may not be",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal %q: want %q", msg, want)
		}
	}
	if strings.Contains(msg, "AddShard") {
		t.Errorf("refusal %q names the INSERT", msg)
	}

	cfg = mysqlGuardProject(t, table+"ALTER TABLE shards DROP CONSTRAINT `PRIMARY`;\nALTER TABLE shards ADD PRIMARY KEY (id, region);\n", queries)
	out, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var src string
	for name, b := range out.Files {
		if strings.HasSuffix(name, "q.sql.go") {
			src = string(b)
		}
	}
	for _, q := range []string{"UPDATE shards SET v = ?", "DELETE FROM shards WHERE"} {
		i := strings.Index(src, q)
		if i < 0 || !strings.Contains(src[max(0, i-120):i], "all or nothing") {
			t.Errorf("%s: not guarded all or nothing after the primary key became (id, region):\n%s", q, src)
		}
	}
}
