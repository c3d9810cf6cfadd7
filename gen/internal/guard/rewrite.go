package guard

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/fencegen/fencegen/gen/internal/pgpb"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// op is the guard's comparison of the stored token with the presented one:
// stored <= presented, or stored < presented when Strict.
func (spec Spec) op() string {
	if spec.Strict {
		return "<"
	}
	return "<="
}

// opSQL is op as the guarded statement writes it: PostgreSQL's own
// operator, OPERATOR(pg_catalog.<=), which no operator of the schema can
// take the place of. A plain <= binds to the operator that fits the
// operands best among those the search path shows: one a schema defines
// for a domain the token column is declared of (CREATE OPERATOR <=
// (LEFTARG = tokd, RIGHTARG = tokd, ...)) fits a tokd column exactly and
// wins over pg_catalog's bigint one, whatever it computes (trial t24h
// F_domop: a stale DELETE went through); so does any operator of a
// schema the search path names before pg_catalog (PostgreSQL docs, 10.2
// "Operators"). Qualified, only pg_catalog's operators are candidates,
// and a domain's value compares as its base type's.
func (spec Spec) opSQL() string { return "OPERATOR(pg_catalog." + spec.op() + ")" }

// opName is opSQL as a parse tree's operator name.
func (spec Spec) opName() []*pg.Node {
	return []*pg.Node{pg.MakeStrNode("pg_catalog"), pg.MakeStrNode(spec.op())}
}

// checkTarget reports, as an error, that rv, the relation the statement
// to guard writes, is not the fenced table (spec.Name; not checked when
// ""): the analyser found the fenced write elsewhere, and guarding this
// one would leave that write unguarded.
func (spec Spec) checkTarget(rv *pg.RangeVar) error {
	if spec.Name == "" || rv.Relname == spec.Name {
		return nil
	}
	return fmt.Errorf("the write to guard is into %s, not into fenced table %s, which the statement writes elsewhere; write the fenced write as its own statement", rv.Relname, spec.Table)
}

// keyUnique reports whether rv's primary key matches at most one row.
func (spec Spec) keyUnique(rv *pg.RangeVar) bool { return !spec.Inherited || !rv.Inh }

// Names of the WITH queries of a fenced UPDATE or DELETE.
const (
	// LockCTE locks every row the write's WHERE clause matches.
	LockCTE = "fence_lock"
	// CheckCTE holds the highest stored token of the locked rows and how
	// many of them the presented token does not beat.
	CheckCTE = "fence_check"
)

// fenceWrite rewrites one INSERT, UPDATE or DELETE (text with $n
// parameters only) so that the database itself enforces the fencing token,
// in one statement and one round trip.
//
// INSERT stores the presented token in the token column.
//
// UPDATE and DELETE are all or nothing. For
// UPDATE t SET ... WHERE <where> with token parameter $p the result is
//
//	WITH fence_lock AS (
//	    SELECT t.<key>, t.tok FROM t WHERE <where> FOR UPDATE OF t
//	), fence_check AS (
//	    SELECT max(tok) AS stored, count(*) FILTER (WHERE NOT (tok <= $p)) AS refused FROM fence_lock
//	), fence_write AS (
//	    UPDATE t SET ..., tok = $p
//	    WHERE <where> AND t.tok <= $p
//	      AND (t.<key>) IN (SELECT <key> FROM fence_lock)
//	      AND (SELECT refused FROM fence_check) = 0
//	    RETURNING ...
//	)
//	SELECT NULL::bigint AS fence_stored, NULL::bigint AS fence_rows, fence_write.* FROM fence_write
//	UNION ALL
//	SELECT stored, refused, NULL, ... FROM fence_check WHERE refused > 0
//
// fence_lock locks every matched row; under READ COMMITTED a row that a
// concurrent transaction changed is re-read in its newest version and the
// WHERE clause re-checked (PostgreSQL docs, 13.2.1 "Read Committed
// Isolation Level", and 13.3.2 "Row-Level Locks"), so fence_check sees the
// tokens that are really stored, and nothing can change them before the
// write. If any matched row holds a token the presented one does not beat,
// nothing is written and one row reports the highest stored token and the
// number of such rows; if none matched, no row comes back; otherwise the
// written rows come back with fence_stored NULL. Under REPEATABLE READ and
// SERIALIZABLE a concurrent change makes the statement fail with a
// serialization error (SQLSTATE 40001) instead, as any write would.
func fenceWrite(sql string, spec Spec) (string, Form, error) {
	form := Locking
	out, err := rewriteWrite(sql, spec, &form)
	return out, form, err
}

// rewriteWrite is fenceWrite, setting *form to the form it builds.
func rewriteWrite(sql string, spec Spec, form *Form) (string, error) {
	tree, err := pgpb.Parse(sql)
	if err != nil {
		return "", err
	}
	if len(tree.Stmts) != 1 {
		return "", fmt.Errorf("expected one statement, got %d", len(tree.Stmts))
	}
	raw := tree.Stmts[0]
	spec.ctes = cteNamesAvoiding(raw.Stmt)
	if spec.CTE != "" {
		return fenceInWith(tree, spec, form)
	}
	var target *pg.RangeVar
	switch s := raw.Stmt.Node.(type) {
	case *pg.Node_InsertStmt:
		target = s.InsertStmt.Relation
	case *pg.Node_UpdateStmt:
		target = s.UpdateStmt.Relation
	case *pg.Node_DeleteStmt:
		target = s.DeleteStmt.Relation
	}
	if target != nil {
		if err := spec.checkTarget(target); err != nil {
			return "", err
		}
	}
	switch s := raw.Stmt.Node.(type) {
	case *pg.Node_InsertStmt:
		return fenceInsert(tree, s.InsertStmt, spec, form)
	case *pg.Node_UpdateStmt:
		u := s.UpdateStmt
		with, err := hoistWith(&u.WithClause, u.Relation)
		if err != nil {
			return "", err
		}
		if len(spec.Key) == 0 {
			return "", fmt.Errorf("the table has no primary key")
		}
		where := u.WhereClause
		single := len(u.FromClause) == 0 && spec.keyUnique(u.Relation) && pinsKey(u.Relation, where, spec.Key)
		u.TargetList = append(u.TargetList, pg.MakeResTargetNodeWithNameAndVal(spec.Column, pg.MakeParamRefNode(int32(spec.Param), -1), -1))
		if len(u.ReturningList) == 0 {
			u.ReturningList = []*pg.Node{pg.MakeResTargetNodeWithVal(pg.MakeAConstIntNode(1, -1), -1)}
		}
		if single {
			u.WhereClause = and(where, guardExpr(u.Relation, spec))
			*form = Single
			return wrapSingle(with, raw.Stmt, u.Relation, where, spec)
		}
		extra, err := lockConditions(u.Relation, spec)
		if err != nil {
			return "", err
		}
		u.WhereClause = and(and(where, guardExpr(u.Relation, spec)), extra)
		return wrap(with, raw.Stmt, u.Relation, u.FromClause, where, spec)
	case *pg.Node_DeleteStmt:
		d := s.DeleteStmt
		with, err := hoistWith(&d.WithClause, d.Relation)
		if err != nil {
			return "", err
		}
		if len(spec.Key) == 0 {
			return "", fmt.Errorf("the table has no primary key")
		}
		where := d.WhereClause
		if len(d.ReturningList) == 0 {
			d.ReturningList = []*pg.Node{pg.MakeResTargetNodeWithVal(pg.MakeAConstIntNode(1, -1), -1)}
		}
		if len(d.UsingClause) == 0 && spec.keyUnique(d.Relation) && pinsKey(d.Relation, where, spec.Key) {
			d.WhereClause = and(where, guardExpr(d.Relation, spec))
			*form = Single
			return wrapSingle(with, raw.Stmt, d.Relation, where, spec)
		}
		extra, err := lockConditions(d.Relation, spec)
		if err != nil {
			return "", err
		}
		d.WhereClause = and(and(where, guardExpr(d.Relation, spec)), extra)
		return wrap(with, raw.Stmt, d.Relation, d.UsingClause, where, spec)
	}
	return "", fmt.Errorf("only INSERT, UPDATE and DELETE can be fenced")
}

// lockKeys lists the key columns of the lock query: fence_key_1, ...
func lockKeys(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("fence_key_%d", i+1)
	}
	return strings.Join(parts, ", ")
}

