package analyze

import (
	"strings"
	"testing"
)

// Name resolution as PostgreSQL does it (PostgreSQL docs, 7.2 "Table
// Expressions", 7.3 "Select Lists", 7.5 "Sorting Rows"): each query must
// analyse, and its result columns are listed as "name type [not null]".
// TestResolveMatchesPostgres asks PostgreSQL about the same queries.

const resolveSchema = `
CREATE TABLE stats (id bigserial PRIMARY KEY, type text NOT NULL, domain text NOT NULL, ts timestamptz NOT NULL, n int NOT NULL,
    total int GENERATED ALWAYS AS (n * 2) STORED);
CREATE TABLE other (id bigint PRIMARY KEY, type text NOT NULL, label text);
CREATE TYPE pair AS (a int, b text);
CREATE TABLE pt (id int PRIMARY KEY, p pair);
CREATE FUNCTION tf(x int) RETURNS TABLE (k int, v text) AS $$ SELECT x, 'a' $$ LANGUAGE sql;
CREATE FUNCTION sf(x int) RETURNS SETOF other AS $$ SELECT * FROM other WHERE id > x $$ LANGUAGE sql;
CREATE VIEW other_view AS SELECT id, coalesce(label, type) FROM other;
CREATE FUNCTION one_out(x int) RETURNS TABLE (account_id int) AS $$ SELECT x $$ LANGUAGE sql;
CREATE VIEW plain_view AS SELECT id, label AS "Label", type FROM other;
CREATE VIEW listed_view (a, b) AS SELECT id, coalesce(label, type) FROM other;
CREATE VIEW unnamed_view AS SELECT id, 1 + 1 FROM other;
CREATE MATERIALIZED VIEW mv AS SELECT o.id, s.n FROM other o JOIN stats s USING (id);
`

