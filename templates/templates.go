// Package templates holds fencegen's non-Go text assets as an embed.FS,
// parsed once, on first use (TestTemplatesParse parses them in every test
// run).
// Go code is emitted only through jennifer (package gen/internal/golang),
// never through text templates.
//
// Each template starts with a comment naming the data it expects.
package templates

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"text/template"
	"unicode/utf8"
)

//go:embed *.sql.tmpl
var FS embed.FS

// Templates returns the parsed assets, by file name. They are parsed on
// the first call, not at init: a run that writes no guard needs none of
// them (the parse was about 1% of generating a small project), and it
// panics if one does not parse.
var Templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"raiseText": raiseText,
		"literal":   literal,
		"q":         Qualified,
	}).ParseFS(FS, "*.sql.tmpl"))
})

// Qualified returns name (an identifier as in SQL, quoted or not,
// optionally schema-qualified: jobs, app.jobs, "Order") qualified by its
// schema: public.<name> when it names none. The guard migration names
// every table and function so, wherever a search_path left by an earlier
// migration, a role or the connection points (issue 24, trial-pg3 finding
// 11).
func Qualified(name string) string {
	quoted := false
	for _, r := range name {
		switch {
		case r == '"':
			quoted = !quoted
		case r == '.' && !quoted:
			return name
		}
	}
	return "public." + name
}

// MaxIdentifier is the longest identifier PostgreSQL keeps, in bytes
// (NAMEDATALEN - 1); it truncates longer ones (PostgreSQL docs, 4.1.1
// "Identifiers and Key Words").
const MaxIdentifier = 63

// guardPrefix starts the name of every guard function.
const guardPrefix = "fencegen_guard_"

// GuardFunction returns the name of the guard trigger function of the
// fenced table that table names, written as in SQL (an identifier, quoted
// or not, optionally qualified by a schema: jobs, app.jobs, "Order"):
// fencegen_guard_<table>_<hash>, in the table's schema when table names one.
//
// The hash is the first 8 hex digits of the SHA-256 of the table's schema
// ("public" when table names none), a NUL byte and its name, so that tables
// of one name in two schemas get two functions, wherever the search path
// creates the unqualified ones; <table> is cut, at a character boundary, so
// that the name fits in MaxIdentifier bytes: two long names that share
// their first bytes still differ by their hash, where PostgreSQL's own
// truncation would give them one function. The name is deterministic.
//
// It returns an error when table is not such a name.
func GuardFunction(table string) (string, error) {
	parts, raw, err := splitQualified(table)
	if err != nil || len(parts) > 2 {
		return "", fmt.Errorf("guard function of %q: not a table name, optionally schema-qualified", table)
	}
	schema, name := "public", parts[len(parts)-1]
	if len(parts) == 2 {
		schema = parts[0]
	}
	sum := sha256.Sum256([]byte(schema + "\x00" + name))
	hash := "_" + hex.EncodeToString(sum[:4])
	base := name
	for len(guardPrefix)+len(base)+len(hash) > MaxIdentifier {
		_, size := utf8.DecodeLastRuneInString(base)
		base = base[:len(base)-size]
	}
	fn := guardPrefix + base + hash
	for _, r := range base {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9')) {
			fn = `"` + strings.ReplaceAll(fn, `"`, `""`) + `"`
			break
		}
	}
	if len(parts) == 2 {
		// The schema as table writes it, quoted or not.
		fn = raw[0] + "." + fn
	}
	return fn, nil
}

// splitQualified splits a dotted SQL name into its identifiers, unquoting
// the quoted ones ("a""b" is a"b), and returns them with their text as
// written. Unquoted identifiers are taken as they are: fencegen writes
// table names through sqlparse.QuoteIdent, which leaves only plain
// lower-case names unquoted.
func splitQualified(s string) (parts, raw []string, _ error) {
	for {
		var part string
		rest := s
		if strings.HasPrefix(s, `"`) {
			var b strings.Builder
			i := 1
			for {
				j := strings.IndexByte(s[i:], '"')
				if j < 0 {
					return nil, nil, fmt.Errorf("unterminated quoted identifier")
				}
				b.WriteString(s[i : i+j])
				i += j + 1
				if !strings.HasPrefix(s[i:], `"`) {
					break
				}
				b.WriteByte('"')
				i++
			}
			part, rest = b.String(), s[i:]
		} else {
			end := strings.IndexAny(s, `."`)
			if end < 0 {
				end = len(s)
			}
			part, rest = s[:end], s[end:]
		}
		if part == "" {
			return nil, nil, fmt.Errorf("empty identifier")
		}
		parts = append(parts, part)
		raw = append(raw, s[:len(s)-len(rest)])
		if rest == "" {
			return parts, raw, nil
		}
		if rest[0] != '.' {
			return nil, nil, fmt.Errorf("unexpected %q", rest)
		}
		s = rest[1:]
	}
}

// DollarTag returns the tag of a dollar-quoted string constant
// ($tag$ ... $tag$; PostgreSQL docs, 4.1.2.4 "Dollar-Quoted String
// Constants") for a body made of fixed text without a $ and of parts, the
// names written into it: "fencegen", followed by as many underscores as it
// takes for "$" and the tag to occur in no part. As pg_dump chooses its
// tag, the body is searched without the closing $, since a body ending in
// $tag would end early before $tag$. A part cannot form the tag with the
// fixed text around it, which holds no $. The tag is deterministic: the
// same names give the same text.
func DollarTag(parts ...string) string {
	tag := "fencegen"
	for slices.ContainsFunc(parts, func(p string) bool { return strings.Contains(p, "$"+tag) }) {
		tag += "_"
	}
	return tag
}

// raiseText escapes s for the format string of a RAISE statement inside a
// single-quoted SQL literal: ' doubled for the literal, % doubled for the
// format (PostgreSQL docs, 4.1.2.1 "String Constants"; 43.9.1 "Reporting
// Errors and Messages").
func raiseText(s string) string {
	return strings.NewReplacer(`'`, `''`, `%`, `%%`).Replace(s)
}

// literal returns s as a single-quoted SQL string constant, ' doubled
// (PostgreSQL docs, 4.1.2.1 "String Constants"), for an expression such as
// a RAISE statement's USING option.
func literal(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
