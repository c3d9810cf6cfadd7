package analyze

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// This file holds analyzer tests by feature; the helpers (analyzeSrc,
// mustAnalyze, colList, paramList) are in annotate_test.go.

func cols(q *Query) string { return strings.Join(colList(q), ", ") }

const joinSchema = `
create table t1 (fk integer not null unique, a text not null);
create table t2 (fk integer not null references t1(fk), b text);
create table t3 (fk integer, c bool not null);
`

func TestJoinUsing(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		// The merged column is not ambiguous, and qualified references
		// still reach each side.
		{"select t1.fk, sum(t2.fk) from t1 join t2 using (fk) group by fk", "fk int4 not null, sum int8 not null"},
		{"select fk from t1 join t2 using (fk)", "fk int4 not null"},
		// A star lists the merged column once, first.
		{"select * from t1 join t2 using (fk)", "fk int4 not null, a text not null, b text"},
		{"select * from t1 natural join t2", "fk int4 not null, a text not null, b text"},
		{"select t2.* from t1 join t2 using (fk)", "fk int4 not null, b text"},
		// Outer joins: the merged column is the preserved side's, and
		// COALESCE of both for FULL.
		{"select fk from t1 left join t2 using (fk)", "fk int4 not null"},
		{"select fk from t3 right join t1 using (fk)", "fk int4 not null"},
		{"select fk from t3 left join t1 using (fk)", "fk int4"},
		{"select fk, t1.fk as l from t1 full join t2 using (fk)", "fk int4 not null, l int4"},
		{"select fk from t1 full join t3 using (fk)", "fk int4"},
		// Joins chain: the merged column of the first joins the third.
		{"select fk, c from t1 join t2 using (fk) join t3 using (fk)", "fk int4 not null, c bool not null"},
		{"select * from t1 join t2 using (fk) join t3 using (fk)", "fk int4 not null, a text not null, b text, c bool not null"},
	} {
		q := mustAnalyze(t, joinSchema, "-- name: Q :many\n"+tc.query+";")
		if got := cols(q[0]); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.query, got, tc.want)
		}
	}
}

func TestJoinUsingErrors(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{"select * from t1 join t2 using (zz)", `column "zz" specified in USING clause does not exist in left table`},
		{"select * from t1 join t3 using (a)", `column "a" specified in USING clause does not exist in right table`},
		// Without USING both sides stay visible.
		{"select fk from t1 join t2 on t1.fk = t2.fk", `column reference "fk" is ambiguous`},
		{"select * from t1 cross join t2 join t3 using (fk)", `common column name "fk" appears more than once in left table`},
	} {
		_, msgs := analyzeSrc(t, joinSchema, "-- name: Q :many\n"+tc.query+";")
		if len(msgs) != 1 || !strings.Contains(msgs[0], tc.want) {
			t.Errorf("%s: got %q, want %q", tc.query, msgs, tc.want)
		}
	}
}

// A sequence can be read like a one-row table; it cannot be written.
func TestSelectSequence(t *testing.T) {
	schema := "CREATE SEQUENCE public.my_sequence START WITH 1;"
	q := mustAnalyze(t, schema, `
-- name: GetLastValue :one
SELECT last_value FROM my_sequence;
-- name: All :one
SELECT * FROM public.my_sequence s WHERE s.is_called;
-- name: Next :one
SELECT nextval('my_sequence');
`)
	for i, want := range []string{
		"last_value int8 not null",
		"last_value int8 not null, log_cnt int8 not null, is_called bool not null",
		"nextval int8 not null",
	} {
		if got := cols(q[i]); got != want {
			t.Errorf("%s: got %s, want %s", q[i].Name, got, want)
		}
	}
	_, msgs := analyzeSrc(t, schema, "-- name: W :exec\nUPDATE my_sequence SET log_cnt = 0;")
	if len(msgs) != 1 || !strings.Contains(msgs[0], `cannot change sequence "my_sequence"`) {
		t.Errorf("write to a sequence: %q", msgs)
	}
}

