package analyze

import (
	"strings"
	"testing"
)

// sqlc matches db_type overrides against its spelling of a value's type
// (Override.MatchesColumn compares strings), so the analyzer carries that
// spelling: a column's as declared (the parser qualifies the SQL-standard
// names), a cast's as written, "integer" for LIMIT and OFFSET, the
// format_type name of a built-in function's result, int/float/text/bool
// for constants and int for arithmetic. Each query lists its parameters'
// spellings, then its columns'.
func TestSqlcSpelling(t *testing.T) {
	schema := `CREATE TABLE ev (id bigserial PRIMARY KEY, a timestamptz NOT NULL, b timestamp with time zone, n int NOT NULL, m int4, tags text[]);
CREATE VIEW ev_view AS SELECT id, count(*) OVER () AS total FROM ev;`
	cases := []struct{ query, want string }{
		{"SELECT a, b, n, m, id, tags FROM ev WHERE a > $1 AND b < $2", "timestamptz pg_catalog.timestamptz | timestamptz pg_catalog.timestamptz pg_catalog.int4 int4 bigserial text"},
		{"SELECT id FROM ev LIMIT $1 OFFSET $2", "integer integer | bigserial"},
		{"SELECT count(*), max(n), now() FROM ev", "| bigint integer timestamp with time zone"},
		{"SELECT $1::int8, $2::bigint, $3::timestamptz[]", "int8 pg_catalog.int8 timestamptz | int8 pg_catalog.int8 timestamptz"},
		{"SELECT 1, 'x', true, 1.5, n + 1, -n FROM ev", "| int text bool float int int"},
		{"SELECT CASE WHEN n > 0 THEN 1 ELSE 0 END, CASE WHEN n > 0 THEN n ELSE m END, coalesce(m, 0) FROM ev", "| int - int4"},
		{"SELECT id, total FROM ev_view", "| bigserial bigint"},
		{"SELECT n || 'x' FROM ev", "| -"},
	}
	var q strings.Builder
	for i, c := range cases {
		q.WriteString("-- name: Q" + itoa(i) + " :many\n" + c.query + ";\n")
	}
	qs := mustAnalyze(t, schema, q.String())
	for i, c := range cases {
		var got []string
		for _, p := range qs[i].Params {
			got = append(got, spellingOf(p.DBType))
		}
		got = append(got, "|")
		for _, col := range qs[i].Columns {
			got = append(got, spellingOf(col.DBType))
		}
		if g := strings.TrimPrefix(strings.Join(got, " "), "| "); g != c.want && strings.Join(got, " ") != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.query, strings.Join(got, " "), c.want)
		}
	}
}

func spellingOf(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Parameters sqlc v1.31.1 declares interface{} although fencegen types
// them (Param.SqlcUntyped): sqlc types a parameter by its first
// occurrence, from a column either side of its operator refers to (or as
// text for ||), from a function's argument, a cast, LIMIT, an INSERT or
// UPDATE target; a bare boolean operand, a comparison with no column and
// COALESCE with constants only leave it untyped. Each query lists its
// parameters, U for untyped ones.
func TestSqlcUntypedParams(t *testing.T) {
	schema := `CREATE TABLE job (id bigint PRIMARY KEY, kind text NOT NULL, state text NOT NULL, tag text, active bool NOT NULL, tags text[] NOT NULL);`
	cases := []struct{ query, want string }{
		{"SELECT id FROM job WHERE (state = 'a' AND @do_delete) OR NOT @other", "U U"},
		{"SELECT kind FROM job WHERE (@match = '' OR kind ILIKE '%' || @match || '%') AND (@after = '' OR kind > @after)", "U U"},
		{"SELECT id FROM job WHERE kind LIKE '%' || @name || '%' AND tag = coalesce(@tag, 'default') AND id > @min", "T T T"},
		{"SELECT id FROM job WHERE kind = @kind::text AND lower(kind) = lower(@k2) LIMIT @n", "T T T"},
		{"INSERT INTO job (id, kind, state, tag) VALUES ($1, $2, coalesce($3, ''), $4) RETURNING id", "T T U T"},
		{"UPDATE job SET tag = coalesce(@tag, '') WHERE id = @id RETURNING id", "T T"},
		{"SELECT id FROM job WHERE CASE WHEN @flag THEN true ELSE false END", "U"},
		// Under AND, OR and NOT in a comparison with a column: typed from it.
		{"SELECT id FROM job WHERE active = NOT @archived AND NOT @other", "T U"},
		{"SELECT id FROM job WHERE active = (NOT @x OR @y)", "T T"},
		// A polymorphic argument (anycompatible): sqlc cannot map its type.
		{"UPDATE job SET tags = array_append(tags, @tag) WHERE id = @id RETURNING id", "U T"},
		{"SELECT array_position(tags, @tag) FROM job WHERE lower(kind) = lower(@k)", "U T"},
	}
	var q strings.Builder
	for i, c := range cases {
		q.WriteString("-- name: Q" + itoa(i) + " :many\n" + c.query + ";\n")
	}
	qs := mustAnalyze(t, schema, q.String())
	for i, c := range cases {
		var got []string
		for _, p := range qs[i].Params {
			if p.SqlcUntyped {
				got = append(got, "U")
			} else {
				got = append(got, "T")
			}
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.query, g, c.want)
		}
	}
}