var resolveCases = []struct{ name, query, want string }{
	// GROUP BY an output column's name when no input column has it, and
	// by position; ORDER BY the same.
	{"GroupByAlias", "SELECT type, count(*) AS c, date_trunc('hour', ts)::timestamp AS hour FROM stats GROUP BY type, hour ORDER BY hour, 1",
		"type text not null, c int8 not null, hour timestamp not null"},
	{"GroupByOrdinal", "SELECT type, count(*) FROM stats GROUP BY 1 ORDER BY 2 DESC", "type text not null, count int8 not null"},
	// A name that is both reads the input column in GROUP BY.
	{"GroupByInputFirst", "SELECT n + 1 AS n FROM stats GROUP BY n", "n int4 not null"},
	{"DistinctOnAlias", "SELECT DISTINCT ON (kind) type AS kind, n FROM stats ORDER BY kind, n DESC", "kind text not null, n int4 not null"},
	{"DistinctOnOrdinal", "SELECT DISTINCT ON (1) type, n FROM stats ORDER BY 1, 2", "type text not null, n int4 not null"},
	// A function in FROM used through its alias: the alias names its
	// column, and is its whole-row value.
	{"SrfAlias", "SELECT r->>'min' AS mn, r FROM jsonb_array_elements(@x::jsonb) AS r", "mn text, r jsonb"},
	{"SrfAliasValue", "SELECT r.value FROM jsonb_array_elements(@x::jsonb) AS r", "value jsonb"},
	{"GenerateSeriesAlias", "SELECT g FROM generate_series(1, 3) g", "g int4 not null"},
	{"UnnestColumnAliases", "SELECT u.a, u.b, b FROM unnest(@xs::int[], @bs::text[]) AS u(a, b)", "a int4, b text, b text"},
	{"Ordinality", "SELECT x, i FROM unnest(@xs::text[]) WITH ORDINALITY AS t(x, i)", "x text not null, i int8 not null"},
	// Stars of subqueries and CTEs, qualified or not.
	{"SubqueryStar", "SELECT s.* FROM (SELECT id, type FROM stats) s", "id int8 not null, type text not null"},
	{"CTEStar", "WITH c AS (SELECT id, label FROM other) SELECT c.* FROM c", "id int8 not null, label text"},
	{"CTEStarBare", "WITH c AS (SELECT * FROM other) SELECT * FROM c WHERE c.label IS NULL", "id int8 not null, type text not null, label text"},
	{"Lateral", "SELECT s.id, l.cnt FROM stats s, LATERAL (SELECT count(*) AS cnt FROM other o WHERE o.type = s.type) l", "id int8 not null, cnt int8 not null"},
	{"LateralJoin", "SELECT s.id, l.label FROM stats s LEFT JOIN LATERAL (SELECT label FROM other o WHERE o.type = s.type LIMIT 1) l ON true", "id int8 not null, label text"},
	{"TableFunction", "SELECT k, v FROM tf(@x)", "k int4, v text"},
	{"SetofTable", "SELECT id, label FROM sf(1)", "id int8 not null, label text"},
	{"Generated", "SELECT total FROM stats", "total int4"},
	{"ValuesAliases", "SELECT v.a, v.b FROM (VALUES (1, 'x'), (2, 'y')) AS v(a, b)", "a int4 not null, b text not null"},
	{"NaturalJoin", "SELECT id, type FROM stats NATURAL JOIN other", "id int8 not null, type text not null"},
	{"UsingJoin", "SELECT id, label FROM stats JOIN other USING (id)", "id int8 not null, label text"},
	{"WindowPartitionByAlias", "SELECT id, rank() OVER (PARTITION BY s.type ORDER BY n) AS rk FROM stats s", "id int8 not null, rk int8 not null"},
	{"NamedWindow", "SELECT id, sum(n) OVER w AS running FROM stats WINDOW w AS (PARTITION BY type ORDER BY id)", "id int8 not null, running int8"},
	{"FieldAccess", "SELECT (p).a, (p).b FROM pt", "column_1 int4, column_2 text"},
	{"WholeRowCount", "SELECT count(s.*) FROM stats s", "count int8 not null"},
	{"UnionOrderByAlias", "SELECT type AS k FROM stats UNION SELECT label FROM other ORDER BY k", "k text"},
	{"DistinctOnStar", "SELECT DISTINCT ON (o.type) o.* FROM other o ORDER BY o.type, o.id", "id int8 not null, type text not null, label text"},
	{"FunctionStar", "SELECT x.* FROM unnest(@xs::int[], @ys::text[]) AS x(a, b)", "a int4, b text"},
	{"ColumnDefinitionList", "SELECT * FROM jsonb_to_recordset(@j::jsonb) AS r(a int, b text)", "a int4, b text"},
	{"TableFunctionStar", "SELECT * FROM tf(1) t", "k int4, v text"},
	{"RecursiveCTE", "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 3) SELECT i FROM r", "i int4 not null"},
	{"GroupingSets", "SELECT type, domain, count(*) FROM stats GROUP BY GROUPING SETS ((type), (domain))", "type text not null, domain text not null, count int8 not null"},
	// A parameter compared with an operator or function over a column is
	// typed as PostgreSQL resolves the expression (numeric, int4, float8,
	// text), not as the column.
	{"ParamOfExpression", "SELECT id FROM stats WHERE extract(year FROM ts) = @y AND length(type) = @l AND date_part('day', ts) = @d AND (type::jsonb)->>'k' = @k",
		"id int8 not null"},
	{"AggregateFilterOrder", "SELECT count(*) FILTER (WHERE n > @min) AS c, string_agg(type, ',' ORDER BY id) AS types FROM stats", "c int8 not null, types text"},
}

func TestResolve(t *testing.T) {
	var src strings.Builder
	for _, tc := range resolveCases {
		src.WriteString("-- name: " + tc.name + " :many\n" + tc.query + ";\n\n")
	}
	qs := mustAnalyze(t, resolveSchema, src.String())
	for i, tc := range resolveCases {
		if got := cols(qs[i]); got != tc.want {
			t.Errorf("%s: %s\n got %s\nwant %s", tc.name, tc.query, got, tc.want)
		}
	}
}

