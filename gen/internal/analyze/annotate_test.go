package analyze

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// annotate parses the comment block src (lines starting at line 1).
func annotate(src string) (*Annotation, []locatedMsg) {
	return parseAnnotation(commentLines([]byte(src), 0, len(src)))
}

func TestParseAnnotationValid(t *testing.T) {
	for _, tc := range []struct {
		src       string
		name, cmd string
		doc       []string
		strict    bool
		nonStrict bool
		nameCol   int
		cmdCol    int
	}{
		{src: "-- name: GetUser :one", name: "GetUser", cmd: ":one", nameCol: 10, cmdCol: 18},
		{src: "--name:GetUser :many", name: "GetUser", cmd: ":many", nameCol: 8, cmdCol: 16},
		{src: "-- name:   Spaced   :exec   ", name: "Spaced", cmd: ":exec", nameCol: 12, cmdCol: 21},
		{src: "-- name: getUser :execrows", name: "getUser", cmd: ":execrows", nameCol: 10, cmdCol: 18},
		{src: "-- name: Copy :copyfrom", name: "Copy", cmd: ":copyfrom", nameCol: 10, cmdCol: 15},
		{src: "-- name: B :batchexec", name: "B", cmd: ":batchexec", nameCol: 10, cmdCol: 12},
		{
			src:  "-- name: Doc :exec\n-- Doc does a thing.\n--   indented\n--\n-- last",
			name: "Doc", cmd: ":exec", doc: []string{" Doc does a thing.", "   indented", "", " last"}, nameCol: 10, cmdCol: 14,
		},
		{
			src:  "-- Doc above the name line.\n-- name: Above :one",
			name: "Above", cmd: ":one", doc: []string{" Doc above the name line."}, nameCol: 10, cmdCol: 16,
		},
		{src: "-- name: S :exec\n-- @fence strict", name: "S", cmd: ":exec", strict: true, nameCol: 10, cmdCol: 12},
		{src: "-- name: S :exec\n--   @fence   strict  ", name: "S", cmd: ":exec", strict: true, nameCol: 10, cmdCol: 12},
		{src: "-- name: N :exec\n-- @fence non-strict", name: "N", cmd: ":exec", nonStrict: true, nameCol: 10, cmdCol: 12},
		{src: "-- name: N :exec\n-- @fence nonstrict", name: "N", cmd: ":exec", nonStrict: true, nameCol: 10, cmdCol: 12},
		{src: "-- name: V :one\n-- @sqlc-vet-disable", name: "V", cmd: ":one", nameCol: 10, cmdCol: 12},
		{src: "  -- name: Indented :one", name: "Indented", cmd: ":one", nameCol: 12, cmdCol: 21},
	} {
		t.Run(tc.src, func(t *testing.T) {
			a, errs := annotate(tc.src)
			if len(errs) > 0 {
				t.Fatalf("unexpected problems: %+v", errs)
			}
			if a == nil {
				t.Fatal("no annotation")
			}
			if a.Name != tc.name || a.Cmd != tc.cmd {
				t.Errorf("name, cmd = %q, %q; want %q, %q", a.Name, a.Cmd, tc.name, tc.cmd)
			}
			if !slices.Equal(a.Doc, tc.doc) {
				t.Errorf("doc = %q, want %q", a.Doc, tc.doc)
			}
			if a.Strict != tc.strict || a.NonStrict != tc.nonStrict {
				t.Errorf("strict, nonStrict = %v, %v; want %v, %v", a.Strict, a.NonStrict, tc.strict, tc.nonStrict)
			}
			if a.NameCol != tc.nameCol || a.CmdCol != tc.cmdCol {
				t.Errorf("NameCol, CmdCol = %d, %d; want %d, %d", a.NameCol, a.CmdCol, tc.nameCol, tc.cmdCol)
			}
		})
	}
}

