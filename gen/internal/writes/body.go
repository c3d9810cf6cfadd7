package writes

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// ErrOffStrings is returned by Body (under an error that says where) for
// a body with a backslash in an ordinary string constant ('a\'), at any
// depth (a dollar-quoted EXECUTE string too): PostgreSQL reads it
// otherwise when standard_conforming_strings is off (the function's own
// SET clause, the session's, role's, database's or server's setting),
// where the backslash escapes the next character, a quote included, so
// the body would run statements fencegen never read.
var ErrOffStrings = errors.New("a string constant with a backslash ('...\\...'), which PostgreSQL reads otherwise when standard_conforming_strings is off (as E'...' with the backslash doubled, it reads alike)")

// offStrings returns ErrOffStrings, located in body, when body has a
// backslash in an ordinary string constant.
func offStrings(body string) error {
	if at := sqlparse.OffValue(body, true); at >= 0 {
		line := 1 + strings.Count(body[:at], "\n")
		return fmt.Errorf("its body has, at its line %d, %w", line, ErrOffStrings)
	}
	return nil
}

// BodyStatements are the statements a function's body runs, parsed.
type BodyStatements struct {
	Stmts []*pg.Node
	// Dynamic, when not "", says where the body runs SQL built at run
	// time (PL/pgSQL EXECUTE, FOR ... IN EXECUTE, OPEN ... FOR EXECUTE):
	// what it writes is unknown.
	Dynamic string
}

// Body parses the body of a function of language lang ("sql" or
// "plpgsql") into the statements it runs. body is the AS string (or a
// SQL-standard body's statements) and source the whole CREATE FUNCTION
// statement, which PostgreSQL's PL/pgSQL parser (pg_query's
// ParsePlPgSqlToJSON, the server's own plpgsql grammar) reads. Every SQL
// expression and statement of a PL/pgSQL body is returned (an expression
// as SELECT expr, an assignment's right-hand side too), so a body is read
// as its statements, not as text: a string or comment that spells UPDATE
// is no write. An error means the body was not read; the caller then
// takes the body as unknown.
func Body(lang, body, source string) (*BodyStatements, error) {
	switch lang {
	case "sql":
		if err := offStrings(body); err != nil {
			return nil, err
		}
		tree, err := pg.Parse(body)
		if err != nil {
			return nil, err
		}
		out := &BodyStatements{}
		for _, s := range tree.Stmts {
			out.Stmts = append(out.Stmts, s.Stmt)
		}
		return out, nil
	case "plpgsql":
		return plpgsql(source)
	}
	return nil, fmt.Errorf("LANGUAGE %s is not read", lang)
}

// PL/pgSQL expression parse modes (PostgreSQL's RawParseMode).
const (
	rawParseDefault  = 0
	rawParseTypeName = 1
)

