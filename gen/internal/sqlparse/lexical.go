package sqlparse

import (
	"bytes"
	"strings"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/pgpb"
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
	scan, err := pgpb.Scan(text)
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

// OffReading returns text as PostgreSQL reads it with
// standard_conforming_strings off, spelt so that fencegen's reading (the
// setting on) reads it so, every token at its offset: an ordinary
// constant holding a backslash ('a\.b' or N'...') is read as an escape
// string (E'a\.b', PostgreSQL's scan.l: the xe state), so it is replaced
// by a constant of the value its escapes give ('a.b'), padded with
// spaces to its length; the contents of dollar-quoted constants (a
// function's or DO block's body, an EXECUTE string), which PostgreSQL
// parses under the same setting when it runs them, are rewritten alike,
// at any depth. With it on or off, then, PostgreSQL runs what fencegen
// reads in text or in the returned text: a property of both readings
// holds whichever setting a session has.
//
// The int is -1, or the offset in text of a constant where the two
// readings differ in more than constants' values, or whose value is not
// decoded here (the text returned is then ""): a backslash escapes a
// quote ('a\' goes on past that quote, so the text after it reads as
// other tokens), a constant continued on another line ('a\.'
// newline 'b'), a Unicode escape (\u, \U), an escape giving a zero byte
// or a text that is not UTF-8 (PostgreSQL refuses those), or a text
// PostgreSQL's scanner refuses.
func OffReading(text string) (string, int) {
	if !strings.Contains(text, `\`) {
		return text, -1
	}
	scan, err := pgpb.Scan(text)
	if err != nil {
		return "", strings.Index(text, `\`)
	}
	out := []byte(text)
	for _, t := range scan.Tokens {
		if t.Token != pg.Token_SCONST {
			continue
		}
		start, end := int(t.Start), int(t.End)
		if start < 0 || end > len(text) || start >= end {
			return "", max(start, 0)
		}
		raw := text[start:end]
		switch {
		case raw[0] == '\'' || (raw[0] == 'N' || raw[0] == 'n') && len(raw) > 1 && raw[1] == '\'':
			if !strings.Contains(raw, `\`) {
				continue
			}
			prefix := ""
			if raw[0] != '\'' {
				prefix, raw = raw[:1], raw[1:]
			}
			value, ok := offValue(raw)
			spelt := prefix + "'" + strings.ReplaceAll(value, "'", "''") + "'"
			if !ok || len(spelt) > end-start {
				return "", start
			}
			copy(out[start:end], spelt+strings.Repeat(" ", end-start-len(spelt)))
		case raw[0] == '$':
			open := strings.Index(raw[1:], "$")
			if open < 0 {
				continue
			}
			tag := raw[:open+2]
			if len(raw) < 2*len(tag) {
				continue
			}
			inner := raw[len(tag) : len(raw)-len(tag)]
			off, at := OffReading(inner)
			if at >= 0 {
				return "", start + len(tag) + at
			}
			copy(out[start+len(tag):], off)
		}
	}
	return string(out), -1
}

// offValue decodes the ordinary constant raw ('...', as fencegen's
// reading delimits it) as an escape string; ok is false where that
// reading delimits it otherwise or the value is not decoded here (see
// OffReading).
func offValue(raw string) (string, bool) {
	if len(raw) < 2 || raw[0] != '\'' || raw[len(raw)-1] != '\'' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	var v []byte
	isOctal := func(c byte) bool { return c >= '0' && c <= '7' }
	isHex := func(c byte) bool {
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\'':
			// '' is a quote in both readings; a lone quote ends the
			// constant here (a continuation on another line).
			if i+1 < len(body) && body[i+1] == '\'' {
				v = append(v, '\'')
				i++
				continue
			}
			return "", false
		case c != '\\':
			v = append(v, c)
			continue
		}
		if i+1 >= len(body) {
			return "", false // \ before the closing quote
		}
		i++
		c = body[i]
		switch {
		case c == '\'':
			return "", false
		case isOctal(c):
			n := 0
			for k := 0; k < 3 && i < len(body) && isOctal(body[i]); k++ {
				n = n*8 + int(body[i]-'0')
				i++
			}
			i--
			v = append(v, byte(n))
		case c == 'x' && i+1 < len(body) && isHex(body[i+1]):
			n := 0
			for k := 0; k < 2 && i+1 < len(body) && isHex(body[i+1]); k++ {
				i++
				d := body[i]
				switch {
				case d <= '9':
					n = n*16 + int(d-'0')
				case d >= 'a':
					n = n*16 + int(d-'a'+10)
				default:
					n = n*16 + int(d-'A'+10)
				}
			}
			v = append(v, byte(n))
		case c == 'u' || c == 'U':
			return "", false
		case c == 'b':
			v = append(v, '\b')
		case c == 'f':
			v = append(v, '\f')
		case c == 'n':
			v = append(v, '\n')
		case c == 'r':
			v = append(v, '\r')
		case c == 't':
			v = append(v, '\t')
		default:
			v = append(v, c)
		}
	}
	if bytes.IndexByte(v, 0) >= 0 || !utf8.Valid(v) {
		return "", false
	}
	return string(v), true
}
