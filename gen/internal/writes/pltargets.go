package writes

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/fencegen/fencegen/gen/internal/pgpb"
)

// plNode is one node kind of the PL/pgSQL parse tree that pg_query v5
// writes (pg_query_json_plpgsql.c, PostgreSQL's plpgsql.h): every field
// it writes, and for a statement the fields naming a variable the
// statement may assign. plNodes classifies every kind; the reading of a
// trigger function (plTargets) counts a kind or a field it does not list
// as one that may assign any variable, NEW included (issue 24, trial t24
// F6: GET DIAGNOSTICS and CALL targets were not read).
type plNode struct {
	// fields are the keys pg_query writes for the node (a zero number,
	// a false flag or an empty list is left out). sub are the keys of
	// its unlabelled sub-objects (a PLpgSQL_row's fields).
	fields, sub []string
	// stmt marks a statement kind (PLpgSQL_stmt_*).
	stmt bool
	// targets are the fields that name what the statement may assign:
	// a datum number ("varno", "t_varno", "curvar"), a variable
	// ("var", "target": a PLpgSQL_rec, _row or _var), or GET
	// DIAGNOSTICS' items ("diag_items").
	targets []string
	// call marks CALL (and DO): PL/pgSQL finds its output arguments
	// (OUT and INOUT parameters) in its expression when it runs, so
	// the tree holds no target; callTargets reads the expression.
	call bool
	// why says what the statement assigns, for a statement that may
	// assign only what its targets name (or nothing).
	why string
}