func plpgsql(source string) (*BodyStatements, error) {
	// pg_query's PL/pgSQL parser asserts (aborting the process) on a
	// CREATE FUNCTION without an AS string: only one with a single AS
	// string of LANGUAGE plpgsql reaches it.
	parsed, err := pg.Parse(source)
	if err != nil {
		return nil, err
	}
	if len(parsed.Stmts) != 1 {
		return nil, fmt.Errorf("not one CREATE FUNCTION statement")
	}
	cf := parsed.Stmts[0].Stmt.GetCreateFunctionStmt()
	if cf == nil || cf.SqlBody != nil {
		return nil, fmt.Errorf("not a CREATE FUNCTION statement with an AS string")
	}
	var as, lang bool
	var text string
	for _, o := range cf.Options {
		d := o.GetDefElem()
		switch {
		case d == nil:
		case d.Defname == "as":
			l := d.Arg.GetList()
			as = l != nil && len(l.Items) == 1 && l.Items[0].GetString_() != nil
			if as {
				text = l.Items[0].GetString_().GetSval()
			}
		case d.Defname == "language":
			lang = strings.EqualFold(d.Arg.GetString_().GetSval(), "plpgsql")
		}
	}
	if !as || !lang {
		return nil, fmt.Errorf("not a LANGUAGE plpgsql function with one AS string")
	}
	if err := offStrings(text); err != nil {
		return nil, err
	}
	js, err := pg.ParsePlPgSqlToJSON(source)
	if err != nil {
		return nil, err
	}
	var tree any
	if err := json.Unmarshal([]byte(js), &tree); err != nil {
		return nil, err
	}
	out := &BodyStatements{}
	var errs []string
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				visit(e)
			}
		case map[string]any:
			for k, e := range x {
				switch k {
				case "PLpgSQL_stmt_dynexecute", "PLpgSQL_stmt_dynfors":
					m, _ := e.(map[string]any)
					if !constantSQL(m["query"], out) {
						out.Dynamic = "its body runs dynamic SQL (EXECUTE), whose tables are known only at run time"
					}
					if m != nil {
						// Its USING expressions and INTO targets.
						rest := map[string]any{}
						for kk, vv := range m {
							if kk != "query" {
								rest[kk] = vv
							}
						}
						visit(rest)
					}
					continue
				case "dynquery": // OPEN ... FOR EXECUTE, RETURN QUERY EXECUTE
					if e != nil && !constantSQL(e, out) {
						out.Dynamic = "its body runs dynamic SQL (OPEN ... FOR EXECUTE or RETURN QUERY EXECUTE), whose tables are known only at run time"
					}
					continue
				case "PLpgSQL_expr":
					m, _ := e.(map[string]any)
					q, _ := m["query"].(string)
					mode, _ := m["parseMode"].(float64)
					if int(mode) == rawParseTypeName || q == "" {
						continue
					}
					text := q
					switch int(mode) {
					case rawParseDefault:
					case 2: // an expression
						text = "SELECT " + q
					default: // an assignment: target := expression
						rhs, ok := assigned(q)
						if !ok {
							errs = append(errs, "assignment "+q)
							continue
						}
						text = "SELECT " + rhs
					}
					tree, err := pg.Parse(text)
					if err != nil {
						errs = append(errs, err.Error())
						continue
					}
					for _, s := range tree.Stmts {
						out.Stmts = append(out.Stmts, s.Stmt)
					}
				}
				visit(e)
			}
		}
	}
	visit(tree)
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return out, nil
}

// constantSQL adds to out the statements of a dynamic command that is a
// string constant (EXECUTE 'TRUNCATE audit'), which PostgreSQL runs as
// written, and reports whether it was one: a command built at run time
// (format(), ||, a variable) is not.
func constantSQL(expr any, out *BodyStatements) bool {
	m, _ := expr.(map[string]any)
	pe, _ := m["PLpgSQL_expr"].(map[string]any)
	q, _ := pe["query"].(string)
	if q == "" {
		return false
	}
	tree, err := pg.Parse("SELECT " + q)
	if err != nil || len(tree.Stmts) != 1 {
		return false
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 || sel.FromClause != nil || sel.WhereClause != nil {
		return false
	}
	c := sel.TargetList[0].GetResTarget().GetVal().GetAConst()
	if c == nil || c.GetSval() == nil {
		return false
	}
	cmd, err := pg.Parse(c.GetSval().GetSval())
	if err != nil {
		return false
	}
	for _, s := range cmd.Stmts {
		out.Stmts = append(out.Stmts, s.Stmt)
	}
	return true
}

// assigned returns the expression of a PL/pgSQL assignment (target :=
// expression, or target = expression): what follows the first := or =
// outside parentheses and brackets.
func assigned(q string) (string, bool) {
	scan, err := pg.Scan(q)
	if err != nil {
		return "", false
	}
	depth := 0
	for _, t := range scan.Tokens {
		switch t.Token {
		case pg.Token_ASCII_40, pg.Token_ASCII_91:
			depth++
		case pg.Token_ASCII_41, pg.Token_ASCII_93:
			depth--
		case pg.Token_COLON_EQUALS, pg.Token_ASCII_61:
			if depth == 0 {
				return q[t.End:], true
			}
		}
	}
	return "", false
}