func keyList(prefix string, key []string) string {
	parts := make([]string, len(key))
	for i, k := range key {
		parts[i] = prefix + sqlparse.QuoteIdent(k)
	}
	return strings.Join(parts, ", ")
}

// lockConditions returns "(t.key) IN (SELECT key FROM fence_lock) AND
// (SELECT refused FROM fence_check) = 0" as a parse-tree node.
func lockConditions(rv *pg.RangeVar, spec Spec) (*pg.Node, error) {
	text := fmt.Sprintf("SELECT 1 WHERE (%s) IN (SELECT %s FROM %s) AND (SELECT refused FROM %s) = 0",
		keyList(sqlparse.QuoteIdent(relName(rv))+".", spec.Key), lockKeys(len(spec.Key)), spec.lockCTE(), spec.checkCTE())
	t, err := pgpb.Parse(text)
	if err != nil {
		return nil, err
	}
	return t.Stmts[0].Stmt.GetSelectStmt().WhereClause, nil
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

// guardExpr is the guard condition on rv's token column: stored <=
// presented (stored < presented when strict), the token as parameter
// spec.Param.
func guardExpr(rv *pg.RangeVar, spec Spec) *pg.Node {
	return pg.MakeAExprNode(pg.A_Expr_Kind_AEXPR_OP, spec.opName(), colRef(relName(rv), spec.Column), pg.MakeParamRefNode(int32(spec.Param), -1), -1)
}

func and(a, b *pg.Node) *pg.Node {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return pg.MakeBoolExprNode(pg.BoolExprType_AND_EXPR, []*pg.Node{a, b}, -1)
}

func selectNode(s *pg.SelectStmt) *pg.Node { return &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: s}} }

func deparse(n *pg.Node) (string, error) {
	return pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: n}}})
}

// pinsKey reports whether where fixes every primary-key column of rv by
// equality with a parameter or a constant, in a top-level AND: the write
// matches at most one row, so it is all or nothing without locking first.
func pinsKey(rv *pg.RangeVar, where *pg.Node, key []string) bool {
	return keyConjuncts(rv, where, key) != nil
}

// keyConjuncts returns the conjuncts of where's top-level AND that pin
// every primary-key column of rv (see pinsKey), ANDed, or nil when where
// does not pin them all.
func keyConjuncts(rv *pg.RangeVar, where *pg.Node, key []string) *pg.Node {
	if where == nil || len(key) == 0 {
		return nil
	}
	conj := flattenAnd(where)
	isValue := func(n *pg.Node) bool {
		if tc := n.GetTypeCast(); tc != nil {
			n = tc.Arg
		}
		return n.GetParamRef() != nil || n.GetAConst() != nil
	}
	column := func(n *pg.Node) string {
		cr := n.GetColumnRef()
		if cr == nil {
			return ""
		}
		f := strs(cr.Fields)
		switch {
		case len(f) == 1:
			return f[0]
		case len(f) == 2 && f[0] == relName(rv):
			return f[1]
		}
		return ""
	}
	pinned := map[string]*pg.Node{}
	for _, c := range conj {
		e := c.GetAExpr()
		if e == nil || e.Kind != pg.A_Expr_Kind_AEXPR_OP || len(e.Name) != 1 || e.Name[0].GetString_().GetSval() != "=" {
			continue
		}
		if col := column(e.Lexpr); col != "" && isValue(e.Rexpr) && pinned[col] == nil {
			pinned[col] = c
		}
		if col := column(e.Rexpr); col != "" && isValue(e.Lexpr) && pinned[col] == nil {
			pinned[col] = c
		}
	}
	var out *pg.Node
	for _, k := range key {
		if pinned[k] == nil {
			return nil
		}
		out = and(out, pinned[k])
	}
	return out
}

// flattenAnd returns the conjuncts of n's top-level AND (n alone if it is
// not an AND).
func flattenAnd(n *pg.Node) []*pg.Node {
	if b := n.GetBoolExpr(); b != nil && b.Boolop == pg.BoolExprType_AND_EXPR {
		var out []*pg.Node
		for _, a := range b.Args {
			out = append(out, flattenAnd(a)...)
		}
		return out
	}
	return []*pg.Node{n}
}

// storedFilter selects, by primary key (pinned, see keyConjuncts), the row
// a refused by-key write reports: the row whose stored token the presented
// one does not beat (stale), or that matches the whole WHERE clause (the
// write raced a concurrent change: try again). A row that the key finds
// but the rest of the WHERE clause does not match, and whose token the
// presented one beats, is not reported: the write matched nothing (not
// found). So a stale token is reported as stale even when the newer
// holder's write also changed what the WHERE clause tests (WHERE id = $1
// AND status = 'running').
func storedFilter(rv *pg.RangeVar, where *pg.Node, spec Spec) (*pg.Node, error) {
	byKey := keyConjuncts(rv, where, spec.Key)
	if byKey == nil {
		return nil, fmt.Errorf("the WHERE clause does not pin the primary key")
	}
	if len(flattenAnd(where)) == len(spec.Key) {
		return where, nil // the key alone: the WHERE clause itself
	}
	stale := &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_NOT_EXPR,
		Args: []*pg.Node{guardExpr(rv, spec)}, Location: -1}}}
	either := &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_OR_EXPR,
		Args: []*pg.Node{stale, where}, Location: -1}}}
	return and(byKey, either), nil
}

// wrapSingle wraps a write that matches at most one row (see pinsKey):
//
//	WITH fence_write AS (<write, guarded> RETURNING ...)
//	SELECT NULL::bigint AS fence_stored, NULL::bigint AS fence_rows, fence_write.* FROM fence_write
//	UNION ALL
//	SELECT t.tok, 1, NULL, ... FROM t WHERE <where> AND NOT EXISTS (SELECT 1 FROM fence_write)
//
// One row cannot be written in part. The refusal branch reads the
// statement's snapshot: when it shows a token the guard would have
// accepted, a concurrent transaction changed the row first, and
// fenceimpl.Write runs the statement again.
func wrapSingle(with string, write *pg.Node, rv *pg.RangeVar, where *pg.Node, spec Spec) (string, error) {
	writeSQL, err := deparse(write)
	if err != nil {
		return "", err
	}
	noneWritten, err := pgpb.Parse("SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM " + spec.writeCTE() + ")")
	if err != nil {
		return "", err
	}
	filter, err := storedFilter(rv, where, spec)
	if err != nil {
		return "", err
	}
	target := &pg.RangeVar{Schemaname: rv.Schemaname, Relname: rv.Relname, Inh: rv.Inh, Relpersistence: "p", Alias: rv.Alias, Location: -1}
	targets := []*pg.Node{
		pg.MakeResTargetNodeWithVal(colRef(relName(rv), spec.Column), -1),
		pg.MakeResTargetNodeWithVal(pg.MakeAConstIntNode(1, -1), -1),
	}
	for i := 0; i < spec.Columns; i++ {
		targets = append(targets, pg.MakeResTargetNodeWithVal(&pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Isnull: true, Location: -1}}}, -1))
	}
	refused := &pg.SelectStmt{
		TargetList:  targets,
		FromClause:  []*pg.Node{{Node: &pg.Node_RangeVar{RangeVar: target}}},
		WhereClause: and(filter, noneWritten.Stmts[0].Stmt.GetSelectStmt().WhereClause),
		LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT,
		Op:          pg.SetOperation_SETOP_NONE,
	}
	refusedSQL, err := deparse(selectNode(refused))
	if err != nil {
		return "", err
	}
	written := writtenRows(spec)
	out := with + spec.writeCTE() + " AS (\n    " + writeSQL + "\n)\n" + written + "\nUNION ALL\n" + refusedSQL
	return reparsed(out)
}

func wrap(with string, write *pg.Node, rv *pg.RangeVar, from []*pg.Node, where *pg.Node, spec Spec) (string, error) {
	writeSQL, err := deparse(write)
	if err != nil {
		return "", err
	}
	// The lock query: the write's own FROM/USING items and WHERE clause, so
	// that it matches exactly the rows the write would.
	lockSQL, distinctKey, err := lockQuery(rv, from, where, spec)
	if err != nil {
		return "", err
	}
	return lockingForm(with, lockSQL, distinctKey, writeSQL, spec)
}

