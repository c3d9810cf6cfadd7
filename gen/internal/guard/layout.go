package guard

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/pgpb"
)

// indent is one level of a guarded statement's layout: the body of a WITH
// entry or of a subquery in FROM.
const indent = "    "

// layout lays sql (one statement, as the rewrite built it) out one clause
// per line: each clause of a statement (WITH entry, SELECT, FROM, WHERE,
// SET, RETURNING, UNION ALL, ON CONFLICT, ORDER BY, FOR UPDATE, ...) starts
// a line, and the body of a WITH entry or of a subquery in FROM is
// indented by one level, its closing parenthesis on a line of its own.
// Expressions, and subqueries inside them, stay on one line. Only the
// white space between PostgreSQL's tokens changes (its scanner finds them,
// so text in quotes is left alone), and the result must parse to the same
// statement: a layout bug must never reach users.
func layout(sql string) (string, error) {
	scan, err := pgpb.Scan(sql)
	if err != nil {
		return "", err
	}
	toks := scan.Tokens
	word := func(i int) string {
		if i < 0 || i >= len(toks) || toks[i].KeywordKind == pg.KeywordKind_NO_KEYWORD {
			return ""
		}
		return strings.ToUpper(sql[toks[i].Start:toks[i].End])
	}
	text := func(i int) string {
		if i < 0 || i >= len(toks) {
			return ""
		}
		return sql[toks[i].Start:toks[i].End]
	}
	// Open parentheses, innermost last: a block (the body of a WITH entry
	// or of a subquery in FROM) or inline.
	var parens []bool
	level := 0 // open blocks
	atClauseLevel := func() bool { return len(parens) == 0 || parens[len(parens)-1] }
	var b strings.Builder
	fresh := true // at the start of a line
	newline := func(depth int) {
		b.WriteString("\n" + strings.Repeat(indent, depth))
		fresh = true
	}
	lastClosedBlock := false
	for i, t := range toks {
		gap := ""
		if i > 0 {
			gap = sql[toks[i-1].End:t.Start]
			if strings.TrimSpace(gap) != "" {
				return "", fmt.Errorf("layout: unexpected text %q between tokens", gap)
			}
			if gap != "" {
				gap = " "
			}
		}
		if i > 0 && toks[i-1].Token == pg.Token_SQL_COMMENT {
			newline(level) // a comment runs to the end of its line
		}
		tx := text(i)
		w := word(i)
		prev := word(i - 1)
		brk := false
		switch {
		case i == 0:
		case tx == ")" && len(parens) > 0 && parens[len(parens)-1]:
			level--
			parens = parens[:len(parens)-1]
			newline(level)
			b.WriteString(tx)
			fresh = false
			lastClosedBlock = true
			continue
		case !atClauseLevel():
		case text(i-1) == "(":
			// The first token of a block starts its line already.
		case tx == "," && lastClosedBlock:
			// After a WITH entry: the next starts a line (below).
		case text(i-1) == "," && lastClosedBlock:
			brk = true
		default:
			switch w {
			case "SELECT", "WHERE", "SET", "RETURNING", "UNION", "INTERSECT", "EXCEPT", "HAVING", "LIMIT", "OFFSET", "WINDOW", "VALUES":
				brk = true
			case "FROM":
				brk = prev != "DELETE" && prev != "DISTINCT"
			case "ORDER", "GROUP":
				brk = word(i+1) == "BY"
			case "FOR":
				switch word(i + 1) {
				case "UPDATE", "SHARE", "NO", "KEY":
					brk = true
				}
			case "ON":
				brk = word(i+1) == "CONFLICT"
			}
		}
		if tx != "," {
			lastClosedBlock = false
		}
		if brk {
			newline(level)
		} else if !fresh {
			b.WriteString(gap)
		}
		b.WriteString(tx)
		fresh = false
		if tx == "(" {
			block := false
			if atClauseLevel() {
				switch prev {
				case "AS", "MATERIALIZED":
					block = true // a WITH entry's body
				case "FROM", "JOIN":
					switch word(i + 1) {
					case "SELECT", "WITH", "VALUES":
						block = true // a subquery in FROM
					}
				}
			}
			parens = append(parens, block)
			if block {
				level++
				newline(level)
			}
		}
		if tx == ")" && len(parens) > 0 {
			parens = parens[:len(parens)-1]
		}
	}
	out := b.String()
	if err := sameStatement(sql, out); err != nil {
		return "", err
	}
	return out, nil
}

// sameStatement reports, as an error, whether laid (the layout of sql)
// fails to parse or parses to another statement than sql.
func sameStatement(sql, laid string) error {
	want, err := pg.Fingerprint(sql)
	if err != nil {
		return err
	}
	got, err := pg.Fingerprint(laid)
	if err != nil {
		return fmt.Errorf("laid-out statement does not parse: %v", err)
	}
	if got != want {
		return fmt.Errorf("laid-out statement differs from the rewritten one")
	}
	return nil
}