// A function with OUT parameters returns its single OUT parameter's type,
// or a record of them, whose columns FROM lists; INOUT parameters are
// arguments and results.
func TestFunctionOutParams(t *testing.T) {
	schema := `
CREATE FUNCTION add_author (name text, bio text, out id int) AS $$ BEGIN id = 123; END; $$ LANGUAGE plpgsql;
CREATE FUNCTION two (a bigint, OUT x int, OUT y text) AS $$ SELECT 1, 'a' $$ LANGUAGE sql;
CREATE FUNCTION inc (INOUT n bigint, OUT doubled bigint) AS $$ SELECT n + 1, n * 2 $$ LANGUAGE sql;
CREATE FUNCTION many (OUT k text, OUT v int) RETURNS SETOF record AS $$ SELECT 'a', 1 $$ LANGUAGE sql;
CREATE FUNCTION tab (a int) RETURNS TABLE (k text, v int) AS $$ SELECT 'a', a $$ LANGUAGE sql;
`
	qs := mustAnalyze(t, schema, `
-- name: CreateAuthor :one
SELECT * FROM add_author (sqlc.arg(name), sqlc.arg(bio));
-- name: Scalar :one
SELECT add_author ($1, $2);
-- name: Two :one
SELECT * FROM two ($1);
-- name: TwoAliased :one
SELECT t.y FROM two ($1) AS t;
-- name: Inc :one
SELECT n, doubled FROM inc ($1);
-- name: Many :many
SELECT k, v FROM many ();
-- name: Tab :many
SELECT * FROM tab ($1);
`)
	for i, want := range [][2]string{
		{"$1 name text not null, $2 bio text not null", "id int4"},
		{"$1 name text not null, $2 bio text not null", "add_author int4 not null"},
		{"$1 a int8 not null", "x int4, y text"},
		{"$1 a int8 not null", "y text"},
		{"$1 n int8 not null", "n int8, doubled int8"},
		{"", "k text, v int4"},
		{"$1 a int4 not null", "k text, v int4"},
	} {
		got := [2]string{strings.Join(paramList(qs[i]), ", "), cols(qs[i])}
		want[0] = strings.ReplaceAll(want[0], "$", "")
		if got != want {
			t.Errorf("%s: got params %q columns %q\nwant params %q columns %q", qs[i].Name, got[0], got[1], want[0], want[1])
		}
	}
}

// Problems with a query's annotation are reported at their cause in the
// annotation: the name, the command, the text after it. (sqlc v1.31.1
// reports them at the statement below instead: the file's start for the
// first statement, otherwise the statement after its "--" comment lines.)
// A statement that does not fit its command is reported where sqlc
// reports it.
func TestAnnotationProblemsAtTheAnnotation(t *testing.T) {
	const schema = "CREATE TABLE foo (id int NOT NULL);"
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"\n\n-- name: ListFoos\nSELECT id FROM foo;\n", []string{"query.sql:3:18: query ListFoos: missing command"}},
		{"-- name: DeleteFoo :one\nDELETE FROM foo WHERE id = $1;\n", []string{"query.sql:1:1: query DeleteFoo: :one needs"}},
		{`-- name: A :one
SELECT id FROM foo;

-- name: ListFoos
SELECT id FROM foo;

-- name: B
-- doc
SELECT id FROM foo;

/* name: C :two */
SELECT id FROM foo;

-- name: D :one extra
SELECT id FROM foo;

-- name: 9x :one
SELECT id FROM foo;

-- name: E :one

  /* x */ DELETE FROM foo WHERE id = $1;
`, []string{
			"query.sql:4:18: query ListFoos: missing command",
			"query.sql:7:11: query B: missing command",
			`query.sql:11:12: query C: unknown command ":two"`,
			`query.sql:14:17: query D: unexpected text "extra"`,
			`query.sql:17:10: query name "9x" is not a valid Go identifier`,
			"query.sql:22:3: query E: :one needs",
		}},
	} {
		_, msgs := analyzeSrc(t, schema, tc.src)
		ok := len(msgs) == len(tc.want)
		for i := 0; ok && i < len(msgs); i++ {
			ok = strings.HasPrefix(msgs[i], tc.want[i])
		}
		if !ok {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, strings.Join(msgs, "\n     "), strings.Join(tc.want, "\n     "))
		}
	}
}

