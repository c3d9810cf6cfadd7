package writes

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/pgpb"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// ErrOffStrings is returned by Body (under an error that says where) for
// a body PostgreSQL may read as other statements when
// standard_conforming_strings is off (the function's own SET clause, the
// session's, role's, database's or server's setting): a backslash before
// a quote in an ordinary string constant ('a\'), at any depth (a
// dollar-quoted EXECUTE string too), goes on past that quote, so the body
// would run statements fencegen never read (sqlparse.OffReading says
// which other constants count). A backslash elsewhere in an ordinary
// constant changes its value only: Body then reads the body under both
// settings (issue 24, trial x23 F2).
var ErrOffStrings = errors.New("a string constant that PostgreSQL reads as other tokens when standard_conforming_strings is off (a backslash before a quote, or an escape fencegen does not decode: \\u, \\U, a zero byte, a line-continued constant; as E'...' with the backslash doubled, it reads alike)")

// offReading returns body as PostgreSQL reads it with
// standard_conforming_strings off (sqlparse.OffReading), "" when it reads
// alike, and ErrOffStrings, located in body, when the two readings differ
// in more than constants' values.
func offReading(body string) (string, error) {
	if sqlparse.OffValue(body, true) < 0 {
		return "", nil
	}
	off, at := sqlparse.OffReading(body)
	if at >= 0 {
		line := 1 + strings.Count(body[:at], "\n")
		return "", fmt.Errorf("its body has, at its line %d, %w", line, ErrOffStrings)
	}
	return off, nil
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
// is no write. A body whose ordinary string constants hold a backslash is
// read under both settings of standard_conforming_strings (offReading):
// the statements of both readings are returned, as if the body ran both,
// so what either writes is found. An error means the body was not read;
// the caller then takes the body as unknown.
func Body(lang, body, source string) (*BodyStatements, error) {
	switch lang {
	case "sql":
		stmts, err := parseReadings(body)
		if err != nil {
			return nil, err
		}
		return &BodyStatements{Stmts: stmts}, nil
	case "plpgsql":
		out, as, err := plpgsql(source)
		if err != nil {
			return nil, err
		}
		if _, err := offReading(as); err != nil {
			return nil, err // located in the body
		}
		if sqlparse.OffValue(as, true) >= 0 && sqlparse.OffValue(source, false) >= 0 {
			// The AS string is itself an ordinary constant with a
			// backslash (as a DO block's code that the guard replay
			// wraps): its own escapes are not the body's, so the body's
			// reading off is not the source's.
			return nil, fmt.Errorf("its body is a string constant with a backslash: %w", ErrOffStrings)
		}
		offSource, err := offReading(source)
		if err != nil || offSource == "" {
			return out, err
		}
		off, _, err := plpgsql(offSource)
		if err != nil {
			return nil, err
		}
		out.Stmts = append(out.Stmts, off.Stmts...)
		if out.Dynamic == "" {
			out.Dynamic = off.Dynamic
		}
		return out, nil
	}
	return nil, fmt.Errorf("LANGUAGE %s is not read", lang)
}

// PL/pgSQL expression parse modes (PostgreSQL's RawParseMode).
const (
	rawParseDefault  = 0
	rawParseTypeName = 1
)

// plpgsql returns the statements of the PL/pgSQL function source and its
// AS string's value.
func plpgsql(source string) (*BodyStatements, string, error) {
	// pg_query's PL/pgSQL parser asserts (aborting the process) on a
	// CREATE FUNCTION without an AS string: only one with a single AS
	// string of LANGUAGE plpgsql reaches it.
	parsed, err := pgpb.Parse(source)
	if err != nil {
		return nil, "", err
	}
	if len(parsed.Stmts) != 1 {
		return nil, "", fmt.Errorf("not one CREATE FUNCTION statement")
	}
	cf := parsed.Stmts[0].Stmt.GetCreateFunctionStmt()
	if cf == nil || cf.SqlBody != nil {
		return nil, "", fmt.Errorf("not a CREATE FUNCTION statement with an AS string")
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
		return nil, "", fmt.Errorf("not a LANGUAGE plpgsql function with one AS string")
	}
	js, err := pg.ParsePlPgSqlToJSON(source)
	if err != nil {
		return nil, "", err
	}
	var tree any
	if err := json.Unmarshal([]byte(js), &tree); err != nil {
		return nil, "", err
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
					tree, err := pgpb.Parse(text)
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
		return nil, "", fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return out, text, nil
}

// constantSQL adds to out the statements of a dynamic command that is a
// string constant (EXECUTE 'TRUNCATE audit'), which PostgreSQL runs as
// written, and reports whether it was one: a command built at run time
// (format(), ||, a variable) is not. The command is read under both
// settings of standard_conforming_strings, the session's when it runs
// (offReading): one that the two read as other tokens is not taken.
func constantSQL(expr any, out *BodyStatements) bool {
	m, _ := expr.(map[string]any)
	pe, _ := m["PLpgSQL_expr"].(map[string]any)
	q, _ := pe["query"].(string)
	if q == "" {
		return false
	}
	tree, err := pgpb.Parse("SELECT " + q)
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
	stmts, err := parseReadings(c.GetSval().GetSval())
	if err != nil {
		return false
	}
	out.Stmts = append(out.Stmts, stmts...)
	return true
}

// parseReadings returns the statements of SQL text as PostgreSQL reads
// it under both settings of standard_conforming_strings (offReading):
// those of text, then those of its reading off when that differs. An
// error is offReading's (the two read as other tokens) or the parser's.
func parseReadings(text string) ([]*pg.Node, error) {
	off, err := offReading(text)
	if err != nil {
		return nil, err
	}
	var stmts []*pg.Node
	for _, t := range []string{text, off} {
		if t == "" {
			continue
		}
		tree, err := pgpb.Parse(t)
		if err != nil {
			return nil, err
		}
		for _, s := range tree.Stmts {
			stmts = append(stmts, s.Stmt)
		}
	}
	return stmts, nil
}

// assigned returns the expression of a PL/pgSQL assignment (target :=
// expression, or target = expression): what follows the first := or =
// outside parentheses and brackets.
func assigned(q string) (string, bool) {
	scan, err := pgpb.Scan(q)
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

// LanguageAndCode reads the LANGUAGE and AS options of a DO block (opts
// its Args) or of a CREATE FUNCTION or PROCEDURE (opts its Options): the
// language, lower case, or lang when none is given (a DO block's default
// is plpgsql, a routine's sql), and the code: a DO block's AS string, or
// the first string of a routine's AS list (a C function's object file),
// "" without one. Every reader of a DO block or routine body takes them
// from here: DoBlock (the catalog, the guard's replay, the walk of a
// query's DO block) and the guard's reading of routine bodies.
func LanguageAndCode(opts []*pg.Node, lang string) (string, string) {
	code := ""
	for _, o := range opts {
		d := o.GetDefElem()
		switch {
		case d == nil:
		case d.Defname == "language":
			lang = strings.ToLower(d.Arg.GetString_().GetSval())
		case d.Defname == "as":
			if l := d.Arg.GetList(); l != nil {
				if len(l.Items) > 0 {
					code = l.Items[0].GetString_().GetSval()
				}
			} else {
				code = d.Arg.GetString_().GetSval()
			}
		}
	}
	return lang, code
}

// DoBlock reads DO block x as Body reads a function's: its language,
// lower case, and for PL/pgSQL the statements it runs (a constant
// EXECUTE 'text' among them; Dynamic says where it runs text built at run
// time). An error means the block was not read: a language other than
// PL/pgSQL, or code the parser refuses. The guard's replay of migrations
// and the catalog (a schema's DO block) both read DO blocks here.
func DoBlock(x *pg.DoStmt) (lang string, b *BodyStatements, err error) {
	lang, code := LanguageAndCode(x.GetArgs(), "plpgsql")
	if lang != "plpgsql" {
		return lang, nil, fmt.Errorf("LANGUAGE %s, which fencegen does not read", lang)
	}
	b, err = Body("plpgsql", "", "CREATE FUNCTION fencegen_do() RETURNS void LANGUAGE plpgsql AS '"+strings.ReplaceAll(code, "'", "''")+"'")
	return lang, b, err
}