// lockingForm assembles the one-statement locking form of a fenced write
// (see fenceWrite): with (the start of the WITH list: "WITH " and any
// entries before the lock), the lock query, the key fence_check counts
// rows by, the guarded write, and the result branches.
func lockingForm(with, lockSQL, distinct, writeSQL string, spec Spec) (string, error) {
	return reparsed(with + spec.lockCTE() + " AS (\n    " + lockSQL + "\n), " +
		spec.checkCTE() + " AS (\n    " + checkQuery(distinct, spec) + "\n), " +
		spec.writeCTE() + " AS (\n    " + writeSQL + "\n)\n" +
		writtenRows(spec) + "\nUNION ALL\n" +
		"SELECT stored, refused" + strings.Repeat(", NULL", spec.Columns) + " FROM " + spec.checkCTE() + " WHERE refused > 0")
}

// checkQuery is fence_check's query: the highest stored token of the
// locked rows, and how many of them (counted by distinct) the presented
// token does not beat.
func checkQuery(distinct string, spec Spec) string {
	return "SELECT max(fence_token) AS stored, count(DISTINCT " + distinct + ") FILTER (WHERE NOT (fence_token " + spec.opSQL() + " $" + fmt.Sprint(spec.Param) + ")) AS refused FROM " + spec.lockCTE()
}

// reparsed returns out if PostgreSQL's parser accepts it: a deparser bug
// must never reach users.
func reparsed(out string) (string, error) {
	if _, err := pgpb.Parse(out); err != nil {
		return "", fmt.Errorf("rewritten statement does not parse: %v", err)
	}
	return out, nil
}

func fenceInsert(tree *pg.ParseResult, in *pg.InsertStmt, spec Spec, form *Form) (string, error) {
	if len(in.Cols) == 0 {
		return "", fmt.Errorf("an INSERT into a fenced table must list its columns, so that fencegen can add the token column")
	}
	sel := in.SelectStmt.GetSelectStmt()
	if sel == nil {
		return "", fmt.Errorf("INSERT ... DEFAULT VALUES cannot carry a fencing token")
	}
	if oc := in.OnConflictClause; oc != nil && oc.Action == pg.OnConflictAction_ONCONFLICT_UPDATE {
		// The INSERT's own WITH entries join the guard's WITH list, ahead
		// of the guard's queries, which read the rows to insert too.
		with, err := hoistWith(&in.WithClause, in.Relation)
		if err != nil {
			return "", err
		}
		return fenceUpsert(with, in, sel, oc, spec, form)
	}
	*form = Store
	if err := storeToken(in, sel, spec); err != nil {
		return "", err
	}
	out, err := pg.Deparse(tree)
	if err != nil {
		return "", err
	}
	return out, nil
}

// fenceUpsert guards INSERT ... ON CONFLICT (cols) DO UPDATE: the inserted
// row stores the presented token, and the DO UPDATE branch applies only
// when the stored token is beaten, storing the presented one:
//
//	WITH fence_write AS (
//	    INSERT INTO t (..., tok) VALUES (..., $p)
//	    ON CONFLICT (k) DO UPDATE SET ..., tok = $p WHERE (<where>) AND t.tok <= $p
//	    RETURNING ...)
//	SELECT NULL::bigint AS fence_stored, NULL::bigint AS fence_rows, fence_write.* FROM fence_write
//	UNION ALL
//	SELECT t.tok, 1, NULL, ... FROM t WHERE (t.k) = (<inserted k>) AND NOT (t.tok <= $p)
//	    AND NOT EXISTS (SELECT 1 FROM fence_write)
//
// A refused update comes back as one row with the stored token. No row at
// all means the conflicting row appeared after the statement's snapshot
// (a concurrent insert), or the DO UPDATE's own WHERE clause refused it;
// fenceimpl.WriteUpsert runs the statement again, then reports it as not found.
func fenceUpsert(with string, in *pg.InsertStmt, sel *pg.SelectStmt, oc *pg.OnConflictClause, spec Spec, form *Form) (string, error) {
	if len(sel.ValuesLists) != 1 || spec.SetReturningRow {
		*form = UpsertMany
		if len(sel.ValuesLists) == 1 {
			// VALUES (unnest($1), ...) as SELECT unnest($1), ...
			for _, x := range sel.ValuesLists[0].GetList().Items {
				sel.TargetList = append(sel.TargetList, pg.MakeResTargetNodeWithVal(x, -1))
			}
			sel.ValuesLists = nil
		}
		return fenceUpsertMany(with, in, sel, oc, spec)
	}
	*form = Upsert
	names, err := conflictColumns(oc, spec)
	if err != nil {
		return "", err
	}
	row := sel.ValuesLists[0].GetList()
	cols := strs(nil)
	for _, c := range in.Cols {
		cols = append(cols, c.GetResTarget().GetName())
	}
	var keyCols []string
	var keyVals []*pg.Node
	for _, name := range names {
		i := -1
		for j, c := range cols {
			if c == name {
				i = j
			}
		}
		if i < 0 || i >= len(row.Items) {
			return "", fmt.Errorf("conflict column %s is not among the inserted columns", name)
		}
		if err := repeatable(row.Items[i]); err != nil {
			return "", fmt.Errorf("conflict column %s is given %v: fencegen finds the row an upsert refused by the conflict columns' values, so each must be a value it can repeat (a parameter, a constant, or an expression of them)", name, err)
		}
		keyCols = append(keyCols, name)
		keyVals = append(keyVals, row.Items[i])
	}
	op := spec.opSQL()
	rv := in.Relation
	// Values as SQL text, before the token joins the row.
	valsSel := &pg.SelectStmt{LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT, Op: pg.SetOperation_SETOP_NONE}
	for _, v := range keyVals {
		valsSel.TargetList = append(valsSel.TargetList, pg.MakeResTargetNodeWithVal(v, -1))
	}
	valsSQL, err := deparse(selectNode(valsSel))
	if err != nil {
		return "", err
	}
	valsSQL = strings.TrimPrefix(valsSQL, "SELECT ")

	in.Cols = append(in.Cols, pg.MakeResTargetNodeWithName(spec.Column, -1))
	row.Items = append(row.Items, pg.MakeParamRefNode(int32(spec.Param), -1))
	if err := guardDoUpdate(in, oc, spec, false); err != nil {
		return "", err
	}
	writeSQL, err := deparse(&pg.Node{Node: &pg.Node_InsertStmt{InsertStmt: in}})
	if err != nil {
		return "", err
	}
	rel := sqlparse.QuoteIdent(relName(rv))
	from, pred, err := conflictRows(rv, oc, spec)
	if err != nil {
		return "", err
	}
	tok := rel + "." + sqlparse.QuoteIdent(spec.Column)
	written := writtenRows(spec)
	refused := fmt.Sprintf("SELECT %s, 1%s FROM %s WHERE (%s) = (%s)%s AND NOT (%s %s $%d) AND NOT EXISTS (SELECT 1 FROM %s)",
		tok, strings.Repeat(", NULL", spec.Columns), from, keyList(rel+".", keyCols), valsSQL, pred, tok, op, spec.Param, spec.writeCTE())
	if len(keyCols) == 1 {
		refused = fmt.Sprintf("SELECT %s, 1%s FROM %s WHERE %s = %s%s AND NOT (%s %s $%d) AND NOT EXISTS (SELECT 1 FROM %s)",
			tok, strings.Repeat(", NULL", spec.Columns), from, keyList(rel+".", keyCols), valsSQL, pred, tok, op, spec.Param, spec.writeCTE())
	}
	out := with + spec.writeCTE() + " AS (\n    " + writeSQL + "\n)\n" + written + "\nUNION ALL\n" + refused
	return reparsed(out)
}

// InputCTE names the WITH query that holds the rows of a fenced upsert of
// many rows.
const InputCTE = "fence_input"

// cteNames are the names of the guard's WITH queries in one statement.
type cteNames struct{ lock, check, write, input string }

