package gen_test

// TestParamShapesMatchSqlc (issue 23) is a differential table test of
// how parameters are named and typed: it builds queries from expression
// shapes (a parameter compared, listed, cast, passed, nested in IN,
// BETWEEN, ANY, row comparisons, COALESCE, GREATEST, CASE, subqueries,
// aggregates) placed in positions (WHERE, HAVING, JOIN ON, the select
// list, UPDATE SET and WHERE, DELETE WHERE, INSERT VALUES, a subquery,
// a CTE, LIMIT), runs sqlc v1.31.1 and fencegen on all of them and
// compares, query by query, the method's parameters and its Params
// struct's fields, names and Go types. Queries sqlc refuses are left
// out (sqlc names them in its errors); so are those fencegen refuses,
// which must be few. sqlcShapeDiffs lists the queries that differ on
// purpose, with the reason.
//
//	go test ./gen -run TestParamShapesMatchSqlc -v

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

const shapeSchemaPG = `CREATE TABLE books (
  id bigint PRIMARY KEY,
  title text NOT NULL,
  lo integer NOT NULL,
  hi integer,
  a integer NOT NULL,
  b text,
  tags text[] NOT NULL,
  price numeric,
  flag boolean NOT NULL,
  made timestamptz
);
CREATE TABLE authors (
  aid bigint PRIMARY KEY,
  name text NOT NULL,
  born date,
  book_id bigint
);
`

// shapeExprsPG are boolean expressions over books' columns with
// parameters $1, $2.
var shapeExprsPG = []string{
	"lo = $1",
	"$1 = lo",
	"hi > $1",
	"b = $1",
	"lower(title) = $1",
	"length(title) IN ($1, $2)",
	"lo IN ($1, $2)",
	"$1 IN (lo, hi)",
	"(lo, hi) = ($1, $2)",
	"(a, b) IN (($1, $2))",
	"lo BETWEEN $1 AND $2",
	"$1 BETWEEN lo AND hi",
	"a = coalesce(hi, $1)",
	"b = coalesce(hi, $1)::text",
	"coalesce(hi, $1) > 0",
	"coalesce($1, hi) > 0",
	"$1 = ANY(tags)",
	"lo = ANY($1::int[])",
	"greatest(a, $1) > 3",
	"least(a, $1) > hi",
	"greatest($1, 2) > a",
	"(SELECT count(*) FROM authors) > $1",
	"(SELECT max(born) FROM authors) > $1",
	"id IN (SELECT book_id FROM authors WHERE name = $1)",
	"EXISTS (SELECT 1 FROM authors WHERE authors.book_id = books.id AND born > $1)",
	"title LIKE $1",
	"title || $1 = 'x'",
	"$1 || 'x' = title",
	"NOT (lo = $1)",
	"hi IS NULL OR hi = $1",
	"lo = $1::int",
	"$1::text = title",
	"lo = abs($1)",
	"lo + 1 = $1",
	"a - $1 > 0",
	"lo * 2 > $1 + hi",
	"hi IS DISTINCT FROM $1",
	"CASE WHEN flag THEN lo ELSE hi END = $1",
	"flag = $1",
	"$1",
	"NOT $1",
	"$1 IS NULL",
	"made > $1",
	"made > now() - $1::interval",
	"price > $1",
	"nullif(lo, $1) IS NULL",
	"lo = ALL($1::int[])",
	"tags @> $1",
	"$1 = lo AND $2 = b",
	"(SELECT aid FROM authors WHERE name = $1 LIMIT 1) = id",
	"tags @> ARRAY[$1]::text[]",
	"tags && ARRAY[$1, $2]::text[]",
	"tags && ARRAY[$1]",
	"lo = ANY(ARRAY[$1, $2]::int[])",
	"lo = ANY(ARRAY[$1, $2])",
	"(ARRAY[$1, lo])::bigint[] @> tags::bigint[]",
	"coalesce($1, hi)::int > 0",
}

// shapePositionsPG place an expression (%s) in a statement.
var shapePositionsPG = []string{
	"SELECT id FROM books WHERE %s",
	"SELECT lo FROM books GROUP BY lo, hi, a, b, title, tags, price, flag, made, id HAVING %s",
	"SELECT books.id FROM books JOIN authors ON authors.book_id = books.id AND %s",
	"UPDATE books SET lo = 1 WHERE %s",
	"DELETE FROM books WHERE %s",
	"SELECT aid FROM authors WHERE EXISTS (SELECT 1 FROM books WHERE %s)",
	"WITH c AS (SELECT * FROM books WHERE %s) SELECT id FROM c",
}

