package analyze

// MySQL statements (Options.MySQL): the same analysis over the statements
// mysqlparse converts from the TiDB parser's tree, with MySQL's
// placeholders; writes that may reach a fenced table go through the MySQL
// write analysis (mysqlwrites.go) and guard stage (mysqlguard.go).

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	tidb "github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/catalog/pgcatalog"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/sqlparse/mysqlparse"
)

// quoteIdent quotes an identifier written into the statement sent (an
// expanded star), as sqlc quotes it for the engine.
func (a *analyzer) quoteIdent(s string) string {
	if a.opts.MySQL {
		return mysqlparse.QuoteIdent(s)
	}
	return sqlparse.QuoteIdent(s)
}

// numberMySQLParams records MySQL's parameters: each ? and each
// sqlc.arg/narg/slice is one placeholder, numbered in text order by
// mysqlparse (MySQL binds them by position, so a name used twice is two
// parameters, as in sqlc). Named ones are sent as ?, an IN
// (sqlc.slice(x)) list as sqlc's /*SLICE:x*/? marker, which the generated
// code expands.
func (a *analyzer) numberMySQLParams(all []*sqlparse.Param) (string, error) {
	inList := inListSlices(a.stmt.Node)
	slices.SortFunc(all, func(x, y *sqlparse.Param) int { return x.Number - y.Number })
	// As sqlc, one name is one parameter of the method, sent for each of
	// its placeholders (Query.Placeholders).
	byName := map[string]int{}
	next, repeated := 1, false
	var order []int
	for _, p := range all {
		if p.Name != "" {
			if n, ok := byName[p.Name]; ok {
				p.Number, repeated = n, true
				order = append(order, n)
				continue
			}
			byName[p.Name] = next
		}
		p.Number = next
		order = append(order, next)
		next++
	}
	if repeated {
		a.placeholders = order
	}
	a.mysqlParams = all
	for _, p := range all {
		pr := a.useParam(p)
		switch {
		case inList[p]:
			pr.InList = true
			line, col := diag.Position(a.file.Src, p.Loc)
			a.inSlices = append(a.inSlices, InSlice{Name: p.Name, Number: p.Number, Line: line, Col: col})
			a.edits = append(a.edits, edit{p.Loc, p.End, SliceMarker(p.Name)})
		case p.Name != "":
			a.edits = append(a.edits, edit{p.Loc, p.End, "?"})
		}
	}
	return "", nil
}