// A fenced write by cursor position is refused with a located message,
// not the guard rewriter's internal error.
func TestFencedWhereCurrentOf(t *testing.T) {
	for _, src := range []string{
		"-- name: U :exec\nUPDATE t SET name = $1\n  WHERE CURRENT OF c;",
		"-- name: D :exec\nDELETE FROM t WHERE current  of c;",
	} {
		_, msgs := analyzeSrc(t, fencedSchema, src)
		want := "WHERE CURRENT OF cannot be fenced"
		if len(msgs) != 1 || !strings.Contains(msgs[0], want) {
			t.Errorf("%q: got %q, want %q", src, msgs, want)
			continue
		}
		line := strings.Count(src[:strings.Index(strings.ToUpper(src), "CURRENT")], "\n") + 1
		col := strings.Index(strings.ToUpper(src), "CURRENT") - strings.LastIndex(src[:strings.Index(strings.ToUpper(src), "CURRENT")], "\n")
		if pre := fmt.Sprintf("query.sql:%d:%d: ", line, col); !strings.HasPrefix(msgs[0], pre) {
			t.Errorf("%q: got %q, want it at %s", src, msgs[0], pre)
		}
	}
	// Unfenced tables may be written by cursor.
	mustAnalyze(t, fencedSchema, "-- name: U :exec\nUPDATE u SET t_id = $1 WHERE CURRENT OF c;")
}

// Named parameters are numbered in the order sqlc v1.31.1 walks the
// statement: WITH after the statement's body, OFFSET before LIMIT, an
// UPDATE's WHERE before its FROM. The expected orders are sqlc's output.
func TestNamedParamOrderLikeSqlc(t *testing.T) {
	schema := `CREATE TABLE t (a int NOT NULL UNIQUE, b int NOT NULL, c int NOT NULL, d int NOT NULL, e int NOT NULL);
CREATE TABLE u (ua int NOT NULL, ub int NOT NULL, uc int NOT NULL);`
	for _, tc := range []struct{ query, want string }{
		{"SELECT a FROM t WHERE b = @b ORDER BY c LIMIT @lim OFFSET @off", "b off lim"},
		{"WITH x AS (SELECT ua FROM u WHERE ua = @wa) SELECT t.a FROM t, x WHERE t.b = @wb AND t.a = x.ua", "wb wa"},
		{"SELECT a, @tgt::int AS z FROM t WHERE b = @w GROUP BY a HAVING count(*) > @h::int ORDER BY a + @o::int", "tgt w h o"},
		{"UPDATE t SET a = @set FROM (SELECT ub FROM u WHERE uc = @fromsub) s WHERE t.b = s.ub AND t.d = @wh", "set wh fromsub"},
		{"DELETE FROM t USING (SELECT ub FROM u WHERE uc = @usingsub) s WHERE t.b = s.ub AND t.d = @wh", "usingsub wh"},
		{"WITH x AS (SELECT ua FROM u WHERE ua = @wa) INSERT INTO t (a, b, c, d, e) SELECT @ia, @ib, 1, 2, 3 FROM x ON CONFLICT (a) DO UPDATE SET b = @ub", "ia ib ub wa"},
		{"UPDATE t SET a = @set WHERE d = @wh RETURNING e + @rt::int", "set wh rt"},
		{"WITH x AS (SELECT ua FROM u WHERE ua = @wa) SELECT a FROM t WHERE a = @l UNION SELECT ua FROM x WHERE ua = @r", "wa l r"},
		{"SELECT a FROM t WHERE a = @x AND b = $1 AND c = @y AND d = @x", "b x y"},
		{"SELECT t.a FROM t JOIN u ON u.ua = @jon WHERE t.b = @w", "jon w"},
		// river's JobUpdate: the CTE's @id comes last.
		{"WITH l AS (SELECT a FROM t WHERE t.a = @id FOR UPDATE) UPDATE t SET b = CASE WHEN @do_merge::boolean THEN b + @n::int ELSE b END FROM l WHERE t.a = l.a", "do_merge n id"},
	} {
		q := mustAnalyze(t, schema, "-- name: Q :exec\n"+tc.query+";")
		var names []string
		for _, p := range q[0].Params {
			names = append(names, p.Name)
		}
		if got := strings.Join(names, " "); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.query, got, tc.want)
		}
	}
}