// cteNamesAvoiding chooses the guard's WITH query names for stmt: LockCTE,
// CheckCTE, WriteCTE and InputCTE, or, when stmt names a relation or WITH
// query of one of those names anywhere in its tree (a table fence_check,
// which the guard's entry of that name would shadow inside fence_write),
// the same names with the first suffix _1, _2, ... that none of stmt's
// names has (issue 24, trial-pg3 finding 18). Deterministic: the same
// statement gets the same names.
func cteNamesAvoiding(stmt *pg.Node) cteNames {
	used := map[string]bool{}
	if stmt != nil {
		sqlparse.EachMessage(stmt.ProtoReflect(), func(m protoreflect.Message) bool {
			switch x := m.Interface().(type) {
			case *pg.RangeVar:
				used[x.Relname] = true
			case *pg.CommonTableExpr:
				used[x.Ctename] = true
			}
			return true
		})
	}
	for i := 0; ; i++ {
		suf := ""
		if i > 0 {
			suf = "_" + strconv.Itoa(i)
		}
		n := cteNames{LockCTE + suf, CheckCTE + suf, WriteCTE + suf, InputCTE + suf}
		if !used[n.lock] && !used[n.check] && !used[n.write] && !used[n.input] {
			return n
		}
	}
}

func (spec Spec) lockCTE() string  { return or(spec.ctes.lock, LockCTE) }
func (spec Spec) checkCTE() string { return or(spec.ctes.check, CheckCTE) }
func (spec Spec) writeCTE() string { return or(spec.ctes.write, WriteCTE) }
func (spec Spec) inputCTE() string { return or(spec.ctes.input, InputCTE) }

func or(s, dflt string) string {
	if s != "" {
		return s
	}
	return dflt
}

// fenceUpsertMany guards INSERT ... ON CONFLICT (cols) DO UPDATE of many
// rows (several VALUES rows, or a SELECT) all or nothing, like a fenced
// UPDATE of many rows: the rows to insert become a WITH query, the
// existing rows they conflict with are locked and checked first, and the
// insert runs only if the presented token beats every one of them:
//
//	WITH fence_input(<cols>) AS (<the rows, each value cast to its column's type>),
//	fence_lock AS (SELECT <conflict cols>, tok FROM t WHERE (<conflict cols>) IN (SELECT <conflict cols> FROM fence_input) FOR UPDATE OF t),
//	fence_check AS (SELECT max(...) AS stored, count(DISTINCT ...) FILTER (WHERE NOT (tok <= $p)) AS refused FROM fence_lock),
//	fence_write AS (
//	    INSERT INTO t (<cols>, tok) SELECT <cols>, $p FROM fence_input WHERE (SELECT refused FROM fence_check) = 0
//	    ON CONFLICT (<conflict cols>) DO UPDATE SET ..., tok = $p WHERE <its WHERE> AND t.tok <= $p
//	    RETURNING ...)
//	SELECT NULL::bigint AS fence_stored, NULL::bigint AS fence_rows, fence_write.* FROM fence_write
//	UNION ALL
//	SELECT stored, refused, NULL, ... FROM fence_check WHERE refused > 0
//
// A row that another transaction inserts with a conflicting key after the
// lock is still guarded by the DO UPDATE's WHERE clause: a lower token
// never lands, but that one row is then skipped rather than refused.
func fenceUpsertMany(with string, in *pg.InsertStmt, sel *pg.SelectStmt, oc *pg.OnConflictClause, spec Spec) (string, error) {
	u, err := upsertMany(in, sel, oc, spec)
	if err != nil {
		return "", err
	}
	writeSQL, err := deparse(&pg.Node{Node: &pg.Node_InsertStmt{InsertStmt: in}})
	if err != nil {
		return "", err
	}
	return lockingForm(with+u.input+",\n", u.lock, u.distinct, writeSQL, spec)
}

// writtenRows is the branch of a fenced write's result that returns the
// written rows: NULL fence_stored and fence_rows, then the write's own
// RETURNING columns.
func writtenRows(spec Spec) string {
	written := "SELECT NULL::bigint AS " + StoredColumn + ", NULL::bigint AS " + RowsColumn
	if spec.Columns > 0 {
		written += ", " + spec.writeCTE() + ".*"
	}
	return written + " FROM " + spec.writeCTE()
}

// fromItem spells rv as a FROM item: [schema.]table [alias], quoted.
func fromItem(rv *pg.RangeVar) string {
	from := sqlparse.QuoteIdent(rv.Relname)
	if rv.Schemaname != "" {
		from = sqlparse.QuoteIdent(rv.Schemaname) + "." + from
	}
	if rv.Alias != nil && rv.Alias.Aliasname != "" {
		from += " " + sqlparse.QuoteIdent(rv.Alias.Aliasname)
	}
	return from
}

// conflictRows returns what selects the existing rows an upsert's ON
// CONFLICT can conflict with: the FROM item (ONLY the table when it has
// INHERITS children, whose rows are not in its unique indexes) and the
// arbiter index's predicate, ON CONFLICT (cols) WHERE <pred>, as
// " AND (<pred>)" or "" (PostgreSQL docs, INSERT, "ON CONFLICT Clause").
func conflictRows(rv *pg.RangeVar, oc *pg.OnConflictClause, spec Spec) (from, pred string, err error) {
	from = fromItem(rv)
	if spec.Inherited {
		from = "ONLY " + from
	}
	if oc.Infer != nil && oc.Infer.WhereClause != nil {
		text, err := deparse(selectNode(&pg.SelectStmt{
			TargetList:  []*pg.Node{pg.MakeResTargetNodeWithVal(pg.MakeAConstIntNode(1, -1), -1)},
			WhereClause: oc.Infer.WhereClause,
			LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT,
			Op:          pg.SetOperation_SETOP_NONE,
		}))
		if err != nil {
			return "", "", err
		}
		pred = " AND (" + strings.TrimPrefix(text, "SELECT 1 WHERE ") + ")"
	}
	return from, pred, nil
}

// guardDoUpdate makes an upsert's DO UPDATE store the presented token and
// apply only when the stored token is beaten (op: "<=" or "<"), and gives
// the insert a RETURNING list if it has none.
//
// With raise set, a row the presented token does not beat makes the whole
// statement fail instead of being skipped (see raisingGuard).
func guardDoUpdate(in *pg.InsertStmt, oc *pg.OnConflictClause, spec Spec, raise bool) error {
	oc.TargetList = append(oc.TargetList, pg.MakeResTargetNodeWithNameAndVal(spec.Column, pg.MakeParamRefNode(int32(spec.Param), -1), -1))
	guard := guardExpr(in.Relation, spec)
	if raise {
		var err error
		if guard, err = raisingGuard(in.Relation, spec); err != nil {
			return err
		}
	}
	oc.WhereClause = and(oc.WhereClause, guard)
	if len(in.ReturningList) == 0 {
		in.ReturningList = []*pg.Node{pg.MakeResTargetNodeWithVal(pg.MakeAConstIntNode(1, -1), -1)}
	}
	return nil
}

// raisingGuard is the guard of an upsert's DO UPDATE that fails the
// statement, instead of skipping the row, when the stored token is not
// beaten:
//
//	CASE WHEN t.tok <= $p THEN true
//	     ELSE ('fencegen: stale token, stored ' || t.tok)::bigint IS NULL END
//
// An upsert of many rows locks and checks the rows it conflicts with
// first, so this branch runs only for a row inserted by a concurrent
// transaction after that check (under READ COMMITTED, ON CONFLICT sees it
// although the statement's snapshot does not); skipping it would write the
// other rows and report success. SQL cannot raise an error by itself
// without a function, and a cast of text that is not a number always
// fails; the text depends on the row, so it is not evaluated before the
// CASE decides (PostgreSQL docs, 4.2.14 "Expression Evaluation Rules").
func raisingGuard(rv *pg.RangeVar, spec Spec) (*pg.Node, error) {
	col := sqlparse.QuoteIdent(relName(rv)) + "." + sqlparse.QuoteIdent(spec.Column)
	t, err := pgpb.Parse(fmt.Sprintf("SELECT 1 WHERE CASE WHEN %s %s $%d THEN true ELSE ('%s' || %s)::bigint IS NULL END",
		col, spec.opSQL(), spec.Param, fenceimpl.StaleCastMarker, col))
	if err != nil {
		return nil, err
	}
	return t.Stmts[0].Stmt.GetSelectStmt().WhereClause, nil
}