// plNodes is the classification of every node kind pg_query v5 writes.
var plNodes = map[string]plNode{
	"PLpgSQL_function": {fields: []string{"new_varno", "old_varno", "datums", "action"}},
	// A block assigns the variables it declares (their defaults, as it
	// starts) and, in an exception handler, SQLSTATE and SQLERRM: all
	// new variables of the block, never NEW or a field of it.
	"PLpgSQL_stmt_block":      {stmt: true, fields: []string{"lineno", "label", "body", "exceptions"}, why: "its own declared variables"},
	"PLpgSQL_exception_block": {fields: []string{"exc_list"}},
	"PLpgSQL_exception":       {fields: []string{"conditions", "action"}},
	"PLpgSQL_condition":       {fields: []string{"condname"}},
	"PLpgSQL_stmt_assign":     {stmt: true, fields: []string{"lineno", "varno", "expr"}, targets: []string{"varno"}, why: "its target := ..."},
	"PLpgSQL_stmt_if":         {stmt: true, fields: []string{"lineno", "cond", "then_body", "elsif_list", "else_body"}},
	"PLpgSQL_if_elsif":        {fields: []string{"lineno", "cond", "stmts"}},
	// CASE stores its test expression in a hidden variable of its own.
	"PLpgSQL_stmt_case":  {stmt: true, fields: []string{"lineno", "t_expr", "t_varno", "case_when_list", "have_else", "else_stmts"}, targets: []string{"t_varno"}, why: "its hidden test variable"},
	"PLpgSQL_case_when":  {fields: []string{"lineno", "expr", "stmts"}},
	"PLpgSQL_stmt_loop":  {stmt: true, fields: []string{"lineno", "label", "body"}},
	"PLpgSQL_stmt_while": {stmt: true, fields: []string{"lineno", "label", "cond", "body"}},
	// FOR i IN 1..n declares its integer variable.
	"PLpgSQL_stmt_fori":      {stmt: true, fields: []string{"lineno", "label", "var", "lower", "upper", "step", "reverse", "body"}, targets: []string{"var"}, why: "its loop variable"},
	"PLpgSQL_stmt_fors":      {stmt: true, fields: []string{"lineno", "label", "var", "body", "query"}, targets: []string{"var"}, why: "its loop variable"},
	"PLpgSQL_stmt_forc":      {stmt: true, fields: []string{"lineno", "label", "var", "body", "curvar", "argquery"}, targets: []string{"var", "curvar"}, why: "its loop record and cursor"},
	"PLpgSQL_stmt_foreach_a": {stmt: true, fields: []string{"lineno", "label", "varno", "slice", "expr", "body"}, targets: []string{"varno"}, why: "its loop variable"},
	"PLpgSQL_stmt_exit":      {stmt: true, fields: []string{"lineno", "is_exit", "label", "cond"}},
	"PLpgSQL_stmt_return":    {stmt: true, fields: []string{"lineno", "expr"}},
	// RETURN NEXT and RETURN QUERY add to a set-returning function's
	// result; they assign no variable.
	"PLpgSQL_stmt_return_next":  {stmt: true, fields: []string{"lineno", "expr"}},
	"PLpgSQL_stmt_return_query": {stmt: true, fields: []string{"lineno", "query", "dynquery", "params"}},
	"PLpgSQL_stmt_raise":        {stmt: true, fields: []string{"lineno", "elog_level", "condname", "message", "params", "options"}},
	"PLpgSQL_raise_option":      {fields: []string{"opt_type", "expr"}},
	"PLpgSQL_stmt_assert":       {stmt: true, fields: []string{"lineno", "cond", "message"}},
	"PLpgSQL_stmt_execsql":      {stmt: true, fields: []string{"lineno", "sqlstmt", "into", "strict", "target"}, targets: []string{"target"}, why: "its INTO targets"},
	"PLpgSQL_stmt_dynexecute":   {stmt: true, fields: []string{"lineno", "query", "into", "strict", "target", "params"}, targets: []string{"target"}, why: "its INTO targets"},
	"PLpgSQL_stmt_dynfors":      {stmt: true, fields: []string{"lineno", "label", "var", "body", "query", "params"}, targets: []string{"var"}, why: "its loop variable"},
	"PLpgSQL_stmt_getdiag":      {stmt: true, fields: []string{"lineno", "is_stacked", "diag_items"}, targets: []string{"diag_items"}, why: "its targets"},
	"PLpgSQL_diag_item":         {fields: []string{"kind", "target"}},
	// OPEN gives an unbound cursor variable the portal's name.
	"PLpgSQL_stmt_open":     {stmt: true, fields: []string{"lineno", "curvar", "cursor_options", "argquery", "query", "dynquery", "params"}, targets: []string{"curvar"}, why: "its cursor variable"},
	"PLpgSQL_stmt_fetch":    {stmt: true, fields: []string{"lineno", "target", "curvar", "direction", "how_many", "expr", "is_move", "returns_multiple_rows"}, targets: []string{"target"}, why: "its INTO targets"},
	"PLpgSQL_stmt_close":    {stmt: true, fields: []string{"lineno", "curvar"}},
	"PLpgSQL_stmt_perform":  {stmt: true, fields: []string{"lineno", "expr"}},
	"PLpgSQL_stmt_call":     {stmt: true, fields: []string{"lineno", "expr", "is_call", "target"}, targets: []string{"target"}, call: true, why: "the arguments passed to OUT or INOUT parameters"},
	"PLpgSQL_stmt_commit":   {stmt: true, fields: []string{"lineno", "chain"}},
	"PLpgSQL_stmt_rollback": {stmt: true, fields: []string{"lineno", "chain"}},
	"PLpgSQL_expr":          {fields: []string{"query", "parseMode"}},
	"PLpgSQL_var":           {fields: []string{"refname", "lineno", "datatype", "isconst", "notnull", "default_val", "cursor_explicit_expr", "cursor_explicit_argrow", "cursor_options"}},
	"PLpgSQL_row":           {fields: []string{"refname", "lineno", "fields"}, sub: []string{"name", "varno"}},
	"PLpgSQL_rec":           {fields: []string{"refname", "dno", "lineno"}},
	"PLpgSQL_recfield":      {fields: []string{"fieldname", "recparentno"}},
	"PLpgSQL_type":          {fields: []string{"typname"}},
}

// plAssigns is what the statements of a PL/pgSQL function may assign.
type plAssigns struct {
	// datums are the datum numbers assigned (a PLpgSQL_var target has
	// none written: it is a scalar variable, never a record or a field).
	datums map[int]bool
	// calls are the CALL statements' expressions: their arguments for
	// OUT and INOUT parameters are assigned (callTargets).
	calls []string
	// unknown, when set, says which node kind or field plNodes does not
	// classify: it may assign any variable.
	unknown string
}

