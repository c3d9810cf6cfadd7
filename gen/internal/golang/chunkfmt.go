package golang

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"maps"
	"runtime"
	"slices"
	"strconv"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/parallel"
)

// formatChunk is about how many bytes of jennifer's unformatted output
// gofmtChunks formats at once. A generated file's syntax tree takes
// some 25 times its source in memory: at a thousand tables the query
// file is about 5 MB of Go, and its whole tree was most of the run's peak
// heap (BENCHMARKS.md, "Peak memory").
const formatChunk = 256 << 10

// gofmtChunks formats src (a file as jennifer renders it unformatted) a
// run of top-level declarations at a time, each run parsed and printed
// after the file's header (comments, package clause and imports), so
// that at most one run's syntax tree is live; it returns the formatted
// file and the declarations of the trees it printed (declsOf, merged),
// or ok false when src cannot be cut so (gofmt then formats it whole).
//
// The output is gofmt's output for the whole file: a cut is made only
// between two top-level declarations separated by a blank line, where
// go/printer's output depends on nothing before the cut but the number
// of line breaks (at most two are kept, and a blank line ends every
// alignment section of its tabwriter), and each run keeps the text
// between the declarations, blank lines and comments included.
func gofmtChunks(src []byte) (out []byte, decls *fileDecls, ok bool) {
	if len(src) <= formatChunk {
		// No cut can close a run of formatChunk bytes: skip the scan for
		// cuts (about 1% of a real project's run, BENCHMARKS.md).
		return nil, nil, false
	}
	cuts, header := declCuts(src)
	if len(cuts) == 0 {
		return nil, nil, false
	}
	// The runs: src[:runs[0]], then src[runs[i-1]:runs[i]] after the header.
	var runs []int
	start := 0
	for _, c := range cuts {
		if c-start >= formatChunk {
			runs = append(runs, c)
			start = c
		}
	}
	if len(runs) == 0 {
		return nil, nil, false
	}
	runs = append(runs, len(src))
	head, _, err := formatSource(src[:header])
	if err != nil {
		return nil, nil, false
	}
	// The runs are formatted concurrently and joined in order: each run's
	// text depends only on its own bytes and the header. A run holds a
	// slot from formatting until it is joined, so at most GOMAXPROCS syntax
	// trees and formatted runs are live at once.
	type result struct {
		b  []byte
		d  *fileDecls
		ok bool
	}
	results := make([]chan result, len(runs))
	for i := range results {
		results[i] = make(chan result, 1)
	}
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		prev := 0
		for i, end := range runs {
			begin := prev
			prev = end
			select {
			case slots <- struct{}{}:
			case <-stop:
				return
			}
			go func() {
				var chunk []byte
				if i == 0 {
					chunk = src[:end]
				} else {
					chunk = append(append(make([]byte, 0, header+end-begin), src[:header]...), src[begin:end]...)
				}
				b, tree, err := formatSource(chunk)
				if err != nil {
					results[i] <- result{}
					return
				}
				if i > 0 {
					if !bytes.HasPrefix(b, head) {
						results[i] <- result{}
						return
					}
					b = b[len(head):]
				}
				results[i] <- result{b, declsOf(tree), true}
			}()
		}
	}()
	var buf bytes.Buffer
	buf.Grow(len(src) + len(src)/8)
	decls = &fileDecls{}
	for i := range runs {
		r := <-results[i]
		<-slots
		if !r.ok {
			return nil, nil, false
		}
		if i == 0 {
			decls.imports = r.d.imports
		}
		decls.pkg = append(decls.pkg, r.d.pkg...)
		decls.members = append(decls.members, r.d.members...)
		decls.funcs = append(decls.funcs, r.d.funcs...)
		buf.Write(r.b)
	}
	return buf.Bytes(), decls, true
}

// formatSource parses src and prints it as go/format.Source does.
func formatSource(src []byte) ([]byte, *ast.File, error) {
	fset := token.NewFileSet()
	tree, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, err
	}
	ast.SortImports(fset, tree)
	var out bytes.Buffer
	out.Grow(len(src) + len(src)/8)
	if err := gofmtConfig.Fprint(&out, fset, tree); err != nil {
		return nil, nil, err
	}
	return out.Bytes(), tree, nil
}

// declCuts are the offsets in src just after a top-level declaration
// that is followed, after a blank line, by another (comments between
// them go with the later one), and header is the offset just after the
// last token before the first declaration that is not an import. It
// reads src with go/scanner, so it costs no syntax tree; on a scanning
// error it returns no cuts.
func declCuts(src []byte) (cuts []int, header int) {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	failed := false
	s.Init(file, src, func(token.Position, string) { failed = true }, scanner.ScanComments)
	depth := 0
	lastEnd := -1    // just after the last token at depth 0 (not a comment or an inserted semicolon)
	inDecls := false // past the header
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		off := file.Offset(pos)
		switch tok {
		case token.COMMENT:
			continue
		case token.SEMICOLON:
			if lit == "\n" {
				continue
			}
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		case token.FUNC, token.TYPE, token.CONST, token.VAR:
			if depth == 0 && lastEnd >= 0 {
				if !inDecls {
					inDecls = true
					header = lastEnd
				} else if blankLineAfter(src, lastEnd) {
					cuts = append(cuts, lastEnd)
				}
			}
		}
		end := off + len(lit)
		if lit == "" {
			end = off + len(tok.String())
		}
		if depth == 0 || (depth == 1 && (tok == token.LPAREN || tok == token.LBRACK || tok == token.LBRACE)) {
			lastEnd = end
		}
	}
	if failed || depth != 0 || !inDecls {
		return nil, 0
	}
	return cuts, header
}

