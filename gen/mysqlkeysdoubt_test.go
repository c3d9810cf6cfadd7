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
	wantRefusal(t, err, "generated an UPDATE of a fenced table whose primary key is in doubt", "AddShard",
		"q.sql:2:1: query PutShard: the primary key of fenced table shards may not be the one fencegen read: ",
		"schema.sql:2:1: fencegen reads it as a statement MariaDB/MySQL refuses (multiple primary keys",
		"q.sql:5:1: query DropShard: the primary key of fenced table shards may not be",
	)

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

// TestMySQLRenameBesideOtherActions (issue 27, trial r27s F2, F4, F5):
// sqlc v1.31.1 reads a MySQL ALTER TABLE holding RENAME COLUMN or RENAME
// TO as the rename alone; the server runs its other actions too. A
// foreign key ON DELETE CASCADE into a fenced table and ENGINE=MyISAM
// given beside a rename are followed (the cascading DELETE and the
// UPDATE of several rows are refused), a key change beside it is
// followed (the UPDATE is all or nothing on the new primary key), and a
// fencing token column added, or the token column changed, beside a
// rename is an error at the statement, never a table left unfenced.
func TestMySQLRenameBesideOtherActions(t *testing.T) {
	const schema = "CREATE TABLE owners (pid INT PRIMARY KEY);\n" +
		"CREATE TABLE jobs (id BIGINT PRIMARY KEY, owner INT NOT NULL, region INT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n" +
		"ALTER TABLE jobs RENAME TO jobs_v2, ADD CONSTRAINT fk_owner FOREIGN KEY (owner) REFERENCES owners (pid) ON DELETE CASCADE;\n" +
		"RENAME TABLE jobs_v2 TO jobs;\n" +
		"CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n" +
		"ALTER TABLE notes RENAME TO notes_v2, ENGINE=MyISAM;\n" +
		"ALTER TABLE jobs DROP PRIMARY KEY, RENAME COLUMN owner TO owner_id, ADD PRIMARY KEY (id, region);\n"
	const queries = "-- name: DeleteOwner :exec\nDELETE FROM owners WHERE pid = ?;\n\n" +
		"-- name: SetBodies :exec\nUPDATE notes_v2 SET body = ? WHERE body = ?;\n\n" +
		"-- name: PutJob :exec\nUPDATE jobs SET region = ? WHERE id = ?;\n"
	_, err := gen.Generate(context.Background(), mysqlGuardProject(t, schema, queries))
	wantRefusal(t, err, "generated a cascade into fenced table jobs and a guarded UPDATE of several rows of a MyISAM table", "PutJob",
		"query DeleteOwner writes fenced table jobs through foreign key of jobs to owners ON DELETE CASCADE",
		"query SetBodies: cannot add the fencing guard: an UPDATE that may match several rows of fenced table notes_v2 is not guarded on MySQL: its engine MyISAM",
	)

	for _, tc := range []struct{ name, schema, want string }{
		{"token column added beside a column rename",
			"CREATE TABLE jobs (id BIGINT PRIMARY KEY, state TEXT, worker INT NULL);\nALTER TABLE jobs RENAME COLUMN worker TO worker_id, ADD COLUMN fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token';\n",
			"schema.sql:2:1: this ALTER TABLE marks column fence_token of table jobs as the fencing token beside its rename, which fencegen cannot follow"},
		{"token column added beside a table rename",
			"CREATE TABLE j (id BIGINT PRIMARY KEY, state TEXT);\nALTER TABLE j RENAME TO jobs, ADD COLUMN fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token';\n",
			"schema.sql:2:1: this ALTER TABLE marks column fence_token of table jobs as the fencing token beside its rename"},
		{"token column redefined beside a rename",
			"CREATE TABLE jobs (id BIGINT PRIMARY KEY, state TEXT, v INT, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\nALTER TABLE jobs RENAME COLUMN v TO v2, MODIFY fence_token BIGINT NOT NULL DEFAULT 0;\n",
			"schema.sql:2:1: this ALTER TABLE changes fencing token column fence_token of table jobs beside its rename, which fencegen cannot follow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gen.Generate(context.Background(), mysqlGuardProject(t, tc.schema, "-- name: SetState :exec\nUPDATE jobs SET state = ? WHERE id = ?;\n"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v: want %q", err, tc.want)
			}
		})
	}
}

// TestFenceMarksStayWithinAnEngine (issue 27, trial r27s F3): a MySQL
// entry beside a PostgreSQL entry (alternative databases, as a project
// supporting both has) fences the MySQL table its schema marks without
// the PostgreSQL schema having the token column: entries of different
// engines share no database, so the mark does not spread to the other.
func TestFenceMarksStayWithinAnEngine(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"my.sql":  "CREATE TABLE jobs (id BIGINT PRIMARY KEY, state VARCHAR(20) NOT NULL, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n",
		"myq.sql": "-- name: SetState :exec\nUPDATE jobs SET state = ? WHERE id = ?;\n",
		"pg.sql":  "CREATE TABLE jobs (id BIGINT PRIMARY KEY, state TEXT NOT NULL);\n",
		"pgq.sql": "-- name: SetState :exec\nUPDATE jobs SET state = $1 WHERE id = $2;\n",
		"sqlc.yaml": "version: \"2\"\nsql:\n" +
			"  - {engine: mysql, schema: my.sql, queries: myq.sql, gen: {go: {package: mysqldb, out: mysqldb}}}\n" +
			"  - {engine: postgresql, schema: pg.sql, queries: pgq.sql, gen: {go: {package: postgresdb, out: postgresdb}}}\n",
	}
	out, err := gen.Generate(context.Background(), mysqlConfig(t, dir, files, "sqlc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if my := string(out.Files["mysqldb/myq.sql.go"]); !strings.Contains(my, "fencegen: guarded") {
		t.Errorf("the MySQL entry's UPDATE of fenced jobs is not guarded:\n%s", my)
	}
	if pg := string(out.Files["postgresdb/pgq.sql.go"]); strings.Contains(pg, "fencegen: guarded") {
		t.Errorf("the PostgreSQL entry's jobs, which has no token column, is guarded:\n%s", pg)
	}
}

// wantRefusal checks that err, the refusal of a generation, holds every
// text of want and does not name query kept, which is still generated;
// without a refusal the test stops with message ifGenerated.
func wantRefusal(t *testing.T, err error, ifGenerated, kept string, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatal(ifGenerated)
	}
	msg := err.Error()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("refusal %q: want %q", msg, w)
		}
	}
	if strings.Contains(msg, kept) {
		t.Errorf("refusal %q names %s", msg, kept)
	}
}
