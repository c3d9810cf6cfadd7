package sqlparse

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// Columns of the fenced-write result that precede the query's own RETURNING
// columns.
const (
	// StoredColumn is NULL on a row that was written; on the single row
	// returned when nothing was written it holds the highest token stored in
	// the rows that matched the WHERE clause.
	StoredColumn = "fence_stored"
	// RowsColumn is NULL on a written row; otherwise the number of rows that
	// matched but were refused.
	RowsColumn = "fence_rows"
	// WriteCTE names the data-modifying WITH query that holds the guarded
	// write.
	WriteCTE = "fence_write"
)

// FenceSpec says how to guard a write.
type FenceSpec struct {
	// Column is the fencing-token column.
	Column string
	// Param is the number of the parameter that carries the presented token.
	Param int
	// Strict guards with stored < presented instead of stored ≤ presented.
	Strict bool
	// Columns is the number of RETURNING columns the query has.
	Columns int
}

// FenceWrite rewrites one INSERT, UPDATE or DELETE (text with $n
// parameters only) so that the database itself enforces the fencing token,
// in one statement:
//
// INSERT stores the presented token in the token column.
//
// UPDATE and DELETE become
//
//	WITH fence_write AS (
//	    UPDATE t SET ..., tok = $p WHERE (<where>) AND t.tok <= $p RETURNING ...)
//	SELECT NULL::int8 AS fence_stored, NULL::int8 AS fence_rows, fence_write.* FROM fence_write
//	UNION ALL
//	SELECT max(t.tok), count(*), NULL, ... FROM t WHERE (<where>)
//	    AND NOT EXISTS (SELECT 1 FROM fence_write) HAVING count(*) > 0
//
// so that one round trip tells the three outcomes apart: rows written
// (fence_stored NULL), rows that exist but hold a token the presented one
// does not beat (one row, fence_stored = highest stored token), and no
// matching row (no rows). PostgreSQL runs the statement atomically; under
// READ COMMITTED the UPDATE re-checks the guard on the newest row version
// after waiting for a concurrent writer (PostgreSQL docs, 13.2.1 "Read
// Committed Isolation Level"), while the second branch reads the
// statement's snapshot: a refused row that the snapshot shows as writable
// means a concurrent writer got there first, and generated code retries.
func FenceWrite(sql string, spec FenceSpec) (string, error) {
	tree, err := pg.Parse(sql)
	if err != nil {
		return "", err
	}
	if len(tree.Stmts) != 1 {
		return "", fmt.Errorf("expected one statement, got %d", len(tree.Stmts))
	}
	raw := tree.Stmts[0]
	op := "<="
	if spec.Strict {
		op = "<"
	}
	token := pg.MakeParamRefNode(int32(spec.Param), -1)
	switch s := raw.Stmt.Node.(type) {
	case *pg.Node_InsertStmt:
		return fenceInsert(tree, s.InsertStmt, spec, token)
	case *pg.Node_UpdateStmt:
		u := s.UpdateStmt
		if u.WithClause != nil {
			return "", fmt.Errorf("a fenced UPDATE cannot have its own WITH clause yet")
		}
		guard := guardExpr(u.Relation, spec.Column, op, token)
		where := u.WhereClause
		u.WhereClause = and(where, guard)
		u.TargetList = append(u.TargetList, pg.MakeResTargetNodeWithNameAndVal(spec.Column, pg.MakeParamRefNode(int32(spec.Param), -1), -1))
		if len(u.ReturningList) == 0 {
			u.ReturningList = []*pg.Node{pg.MakeResTargetNodeWithVal(pg.MakeAConstIntNode(1, -1), -1)}
		}
		return wrap(raw.Stmt, u.Relation, u.FromClause, where, spec)
	case *pg.Node_DeleteStmt:
		d := s.DeleteStmt
		if d.WithClause != nil {
			return "", fmt.Errorf("a fenced DELETE cannot have its own WITH clause yet")
		}
		guard := guardExpr(d.Relation, spec.Column, op, token)
		where := d.WhereClause
		d.WhereClause = and(where, guard)
		if len(d.ReturningList) == 0 {
			d.ReturningList = []*pg.Node{pg.MakeResTargetNodeWithVal(pg.MakeAConstIntNode(1, -1), -1)}
		}
		return wrap(raw.Stmt, d.Relation, d.UsingClause, where, spec)
	}
	return "", fmt.Errorf("only INSERT, UPDATE and DELETE can be fenced")
}

func relName(rv *pg.RangeVar) string {
	if rv.Alias != nil && rv.Alias.Aliasname != "" {
		return rv.Alias.Aliasname
	}
	return rv.Relname
}

func colRef(parts ...string) *pg.Node {
	var fields []*pg.Node
	for _, p := range parts {
		fields = append(fields, pg.MakeStrNode(p))
	}
	return pg.MakeColumnRefNode(fields, -1)
}

func guardExpr(rv *pg.RangeVar, column, op string, token *pg.Node) *pg.Node {
	return pg.MakeAExprNode(pg.A_Expr_Kind_AEXPR_OP, []*pg.Node{pg.MakeStrNode(op)}, colRef(relName(rv), column), token, -1)
}

func and(a, b *pg.Node) *pg.Node {
	if a == nil {
		return b
	}
	return pg.MakeBoolExprNode(pg.BoolExprType_AND_EXPR, []*pg.Node{a, b}, -1)
}

func nullConst() *pg.Node {
	return &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Isnull: true, Location: -1}}}
}