func TestParseAnnotationInvalid(t *testing.T) {
	for _, tc := range []struct {
		src string
		// want lists "line:col: message substring" for each problem, in order.
		want []string
	}{
		{"-- name: Typo :exexc", []string{`1:15: query Typo: unknown command ":exexc"`}},
		{"-- name: NoCmd", []string{`1:15: query NoCmd: missing command`}},
		{"-- name: NoCmd   ", []string{`1:15: query NoCmd: missing command`}},
		{"-- name:", []string{`1:9: missing query name after "-- name:"`, `1:9: query : missing command`}},
		{"-- name: 2fast :one", []string{`1:10: query name "2fast" is not a valid Go identifier`}},
		{"-- name: has-dash :one", []string{`1:10: query name "has-dash" is not a valid Go identifier`}},
		// sqlc generates _private (an unexported method), not _.
		{"-- name: _ :one", []string{`1:10: query name "_" is the blank identifier`}},
		{"-- name: has.dot :one", []string{`1:10: query name "has.dot" is not a valid Go identifier`}},
		{"-- name: X :one more", []string{`1:17: query X: unexpected text "more" after the command`}},
		{"-- name: X :ONE", []string{`1:12: query X: unknown command ":ONE"`}},
		{"-- name: X one", []string{`1:12: query X: unknown command "one"`}},
		{"-- name: X :exec\n-- @fence sometimes", []string{`2:1: unknown flag "@fence sometimes"`}},
		{"-- name: X :exec\n-- @fence", []string{`2:1: unknown flag "@fence"`}},
		{"-- name: X :exec\n-- @fence strict\n-- @fence non-strict", []string{`3:1: query X: both @fence strict and @fence non-strict`}},
		{"-- name: X :exec\n-- @fence off", []string{`2:1: @fence off needs a reason`}},
		{"-- name: X :exec\n  -- @fence off:  ", []string{`2:3: @fence off needs a reason`}},
		{"-- name: X :exec\n-- @fence off because", []string{`2:1: @fence off needs a reason`}},
		{"-- name: X :exec\n-- @fence offline", []string{`2:1: unknown flag "@fence offline"`}},
		{"-- name: X :exec\n-- @fence off: a\n-- @fence off: b", []string{`3:1: a second @fence off (the first is on line 2)`}},
		{"-- name: X :exec\n-- @fence non-strict\n-- @fence off: a", []string{`3:1: query X: @fence off with @fence strict or non-strict`}},
	} {
		t.Run(tc.src, func(t *testing.T) {
			_, errs := annotate(tc.src)
			var got []string
			for _, e := range errs {
				got = append(got, strings.Join([]string{itoa(e.line), itoa(e.col), " " + e.msg}, ":"))
			}
			if len(got) != len(tc.want) {
				t.Fatalf("problems = %q, want %d like %q", got, len(tc.want), tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("problem %d = %q, want prefix %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// Two "-- name:" lines above one query: as in sqlc, the first names it and
// the second is dropped, from the doc comment too.
func TestParseAnnotationSecondNameLine(t *testing.T) {
	a, errs := annotate("-- name: First :one\n-- about it\n-- name: Second :many\n-- more")
	if len(errs) != 0 {
		t.Fatalf("problems: %v", errs)
	}
	if a.Name != "First" || a.Cmd != ":one" || strings.Join(a.Doc, "|") != " about it| more" {
		t.Errorf("name, cmd, doc = %q, %q, %q; want First, :one, [about it more]", a.Name, a.Cmd, a.Doc)
	}
}

// "-- name:  :one" has no name: the command must not be taken for the name.
func TestParseAnnotationNameMissingBeforeCommand(t *testing.T) {
	a, errs := annotate("-- name:  :one")
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.msg)
	}
	if a == nil || a.Cmd != ":one" || len(errs) != 1 || !strings.Contains(errs[0].msg, "missing query name") {
		t.Errorf("BUG: %q gives name %q, command %q and problems %q; want command :one and one \"missing query name\" problem",
			"-- name:  :one", a.Name, a.Cmd, msgs)
	}
}

// A name starting with a non-ASCII letter is a valid, exported Go
// identifier; the check must not upper-case the first byte of a multi-byte
// rune.
func TestParseAnnotationUnicodeName(t *testing.T) {
	for _, src := range []string{"-- name: Über :one", "-- name: éclair :one"} {
		if _, errs := annotate(src); len(errs) > 0 {
			t.Errorf("BUG: %q: problems %+v; want none", src, errs)
		}
	}
}

func TestParseAnnotationNone(t *testing.T) {
	for _, src := range []string{"", "-- just a comment", "-- names: X :one", "-- @fence strict"} {
		if a, errs := annotate(src); a != nil || (len(errs) > 0 && src != "-- @fence strict") {
			t.Errorf("%q: annotation %+v, problems %+v; want none", src, a, errs)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// analyzeSrc runs Analyze on one query file against a schema.
func analyzeSrc(t *testing.T, schema, queries string) ([]*File, []string) {
	t.Helper()
	cat, errs := schemaCatalog(t, schema)
	if len(errs) > 0 {
		t.Fatalf("schema: %v", errs)
	}
	return analyzeCat(t, cat, queries)
}

// schemaCatalog builds the catalog of schema (file schema.sql) and
// returns it with its validation errors (Catalog.Validate).
func schemaCatalog(t *testing.T, schema string) (*catalog.Catalog, diag.List) {
	t.Helper()
	sf, err := sqlparse.Parse("schema.sql", []byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.New(catalog.WithColumnGenerator(ColumnGenerator{}))
	for _, s := range sf.Stmts {
		cat.Update(sf, s)
	}
	return cat, cat.Validate()
}

// analyzeCat analyzes queries (file query.sql) against the validated
// catalog cat and returns the files and the error messages, sorted.
func analyzeCat(t *testing.T, cat *catalog.Catalog, queries string) ([]*File, []string) {
	t.Helper()
	qf, err := sqlparse.Parse("query.sql", []byte(queries))
	if err != nil {
		t.Fatal(err)
	}
	files, errs := Analyze(cat, []*sqlparse.File{qf})
	var msgs []string
	for _, e := range errs.Sort() {
		msgs = append(msgs, e.Error())
	}
	return files, msgs
}

const fencedSchema = `
CREATE TABLE t (id bigint PRIMARY KEY, name text NOT NULL, note text, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN t.tok IS 'fencegen:token';
CREATE TABLE u (id bigint PRIMARY KEY, t_id bigint NOT NULL);
`

func TestAnalyzeFence(t *testing.T) {
	files, errs := analyzeSrc(t, fencedSchema, `
-- name: Upd :exec
UPDATE t SET name = @name WHERE id = @id;

-- name: Del :execrows
-- @fence strict
DELETE FROM t WHERE id = $1;

-- name: Ins :one
INSERT INTO t (id, name) VALUES ($1, $2) RETURNING tok;

-- name: Sel :one
SELECT tok FROM t WHERE id = $1;

-- name: Other :exec
UPDATE u SET t_id = $1 WHERE id = $2;
`)
	if len(errs) > 0 {
		t.Fatalf("problems: %q", errs)
	}
	qs := files[0].Queries
	type want struct {
		kind       string
		strict     bool
		tokenParam int
		params     int
	}
	for i, w := range []*want{
		{"update", false, 3, 2},
		{"delete", true, 2, 1},
		{"insert", false, 3, 2},
		nil,
		nil,
	} {
		q := qs[i]
		if w == nil {
			if q.Fence != nil {
				t.Errorf("%s: fenced %+v, want unfenced", q.Name, q.Fence)
			}
			continue
		}
		if q.Fence == nil {
			t.Errorf("%s: not fenced", q.Name)
			continue
		}
		if q.Fence.Kind != w.kind || q.Fence.Strict != w.strict || q.Fence.TokenParam != w.tokenParam || len(q.Params) != w.params {
			t.Errorf("%s: fence %+v with %d params; want %+v", q.Name, q.Fence, len(q.Params), *w)
		}
		if !strings.Contains(q.SQL, "$"+itoa(w.tokenParam)) {
			t.Errorf("%s: SQL does not use the token parameter $%d:\n%s", q.Name, w.tokenParam, q.SQL)
		}
	}
	if c := qs[2].Columns[0]; !c.IsToken {
		t.Errorf("RETURNING tok: IsToken = false")
	}
	if c := qs[3].Columns[0]; !c.IsToken {
		t.Errorf("SELECT tok: IsToken = false")
	}
}

func TestAnalyzeParams(t *testing.T) {
	_, errs := analyzeSrc(t, fencedSchema, `
-- name: P :many
SELECT t.id, t.note, u.id AS u_id
FROM t LEFT JOIN u ON u.t_id = t.id
WHERE t.name = @name AND t.note = sqlc.narg(note) AND t.id = ANY(@ids::bigint[]) AND t.id > $9999
LIMIT @lim;
`)
	if len(errs) != 1 || !strings.Contains(errs[0], "parameter $1 is missing") {
		t.Errorf("$9999 with named parameters: problems = %q", errs)
	}
	files, errs := analyzeSrc(t, fencedSchema, `
-- name: P :many
SELECT t.id, t.note, u.id AS u_id
FROM t LEFT JOIN u ON u.t_id = t.id
WHERE t.name = @name AND t.note = sqlc.narg(note) AND t.id = ANY(@ids::bigint[]) AND t.name <> @name
LIMIT @lim;
`)
	if len(errs) > 0 {
		t.Fatalf("problems: %q", errs)
	}
	q := files[0].Queries[0]
	var got []string
	for _, p := range q.Params {
		s := itoa(p.Number) + " " + p.Name + " " + p.Type.String()
		if p.NotNull {
			s += " not null"
		}
		got = append(got, s)
	}
	want := []string{"1 name text not null", "2 note text", "3 ids int8[] not null", "4 lim int4 not null"}
	if !slices.Equal(got, want) {
		t.Errorf("params = %q\nwant     %q", got, want)
	}
	got = nil
	for _, c := range q.Columns {
		s := c.Name + " " + c.Type.String()
		if c.NotNull {
			s += " not null"
		}
		got = append(got, s)
	}
	want = []string{"id int8 not null", "note text", "u_id int8"}
	if !slices.Equal(got, want) {
		t.Errorf("columns = %q\nwant      %q", got, want)
	}
	if !strings.Contains(q.SQL, "t.name <> $1") || strings.Contains(q.SQL, "@") || strings.Contains(q.SQL, "sqlc.") {
		t.Errorf("named parameters not rewritten to $n:\n%s", q.SQL)
	}
}

// A relation that does not exist is one problem: its columns must not each
// be reported as missing too (PostgreSQL and sqlc report the relation only).
func TestAnalyzeUnknownRelationReportedOnce(t *testing.T) {
	_, errs := analyzeSrc(t, fencedSchema, `
-- name: Q :one
SELECT id, name FROM missing WHERE id = $1;
`)
	if len(errs) != 1 {
		t.Errorf("BUG: SELECT from a missing relation gives %d problems, want 1:\n%s", len(errs), strings.Join(errs, "\n"))
	}
}

// An INSERT that names the token column is one problem: the INSERT's
// column and value counts match, so no count mismatch may be reported.
func TestAnalyzeInsertTokenColumnNoFalseCountMismatch(t *testing.T) {
	for _, q := range []string{
		"INSERT INTO t (id, name, tok) VALUES ($1, $2, $3);",
		"INSERT INTO t (id, nope) VALUES ($1, $2);",
	} {
		_, errs := analyzeSrc(t, fencedSchema, "-- name: Q :exec\n"+q+"\n")
		for _, e := range errs {
			if strings.Contains(e, "more expressions than target columns") {
				t.Errorf("BUG: %s\nreports a false count mismatch: %q (all problems: %q)", q, e, errs)
			}
		}
	}
}

// paramList renders q's parameters as "n name type [not null]".
func paramList(q *Query) []string {
	var got []string
	for _, p := range q.Params {
		s := itoa(p.Number) + " " + p.Name + " " + p.Type.String()
		if p.NotNull {
			s += " not null"
		}
		got = append(got, s)
	}
	return got
}

// colList renders q's result columns as "name type [not null]".
func colList(q *Query) []string {
	var got []string
	for _, c := range q.Columns {
		s := c.Name + " " + c.Type.String()
		if c.NotNull {
			s += " not null"
		}
		got = append(got, s)
	}
	return got
}

func mustAnalyze(t *testing.T, schema, queries string) []*Query {
	t.Helper()
	files, errs := analyzeSrc(t, schema, queries)
	if len(errs) > 0 {
		t.Fatalf("problems: %q", errs)
	}
	return files[0].Queries
}

func wantList(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %q\nwant %q", what, got, want)
	}
}

// Named parameters mixed with positional ones are numbered after the
// highest $n, in order of first appearance (as sqlc does).
func TestAnalyzeMixedParams(t *testing.T) {
	qs := mustAnalyze(t, fencedSchema, `
-- name: P :many
SELECT id FROM t WHERE name = @name AND note = sqlc.narg(note) AND id > $1 AND name <> @name;
`)
	wantList(t, "params", paramList(qs[0]), []string{"1 id int8 not null", "2 name text not null", "3 note text"})
	if !strings.Contains(qs[0].SQL, "name = $2 AND note = $3 AND id > $1 AND name <> $2") {
		t.Errorf("SQL = %s", qs[0].SQL)
	}
}

// Statements without an annotation are skipped when they are not DML, and
// every statement of a file with no annotation at all is skipped; an
// unannotated DML statement among annotated queries is a note.
func TestAnalyzeUnannotatedStatements(t *testing.T) {
	files, errs := analyzeSrc(t, fencedSchema, `
CREATE TABLE other (id int);
SET search_path TO public;

-- name: Q :one
SELECT id FROM t WHERE id = $1;

CREATE INDEX ON t (name);
`)
	if len(errs) > 0 || len(files[0].Queries) != 1 {
		t.Errorf("DDL without annotation: problems %q, %d queries", errs, len(files[0].Queries))
	}
	files, errs = analyzeSrc(t, fencedSchema, `
CREATE TABLE other (id int);
INSERT INTO t (id, name) VALUES (1, 'x');
SELECT 1;
`)
	if len(errs) > 0 || len(files[0].Queries) != 0 {
		t.Errorf("file without annotations: problems %q, %d queries", errs, len(files[0].Queries))
	}
	// As sqlc, an unannotated statement after a query is no query (sqlc
	// generates Q and drops the SELECT); it is a note.
	files, errs = analyzeSrc(t, fencedSchema, `
-- name: Q :one
SELECT id FROM t WHERE id = $1;

SELECT name FROM t;
`)
	if len(errs) > 0 || len(files[0].Queries) != 1 || len(files[0].Notes) != 1 || !strings.HasPrefix(files[0].Notes[0], "query.sql:5:1: note: statement has no") {
		t.Errorf("unannotated SELECT among queries: problems %q, %d queries, notes %q", errs, len(files[0].Queries), files[0].Notes)
	}
}

// A "-- name:" line with no statement after it at the end of a file, with
// only blank lines and comments below it: sqlc v1.31.1 generates the
// file's other queries and drops it (exit 0), so it is a note, not an
// error.
func TestAnalyzeTrailingAnnotation(t *testing.T) {
	for _, tail := range []string{
		"-- name: H :many\n",
		"-- name: H :many",
		"-- name: H :many\n-- more comment\n\n",
		"-- name: H :many\n/* block */\n",
		"-- name: H :bogus\n",
	} {
		files, errs := analyzeSrc(t, fencedSchema, "-- name: G :one\nSELECT id FROM t WHERE id = $1;\n\n"+tail)
		if len(errs) > 0 || len(files[0].Queries) != 1 || files[0].Queries[0].Name != "G" {
			t.Errorf("%q: problems %q, %d queries", tail, errs, len(files[0].Queries))
			continue
		}
		want := "query.sql:4:1: note: query H has no SQL statement after its annotation, so no code is generated for it (as in sqlc)"
		if len(files[0].Notes) != 1 || files[0].Notes[0] != want {
			t.Errorf("%q: notes %q, want %q", tail, files[0].Notes, want)
		}
	}
	// A second "-- name:" line above a statement: the first names it,
	// the second is dropped, as in sqlc, with a note.
	files, errs := analyzeSrc(t, fencedSchema, "-- name: G :one\nSELECT id FROM t WHERE id = $1;\n-- name: X :one\n\n-- name: H :one\nSELECT id FROM t WHERE id = $1;\n")
	if len(errs) > 0 || len(files[0].Queries) != 2 || files[0].Queries[1].Name != "X" {
		t.Fatalf("problems %q, %d queries", errs, len(files[0].Queries))
	}
	want := "query.sql:5:1: note: \"-- name: H :one\" has no SQL statement of its own: the statement below is query X, named by the first \"-- name:\" line above it, so no code is generated for H (as in sqlc)"
	if len(files[0].Notes) != 1 || files[0].Notes[0] != want {
		t.Errorf("notes %q, want %q", files[0].Notes, want)
	}
}

// A VALUES statement keeps PostgreSQL's columns, where sqlc declares none
// (its Scan would fail on every row), with a note; a VALUES list in FROM
// has sqlc's reading (none) as its Alt, checked against PostgreSQL by
// TestSqlcReadingIsRunByPostgres.
func TestAnalyzeValuesStatement(t *testing.T) {
	files, errs := analyzeSrc(t, fencedSchema, "-- name: V :many\nVALUES (1, 'a');\n")
	if len(errs) > 0 || len(files[0].Queries) != 1 {
		t.Fatalf("problems %q", errs)
	}
	q := files[0].Queries[0]
	if got := colList(q); strings.Join(got, ", ") != "column1 int4 not null, column2 text not null" || q.Alt != nil {
		t.Errorf("columns %q, Alt %v; want PostgreSQL's, no sqlc reading", got, q.Alt)
	}
	if len(q.Notes) != 1 || !strings.HasPrefix(q.Notes[0], "query.sql:2:1: note: query V is a VALUES statement, which sqlc v1.31.1 generates with no result column") {
		t.Errorf("notes %q", q.Notes)
	}
}

const scopeSchema = `
CREATE TABLE a (id int PRIMARY KEY, names text[] NOT NULL, data jsonb NOT NULL, b_id int);
CREATE TABLE b (id int PRIMARY KEY, val text NOT NULL);
`

func TestAnalyzeScoping(t *testing.T) {
	qs := mustAnalyze(t, scopeSchema, `
-- name: DataModifyingCTE :many
WITH src AS (SELECT id FROM b), upd AS (
  UPDATE a SET b_id = src.id FROM src WHERE a.id = src.id RETURNING a.id
), del AS (DELETE FROM b USING src WHERE b.id = src.id RETURNING b.id)
INSERT INTO b (id, val) SELECT id, 'x' FROM upd RETURNING id;

-- name: Lateral :many
SELECT a.id, x.n, e
FROM a
LEFT JOIN LATERAL (SELECT count(*) AS n FROM b WHERE b.id = a.b_id) x ON true
LEFT JOIN LATERAL unnest(a.names) AS e ON true;

-- name: FuncAliases :many
SELECT label.key, label.value, t.x, t.y, j.value AS v
FROM a, jsonb_each(a.data) AS label(key, value), unnest(a.names, ARRAY[1]) AS t(x, y), jsonb_array_elements(a.data) AS j;

-- name: ColDefList :many
SELECT r.p, r.q FROM a, jsonb_to_record(a.data) AS r(p int, q text);

-- name: CurrentDate :one
SELECT * FROM CURRENT_DATE;

-- name: Empty :many
SELECT FROM a;

-- name: Subscript :exec
UPDATE a SET names[$1] = $2 WHERE id = $3;

-- name: SubscriptSelect :one
SELECT names[$1] FROM a WHERE id = $2;
`)
	wantList(t, "DataModifyingCTE columns", colList(qs[0]), []string{"id int4 not null"})
	wantList(t, "Lateral columns", colList(qs[1]), []string{"id int4 not null", "n int8", "e text"})
	wantList(t, "FuncAliases columns", colList(qs[2]), []string{"key text", "value jsonb", "x text", "y int4", "v jsonb"})
	wantList(t, "ColDefList columns", colList(qs[3]), []string{"p int4", "q text"})
	wantList(t, "CurrentDate columns", colList(qs[4]), []string{"current_date date not null"})
	if len(qs[5].Columns) != 0 {
		t.Errorf("SELECT FROM a: columns %q", colList(qs[5]))
	}
	wantList(t, "Subscript params", paramList(qs[6]), []string{"1 names int4 not null", "2 names text not null", "3 id int4 not null"})
	wantList(t, "SubscriptSelect params", paramList(qs[7]), []string{"1 column_1 int4 not null", "2 id int4 not null"})
}

// RETURNING * of UPDATE ... FROM lists the FROM items first (as sqlc does)
// and spells the star out, as sqlc does, so that the columns arrive in
// that order.
func TestAnalyzeUpdateFromReturningStar(t *testing.T) {
	qs := mustAnalyze(t, scopeSchema, `
-- name: U :one
WITH cc AS (SELECT val FROM b) UPDATE a SET b_id = 1 FROM cc RETURNING *;
`)
	wantList(t, "columns", colList(qs[0]), []string{"val text not null", "id int4 not null", "names text[] not null", "data jsonb not null", "b_id int4"})
	if !strings.Contains(qs[0].SQL, "RETURNING val, id, names, data, b_id") {
		t.Errorf("SQL = %s", qs[0].SQL)
	}
}

const inferSchema = `
CREATE TABLE foo (a int, b int, s text, j jsonb, n int NOT NULL, t timestamptz, meta text NOT NULL);
CREATE TABLE bar (x int PRIMARY KEY, y text);
CREATE FUNCTION plus(a integer, b integer) RETURNS integer AS 'select a + b' LANGUAGE sql;
CREATE PROCEDURE ins(p integer, q text) LANGUAGE sql AS 'select 1';
CREATE MATERIALIZED VIEW mv AS SELECT 1;
`

func TestAnalyzeTypeInference(t *testing.T) {
	qs := mustAnalyze(t, inferSchema, `
-- name: Funcs :one
SELECT pg_advisory_xact_lock($1), plus(b => $2, a => $3), make_interval(secs => $4), date_trunc($5, t) FROM foo;

-- name: JSON :one
SELECT json_build_array(1), jsonb_build_array(a), jsonb_extract_path(j, 'k') FROM foo;

-- name: ParamNames :many
SELECT a FROM foo WHERE lower(s) = $1 AND s = lower($2) AND j->>'k' = $3 AND a + 1 = $4;

-- name: InsertSelect :exec
INSERT INTO foo (s, meta) SELECT y, $1 FROM bar;

-- name: Call :exec
CALL ins($1, $2);

-- name: Coalesce :one
SELECT a, coalesce(a, b), coalesce(1, b), a + b, -a FROM foo;

-- name: Union :many
SELECT * FROM bar UNION SELECT * FROM bar;

-- name: CTEStar :many
WITH c AS (SELECT * FROM bar) SELECT * FROM c;
`)
	wantList(t, "Funcs params", paramList(qs[0]), []string{"1 pg_advisory_xact_lock int8 not null", "2 b int4 not null", "3 a int4 not null", "4 secs float8 not null", "5 date_trunc text not null"})
	wantList(t, "Funcs columns", colList(qs[0])[1:2], []string{"plus int4 not null"})
	wantList(t, "JSON columns", colList(qs[1]), []string{"json_build_array json not null", "jsonb_build_array jsonb not null", "jsonb_extract_path jsonb not null"})
	// Typed as PostgreSQL types the expression compared (lower(s) is
	// text, j->>'k' text, a + 1 int4), named after its column as sqlc
	// names them; sqlc's typing (the column's) is Param.Sqlc.
	wantList(t, "ParamNames params", paramList(qs[2]), []string{"1 s text not null", "2 lower text not null", "3 j text", "4 a int4 not null"})
	var sqlcTypes []string
	for _, p := range qs[2].Params {
		st := p.Type
		if p.Sqlc != nil {
			st = p.Sqlc.Type
		}
		sqlcTypes = append(sqlcTypes, st.String())
	}
	wantList(t, "ParamNames params as sqlc types them", sqlcTypes, []string{"text", "text", "jsonb", "int4"})
	wantList(t, "InsertSelect params", paramList(qs[3]), []string{"1 meta text not null"})
	wantList(t, "Call params", paramList(qs[4]), []string{"1 p int4 not null", "2 q text not null"})
	wantList(t, "Coalesce columns", colList(qs[5]), []string{"a int4", "a int4", "b int4 not null", "column_4 int4 not null", "column_5 int4 not null"})
	for _, c := range qs[6].Columns {
		if c.Column == nil || c.Column.Table.Name != "bar" {
			t.Errorf("UNION of SELECT * FROM bar: column %s not linked to bar", c.Name)
		}
	}
	for _, c := range qs[7].Columns {
		if c.Column != nil && c.Column.Table != nil {
			t.Errorf("star over a CTE: column %s linked to %s", c.Name, c.Column.Table.Name)
		}
	}
}

func TestAnalyzeNegative(t *testing.T) {
	_, errs := analyzeSrc(t, inferSchema, `
-- name: Random :one
SELECT random(1);

-- name: Conflict :exec
INSERT INTO bar (x, y) VALUES ($1, $2)
ON CONFLICT (x_typo) DO UPDATE SET y = 'a';

-- name: NoTarget :exec
INSERT INTO bar (x, y) VALUES ($1, $2)
ON CONFLICT DO UPDATE SET y = EXCLUDED.y;

-- name: NoRows :one
DELETE FROM bar WHERE x = $1;
`)
	want := []string{
		`query.sql:3:8: function random(integer) does not exist`,
		`query.sql:7:13: column "x_typo" of relation "bar" does not exist`,
		`query.sql:10:1: ON CONFLICT DO UPDATE requires inference specification or constraint name`,
		`query.sql:14:1: query NoRows: :one needs a statement that returns rows`,
	}
	if len(errs) != len(want) {
		t.Fatalf("problems = %q", errs)
	}
	for i := range want {
		if !strings.HasPrefix(errs[i], want[i]) {
			t.Errorf("problem %d = %q, want prefix %q", i, errs[i], want[i])
		}
	}
}

func TestParseAnnotationFenceOff(t *testing.T) {
	a, errs := annotate("-- name: X :exec\n-- Doc line.\n--   @fence off:  repair script, workers stopped  \n")
	if len(errs) > 0 {
		t.Fatalf("problems: %+v", errs)
	}
	if a.OptOut != "repair script, workers stopped" || a.OptOutLine != 3 || a.OptOutCol != 1 {
		t.Errorf("OptOut = %q at %d:%d, want the reason at 3:1", a.OptOut, a.OptOutLine, a.OptOutCol)
	}
	if !slices.Equal(a.Doc, []string{" Doc line."}) {
		t.Errorf("doc = %q: the @fence line must not be documentation", a.Doc)
	}
}

// @fence is read whatever its case, so "@Fence strict" is strict and never
// an ordinary comment that leaves the query non-strict.
func TestFenceFlagAnyCase(t *testing.T) {
	for _, src := range []string{"-- name: Q :exec\n-- @Fence strict", "-- name: Q :exec\n-- @FENCE STRICT"} {
		a, errs := annotate(src)
		if len(errs) > 0 || a == nil || !a.Strict {
			t.Errorf("%q: annotation %+v, problems %+v; want strict", src, a, errs)
		}
	}
	if _, errs := annotate("-- name: Q :exec\n-- @Fence sometimes"); len(errs) == 0 {
		t.Errorf("unknown @Fence flag accepted")
	}
}

// A relation that does not exist is reported with the closest table or
// view the catalog has, spelt as it must be written (quoted when mixed
// case), in the schema the name gives.
func TestAnalyzeUnknownRelationSaysTheClosest(t *testing.T) {
	const schema = `CREATE TABLE jobs (id bigint PRIMARY KEY);
CREATE SCHEMA app;
CREATE TABLE app."Orders" (id bigint PRIMARY KEY);`
	for q, want := range map[string]string{
		"SELECT id FROM jbos":           `query.sql:2:16: relation "jbos" does not exist (did you mean jobs?)`,
		"DELETE FROM jbos WHERE id = 1": `query.sql:2:13: relation "jbos" does not exist (did you mean jobs?)`,
		"SELECT id FROM app.orders":     `query.sql:2:16: relation "app.orders" does not exist (did you mean app."Orders"?)`,
		"SELECT id FROM zzzzzz":         `query.sql:2:16: relation "zzzzzz" does not exist`,
	} {
		_, errs := analyzeSrc(t, schema, "-- name: Q :exec\n"+q+";\n")
		if len(errs) != 1 || errs[0] != want {
			t.Errorf("%s: got %q, want %q", q, errs, want)
		}
	}
}

// data->>@key: PostgreSQL's lexer reads ->>@ as one operator, which does
// not exist; the note says so at the operator instead of "column key
// does not exist". sqlc v1.31.1 generates the query with the @ left in
// the text, so it is generated as sqlc does (issue 23, F11), and the
// message is a vet note.
func TestOperatorSwallowingANamedParameter(t *testing.T) {
	const schema = `CREATE TABLE d (id bigint PRIMARY KEY, custom jsonb NOT NULL);`
	for q, want := range map[string]string{
		"SELECT custom->>@key::text FROM d":   `query.sql:2:14: note: query Q: PostgreSQL refuses this query: PostgreSQL reads ->>@ as one operator (the longest run of operator characters), which does not exist, not ->> followed by the named parameter @key: put a space before the @ (->> @key)`,
		"SELECT id FROM d WHERE custom@>@m":   `query.sql:2:30: note: query Q: PostgreSQL refuses this query: PostgreSQL reads @>@ as one operator (the longest run of operator characters), which does not exist, not @> followed by the named parameter @m: put a space before the @ (@> @m)`,
		"SELECT custom ->> @key FROM d":       ``,
		"SELECT id FROM d WHERE custom @> @m": ``,
	} {
		qs, errs := analyzeSrc(t, schema, "-- name: Q :many\n"+q+";\n")
		if len(errs) > 0 || len(qs) != 1 || len(qs[0].Queries) != 1 {
			t.Errorf("%s: errors %q, want none", q, errs)
			continue
		}
		notes := strings.Join(qs[0].Queries[0].Notes, "\n")
		if want == "" && notes != "" || want != "" && !strings.Contains(notes, want) {
			t.Errorf("%s: notes %q, want %q", q, notes, want)
		}
	}
}

// A parameter passed as an unnamed argument of a schema function is named
// after the function, as sqlc names it; a named argument after the
// argument.
func TestParamNamedAfterUserFunction(t *testing.T) {
	const schema = `CREATE TABLE plain (id bigint PRIMARY KEY, team text NOT NULL);
CREATE FUNCTION plains_of(text) RETURNS SETOF plain LANGUAGE sql STABLE AS $$ SELECT * FROM plain WHERE team = $1 $$;
CREATE FUNCTION named_fn(p_team text) RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT 1::bigint $$;`
	qs := mustAnalyze(t, schema, "-- name: P :many\nSELECT * FROM plains_of($1);\n\n-- name: N :one\nSELECT named_fn($1);\n")
	for i, want := range []string{"plains_of", "p_team"} {
		if p := qs[i].Params; len(p) != 1 || p[0].Name != want || p[0].Unnamed {
			t.Errorf("%s: params %+v, want one named %s", qs[i].Name, p, want)
		}
	}
}

// An @fence line binds only to the query whose comment block it is in:
// under its "-- name:" line or right above it. One trailing the previous
// statement, or above the "-- name:" line after a blank line, would be
// given to the next query by sqlc's comment attribution and is an error
// at the flag (issue 24: it unguarded the next query).
func TestFenceOffLayout(t *testing.T) {
	_, errs := analyzeSrc(t, fencedSchema, `-- name: A :exec
UPDATE t SET name = 'a' WHERE id = @id;
-- @fence off: A is an admin repair

-- name: B :exec
UPDATE t SET name = 'b' WHERE id = @id;
-- name: C :exec
UPDATE t SET name = 'c' WHERE id = @id; -- @fence off: inline trailing
-- name: D :exec
UPDATE t SET name = 'd' WHERE id = @id;
-- name: E :exec
UPDATE t SET name = 'e' WHERE id = @id; /* @fence strict */
-- name: F :exec
UPDATE t SET name = 'f' WHERE id = @id;
`)
	want := []string{
		`query.sql:3:1: @fence off is separated from query B's "-- name:" line (line 5) by a blank line`,
		`query.sql:8:41: @fence off follows the previous statement on its line`,
		`query.sql:12:41: @fence strict follows the previous statement on its line`,
	}
	if len(errs) != len(want) {
		t.Fatalf("problems %q, want %d", errs, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(errs[i], w) {
			t.Errorf("problem %d = %q, want prefix %q", i, errs[i], w)
		}
	}
	// Where the docs put it, and right above the name line, it binds.
	files, errs := analyzeSrc(t, fencedSchema, `-- name: A :exec
UPDATE t SET name = 'a' WHERE id = @id;

-- @fence off: B is an admin repair
-- name: B :exec
UPDATE t SET name = 'b' WHERE id = @id;
-- name: C :exec

-- @fence off: C is an admin repair
UPDATE t SET name = 'c' WHERE id = @id;
`)
	if len(errs) > 0 {
		t.Fatalf("problems: %q", errs)
	}
	for i, q := range files[0].Queries {
		if (q.OptOut != nil) != (i > 0) {
			t.Errorf("%s: opt-out %+v", q.Name, q.OptOut)
		}
	}
}

// $0 (issue 23): PostgreSQL numbers parameters from $1 and refuses $0
// ("there is no parameter $0") at every call, though sqlc v1.31.1
// generates the query, each $0 a parameter of its own. A query that
// writes no fenced table is generated as sqlc generates it, with a note
// that says what PostgreSQL answers; a write of fenced table t is
// refused, and so are $0 mixed with $n (sqlc refuses it) and a $0 LIMIT
// with other $0 (sqlc names them all after the LIMIT).
func TestAnalyzeDollarZero(t *testing.T) {
	files, errs := analyzeSrc(t, fencedSchema, "-- name: P :one\nSELECT id FROM u WHERE id = $0 OR t_id = $0;\n")
	if len(errs) != 0 {
		t.Fatalf("refused a read with $0, which sqlc generates: %q", errs)
	}
	q := files[0].Queries[0]
	if len(q.Params) != 2 || q.Params[0].Name != "id" || q.Params[1].Name != "t_id" {
		t.Errorf("params = %+v, want id, t_id (each $0 its own, as sqlc)", q.Params)
	}
	wantNote := `query.sql:2:1: note: query P writes $0, which sqlc v1.31.1 generates as a parameter of its own for each $0; PostgreSQL numbers parameters from $1 and answers every call with "there is no parameter $0" (SQLSTATE 42P02)`
	if len(q.Notes) != 1 || !strings.HasPrefix(q.Notes[0], wantNote) {
		t.Errorf("notes = %q, want one starting %q", q.Notes, wantNote)
	}
	for _, c := range []struct{ src, want string }{
		{"-- name: W :exec\nUPDATE t SET note = 'x' WHERE id = $0;\n",
			`query.sql:2:1: query W: $0 is no parameter: PostgreSQL numbers them from $1 and refuses $0 ("there is no parameter $0"), which sqlc generates; this query writes a fenced table: number its parameters from $1`},
		{"-- name: M :exec\nSELECT id FROM u WHERE id = $0 AND t_id = $1;\n",
			`query.sql:2:43: query M: $0 with other parameters: PostgreSQL numbers parameters from $1 and refuses $0 ("there is no parameter $0"), and sqlc v1.31.1 refuses $0 mixed with $n or named parameters ("can not mix $1 format with ? format"); number them from $1`},
		{"-- name: L :many\nSELECT id FROM u WHERE t_id = $0 LIMIT $0;\n",
			`query.sql:2:40: query L: $0 as LIMIT or OFFSET with other $0: PostgreSQL numbers parameters from $1 and refuses $0 ("there is no parameter $0"), and sqlc v1.31.1 names and types every $0 of this query after the LIMIT; number the parameters from $1`},
	} {
		_, errs := analyzeSrc(t, fencedSchema, c.src)
		if len(errs) != 1 || errs[0] != c.want {
			t.Errorf("errs = %q, want [%q]", errs, c.want)
		}
	}
}

// TestParseAnnotationNearFenceFlag is trial tnew F5: a comment line that
// looks like a misspelled @fence flag is kept as sqlc keeps it (a doc
// comment line, no problem: sqlc accepts it) and noted with what it
// likely means, so that a write meant strict does not silently stay
// non-strict; comment lines that are no attempt at a flag are not.
func TestParseAnnotationNearFenceFlag(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"-- @fnce strict", `did you mean "-- @fence strict"?`},
		{"-- @fenc non-strict", `did you mean "-- @fence non-strict"?`},
		{"-- @strict", `did you mean "-- @fence strict"?`},
		{"-- @non-strict", `did you mean "-- @fence non-strict"?`},
		{"-- @sweep", `did you mean "-- @fence sweep"?`},
		{"-- @off: backfill", `did you mean "-- @fence off: <reason>"?`},
		{"-- fence strict", `did you mean "-- @fence strict"?`},
		{"-- fnce sweep", `did you mean "-- @fence sweep"?`},
		{"-- @fense", `did you mean "-- @fence strict", "-- @fence non-strict"`},
		{"-- @deprecated use Other", "neither a fencegen flag nor one of sqlc's"},
		// A parameter documented as projects do (e2b-dev/infra).
		{"-- @alias: the alias to look up", ""},
		// Not attempts at a flag.
		{"-- fence the row before the update", ""},
		{"-- sets the state", ""},
		{"-- @sqlc-vet-disable", ""},
		{"-- @param id the job", ""},
		{"-- mail user@example.com", ""},
		// Real flags, read as such.
		{"-- @fence strict", ""},
		{"-- @Fence strict", ""},
	} {
		a, errs := annotate("-- name: Set :exec\n" + tc.line)
		if a == nil || len(errs) > 0 {
			t.Fatalf("%q: annotation %+v, problems %+v; want an annotation", tc.line, a, errs)
		}
		var got []string
		for _, m := range a.Near {
			got = append(got, m.msg)
			if m.line != 2 || m.col != 1 {
				t.Errorf("%q: note at %d:%d, want 2:1", tc.line, m.line, m.col)
			}
		}
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("%q: notes %q, want none", tc.line, got)
		case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
			t.Errorf("%q: notes %q, want one containing %q", tc.line, got, tc.want)
		}
		// The doc comment is sqlc's: the line as written, or none for
		// a flag fencegen reads.
		if tc.want != "" && !strings.HasPrefix(tc.line, "-- @") && (len(a.Doc) != 1 || a.Doc[0] != strings.TrimPrefix(tc.line, "--")) {
			t.Errorf("%q: doc %q, want the line as sqlc keeps it", tc.line, a.Doc)
		}
	}
}
