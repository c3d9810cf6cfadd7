package mysqlwrites

import (
	"reflect"
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
)

// visitor collects one statement's own effects (ast.Visitor).
type visitor struct {
	a    *analysis
	e    *effects
	toks []token // the statement's text, for the locations of names
	base int
	top  bool
	// root is the statement walked; direct is set while the visitor is
	// at root itself (a statement under EXPLAIN or TRACE is not the
	// statement's own write).
	root   ast.StmtNode
	direct bool
	// seen holds the address of every node Enter saw (checkUnvisited).
	seen map[uintptr]bool
	// procs are the FuncCallExprs that are CALL's procedure.
	procs map[*ast.FuncCallExpr]bool
}

// loc is the file offset of name in the statement, or the statement's.
func (v *visitor) loc(name string) int {
	if p := findName(v.toks, name, 0); p >= 0 {
		return v.base + p
	}
	return v.base
}

func (v *visitor) refuse(kind, reason string) {
	v.e.refusals = append(v.e.refusals, Refusal{Kind: kind, Reason: reason, Loc: v.base})
}

func (v *visitor) write(verb string, t *ast.TableName, events []string, set func(*Write)) {
	if t == nil || t.Name.L == "" {
		return
	}
	w := Write{Verb: verb, Table: t.Name.L, Events: events, Direct: v.direct, Loc: v.loc(t.Name.O)}
	if v.top && !v.direct {
		w.Via = "the statement " + kindOf(v.root) + " runs"
	}
	if set != nil {
		set(&w)
	}
	v.e.writes = append(v.e.writes, w)
}

// Enter implements ast.Visitor.
func (v *visitor) Enter(n ast.Node) (ast.Node, bool) {
	if n == nil {
		return n, false
	}
	if rv := reflect.ValueOf(n); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		v.seen[rv.Pointer()] = true
	}
	if st, ok := n.(ast.StmtNode); ok {
		v.stmt(st)
	}
	switch x := n.(type) {
	case *ast.FuncCallExpr:
		if v.procs[x] {
			break
		}
		name := x.FnName.L
		if v.a.sc.Routines[name] != nil {
			v.e.calls = append(v.e.calls, call{name: name, loc: v.loc(x.FnName.O)})
		}
	case *ast.TableName:
		if v.a.sc.Views[x.Name.L] != nil {
			v.e.views = append(v.e.views, call{name: x.Name.L, loc: v.loc(x.Name.O)})
		}
	}
	return n, false
}

// lenient names the modifier of an INSERT, UPDATE or DELETE that keeps
// its errors from failing it (Write.Lenient): IGNORE, which downgrades
// them to warnings (MySQL manual, "The Effect of IGNORE on Statement
// Execution"), or DELAYED, whose rows MySQL 5.x and MariaDB may queue and
// write after the statement has returned. LOW_PRIORITY, HIGH_PRIORITY
// and QUICK change when the write runs or how an index is purged, not
// what it writes or whether it fails.
func lenient(ignore bool, p mysql.PriorityEnum) string {
	switch {
	case ignore:
		return "IGNORE"
	case p == mysql.DelayedPriority:
		return "DELAYED"
	}
	return ""
}

