package gen_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// TestMySQLNoPrimaryKeyMessage (issue 27 trial t27 F8): an UPDATE of a
// fenced MySQL table without a PRIMARY KEY is refused at the statement
// with MySQL's reason (the guard's forms look rows up by the key), not
// PostgreSQL's (which locks the matched rows by key); its upsert and
// INSERT are generated.
func TestMySQLNoPrimaryKeyMessage(t *testing.T) {
	cfg := mysqlGuardProject(t, "CREATE TABLE nopk (email VARCHAR(50) NOT NULL, v BIGINT NOT NULL DEFAULT 0, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token', UNIQUE KEY (email)) ENGINE=InnoDB;\n",
		"-- name: UpdNoPK :exec\nUPDATE nopk SET v = ? WHERE email = ?;\n\n-- name: UpsNoPK :exec\nINSERT INTO nopk (email, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = VALUES(v);\n")
	_, err := gen.Generate(context.Background(), cfg)
	if err == nil {
		t.Fatal("generated an UPDATE of a fenced table without PRIMARY KEY")
	}
	msg := err.Error()
	if !strings.Contains(msg, "q.sql:2:1: query UpdNoPK: fenced table nopk has no PRIMARY KEY; on MySQL") || strings.Contains(msg, "locks and writes") || strings.Contains(msg, "UpsNoPK") {
		t.Errorf("refusal %q: want UpdNoPK's alone, at its statement, with MySQL's reason", msg)
	}
}