// A parameter among CASE results takes their type, and may be NULL when
// another result may; to_regclass takes text (river's queries).
func TestCaseParamNullabilityAndToRegclass(t *testing.T) {
	schema := "CREATE TABLE j (id bigint PRIMARY KEY, at timestamptz, n int NOT NULL);"
	q := mustAnalyze(t, schema, `
-- name: U :exec
UPDATE j SET at = CASE WHEN @at_do_update::boolean THEN @at ELSE at END,
  n = CASE WHEN @n_do_update::boolean THEN @n ELSE n END;
-- name: E :one
SELECT CASE WHEN to_regclass(@schema_and_table) IS NULL THEN false ELSE true END;
`)
	if got := strings.Join(paramList(q[0]), ", "); got != "1 at_do_update bool not null, 2 at timestamptz, 3 n_do_update bool not null, 4 n int4 not null" {
		t.Errorf("U params: %s", got)
	}
	if got := strings.Join(paramList(q[1]), ", "); got != "1 schema_and_table text not null" {
		t.Errorf("E params: %s", got)
	}
}

// A parameter assigned to a boolean column and compared with a bigint
// column is one PostgreSQL refuses (a parameter has one type): the query
// is generated as sqlc generates it, the parameter typed from its first
// use, with a note; on a fenced write it is an error. Explicit casts to
// different types are conversions, not deductions, and pass without a
// note. TestRefusedParamsArePostgresRefusals asks PostgreSQL.
func TestInconsistentParameterTypes(t *testing.T) {
	schema := `CREATE TABLE authors (id bigint PRIMARY KEY, name boolean NOT NULL, note text);`
	files, errs := analyzeSrc(t, schema, "-- name: Bad :exec\nUPDATE authors SET name = $1 WHERE id = $1;\n")
	if len(errs) != 0 {
		t.Fatalf("errors = %q, want none (sqlc generates the query)", errs)
	}
	q := files[0].Queries[0]
	if got := strings.Join(paramList(q), ", "); got != "1 name bool not null" {
		t.Errorf("params %s, want sqlc's: $1 typed from its first use, name bool", got)
	}
	if len(q.Notes) != 1 || !strings.HasPrefix(q.Notes[0], "query.sql:2:27: note: query Bad: PostgreSQL refuses this query: parameter $1 is used as bool here and as int8 elsewhere") {
		t.Errorf("notes %q, want one at $1 saying PostgreSQL refuses the query", q.Notes)
	}
	fenced := schema + "\nCREATE TABLE jobs (id bigint PRIMARY KEY, done boolean NOT NULL, tok bigint NOT NULL);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';"
	if _, errs := analyzeSrc(t, fenced, "-- name: BadFenced :exec\nUPDATE jobs SET done = $1 WHERE id = $1;\n"); len(errs) != 1 || !strings.Contains(errs[0], "a fenced write is generated only when PostgreSQL accepts it") {
		t.Fatalf("fenced: errors = %q, want one", errs)
	}
	// A text column: PostgreSQL types $1 in the WHERE clause (bigint)
	// and assigns it to the column; the fenced write is generated
	// (trial r23s F2).
	withText := fenced + "\nCREATE TABLE tasks (id bigint PRIMARY KEY, state text NOT NULL, tok bigint NOT NULL);\nCOMMENT ON COLUMN tasks.tok IS 'fencegen:token';"
	if files, errs := analyzeSrc(t, withText, "-- name: SetState :exec\nUPDATE tasks SET state = $1 WHERE id = $1;\n"); len(errs) != 0 || files[0].Queries[0].Fence == nil || len(files[0].Queries[0].Notes) != 0 {
		t.Fatalf("fenced text column: errors %q, want a fenced write without notes", errs)
	}
	for _, src := range []string{
		"-- name: Casts :many\nSELECT id FROM authors WHERE id = $1::bigint OR note = $1::text;\n",
		"-- name: Nested :exec\nUPDATE authors SET note = note || ($1::int + 1)::text WHERE id = $2;\n",
	} {
		files, errs := analyzeSrc(t, schema, src)
		if len(errs) != 0 || len(files[0].Queries[0].Notes) != 0 {
			t.Fatalf("%s: errors %q, notes %q; want none", src, errs, files[0].Queries[0].Notes)
		}
	}
}