// Leave implements ast.Visitor.
func (v *visitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// stmt records what statement st writes itself.
func (v *visitor) stmt(st ast.StmtNode) {
	v.direct = v.top && st == v.root
	kind := kindOf(st)
	switch cl := Classes[kind]; cl {
	case Unclassified:
		v.refuse(kind, "is a statement (the parser's "+kind+") that fencegen's write analysis does not classify, so it cannot show that it writes no fenced table; write the query without it")
		return
	case Refused:
		r := reasons[kind]
		if r == "" {
			r = "is a statement (the parser's " + kind + ") that fencegen does not analyse for writes, so it cannot show that it writes no fenced table; run it outside the generated code"
		}
		v.refuse(kind, r)
		return
	}
	switch x := st.(type) {
	case *ast.InsertStmt:
		verb, events := "INSERT", []string{"INSERT"}
		if x.IsReplace {
			// REPLACE deletes the rows whose keys the new ones take,
			// then inserts (MySQL docs, REPLACE).
			verb, events = "REPLACE", []string{"INSERT", "UPDATE", "DELETE"}
		}
		if len(x.OnDuplicate) > 0 {
			events = []string{"INSERT", "UPDATE"}
		}
		for _, t := range refTables(x.Table) {
			v.write(verb, t.name, events, func(w *Write) {
				if !x.IsReplace {
					w.Set = assigned(x.OnDuplicate)
				}
				w.Upsert = len(x.OnDuplicate) > 0
				w.Select = x.Select != nil
				w.Lenient = lenient(x.IgnoreErr, x.Priority)
			})
		}
	case *ast.UpdateStmt:
		tables := refTables(x.TableRefs)
		mod := func(w *Write) { w.Lenient = lenient(x.IgnoreErr, x.Priority) }
		if !x.MultipleTable && len(tables) == 1 {
			v.write("UPDATE", tables[0].name, []string{"UPDATE"}, func(w *Write) { w.Set = assigned(x.List); mod(w) })
			return
		}
		for _, t := range v.updated(tables, x.List) {
			v.write("UPDATE", t, []string{"UPDATE"}, func(w *Write) { w.Multi = true; mod(w) })
		}
	case *ast.DeleteStmt:
		tables := refTables(x.TableRefs)
		mod := func(w *Write) { w.Lenient = lenient(x.IgnoreErr, x.Priority) }
		if !x.IsMultiTable && len(tables) == 1 {
			v.write("DELETE", tables[0].name, []string{"DELETE"}, mod)
			return
		}
		if x.Tables == nil {
			for _, t := range tables {
				v.write("DELETE", t.name, []string{"DELETE"}, func(w *Write) { w.Multi = true; mod(w) })
			}
			return
		}
		for _, d := range x.Tables.Tables {
			ts := resolve(tables, d.Name.L)
			if !slices.ContainsFunc(tables, func(t refTable) bool { return t.alias == d.Name.L || t.name.Name.L == d.Name.L }) {
				// A target that names no table of the FROM list is an
				// error on MySQL (1109), but MariaDB reads DELETE HISTORY
				// FROM t, which the parser takes for a DELETE of a table
				// history, as deleting t's history rows: it counts as a
				// DELETE of every table of the FROM list.
				for _, t := range tables {
					ts = append(ts, t.name)
				}
			}
			for _, t := range ts {
				v.write("DELETE", t, []string{"DELETE"}, func(w *Write) { w.Multi = true; mod(w) })
			}
		}
	case *ast.LoadDataStmt:
		events := []string{"INSERT"}
		if x.OnDuplicate == ast.OnDuplicateKeyHandlingReplace {
			events = []string{"INSERT", "UPDATE", "DELETE"}
		}
		v.write("LOAD DATA", x.Table, events, nil)
	case *ast.TruncateTableStmt:
		// TRUNCATE fires no DELETE triggers (MySQL docs, TRUNCATE TABLE).
		v.write("TRUNCATE", x.Table, nil, nil)
	case *ast.CallStmt:
		if x.Procedure == nil {
			v.refuse(kind, "CALLs a procedure fencegen cannot name")
			return
		}
		if v.procs == nil {
			v.procs = map[*ast.FuncCallExpr]bool{}
		}
		v.procs[x.Procedure] = true
		v.e.calls = append(v.e.calls, call{name: x.Procedure.FnName.L, procedure: true, loc: v.loc(x.Procedure.FnName.O)})
	case *ast.CreateTableStmt:
		v.write("CREATE TABLE", x.Table, nil, func(w *Write) { w.Select = x.Select != nil })
	case *ast.AlterTableStmt:
		v.write("ALTER TABLE", x.Table, nil, nil)
		for _, s := range x.Specs {
			if s.NewTable != nil {
				v.write("ALTER TABLE", s.NewTable, nil, nil)
			}
		}
	case *ast.DropTableStmt:
		verb := "DROP TABLE"
		if x.IsView {
			verb = "DROP VIEW"
		}
		for _, t := range x.Tables {
			v.write(verb, t, nil, nil)
		}
	case *ast.RenameTableStmt:
		for _, tt := range x.TableToTables {
			v.write("RENAME TABLE", tt.OldTable, nil, nil)
			v.write("RENAME TABLE", tt.NewTable, nil, nil)
		}
	case *ast.CreateIndexStmt:
		v.write("CREATE INDEX", x.Table, nil, nil)
	case *ast.DropIndexStmt:
		v.write("DROP INDEX", x.Table, nil, nil)
	case *ast.OptimizeTableStmt:
		for _, t := range x.Tables {
			v.write("OPTIMIZE TABLE", t, nil, nil)
		}
	case *ast.CreateSequenceStmt:
		v.write("CREATE SEQUENCE", x.Name, nil, nil)
	case *ast.AlterSequenceStmt:
		v.write("ALTER SEQUENCE", x.Name, nil, nil)
	case *ast.DropSequenceStmt:
		for _, t := range x.Sequences {
			v.write("DROP SEQUENCE", t, nil, nil)
		}
	}
}

// refTable is a base table of a FROM (or UPDATE, DELETE, INSERT INTO)
// clause and the name it goes by (its alias, or its own name).
type refTable struct {
	name  *ast.TableName
	alias string
}

// refTables are the base tables of a table reference clause, outside
// subqueries.
func refTables(c *ast.TableRefsClause) []refTable {
	if c == nil || c.TableRefs == nil {
		return nil
	}
	var out []refTable
	var walk func(n ast.ResultSetNode)
	walk = func(n ast.ResultSetNode) {
		switch x := n.(type) {
		case *ast.Join:
			if x.Left != nil {
				walk(x.Left)
			}
			if x.Right != nil {
				walk(x.Right)
			}
		case *ast.TableSource:
			if t, ok := x.Source.(*ast.TableName); ok {
				alias := t.Name.L
				if x.AsName.L != "" {
					alias = x.AsName.L
				}
				out = append(out, refTable{name: t, alias: alias})
			} else if j, ok := x.Source.(*ast.Join); ok {
				walk(j)
			}
		case *ast.TableName:
			out = append(out, refTable{name: x, alias: x.Name.L})
		}
	}
	walk(c.TableRefs)
	return out
}

// resolve are the tables a multi-table DELETE's target name (an alias or
// a table's name) may be: every table going by that name, or, when none
// does, a table of that name.
func resolve(tables []refTable, name string) []*ast.TableName {
	var out []*ast.TableName
	for _, t := range tables {
		if t.alias == name {
			out = append(out, t.name)
		}
	}
	if len(out) == 0 {
		for _, t := range tables {
			if t.name.Name.L == name {
				out = append(out, t.name)
			}
		}
	}
	if len(out) == 0 {
		out = append(out, &ast.TableName{Name: ast.NewCIStr(name)})
	}
	return out
}

// updated are the tables a multi-table UPDATE assigns columns of: a
// qualified column's table; for an unqualified one, every table that has
// the column, or every table when the schema does not say.
func (v *visitor) updated(tables []refTable, list []*ast.Assignment) []*ast.TableName {
	var out []*ast.TableName
	seen := map[*ast.TableName]bool{}
	add := func(t *ast.TableName) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, as := range list {
		if as.Column == nil {
			continue
		}
		if q := as.Column.Table.L; q != "" {
			for _, t := range resolve(tables, q) {
				add(t)
			}
			continue
		}
		found := false
		for _, t := range tables {
			if st := v.a.sc.Tables[t.name.Name.L]; st != nil {
				for _, c := range st.Columns {
					if c == as.Column.Name.L {
						add(t.name)
						found = true
					}
				}
			}
		}
		if !found {
			for _, t := range tables {
				add(t.name)
			}
		}
	}
	return out
}

// checkUnvisited refuses the statement when its tree holds a node that
// can run or write something (a statement, a subquery, a table or view
// name, a function call) that the parser's Accept methods did not hand
// to the visitor: what it runs would go unseen. The walk goes through
// every field by reflection, unvisited nodes included.
func (v *visitor) checkUnvisited(st ast.StmtNode) {
	walked := map[uintptr]bool{}
	var missed string
	var walk func(rv reflect.Value, depth int)
	walk = func(rv reflect.Value, depth int) {
		if missed != "" || depth > 400 {
			return
		}
		switch rv.Kind() {
		case reflect.Pointer:
			if rv.IsNil() {
				return
			}
			p := rv.Pointer()
			if walked[p] {
				return
			}
			walked[p] = true
			if active(rv.Type()) && !v.seen[p] {
				missed = rv.Type().Elem().Name()
				return
			}
			walk(rv.Elem(), depth+1)
		case reflect.Interface:
			if !rv.IsNil() {
				walk(rv.Elem(), depth+1)
			}
		case reflect.Struct:
			if skipStruct(rv.Type()) {
				return
			}
			for i := 0; i < rv.NumField(); i++ {
				walk(rv.Field(i), depth+1)
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < rv.Len(); i++ {
				walk(rv.Index(i), depth+1)
			}
		}
	}
	walk(reflect.ValueOf(st), 0)
	if missed != "" {
		v.refuse(kindOf(st), "holds a node (the parser's "+missed+") that the parser's visitor does not reach, so fencegen cannot show that what it runs writes no fenced table; write the query without it")
	}
}

var (
	stmtType     = reflect.TypeOf((*ast.StmtNode)(nil)).Elem()
	funcCallType = reflect.TypeOf((*ast.FuncCallExpr)(nil))
	tableType    = reflect.TypeOf((*ast.TableName)(nil))
	subqueryType = reflect.TypeOf((*ast.SubqueryExpr)(nil))
)

// active node types may run or write something: statements, subqueries,
// table (or view) names and function calls.
func active(t reflect.Type) bool {
	return t == funcCallType || t == tableType || t == subqueryType || t.Implements(stmtType)
}

// skipStruct: value types of the parser that hold no nodes (field
// types, charsets) and the sync package's.
func skipStruct(t reflect.Type) bool {
	return t.PkgPath() == "github.com/pingcap/tidb/pkg/parser/types" || t.PkgPath() == "sync"
}

// assigned are the columns list assigns (lower-case), nil when it is
// empty or one is not a plain column.
func assigned(list []*ast.Assignment) []string {
	var cols []string
	for _, a := range list {
		if a.Column == nil || a.Column.Name.L == "" {
			return nil
		}
		cols = append(cols, a.Column.Name.L)
	}
	return cols
}