// mysqlFenced refuses, while the schema has a fenced table, every MySQL
// statement that may write one other than the fenced table's own write
// (left to the guard stage): it stands in for the MySQL write analysis
// (mysqlWrites) when the schema's facts were not read (no
// Options.MySQLSchema). A SELECT, and an INSERT, UPDATE or DELETE of one
// table that is neither fenced nor a view nor the parent of a fenced
// table by a foreign-key action, pass when the schema defines no trigger
// or routine (CREATE TRIGGER, PROCEDURE or FUNCTION, which fencegen does
// not read on MySQL yet). It reports whether the statement was refused.
func (a *analyzer) mysqlFenced(q *Query) bool {
	refuse := func(format string, args ...any) bool {
		a.errorf(a.stmt.Start, "query %s: "+format+"; fencegen does not generate a MySQL write that may reach a fenced table unguarded", append([]any{q.Name}, args...)...)
		return true
	}
	if a.cat.MySQLRoutines != "" {
		if _, ok := a.stmt.Node.(*sqlparse.Select); !ok || mysqlCallsFunc(a.stmt.Node) {
			return refuse("the schema defines %s, whose writes fencegen does not analyse on MySQL", a.cat.MySQLRoutines)
		}
	}
	target := func(n sqlparse.Name, op string) bool {
		t := a.cat.Table(n.Schema, n.Name)
		switch {
		case t == nil:
			return false // the analysis reports it
		// A write of the fenced table itself goes to the guard stage
		// (mysqlGuardStage, package mysqlguard), which guards it or
		// refuses it at the statement; its foreign-key actions are
		// checked below.
		case t.IsView:
			return refuse("%s through view %s, which writes its base tables", op, t.QualifiedName())
		}
		if op != "INSERT" {
			for _, c := range a.cat.Cascades(t, map[string]string{"UPDATE": "update", "DELETE": "delete"}[op], nil) {
				return refuse("%s of %s reaches fenced table %s by a foreign-key action (%s)", op, t.QualifiedName(), c.Table.QualifiedName(), c.Path)
			}
		}
		return false
	}
	switch n := a.stmt.Node.(type) {
	case *sqlparse.Select:
		switch a.stmt.MySQL.(type) {
		case *tidb.UpdateStmt, *tidb.DeleteStmt:
			// A multi-table write, read as a SELECT for its parameters
			// (mysqlparse's multiTable).
			return refuse("a multi-table write is not classified by fencegen's MySQL analysis without the schema's facts")
		}
		return false
	case *sqlparse.Insert:
		if n.OnConflict != nil {
			if t := a.cat.Table(n.Table.Schema, n.Table.Name); t != nil && !t.IsView {
				if cs := a.cat.Cascades(t, "update", nil); len(cs) > 0 {
					return refuse("INSERT ... ON DUPLICATE KEY UPDATE of %s reaches fenced table %s by a foreign-key action (%s)", t.QualifiedName(), cs[0].Table.QualifiedName(), cs[0].Path)
				}
			}
		}
		return target(n.Table, "INSERT")
	case *sqlparse.Update:
		return target(n.Table, "UPDATE")
	case *sqlparse.Delete:
		return target(n.Table, "DELETE")
	case *sqlparse.Unknown:
		return refuse("%s statement is not classified by fencegen's MySQL analysis", diag.A(n.Kind))
	}
	return refuse("a %T statement is not classified by fencegen's MySQL analysis", a.stmt.Node)
}

// mysqlCallsFunc reports whether n calls a function (a stored function
// may write).
func mysqlCallsFunc(n sqlparse.Node) bool {
	found := false
	walk(n, func(x sqlparse.Node) {
		if _, ok := x.(*sqlparse.FuncCall); ok {
			found = true
		}
	})
	return found
}

// mysqlFunc is one overload of sqlc's MySQL function catalog
// (mysqlfuncs.go).
type mysqlFunc struct {
	args     []mysqlArg
	ret      string
	nullable bool
}

// mysqlArg is an argument of a mysqlFunc.
type mysqlArg struct {
	typ             string
	variadic, deflt bool
}

// mysqlFuncs is mysqlFuncTable, built on first use: a PostgreSQL run
// never builds it.
var mysqlFuncs = sync.OnceValue(mysqlFuncTable)

// resolveMySQLFunc is sqlc's ResolveFuncCall over its MySQL catalog: the
// first overload of name that takes n arguments, or nil.
func resolveMySQLFunc(name string, n int) *mysqlFunc {
	fns := mysqlFuncs()[strings.ToLower(name)]
	for i, fn := range fns {
		defaults, variadic := 0, false
		for _, a := range fn.args {
			if a.deflt {
				defaults++
			}
			if a.variadic {
				variadic = true
				defaults++
			}
		}
		if n < len(fn.args)-defaults || (!variadic && n > len(fn.args)) {
			continue
		}
		return &fns[i]
	}
	return nil
}

