package guard_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/guard"
)

// The guarded statement of each form is laid out one clause per line
// after a comment naming the form, the same every time.
func TestRewriteLayout(t *testing.T) {
	spec := guard.Spec{Table: "jobs", Column: "tok", Key: []string{"id"}, Param: 3}
	for _, tc := range []struct {
		sql  string
		spec func(guard.Spec) guard.Spec
		form guard.Form
		want string
	}{
		{
			sql:  "UPDATE jobs SET state = $1 WHERE id = $2",
			form: guard.ByKey,
			want: "-- fencegen: guarded by key (jobs.tok <= $3)\n" +
				"UPDATE jobs\n" +
				"SET state = $1, tok = $3\n" +
				"WHERE id = $2 AND jobs.tok OPERATOR(pg_catalog.<=) $3\n" +
				"RETURNING 1",
		},
		{
			sql:  "UPDATE jobs SET state = $1 WHERE id = $2",
			spec: func(s guard.Spec) guard.Spec { s.Batch = true; s.Strict = true; return s },
			form: guard.Single,
			want: "-- fencegen: guarded as one row (jobs.tok < $3)\n" +
				"WITH fence_write AS (\n" +
				"    UPDATE jobs\n" +
				"    SET state = $1, tok = $3\n" +
				"    WHERE id = $2 AND jobs.tok OPERATOR(pg_catalog.<) $3\n" +
				"    RETURNING 1\n" +
				")\n" +
				"SELECT NULL::bigint AS fence_stored, NULL::bigint AS fence_rows\n" +
				"FROM fence_write\n" +
				"UNION ALL\n" +
				"SELECT jobs.tok, 1\n" +
				"FROM jobs\n" +
				"WHERE id = $2 AND NOT EXISTS (SELECT 1 FROM fence_write)",
		},
		{
			sql:  "DELETE FROM jobs j USING owners o WHERE j.owner = o.id AND o.name IS DISTINCT FROM $1 AND j.note <> 'FROM x WHERE y' RETURNING j.id",
			spec: func(s guard.Spec) guard.Spec { s.Param = 2; s.Columns = 1; return s },
			form: guard.Locking,
			want: "-- fencegen: guarded by locking the rows it matches (jobs.tok <= $2)\n" +
				"WITH fence_lock AS (\n" +
				"    SELECT j.id AS fence_key_1, j.tok AS fence_token\n" +
				"    FROM jobs j, owners o\n" +
				"    WHERE j.owner = o.id AND o.name IS DISTINCT FROM $1 AND j.note <> 'FROM x WHERE y'\n" +
				"    ORDER BY j.id\n" +
				"    FOR UPDATE OF j\n" +
				"),\n" +
				"fence_check AS (\n" +
				"    SELECT max(fence_token) AS stored, count(DISTINCT fence_key_1) FILTER (WHERE NOT (fence_token OPERATOR(pg_catalog.<=) $2)) AS refused\n" +
				"    FROM fence_lock\n" +
				"),\n" +
				"fence_write AS (\n" +
				"    DELETE FROM jobs j USING owners o\n" +
				"    WHERE ((j.owner = o.id AND o.name IS DISTINCT FROM $1 AND j.note <> 'FROM x WHERE y') AND j.tok OPERATOR(pg_catalog.<=) $2) AND (j.id IN (SELECT fence_key_1 FROM fence_lock) AND (SELECT refused FROM fence_check) = 0)\n" +
				"    RETURNING j.id\n" +
				")\n" +
				"SELECT NULL::bigint AS fence_stored, NULL::bigint AS fence_rows, fence_write.*\n" +
				"FROM fence_write\n" +
				"UNION ALL\n" +
				"SELECT stored, refused, NULL\n" +
				"FROM fence_check\n" +
				"WHERE refused > 0",
		},
		{
			sql:  "INSERT INTO jobs (id, state) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state",
			form: guard.Upsert,
			want: "-- fencegen: guarded upsert (jobs.tok <= $3)\n" +
				"WITH fence_write AS (\n" +
				"    INSERT INTO jobs (id, state, tok)\n" +
				"    VALUES ($1, $2, $3)\n" +
				"    ON CONFLICT (id) DO UPDATE\n" +
				"    SET state = excluded.state, tok = $3\n" +
				"    WHERE jobs.tok OPERATOR(pg_catalog.<=) $3\n" +
				"    RETURNING 1\n" +
				")\n" +
				"SELECT NULL::bigint AS fence_stored, NULL::bigint AS fence_rows\n" +
				"FROM fence_write\n" +
				"UNION ALL\n" +
				"SELECT jobs.tok, 1\n" +
				"FROM jobs\n" +
				"WHERE jobs.id = $1 AND NOT (jobs.tok OPERATOR(pg_catalog.<=) $3) AND NOT EXISTS (SELECT 1 FROM fence_write)",
		},
		{
			sql:  "WITH d AS (DELETE FROM jobs WHERE state = $1 RETURNING id) SELECT count(*) AS n FROM (SELECT id FROM d) x",
			spec: func(s guard.Spec) guard.Spec { s.Param = 2; s.Columns = 1; s.CTE = "d"; return s },
			form: guard.InWith,
			want: "-- fencegen: guarded in WITH entry d (jobs.tok <= $2)\n" +
				"WITH fence_lock AS (\n" +
				"    SELECT jobs.id AS fence_key_1, jobs.tok AS fence_token\n" +
				"    FROM jobs\n" +
				"    WHERE state = $1\n" +
				"    ORDER BY jobs.id\n" +
				"    FOR UPDATE OF jobs\n" +
				"),\n" +
				"fence_check AS (\n" +
				"    SELECT max(fence_token) AS stored, count(DISTINCT fence_key_1) FILTER (WHERE NOT fence_token OPERATOR(pg_catalog.<=) $2) AS refused\n" +
				"    FROM fence_lock\n" +
				"),\n" +
				"d AS (\n" +
				"    DELETE FROM jobs\n" +
				"    WHERE (state = $1 AND jobs.tok OPERATOR(pg_catalog.<=) $2) AND (jobs.id IN (SELECT fence_key_1 FROM fence_lock) AND (SELECT refused FROM fence_check) = 0)\n" +
				"    RETURNING id\n" +
				")\n" +
				"SELECT NULL::bigint AS fence_stored, NULL::bigint AS fence_rows, fence_main.*\n" +
				"FROM (\n" +
				"    SELECT count(*) AS n\n" +
				"    FROM (\n" +
				"        SELECT id\n" +
				"        FROM d\n" +
				"    ) x\n" +
				") fence_main\n" +
				"UNION ALL\n" +
				"SELECT stored, refused, NULL\n" +
				"FROM fence_check\n" +
				"WHERE refused > 0",
		},
		{
			sql:  `INSERT INTO "Jöbs" (id, "Note") VALUES ($1, $$a FROM b$$ || E'\nWHERE')`,
			spec: func(s guard.Spec) guard.Spec { s.Table = `Jöbs`; s.Param = 2; return s },
			form: guard.Store,
			want: "-- fencegen: stores the token (Jöbs.tok = $2)\n" +
				"INSERT INTO \"Jöbs\" (id, \"Note\", tok)\n" +
				"VALUES ($1, 'a FROM b' || '\nWHERE', $2)", // the deparser writes E'\n' as a line break in quotes
		},
	} {
		s := spec
		if tc.spec != nil {
			s = tc.spec(spec)
		}
		g, err := guard.Rewrite(tc.sql, s)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if g.Form != tc.form {
			t.Errorf("%s: form %v, want %v", tc.sql, g.Form, tc.form)
		}
		if g.SQL != tc.want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", tc.sql, g.SQL, tc.want)
		}
		again, err := guard.Rewrite(tc.sql, s)
		if err != nil || again.SQL != g.SQL {
			t.Errorf("%s: a second Rewrite differs: %v\n%s", tc.sql, err, again.SQL)
		}
	}
}