// TestResolveRefusedNotes: a reference sqlc v1.31.1 does not resolve (an
// expression of GROUP BY or ORDER BY, which does not look an output
// column's name up; a UNION's ORDER BY) is generated with a note that
// PostgreSQL refuses the query, as sqlc generates it (issue 23).
func TestResolveRefusedNotes(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{"SELECT n AS m FROM stats GROUP BY m + 1", `column "m" does not exist`},
		{"SELECT type AS k FROM stats UNION SELECT label FROM other ORDER BY nope", `column "nope" does not exist`},
	} {
		qs := mustAnalyze(t, resolveSchema, "-- name: Q :many\n"+tc.query+";")
		if len(qs[0].Notes) != 1 || !strings.Contains(qs[0].Notes[0], "PostgreSQL refuses this query: "+tc.want) {
			t.Errorf("%s: notes %q, want %q", tc.query, qs[0].Notes, tc.want)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		// Neither an input nor an output column.
		{"SELECT type AS k FROM stats GROUP BY nope", `column "nope" does not exist`},
		{"SELECT type AS k FROM stats s ORDER BY s.k", `column "k" does not exist in s`},
		// A star over a view with an unnamed column (?column?), which the
		// catalog leaves out as sqlc's does: the star returns a column
		// the code would not scan (sqlc fails on it too).
		{"SELECT * FROM unnamed_view", `query.sql:2:8: view "unnamed_view" has an unnamed column (?column?) that * would return`},
		{"SELECT u.* FROM unnamed_view u", `query.sql:2:8: view "unnamed_view" has an unnamed column (?column?) that * would return`},
		{"SELECT EXISTS (SELECT * FROM unnamed_view)", `view "unnamed_view" has an unnamed column (?column?) that * would return`},
	} {
		_, msgs := analyzeSrc(t, resolveSchema, "-- name: Q :many\n"+tc.query+";")
		if len(msgs) != 1 || !strings.Contains(msgs[0], tc.want) {
			t.Errorf("%s: got %q, want %q", tc.query, msgs, tc.want)
		}
	}
	// References sqlc v1.31.1 does not resolve (a function's arguments
	// and window in a select list, a JOIN's ON condition, a SET column
	// without a parameter) are generated, as by sqlc, with a note that
	// PostgreSQL refuses the query.
	for _, tc := range []struct{ query, want string }{
		// A window's PARTITION BY reads input columns only.
		{"SELECT type AS k, rank() OVER (PARTITION BY k) FROM stats", `column "k" does not exist`},
		{"SELECT count(zz.*) FROM stats s", `missing FROM-clause entry for table "zz"`},
		{"SELECT sum(nope) FROM stats", `column "nope" does not exist`},
		{"SELECT s.id FROM stats s JOIN other o ON o.nope = s.id", `column "nope" does not exist in o`},
		{"UPDATE stats SET nope = TRUE WHERE id = $1", `column "nope" of relation "stats" does not exist`},
		{"SELECT id FROM stats WHERE nope IS NULL", `column "nope" does not exist`},
		{"SELECT COALESCE(SUM(earned), 0) AS total FROM stats", `column "earned" does not exist`},
		{"SELECT id FROM stats s WHERE s.nope = 1 AND s.id = $1", `column "nope" does not exist in s`},
		{"UPDATE stats SET n = 1 WHERE deleted_at IS NULL", `column "deleted_at" does not exist`},
		{"DELETE FROM stats WHERE nope < now()", `column "nope" does not exist`},
		{"SELECT id FROM stats GROUP BY id HAVING max(nope) > 1", `column "nope" does not exist`},
		{"SELECT id FROM stats WHERE EXISTS (SELECT 1 FROM other o WHERE o.nope = stats.id)", `column "nope" does not exist in o`},
	} {
		cmd := ":many"
		if strings.HasPrefix(tc.query, "UPDATE") || strings.HasPrefix(tc.query, "DELETE") {
			cmd = ":exec"
		}
		files, msgs := analyzeSrc(t, resolveSchema, "-- name: Q "+cmd+"\n"+tc.query+";")
		if len(msgs) != 0 {
			t.Errorf("%s: errors %q, want none (sqlc generates it)", tc.query, msgs)
			continue
		}
		if notes := files[0].Queries[0].Notes; len(notes) != 1 || !strings.Contains(notes[0], "PostgreSQL refuses this query: "+tc.want) {
			t.Errorf("%s: notes %q, want one saying PostgreSQL refuses it: %s", tc.query, notes, tc.want)
		}
	}
	// On a fenced write it is an error.
	fenced := resolveSchema + "\nCREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';"
	if _, msgs := analyzeSrc(t, fenced, "-- name: Q :exec\nUPDATE jobs SET nope = TRUE WHERE id = $1;"); len(msgs) != 1 || !strings.Contains(msgs[0], "a fenced write is generated only when PostgreSQL accepts it") {
		t.Errorf("fenced: got %q, want one error", msgs)
	}
	// Those sqlc resolves stay errors: a parameter's partner in ON, a
	// SET column given a parameter.
	for _, tc := range []struct{ query, want string }{
		{"SELECT s.id FROM stats s JOIN other o ON o.nope = $1", `column "nope" does not exist in o`},
		{"UPDATE stats SET nope = $2 WHERE id = $1", `column "nope" of relation "stats" does not exist`},
		{"SELECT id FROM stats WHERE $1 = nope", `column "nope" does not exist`},
		{"SELECT id FROM stats WHERE lower(nope) = $1", `column "nope" does not exist`},
		{"SELECT COALESCE(nope, 0) FROM stats", `column "nope" does not exist`},
	} {
		if _, msgs := analyzeSrc(t, resolveSchema, "-- name: Q :exec\n"+tc.query+";"); len(msgs) != 1 || !strings.Contains(msgs[0], tc.want) {
			t.Errorf("%s: got %q, want %q", tc.query, msgs, tc.want)
		}
	}
}

