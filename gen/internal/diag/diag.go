// Package diag holds located generator errors: every problem is reported as
// "file:line:col: message", all problems of a run together, sorted.
package diag

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// Error is one problem at a position in an input file. Line and Col are
// 1-based; Col counts bytes, like the go tool. A zero Line means the whole
// file.
type Error struct {
	File string
	Line int
	Col  int
	Msg  string
	// Err is an optional sentinel the message stands for (errors.Is).
	Err error
	// Cause marks a problem that others may follow from: Sort puts the
	// causes first, so that the first error printed is the cause.
	Cause bool
}

func (e *Error) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.Col == 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Unwrap returns the sentinel, if any.
func (e *Error) Unwrap() error { return e.Err }

// List collects errors. Its Err method returns nil when it is empty.
type List []*Error

// Add appends an error at file:line:col.
func (l *List) Add(file string, line, col int, format string, args ...any) {
	*l = append(*l, &Error{File: file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)})
}

// AddErr appends e.
func (l *List) AddErr(e *Error) { *l = append(*l, e) }

// Sort orders the list by file, line, column and message, the causes
// (Error.Cause) first, and drops exact duplicates.
func (l List) Sort() List {
	s := slices.Clone(l)
	slices.SortStableFunc(s, func(a, b *Error) int {
		cause := func(e *Error) int {
			if e.Cause {
				return 0
			}
			return 1
		}
		return cmp.Or(cmp.Compare(cause(a), cause(b)), cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Col, b.Col), cmp.Compare(a.Msg, b.Msg))
	})
	return slices.CompactFunc(s, func(a, b *Error) bool { return a.Error() == b.Error() })
}

// Error joins the sorted messages, one per line.
func (l List) Error() string {
	var b strings.Builder
	for i, e := range l.Sort() {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Err returns the sorted list as an error, or nil if it is empty.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l.Sort()
}

// Unwrap exposes the individual errors to errors.Is and errors.As.
func (l List) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// As returns the List inside err, or a one-element List for any other
// error, so callers can print every problem the same way.
func As(err error) List {
	var l List
	if errors.As(err, &l) {
		return l
	}
	var e *Error
	if errors.As(err, &e) {
		return List{e}
	}
	return nil
}

// Position converts a byte offset in src to a 1-based line and column.
// It remembers the line starts of the last source it saw, so converting
// many offsets of one file costs a binary search each.
func Position(src []byte, offset int) (line, col int) {
	if offset > len(src) {
		offset = len(src)
	}
	if offset < 0 {
		offset = 0
	}
	starts := lineStarts(src)
	// The last line start at or before offset.
	i := sort.Search(len(starts), func(i int) bool { return starts[i] > offset }) - 1
	return i + 1, offset - starts[i] + 1
}

var (
	lineMu    sync.Mutex
	lineSrc   []byte
	lineCache []int
)

// lineStarts returns the offsets at which src's lines start.
func lineStarts(src []byte) []int {
	lineMu.Lock()
	defer lineMu.Unlock()
	if len(lineSrc) == len(src) && (len(src) == 0 || &lineSrc[0] == &src[0]) && lineCache != nil {
		return lineCache
	}
	starts := []int{0}
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	lineSrc, lineCache = src, starts
	return starts
}

// SqlcPosition is where sqlc v1.31.1 reports a position at offset in
// src (its source.LineNumber): offset 0 is line 1, column 1; any other
// offset moves on to the first character from there that is neither
// white space nor inside a "--" comment (one begun anywhere on its line,
// even before offset). Lines and columns count characters (runes), and
// offset is compared with the count of characters before, as sqlc does;
// the two differ only after a multi-byte character.
func SqlcPosition(src []byte, offset int) (line, col int) {
	if offset <= 0 {
		return 1, 1
	}
	line, col = 1, 0
	comment := false
	n := 0 // characters read
	s := string(src)
	for i, r := range s {
		n++
		col++
		if r == '-' && i+1 < len(s) && s[i+1] == '-' {
			comment = true
		}
		if r == '\n' {
			comment = false
			line++
			col = 0
		}
		if n <= offset || unicode.IsSpace(r) || comment {
			continue
		}
		return line, col
	}
	return line, col
}
