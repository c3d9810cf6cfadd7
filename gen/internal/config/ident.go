package config

import (
	"fmt"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/diag"
)

// SplitName splits a possibly qualified SQL name as PostgreSQL reads one
// (PostgreSQL docs, "Identifiers and Key Words"): parts separated by dots,
// an unquoted part folded to lower case (ASCII letters, as PostgreSQL does
// in UTF-8 databases), a "quoted" part kept as written with "" standing
// for one double quote. `Accounts` is accounts, `"Accounts"` is Accounts,
// `app."Job Runs"` is the parts app and Job Runs. The error says what is
// wrong: an empty part, an unterminated quote, a character after a quote.
func SplitName(s string) ([]string, error) {
	var parts []string
	i := 0
	for {
		var part strings.Builder
		if i < len(s) && s[i] == '"' {
			i++
			closed := false
			for i < len(s) {
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						part.WriteByte('"')
						i += 2
						continue
					}
					i++
					closed = true
					break
				}
				part.WriteByte(s[i])
				i++
			}
			if !closed {
				return nil, fmt.Errorf("unterminated quoted identifier in %q", s)
			}
			if part.Len() == 0 {
				return nil, fmt.Errorf("zero-length quoted identifier in %q", s)
			}
			if i < len(s) && s[i] != '.' {
				return nil, fmt.Errorf("%q: unexpected %q after a quoted identifier (want a dot between the parts of a qualified name)", s, s[i:i+1])
			}
		} else {
			for i < len(s) && s[i] != '.' {
				c := s[i]
				if c == '"' {
					return nil, fmt.Errorf("%q: a double quote inside an unquoted name (quote the whole part: \"Name\")", s)
				}
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				part.WriteByte(c)
				i++
			}
			if strings.TrimSpace(part.String()) != part.String() || part.Len() == 0 {
				if part.Len() == 0 {
					return nil, fmt.Errorf("%q: empty name part", s)
				}
				return nil, fmt.Errorf("%q: spaces around a name part (quote a name that has spaces)", s)
			}
		}
		parts = append(parts, part.String())
		if i >= len(s) {
			return parts, nil
		}
		i++ // the dot
		if i >= len(s) {
			return nil, fmt.Errorf("%q: empty name part", s)
		}
	}
}

// QuoteName returns name as it must be written in a configuration to
// mean exactly name: bare when it is all lower case letters, digits and
// underscores (not starting with a digit), else double-quoted.
func QuoteName(name string) string {
	plain := name != ""
	for i, c := range name {
		if !(c >= 'a' && c <= 'z' || c == '_' || i > 0 && (c >= '0' && c <= '9' || c == '$')) {
			plain = false
			break
		}
	}
	if plain {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// Closest returns the candidate closest to name by edit distance, if it is
// a likely typo (distance below 3, or at most a third of the name's length
// for longer names), differs only in case, or begins with name (total for
// total_cents); "" when none is.
func Closest(name string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		d := diag.Distance(name, c)
		switch {
		case strings.EqualFold(name, c):
			d = 0
		case name != "" && strings.HasPrefix(strings.ToLower(c), strings.ToLower(name)):
			d = min(d, 1)
		}
		if bestD < 0 || d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	limit := max(3, len(name)/3+1)
	if bestD < 0 || bestD >= limit {
		return ""
	}
	return best
}