// Every * and t.* whose columns reach the result is spelt out in the SQL
// sent, in sqlc's format, as sqlc v1.31.1's expand.go does: in every
// SELECT list of the statement (subqueries in FROM, CTEs, EXISTS and NOT
// EXISTS) and in RETURNING, over tables, views, materialized views and
// PostgreSQL's system views alike. A star stays where the catalog cannot
// name every column PostgreSQL's star returns.
func TestStarSpeltOut(t *testing.T) {
	for _, tc := range starCases {
		qs := mustAnalyze(t, resolveSchema, "-- name: Q :many\n"+tc.query+";")
		if qs[0].SQL != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.query, qs[0].SQL, tc.want)
		}
	}
}

// starCases are statements with stars and how they are sent. asSqlc marks
// a star that, like sqlc's, stands for other columns than PostgreSQL's
// would (the generated API is sqlc's, and the statement
// sent returns exactly those).
var starCases = []struct {
	query, want string
	asSqlc      bool
}{
	{"SELECT * FROM other", "SELECT id, type, label FROM other", false},
	{"SELECT o.* FROM other o", "SELECT o.id, o.type, o.label FROM other o", false},
	{"SELECT * FROM other o JOIN stats s ON s.id = o.id", "SELECT o.id, o.type, label, s.id, s.type, domain, ts, n, total FROM other o JOIN stats s ON s.id = o.id", false},
	{"SELECT * FROM other JOIN stats USING (id)", "SELECT id, other.type, label, stats.type, domain, ts, n, total FROM other JOIN stats USING (id)", false},
	{"SELECT * FROM (SELECT * FROM other) x", "SELECT id, type, label FROM (SELECT id, type, label FROM other) x", false},
	{"WITH c AS (SELECT * FROM other) SELECT c.* FROM c", "WITH c AS (SELECT id, type, label FROM other) SELECT c.id, c.type, c.label FROM c", false},
	{"SELECT id FROM other o WHERE EXISTS (SELECT * FROM stats s WHERE s.id = o.id)", "SELECT id FROM other o WHERE EXISTS (SELECT id, type, domain, ts, n, total FROM stats s WHERE s.id = o.id)", false},
	{"SELECT NOT EXISTS (SELECT * FROM other WHERE id = @id)", "SELECT NOT EXISTS (SELECT id, type, label FROM other WHERE id = $1)", false},
	{"SELECT o.* FROM other o WHERE NOT EXISTS (SELECT s.* FROM stats s WHERE s.id = o.id)", "SELECT o.id, o.type, o.label FROM other o WHERE NOT EXISTS (SELECT s.id, s.type, s.domain, s.ts, s.n, s.total FROM stats s WHERE s.id = o.id)", false},
	{`SELECT "o" . * FROM other o`, "SELECT o.id, o.type, o.label FROM other o", false},
	{"INSERT INTO other (id, type) VALUES (1, 'a') RETURNING *", "INSERT INTO other (id, type) VALUES (1, 'a') RETURNING id, type, label", false},
	{"DELETE FROM other WHERE id = 1 RETURNING other.*", "DELETE FROM other WHERE id = 1 RETURNING other.id, other.type, other.label", false},
	// Columns PostgreSQL names otherwise than sqlc (?column?, coalesce):
	// the star stays; those it names alike are spelt.
	{"SELECT * FROM (SELECT coalesce(label, 'x'), 1, id + 1 FROM other) s", "SELECT * FROM (SELECT coalesce(label, 'x'), 1, id + 1 FROM other) s", false},
	{"SELECT s.* FROM (SELECT count(*), lower(label), label::varchar, 'a'::text, CASE WHEN id > 1 THEN 1 END FROM other GROUP BY id, label) s", "SELECT s.count, s.lower, s.label, s.text, s.\"case\" FROM (SELECT count(*), lower(label), label::varchar, 'a'::text, CASE WHEN id > 1 THEN 1 END FROM other GROUP BY id, label) s", false},
	{"WITH c(x, y) AS (SELECT id + 1, coalesce(label, '') FROM other) SELECT * FROM c", "WITH c(x, y) AS (SELECT id + 1, coalesce(label, '') FROM other) SELECT x, y FROM c", false},
	// Views, materialized views and system views, as sqlc spells them.
	{"SELECT * FROM plain_view", `SELECT id, "Label", type FROM plain_view`, false},
	{"SELECT v.* FROM plain_view v", `SELECT v.id, v."Label", v.type FROM plain_view v`, false},
	{"SELECT * FROM listed_view", "SELECT a, b FROM listed_view", false},
	{"SELECT * FROM mv", "SELECT id, n FROM mv", false},
	{"SELECT * FROM pg_catalog.pg_timezone_names", "SELECT name, abbrev, utc_offset, is_dst FROM pg_catalog.pg_timezone_names", false},
	{"SELECT EXISTS (SELECT * FROM plain_view WHERE id = @id)", `SELECT EXISTS (SELECT id, "Label", type FROM plain_view WHERE id = $1)`, false},
	// A view's column the catalog names label (as sqlc), PostgreSQL
	// coalesce: sqlc sends SELECT id, label, which PostgreSQL refuses;
	// the star stays.
	{"SELECT * FROM other_view", "SELECT * FROM other_view", false},
	{"SELECT * FROM (SELECT * FROM other_view) v", "SELECT * FROM (SELECT * FROM other_view) v", false},
	// A function's one RETURNS TABLE column: as sqlc, a bare star is
	// spelt by the function's name or alias (its whole-row value, the same
	// value under another name, so asSqlc); r.* by the column's, where
	// sqlc's r.r is refused.
	{"SELECT * FROM one_out(1)", "SELECT one_out FROM one_out(1)", true},
	{"SELECT * FROM one_out(1) r", "SELECT r FROM one_out(1) r", true},
	{"SELECT r.* FROM one_out(1) r", "SELECT r.account_id FROM one_out(1) r", false},
	{"SELECT * FROM one_out(1) r(z)", "SELECT z FROM one_out(1) r(z)", false},
	// A relation with two columns of one name: the star stays.
	{"SELECT * FROM unnest('{1}'::int[], '{a}'::text[])", "SELECT * FROM unnest('{1}'::int[], '{a}'::text[])", false},
	{"SELECT x.* FROM (SELECT o.id, s.id FROM other o, stats s) x", "SELECT x.* FROM (SELECT o.id, s.id FROM other o, stats s) x", false},
	{"SELECT * FROM unnest('{1}'::int[]) u", "SELECT u FROM unnest('{1}'::int[]) u", false},
	// As in sqlc: DELETE ... USING returns the target's columns,
	// UPDATE ... FROM the FROM items' first.
	{"DELETE FROM other o USING stats s WHERE s.id = o.id RETURNING *", "DELETE FROM other o USING stats s WHERE s.id = o.id RETURNING o.id, o.type, label", true},
	{"UPDATE other o SET label = 'x' FROM stats s WHERE s.id = o.id RETURNING *", "UPDATE other o SET label = 'x' FROM stats s WHERE s.id = o.id RETURNING s.id, s.type, domain, ts, n, total, o.id, o.type, label", true},
}

