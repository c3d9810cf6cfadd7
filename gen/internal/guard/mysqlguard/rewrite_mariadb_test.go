package mysqlguard_test

import (
	"database/sql"
	"errors"
	"fmt"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/guard/mysqlguard"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
)

// TestGuardedWriteIsTheWriteOnMariaDB: the guarded text is the user's
// text with the guard spliced in. Each write here is either refused by
// Rewrite or, run guarded with a fresh token, leaves the row as the plain
// write run by MariaDB leaves it (MariaDB is the oracle): a string literal
// with a backslash, CHAR(65) and INSERT(...) (which the TiDB parser would
// write back as CHAR_FUNC and INSERT_FUNC, error 1305), in the write and
// in the locked read of the stored token, are guarded; LAST_INSERT_ID()
// (which would read the guard's value) and PARTITION (...) (the guard's
// read looks in every partition) are refused. The writes marked guarded
// must not be refused; with a stale token, each guarded one must leave
// the row as it was.
func TestGuardedWriteIsTheWriteOnMariaDB(t *testing.T) {
	db := testenv.MySQL(t, "", `CREATE TABLE jobs (
	id BIGINT PRIMARY KEY,
	state VARCHAR(50),
	n INT,
	fence_token BIGINT NOT NULL DEFAULT 0
) PARTITION BY HASH(id) PARTITIONS 2`)
	// One connection: LAST_INSERT_ID is the session's.
	db.SetMaxOpenConns(1)
	jobs := mysqlguard.Spec{Column: "fence_token", Key: []string{"id"}, Param: 2, Table: "jobs", Name: "jobs"}
	tests := []struct {
		query   string
		guarded bool // must be guarded, not refused
	}{
		{`UPDATE jobs SET state = 'C:\\tmp' WHERE id = ?`, true},
		{`UPDATE jobs SET state = 'a\\nb' WHERE id = ?`, true},
		{`UPDATE jobs SET n = 9 WHERE id = ? AND state = 'x\\y'`, true},
		{`UPDATE jobs SET state = 'a\tb' WHERE id = ?`, true},
		{`UPDATE jobs SET state = CHAR(65) WHERE id = ?`, true},
		{`UPDATE jobs SET state = INSERT(state, 1, 1, 'z') WHERE id = ?`, true},
		{`UPDATE jobs SET n = LAST_INSERT_ID() WHERE id = ?`, false},
		{`UPDATE jobs PARTITION (p0) SET n = 9 WHERE id = ?`, false},
		{`DELETE FROM jobs WHERE id = ? AND state = 'x\\y'`, true},
		{`UPDATE jobs SET state = 'it''s', n = 2 WHERE id = ?`, true},
		{`UPDATE jobs SET state = CONCAT(state, '-', 'done') WHERE id = ? AND state = 'x\y'`, true},
		{`UPDATE jobs SET state = UPPER(state), n = LENGTH('abc') WHERE id = ?`, true},
		{`DELETE FROM jobs WHERE id = ? AND state <> 'gone'`, true},
		{`INSERT INTO jobs (id, state) VALUES (?, 'C:\\tmp') ON DUPLICATE KEY UPDATE state = CONCAT(state, '\\', CHAR(65))`, true},
		{`UPDATE jobs SET n = n + 1 WHERE state = 'x\\y' AND n >= ?`, true},
		{"UPDATE jobs\r\nSET state = 'caf\u00e9' -- why\r\nWHERE id = ?", true},
	}
	type outcome struct {
		state   sql.NullString
		n       sql.NullInt64
		present bool
		written bool
	}
	reset := func() {
		t.Helper()
		for _, s := range []string{"DELETE FROM jobs", `INSERT INTO jobs VALUES (1, 'x\\y', 1, 5)`, "DO LAST_INSERT_ID(0)"} {
			if _, err := db.Exec(s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	read := func() outcome {
		t.Helper()
		var o outcome
		err := db.QueryRow("SELECT state, n FROM jobs WHERE id = 1").Scan(&o.state, &o.n)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			t.Fatal(err)
		}
		o.present = err == nil
		return o
	}
	for _, tt := range tests {
		reset()
		res, err := db.Exec(tt.query, 1)
		if err != nil {
			t.Fatalf("%s: the plain write fails on MariaDB: %v", tt.query, err)
		}
		want := read()
		if k, _ := res.RowsAffected(); k > 0 {
			want.written = true
		}
		reset()
		g, err := mysqlguard.Rewrite(tt.query, jobs)
		if err != nil {
			if tt.guarded {
				t.Errorf("%s: refused: %v", tt.query, err)
			}
			continue
		}
		q := &guarded{t: t, db: db, g: g, spec: jobs}
		k, err := q.run(7, 1)
		got := read()
		switch {
		case err == nil:
			got.written = k > 0
		case errors.Is(err, fence.ErrNotFound):
		default:
			t.Errorf("%s\nguarded as %s\nfresh token: %v; the plain write: %+v", tt.query, g.SQL, err, want)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s\nguarded as %s\nleaves %+v, the plain write %+v", tt.query, g.SQL, got, want)
		}
		reset()
		before := read()
		// A stale token is refused; a row the WHERE clause rejects is not
		// found, whatever its token (docs/mysql.md).
		if _, err := q.run(3, 1); !errors.Is(err, fence.ErrStaleToken) && !(errors.Is(err, fence.ErrNotFound) && !want.written) {
			t.Errorf("%s\nguarded as %s\nstale token: %v, want fence.ErrStaleToken", tt.query, g.SQL, err)
		}
		if after := read(); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("%s\nguarded as %s\na stale token left %+v, was %+v", tt.query, g.SQL, after, before)
		}
	}
}
