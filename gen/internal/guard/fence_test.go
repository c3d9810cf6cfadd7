package guard_test

import (
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/guard"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// id is the usual one-column primary key of the tables below.
var id = []string{"id"}

func TestFenceWrite(t *testing.T) {
	for _, tc := range []struct {
		name string
		sql  string
		spec guard.Spec
		// contains lists fragments the rewritten statement must hold.
		contains []string
		// refusedNulls is the number of NULL placeholders the refused
		// branch must carry for the query's own columns.
		refusedNulls int
	}{
		{
			// A WHERE clause that does not pin the primary key may match
			// many rows: lock them all, check, then write all or none.
			name: "update",
			sql:  "UPDATE t SET a = $1 WHERE id >= $2",
			spec: guard.Spec{Column: "tok", Key: id, Param: 3},
			contains: []string{
				"WITH fence_lock AS (\n    SELECT t.id AS fence_key_1, t.tok AS fence_token FROM t WHERE id >= $2 ORDER BY t.id FOR UPDATE OF t\n)",
				", fence_check AS (\n    SELECT max(fence_token) AS stored, count(DISTINCT fence_key_1) FILTER (WHERE NOT (fence_token OPERATOR(pg_catalog.<=) $3)) AS refused FROM fence_lock\n)",
				", fence_write AS (\n    UPDATE t SET a = $1, tok = $3 WHERE (id >= $2 AND t.tok OPERATOR(pg_catalog.<=) $3) AND (t.id IN (SELECT fence_key_1 FROM fence_lock) AND (SELECT refused FROM fence_check) = 0) RETURNING 1\n)",
				"\nSELECT NULL::bigint AS fence_stored, NULL::bigint AS fence_rows FROM fence_write\nUNION ALL\nSELECT stored, refused FROM fence_check WHERE refused > 0",
			},
		},
		{
			name: "strict",
			sql:  "UPDATE t SET a = $1 WHERE id >= $2",
			spec: guard.Spec{Column: "tok", Key: id, Param: 3, Strict: true},
			contains: []string{
				"count(DISTINCT fence_key_1) FILTER (WHERE NOT (fence_token OPERATOR(pg_catalog.<) $3)) AS refused",
				"AND t.tok OPERATOR(pg_catalog.<) $3) AND",
			},
		},
		{
			name: "alias",
			sql:  "UPDATE accounts AS a SET balance = a.balance + $1 WHERE a.id >= $2",
			spec: guard.Spec{Column: "tok", Key: id, Param: 3},
			contains: []string{
				"SELECT a.id AS fence_key_1, a.tok AS fence_token FROM accounts a WHERE a.id >= $2 ORDER BY a.id FOR UPDATE OF a",
				"UPDATE accounts a SET balance = a.balance + $1, tok = $3 WHERE (a.id >= $2 AND a.tok OPERATOR(pg_catalog.<=) $3) AND (a.id IN (SELECT fence_key_1 FROM fence_lock) AND (SELECT refused FROM fence_check) = 0)",
			},
		},
		{
			name: "schema qualified",
			sql:  "UPDATE app.jobs SET done = true WHERE id >= $1",
			spec: guard.Spec{Column: "fence", Key: id, Param: 2},
			contains: []string{
				"SELECT jobs.id AS fence_key_1, jobs.fence AS fence_token FROM app.jobs WHERE id >= $1 ORDER BY jobs.id FOR UPDATE OF jobs",
				"UPDATE app.jobs SET done = true, fence = $2 WHERE (id >= $1 AND jobs.fence OPERATOR(pg_catalog.<=) $2) AND (jobs.id IN (SELECT fence_key_1 FROM fence_lock)",
			},
		},
		{
			name: "update from",
			sql:  "UPDATE t SET a = o.a FROM other o WHERE o.t_id = t.id AND o.k = $1 RETURNING t.id, o.a",
			spec: guard.Spec{Column: "tok", Key: id, Param: 2, Columns: 2},
			contains: []string{
				// The lock matches what the write matches, FROM items
				// included, but locks the target only.
				"SELECT t.id AS fence_key_1, t.tok AS fence_token FROM t, other o WHERE o.t_id = t.id AND o.k = $1 ORDER BY t.id FOR UPDATE OF t",
				"UPDATE t SET a = o.a, tok = $2 FROM other o WHERE ((o.t_id = t.id AND o.k = $1) AND t.tok OPERATOR(pg_catalog.<=) $2) AND (t.id IN (SELECT fence_key_1 FROM fence_lock) AND (SELECT refused FROM fence_check) = 0) RETURNING t.id, o.a",
				"SELECT NULL::bigint AS fence_stored, NULL::bigint AS fence_rows, fence_write.* FROM fence_write",
				"SELECT stored, refused, NULL, NULL FROM fence_check WHERE refused > 0",
			},
			refusedNulls: 2,
		},
		{
			name: "delete using",
			sql:  "DELETE FROM t USING other o WHERE o.t_id = t.id AND o.k = $1",
			spec: guard.Spec{Column: "tok", Key: id, Param: 2},
			contains: []string{
				"SELECT t.id AS fence_key_1, t.tok AS fence_token FROM t, other o WHERE o.t_id = t.id AND o.k = $1 ORDER BY t.id FOR UPDATE OF t",
				"DELETE FROM t USING other o WHERE ((o.t_id = t.id AND o.k = $1) AND t.tok OPERATOR(pg_catalog.<=) $2) AND (t.id IN (SELECT fence_key_1 FROM fence_lock) AND (SELECT refused FROM fence_check) = 0) RETURNING 1",
			},
		},
		{
			name: "delete alias returning",
			sql:  "DELETE FROM t x WHERE x.id >= $1 RETURNING x.*",
			spec: guard.Spec{Column: "tok", Key: id, Param: 2, Columns: 4},
			contains: []string{
				"SELECT x.id AS fence_key_1, x.tok AS fence_token FROM t x WHERE x.id >= $1 ORDER BY x.id FOR UPDATE OF x",
				"DELETE FROM t x WHERE (x.id >= $1 AND x.tok OPERATOR(pg_catalog.<=) $2) AND (x.id IN (SELECT fence_key_1 FROM fence_lock)",
				"RETURNING x.*",
				"SELECT stored, refused, NULL, NULL, NULL, NULL FROM fence_check WHERE refused > 0",
			},
			refusedNulls: 4,
		},
		{
			name: "no where",
			sql:  "UPDATE t SET a = $1",
			spec: guard.Spec{Column: "tok", Key: id, Param: 2},
			contains: []string{
				"SELECT t.id AS fence_key_1, t.tok AS fence_token FROM t ORDER BY t.id FOR UPDATE OF t",
				"UPDATE t SET a = $1, tok = $2 WHERE t.tok OPERATOR(pg_catalog.<=) $2 AND (t.id IN (SELECT fence_key_1 FROM fence_lock) AND (SELECT refused FROM fence_check) = 0) RETURNING 1",
			},
		},
		{
			name: "delete no where",
			sql:  "DELETE FROM t",
			spec: guard.Spec{Column: "tok", Key: id, Param: 1, Strict: true},
			contains: []string{
				"SELECT t.id AS fence_key_1, t.tok AS fence_token FROM t ORDER BY t.id FOR UPDATE OF t",
				"FILTER (WHERE NOT (fence_token OPERATOR(pg_catalog.<) $1))",
				"DELETE FROM t WHERE t.tok OPERATOR(pg_catalog.<) $1 AND (t.id IN (SELECT fence_key_1 FROM fence_lock)",
			},
		},
		{
			// The guard must bind to the whole WHERE clause, not to its
			// last OR branch.
			name: "where with or",
			sql:  "UPDATE t SET a = 1 WHERE id = $1 OR id = $2",
			spec: guard.Spec{Column: "tok", Key: id, Param: 3},
			contains: []string{
				"FROM t WHERE id = $1 OR id = $2 ORDER BY t.id FOR UPDATE OF t",
				"WHERE ((id = $1 OR id = $2) AND t.tok OPERATOR(pg_catalog.<=) $3) AND (t.id IN",
			},
		},
		{
			name: "returning count",
			sql:  "UPDATE t SET a = $1 WHERE id >= $2 RETURNING id, a, a * 2 AS twice",
			spec: guard.Spec{Column: "tok", Key: id, Param: 3, Columns: 3},
			contains: []string{
				"RETURNING id, a, a * 2 AS twice",
				"SELECT stored, refused, NULL, NULL, NULL FROM fence_check WHERE refused > 0",
			},
			refusedNulls: 3,
		},
		{
			// Every key column is locked and matched, as a row; names
			// that need quoting stay quoted in all three places.
			name: "composite key with quoted mixed-case column",
			sql:  `UPDATE "Orders" o SET qty = $1 WHERE o."TenantID" = $2`,
			spec: guard.Spec{Column: "Tok", Key: []string{"TenantID", "line_no"}, Param: 3},
			contains: []string{
				`SELECT o."TenantID" AS fence_key_1, o.line_no AS fence_key_2, o."Tok" AS fence_token FROM "Orders" o WHERE o."TenantID" = $2 ORDER BY o."TenantID", o.line_no FOR UPDATE OF o`,
				// A row matched twice (by a join) is refused once.
				`count(DISTINCT (fence_key_1, fence_key_2)) FILTER (WHERE NOT (fence_token OPERATOR(pg_catalog.<=) $3)) AS refused`,
				`UPDATE "Orders" o SET qty = $1, "Tok" = $3 WHERE (o."TenantID" = $2 AND o."Tok" OPERATOR(pg_catalog.<=) $3) AND ((o."TenantID", o.line_no) IN (SELECT fence_key_1, fence_key_2 FROM fence_lock) AND (SELECT refused FROM fence_check) = 0)`,
			},
		},
		{
			// A key column named like a keyword is quoted too: a bare
			// user in SELECT user FROM fence_lock is CURRENT_USER.
			name: "key column is a keyword",
			sql:  `UPDATE accounts SET note = $1 WHERE "user" >= $2`,
			spec: guard.Spec{Column: "tok", Key: []string{"user"}, Param: 3},
			contains: []string{
				`SELECT accounts."user" AS fence_key_1, accounts.tok AS fence_token FROM accounts WHERE "user" >= $2 ORDER BY accounts."user" FOR UPDATE OF accounts`,
				`accounts."user" IN (SELECT fence_key_1 FROM fence_lock)`,
				`count(DISTINCT fence_key_1) FILTER`,
			},
		},
		{
			// So is a reserved word as a key column or table name.
			name: "reserved words as key column and table",
			sql:  `DELETE FROM "order" WHERE "group" = $1`,
			spec: guard.Spec{Column: "tok", Key: []string{"group", "select"}, Param: 2},
			contains: []string{
				`SELECT "order"."group" AS fence_key_1, "order"."select" AS fence_key_2, "order".tok AS fence_token FROM "order" WHERE "group" = $1 ORDER BY "order"."group", "order"."select" FOR UPDATE OF "order"`,
				`("order"."group", "order"."select") IN (SELECT fence_key_1, fence_key_2 FROM fence_lock)`,
			},
		},
		{
			name:     "insert values",
			sql:      "INSERT INTO t (a, b) VALUES ($1, $2), ($3, $2)",
			spec:     guard.Spec{Column: "tok", Key: id, Param: 4},
			contains: []string{"INSERT INTO t (a, b, tok) VALUES ($1, $2, $4), ($3, $2, $4)"},
		},
		{
			name:     "insert select",
			sql:      "INSERT INTO t (a) SELECT x FROM s WHERE y = $1 RETURNING *",
			spec:     guard.Spec{Column: "tok", Key: id, Param: 2, Columns: 3},
			contains: []string{"INSERT INTO t (a, tok) SELECT x, $2 FROM s WHERE y = $1 RETURNING *"},
		},
		{
			// An INSERT needs no key: it locks nothing.
			name:     "insert without key",
			sql:      "INSERT INTO t (a) VALUES ($1)",
			spec:     guard.Spec{Column: "tok", Param: 2},
			contains: []string{"INSERT INTO t (a, tok) VALUES ($1, $2)"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := guard.RawWrite(tc.sql, tc.spec)
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
				for _, cte := range []string{guard.WriteCTE, guard.LockCTE, guard.CheckCTE} {
					if strings.Contains(got, cte) {
						t.Errorf("INSERT must not be wrapped (found %s):\n%s", cte, got)
					}
				}
				return
			}
			// One statement: the three WITH queries in order, then the
			// two UNION branches.
			if !strings.HasPrefix(got, "WITH "+guard.LockCTE+" AS (") {
				t.Errorf("statement does not start with the lock query:\n%s", got)
			}
			iLock := strings.Index(got, guard.LockCTE+" AS (")
			iCheck := strings.Index(got, guard.CheckCTE+" AS (")
			iWrite := strings.Index(got, guard.WriteCTE+" AS (")
			if !(iLock >= 0 && iLock < iCheck && iCheck < iWrite) {
				t.Errorf("WITH queries out of order (lock %d, check %d, write %d):\n%s", iLock, iCheck, iWrite, got)
			}
			if strings.Count(got, "FOR UPDATE OF ") != 1 {
				t.Errorf("want exactly one FOR UPDATE OF:\n%s", got)
			}
			// The old shape is gone.
			if strings.Contains(got, "NOT EXISTS") || strings.Contains(got, "HAVING") {
				t.Errorf("statement still has the old NOT EXISTS/HAVING branch:\n%s", got)
			}
			// The write is gated on the check, as a whole.
			if !strings.Contains(got, "(SELECT refused FROM "+guard.CheckCTE+") = 0") {
				t.Errorf("write is not gated on %s:\n%s", guard.CheckCTE, got)
			}
			// Both UNION branches have the same width: 2 + Columns.
			parts := strings.SplitN(got, "\nUNION ALL\n", 2)
			if len(parts) != 2 {
				t.Fatalf("no UNION ALL branch:\n%s", got)
			}
			refused := parts[1]
			if !strings.HasPrefix(refused, "SELECT stored, refused") || !strings.HasSuffix(refused, "FROM "+guard.CheckCTE+" WHERE refused > 0") {
				t.Errorf("refused branch is not the fence_check row:\n%s", refused)
			}
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
		sql  string
		key  []string
		want string
	}{
		{"WITH x AS (DELETE FROM u RETURNING id) UPDATE t SET a = 1 WHERE id IN (SELECT id FROM x)", id, "WITH entry x writes"},
		{"WITH fence_lock AS (SELECT 1) DELETE FROM t", id, "reserved for fencegen's guard"},
		{"WITH t AS (SELECT 1::bigint AS id) UPDATE t SET a = 1 WHERE id IN (SELECT id FROM t)", id, "WITH query t hides table t"},
		{"INSERT INTO t (id, a) VALUES (DEFAULT, $1) ON CONFLICT (id) DO UPDATE SET a = excluded.a", id, "conflict column id is given DEFAULT"},
		{"INSERT INTO t (id, a) VALUES (gen_random_uuid(), $1) ON CONFLICT (id) DO UPDATE SET a = excluded.a", id, "gen_random_uuid(), a volatile function"},
		{"INSERT INTO t VALUES ($1)", id, "must list its columns"},
		{"INSERT INTO t DEFAULT VALUES", id, "must list its columns"},
		{"SELECT 1", id, "only INSERT, UPDATE and DELETE"},
		{"UPDATE t SET a = 1; UPDATE t SET a = 2", id, "expected one statement"},
		{"UPDATE t SET", id, "syntax error"},
		// UPDATE and DELETE lock and write by primary key: without one
		// they cannot be all or nothing.
		{"UPDATE t SET a = 1 WHERE b = $1", nil, "no primary key"},
		{"UPDATE t SET a = 1", []string{}, "no primary key"},
		{"DELETE FROM t WHERE b = $1", nil, "no primary key"},
		{"DELETE FROM t USING u WHERE u.id = t.u", nil, "no primary key"},
	} {
		_, err := guard.RawWrite(tc.sql, guard.Spec{Column: "tok", Key: tc.key, Param: 1})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FenceWrite(%q, key %q) error = %v, want one containing %q", tc.sql, tc.key, err, tc.want)
		}
	}
	// A fenced write in WITH beside an entry named like the guard's own.
	_, err := guard.RawWrite("WITH fence_check AS (SELECT 1), u AS (UPDATE t SET a = 1 RETURNING id) SELECT id FROM u",
		guard.Spec{Column: "tok", Key: id, Param: 1, CTE: "u"})
	if err == nil || !strings.Contains(err.Error(), "WITH query name fence_check is reserved") {
		t.Errorf("WITH entry named fence_check: error = %v", err)
	}
}

// A write whose WHERE clause pins every primary-key column by equality
// matches at most one row: it is all or nothing without the lock query, so
// fencegen sends the cheaper single-row form.
func TestFenceWriteSingleRow(t *testing.T) {
	for _, tc := range []struct {
		name, sql string
		spec      guard.Spec
		contains  []string
	}{
		{
			name: "update by key",
			sql:  "UPDATE t SET a = $1 WHERE id = $2",
			spec: guard.Spec{Column: "tok", Key: id, Param: 3},
			contains: []string{
				"WITH fence_write AS (\n    UPDATE t SET a = $1, tok = $3 WHERE id = $2 AND t.tok OPERATOR(pg_catalog.<=) $3 RETURNING 1\n)",
				"\nSELECT NULL::bigint AS fence_stored, NULL::bigint AS fence_rows FROM fence_write\nUNION ALL\nSELECT t.tok, 1 FROM t WHERE id = $2 AND NOT EXISTS (SELECT 1 FROM fence_write)",
			},
		},
		{
			name:     "strict, key cast and extra condition",
			sql:      "UPDATE t SET a = 1 WHERE $1::bigint = id AND a > 0",
			spec:     guard.Spec{Column: "tok", Key: id, Param: 2, Strict: true},
			contains: []string{"AND t.tok OPERATOR(pg_catalog.<) $2 RETURNING 1", "FROM t WHERE ($1::bigint = id AND (NOT t.tok OPERATOR(pg_catalog.<) $2 OR ($1::bigint = id AND a > 0))) AND NOT EXISTS"},
		},
		{
			name:     "alias, returning",
			sql:      "UPDATE accounts AS a SET balance = a.balance + $1 WHERE a.id = $2 RETURNING a.id, a.balance",
			spec:     guard.Spec{Column: "tok", Key: id, Param: 3, Columns: 2},
			contains: []string{"fence_write.* FROM fence_write", "SELECT a.tok, 1, NULL, NULL FROM accounts a WHERE a.id = $2 AND NOT EXISTS"},
		},
		{
			name:     "delete composite key",
			sql:      `DELETE FROM "Orders" o WHERE o."TenantID" = $1 AND line_no = 7`,
			spec:     guard.Spec{Column: "tok", Key: []string{"TenantID", "line_no"}, Param: 2},
			contains: []string{`DELETE FROM "Orders" o WHERE (o."TenantID" = $1 AND line_no = 7) AND o.tok OPERATOR(pg_catalog.<=) $2 RETURNING 1`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := guard.RawWrite(tc.sql, tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range tc.contains {
				if !strings.Contains(got, c) {
					t.Errorf("rewritten statement lacks\n\t%s\nin\n%s", c, got)
				}
			}
			if strings.Contains(got, guard.LockCTE) || strings.Contains(got, "FOR UPDATE") {
				t.Errorf("single-row write should not lock first:\n%s", got)
			}
			if _, err := sqlparse.ParseStatement("rewritten.sql", []byte(got)); err != nil {
				t.Errorf("rewritten statement does not parse: %v\n%s", err, got)
			}
		})
	}
	// Not single-row: a key compared with something else, OR, a join.
	for _, sql := range []string{
		"UPDATE t SET a = 1 WHERE id = $1 OR id = $2",
		"UPDATE t SET a = 1 WHERE id = other_id",
		"UPDATE t SET a = 1 FROM o WHERE t.id = $1",
		`DELETE FROM "Orders" WHERE "TenantID" = $1`,
	} {
		key := id
		if strings.Contains(sql, "Orders") {
			key = []string{"TenantID", "line_no"}
		}
		got, err := guard.RawWrite(sql, guard.Spec{Column: "tok", Key: key, Param: 3})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got, guard.LockCTE) {
			t.Errorf("%s: want the locking form:\n%s", sql, got)
		}
	}
}

// A write pinned by its primary key gets the two-statement form: the
// guarded write alone, and a stored-token read whose parameters are
// renumbered from $1.
func TestFenceByKey(t *testing.T) {
	bk, err := guard.FenceByKey("UPDATE t SET a = $1, note = 'costs $2' WHERE id = $3", guard.Spec{Column: "tok", Key: id, Param: 4})
	if err != nil || bk == nil {
		t.Fatalf("FenceByKey = %v, %v", bk, err)
	}
	if want := "UPDATE t SET a = $1, note = 'costs $2', tok = $4 WHERE id = $3 AND t.tok OPERATOR(pg_catalog.<=) $4 RETURNING 1"; bk.Write != want {
		t.Errorf("write = %s\nwant    %s", bk.Write, want)
	}
	if want := "SELECT t.tok FROM t WHERE id = $1"; bk.Stored != want {
		t.Errorf("stored = %s\nwant     %s", bk.Stored, want)
	}
	if len(bk.StoredParams) != 1 || bk.StoredParams[0] != 3 {
		t.Errorf("stored params = %v, want [3]", bk.StoredParams)
	}
	for _, sql := range []string{
		"UPDATE t SET a = 1 WHERE id > $1",
		"UPDATE t SET a = 1 FROM o WHERE t.id = $1",
		"DELETE FROM t USING o WHERE t.id = $1",
	} {
		if bk, err := guard.FenceByKey(sql, guard.Spec{Column: "tok", Key: id, Param: 2}); err != nil || bk != nil {
			t.Errorf("FenceByKey(%q) = %v, %v; want nil: not pinned by key", sql, bk, err)
		}
	}
}

// A table with INHERITS children: a pinned key can match a row in each
// child, so a by-key write takes the locking form and counts rows by table
// and key; UPDATE ONLY the table keeps the by-key form.
func TestFenceInheritedTable(t *testing.T) {
	spec := guard.Spec{Column: "tok", Key: id, Param: 3, Inherited: true}
	for _, sql := range []string{"UPDATE t SET a = $1 WHERE id = $2", "DELETE FROM t WHERE id = $1 AND $2::int > 0"} {
		if bk, err := guard.FenceByKey(sql, spec); err != nil || bk != nil {
			t.Errorf("FenceByKey(%s) = %+v, %v; want the locking form", sql, bk, err)
		}
		out, err := guard.RawWrite(sql, spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"t.tableoid AS fence_rel", "count(DISTINCT (fence_rel, fence_row))", "FOR UPDATE OF t"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s:\n%s\nwant it to hold %q", sql, out, want)
			}
		}
	}
	bk, err := guard.FenceByKey("UPDATE ONLY t SET a = $1 WHERE id = $2", spec)
	if err != nil || bk == nil || !strings.Contains(bk.Write, "UPDATE ONLY t") {
		t.Errorf("UPDATE ONLY: %+v, %v; want the by-key form", bk, err)
	}
}