// mysqlFuncCall types a call of a MySQL function as sqlc does: the
// overload resolveMySQLFunc finds types the parameters passed to it
// (named after the function) and the result (NOT NULL unless sqlc's
// catalog says otherwise); a function sqlc's catalog does not have, or
// one returning any, is untyped (interface{}).
func (a *analyzer) mysqlFuncCall(sc *scope, f *sqlparse.FuncCall) (value, []value, *pgcatalog.Func) {
	n := len(f.Args)
	if f.Star {
		n = 0
	}
	if strings.EqualFold(f.Func.Schema, "sqlc") {
		// sqlc.arg, narg, slice and embed are read by the parser: what
		// is left is a mistake, which sqlc refuses (validate.SqlcFunctions:
		// an unknown sqlc.<name> without a position, so at the
		// statement; a malformed call at the call).
		switch name := strings.ToLower(f.Func.Name); {
		case name != "arg" && name != "narg" && name != "slice" && name != "embed":
			a.sqlcStmtErrorf("function %q does not exist", "sqlc."+f.Func.Name)
		case len(f.Args) != 1:
			a.errorf(f.Loc, "expected 1 parameter to sqlc.%s; got %d", name, len(f.Args))
		default:
			a.errorf(f.Loc, "expected parameter to sqlc.%s to be string or reference", name)
		}
	}
	// DATE_ADD(d, INTERVAL x unit) and DATE_SUB are, in sqlc's
	// converter, a call of two arguments, d and an interval expression
	// holding x: a parameter x is neither named after the function nor
	// typed by it.
	interval := -1
	if name := strings.ToLower(f.Func.Name); (name == "date_add" || name == "date_sub") && len(f.Args) == 3 {
		if u, ok := f.Args[2].(*sqlparse.Unknown); ok && u.Kind == "TimeUnitExpr" {
			interval, n = 1, 2
		}
	}
	fn := resolveMySQLFunc(f.Func.Name, n)
	if fn == nil && !f.Over && !strings.EqualFold(f.Func.Schema, "sqlc") && len(mysqlFuncs()[strings.ToLower(f.Func.Name)]) > 0 {
		// sqlc refuses a call of a function its catalog has when no
		// overload takes that many arguments (validate.FuncCall); one it
		// does not have passes, untyped. An aggregate has no position
		// in sqlc's tree: the error is at the statement there.
		msg, sig := "function %s(%s) does not exist", strings.TrimSuffix(strings.Repeat("unknown, ", n), ", ")
		if f.MySQLAggregate {
			a.sqlcStmtErrorf(msg, strings.ToLower(f.Func.Name), sig)
		} else {
			a.errorf(f.Loc, msg, strings.ToLower(f.Func.Name), sig)
		}
	}
	args := make([]value, len(f.Args))
	for i, x := range f.Args {
		if p, ok := unwrapParam(x); ok && i != interval {
			// sqlc names the parameter after the function as its
			// catalog spells it (upper case), or as written when its
			// catalog lacks the function, typed or not.
			name := f.Func.Name
			if fn != nil {
				name = strings.ToUpper(name)
			}
			if pr := a.param(p.Number); pr.Name == "" {
				pr.Name = name
			}
			if fn != nil && len(fn.args) > 0 {
				at := fn.args[min(i, len(fn.args)-1)]
				a.typeParam(p, value{Type: catalog.Type{Schema: catalog.MySQLSchema, Name: at.typ}, NotNull: true, Known: at.typ != "any"}, name)
			}
		}
		oldOperand, oldFuncArg := a.sqlcOperand, a.mysqlFuncArg
		a.sqlcOperand, a.mysqlFuncArg = false, true
		args[i] = a.expr(sc, x)
		a.sqlcOperand, a.mysqlFuncArg = oldOperand, oldFuncArg
	}
	if f.Over {
		// sqlc's converter has no node for a window function (OVER):
		// its result is interface{} there, whatever the function, and
		// without an alias it is column_N.
		return value{}, args, nil
	}
	if fn == nil || fn.ret == "any" {
		return value{Name: f.Func.Name}, args, nil
	}
	return value{Name: f.Func.Name, Type: catalog.Type{Schema: catalog.MySQLSchema, Name: fn.ret}, NotNull: !fn.nullable, Known: true, DBType: fn.ret}, args, nil
}

