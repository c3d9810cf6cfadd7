package analyze

// Hand-written token comparisons: a fenced write whose WHERE clause
// compares the token column with a parameter itself (the classic form of
// fencing, "AND tok <= @token"), which the guard already does.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// tokenComparison is one conjunct "<token column> op <parameter>" of the
// WHERE clause of a fenced write (op as written with the column on the
// left).
type tokenComparison struct {
	param int
	op    string
	loc   int
	text  string // the parameter as written
	// node is the comparison (an AExpr).
	node sqlparse.Node
}

// flipped is the operator of "a op b" written as "b flipped a".
var flipped = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "<>": "<>", "!=": "!="}

// tokenComparisons returns the conjuncts of the WHERE clause (an upsert's
// DO UPDATE ... WHERE) of q's fenced write that compare its token column
// with a parameter, as "tok op $n" or "$n op tok" (the parameter may be
// cast). Only the clause's top-level AND list is read: a comparison in a
// subquery or under OR is about other rows, or not a condition of the
// write. The column must name the fenced table's token column, unqualified
// or qualified by the table's name or alias.
func (a *analyzer) tokenComparisons(q *Query) []tokenComparison {
	var out []tokenComparison
	walk(a.stmt.Node, func(n sqlparse.Node) {
		var table sqlparse.Name
		var alias string
		var where sqlparse.Node
		switch n := n.(type) {
		case *sqlparse.Update:
			table, alias, where = n.Table, n.Alias, n.Where
		case *sqlparse.Delete:
			table, alias, where = n.Table, n.Alias, n.Where
		case *sqlparse.Insert:
			if n.OnConflict == nil || !n.OnConflict.DoUpdate {
				return
			}
			table, alias, where = n.Table, n.Alias, n.OnConflict.Where
		default:
			return
		}
		if where == nil || a.cat.Table(table.Schema, table.Name) != q.Fence.Table {
			return
		}
		names := []string{table.Name}
		if alias != "" {
			names = []string{alias}
		}
		for _, c := range conjuncts(where) {
			x, ok := c.(*sqlparse.AExpr)
			if !ok || x.Kind != "op" || flipped[x.Op] == "" {
				continue
			}
			op := x.Op
			col, p := x.Left, paramOf(x.Right)
			loc := x.Left.Pos()
			if p == nil {
				col, p, op = x.Right, paramOf(x.Left), flipped[x.Op]
				if p != nil {
					loc = p.Loc
				}
			}
			if p == nil || !isTokenColumn(col, q.Fence.Column, names) {
				continue
			}
			out = append(out, tokenComparison{param: p.Number, op: op, loc: loc, text: string(a.file.Src[p.Loc:p.End]), node: x})
		}
	})
	return out
}

// conjuncts is the top-level AND list of a boolean expression.
func conjuncts(n sqlparse.Node) []sqlparse.Node {
	if b, ok := n.(*sqlparse.BoolExpr); ok && strings.EqualFold(b.Op, "and") {
		var out []sqlparse.Node
		for _, arg := range b.Args {
			out = append(out, conjuncts(arg)...)
		}
		return out
	}
	return []sqlparse.Node{n}
}

// paramOf is n as a parameter, also under casts; nil otherwise.
func paramOf(n sqlparse.Node) *sqlparse.Param {
	for {
		switch x := n.(type) {
		case *sqlparse.Param:
			return x
		case *sqlparse.TypeCast:
			n = x.Arg
		default:
			return nil
		}
	}
}

// isTokenColumn reports whether n is a reference to column, unqualified
// or qualified by one of names.
func isTokenColumn(n sqlparse.Node, column string, names []string) bool {
	cr, ok := n.(*sqlparse.ColumnRef)
	if !ok || len(cr.Fields) == 0 || cr.Fields[len(cr.Fields)-1] != column {
		return false
	}
	return len(cr.Fields) == 1 || slices.Contains(names, cr.Fields[len(cr.Fields)-2])
}

