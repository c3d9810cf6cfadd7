package sqlparse

import (
	"bytes"
	"runtime"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/parallel"
	"github.com/fencegen/fencegen/gen/internal/pgpb"
)

// pieceMin is the smallest piece, in bytes, that parseText cuts a text
// into, and maxPieces how many it cuts at most: variables so that tests
// can cut a small text at every statement.
var (
	pieceMin  = 64 << 10
	maxPieces = func() int { return runtime.GOMAXPROCS(0) }
)

// parseText parses text as pg.Parse does and returns the same tree. A
// large text (at least two pieces of pieceMin bytes) is cut into up to
// maxPieces (GOMAXPROCS) pieces at statement ends, which are parsed concurrently
// (pg_query keeps its parser state per thread): at a thousand tables the
// one query file's parse was a third of the run's wall time on one core,
// while the rest of the run waited for it (BENCHMARKS.md).
//
// Each piece is parsed with blanks in place of the text before it, so
// that every location in its tree is the whole text's. A cut is just
// after a semicolon that ends a line; it stands only if the piece before
// it parses and its last statement ends at that semicolon (pg_query's
// RawStmt span). A semicolon inside a quoted string, a comment, a
// dollar-quoted body or a BEGIN ATOMIC body leaves the piece before it
// unterminated or its last statement ending elsewhere, so that the
// statement end is one PostgreSQL's grammar finds in the whole text too,
// where the parser is then in the state of a text's start. The first
// statement of a later piece gets the span the whole text gives it: from
// the cut (PostgreSQL starts a statement just after the previous
// semicolon) instead of from the piece's start. When any cut does not
// stand, or a piece does not parse, the text is parsed whole, so errors
// are the whole text's.
func parseText(text []byte) (*pg.ParseResult, error) {
	n := min(maxPieces(), len(text)/pieceMin)
	if n < 2 {
		return pgpb.Parse(string(text))
	}
	cuts := pieceCuts(text, n)
	if len(cuts) == 0 {
		return pgpb.Parse(string(text))
	}
	bounds := append(append([]int{0}, cuts...), len(text))
	trees := make([]*pg.ParseResult, len(bounds)-1)
	errs := make([]error, len(trees))
	parallel.For(len(trees), func(i int) {
		from, to := bounds[i], bounds[i+1]
		var b strings.Builder
		b.Grow(to)
		for range from {
			b.WriteByte(' ')
		}
		b.Write(text[from:to])
		trees[i], errs[i] = pgpb.Parse(b.String())
	})
	out := &pg.ParseResult{}
	for i, tree := range trees {
		if errs[i] != nil || len(tree.Stmts) == 0 {
			return pgpb.Parse(string(text))
		}
		from, to := bounds[i], bounds[i+1]
		if i < len(trees)-1 {
			last := tree.Stmts[len(tree.Stmts)-1]
			if last.StmtLen == 0 || int(last.StmtLocation+last.StmtLen) != to-1 {
				return pgpb.Parse(string(text))
			}
		}
		if i > 0 {
			first := tree.Stmts[0]
			if first.StmtLocation != 0 || first.StmtLen != 0 && int(first.StmtLen) < from {
				return pgpb.Parse(string(text))
			}
			first.StmtLocation = int32(from)
			if first.StmtLen != 0 {
				first.StmtLen -= int32(from)
			}
		}
		out.Version = tree.Version
		out.Stmts = append(out.Stmts, tree.Stmts...)
	}
	return out, nil
}

// pieceCuts returns up to n-1 increasing offsets in text, each just after
// a semicolon that ends a line (after trailing blanks), the k-th the first
// such one at or after k/n of the text; parseText checks that each is a
// statement's end.
func pieceCuts(text []byte, n int) []int {
	var cuts []int
	from := 0
	for k := 1; k < n; k++ {
		at := max(from, len(text)*k/n)
		for {
			i := bytes.IndexByte(text[at:], ';')
			if i < 0 {
				return cuts
			}
			at += i + 1
			j := at
			for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r') {
				j++
			}
			if j < len(text) && text[j] == '\n' {
				break
			}
		}
		if len(text)-at < pieceMin/2 {
			return cuts
		}
		cuts = append(cuts, at)
		from = at
	}
	return cuts
}