// SET (a, b) = (SELECT ...): the subquery's parameters are the query's
// (positional and named), typed by what they are compared with, and the
// assigned columns take the subquery's column types.
func TestMultiColumnAssignmentFromSubquery(t *testing.T) {
	const schema = `
create table src (id bigint primary key, status text not null, n integer);
create table dst (id bigint primary key, status text, n integer);
`
	for _, tc := range []struct{ query, params, sql string }{
		{"update dst set (status, n) = (select status, n from src s where s.id = $2) where id = $1",
			"1 id int8 not null; 2 id int8 not null",
			"update dst set (status, n) = (select status, n from src s where s.id = $2) where id = $1"},
		{"update dst set (status, n) = (select status, n from src s where s.id = @src and s.n > @min) where id = @id",
			"1 src int8 not null; 2 min int4; 3 id int8 not null",
			"update dst set (status, n) = (select status, n from src s where s.id = $1 and s.n > $2) where id = $3"},
		{"update dst set (status, n) = (@status, @n) where id = @id",
			"1 status text; 2 n int4; 3 id int8 not null",
			"update dst set (status, n) = ($1, $2) where id = $3"},
	} {
		q := mustAnalyze(t, schema, "-- name: Q :exec\n"+tc.query+";")
		if got := strings.Join(paramList(q[0]), "; "); got != tc.params {
			t.Errorf("%s: params\n got %s\nwant %s", tc.query, got, tc.params)
		}
		if !strings.Contains(q[0].SQL, tc.sql) {
			t.Errorf("%s: SQL\n%s\nwant it to hold\n%s", tc.query, q[0].SQL, tc.sql)
		}
	}
	// sqlc resolves no reference of a SET value but a parameter's
	// partner: it generates the query, with a note (issue 23).
	q := mustAnalyze(t, schema, "-- name: Q :exec\nupdate dst set (status, n) = (select status, nope from src) where id = 1;")
	if len(q[0].Notes) != 1 || !strings.Contains(q[0].Notes[0], `PostgreSQL refuses this query: column "nope" does not exist`) {
		t.Errorf("unknown column in the subquery: notes %q, want it noted once", q[0].Notes)
	}
}

// "@fence non-strict" on a strict table loosens that query's guard and
// says so (Fence.Loosens), so that the guard trigger can follow; "@fence
// strict" on a non-strict table tightens it.
func TestPerQueryModeOnTables(t *testing.T) {
	const schema = `
create table j (id bigint primary key, s text not null, tok bigint not null default 0);
comment on column j.tok is 'fencegen:token strict';
create table k (id bigint primary key, s text not null, tok bigint not null default 0);
comment on column k.tok is 'fencegen:token';
`
	q := mustAnalyze(t, schema, "-- name: Q :exec\n-- @fence non-strict\nupdate j set s = 'x' where id = $1;")
	if f := q[0].Fence; f.Strict || !f.Loosens {
		t.Errorf("non-strict on a strict table: %+v", f)
	}
	q = mustAnalyze(t, schema, "-- name: Q :exec\n-- @fence strict\nupdate k set s = 'x' where id = $1;")
	if f := q[0].Fence; !f.Strict || f.Loosens {
		t.Errorf("strict on a non-strict table: %+v", f)
	}
}