// conflictColumns returns the columns of an upsert's conflict target: ON
// CONFLICT (a, b), or the columns of ON CONFLICT ON CONSTRAINT name
// (spec.ConflictColumns, resolved from the catalog).
func conflictColumns(oc *pg.OnConflictClause, spec Spec) ([]string, error) {
	if oc.Infer == nil {
		return nil, fmt.Errorf("a fenced INSERT ... ON CONFLICT DO UPDATE must name its conflict target, ON CONFLICT (col, ...) or ON CONSTRAINT name, so that fencegen can find the rows it would update")
	}
	if oc.Infer.Conname != "" {
		if len(spec.ConflictColumns) == 0 {
			return nil, fmt.Errorf("the columns of constraint %s are unknown", oc.Infer.Conname)
		}
		return spec.ConflictColumns, nil
	}
	var names []string
	for _, ie := range oc.Infer.IndexElems {
		el := ie.GetIndexElem()
		if el == nil || el.Name == "" {
			return nil, fmt.Errorf("a fenced INSERT ... ON CONFLICT DO UPDATE must name plain conflict columns, not expressions")
		}
		names = append(names, el.Name)
	}
	return names, nil
}

// upsertParts are the pieces of a guarded upsert of many rows: the
// fence_input WITH entry (name, columns and query) and the lock query with
// the key fence_check counts distinct rows by.
type upsertParts struct {
	input, lock, distinct string
}

// upsertMany rewrites in (an INSERT ... ON CONFLICT (cols) DO UPDATE) to
// insert the rows of fence_input, gated on fence_check, storing the token
// and with the DO UPDATE guarded, and returns the WITH entries it needs
// (see fenceUpsertMany).
func upsertMany(in *pg.InsertStmt, sel *pg.SelectStmt, oc *pg.OnConflictClause, spec Spec) (*upsertParts, error) {
	names, err := conflictColumns(oc, spec)
	if err != nil {
		return nil, err
	}
	if len(spec.InsertTypes) != len(in.Cols) {
		return nil, fmt.Errorf("the types of the inserted columns are unknown")
	}
	if sel.Op != pg.SetOperation_SETOP_NONE {
		return nil, fmt.Errorf("a fenced INSERT ... ON CONFLICT DO UPDATE of many rows cannot insert a UNION/INTERSECT/EXCEPT yet")
	}
	cols := make([]string, len(in.Cols))
	for i, c := range in.Cols {
		cols[i] = c.GetResTarget().GetName()
	}
	var keyCols []string
	for _, name := range names {
		if !slices.Contains(cols, name) {
			return nil, fmt.Errorf("conflict column %s is not among the inserted columns", name)
		}
		keyCols = append(keyCols, name)
	}
	// Each value cast to its column's type: in a WITH query PostgreSQL
	// would type a bare parameter as text.
	casts := make([]*pg.TypeName, len(spec.InsertTypes))
	for i, typ := range spec.InsertTypes {
		t, err := pgpb.Parse("SELECT NULL::" + typ)
		if err != nil {
			return nil, fmt.Errorf("type %s: %v", typ, err)
		}
		casts[i] = t.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val.GetTypeCast().TypeName
	}
	cast := func(n *pg.Node, i int) (*pg.Node, error) {
		if n.GetSetToDefault() != nil {
			return nil, fmt.Errorf("column %s is given DEFAULT, which a fenced INSERT ... ON CONFLICT DO UPDATE of many rows cannot read from a WITH query: leave the column out", cols[i])
		}
		return &pg.Node{Node: &pg.Node_TypeCast{TypeCast: &pg.TypeCast{Arg: n, TypeName: casts[i], Location: -1}}}, nil
	}
	if len(sel.ValuesLists) > 0 {
		for _, row := range sel.ValuesLists {
			items := row.GetList().Items
			if len(items) != len(cols) {
				return nil, fmt.Errorf("INSERT has %d target columns but a VALUES row has %d values", len(cols), len(items))
			}
			for i, x := range items {
				c, err := cast(x, i)
				if err != nil {
					return nil, err
				}
				items[i] = c
			}
		}
	} else {
		if len(sel.TargetList) != len(cols) {
			return nil, fmt.Errorf("INSERT has %d target columns but the SELECT returns %d", len(cols), len(sel.TargetList))
		}
		for i, x := range sel.TargetList {
			rt := x.GetResTarget()
			if rt == nil || rt.Val.GetColumnRef().GetFields() != nil && rt.Val.GetColumnRef().Fields[len(rt.Val.GetColumnRef().Fields)-1].GetAStar() != nil {
				return nil, fmt.Errorf("a fenced INSERT ... ON CONFLICT DO UPDATE of many rows must list the values it selects, not *")
			}
			c, err := cast(rt.Val, i)
			if err != nil {
				return nil, err
			}
			rt.Val = c
		}
	}
	inputSQL, err := deparse(selectNode(sel))
	if err != nil {
		return nil, err
	}
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = sqlparse.QuoteIdent(c)
	}
	quotedKeys := make([]string, len(keyCols))
	for i, c := range keyCols {
		quotedKeys[i] = sqlparse.QuoteIdent(c)
	}
	p := "$" + fmt.Sprint(spec.Param)

	// The insert reads fence_input, gated on the check.
	gated, err := pgpb.Parse("SELECT " + strings.Join(quoted, ", ") + ", " + p + " FROM " + spec.inputCTE() + " WHERE (SELECT refused FROM " + spec.checkCTE() + ") = 0")
	if err != nil {
		return nil, err
	}
	rv := in.Relation
	in.SelectStmt = gated.Stmts[0].Stmt
	in.Cols = append(in.Cols, pg.MakeResTargetNodeWithName(spec.Column, -1))
	if err := guardDoUpdate(in, oc, spec, true); err != nil {
		return nil, err
	}
	rel := sqlparse.QuoteIdent(relName(rv))
	from, pred, err := conflictRows(rv, oc, spec)
	if err != nil {
		return nil, err
	}
	var lockCols []string
	for i, k := range keyCols {
		lockCols = append(lockCols, fmt.Sprintf("%s.%s AS fence_key_%d", rel, sqlparse.QuoteIdent(k), i+1))
	}
	lockSQL := fmt.Sprintf("SELECT %s, %s.%s AS fence_token FROM %s WHERE (%s) IN (SELECT %s FROM %s)%s ORDER BY %s FOR UPDATE OF %s",
		strings.Join(lockCols, ", "), rel, sqlparse.QuoteIdent(spec.Column), from,
		keyList(rel+".", keyCols), strings.Join(quotedKeys, ", "), spec.inputCTE(), pred, keyList(rel+".", keyCols), rel)
	distinct := lockKeys(len(keyCols))
	if len(keyCols) > 1 {
		distinct = "(" + distinct + ")"
	}
	return &upsertParts{
		input:    spec.inputCTE() + " (" + strings.Join(quoted, ", ") + ") AS (\n    " + inputSQL + "\n)",
		lock:     lockSQL,
		distinct: distinct,
	}, nil
}

// volatileFuncs are functions whose value changes from one call to the
// next (PostgreSQL docs, 38.7 "Function Volatility Categories"; 9.9.5
// "Current Date/Time" and 9.17 "Sequence Manipulation Functions").
var volatileFuncs = map[string]bool{
	"random": true, "gen_random_uuid": true, "uuid_generate_v1": true, "uuid_generate_v1mc": true,
	"uuid_generate_v4": true, "nextval": true, "clock_timestamp": true, "timeofday": true, "setval": true,
}

// repeatable reports, as an error, why the value n of an upsert's conflict
// column cannot be evaluated a second time to the same value: DEFAULT, or
// a call of a volatile function.
func repeatable(n *pg.Node) error {
	if n.GetSetToDefault() != nil {
		return fmt.Errorf("DEFAULT")
	}
	var bad error
	var visit func(x any)
	visit = func(x any) {
		switch v := x.(type) {
		case *pg.Node:
			if v == nil || bad != nil {
				return
			}
			if fc := v.GetFuncCall(); fc != nil {
				names := strs(fc.Funcname)
				if name := names[len(names)-1]; volatileFuncs[name] {
					bad = fmt.Errorf("%s(), a volatile function", name)
					return
				}
				for _, a := range fc.Args {
					visit(a)
				}
				return
			}
			if e := v.GetAExpr(); e != nil {
				visit(e.Lexpr)
				visit(e.Rexpr)
			}
			if tc := v.GetTypeCast(); tc != nil {
				visit(tc.Arg)
			}
			if c := v.GetCoalesceExpr(); c != nil {
				for _, a := range c.Args {
					visit(a)
				}
			}
		}
	}
	visit(n)
	return bad
}

