package analyze

import (
	"regexp"

	"github.com/fencegen/fencegen/gen/internal/catalog"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// The guard is sound when every statement that may write a fenced table is
// guarded or refused. While the schema has a fenced table, a statement is
// generated without the guard only when fencegen can show that it writes
// none: statements it models (SELECT, INSERT, UPDATE, DELETE, CALL,
// TRUNCATE, MERGE, COPY) are checked for the tables they write and the
// functions they call; of the statements it does not model, only those
// PostgreSQL runs without writing table rows pass (readOnlyUtility), and
// the others are refused. A schema without a fenced table refuses nothing
// here, as sqlc.

// readOnlyUtility are the utility statements (PostgreSQL node names) that
// write no table row: session settings, transaction control, LISTEN and
// NOTIFY, cursors' FETCH and CLOSE, LOCK, and the like.
var readOnlyUtility = map[string]bool{
	"VariableSetStmt":    true, // SET, RESET
	"VariableShowStmt":   true, // SHOW
	"TransactionStmt":    true, // BEGIN, COMMIT, SAVEPOINT ...
	"ListenStmt":         true,
	"UnlistenStmt":       true,
	"NotifyStmt":         true,
	"LockStmt":           true,
	"FetchStmt":          true, // FETCH, MOVE: the cursor's query was checked at DECLARE
	"ClosePortalStmt":    true,
	"DeallocateStmt":     true,
	"DiscardStmt":        true,
	"CheckPointStmt":     true,
	"ConstraintsSetStmt": true, // SET CONSTRAINTS
	"LoadStmt":           true,
}

// refuseAnyFenced reports, at loc, a statement that may write any fenced
// table where fencegen cannot tell which: an error (format says why and
// what to do instead), or in a query annotated "-- @fence off: <reason>"
// an opt-out of every fenced table.
func (a *analyzer) refuseAnyFenced(loc int, format string, args ...any) {
	if a.ann != nil && a.ann.OptOut != "" {
		for _, t := range a.cat.FencedTables() {
			a.optOutTable(t)
		}
		return
	}
	a.errorf(loc, format+optOutHint, args...)
}

var firstWordRE = regexp.MustCompile(`^\s*([A-Za-z]+)`)

// unmodelled checks a statement of a kind the analyzer does not model
// (sqlparse.Unknown) while the schema has a fenced table.
func (a *analyzer) unmodelled(q *Query, n *sqlparse.Unknown) {
	if readOnlyUtility[n.Kind] {
		return
	}
	loc := a.stmt.Start
	switch n.Kind {
	case "DoStmt":
		a.refuseAnyFenced(loc, "query %s runs a DO block, whose code may write a fenced table where fencegen cannot add the fencing guard; write its fenced writes as their own queries, which fencegen guards", q.Name)
	case "ExecuteStmt":
		a.refuseAnyFenced(loc, "query %s EXECUTEs a prepared statement that fencegen cannot see, so it cannot show that it writes no fenced table; write the prepared statement itself as the query, which fencegen guards", q.Name)
	case "CallStmt":
		a.refuseAnyFenced(loc, "query %s CALLs a procedure fencegen cannot resolve, so it cannot show that it writes no fenced table; call a procedure the schema defines", q.Name)
	case "CopyStmt":
		a.refuseAnyFenced(loc, "query %s is a COPY of a query, which fencegen does not analyse for writes to fenced tables; write the query as its own SELECT, which fencegen checks", q.Name)
	case "ExplainStmt":
		a.refuseAnyFenced(loc, "query %s is an EXPLAIN, which with ANALYZE runs its statement, and fencegen does not analyse that statement for writes to fenced tables; write the statement as its own query, which fencegen guards", q.Name)
	default:
		word := n.Kind
		if m := firstWordRE.FindSubmatch(a.file.Src[a.stmt.Start:a.stmt.End]); m != nil {
			word = string(m[1])
		}
		a.refuseAnyFenced(loc, "query %s is a statement (%s, PostgreSQL's %s) that fencegen does not analyse, so it cannot show that it writes no fenced table; move it to the schema (migrations) if it is DDL, or write the statement's writes as SELECT, INSERT, UPDATE or DELETE queries, which fencegen guards", q.Name, word, n.Kind)
	}
}

// mergeWrites checks a MERGE while the schema has a fenced table: its
// target may be a view (whose rewrite fencegen does not follow), and its
// source and WHEN branches, which sqlparse does not model, may call
// functions that write a fenced table; those are found in its text.
func (a *analyzer) mergeWrites(q *Query, n *sqlparse.Merge) {
	if t := a.cat.Table(n.Table.Schema, n.Table.Name); t != nil && t.IsView {
		a.refuseAnyFenced(n.Loc, "query %s MERGEs into view %s, which PostgreSQL rewrites into writes of its base tables (or runs INSTEAD OF triggers) that fencegen does not guard; write the base tables with their own queries, which fencegen guards", q.Name, t.QualifiedName())
	}
	text := stripSQLComments(string(a.file.Src[a.stmt.Start:a.stmt.End]))
	a.funcs.mu.Lock()
	var called []*catalog.Func
	for _, s := range a.cat.Schemas {
		for _, f := range s.Funcs {
			if a.funcs.callRE(f.Name).MatchString(text) {
				called = append(called, f)
			}
		}
	}
	a.funcs.mu.Unlock()
	for _, f := range called {
		for _, w := range a.funcs.of(f) {
			if w.table == nil {
				a.refuseAnyFenced(n.Loc, "%s", hiddenWriteMsg(q.Name, f, w, false))
				continue
			}
			a.refuseFenced(n.Loc, w.table, "%s", hiddenWriteMsg(q.Name, f, w, false))
		}
	}
}