// The guard's WITH queries take names the statement does not use: a
// table named fence_check or fence_lock (and fence_lock_1) that the write
// reads keeps its meaning, and the names are the same on every run
// (issue 24, trial-pg3 finding 18). PostgreSQL runs each in
// TestOracleShapes.
func TestGuardNamesAvoidTheQuerys(t *testing.T) {
	spec := guard.Spec{Column: "tok", Key: []string{"id"}, Param: 2, Columns: 0}
	for _, tc := range []struct{ sql, want, not string }{
		{"UPDATE jobs SET state = $1 WHERE id IN (SELECT fence_key_1 FROM fence_check)", "WITH fence_lock_1 AS (", "fence_check AS ("},
		{"UPDATE jobs SET state = $1 WHERE id IN (SELECT id FROM fence_lock) OR id IN (SELECT id FROM fence_lock_1)", "WITH fence_lock_2 AS (", "fence_lock_1 AS ("},
		{"WITH w AS (SELECT 1 AS id) UPDATE jobs SET state = $1 WHERE id IN (SELECT id FROM w)", "fence_lock AS (", "fence_lock_1"},
		{"DELETE FROM jobs USING fence_input WHERE jobs.id = fence_input.id AND $1::text IS NOT NULL", "WITH fence_lock_1 AS (", "fence_input AS ("},
	} {
		var first string
		for run := 0; run < 2; run++ {
			got, err := guard.RawWrite(tc.sql, spec)
			if err != nil {
				t.Fatalf("%s: %v", tc.sql, err)
			}
			if !strings.Contains(got, tc.want) || strings.Contains(got, tc.not) {
				t.Errorf("%s: guarded as\n%s\nwant %q and no %q", tc.sql, got, tc.want, tc.not)
			}
			if run == 0 {
				first = got
			} else if got != first {
				t.Errorf("%s: two runs differ:\n%s\n%s", tc.sql, first, got)
			}
		}
	}
}