// unifyTokenComparisons handles the hand-written token comparisons of q's
// fenced write (tokenComparisons), called once q.Params holds every
// parameter and before the statement's text is rewritten. A comparison
// that agrees with the guard (tok <= $n under the non-strict guard; tok <
// $n or tok <= $n under the strict one, where the guard's own comparison
// is the stricter) is a located note, and its parameter becomes the
// method's fencing token: it is dropped from q.Params, the parameters
// after it are numbered one lower, and every use of it in the statement
// becomes the token's $n, so that the method takes one token and the
// comparison cannot disagree with the guard's. Any other comparison of the
// token column with a parameter (=, >, tok < $n under the non-strict
// guard) is an error: it makes the write skip rows the guard accepts, so a
// write that wrote nothing could not be told apart from a stale token. In
// a sweep (Fence.Sweep), where writing nothing is no error, every
// comparison chooses the rows swept: its parameter is the token, without a
// note.
func (a *analyzer) unifyTokenComparisons(q *Query) {
	if q.Fence == nil {
		return
	}
	cmps := a.tokenComparisons(q)
	a.otherTokenComparisons(q, cmps)
	if len(cmps) == 0 {
		return
	}
	guardOp, mode := "<=", "non-strict"
	if q.Fence.Strict {
		guardOp, mode = "<", "strict"
	}
	col := q.Fence.Table.QualifiedName() + "." + q.Fence.Column
	token := map[int]bool{}
	for _, c := range cmps {
		if q.Fence.Sweep {
			// In a sweep the comparison chooses the rows swept (tok <=
			// @token: skip the rows a newer holder wrote, instead of
			// refusing the sweep), and a sweep that writes nothing is no
			// error: every operator is taken as written, without a note.
			token[c.param] = true
			continue
		}
		if c.op != "<=" && (c.op != "<" || !q.Fence.Strict) {
			hint := "drop it"
			if c.op == "<" {
				hint = "drop it, or mark the query \"-- @fence strict\" if it may write each row once per lease"
			}
			a.errorf(c.loc, "query %s compares fencing token column %s with %s by hand (%s %s %s), where the %s guard writes when %s %s token: rows the guard accepts would be skipped, and a write that wrote nothing could not be told from a stale token; %s (the guard compares the token itself)",
				q.Name, col, c.text, q.Fence.Column, c.op, c.text, mode, q.Fence.Column, guardOp, hint)
			continue
		}
		token[c.param] = true
		line, col2 := diag.Position(a.file.Src, a.clampLoc(c.loc))
		q.Notes = append(q.Notes, fmt.Sprintf("%s:%d:%d: note: query %s compares fencing token column %s with %s by hand (%s %s %s), as the guard does itself: %s is the method's fencing token, its one token argument; the comparison can be dropped",
			a.file.Name, line, col2, q.Name, col, c.text, q.Fence.Column, c.op, c.text, c.text))
	}
	if len(token) == 0 {
		return
	}
	// Renumber: the parameters left keep their order, from $1; the token
	// is numbered after them (Fence.TokenParam, len(q.Params)+1).
	renumber := map[int]int{}
	var kept []*Param
	for _, p := range q.Params {
		if token[p.Number] {
			continue
		}
		kept = append(kept, p)
		renumber[p.Number] = len(kept)
	}
	for n := range token {
		renumber[n] = len(kept) + 1
	}
	q.Params = kept
	for _, p := range q.Params {
		p.Number = renumber[p.Number]
	}
	for i := range a.inSlices {
		a.inSlices[i].Number = renumber[a.inSlices[i].Number]
	}
	// Every use of a parameter gets its new $n, replacing the edit that
	// numbered a named one.
	uses := map[int]int{} // start -> new number
	var ends = map[int]int{}
	walk(a.stmt.Node, func(n sqlparse.Node) {
		if p, ok := n.(*sqlparse.Param); ok {
			uses[p.Loc], ends[p.Loc] = renumber[p.Number], p.End
		}
	})
	a.edits = slices.DeleteFunc(a.edits, func(e edit) bool { _, ok := uses[e.start]; return ok })
	for loc, n := range uses {
		a.edits = append(a.edits, edit{loc, ends[loc], fmt.Sprintf("$%d", n)})
	}
}

