// Package sqlparse is the only package of fencegen that imports
// pg_query_go (PostgreSQL 16's own parser, through cgo). It parses a file
// and converts the result at once into fencegen's own small syntax tree
// (ast.go), so the rest of the generator never sees parser nodes. It also
// holds the guard rewriting of fenced writes (fence.go), which edits the
// parser's tree and deparses it.
package sqlparse

import (
	"errors"
	"strings"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v5"
	pgparser "github.com/pganalyze/pg_query_go/v5/parser"

	"github.com/fencegen/fencegen/gen/internal/diag"
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
	tree, err := pg.Parse(string(src))
	if err != nil {
		return parseEach(name, src, err)
	}
	f := &File{Name: name, Src: src}
	c := &converter{src: src}
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
		f.Stmts = append(f.Stmts, &Stmt{Start: start, End: end, Lead: lead, Node: c.stmt(raw.Stmt)})
	}
	return f, nil
}

// parseEach is the slow path after a syntax error: it splits src at the
// top-level semicolons found by PostgreSQL's own scanner and parses each
// statement alone, so that every broken statement of the file is reported
// in one run and the good ones still reach the analyzer. It returns the
// statements that parsed together with the list of errors.
func parseEach(name string, src []byte, whole error) (*File, error) {
	scan, err := pg.Scan(string(src))
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
		tree, err := pg.Parse(string(buf[:off+len(seg)]))
		if err != nil {
			if e, ok := parseError(name, src, 0, err).(*diag.Error); ok {
				if strings.Count(string(seg), "-- name:") > 1 {
					e.Msg += " (is the semicolon missing at the end of the query before?)"
				}
				errs = append(errs, e)
			}
			continue
		}
		c := &converter{src: src}
		for _, raw := range tree.Stmts {
			s := skipSpaceAndComments(src, off, off+len(seg))
			f.Stmts = append(f.Stmts, &Stmt{Start: s, End: off + len(seg), Lead: off, Node: c.stmt(raw.Stmt)})
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