// hoistWith takes the WITH clause off a fenced UPDATE or DELETE (*w) and
// returns the start of the rewritten statement's WITH list: "WITH " alone,
// or "WITH [RECURSIVE] <the statement's entries>, ", so that the guard's
// lock, check and refusal queries see the same entries as the write. An
// entry that writes is refused: it would run even when the fenced write is
// refused, and the write would not be all or nothing.
func hoistWith(w **pg.WithClause, rv *pg.RangeVar) (string, error) {
	with := *w
	if with == nil {
		return "WITH ", nil
	}
	for _, c := range with.Ctes {
		cte := c.GetCommonTableExpr()
		if cte == nil {
			continue
		}
		if err := checkCTEName(cte.Ctename, rv); err != nil {
			return "", err
		}
		if isWrite(cte.Ctequery) {
			return "", fmt.Errorf("WITH entry %s writes: it would run even when the fenced write is refused, so the statement would not be all or nothing; write it as its own query", cte.Ctename)
		}
	}
	*w = nil
	text, err := deparse(selectNode(&pg.SelectStmt{
		WithClause:  with,
		TargetList:  []*pg.Node{pg.MakeResTargetNodeWithVal(pg.MakeAConstIntNode(1, -1), -1)},
		LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT,
		Op:          pg.SetOperation_SETOP_NONE,
	}))
	if err != nil {
		return "", err
	}
	body, ok := strings.CutSuffix(text, " SELECT 1")
	if !ok {
		return "", fmt.Errorf("unexpected deparse of a WITH clause: %s", text)
	}
	return body + ", ", nil
}

// checkCTEName refuses a WITH query name that the guard's own queries
// would misread: fence_* (the guard's WITH queries and result columns),
// and the unqualified name of the fenced table, which the guard's lock and
// refusal queries read FROM by that name.
func checkCTEName(name string, rv *pg.RangeVar) error {
	if strings.HasPrefix(name, "fence_") {
		return fmt.Errorf("WITH query name %s is reserved for fencegen's guard (fence_*): rename it", name)
	}
	if rv != nil && rv.Schemaname == "" && name == rv.Relname {
		return fmt.Errorf("WITH query %s hides table %s from fencegen's guard queries, which read the table by that name: rename the WITH query", name, rv.Relname)
	}
	return nil
}

// withClause returns the WITH clause of a top-level statement.
func withClause(n *pg.Node) **pg.WithClause {
	switch s := n.Node.(type) {
	case *pg.Node_SelectStmt:
		return &s.SelectStmt.WithClause
	case *pg.Node_InsertStmt:
		return &s.InsertStmt.WithClause
	case *pg.Node_UpdateStmt:
		return &s.UpdateStmt.WithClause
	case *pg.Node_DeleteStmt:
		return &s.DeleteStmt.WithClause
	}
	return nil
}

// fenceInWith guards a fenced write that is a data-modifying WITH entry
// (spec.CTE). An INSERT there stores the token. An UPDATE or DELETE is
// guarded all or nothing, as fenceWrite's locking form: fence_lock and
// fence_check join the WITH list just before the write, which is gated on
// the check, and the statement's own result comes back with the refusal row:
//
//	WITH ..., fence_lock AS (...), fence_check AS (...), <cte> AS (<guarded write>), ...
//	SELECT NULL::bigint AS fence_stored, NULL::bigint AS fence_rows, fence_main.*
//	FROM (<the statement's main query>) fence_main
//	UNION ALL
//	SELECT stored, refused, NULL, ... FROM fence_check WHERE refused > 0
//
// A main query that is itself a write becomes one more WITH entry,
// fence_main. When the write refuses, nothing is written, and the one
// refusal row carries the highest stored token.
func fenceInWith(tree *pg.ParseResult, spec Spec, form *Form) (string, error) {
	*form = InWith
	top := tree.Stmts[0].Stmt
	wp := withClause(top)
	if wp == nil || *wp == nil {
		return "", fmt.Errorf("no WITH clause holds %s", spec.CTE)
	}
	with := *wp
	at := -1
	for i, c := range with.Ctes {
		if c.GetCommonTableExpr().GetCtename() == spec.CTE {
			at = i
		}
	}
	if at >= 0 {
		var target *pg.RangeVar
		switch w := with.Ctes[at].GetCommonTableExpr().Ctequery.Node.(type) {
		case *pg.Node_InsertStmt:
			target = w.InsertStmt.Relation
		case *pg.Node_UpdateStmt:
			target = w.UpdateStmt.Relation
		case *pg.Node_DeleteStmt:
			target = w.DeleteStmt.Relation
		}
		if target != nil {
			if err := spec.checkTarget(target); err != nil {
				return "", err
			}
		}
		for _, c := range with.Ctes {
			if err := checkCTEName(c.GetCommonTableExpr().GetCtename(), target); err != nil {
				return "", err
			}
		}
	}
	if at < 0 {
		return "", fmt.Errorf("no WITH entry %s", spec.CTE)
	}
	cte := with.Ctes[at].GetCommonTableExpr()
	var rv *pg.RangeVar
	var from []*pg.Node
	var where *pg.Node
	var upsert *upsertParts
	var hoisted []*pg.Node // the upsert's own WITH entries
	switch w := cte.Ctequery.Node.(type) {
	case *pg.Node_InsertStmt:
		in := w.InsertStmt
		if oc := in.OnConflictClause; oc != nil && oc.Action == pg.OnConflictAction_ONCONFLICT_UPDATE {
			// Guarded as an upsert of many rows: fence_input, fence_lock
			// and fence_check join the WITH list before it.
			sel := in.SelectStmt.GetSelectStmt()
			if sel == nil {
				return "", fmt.Errorf("INSERT ... DEFAULT VALUES cannot carry a fencing token")
			}
			var err error
			if hoisted, err = hoistInner(with, &in.WithClause, in.Relation); err != nil {
				return "", err
			}
			if upsert, err = upsertMany(in, sel, oc, spec); err != nil {
				return "", err
			}
			break
		}
		if len(in.Cols) == 0 {
			return "", fmt.Errorf("an INSERT into a fenced table must list its columns, so that fencegen can add the token column")
		}
		sel := in.SelectStmt.GetSelectStmt()
		if sel == nil {
			return "", fmt.Errorf("INSERT ... DEFAULT VALUES cannot carry a fencing token")
		}
		*form = Store
		if err := storeToken(in, sel, spec); err != nil {
			return "", err
		}
		return pg.Deparse(tree)
	case *pg.Node_UpdateStmt:
		u := w.UpdateStmt
		if len(spec.Key) == 0 {
			return "", fmt.Errorf("the table has no primary key")
		}
		var err error
		if hoisted, err = hoistInner(with, &u.WithClause, u.Relation); err != nil {
			return "", err
		}
		rv, from, where = u.Relation, u.FromClause, u.WhereClause
		extra, err := lockConditions(rv, spec)
		if err != nil {
			return "", err
		}
		u.WhereClause = and(and(where, guardExpr(rv, spec)), extra)
		u.TargetList = append(u.TargetList, pg.MakeResTargetNodeWithNameAndVal(spec.Column, pg.MakeParamRefNode(int32(spec.Param), -1), -1))
	case *pg.Node_DeleteStmt:
		d := w.DeleteStmt
		if len(spec.Key) == 0 {
			return "", fmt.Errorf("the table has no primary key")
		}
		var err error
		if hoisted, err = hoistInner(with, &d.WithClause, d.Relation); err != nil {
			return "", err
		}
		rv, from, where = d.Relation, d.UsingClause, d.WhereClause
		extra, err := lockConditions(rv, spec)
		if err != nil {
			return "", err
		}
		d.WhereClause = and(and(where, guardExpr(rv, spec)), extra)
	default:
		return "", fmt.Errorf("WITH entry %s is not a write", spec.CTE)
	}
	// The lock and check queries, as WITH entries placed before the write.
	var lockSQL, distinctKey, input string
	if upsert != nil {
		lockSQL, distinctKey, input = upsert.lock, upsert.distinct, upsert.input+", "
	} else {
		var err error
		if lockSQL, distinctKey, err = lockQuery(rv, from, where, spec); err != nil {
			return "", err
		}
	}
	helper, err := pgpb.Parse("WITH " + input + spec.lockCTE() + " AS (" + lockSQL + "), " + spec.checkCTE() +
		" AS (" + checkQuery(distinctKey, spec) + ") SELECT 1")
	if err != nil {
		return "", fmt.Errorf("lock query: %v", err)
	}
	ctes := append([]*pg.Node{}, with.Ctes[:at]...)
	ctes = append(ctes, hoisted...)
	ctes = append(ctes, helper.Stmts[0].Stmt.GetSelectStmt().WithClause.Ctes...)
	ctes = append(ctes, with.Ctes[at:]...)
	with.Ctes = ctes
	*wp = nil

	// The main query: a SELECT becomes a subquery, a write one more WITH
	// entry. When the statement writes elsewhere too (another WITH entry,
	// or a main query that writes), a refusal must undo those writes: the
	// refusal row then fails the statement, as the raising guard of an
	// upsert does (see raisingGuard), instead of coming back as a row.
	refusedIf := "refused > 0"
	if otherWrites(with.Ctes, spec.CTE) || top.GetSelectStmt() == nil {
		if spec.Batch {
			return "", fmt.Errorf("the statement writes besides its fenced WITH entry %s, so a refusal fails the whole statement to undo those writes; as a batch item that would roll back the other items too: use :exec, :one or :many", spec.CTE)
		}
		refusedIf = "CASE WHEN refused > 0 THEN ('" + fenceimpl.StaleCastMarker + "' || stored || ', rows ' || refused)::bigint IS NULL ELSE false END"
	}
	shell, err := pgpb.Parse("SELECT NULL::bigint AS " + StoredColumn + ", NULL::bigint AS " + RowsColumn + ", fence_main.* FROM fence_main" +
		" UNION ALL SELECT stored, refused" + strings.Repeat(", NULL", spec.Columns) + " FROM " + spec.checkCTE() + " WHERE " + refusedIf)
	if err != nil {
		return "", err
	}
	out := shell.Stmts[0].Stmt.GetSelectStmt()
	written := out.Larg
	if spec.Columns == 0 {
		written.TargetList = written.TargetList[:2]
	}
	switch top.Node.(type) {
	case *pg.Node_SelectStmt:
		written.FromClause = []*pg.Node{{Node: &pg.Node_RangeSubselect{RangeSubselect: &pg.RangeSubselect{
			Subquery: top, Alias: &pg.Alias{Aliasname: "fence_main"},
		}}}}
	default:
		switch m := top.Node.(type) {
		case *pg.Node_InsertStmt:
			if len(m.InsertStmt.ReturningList) == 0 {
				m.InsertStmt.ReturningList = []*pg.Node{pg.MakeResTargetNodeWithVal(pg.MakeAConstIntNode(1, -1), -1)}
			}
		case *pg.Node_UpdateStmt:
			if len(m.UpdateStmt.ReturningList) == 0 {
				m.UpdateStmt.ReturningList = []*pg.Node{pg.MakeResTargetNodeWithVal(pg.MakeAConstIntNode(1, -1), -1)}
			}
		case *pg.Node_DeleteStmt:
			if len(m.DeleteStmt.ReturningList) == 0 {
				m.DeleteStmt.ReturningList = []*pg.Node{pg.MakeResTargetNodeWithVal(pg.MakeAConstIntNode(1, -1), -1)}
			}
		}
		with.Ctes = append(with.Ctes, &pg.Node{Node: &pg.Node_CommonTableExpr{CommonTableExpr: &pg.CommonTableExpr{
			Ctename: "fence_main", Ctequery: top, Location: -1,
		}}})
	}
	out.WithClause = with
	sql, err := deparse(selectNode(out))
	if err != nil {
		return "", err
	}
	if _, err := pgpb.Parse(sql); err != nil {
		return "", fmt.Errorf("rewritten statement does not parse: %v", err)
	}
	return sql, nil
}

