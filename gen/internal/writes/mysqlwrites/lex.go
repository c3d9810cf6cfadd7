package mysqlwrites

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/mysql"
)

// token is one lexical token of MySQL text: a word (keyword or
// identifier, Quoted for a `backquoted` one), a string or number literal,
// or one punctuation byte. Comments and white space are dropped; the
// text of a version comment (/*! ... */, which MySQL and MariaDB run) is
// read as if it were not a comment.
type token struct {
	kind   tokKind
	text   string // the word as written (without backquotes), or the byte
	pos    int    // byte offset in the text lexed
	end    int
	quoted bool
}

type tokKind int

const (
	tokWord tokKind = iota
	tokString
	tokNumber
	tokPunct
	tokVar // @x, @@x
)

// upper is the token's text upper-cased when it is an unquoted word.
func (t token) upper() string {
	if t.kind != tokWord || t.quoted {
		return ""
	}
	return strings.ToUpper(t.text)
}

// sandboxLine is the first line of a mariadb-dump file (MariaDB 10.11.8
// and later), as mysqlparse's.
const sandboxLine = "/*M!999999\\- enable the sandbox mode */"

// lex splits s into tokens. It never fails: an unterminated string or
// comment runs to the end of s.
func lex(s string) []token { return lexVersions(s, true) }

// lexVersions is lex, reading the text of version comments (/*! ... */,
// /*M! ... */) as statement text when run is set and as a comment when
// not: a server older than a comment's version skips it, and MySQL skips
// /*M!, MariaDB's.
func lexVersions(s string, run bool) []token { return lexMode(s, run, 0) }

// lexMode is lexVersions under the sql_mode m: with NO_BACKSLASH_ESCAPES
// a backslash inside a string is a plain character, with ANSI_QUOTES a
// double-quoted token is a name (doubled quotes inside, no escapes).
func lexMode(s string, run bool, m mysql.SQLMode) []token {
	noEscapes, ansiQuotes := m.HasNoBackslashEscapesMode(), m.HasANSIQuotesMode()
	var out []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '#' || (c == '-' && strings.HasPrefix(s[i:], "--") && (i+2 == len(s) || s[i+2] == ' ' || s[i+2] == '\t' || s[i+2] == '\n' || s[i+2] == '\r')):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case run && (c == '/' && strings.HasPrefix(s[i:], "/*!") || strings.HasPrefix(s[i:], "/*M!")):
			// A version comment: its text runs. Skip the marker and the
			// version number, read on; the closing */ is skipped below.
			j := i + 3
			if s[i+2] == 'M' {
				j++
			}
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if strings.HasPrefix(s[i:], sandboxLine) {
				// mariadb-dump's first line: a command of the mariadb
				// client in a comment no server runs (mysqlparse accepts
				// this text alone).
				j = i + len(sandboxLine)
			}
			i = j
		case run && c == '*' && strings.HasPrefix(s[i:], "*/"):
			i += 2 // the end of a version comment
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				i = len(s)
			} else {
				i += 2 + j + 2
			}
		case c == '"' && ansiQuotes:
			t := quotedName(s, i)
			out = append(out, t)
			i = t.end
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(s) {
				if s[j] == '\\' && !noEscapes {
					j += 2
					continue
				}
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			end := min(j+1, len(s))
			out = append(out, token{kind: tokString, text: s[i:end], pos: i, end: end})
			i = end
		case c == '`':
			t := quotedName(s, i)
			out = append(out, t)
			i = t.end
		case c == '@':
			j := i + 1
			for j < len(s) && (isWordByte(s[j]) || s[j] == '@' || s[j] == '.') {
				j++
			}
			out = append(out, token{kind: tokVar, text: s[i:j], pos: i, end: j})
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && (isWordByte(s[j]) || s[j] == '.') {
				j++
			}
			out = append(out, token{kind: tokNumber, text: s[i:j], pos: i, end: j})
			i = j
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			out = append(out, token{kind: tokWord, text: s[i:j], pos: i, end: j})
			i = j
		default:
			out = append(out, token{kind: tokPunct, text: s[i : i+1], pos: i, end: i + 1})
			i++
		}
	}
	return out
}

// isWordByte: letters, digits, _ and $, and any byte of a multi-byte
// UTF-8 character (MySQL identifiers may hold them unquoted).
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c >= 0x80
}

// findName is the offset in text of the first word token equal to name
// (case-insensitively, quoted or not) at or after from, or -1.
func findName(toks []token, name string, from int) int {
	for _, t := range toks {
		if t.pos >= from && t.kind == tokWord && strings.EqualFold(t.text, name) {
			return t.pos
		}
	}
	return -1
}

// quotedName reads the quoted identifier that starts at s[i] (a backtick,
// or a double quote under ANSI_QUOTES): the quote doubled inside stands
// for itself, and an unterminated name runs to the end of s. It returns a
// quoted tokWord whose text is the name without its quotes, spanning
// s[i:end].
func quotedName(s string, i int) token {
	q := s[i]
	j := i + 1
	var b strings.Builder
	for j < len(s) {
		if s[j] == q {
			if j+1 < len(s) && s[j+1] == q {
				b.WriteByte(q)
				j += 2
				continue
			}
			break
		}
		b.WriteByte(s[j])
		j++
	}
	end := min(j+1, len(s))
	return token{kind: tokWord, text: b.String(), pos: i, end: end, quoted: true}
}