// Like sqlc, a cast to a type the schema does not define types the value
// interface{} with a note; in a fenced write it stays an error.
func TestUnknownCastTypeLenient(t *testing.T) {
	files, msgs := analyzeSrc(t, resolveSchema+fencedSchema, `
-- name: Q :many
SELECT id::nosuchtype AS x FROM other WHERE label = $1::alsonosuch;

-- name: F :exec
UPDATE t SET note = $1::nosuchtype WHERE id = $2;
`)
	if len(msgs) != 1 || !strings.Contains(msgs[0], `query.sql:6:25: type "nosuchtype" does not exist; query F writes fenced table t`) {
		t.Errorf("problems = %q, want one for the fenced write F", msgs)
	}
	var q *Query
	for _, x := range files[0].Queries {
		if x.Name == "Q" {
			q = x
		}
	}
	if q == nil {
		t.Fatal("query Q not generated")
	}
	if got := cols(q); got != "x any" {
		t.Errorf("columns = %s, want x any", got)
	}
	if got := strings.Join(paramList(q), ", "); got != "1 column_1 any" {
		t.Errorf("params = %s, want 1 column_1 any", got)
	}
	want := []string{
		`query.sql:3:12: note: type "nosuchtype" does not exist; typed interface{}, as sqlc does`,
		`query.sql:3:57: note: type "alsonosuch" does not exist; typed interface{}, as sqlc does`,
	}
	wantList(t, "notes", q.Notes, want)
}