// hoistInner takes the WITH clause *w off the fenced write (an upsert,
// UPDATE or DELETE of table rv) that is an entry of WITH clause outer, and
// returns its entries, which the caller places in outer ahead of the
// guard's queries: fence_input and fence_lock read the write's rows there,
// where an entry of the write's own WITH is not visible.
// An entry that writes is refused (it would run even when the write is
// refused), and so is a name that the guard reserves, that hides the
// fenced table, or that outer already holds (moved into outer, the entry
// would clash with it or change what the other entries read); a RECURSIVE
// clause is refused unless outer is RECURSIVE too, since making outer
// RECURSIVE would change what its own entries see.
func hoistInner(outer *pg.WithClause, w **pg.WithClause, rv *pg.RangeVar) ([]*pg.Node, error) {
	inner := *w
	if inner == nil {
		return nil, nil
	}
	if inner.Recursive && !outer.Recursive {
		return nil, fmt.Errorf("the fenced write's own WITH RECURSIVE clause cannot join the statement's WITH clause, which is not RECURSIVE: write WITH RECURSIVE at the top of the statement and move the entries there")
	}
	names := map[string]bool{}
	for _, c := range outer.Ctes {
		names[c.GetCommonTableExpr().GetCtename()] = true
	}
	for _, c := range inner.Ctes {
		cte := c.GetCommonTableExpr()
		if cte == nil {
			continue
		}
		if err := checkCTEName(cte.Ctename, rv); err != nil {
			return nil, err
		}
		if names[cte.Ctename] {
			return nil, fmt.Errorf("the fenced write's own WITH entry %s has the name of an entry of the statement's WITH clause, which the guard merges them into: rename one", cte.Ctename)
		}
		if isWrite(cte.Ctequery) {
			return nil, fmt.Errorf("WITH entry %s writes: it would run even when the fenced write is refused, so the statement would not be all or nothing; write it as its own query", cte.Ctename)
		}
	}
	*w = nil
	return inner.Ctes, nil
}

// otherWrites reports whether a WITH entry other than the fenced one
// (name) writes.
func otherWrites(ctes []*pg.Node, name string) bool {
	for _, c := range ctes {
		cte := c.GetCommonTableExpr()
		if cte == nil || cte.Ctename == name {
			continue
		}
		if isWrite(cte.Ctequery) {
			return true
		}
	}
	return false
}

// isWrite reports whether n is a data-modifying statement.
func isWrite(n *pg.Node) bool {
	switch n.Node.(type) {
	case *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt, *pg.Node_MergeStmt:
		return true
	}
	return false
}

// lockQuery is the text of the lock query of a locking-form write and the
// key expression fence_check counts distinct rows by. The lock query names
// its columns fence_key_<i> and fence_token, so that no table column name
// can make a reference ambiguous; a join in FROM/USING can match one
// target row several times, so fence_check counts each key once.
func lockQuery(rv *pg.RangeVar, from []*pg.Node, where *pg.Node, spec Spec) (string, string, error) {
	target := &pg.RangeVar{Schemaname: rv.Schemaname, Relname: rv.Relname, Inh: rv.Inh, Relpersistence: "p", Alias: rv.Alias, Location: -1}
	var targets []*pg.Node
	for i, k := range spec.Key {
		targets = append(targets, pg.MakeResTargetNodeWithNameAndVal(fmt.Sprintf("fence_key_%d", i+1), colRef(relName(rv), k), -1))
	}
	targets = append(targets, pg.MakeResTargetNodeWithNameAndVal("fence_token", colRef(relName(rv), spec.Column), -1))
	inherited := spec.Inherited && rv.Inh
	if inherited {
		// A parent's row and a child's may share a key, and a child
		// without a primary key may hold it twice: count rows by table and
		// row address instead.
		targets = append(targets,
			pg.MakeResTargetNodeWithNameAndVal("fence_rel", colRef(relName(rv), "tableoid"), -1),
			pg.MakeResTargetNodeWithNameAndVal("fence_row", colRef(relName(rv), "ctid"), -1))
	}
	// Locked in key order, so that two fenced writes of overlapping rows
	// take their locks in the same order instead of deadlocking.
	var order []*pg.Node
	for _, k := range spec.Key {
		order = append(order, &pg.Node{Node: &pg.Node_SortBy{SortBy: &pg.SortBy{Node: colRef(relName(rv), k), Location: -1}}})
	}
	lock := &pg.SelectStmt{
		TargetList:  targets,
		FromClause:  append([]*pg.Node{{Node: &pg.Node_RangeVar{RangeVar: target}}}, from...),
		WhereClause: where,
		SortClause:  order,
		LockingClause: []*pg.Node{{Node: &pg.Node_LockingClause{LockingClause: &pg.LockingClause{
			Strength:   pg.LockClauseStrength_LCS_FORUPDATE,
			WaitPolicy: pg.LockWaitPolicy_LockWaitBlock,
			LockedRels: []*pg.Node{{Node: &pg.Node_RangeVar{RangeVar: &pg.RangeVar{Relname: relName(rv), Inh: true, Relpersistence: "p", Location: -1}}}},
		}}}},
		LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT,
		Op:          pg.SetOperation_SETOP_NONE,
	}
	sql, err := deparse(selectNode(lock))
	distinct := lockKeys(len(spec.Key))
	if inherited {
		distinct = "fence_rel, fence_row"
	}
	if len(spec.Key) > 1 || inherited {
		distinct = "(" + distinct + ")"
	}
	return sql, distinct, err
}

