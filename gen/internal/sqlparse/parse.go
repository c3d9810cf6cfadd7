// Package sqlparse parses SQL with pg_query_go (PostgreSQL 16's own
// parser, through cgo). It converts the result at once into fencegen's own
// small syntax tree (ast.go), which the catalog and the type analysis
// read. Each statement also carries the parser's whole tree (Stmt.Raw)
// for the write analysis (package writes), which must see every node,
// and the guard (package guard) edits and deparses parser trees of the
// statements it rewrites.
package sqlparse

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v5"
	pgparser "github.com/pganalyze/pg_query_go/v5/parser"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/pgpb"
)

// File is a parsed SQL file.
type File struct {
	// Name is the file name used in messages.
	Name  string
	Src   []byte
	Stmts []*Stmt
}

// Parse parses src, a file of SQL statements, as PostgreSQL 16 does. A
// syntax error is returned as a *diag.Error at the offending position.
func Parse(name string, src []byte) (*File, error) {
	tree, named, err := parseNamed(src)
	if err != nil {
		return parseEach(name, src, err)
	}
	f := &File{Name: name, Src: src}
	c := &converter{src: src, namedAt: named}
	for _, raw := range tree.Stmts {
		start := int(raw.StmtLocation)
		end := start + int(raw.StmtLen)
		if raw.StmtLen == 0 {
			end = len(src)
		}
		// pg_query's statement span starts right after the previous
		// semicolon: skip leading blanks and comments so positions point at
		// the statement's first keyword.
		lead := start
		start = skipSpaceAndComments(src, start, end)
		f.Stmts = append(f.Stmts, &Stmt{Start: start, End: end, Lead: lead, Node: c.stmt(raw.Stmt), Raw: raw.Stmt})
	}
	return f, nil
}

// parseEach is the slow path after a syntax error: it splits src at the
// top-level semicolons found by PostgreSQL's own scanner and parses each
// statement alone, so that every broken statement of the file is reported
// in one run and the good ones still reach the analyzer. It returns the
// statements that parsed together with the list of errors.
func parseEach(name string, src []byte, whole error) (*File, error) {
	scan, err := pgpb.Scan(string(src))
	if err != nil {
		// The scanner itself failed (e.g. an unterminated quote): report the
		// parser's error, which is located.
		return nil, parseError(name, src, 0, whole)
	}
	var errs diag.List
	f := &File{Name: name, Src: src}
	start := 0
	var cuts []int
	for _, t := range scan.Tokens {
		if t.Token == pg.Token_ASCII_59 {
			cuts = append(cuts, int(t.Start))
		}
	}
	cuts = append(cuts, len(src))
	for _, end := range cuts {
		seg := src[start:end]
		off := start
		start = end + 1
		if len(strings.TrimSpace(stripComments(string(seg)))) == 0 {
			continue
		}
		// Parse the segment in place: blank everything else so that
		// locations stay file offsets.
		buf := make([]byte, len(src))
		for i := range buf {
			buf[i] = ' '
			if src[i] == '\n' {
				buf[i] = '\n'
			}
		}
		copy(buf[off:], seg)
		tree, named, err := parseNamed(buf[:off+len(seg)])
		if err != nil {
			if e, ok := parseError(name, src, 0, err).(*diag.Error); ok {
				if strings.Count(string(seg), "-- name:") > 1 {
					e.Msg += " (is the semicolon missing at the end of the query before?)"
				}
				errs = append(errs, e)
			}
			continue
		}
		c := &converter{src: src, namedAt: named}
		for _, raw := range tree.Stmts {
			s := skipSpaceAndComments(src, off, off+len(seg))
			f.Stmts = append(f.Stmts, &Stmt{Start: s, End: off + len(seg), Lead: off, Node: c.stmt(raw.Stmt), Raw: raw.Stmt})
		}
	}
	if len(errs) == 0 {
		return nil, parseError(name, src, 0, whole)
	}
	return f, errs
}

func stripComments(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, "--"); i >= 0 {
			line = line[:i]
		}
		b.WriteString(line)
	}
	return b.String()
}

// parseError turns a pg_query error into a located diag.Error. offset is the
// byte offset of the parsed text inside the file.
func parseError(name string, src []byte, offset int, err error) error {
	var pe *pgparser.Error
	if !errors.As(err, &pe) {
		return &diag.Error{File: name, Msg: err.Error()}
	}
	// Cursorpos is a 1-based character position.
	pos := offset
	if pe.Cursorpos > 0 {
		pos = offset + byteOffset(src[offset:], int(pe.Cursorpos)-1)
	} else {
		pos = len(src)
	}
	line, col := diag.Position(src, pos)
	msg := pe.Message
	if pe.Cursorpos == 0 && strings.Contains(msg, "at end of input") {
		// Point at the last non-blank byte.
		p := len(src)
		for p > 0 && strings.ContainsRune(" \t\r\n", rune(src[p-1])) {
			p--
		}
		line, col = diag.Position(src, p)
	}
	return &diag.Error{File: name, Line: line, Col: col, Msg: msg}
}

func byteOffset(b []byte, chars int) int {
	off := 0
	for i := 0; i < chars && off < len(b); i++ {
		_, n := utf8.DecodeRune(b[off:])
		off += n
	}
	return off
}