// Like sqlc, a parameter takes the nullability of the table column it is
// compared with, also on the nullable side of an outer join; SET col =
// COALESCE(@v, col) names and types @v after col.
func TestParamNullabilityLikeSqlc(t *testing.T) {
	qs := mustAnalyze(t, resolveSchema, `
-- name: Q1 :many
SELECT s.id FROM stats s LEFT JOIN other o ON o.id = s.id AND o.type = $1 WHERE o.label = $2 AND o.type <> $3;

-- name: Q2 :exec
UPDATE other SET label = coalesce($2, label), type = coalesce($3, type) WHERE id = $1;

-- name: Q3 :exec
UPDATE other SET label = CASE WHEN @clear::bool THEN NULL ELSE coalesce(sqlc.narg(new_label), label) END WHERE id = @id;
`)
	wantList(t, "Q1 params", paramList(qs[0]), []string{"1 type text not null", "2 label text", "3 type text not null"})
	wantList(t, "Q2 params", paramList(qs[1]), []string{"1 id int8 not null", "2 label text", "3 type text not null"})
	wantList(t, "Q3 params", paramList(qs[2]), []string{"1 clear bool not null", "2 new_label text", "3 id int8 not null"})
	if p := qs[2].Params[1]; p.Column == nil || p.Column.Name != "label" {
		t.Errorf("new_label is column %v, want other.label (for overrides)", p.Column)
	}
}

// Typing rules of sqlc's that real projects rely on: a cast is NOT NULL
// (unless of NULL), COALESCE is its first column (overrides included), and
// a row comparison types its parameters member by member.
func TestSqlcTypingRules(t *testing.T) {
	qs := mustAnalyze(t, resolveSchema, `
-- name: Q1 :many
SELECT label::text AS l, NULL::text AS n, coalesce(label, 'none') AS c, coalesce($1, label) AS d FROM other;

-- name: Q2 :many
SELECT id FROM stats WHERE (ts, id::text) < (@cursor_time, @cursor_id::text);
`)
	wantList(t, "Q1 columns", colList(qs[0]), []string{"l text not null", "n text", "c text not null", "d text"})
	if c := qs[0].Columns[2]; c.Column == nil || c.Column.Name != "label" {
		t.Errorf("COALESCE(label, ...) is column %v, want other.label", c.Column)
	}
	wantList(t, "Q2 params", paramList(qs[1]), []string{"1 cursor_time timestamptz not null", "2 cursor_id text not null"})
	qs = mustAnalyze(t, resolveSchema, `
-- name: Q3 :one
SELECT other.id > 1 AND n > 1 AS c1, NOT (label IS NULL) AS c2, NOT EXISTS (SELECT 1 FROM stats) AS c3, label IS NULL AS c4 FROM other, stats;
`)
	wantList(t, "Q3 columns", colList(qs[0]), []string{"c1 bool", "c2 bool", "c3 bool not null", "c4 bool not null"})
	// A user-defined function returning a base type: NOT NULL in a select
	// list, nullable as the one column of a relation in FROM (sqlc's
	// sourceTables), which a built-in's is not.
	qs = mustAnalyze(t, resolveSchema+"CREATE FUNCTION hello(s text) RETURNS text AS $$ SELECT s $$ LANGUAGE sql;", `
-- name: Q4 :one
SELECT hello($1);

-- name: Q5 :one
SELECT * FROM hello($1);

-- name: Q6 :many
SELECT * FROM generate_series(1, 3);
`)
	wantList(t, "Q4 columns", colList(qs[0]), []string{"hello text not null"})
	wantList(t, "Q5 columns", colList(qs[1]), []string{"hello text"})
	wantList(t, "Q6 columns", colList(qs[2]), []string{"generate_series int4 not null"})
}

// INSERT without a column list fills every column in order, a generated
// one (DEFAULT) included.
func TestInsertPositionalGenerated(t *testing.T) {
	qs := mustAnalyze(t, resolveSchema, `
-- name: Ins :exec
INSERT INTO stats VALUES ($1, $2, $3, $4, $5, DEFAULT);
`)
	wantList(t, "params", paramList(qs[0]), []string{"1 id int8 not null", "2 type text not null", "3 domain text not null", "4 ts timestamptz not null", "5 n int4 not null"})
}
