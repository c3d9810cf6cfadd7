package sqlparse

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// Off-setting readings (issue 24). fencegen reads SQL as PostgreSQL does
// with standard_conforming_strings on, its default. With it off (a
// server's, database's, role's, session's or function's setting, which
// fencegen cannot always see) a backslash in an ordinary string constant
// ('...' or N'...') is an escape, as in E'...': the constant's value
// changes ('a\tb' holds a tab), and where a backslash comes before a
// quote ('a\'), the constant goes on past that quote, so the rest of the
// text is read as other tokens and the statement as another statement.
// Every other token reads alike under both settings (PostgreSQL's
// scan.l: only the xq state of ordinary constants depends on it), so a
// text without a backslash in an ordinary constant reads the same under
// both.

// OffValue returns the offset in text of the first ordinary string
// constant holding a backslash, whose value PostgreSQL reads otherwise
// with standard_conforming_strings off; -1 when there is none. With deep,
// the contents of dollar-quoted constants (function and DO bodies,
// PL/pgSQL's EXECUTE strings) are searched too, at any depth; their
// offsets are text's. A text PostgreSQL's scanner refuses counts as one
// holding such a constant when it has a backslash at all.
func OffValue(text string, deep bool) int {
	return offScan(text, deep, false)
}

// OffTokens returns the offset in text of the first ordinary string
// constant where a backslash escapes a quote once
// standard_conforming_strings is off ('a\' reads on past that quote), so
// that PostgreSQL reads the text after it as other tokens; -1 when there
// is none. Dollar-quoted contents are not searched: they are one token
// under both settings.
func OffTokens(text string) int {
	return offScan(text, false, true)
}

func offScan(text string, deep, tokens bool) int {
	if !strings.Contains(text, `\`) {
		return -1
	}
	scan, err := pg.Scan(text)
	if err != nil {
		return strings.Index(text, `\`)
	}
	for _, t := range scan.Tokens {
		if t.Token != pg.Token_SCONST {
			continue
		}
		start, end := int(t.Start), int(t.End)
		if start < 0 || end > len(text) || start >= end {
			continue
		}
		raw := text[start:end]
		switch {
		case raw[0] == '\'' || (raw[0] == 'N' || raw[0] == 'n') && len(raw) > 1 && raw[1] == '\'':
			if tokens {
				if quoteEscaped(raw) {
					return start
				}
			} else if strings.Contains(raw, `\`) {
				return start
			}
		case raw[0] == '$' && deep:
			// $tag$ ... $tag$: search the contents.
			open := strings.Index(raw[1:], "$")
			if open < 0 {
				continue
			}
			tag := raw[:open+2]
			if len(raw) < 2*len(tag) {
				continue
			}
			inner := raw[len(tag) : len(raw)-len(tag)]
			if at := offScan(inner, true, false); at >= 0 {
				return start + len(tag) + at
			}
		}
	}
	return -1
}

// quoteEscaped reports whether, read with backslash escapes (as
// standard_conforming_strings off reads it), a backslash of the ordinary
// constant raw (as read with it on) takes a quote as the escaped
// character.
func quoteEscaped(raw string) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if i+1 < len(raw) && raw[i+1] == '\'' {
			return true
		}
		i++ // the escaped character
	}
	return false
}
