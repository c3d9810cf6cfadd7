package sqlparse_test

import (
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

func TestFenceWrite(t *testing.T) {
	for _, tc := range []struct {
		name string
		sql  string
		spec sqlparse.FenceSpec
		// contains lists fragments the rewritten statement must hold.
		contains []string
		// refusedNulls is the number of NULL placeholders the refused
		// branch must carry for the query's own columns.
		refusedNulls int
	}{
		{
			name: "update",
			sql:  "UPDATE t SET a = $1 WHERE id = $2",
			spec: sqlparse.FenceSpec{Column: "tok", Param: 3},
			contains: []string{
				"WITH fence_write AS (",
				"UPDATE t SET a = $1, tok = $3 WHERE id = $2 AND t.tok <= $3 RETURNING 1",
				"SELECT NULL::bigint AS fence_stored, NULL::bigint AS fence_rows FROM fence_write",
				"UNION ALL",
				"SELECT max(t.tok) AS fence_stored, count(*) AS fence_rows FROM t WHERE id = $2 AND NOT EXISTS (SELECT 1 FROM fence_write) HAVING count(*) > 0",
			},
		},
		{
			name:     "strict",
			sql:      "UPDATE t SET a = $1 WHERE id = $2",
			spec:     sqlparse.FenceSpec{Column: "tok", Param: 3, Strict: true},
			contains: []string{"AND t.tok < $3 RETURNING 1"},
		},
		{
			name: "alias",
			sql:  "UPDATE accounts AS a SET balance = a.balance + $1 WHERE a.id = $2",
			spec: sqlparse.FenceSpec{Column: "tok", Param: 3},
			contains: []string{
				"UPDATE accounts a SET balance = a.balance + $1, tok = $3 WHERE a.id = $2 AND a.tok <= $3",
				"SELECT max(a.tok) AS fence_stored, count(*) AS fence_rows FROM accounts a WHERE a.id = $2 AND NOT EXISTS",
			},
		},
		{
			name: "schema qualified",
			sql:  "UPDATE app.jobs SET done = true WHERE id = $1",
			spec: sqlparse.FenceSpec{Column: "fence", Param: 2},
			contains: []string{
				"UPDATE app.jobs SET done = true, fence = $2 WHERE id = $1 AND jobs.fence <= $2",
				"FROM app.jobs WHERE id = $1 AND NOT EXISTS",
			},
		},
		{
			name: "update from",
			sql:  "UPDATE t SET a = o.a FROM other o WHERE o.t_id = t.id AND o.k = $1 RETURNING t.id, o.a",
			spec: sqlparse.FenceSpec{Column: "tok", Param: 2, Columns: 2},
			contains: []string{
				"UPDATE t SET a = o.a, tok = $2 FROM other o WHERE (o.t_id = t.id AND o.k = $1) AND t.tok <= $2 RETURNING t.id, o.a",
				"fence_write.* FROM fence_write",
				"FROM t, other o WHERE (o.t_id = t.id AND o.k = $1) AND NOT EXISTS",
			},
			refusedNulls: 2,
		},
		{
			name: "delete using",
			sql:  "DELETE FROM t USING other o WHERE o.t_id = t.id AND o.k = $1",
			spec: sqlparse.FenceSpec{Column: "tok", Param: 2},
			contains: []string{
				"DELETE FROM t USING other o WHERE (o.t_id = t.id AND o.k = $1) AND t.tok <= $2 RETURNING 1",
				"FROM t, other o WHERE (o.t_id = t.id AND o.k = $1) AND NOT EXISTS",
			},
		},
		{
			name: "delete alias returning",
			sql:  "DELETE FROM t x WHERE x.id = $1 RETURNING x.*",
			spec: sqlparse.FenceSpec{Column: "tok", Param: 2, Columns: 4},
			contains: []string{
				"DELETE FROM t x WHERE x.id = $1 AND x.tok <= $2 RETURNING x.*",
				"SELECT max(x.tok) AS fence_stored, count(*) AS fence_rows, NULL, NULL, NULL, NULL FROM t x WHERE",
			},
			refusedNulls: 4,
		},
		{
			name: "no where",
			sql:  "UPDATE t SET a = $1",
			spec: sqlparse.FenceSpec{Column: "tok", Param: 2},
			contains: []string{
				"UPDATE t SET a = $1, tok = $2 WHERE t.tok <= $2 RETURNING 1",
				"FROM t WHERE NOT EXISTS (SELECT 1 FROM fence_write) HAVING count(*) > 0",
			},
		},
		{
			name: "delete no where",
			sql:  "DELETE FROM t",
			spec: sqlparse.FenceSpec{Column: "tok", Param: 1, Strict: true},
			contains: []string{
				"DELETE FROM t WHERE t.tok < $1 RETURNING 1",
				"FROM t WHERE NOT EXISTS",
			},
		},
		{
			// The guard must bind to the whole WHERE clause, not to its
			// last OR branch.
			name: "where with or",
			sql:  "UPDATE t SET a = 1 WHERE id = $1 OR id = $2",
			spec: sqlparse.FenceSpec{Column: "tok", Param: 3},
			contains: []string{
				"WHERE (id = $1 OR id = $2) AND t.tok <= $3",
				"WHERE (id = $1 OR id = $2) AND NOT EXISTS",
			},
		},
		{
			name: "returning count",
			sql:  "UPDATE t SET a = $1 WHERE id = $2 RETURNING id, a, a * 2 AS twice",
			spec: sqlparse.FenceSpec{Column: "tok", Param: 3, Columns: 3},
			contains: []string{
				"RETURNING id, a, a * 2 AS twice",
				"count(*) AS fence_rows, NULL, NULL, NULL FROM t",
			},
			refusedNulls: 3,
		},
		{
			name:     "insert values",
			sql:      "INSERT INTO t (a, b) VALUES ($1, $2), ($3, $2)",
			spec:     sqlparse.FenceSpec{Column: "tok", Param: 4},
			contains: []string{"INSERT INTO t (a, b, tok) VALUES ($1, $2, $4), ($3, $2, $4)"},
		},
		{
			name:     "insert select",
			sql:      "INSERT INTO t (a) SELECT x FROM s WHERE y = $1 RETURNING *",
			spec:     sqlparse.FenceSpec{Column: "tok", Param: 2, Columns: 3},
			contains: []string{"INSERT INTO t (a, tok) SELECT x, $2 FROM s WHERE y = $1 RETURNING *"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sqlparse.FenceWrite(tc.sql, tc.spec)
			if err != nil {
				t.Fatalf("FenceWrite: %v", err)
			}
			for _, c := range tc.contains {
				if !strings.Contains(got, c) {
					t.Errorf("rewritten statement lacks\n\t%s\nin\n%s", c, got)
				}
			}
			if _, err := sqlparse.ParseStatement("rewritten.sql", []byte(got)); err != nil {
				t.Errorf("rewritten statement does not parse: %v\n%s", err, got)
			}
			if strings.HasPrefix(tc.sql, "INSERT") {
				if strings.Contains(got, sqlparse.WriteCTE) {
					t.Errorf("INSERT must not be wrapped:\n%s", got)
				}
				return
			}
			// Both UNION branches have the same width: 2 + Columns.
			parts := strings.SplitN(got, "\nUNION ALL\n", 2)
			if len(parts) != 2 {
				t.Fatalf("no UNION ALL branch:\n%s", got)
			}
			refused := parts[1]
			if n := strings.Count(refused, ", NULL"); n != tc.refusedNulls {
				t.Errorf("refused branch has %d NULL columns, want %d:\n%s", n, tc.refusedNulls, refused)
			}
			if (tc.refusedNulls > 0) != strings.Contains(parts[0], "fence_write.*") {
				t.Errorf("written branch selects fence_write.* = %v, want %v:\n%s", !(tc.refusedNulls > 0), tc.refusedNulls > 0, parts[0])
			}
		})
	}
}

func TestFenceWriteErrors(t *testing.T) {
	for _, tc := range []struct {
		sql, want string
	}{
		{"WITH x AS (SELECT 1) UPDATE t SET a = 1", "cannot have its own WITH clause"},
		{"WITH x AS (SELECT 1) DELETE FROM t", "cannot have its own WITH clause"},
		{"INSERT INTO t VALUES ($1)", "must list its columns"},
		{"INSERT INTO t DEFAULT VALUES", "must list its columns"},
		{"INSERT INTO t (a) SELECT 1 UNION SELECT 2", "UNION/INTERSECT/EXCEPT"},
		{"SELECT 1", "only INSERT, UPDATE and DELETE"},
		{"UPDATE t SET a = 1; UPDATE t SET a = 2", "expected one statement"},
		{"UPDATE t SET", "syntax error"},
	} {
		_, err := sqlparse.FenceWrite(tc.sql, sqlparse.FenceSpec{Column: "tok", Param: 1})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FenceWrite(%q) error = %v, want one containing %q", tc.sql, err, tc.want)
		}
	}
}