// byKey is the two-statement form of a fenced UPDATE or DELETE whose WHERE
// clause pins the whole primary key (see pinsKey): the guarded write alone,
// which is all the success path sends, and a statement that reads the
// stored token, sent only when the write touched no row.
type byKey struct {
	// Write is the guarded UPDATE or DELETE, with the query's RETURNING
	// list or RETURNING 1.
	Write string
	// Stored is SELECT <token> FROM <table> WHERE <the write's WHERE>, its
	// parameters renumbered from $1.
	Stored string
	// StoredParams lists, for each parameter of Stored in order, the number
	// of the write's parameter it stands for.
	StoredParams []int
}

// fenceByKey returns the two-statement form of a fenced UPDATE or DELETE
// that matches at most one row, or nil when the write is not pinned by its
// primary key (then fenceWrite's one-statement forms apply). One row
// cannot be written in part; a write that touched nothing is classified by
// Stored: no row is "not found", a row whose token the presented one does
// not beat is stale, and a row whose token it beats was changed
// concurrently, so the write is tried again (fenceimpl.WriteByKey).
func fenceByKey(sql string, spec Spec) (*byKey, error) {
	if spec.CTE != "" {
		return nil, nil
	}
	tree, err := pgpb.Parse(sql)
	if err != nil {
		return nil, err
	}
	if len(tree.Stmts) != 1 {
		return nil, fmt.Errorf("expected one statement, got %d", len(tree.Stmts))
	}
	var rv *pg.RangeVar
	var where *pg.Node
	switch s := tree.Stmts[0].Stmt.Node.(type) {
	case *pg.Node_UpdateStmt:
		u := s.UpdateStmt
		if u.WithClause != nil || len(u.FromClause) > 0 || !spec.keyUnique(u.Relation) || !pinsKey(u.Relation, u.WhereClause, spec.Key) {
			return nil, nil
		}
		rv, where = u.Relation, u.WhereClause
		u.WhereClause = and(where, guardExpr(rv, spec))
		u.TargetList = append(u.TargetList, pg.MakeResTargetNodeWithNameAndVal(spec.Column, pg.MakeParamRefNode(int32(spec.Param), -1), -1))
		if len(u.ReturningList) == 0 {
			u.ReturningList = []*pg.Node{pg.MakeResTargetNodeWithVal(pg.MakeAConstIntNode(1, -1), -1)}
		}
	case *pg.Node_DeleteStmt:
		d := s.DeleteStmt
		if d.WithClause != nil || len(d.UsingClause) > 0 || !spec.keyUnique(d.Relation) || !pinsKey(d.Relation, d.WhereClause, spec.Key) {
			return nil, nil
		}
		rv, where = d.Relation, d.WhereClause
		d.WhereClause = and(where, guardExpr(rv, spec))
		if len(d.ReturningList) == 0 {
			d.ReturningList = []*pg.Node{pg.MakeResTargetNodeWithVal(pg.MakeAConstIntNode(1, -1), -1)}
		}
	default:
		return nil, nil
	}
	if err := spec.checkTarget(rv); err != nil {
		return nil, err
	}
	write, err := deparse(tree.Stmts[0].Stmt)
	if err != nil {
		return nil, err
	}
	filter, err := storedFilter(rv, where, spec)
	if err != nil {
		return nil, err
	}
	target := &pg.RangeVar{Schemaname: rv.Schemaname, Relname: rv.Relname, Inh: rv.Inh, Relpersistence: "p", Alias: rv.Alias, Location: -1}
	stored, err := deparse(selectNode(&pg.SelectStmt{
		TargetList:  []*pg.Node{pg.MakeResTargetNodeWithVal(colRef(relName(rv), spec.Column), -1)},
		FromClause:  []*pg.Node{{Node: &pg.Node_RangeVar{RangeVar: target}}},
		WhereClause: filter,
		LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT,
		Op:          pg.SetOperation_SETOP_NONE,
	}))
	if err != nil {
		return nil, err
	}
	stored, params, err := renumberParams(stored)
	if err != nil {
		return nil, err
	}
	for _, s := range []string{write, stored} {
		if _, err := pgpb.Parse(s); err != nil {
			return nil, fmt.Errorf("rewritten statement does not parse: %v", err)
		}
	}
	return &byKey{Write: write, Stored: stored, StoredParams: params}, nil
}

// renumberParams renames the $n parameters of sql to $1, $2, ... in order
// of first appearance (PostgreSQL's scanner finds them, so text in quotes
// is left alone) and returns the original number of each.
func renumberParams(sql string) (string, []int, error) {
	scan, err := pgpb.Scan(sql)
	if err != nil {
		return "", nil, err
	}
	index := map[int]int{}
	var order []int
	type span struct{ start, end, n int }
	var spans []span
	for _, t := range scan.Tokens {
		if t.Token != pg.Token_PARAM {
			continue
		}
		var n int
		if _, err := fmt.Sscanf(sql[t.Start+1:t.End], "%d", &n); err != nil {
			return "", nil, err
		}
		if _, ok := index[n]; !ok {
			order = append(order, n)
			index[n] = len(order)
		}
		spans = append(spans, span{int(t.Start), int(t.End), index[n]})
	}
	out := []byte(sql)
	for i := len(spans) - 1; i >= 0; i-- {
		s := spans[i]
		out = append(out[:s.start], append([]byte(fmt.Sprintf("$%d", s.n)), out[s.end:]...)...)
	}
	return string(out), order, nil
}

// storeToken makes an INSERT store the presented token: the token column
// joins the column list, and the token parameter every VALUES row or the
// SELECT list.
func storeToken(in *pg.InsertStmt, sel *pg.SelectStmt, spec Spec) error {
	token := func() *pg.Node { return pg.MakeParamRefNode(int32(spec.Param), -1) }
	switch {
	case len(sel.ValuesLists) > 0:
		for _, row := range sel.ValuesLists {
			l := row.GetList()
			l.Items = append(l.Items, token())
		}
	case sel.Op == pg.SetOperation_SETOP_NONE:
		sel.TargetList = append(sel.TargetList, pg.MakeResTargetNodeWithVal(token(), -1))
	default:
		// UNION/INTERSECT/EXCEPT: SELECT fence_src.*, $p FROM (<it>) fence_src.
		in.SelectStmt = selectNode(&pg.SelectStmt{
			TargetList: []*pg.Node{
				pg.MakeResTargetNodeWithVal(pg.MakeColumnRefNode([]*pg.Node{pg.MakeStrNode("fence_src"), pg.MakeAStarNode()}, -1), -1),
				pg.MakeResTargetNodeWithVal(token(), -1),
			},
			FromClause: []*pg.Node{{Node: &pg.Node_RangeSubselect{RangeSubselect: &pg.RangeSubselect{
				Subquery: selectNode(sel), Alias: &pg.Alias{Aliasname: "fence_src"},
			}}}},
			LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT,
			Op:          pg.SetOperation_SETOP_NONE,
		})
	}
	in.Cols = append(in.Cols, pg.MakeResTargetNodeWithName(spec.Column, -1))
	return nil
}

// strs returns the string values of nodes (a name's parts), "*" for a
// star.
func strs(nodes []*pg.Node) []string {
	var out []string
	for _, n := range nodes {
		if s := n.GetString_(); s != nil {
			out = append(out, s.Sval)
		} else if n.GetAStar() != nil {
			out = append(out, "*")
		}
	}
	return out
}
