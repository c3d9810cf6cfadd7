package analyze

import (
	"strings"
	"testing"
)

// TestResultColumnsNamedAsSqlc checks the names of a query's result
// columns against the names sqlc v1.31.1 gives them (run on this schema
// and these queries; gen's TestNamesMatchSqlc runs sqlc itself), and
// that a CTE's columns keep PostgreSQL's names for the SQL that refers
// to them.
func TestResultColumnsNamedAsSqlc(t *testing.T) {
	const schema = `CREATE TABLE items (id bigint PRIMARY KEY, qty int NOT NULL, api_key text, tags text[]);`
	for _, tt := range []struct{ query, want string }{
		{"SELECT u.api_key::text, api_key::varchar, CAST(u.qty AS bigint) FROM items u", "u_api_key api_key u_qty"},
		{"SELECT 'x'::text, now()::date, 1::int, count(*)::int, (qty + 1)::bigint, qty::int::text, NULL::text FROM items GROUP BY qty",
			"column_1 column_2 column_3 column_4 column_5 column_6 column_7"},
		{"SELECT CASE WHEN qty > 1 THEN 1 ELSE 2 END, greatest(qty, 1), least(qty, 2), ROW(1, 2)::text, tags[1] FROM items",
			"column_1 column_2 column_3 column_4 column_5"},
		{"SELECT EXISTS (SELECT 1 FROM items), NOT EXISTS (SELECT 1 FROM items), ARRAY(SELECT id FROM items), (SELECT max(id) FROM items)",
			"exists not_exists exists max"},
		{"SELECT 'lit', 42, qty + 1, -qty, qty IS NULL, count(*), lower(api_key), (qty), coalesce(api_key, 'x') FROM items GROUP BY qty, api_key",
			"column_1 column_2 column_3 column_4 column_5 count lower qty api_key"},
		{"SELECT qty::text AS q, 'x'::text AS \"X\" FROM items", "q X"},
		// Numbered after the star's columns, a sqlc.embed counting one.
		{"SELECT *, 'x'::text FROM items", "id qty api_key tags column_5"},
		{"SELECT sqlc.embed(items), 'x'::text, 1 FROM items", "id qty api_key tags column_2 column_3"},
		{"UPDATE items SET qty = 1 RETURNING id::text, qty::bigint, 'z'::text", "id qty column_3"},
		{"SELECT qty::bigint, 'a'::text FROM items UNION SELECT id, 'b' FROM items", "qty column_2"},
		// The CTE's column is count, as PostgreSQL names it.
		{"WITH c AS (SELECT count(*)::int FROM items) SELECT count, c.count::text FROM c", "count c_count"},
	} {
		qs := mustAnalyze(t, schema, "-- name: Q :many\n"+tt.query+";\n")
		var got []string
		for _, c := range qs[0].Columns {
			got = append(got, c.Name)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%s\ncolumns %q, want %q", tt.query, got, tt.want)
		}
	}
}
