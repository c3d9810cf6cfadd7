package mysqlwrites

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/mysql"
)

// lexModes are the session sql_mode settings that change how MySQL and
// MariaDB split a statement's text into tokens, which fencegen cannot
// see (a DSN's sql_mode parameter, SET SESSION sql_mode, the server's
// default): under NO_BACKSLASH_ESCAPES a backslash inside a string is a
// plain character ('a\' is a whole string), under ANSI_QUOTES "x" is an
// identifier, not a string.
var lexModes = []struct {
	name, what string
	mode       mysql.SQLMode
}{
	{"NO_BACKSLASH_ESCAPES", "a backslash inside a string is a plain character", mysql.ModeNoBackslashEscapes},
	{"ANSI_QUOTES", "double-quoted text is a name, with no backslash escapes", mysql.ModeANSIQuotes},
	{"NO_BACKSLASH_ESCAPES,ANSI_QUOTES", "a backslash inside a string is a plain character and double-quoted text a name", mysql.ModeNoBackslashEscapes | mysql.ModeANSIQuotes},
}

// modeTokens returns the offset (in text) of the first token whose
// reading depends on the sql_mode, per mode of lexModes (-1 for none):
// a backslash inside a string literal for NO_BACKSLASH_ESCAPES, a
// double-quoted token for ANSI_QUOTES; the pair for both when either is
// there.
func modeTokens(text string) [3]int {
	out := [3]int{-1, -1, -1}
	if !strings.ContainsAny(text, "\\\"") {
		return out // no backslash and no double quote: nothing to lex
	}
	for _, t := range lex(text) {
		if t.kind != tokString {
			continue
		}
		if out[0] < 0 && strings.Contains(t.text, `\`) {
			out[0] = t.pos
		}
		if out[1] < 0 && t.text[0] == '"' {
			out[1] = t.pos
		}
	}
	switch {
	case out[0] >= 0 && out[1] >= 0:
		out[2] = min(out[0], out[1])
	case out[0] >= 0:
		out[2] = out[0]
	default:
		out[2] = out[1]
	}
	return out
}

// checkModes refuses a statement of a schema with a fenced table whose
// text reads differently under a lexing sql_mode (lexModes) unless the
// write analysis of every reading finds no write of a fenced table and
// the same refusals: the statement is parsed again under each mode its
// tokens depend on and analysed again. A statement that writes a fenced
// table is refused when its text depends on the mode at all: the guard
// rewrites the text of the default reading, and under the other the
// comparison it adds may fall inside a string or a comment. Statements
// without such tokens are not parsed again.
func checkModes(r *Report, text string, base int, sc *Schema) {
	if len(sc.Fenced) == 0 {
		return
	}
	at := modeTokens(text)
	if at[2] < 0 {
		return
	}
	fenced := signature(r, sc)
	for i, m := range lexModes {
		if at[i] < 0 {
			continue
		}
		loc := base + at[i]
		refuse := func(why string) {
			r.Refusals = append(r.Refusals, Refusal{Kind: "sql_mode", Loc: loc,
				Reason: "reads differently under sql_mode " + m.name + " (a session setting fencegen cannot see, where " + m.what +
					") and " + why + "; write a quote inside a string as two ('it''s'), no backslash, strings in single quotes and names in backquotes"})
		}
		if len(r.FencedWrites(sc)) > 0 {
			refuse("writes a fenced table, whose guard would be read differently too")
			return
		}
		p := parser.New()
		p.SetSQLMode(m.mode)
		stmts, _, err := p.Parse(text, "", "")
		if err != nil || len(stmts) != 1 {
			refuse("then does not parse as one statement fencegen can analyse for writes")
			return
		}
		if got := signature(of(stmts[0], base, sc), sc); got != fenced {
			refuse("then " + got)
			return
		}
	}
}

// signature says what of r matters to the guard: its writes of fenced
// tables and its refusals, without their offsets.
func signature(r *Report, sc *Schema) string {
	var parts []string
	for _, w := range r.FencedWrites(sc) {
		s := w.Verb + " " + w.Table
		if w.Via != "" {
			s += " via " + w.Via
		}
		parts = append(parts, "writes fenced table "+s)
	}
	for _, f := range r.Refusals {
		parts = append(parts, fmt.Sprintf("is refused (%s: %s)", f.Kind, f.Reason))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "writes no fenced table"
	}
	return strings.Join(parts, ", ")
}
