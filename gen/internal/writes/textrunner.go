package writes

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// textRunners are the built-in functions whose first argument is SQL text
// they run (query_to_*) or a relation they read whole (table_to_*, a
// regclass), PostgreSQL docs 9.15.4: the value is whether the function
// only plans the query for its result's shape (the *_xmlschema ones but
// *_and_xmlschema), which evaluates no VOLATILE function.
var textRunners = map[string]bool{
	"query_to_xml": false, "query_to_xml_and_xmlschema": false, "query_to_xmlschema": true,
	"table_to_xml": false, "table_to_xml_and_xmlschema": false, "table_to_xmlschema": true,
}

// TextRunnerQuery returns, for a call of one of textRunners whose first
// argument is a string constant, the statement it runs: the constant
// parsed (query_to_*), or TABLE of the relation it names (table_to_*),
// and whether the statement is only planned. ok is false for another
// function, text that is not a constant, and text that is not exactly
// one statement (or, for a relation, one name): those stay runs of text
// fencegen does not see (analyze's sqlTextRunners).
func TextRunnerQuery(x *pg.FuncCall) (tree *pg.Node, planOnly, ok bool) {
	n := funcName(x.Funcname, 0)
	plan, known := textRunners[strings.ToLower(n.Name)]
	if !known || (n.Schema != "" && n.Schema != "pg_catalog") || len(x.Args) == 0 || x.FuncVariadic || x.AggStar {
		return nil, false, false
	}
	arg := x.Args[0]
	if tc := arg.GetTypeCast(); tc != nil {
		arg = tc.Arg
	}
	c := arg.GetAConst()
	if c == nil || c.GetSval() == nil {
		return nil, false, false
	}
	text := c.GetSval().Sval
	table := strings.HasPrefix(strings.ToLower(n.Name), "table_")
	if table {
		text = "TABLE " + text
	}
	parsed, err := pg.Parse(text)
	if err != nil || len(parsed.Stmts) != 1 || parsed.Stmts[0].Stmt == nil {
		return nil, false, false
	}
	st := parsed.Stmts[0].Stmt
	if table {
		// TABLE name is SELECT * FROM name: anything else is not a
		// relation's name.
		sel := st.GetSelectStmt()
		if sel == nil || len(sel.FromClause) != 1 || sel.FromClause[0].GetRangeVar() == nil || sel.WhereClause != nil ||
			sel.WithClause != nil || sel.Op != pg.SetOperation_SETOP_NONE || len(sel.TargetList) != 1 {
			return nil, false, false
		}
		rv := sel.FromClause[0].GetRangeVar()
		if rv.Alias != nil || !rv.Inh {
			return nil, false, false
		}
	}
	return st, plan, true
}