// shapeWholePG are statements whose parameters sit where no boolean
// expression does.
var shapeWholePG = []string{
	"SELECT id FROM books LIMIT $1",
	"SELECT id FROM books WHERE lo = $1 LIMIT $2 OFFSET $3",
	"SELECT id FROM books WHERE lo = $1 LIMIT $1",
	"INSERT INTO books (id, title, lo, a, tags, flag) VALUES ($1, $2, $3, $4, $5, $6)",
	"INSERT INTO books (id, title, lo, a, tags, flag) VALUES ($1, lower($2), $3 + 1, coalesce($4, 0), $5, $6)",
	"INSERT INTO books (id, title, lo, a, tags, flag) SELECT $1, $2, lo, a, tags, flag FROM books WHERE id = $3",
	"INSERT INTO books (id, title, lo, a, tags, flag) VALUES ($1, 't', 1, 1, '{}', true) ON CONFLICT (id) DO UPDATE SET lo = $2, hi = excluded.hi + $3",
	"UPDATE books SET lo = $1, hi = hi + $2 WHERE id = $3",
	"UPDATE books SET title = lower($1), b = coalesce($2, b) WHERE id = $3",
	"UPDATE books SET (lo, hi) = ($1, $2) WHERE id = $3",
	"UPDATE books SET a = greatest(a, $1) WHERE id = $2",
	"SELECT lo + $1 AS total FROM books",
	"SELECT coalesce(hi, $1) AS hi FROM books",
	"SELECT $1::int AS n FROM books",
	"SELECT id, lo > $1 AS big FROM books",
	"SELECT count(*) FROM books WHERE lo > $1",
	"SELECT lo, count(*) FROM books GROUP BY lo HAVING count(*) > $1",
	"SELECT lo, count(*) FROM books GROUP BY lo HAVING count(*) IN ($1)",
	"SELECT lo FROM books GROUP BY lo HAVING sum(a) > $1",
	"WITH c AS (SELECT id, lo AS low FROM books) SELECT id FROM c WHERE low = $1",
	"WITH c AS (SELECT id, lo FROM books) SELECT id FROM c WHERE lo = $1",
	"WITH c AS (SELECT id, hi FROM books) SELECT c.id FROM c JOIN authors ON authors.book_id = c.id WHERE c.hi = $1",
	"SELECT id FROM books WHERE lo = (SELECT max(a) FROM books WHERE hi = $1)",
	"WITH c AS (SELECT id, hi FROM books) SELECT id FROM c WHERE hi > $1 AND id = $2",
	"WITH c AS (SELECT id, hi FROM books) SELECT c.id FROM c WHERE hi = $1",
	"SELECT id FROM books WHERE lo = @low AND hi > @low",
	"SELECT id FROM books WHERE lo = sqlc.narg(low)",
	"SELECT id FROM books WHERE $1 = ANY(tags) AND lo = $2",
	"SELECT id FROM books WHERE made BETWEEN @since AND @until",
	"SELECT id FROM books WHERE lo BETWEEN @lo AND $2",
	"DELETE FROM books WHERE id = ANY($1::bigint[])",
	"SELECT id FROM books WHERE id = ANY(sqlc.slice(ids)::bigint[])",
	"UPDATE books SET tags = ARRAY[$1, $2]::text[] WHERE id = $3",
	"UPDATE books SET tags = tags || ARRAY[$1]::text[] WHERE id = $2",
	"SELECT ARRAY[$1::text] AS arr FROM books",
	"SELECT ARRAY[$1, $2]::text[] AS arr FROM books",
	// @x followed by an operator that binds more tightly than prefix @
	// (+ - * / % ^): sqlc reads @(x - 1), one parameter named -x in
	// place of the operand, wherever the operand stands (issue 23,
	// GoAlert's CleanupAlertLogs).
	"SELECT id FROM books WHERE id BETWEEN @lo_id AND @hi_id - 1",
	"SELECT id FROM books WHERE id BETWEEN @lo_id + 1 AND @hi_id",
	"SELECT id FROM books WHERE @v - 1 BETWEEN lo AND hi AND id = @w",
	"SELECT id FROM books WHERE id NOT BETWEEN @lo_id * 2 AND @hi_id / 2",
	"SELECT id FROM books WHERE lo IN (@x - 1, @y)",
	"SELECT id FROM books WHERE lo = (@x % 3)::int AND id = @y",
	"SELECT id FROM books WHERE lo > @x - 1 AND id = @y",
	"SELECT id FROM books WHERE lo > @x ^ 2 AND id = @y",
	"SELECT id FROM books LIMIT @n - 1 OFFSET @m",
	"SELECT id FROM books WHERE id = @k LIMIT @n OFFSET @n - 1",
	"WITH s AS (SELECT id FROM books WHERE id BETWEEN @lo_id AND @hi_id - 1 ORDER BY id LIMIT @batch) SELECT id FROM s OFFSET @batch - 1 LIMIT 1",
	"SELECT id FROM books WHERE id BETWEEN @lo_id AND @hi_id - 1 AND id > @lo_id - 2",
	"INSERT INTO books (id, title, lo, a, tags, flag) VALUES (@i + 1, @t, @l * 2, @a, @tags, @flag)",
	"UPDATE books SET lo = @l - 1, hi = @h WHERE id = @i",
}

