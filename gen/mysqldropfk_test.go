package gen_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestMySQLDroppedForeignKeyFollowedOnMariaDB (issue 27 trial t27 F4): a
// migration that drops a cascading foreign key of a fenced table (ALTER
// TABLE ... DROP FOREIGN KEY, or DROP CONSTRAINT), or drops it and adds
// it back ON DELETE RESTRICT (the documented fix), clears the refusal of
// a DELETE of the parent; the key left as it is keeps it refused. On
// MariaDB the DELETE of the parent then leaves the fenced child row.
func TestMySQLDroppedForeignKeyFollowedOnMariaDB(t *testing.T) {
	base := "CREATE TABLE p3 (id BIGINT PRIMARY KEY, v INT) ENGINE=InnoDB;\n" +
		"CREATE TABLE kids3 (id BIGINT PRIMARY KEY, pid BIGINT, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token',\n" +
		"  CONSTRAINT fk_k3 FOREIGN KEY (pid) REFERENCES p3(id) ON DELETE CASCADE) ENGINE=InnoDB;\n"
	query := "-- name: DelP3 :exec\nDELETE FROM p3 WHERE id = ?;\n"
	for _, c := range []struct {
		alter   string
		refused bool
	}{
		{"", true},
		{"ALTER TABLE kids3 DROP FOREIGN KEY fk_k3;\n", false},
		{"ALTER TABLE kids3 DROP CONSTRAINT fk_k3;\n", false},
		{"ALTER TABLE kids3 DROP FOREIGN KEY fk_k3, ADD CONSTRAINT fk_k3 FOREIGN KEY (pid) REFERENCES p3(id) ON DELETE RESTRICT;\n", false},
		{"ALTER TABLE kids3 DROP FOREIGN KEY fk_other;\n", true},
	} {
		cfg := mysqlGuardProject(t, base+c.alter, query)
		_, err := gen.Generate(context.Background(), cfg)
		if refused := err != nil && strings.Contains(err.Error(), "ON DELETE CASCADE"); refused != c.refused {
			t.Errorf("after %q: refused %v (%v), want %v", c.alter, refused, err, c.refused)
		}
	}
	db := testenv.MySQL(t, "", strings.TrimSuffix(strings.Split(base, ";\n")[0], ";"), strings.Split(base, ";\n")[1],
		"ALTER TABLE kids3 DROP FOREIGN KEY fk_k3", "INSERT INTO p3 VALUES (1, 0)", "INSERT INTO kids3 VALUES (1, 1, 9)", "DELETE FROM p3 WHERE id = 1")
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM kids3 WHERE tok = 9").Scan(&n); err != nil || n != 1 {
		t.Errorf("the fenced child row after the parent's DELETE: %d (%v), want it left", n, err)
	}
}
