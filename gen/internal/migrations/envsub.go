package migrations

import (
	"bytes"
	"slices"
	"strings"
)

// Envsub is a part of a goose migration that goose passes through its
// environment substitution before it sends it (sqlparser,
// ParseSQLMigration): the lines after a "-- +goose ENVSUB ON" annotation
// up to an "ENVSUB OFF" one or the end of the file.
type Envsub struct {
	// On is the offset of the ENVSUB ON line; From and To the span of the
	// lines substituted, To exclusive.
	On, From, To int
}

// EnvsubSpans returns the parts of src, a goose migration, that goose
// substitutes environment variables in, in order.
func EnvsubSpans(src []byte) []Envsub {
	if !bytes.Contains(src, []byte("+goose")) {
		return nil
	}
	var out []Envsub
	open := -1
	for off := 0; off < len(src); {
		end := bytes.IndexByte(src[off:], '\n')
		next := len(src)
		if end < 0 {
			end = len(src)
		} else {
			end += off
			next = end + 1
		}
		switch gooseAnnotation(string(bytes.TrimSuffix(src[off:end], []byte("\r")))) {
		case "envsub on":
			if open < 0 {
				out = append(out, Envsub{On: off, From: next})
				open = len(out) - 1
			}
		case "envsub off":
			if open >= 0 {
				out[open].To = off
				open = -1
			}
		}
		off = next
	}
	if open >= 0 {
		out[open].To = len(src)
	}
	return out
}

// Substituted returns the offset in text of the first "$" or "\" that
// goose's substitution (github.com/mfridman/interpolate) changes, and
// what it makes of it: an expansion, "$" followed by "{" or a name's
// first letter ($AUDIT_TABLE, ${AUDIT_TABLE}, ${T:-jobs}), which becomes
// a variable's value; or an escape, "$$" or "\$", which becomes "$" (a
// dollar-quoted body's $$ too). It returns -1 when text holds neither:
// goose then sends it as written. "\\" is kept as written, and "$" before
// anything else ($1) too.
func Substituted(text string) (int, string) {
	for i := 0; i < len(text); i++ {
		switch {
		case strings.HasPrefix(text[i:], `\\`):
			i++
		case strings.HasPrefix(text[i:], `\$`), strings.HasPrefix(text[i:], `$$`):
			return i, "escape"
		case text[i] == '$' && i+1 < len(text) && (text[i+1] == '{' || text[i+1] == '_' || 'a' <= text[i+1] && text[i+1] <= 'z' || 'A' <= text[i+1] && text[i+1] <= 'Z'):
			return i, "expansion"
		}
	}
	return -1, ""
}

// EnvsubHarmless reports whether a statement, text from its first
// keyword, is one whose substituted text cannot change what a fenced
// table's writes are: GRANT and REVOKE, and CREATE, ALTER or DROP of a
// ROLE, USER or GROUP (a password or a role name from the environment,
// the use ENVSUB is for), but not ALTER ROLE ... SET or RESET, whose
// settings (session_replication_role) can turn triggers off. Any other
// (a function's or trigger's body, DO, a DML statement, a table's or
// column's name or comment) may become a write to a fenced table that
// fencegen cannot see.
func EnvsubHarmless(text string) bool {
	f := strings.Fields(strings.ToUpper(text))
	if len(f) == 0 {
		return false
	}
	switch f[0] {
	case "GRANT", "REVOKE":
		return true
	case "CREATE", "ALTER", "DROP":
		if f[0] == "ALTER" && (slices.Contains(f, "SET") || slices.Contains(f, "RESET")) {
			return false
		}
		return len(f) > 1 && (f[1] == "ROLE" || f[1] == "USER" || f[1] == "GROUP")
	}
	return false
}
