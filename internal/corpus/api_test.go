package main

import (
	"strings"
	"testing"
)

const srcA = `package db

import (
	"context"

	"github.com/jackc/pgx/v5/pgtype"
)

type Status string

const (
	StatusOpen   Status = "open"
	StatusClosed Status = "closed"
)

type Author struct {
	ID   int64       ` + "`json:\"id\"`" + `
	Name string      ` + "`json:\"name\"`" + `
	Bio  pgtype.Text ` + "`json:\"bio\"`" + `
	note string
}

type Querier interface {
	GetAuthor(ctx context.Context, id int64) (Author, error)
}

type Queries struct{ db DBTX }

type DBTX interface{}

func New(db DBTX) *Queries { return &Queries{db: db} }

func (q *Queries) GetAuthor(ctx context.Context, id int64) (Author, error) { return Author{}, nil }

func (q *Queries) DeleteAuthor(ctx context.Context, id int64) error { return nil }

type iterator struct{}

func (it *iterator) Next() bool { return false }
`

func apiOf(src string) API {
	return ExtractAPI(map[string][]byte{"go/query.sql.go": []byte(src)})
}

func TestExtract(t *testing.T) {
	a := apiOf(srcA)["go"]
	if a == nil || a.Name != "db" {
		t.Fatalf("package go/db not extracted: %+v", a)
	}
	if got := a.Funcs["(*Queries).GetAuthor"]; got != "(context.Context, int64) (Author, error)" {
		t.Errorf("GetAuthor signature = %q", got)
	}
	if _, ok := a.Funcs["(*iterator).Next"]; ok {
		t.Error("method of an unexported type extracted")
	}
	if got := a.Vals["const StatusOpen"]; got != `Status = "open"` {
		t.Errorf("const StatusOpen = %q", got)
	}
	au := a.Types["Author"]
	if au == nil || au.Kind != "struct" || len(au.Fields) != 3 {
		t.Fatalf("Author = %+v, want a struct with 3 exported fields", au)
	}
	if f := au.Fields[2]; f.Name != "Bio" || f.Type != "pgtype.Text" || f.Tag != "`json:\"bio\"`" {
		t.Errorf("Author.Bio = %+v", f)
	}
	if got := a.Types["Querier"].Methods["GetAuthor"]; got != "(context.Context, int64) (Author, error)" {
		t.Errorf("Querier.GetAuthor = %q", got)
	}
	if got := a.Types["Status"].Kind; got != "string" {
		t.Errorf("Status kind = %q", got)
	}
}

func TestCompareIdentical(t *testing.T) {
	// Parameter names, comments, layout and unexported parts do not matter.
	b := strings.ReplaceAll(srcA, "ctx context.Context, id int64", "c context.Context, authorID int64")
	b = strings.ReplaceAll(b, "note string", "other int")
	if d := CompareAPI(apiOf(srcA), apiOf(b)); len(d) != 0 {
		t.Errorf("want identical, got %v", d)
	}
}

func TestCompareFieldType(t *testing.T) {
	b := strings.Replace(srcA, "Bio  pgtype.Text", "Bio  *string", 1)
	d := CompareAPI(apiOf(srcA), apiOf(b))
	if len(d) != 1 || d[0].Kind != "differs" || d[0].Item != "field Author.Bio" ||
		d[0].Sqlc != "pgtype.Text `json:\"bio\"`" || d[0].Fence != "*string `json:\"bio\"`" {
		t.Errorf("got %v", d)
	}
}

func TestCompareMethodMissing(t *testing.T) {
	b := strings.Replace(srcA, "func (q *Queries) DeleteAuthor(ctx context.Context, id int64) error { return nil }", "", 1)
	d := CompareAPI(apiOf(srcA), apiOf(b))
	if len(d) != 1 || d[0].Kind != "missing" || d[0].Item != "func (*Queries).DeleteAuthor" || d[0].Sqlc != "(context.Context, int64) error" {
		t.Errorf("got %v", d)
	}
}

func TestCompareFieldOrder(t *testing.T) {
	b := strings.Replace(srcA, "	ID   int64       `json:\"id\"`\n	Name string      `json:\"name\"`\n",
		"	Name string      `json:\"name\"`\n	ID   int64       `json:\"id\"`\n", 1)
	d := CompareAPI(apiOf(srcA), apiOf(b))
	if len(d) != 1 || d[0].Kind != "order" || d[0].Sqlc != "ID, Name, Bio" || d[0].Fence != "Name, ID, Bio" {
		t.Errorf("got %v", d)
	}
}

func TestLinesIdentical(t *testing.T) {
	// Parameter names and unexported parts are not API lines.
	b := strings.ReplaceAll(srcA, "ctx context.Context, id int64", "c context.Context, authorID int64")
	sl, fl := apiOf(srcA).Lines(), apiOf(b).Lines()
	// package, 4 types (Status, Author, Querier, Queries, DBTX: 5), 3
	// fields, 1 interface method, 3 funcs, 2 consts.
	if want := 1 + 5 + 3 + 1 + 3 + 2; len(sl) != want {
		t.Fatalf("%d lines, want %d:\n%s", len(sl), want, strings.Join(sl, "\n"))
	}
	if n := SameLines(sl, fl); n != len(sl) {
		t.Errorf("SameLines = %d, want %d", n, len(sl))
	}
	for _, l := range sl {
		if !strings.HasPrefix(l, "go: ") {
			t.Errorf("line %q does not start with its package directory", l)
		}
	}
}

func TestLinesCountDifferences(t *testing.T) {
	sl := apiOf(srcA).Lines()
	for _, tc := range []struct {
		name, old, new string
		same           int // of len(sl)
	}{
		{"field type", "Bio  pgtype.Text", "Bio  *string", len(sl) - 1},
		{"method missing", "func (q *Queries) DeleteAuthor(ctx context.Context, id int64) error { return nil }", "", len(sl) - 1},
		{"extra method only", "type iterator struct{}", "func (q *Queries) Extra() {}\n\ntype iterator struct{}", len(sl)},
		{"signature and interface", "GetAuthor(ctx context.Context, id int64) (Author, error)", "GetAuthor(ctx context.Context, id int32) (Author, error)", len(sl) - 2},
		// Field order is reported by CompareAPI, not by the line count.
		{"field order", "	ID   int64       `json:\"id\"`\n	Name string      `json:\"name\"`\n", "	Name string      `json:\"name\"`\n	ID   int64       `json:\"id\"`\n", len(sl)},
		{"package name", "package db", "package other", len(sl) - 1},
	} {
		b := strings.ReplaceAll(srcA, tc.old, tc.new)
		if b == srcA {
			t.Fatalf("%s: replacement did not apply", tc.name)
		}
		if got := SameLines(sl, apiOf(b).Lines()); got != tc.same {
			t.Errorf("%s: SameLines = %d of %d, want %d", tc.name, got, len(sl), tc.same)
		}
	}
}

func TestSameLinesMultiset(t *testing.T) {
	// A line fencegen has once matches one of sqlc's two copies.
	if n := SameLines([]string{"a", "a", "b"}, []string{"a", "c"}); n != 1 {
		t.Errorf("SameLines = %d, want 1", n)
	}
	if n := SameLines(nil, []string{"a"}); n != 0 {
		t.Errorf("SameLines of nothing = %d", n)
	}
}