const shapeSchemaMySQL = `CREATE TABLE books (
  id bigint PRIMARY KEY,
  title varchar(200) NOT NULL,
  lo int NOT NULL,
  hi int,
  a int NOT NULL,
  b text,
  price decimal(10,2),
  flag boolean NOT NULL,
  made datetime
);
CREATE TABLE authors (
  aid bigint PRIMARY KEY,
  name varchar(100) NOT NULL,
  born date,
  book_id bigint
);
`

var shapeExprsMySQL = []string{
	"lo = ?",
	"? = lo",
	"hi > ?",
	"b = ?",
	"lower(title) = ?",
	"length(title) IN (?, ?)",
	"lo IN (?, ?)",
	"? IN (lo, hi)",
	"(lo, hi) = (?, ?)",
	"lo BETWEEN ? AND ?",
	"? BETWEEN lo AND hi",
	"a = coalesce(hi, ?)",
	"coalesce(hi, ?) > 0",
	"greatest(a, ?) > 3",
	"least(a, ?) > hi",
	"(SELECT count(*) FROM authors) > ?",
	"(SELECT max(born) FROM authors) > ?",
	"id IN (SELECT book_id FROM authors WHERE name = ?)",
	"EXISTS (SELECT 1 FROM authors WHERE authors.book_id = books.id AND born > ?)",
	"title LIKE ?",
	"NOT (lo = ?)",
	"hi IS NULL OR hi = ?",
	"lo = CAST(? AS SIGNED)",
	"lo = abs(?)",
	"lo + 1 = ?",
	"a - ? > 0",
	"CASE WHEN flag THEN lo ELSE hi END = ?",
	"flag = ?",
	"made > ?",
	"price > ?",
	"? = lo AND ? = b",
	"concat(title, ?) = 'x'",
	"ifnull(hi, ?) = 1",
}

var shapePositionsMySQL = []string{
	"SELECT id FROM books WHERE %s",
	"SELECT lo FROM books GROUP BY lo, hi, a, b, title, price, flag, made, id HAVING %s",
	"SELECT books.id FROM books JOIN authors ON authors.book_id = books.id AND %s",
	"UPDATE books SET lo = 1 WHERE %s",
	"DELETE FROM books WHERE %s",
	"SELECT aid FROM authors WHERE EXISTS (SELECT 1 FROM books WHERE %s)",
}

