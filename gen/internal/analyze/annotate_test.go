package analyze

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/catalog"
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
			name: "Doc", cmd: ":exec", doc: []string{"Doc does a thing.", "  indented", "", "last"}, nameCol: 10, cmdCol: 14,
		},
		{
			src:  "-- Doc above the name line.\n-- name: Above :one",
			name: "Above", cmd: ":one", doc: []string{"Doc above the name line."}, nameCol: 10, cmdCol: 16,
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
		// Method names must be exportable: a leading underscore cannot be.
		{"-- name: _private :one", []string{`1:10: query name "_private" must start with a letter`}},
		{"-- name: has.dot :one", []string{`1:10: query name "has.dot" is not a valid Go identifier`}},
		{"-- name: X :execlastid", []string{`1:12: query X: :execlastid is not supported: PostgreSQL has no last-insert-id; use RETURNING with :one`}},
		{"-- name: X :one more", []string{`1:17: query X: unexpected text "more" after the command`}},
		{"-- name: X :ONE", []string{`1:12: query X: unknown command ":ONE"`}},
		{"-- name: X one", []string{`1:12: query X: unknown command "one"`}},
		{"-- name: X :exec\n-- @fence sometimes", []string{`2:1: unknown flag "@fence sometimes"`}},
		{"-- name: X :exec\n-- @fence", []string{`2:1: unknown flag "@fence"`}},
		{"-- name: X :exec\n-- @fence strict\n-- @fence non-strict", []string{`1:1: query X: both @fence strict and @fence non-strict`}},
		{"-- name: A :one\n-- name: B :one", []string{`2:1: a second -- name: line before one query`}},
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
	sf, err := sqlparse.Parse("schema.sql", []byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.New()
	for _, s := range sf.Stmts {
		cat.Update(sf, s)
	}
	if errs := cat.Validate(); len(errs) > 0 {
		t.Fatalf("schema: %v", errs)
	}
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
	files, errs := analyzeSrc(t, fencedSchema, `
-- name: P :many
SELECT t.id, t.note, u.id AS u_id
FROM t LEFT JOIN u ON u.t_id = t.id
WHERE t.name = @name AND t.note = sqlc.narg(note) AND t.id = ANY(@ids::bigint[]) AND t.id > $9999
LIMIT @lim;
`)
	if len(errs) != 1 || !strings.Contains(errs[0], "mixes positional") {
		t.Errorf("mixed $n and @name: problems = %q", errs)
	}
	files, errs = analyzeSrc(t, fencedSchema, `
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