// dropSqlcUnread leaves out of q's method, as sqlc v1.31.1 leaves them
// out, the parameters sqlc does not read (sqlparse.Param.SqlcUnread: x
// REGEXP ?, NOT (x <=> ?), ? COLLATE c, (a, b) = (?, ?), ...) unless
// mysql_types is on (Options.MySQLTypes) or q writes a fenced table,
// whose method takes them all. The others are numbered again from 1, as
// sqlc numbers them, and a sqlc.arg there stays in the text, as sqlc
// leaves it. MariaDB/MySQL still has a placeholder for each ?, so every
// call fails: a vet note at each such parameter says how and which
// option fixes it.
func (a *analyzer) dropSqlcUnread(q *Query) {
	var unread []*sqlparse.Param
	for _, p := range a.mysqlParams {
		if p.SqlcUnread || p.SqlcDropped != "" {
			unread = append(unread, p)
		}
	}
	if len(unread) == 0 || a.opts.MySQLTypes {
		return
	}
	if q.Fence != nil || a.cteFence != nil || q.OptOut != nil {
		line, col := diag.Position(a.file.Src, a.clampLoc(unread[0].Loc))
		q.Notes = append(q.Notes, fmt.Sprintf("%s:%d:%d: note: query %s: sqlc v1.31.1 leaves %s out of its method, which therefore fails on every call; this query writes a fenced table, so its method takes %s, as with mysql_types: true", a.file.Name, line, col, q.Name, plural(len(unread), "this parameter", "this and %d more parameters"), plural(len(unread), "it", "them")))
		return
	}
	read := map[int]bool{}
	for _, p := range a.mysqlParams {
		if !p.SqlcUnread && p.SqlcDropped == "" {
			read[p.Number] = true
		}
	}
	renumber := map[int]int{}
	params := map[int]*Param{}
	for _, n := range slices.Sorted(maps.Keys(a.params)) {
		if !read[n] {
			continue
		}
		renumber[n] = len(renumber) + 1
		pr := a.params[n]
		pr.Number = renumber[n]
		params[pr.Number] = pr
	}
	a.params = params
	// The placeholders MariaDB/MySQL binds, and the arguments sent.
	binds, sent := 0, 0
	var order []int
	for _, p := range a.mysqlParams {
		if !p.SqlcUnread && p.SqlcDropped == "" {
			order = append(order, renumber[p.Number])
			sent++
		}
		if !p.SqlcUnread || p.Name == "" {
			// A ? in the text sent (a sqlc.arg sqlc rewrites).
			binds++
		}
	}
	a.placeholders = nil
	if len(order) > len(a.params) {
		// A name used twice: sent once per placeholder.
		a.placeholders = order
	}
	unreadAt := map[int]bool{}
	for _, p := range unread {
		unreadAt[p.Loc] = p.SqlcUnread
		p.Number = 0
	}
	// A sqlc.arg sqlc does not read stays in the text, as sqlc leaves
	// it: MariaDB/MySQL reads it as a call of a function sqlc.arg.
	a.edits = slices.DeleteFunc(a.edits, func(e edit) bool { return unreadAt[e.start] })
	// An IN (sqlc.slice(x)) list sqlc leaves out keeps its marker in the
	// text, unexpanded, as sqlc's.
	a.inSlices = slices.DeleteFunc(a.inSlices, func(s InSlice) bool { return !read[s.Number] })
	for _, p := range unread {
		line, col := diag.Position(a.file.Src, a.clampLoc(p.Loc))
		what := fmt.Sprintf("the statement has %s and the method sends %s, so every call fails (database/sql: \"sql: expected %d arguments, got %d\")", count(binds, "placeholder"), count(sent, "value"), binds, sent)
		if p.Name != "" && p.SqlcUnread {
			fn := "arg"
			switch {
			case p.Slice:
				fn = "slice"
			case p.Nullable:
				fn = "narg"
			}
			what = fmt.Sprintf("the text keeps %s, which MariaDB/MySQL reads as a call of a function that does not exist, so every call fails (\"FUNCTION sqlc.%s does not exist\")", string(a.file.Src[p.Loc:p.End]), fn)
		} else if len(a.inSlices) > 0 {
			// The statement's placeholders depend on the lists' lengths.
			what = fmt.Sprintf("the method sends %s fewer than the statement has placeholders, so every call fails (database/sql: \"sql: expected n arguments, got n-%d\")", count(binds-sent, "value"), binds-sent)
		} else if sent == 0 {
			what = fmt.Sprintf("the method sends no value for the statement's %s, so MariaDB/MySQL refuses every call (the driver sends the text with its ? unbound: Error 1064, a syntax error)", count(binds, "placeholder"))
		}
		why := "does not read this parameter"
		switch p.SqlcDropped {
		case "IN":
			why = "leaves this element of an IN list out (it types one by the column on the IN's left, and this left is no column)"
		case "BETWEEN":
			why = "leaves this parameter of a BETWEEN out (it types one by the column the BETWEEN tests, and this tests no column)"
		}
		q.Notes = append(q.Notes, fmt.Sprintf("%s:%d:%d: note: query %s: sqlc v1.31.1 %s, and its method takes no argument for it; generated as sqlc generates it: %s; mysql_types: true sends it", a.file.Name, line, col, q.Name, why, what))
	}
}