var shapeWholeMySQL = []string{
	"SELECT id FROM books LIMIT ?",
	"SELECT id FROM books WHERE lo = ? LIMIT ? OFFSET ?",
	"INSERT INTO books (id, title, lo, a, flag) VALUES (?, ?, ?, ?, ?)",
	"INSERT INTO books (id, title, lo, a, flag) VALUES (?, lower(?), ? + 1, coalesce(?, 0), ?)",
	"INSERT INTO books (id, title, lo, a, flag) VALUES (?, 't', 1, 1, true) ON DUPLICATE KEY UPDATE lo = ?",
	"INSERT INTO books (id, title, lo, a, flag) VALUES (?, 't', 1, 1, true) ON DUPLICATE KEY UPDATE lo = VALUES(lo) + ?",
	"INSERT INTO books (id, title, lo, a, flag) VALUES (?, 't', 1, 1, true) ON DUPLICATE KEY UPDATE hi = hi + ?",
	"UPDATE books SET lo = ?, hi = hi + ? WHERE id = ?",
	"UPDATE books SET title = lower(?), b = coalesce(?, b) WHERE id = ?",
	"UPDATE books SET a = greatest(a, ?) WHERE id = ?",
	"UPDATE books SET lo = 1 WHERE id = ? LIMIT ?",
	"DELETE FROM books WHERE id = ? LIMIT ?",
	"SELECT lo + ? AS total FROM books",
	"SELECT id, lo > ? AS big FROM books",
	"SELECT lo, count(*) FROM books GROUP BY lo HAVING count(*) > ?",
	"SELECT lo FROM books GROUP BY lo HAVING sum(a) > ?",
	"SELECT id FROM books WHERE lo = (SELECT max(a) FROM books WHERE hi = ?)",
	"SELECT id FROM books WHERE lo = sqlc.arg(low) AND hi > sqlc.arg(high)",
	"SELECT id FROM books WHERE id IN (sqlc.slice(ids))",
	"SELECT id FROM books WHERE made BETWEEN sqlc.arg(since) AND sqlc.arg(until)",
}

// sqlcShapeDiffs are the queries (by shape text) where fencegen names or
// types a parameter otherwise than sqlc, with the reason.
var sqlcShapeDiffs = map[string]string{
	// sqlc numbers @n - 1 apart from @n (its name is -n) and its pgx/v5
	// template declares the field N once per number, which does not
	// compile; fencegen declares it once and passes it for both numbers,
	// as sqlc's database/sql template does (UniqueFields).
	"SELECT id FROM books WHERE id = @k LIMIT @n OFFSET @n - 1":                                                                                   "sqlc's pgx/v5 Params struct declares N twice",
	"WITH s AS (SELECT id FROM books WHERE id BETWEEN @lo_id AND @hi_id - 1 ORDER BY id LIMIT @batch) SELECT id FROM s OFFSET @batch - 1 LIMIT 1": "sqlc's pgx/v5 Params struct declares Batch twice",
	"SELECT id FROM books WHERE id BETWEEN @lo_id AND @hi_id - 1 AND id > @lo_id - 2":                                                             "sqlc's pgx/v5 Params struct declares LoID twice",
}

// shapeQueries returns the queries: name to statement.
func shapeQueries(positions, exprs, whole []string) (names []string, stmts map[string]string) {
	stmts = map[string]string{}
	add := func(s string) {
		n := fmt.Sprintf("Q%d", len(names)+1)
		names = append(names, n)
		stmts[n] = s
	}
	for _, p := range positions {
		for _, e := range exprs {
			add(fmt.Sprintf(p, e))
		}
	}
	for _, s := range whole {
		add(s)
	}
	return names, stmts
}

// shapeFile writes the queries of names as one query file; lineOf maps
// each line to its query's name.
func shapeFile(names []string, stmts map[string]string) (string, map[int]string) {
	var b strings.Builder
	lineOf := map[int]string{}
	line := 1
	for _, n := range names {
		cmd := ":many"
		s := stmts[n]
		if strings.HasPrefix(s, "UPDATE") || strings.HasPrefix(s, "DELETE") || strings.HasPrefix(s, "INSERT") {
			cmd = ":exec"
		}
		fmt.Fprintf(&b, "-- name: %s %s\n%s;\n\n", n, cmd, s)
		lineOf[line], lineOf[line+1], lineOf[line+2] = n, n, n
		line += 3
	}
	return b.String(), lineOf
}

var shapeErrLine = regexp.MustCompile(`(?m)q\.sql:(\d+):`)

// shapeParams is, per query, the method's parameter list and its Params
// struct's fields, from the Go files of files.
func shapeParams(t *testing.T, files map[string][]byte) map[string][]string {
	out := map[string][]string{}
	fn := regexp.MustCompile(`^func \(q \*Queries\) (Q\d+)\((.*?)\) \(`)
	field := regexp.MustCompile(`^field (Q\d+)Params\.(.*)$`)
	for _, l := range declaredNames(t, files) {
		if m := fn.FindStringSubmatch(l); m != nil {
			out[m[1]] = append(out[m[1]], "("+m[2]+")")
		} else if m := field.FindStringSubmatch(l); m != nil {
			out[m[1]] = append(out[m[1]], m[2])
		}
	}
	return out
}

