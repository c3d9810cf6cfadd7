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