// A fencing token marked on a partition or an INHERITS child only: a
// write named on the (unfenced) parent can write the fenced rows without
// the guard, so it is refused; a LIKE ... INCLUDING ALL copy of a fenced
// table is fenced.
func TestWriteThroughUnfencedParentRefused(t *testing.T) {
	const schema = `
create table m (id bigint, r text, v text, tok bigint not null default 0, primary key (id, r)) partition by list (r);
create table m_a partition of m for values in ('a');
comment on column m_a.tok is 'fencegen:token';
create table ib (id bigint primary key, v text, tok bigint not null default 0);
create table ic () inherits (ib);
comment on column ic.tok is 'fencegen:token';
create table lk (like m_a including all);
`
	for _, tc := range []struct{ query, want string }{
		{"update m set v = 'x' where id = $1 and r = 'a'", "UPDATE on m can write rows of its fenced partition m_a without the guard"},
		{"delete from ib where id = $1", "DELETE on ib can write rows of its fenced child table ic without the guard"},
		{"insert into m (id, r, v) values ($1, 'a', 'x')", "INSERT on m can write rows of its fenced partition m_a"},
	} {
		_, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+tc.query+";")
		if len(msgs) != 1 || !strings.Contains(msgs[0], tc.want) {
			t.Errorf("%s: %q, want %q", tc.query, msgs, tc.want)
		}
	}
	q := mustAnalyze(t, schema, "-- name: Q :exec\nupdate lk set v = 'x' where id = $1;")
	if q[0].Fence == nil {
		t.Error("LIKE ... INCLUDING ALL of a fenced table is not fenced")
	}
	q = mustAnalyze(t, schema, "-- name: Q :exec\n-- @fence off: migration backfill\nupdate m set v = 'x';")
	if q[0].OptOut == nil {
		t.Error("an opted-out write through the parent is not listed")
	}
}

// A write whose FOREIGN KEY actions reach a fenced table (ON DELETE
// CASCADE / SET NULL / SET DEFAULT, ON UPDATE CASCADE of a referenced
// column, TRUNCATE ... CASCADE, also through an unfenced table in
// between) is refused: PostgreSQL writes those rows without their tokens
// being checked. RESTRICT and NO ACTION reach nothing.
func TestForeignKeyCascadesIntoFencedTableRefused(t *testing.T) {
	const schema = `
create table orders (id bigint primary key, tok bigint not null default 0);
comment on column orders.tok is 'fencegen:token';
create table order_lines (order_id bigint references orders on delete cascade, line int, tok bigint not null default 0, primary key (order_id, line));
comment on column order_lines.tok is 'fencegen:token';
create table customers (id bigint primary key, code text unique);
create table carts (id bigint primary key, customer_id bigint, tok bigint not null default 0);
alter table carts add foreign key (customer_id) references customers (id) on delete set null;
comment on column carts.tok is 'fencegen:token';
create table tags (code text references customers (code) on update cascade, tok bigint not null default 0, id int primary key);
comment on column tags.tok is 'fencegen:token';
create table regions (id int primary key);
create table shops (id int primary key, region int references regions on delete cascade);
create table stock (id int primary key, shop int references shops on delete cascade, tok bigint not null default 0);
comment on column stock.tok is 'fencegen:token';
create table notes (id int primary key, order_id bigint references orders on delete restrict);
`
	for _, tc := range []struct{ query, want string }{
		{"delete from orders where id = $1", "DELETE on orders reaches fenced table order_lines through foreign keys, orders → order_lines (order_id, ON DELETE CASCADE)"},
		{"delete from customers where id = $1", "DELETE on customers reaches fenced table carts through foreign keys, customers → carts (customer_id, ON DELETE SET NULL)"},
		{"update customers set code = $1 where id = $2", "UPDATE on customers reaches fenced table tags through foreign keys, customers → tags (code, ON UPDATE CASCADE)"},
		{"delete from regions where id = $1", "DELETE on regions reaches fenced table stock through foreign keys, regions → shops (region, ON DELETE CASCADE) → stock (shop, ON DELETE CASCADE)"},
		{"truncate customers cascade", "TRUNCATE ... CASCADE on customers reaches fenced table carts through foreign keys, customers → carts (customer_id, TRUNCATE ... CASCADE): it empties every table that refers to customers, whatever the foreign key's action, without checking fencing tokens; drop CASCADE"},
		// The hint says what clears the refusal: the key's action, not
		// deleting the rows first (issue 24).
		{"delete from orders where id = $1 and true", "even when another query deletes those rows first; to clear it, make the foreign key ON DELETE/ON UPDATE RESTRICT or NO ACTION in the schema"},
	} {
		_, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+tc.query+";")
		if len(msgs) == 0 || !strings.Contains(strings.Join(msgs, "\n"), tc.want) {
			t.Errorf("%s: %q, want %q", tc.query, msgs, tc.want)
		}
	}
	for _, query := range []string{
		"update customers set id = id where id = $1 and false", // carts refers to id, ON UPDATE NO ACTION
		"delete from notes where id = $1",
		"update orders set id = id where id = $1",
	} {
		if _, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+query+";"); len(msgs) != 0 {
			t.Errorf("%s: %q, want no problem", query, msgs)
		}
	}
}