// otherTokenComparisons refuses, at the expression, every other expression
// of q's fenced write that compares its token column with a parameter
// (issue 24): NOT (tok > @token), tok BETWEEN 0 AND @token, coalesce(tok,
// 0) <= @token, a comparison under OR, in a subquery (EXISTS (SELECT 1
// WHERE t.tok <= @token)), in SET or RETURNING. Its parameter would be a
// second token argument of the method, which can disagree with the one
// the guard checks. cmps, the comparisons tokenComparisons reads, are
// left to unifyTokenComparisons. An expression mixes the two when it holds
// a reference to the token column (unqualified, or qualified by a name or
// alias of the fenced table) outside its subqueries and AND/OR/NOT lists,
// and a parameter anywhere; the outermost such expression is reported.
func (a *analyzer) otherTokenComparisons(q *Query, cmps []tokenComparison) {
	col := q.Fence.Column
	names := a.fencedNames(q)
	known := map[sqlparse.Node]bool{}
	for _, c := range cmps {
		known[c.node] = true
	}
	walkPruned(a.stmt.Node, func(n sqlparse.Node) bool {
		switch n.(type) {
		case *sqlparse.AExpr, *sqlparse.FuncCall, *sqlparse.NullTest, *sqlparse.BooleanTest, *sqlparse.Case,
			*sqlparse.Coalesce, *sqlparse.MinMax, *sqlparse.ArrayExpr, *sqlparse.RowExpr, *sqlparse.TypeCast,
			*sqlparse.Indirection, *sqlparse.Collate, *sqlparse.SubLink:
		default:
			return true
		}
		if known[n] {
			return false
		}
		if !mentionsColumn(n, col, names) || !hasParam(n) {
			return true
		}
		a.errorf(n.Pos(), "query %s compares fencing token column %s.%s with a parameter in a form fencegen does not read as the guard's own comparison: that parameter would be a second token argument of the method, which can disagree with the token the guard checks; compare the token column only as \"%s <= @token\" (a condition of the write's WHERE, ANDed with the others), or drop the comparison: the guard adds it",
			q.Name, q.Fence.Table.QualifiedName(), col, col)
		return false
	})
}

// fencedNames are the names by which q's statement refers to its fenced
// table: the table's name and every alias of it.
func (a *analyzer) fencedNames(q *Query) []string {
	names := []string{q.Fence.Table.Name}
	add := func(table sqlparse.Name, alias string) {
		if alias != "" && a.cat.Table(table.Schema, table.Name) == q.Fence.Table && !slices.Contains(names, alias) {
			names = append(names, alias)
		}
	}
	walk(a.stmt.Node, func(n sqlparse.Node) {
		switch n := n.(type) {
		case *sqlparse.RangeVar:
			add(n.Name, n.Alias)
		case *sqlparse.Update:
			add(n.Table, n.Alias)
		case *sqlparse.Delete:
			add(n.Table, n.Alias)
		case *sqlparse.Insert:
			add(n.Table, n.Alias)
		}
	})
	return names
}

// mentionsColumn reports whether n refers to column (isTokenColumn)
// outside its subqueries and AND/OR/NOT lists.
func mentionsColumn(n sqlparse.Node, column string, names []string) bool {
	found := false
	walkPruned(n, func(x sqlparse.Node) bool {
		switch x.(type) {
		case *sqlparse.Select, *sqlparse.BoolExpr:
			return x == n
		}
		if isTokenColumn(x, column, names) {
			found = true
		}
		return !found
	})
	return found
}