// plTargets reads what the statements under v (a PL/pgSQL function's
// action, as pg_query's JSON decodes) may assign.
func plTargets(v any) plAssigns {
	out := plAssigns{datums: map[int]bool{}}
	num := func(v any) int {
		f, _ := v.(float64) // a zero number is not written
		return int(f)
	}
	// variable records the datums a target variable names.
	variable := func(v any) {
		m, _ := v.(map[string]any)
		if len(m) != 1 {
			out.unknown = fmt.Sprintf("a target %v", v)
			return
		}
		for k, x := range m {
			xm, _ := x.(map[string]any)
			switch k {
			case "PLpgSQL_rec":
				out.datums[num(xm["dno"])] = true
			case "PLpgSQL_row":
				fs, _ := xm["fields"].([]any)
				for _, f := range fs {
					if fm, _ := f.(map[string]any); fm != nil {
						out.datums[num(fm["varno"])] = true
					}
				}
			case "PLpgSQL_var":
				// A scalar variable: never NEW nor one of its fields.
			default:
				out.unknown = "a target of kind " + k
			}
		}
	}
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				visit(e)
			}
		case map[string]any:
			for k, e := range x {
				if !strings.HasPrefix(k, "PLpgSQL_") {
					visit(e)
					continue
				}
				kind, ok := plNodes[k]
				m, _ := e.(map[string]any)
				if !ok {
					out.unknown = "statement kind " + k
					continue
				}
				for f := range m {
					if !slices.Contains(kind.fields, f) {
						out.unknown = fmt.Sprintf("field %s of %s", f, k)
					}
				}
				for _, t := range kind.targets {
					switch t := m[t].(type) {
					case nil:
					case float64:
						out.datums[int(t)] = true
					case map[string]any:
						variable(t)
					case []any: // GET DIAGNOSTICS items
						for _, it := range t {
							im, _ := it.(map[string]any)
							di, _ := im["PLpgSQL_diag_item"].(map[string]any)
							if di == nil {
								out.unknown = fmt.Sprintf("a GET DIAGNOSTICS item %v", it)
								continue
							}
							out.datums[num(di["target"])] = true
						}
					default:
						out.unknown = fmt.Sprintf("target %v of %s", t, k)
					}
				}
				if kind.call {
					pe, _ := m["expr"].(map[string]any)
					ex, _ := pe["PLpgSQL_expr"].(map[string]any)
					q, _ := ex["query"].(string)
					if call, _ := m["is_call"].(bool); call {
						out.calls = append(out.calls, q)
					}
				}
				visit(e)
			}
		}
	}
	visit(v)
	return out
}

// aliasRE finds a PL/pgSQL ALIAS declaration (name ALIAS FOR ...).
// It compiles on first use (its Unicode classes were most of this
// package's initialisation, which every run paid before main).
var aliasRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)("(?:[^"]|"")+"|[\pL_][\pL\pN_$]*)\s+alias\s+for\b`)
})

// callTargets reports whether CALL statement q (its text, as PL/pgSQL
// holds it) may assign NEW.<column> or all of NEW: PostgreSQL assigns
// an OUT or INOUT parameter's value to the argument passed to it, which
// must be a variable (a record field among them), so an argument that is
// a variable reference naming the column as its last part (NEW.tok,
// n.tok for an ALIAS n of NEW, a block-qualified fn.new.tok, and any
// record's field of that name), or naming NEW itself (an alias, a
// block-qualified fn.new), may be assigned. The procedure's
// parameter modes are not looked up: an IN parameter given NEW.<column>
// counts too. aliases are the names the function's ALIAS declarations
// give. A statement that does not parse counts.
func callTargets(q, column string, aliases []string) bool {
	tree, err := pgpb.Parse(q)
	if err != nil || len(tree.Stmts) != 1 {
		return true
	}
	cs := tree.Stmts[0].Stmt.GetCallStmt()
	if cs == nil || cs.GetFunccall() == nil {
		return true
	}
	for _, a := range cs.GetFunccall().GetArgs() {
		if na := a.GetNamedArgExpr(); na != nil {
			a = na.GetArg()
		}
		cr := a.GetColumnRef()
		if cr == nil {
			continue // an expression: PostgreSQL refuses it for an output parameter
		}
		fs := cr.GetFields()
		last := fs[len(fs)-1].GetString_()
		switch {
		case last == nil:
			return true // NEW.*: all of it
		case len(fs) > 1 && last.GetSval() == column:
			return true // NEW.<column>, alias.<column>, label.new.<column>
		case last.GetSval() == "new" || slices.Contains(aliases, last.GetSval()):
			return true // NEW, an alias, label.new
		}
	}
	return false
}

// aliasNames are the names the ALIAS declarations of a PL/pgSQL body
// give, as the parser folds them (unquoted lower-cased).
func aliasNames(body string) []string {
	var out []string
	for _, m := range aliasRE().FindAllStringSubmatch(body, -1) {
		n := m[1]
		if strings.HasPrefix(n, `"`) {
			n = strings.ReplaceAll(n[1:len(n)-1], `""`, `"`)
		} else {
			n = strings.ToLower(n)
		}
		out = append(out, n)
	}
	return out
}