func TestParamShapesMatchSqlc(t *testing.T) {
	t.Run("postgresql", func(t *testing.T) {
		testParamShapes(t, "postgresql", shapeSchemaPG, shapePositionsPG, shapeExprsPG, shapeWholePG, 200)
	})
	t.Run("mysql", func(t *testing.T) {
		testParamShapes(t, "mysql", shapeSchemaMySQL, shapePositionsMySQL, shapeExprsMySQL, shapeWholeMySQL, 150)
	})
}

// testParamShapes runs the shapes (positions × exprs, and whole) on
// engine; at least atLeast of them must be compared.
func testParamShapes(t *testing.T, engine, schema string, positions, exprs, whole []string, atLeast int) {
	bin := needSqlc(t)
	names, stmts := shapeQueries(positions, exprs, whole)
	dir := t.TempDir()
	// Overrides of a table's column and of a CTE's column of the same
	// name: sqlc looks a parameter's column up in the statement's
	// tables, never in a CTE.
	pkg := ", sql_package: pgx/v5, overrides: [{column: books.hi, go_type: database/sql.NullInt64}, {column: c.hi, go_type: database/sql.NullInt32}]"
	if engine == "mysql" {
		pkg = ""
	}
	cfgText := "version: \"2\"\nsql:\n  - {engine: " + engine + ", schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out" + pkg + "}}}\n"
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("schema.sql", schema)
	write("sqlc.yaml", cfgText)
	drop := func(kept []string, out string, lineOf map[int]string, who string) []string {
		bad := map[string]bool{}
		for _, m := range shapeErrLine.FindAllStringSubmatch(out, -1) {
			n, _ := strconv.Atoi(m[1])
			if q := lineOf[n]; q != "" {
				bad[q] = true
			}
		}
		if len(bad) == 0 {
			t.Fatalf("%s failed without naming a query:\n%s", who, out)
		}
		return slices.DeleteFunc(kept, func(n string) bool { return bad[n] })
	}
	// sqlc: drop what it refuses until it generates.
	kept := slices.Clone(names)
	var sqlcRefused int
	for {
		text, lineOf := shapeFile(kept, stmts)
		write("q.sql", text)
		cmd := exec.Command(bin, "generate")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err == nil {
			break
		}
		before := len(kept)
		kept = drop(kept, string(out), lineOf, "sqlc")
		sqlcRefused += before - len(kept)
	}
	want := map[string][]byte{}
	paths, _ := filepath.Glob(filepath.Join(dir, "out", "*.go"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want["out/"+filepath.Base(p)] = b
	}
	// fencegen on the same queries: drop what it refuses.
	var fgRefused []string
	var got *gen.Output
	fgKept := slices.Clone(kept)
	for {
		text, lineOf := shapeFile(fgKept, stmts)
		write("q.sql", text)
		cfg, err := gen.LoadConfig(filepath.Join(dir, "sqlc.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		got, err = gen.Generate(t.Context(), cfg)
		if err == nil {
			break
		}
		before := slices.Clone(fgKept)
		fgKept = drop(fgKept, err.Error(), lineOf, "fencegen")
		for _, n := range before {
			if !slices.Contains(fgKept, n) {
				fgRefused = append(fgRefused, n+": "+stmts[n])
			}
		}
	}
	sq, fg := shapeParams(t, want), shapeParams(t, got.Files)
	same := 0
	var diffs []string
	for _, n := range fgKept {
		s, f := strings.Join(sq[n], "; "), strings.Join(fg[n], "; ")
		if s == f {
			same++
			continue
		}
		if sqlcShapeDiffs[stmts[n]] != "" {
			continue
		}
		diffs = append(diffs, fmt.Sprintf("%s: %s\n\tsqlc:     %s\n\tfencegen: %s", n, stmts[n], s, f))
	}
	t.Logf("%d shapes, sqlc refuses %d, fencegen refuses %d more; %d of %d identical", len(names), sqlcRefused, len(fgRefused), same, len(fgKept))
	if len(fgKept) < atLeast {
		t.Errorf("only %d shapes compared; the table aims at %d or more", len(fgKept), atLeast)
	}
	if len(fgRefused) > 0 {
		t.Errorf("fencegen refuses queries sqlc generates:\n%s", strings.Join(fgRefused, "\n"))
	}
	if len(diffs) > 0 {
		t.Errorf("%d shapes named or typed otherwise than by sqlc:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
}