// blankLineAfter reports whether src has a blank line right after off
// (only spaces and tabs before two line breaks).
func blankLineAfter(src []byte, off int) bool {
	n := 0
	for _, c := range src[off:] {
		switch c {
		case '\n':
			if n++; n == 2 {
				return true
			}
		case ' ', '\t', '\r':
		default:
			return false
		}
	}
	return false
}

// queryBatch is how many queries queryFileSource renders at once.
var queryBatch = 500

// queryFileSource is the unformatted source of the query file whose
// queries are qs (in order), named source in its header. jennifer's
// statement trees take some 15 times the source they render to (72 MiB
// for the 10,000 queries of BENCHMARKS.md's 1,000 tables), so the queries
// are rendered queryBatch at a time, up to GOMAXPROCS batches at once,
// each batch a jen.File of its own with the same import names (newFile),
// and the batches' texts joined under one import block, the union of
// theirs, as jennifer writes it for one file. When the batches' imports disagree (one path under two names
// or one name for two paths), the file is rendered whole.
func (e *emitter) queryFileSource(pkg, source string, qs []*analyze.Query) ([]byte, error) {
	whole := func(qs []*analyze.Query) ([]byte, error) {
		jf := e.newFile(pkg, source)
		for _, q := range qs {
			switch q.Cmd {
			case ":copyfrom":
				e.copyfromStructs(jf, q)
			case ":batchexec", ":batchmany", ":batchone":
			default:
				if Skipped(e.opts, q) != "" {
					e.constOnly(jf, q)
					continue
				}
				e.query(jf, q)
			}
		}
		return unformatted(jf)
	}
	if len(qs) <= queryBatch {
		return whole(qs)
	}
	var prefix []byte            // the first batch's text before its imports
	names := map[string]string{} // import path → name ("" for none)
	var bodies [][]byte
	// The batches are built and rendered concurrently (parallel.For:
	// at most GOMAXPROCS statement trees live at once), then joined in
	// order.
	batches := make([]struct {
		src []byte
		err error
	}, (len(qs)+queryBatch-1)/queryBatch)
	parallel.For(len(batches), func(i int) {
		start := i * queryBatch
		batches[i].src, batches[i].err = whole(qs[start:min(start+queryBatch, len(qs))])
	})
	for i := range batches {
		src, err := batches[i].src, batches[i].err
		batches[i].src = nil
		if err != nil {
			return nil, err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "", src, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return whole(qs)
		}
		// jennifer writes "\n\n" after the package clause and after the
		// import declaration, then the body.
		importStart, bodyStart := fset.Position(f.Name.End()).Offset+2, fset.Position(f.Name.End()).Offset+2
		if len(f.Decls) > 0 {
			importStart = fset.Position(f.Decls[0].Pos()).Offset
			bodyStart = fset.Position(f.Decls[len(f.Decls)-1].End()).Offset + 2
		}
		if bodyStart > len(src) || !bytes.Equal(src[bodyStart-2:bodyStart], []byte("\n\n")) {
			return whole(qs)
		}
		if prefix == nil {
			prefix = src[:importStart]
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			n := ""
			if im.Name != nil {
				n = im.Name.Name
			}
			if prev, ok := names[p]; ok && prev != n {
				return whole(qs)
			}
			names[p] = n
		}
		if body := src[bodyStart:]; len(body) > 0 {
			bodies = append(bodies, body)
		}
	}
	used := map[string]bool{}
	for p, n := range names {
		if n == "" {
			n = p // a path without a name: its own
		}
		if used[n] {
			return whole(qs)
		}
		used[n] = true
	}
	var out bytes.Buffer
	out.Write(prefix)
	paths := slices.Sorted(maps.Keys(names))
	line := func(p string) string {
		if names[p] != "" {
			return names[p] + " " + strconv.Quote(p)
		}
		return strconv.Quote(p)
	}
	switch len(paths) {
	case 0:
	case 1:
		out.WriteString("import " + line(paths[0]) + "\n\n")
	default:
		out.WriteString("import (\n")
		for _, p := range paths {
			out.WriteString(line(p) + "\n")
		}
		out.WriteString(")\n\n")
	}
	out.Write(bytes.Join(bodies, []byte("\n")))
	return out.Bytes(), nil
}