// A write to a view is accepted, as sqlc accepts it, while the schema has
// no fenced table; with one, PostgreSQL's rewrite of the write into the
// view's base tables could reach it unguarded, so the write is refused at
// the view's name unless the query opts out.
func TestWriteToView(t *testing.T) {
	plain := "CREATE TABLE users (id bigint PRIMARY KEY, name text, active bool NOT NULL);\n" +
		"CREATE VIEW active_users AS SELECT id, name FROM users WHERE active;"
	q := mustAnalyze(t, plain, "-- name: Rename :exec\nUPDATE active_users SET name = $1 WHERE id = $2;\n"+
		"-- name: Drop :execrows\nDELETE FROM active_users WHERE id = $1;\n"+
		"-- name: Add :one\nINSERT INTO active_users (id, name) VALUES ($1, $2) RETURNING *;")
	if got := len(q); got != 3 {
		t.Fatalf("got %d queries, want 3", got)
	}
	if p := q[0].Params; len(p) != 2 || p[0].Type.Name != "text" || p[1].Type.Name != "int8" {
		t.Errorf("Rename params: %+v", p)
	}
	if got := cols(q[2]); got != "id int8 not null, name text" {
		t.Errorf("Add columns: %s", got)
	}

	// With fenced tables in the schema, a write of an automatically
	// updatable view is a write of its base table (PostgreSQL docs, CREATE
	// VIEW, "Updatable Views"): users is not fenced, so it is accepted as
	// sqlc accepts it, and @fence off has nothing to say; through a view
	// over jobs it is refused, and @fence off names jobs alone.
	fenced := plain + "\nCREATE TABLE jobs (id bigint PRIMARY KEY, name text, tok bigint NOT NULL);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';" +
		"\nCREATE TABLE jobs_copy (id bigint PRIMARY KEY, tok bigint NOT NULL);\nCOMMENT ON COLUMN jobs_copy.tok IS 'fencegen:token';" +
		"\nCREATE VIEW jobs_v AS SELECT id, name FROM jobs;\nCREATE VIEW jobs_vv AS SELECT id, name FROM jobs_v WITH CHECK OPTION;"
	mustAnalyze(t, fenced, "-- name: Rename :exec\nUPDATE active_users SET name = $1 WHERE id = $2;")
	_, msgs := analyzeSrc(t, fenced, "-- name: Rename :exec\n-- @fence off: the view reads users only\nUPDATE active_users SET name = $1 WHERE id = $2;")
	if len(msgs) != 1 || !strings.Contains(msgs[0], "this query writes none") {
		t.Errorf("@fence off on a write of a view over users: got %q, want the annotation refused", msgs)
	}
	for _, v := range []string{"jobs_v", "jobs_vv"} {
		src := "-- name: Rename :exec\nUPDATE " + v + " SET name = $1 WHERE id = $2;"
		_, msgs = analyzeSrc(t, fenced, src)
		if len(msgs) != 1 || !strings.HasPrefix(msgs[0], "query.sql:2:8: query Rename runs UPDATE on view "+v+", which PostgreSQL turns into UPDATE on fenced table jobs (") {
			t.Errorf("%s: got %q, want one refusal at the view's name", v, msgs)
		}
		files, msgs := analyzeSrc(t, fenced, "-- name: Rename :exec\n-- @fence off: repair\nUPDATE "+v+" SET name = $1 WHERE id = $2;")
		if len(msgs) > 0 {
			t.Fatalf("%s with @fence off: %q", v, msgs)
		}
		if got := files[0].Queries[0].OptOut.Tables; !slices.Equal(got, []string{"jobs"}) {
			t.Errorf("%s with @fence off: writes %q, want [jobs]", v, got)
		}
	}
}