func int8Null() *pg.Node {
	return &pg.Node{Node: &pg.Node_TypeCast{TypeCast: &pg.TypeCast{
		Arg:      nullConst(),
		TypeName: &pg.TypeName{Names: []*pg.Node{pg.MakeStrNode("pg_catalog"), pg.MakeStrNode("int8")}, Typemod: -1, Location: -1},
		Location: -1,
	}}}
}

func countStar() *pg.Node {
	n := pg.MakeFuncCallNode([]*pg.Node{pg.MakeStrNode("count")}, nil, -1)
	n.GetFuncCall().AggStar = true
	return n
}

func selectNode(s *pg.SelectStmt) *pg.Node { return &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: s}} }

func wrap(write *pg.Node, rv *pg.RangeVar, from []*pg.Node, where *pg.Node, spec FenceSpec) (string, error) {
	written := &pg.SelectStmt{
		TargetList: []*pg.Node{
			pg.MakeResTargetNodeWithNameAndVal(StoredColumn, int8Null(), -1),
			pg.MakeResTargetNodeWithNameAndVal(RowsColumn, int8Null(), -1),
		},
		FromClause:  []*pg.Node{pg.MakeSimpleRangeVarNode(WriteCTE, -1)},
		LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT,
		Op:          pg.SetOperation_SETOP_NONE,
	}
	if spec.Columns > 0 {
		written.TargetList = append(written.TargetList, pg.MakeResTargetNodeWithVal(colRef(WriteCTE, "*"), -1))
		written.TargetList[2].GetResTarget().Val.GetColumnRef().Fields[1] = pg.MakeAStarNode()
	}
	target := &pg.RangeVar{Schemaname: rv.Schemaname, Relname: rv.Relname, Inh: true, Relpersistence: "p", Alias: rv.Alias, Location: -1}
	noneWritten := &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_NOT_EXPR, Args: []*pg.Node{
		{Node: &pg.Node_SubLink{SubLink: &pg.SubLink{SubLinkType: pg.SubLinkType_EXISTS_SUBLINK, Subselect: selectNode(&pg.SelectStmt{
			TargetList:  []*pg.Node{pg.MakeResTargetNodeWithVal(pg.MakeAConstIntNode(1, -1), -1)},
			FromClause:  []*pg.Node{pg.MakeSimpleRangeVarNode(WriteCTE, -1)},
			LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT,
			Op:          pg.SetOperation_SETOP_NONE,
		}), Location: -1}}},
	}, Location: -1}}}
	refused := &pg.SelectStmt{
		TargetList: []*pg.Node{
			pg.MakeResTargetNodeWithNameAndVal(StoredColumn, pg.MakeFuncCallNode([]*pg.Node{pg.MakeStrNode("max")}, []*pg.Node{colRef(relName(rv), spec.Column)}, -1), -1),
			pg.MakeResTargetNodeWithNameAndVal(RowsColumn, countStar(), -1),
		},
		FromClause:   append([]*pg.Node{{Node: &pg.Node_RangeVar{RangeVar: target}}}, from...),
		WhereClause:  and(where, noneWritten),
		HavingClause: pg.MakeAExprNode(pg.A_Expr_Kind_AEXPR_OP, []*pg.Node{pg.MakeStrNode(">")}, countStar(), pg.MakeAConstIntNode(0, -1), -1),
		LimitOption:  pg.LimitOption_LIMIT_OPTION_DEFAULT,
		Op:           pg.SetOperation_SETOP_NONE,
	}
	for i := 0; i < spec.Columns; i++ {
		refused.TargetList = append(refused.TargetList, pg.MakeResTargetNodeWithVal(nullConst(), -1))
	}
	parts := make([]string, 3)
	for i, n := range []*pg.Node{write, selectNode(written), selectNode(refused)} {
		out, err := pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: n}}})
		if err != nil {
			return "", err
		}
		parts[i] = out
	}
	out := "WITH " + WriteCTE + " AS (\n    " + parts[0] + "\n)\n" + parts[1] + "\nUNION ALL\n" + parts[2]
	// The result must parse again: a deparser bug must never reach users.
	if _, err := pg.Parse(out); err != nil {
		return "", fmt.Errorf("rewritten statement does not parse: %v", err)
	}
	return out, nil
}

func fenceInsert(tree *pg.ParseResult, in *pg.InsertStmt, spec FenceSpec, token *pg.Node) (string, error) {
	if len(in.Cols) == 0 {
		return "", fmt.Errorf("an INSERT into a fenced table must list its columns, so that fencegen can add the token column")
	}
	in.Cols = append(in.Cols, pg.MakeResTargetNodeWithName(spec.Column, -1))
	sel := in.SelectStmt.GetSelectStmt()
	if sel == nil {
		return "", fmt.Errorf("INSERT ... DEFAULT VALUES cannot carry a fencing token")
	}
	switch {
	case len(sel.ValuesLists) > 0:
		for _, row := range sel.ValuesLists {
			l := row.GetList()
			l.Items = append(l.Items, pg.MakeParamRefNode(int32(spec.Param), -1))
		}
	case sel.Op == pg.SetOperation_SETOP_NONE:
		sel.TargetList = append(sel.TargetList, pg.MakeResTargetNodeWithVal(token, -1))
	default:
		return "", fmt.Errorf("INSERT ... SELECT with UNION/INTERSECT/EXCEPT into a fenced table cannot carry the token yet")
	}
	out, err := pg.Deparse(tree)
	if err != nil {
		return "", err
	}
	return out, nil
}