// Every statement the structural tests rewrite keeps its meaning when laid
// out (Layout compares parse fingerprints), and its lines follow the
// layout: indented by whole levels, each starting a clause, a WITH entry,
// or closing a block.
func TestLayoutOfRewrites(t *testing.T) {
	line := regexp.MustCompile(`^(    )*(WITH |SELECT |FROM |WHERE |SET |RETURNING |UNION|ORDER BY |FOR UPDATE |ON CONFLICT |VALUES |UPDATE |DELETE FROM |INSERT INTO |\)|[a-z_]+ (\([a-z_, ]+\) )?AS \($)`)
	for _, sql := range []string{
		"UPDATE t SET a = $1 WHERE id >= $2",
		"UPDATE t SET a = 1 FROM o WHERE t.id = o.id AND o.x = $1",
		"WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) UPDATE t SET a = 1 WHERE id IN (SELECT n FROM r)",
		"INSERT INTO t (id, a) SELECT id, a FROM s WHERE s.b = $1 ON CONFLICT (id) DO UPDATE SET a = EXCLUDED.a WHERE t.a IS DISTINCT FROM EXCLUDED.a",
	} {
		out, err := guard.FenceWrite(sql, guard.Spec{Column: "tok", Key: []string{"id"}, Param: 2, InsertTypes: []string{"bigint", "text"}})
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		for _, l := range strings.Split(out, "\n") {
			if !line.MatchString(l) {
				t.Errorf("%s: line %q is not laid out:\n%s", sql, l, out)
			}
		}
	}
	if _, err := guard.Layout("SELECT 1 FROM"); err == nil {
		t.Error("Layout of a statement that does not parse: no error")
	}
}