// skipSpaceAndComments returns the first offset in src[start:end] that is
// neither white space nor part of a -- or /* */ comment.
func skipSpaceAndComments(src []byte, start, end int) int {
	i := start
	for i < end {
		switch {
		case src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r' || src[i] == '\f':
			i++
		case src[i] == '-' && i+1 < end && src[i+1] == '-':
			for i < end && src[i] != '\n' {
				i++
			}
		case src[i] == '/' && i+1 < end && src[i+1] == '*':
			depth := 0
			for i < end {
				if src[i] == '/' && i+1 < end && src[i+1] == '*' {
					depth++
					i += 2
					continue
				}
				if src[i] == '*' && i+1 < end && src[i+1] == '/' {
					depth--
					i += 2
					if depth == 0 {
						break
					}
					continue
				}
				i++
			}
		default:
			return i
		}
	}
	return i
}

// ParseStatement parses a single statement (used for rewritten query text).
func ParseStatement(name string, src []byte) (*Stmt, error) {
	f, err := Parse(name, src)
	if err != nil {
		return nil, err
	}
	if len(f.Stmts) != 1 {
		return nil, &diag.Error{File: name, Line: 1, Col: 1, Msg: "expected exactly one statement"}
	}
	return f.Stmts[0], nil
}

// parseNamed parses text and reads sqlc's named parameters as the text
// sent reads them: each @name becomes $1 padded with blanks to its length
// (positions stay), and the tree is that of the text with parameters where
// the names stand, which PostgreSQL parses with the text's own precedence.
// named holds the parameters by the position of their @ (see
// namedParams); it is nil when there are none or the text with $1 in
// their place does not parse alike.
func parseNamed(text []byte) (tree *pg.ParseResult, named map[int]namedParam, err error) {
	if sub, names := namedParams(text); names != nil {
		// The text's own tree is needed only when sub's does not stand in
		// for it. Whether the text parses, and into how many statements,
		// PostgreSQL's parse of it says without pg_query turning its tree
		// into protobuf and back (pg_query_split_with_parser runs the
		// same raw parse as pg_query_parse_protobuf and counts its list
		// of statements): that conversion was a fifth of the instructions
		// of a project whose query files use @name (kannon, BENCHMARKS.md).
		stmts, err := pg.SplitWithParser(string(text), false)
		if err == nil {
			if t2, err := parseText(sub); err == nil && len(t2.Stmts) == len(stmts) {
				return t2, names, nil
			}
		}
	}
	tree, err = parseText(text)
	if err != nil {
		return nil, nil, err
	}
	return tree, nil, nil
}

// namedParam is a named parameter @name the scanner found: its name (as
// PostgreSQL folds an identifier) and where its text ends.
type namedParam struct {
	name string
	end  int
}

// namedParams returns src with each sqlc named parameter (@ followed by a
// name, where an operand may start) replaced by $1 and blanks of the same
// length, and the parameters by the position of their @; nil when there
// are none. PostgreSQL reads @ as a prefix operator that binds looser
// than + - * / % ^ (docs 4.1.6): "@n::int + 1" would be @(n::int + 1),
// where sqlc, and the text fencegen sends ($k::int + 1), mean n plus 1.
func namedParams(src []byte) ([]byte, map[int]namedParam) {
	if bytes.IndexByte(src, '@') < 0 {
		// No @ token without an @ byte: most files (every schema file of
		// sqlc's examples) are not scanned at all. The scan was 6% of the
		// CPU time at a thousand tables (BENCHMARKS.md), on the query
		// file's parse, which the rest of the run waits for.
		return nil, nil
	}
	scan, err := pgpb.Scan(string(src))
	if err != nil {
		return nil, nil
	}
	var toks []*pg.ScanToken
	for _, t := range scan.Tokens {
		if t.Token != pg.Token_SQL_COMMENT && t.Token != pg.Token_C_COMMENT {
			toks = append(toks, t)
		}
	}
	var out []byte
	var names map[int]namedParam
	for i, t := range toks {
		if t.Token != pg.Token_Op || string(src[t.Start:t.End]) != "@" || i+1 == len(toks) {
			continue
		}
		if i > 0 {
			switch toks[i-1].Token {
			case pg.Token_IDENT, pg.Token_ICONST, pg.Token_FCONST, pg.Token_SCONST, pg.Token_BCONST, pg.Token_XCONST,
				pg.Token_PARAM, pg.Token_ASCII_41, pg.Token_ASCII_93:
				continue // an operand ends before it: no prefix @
			}
		}
		next := toks[i+1]
		if strings.TrimSpace(string(src[t.End:next.Start])) != "" {
			continue // a comment between
		}
		name, ok := identName(string(src[next.Start:next.End]), next.Token == pg.Token_IDENT || next.KeywordKind != pg.KeywordKind_NO_KEYWORD)
		if !ok || i+2 < len(toks) && toks[i+2].Token == pg.Token_ASCII_46 {
			continue // no name, or a qualified one (@t.x): no parameter
		}
		if out == nil {
			out, names = slices.Clone(src), map[int]namedParam{}
		}
		start, end := int(t.Start), int(next.End)
		out[start], out[start+1] = '$', '1'
		for k := start + 2; k < end; k++ {
			out[k] = ' '
		}
		names[start] = namedParam{name: name, end: end}
	}
	return out, names
}

// identName is the name the identifier or keyword text stands for:
// unquoted folded to lower case, quoted without its quotes ("" is ").
func identName(text string, ident bool) (string, bool) {
	if !ident || text == "" {
		return "", false
	}
	if text[0] == '"' {
		if len(text) < 2 || text[len(text)-1] != '"' {
			return "", false
		}
		return strings.ReplaceAll(text[1:len(text)-1], `""`, `"`), true
	}
	return strings.ToLower(text), true
}