// count is "1 thing" or "n things".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// plural is one when n is 1, else more with n-1 (more holds one %d).
func plural(n int, one, more string) string {
	if n == 1 {
		return one
	}
	if strings.Contains(more, "%d") {
		return fmt.Sprintf(more, n-1)
	}
	return more
}

// lastInsertIDReads records in q.ReadsLastInsertID where a MySQL
// statement reads the session's LAST_INSERT_ID(): a call without an
// argument, or the system variables @@identity and @@last_insert_id
// (any scope spelling: @@session.identity, ...), which MySQL and MariaDB
// give the same value.
func (a *analyzer) lastInsertIDReads(q *Query) {
	if !a.opts.MySQL {
		return
	}
	type read struct {
		loc  int
		form string
	}
	var reads []read
	within := func(loc int) int {
		if loc < a.stmt.Start || loc > a.stmt.End {
			return a.stmt.Start
		}
		return loc
	}
	walk(a.stmt.Node, func(n sqlparse.Node) {
		f, ok := n.(*sqlparse.FuncCall)
		if !ok || len(f.Args) != 0 || !strings.EqualFold(f.Func.Name, "last_insert_id") {
			return
		}
		reads = append(reads, read{within(f.Loc), "LAST_INSERT_ID()"})
	})
	if a.stmt.MySQL != nil {
		a.stmt.MySQL.Accept(&systemVarReads{found: func(name string, loc int) {
			reads = append(reads, read{within(loc), "@@" + name})
		}})
	}
	slices.SortStableFunc(reads, func(x, y read) int { return x.loc - y.loc })
	for _, r := range reads {
		line, col := diag.Position(a.file.Src, r.loc)
		q.ReadsLastInsertID = append(q.ReadsLastInsertID, LastInsertIDRead{At: fmt.Sprintf("%s:%d:%d", a.file.Name, line, col), Form: r.form})
	}
}

// systemVarReads finds the reads of @@identity and @@last_insert_id.
type systemVarReads struct{ found func(name string, loc int) }

func (v *systemVarReads) Enter(n tidb.Node) (tidb.Node, bool) {
	if x, ok := n.(*tidb.VariableExpr); ok && x.IsSystem && x.Value == nil {
		if name := strings.ToLower(x.Name); name == "identity" || name == "last_insert_id" {
			v.found(name, x.OriginTextPosition())
		}
	}
	return n, false
}

func (v *systemVarReads) Leave(n tidb.Node) (tidb.Node, bool) { return n, true }
