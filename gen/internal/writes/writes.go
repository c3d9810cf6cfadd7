// Package writes is fencegen's write analysis: it finds every statement
// of a query that writes table rows, at any depth under any host
// statement, and classifies every statement and node kind of PostgreSQL's
// parse tree as read-only, a write (of a named table, which the guard
// may guard), a host of other statements, schema DDL, code that runs
// elsewhere (a function call), or refused.
//
// It reads the parser's whole tree (sqlparse.Stmt.Raw, pg_query's
// protobuf messages), not fencegen's converted tree (sqlparse.Node): the
// converted tree models what the catalog and the type analysis need, and
// a node it leaves out (MERGE's WITH list, the statement under CREATE
// TABLE AS or EXPLAIN) would be invisible here instead of suspicious.
// Every message is walked through protoreflect, so a field the analysis
// does not name is still searched, and a node kind it does not classify
// (Classes) is refused.
//
// The stage knows no catalog: package analyze resolves the tables written
// (with their inheritance children and partitions), the functions called
// and the refusals against the catalog, and hands the guard the writes it
// guards. Bodies of functions are read with Body (PostgreSQL's PL/pgSQL
// parser for plpgsql, its SQL parser for sql), so that their statements,
// not their text, are analysed.
package writes

import (
	"strconv"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// Write is a statement that writes rows of a named table.
type Write struct {
	// Verb is the statement: INSERT, UPDATE, DELETE, MERGE, TRUNCATE or
	// COPY (COPY ... FROM).
	Verb string
	// Events are the trigger events the write fires on Table: INSERT,
	// UPDATE, DELETE or TRUNCATE (an upsert both INSERT and UPDATE, a
	// MERGE those of its WHEN branches, COPY FROM INSERT).
	Events []string
	Table  sqlparse.Name
	// Only is set for ONLY t (UPDATE, DELETE, TRUNCATE, MERGE): the write
	// reaches neither t's inheritance children nor its partitions
	// (UPDATE ONLY and DELETE ONLY of a partitioned table change no row;
	// TRUNCATE ONLY of one is an error).
	Only bool
	// Set are the columns an UPDATE (or a MERGE's UPDATE actions)
	// assigns (for foreign-key actions), but a column assigned its own
	// value (SET id = id), which no ON UPDATE action sees change:
	// PostgreSQL queues a referenced key's action only when the key's
	// value differs (ri_triggers.c, RI_FKey_pk_upd_check_required).
	// Never nil for an UPDATE (nil: any column).
	Set []string
	// Targets are the columns the SET lists of the write's UPDATE (an
	// UPDATE's, an upsert's DO UPDATE, a MERGE's UPDATE actions) name,
	// self-assigned ones included: PostgreSQL fires a trigger declared
	// UPDATE OF c1, c2 only when one of them is among them (PostgreSQL
	// docs, CREATE TRIGGER; trigger.c, TriggerEnabled). nil: any column
	// (no UPDATE, or a SET of several columns at once, (a, b) = ...,
	// which the analysis does not read column by column).
	Targets []string
	// NoDefault are the columns whose DEFAULT the write never evaluates,
	// "*" for every column: an UPDATE (or a MERGE without an INSERT
	// action) that assigns DEFAULT nowhere evaluates none, an INSERT
	// with a column list and no DEFAULT keyword none of the listed
	// columns' (PostgreSQL docs, INSERT and UPDATE: a column's default is
	// used when no value is given for it, or DEFAULT is written). nil:
	// any column's may run.
	NoDefault []string
	// Cascade is set for TRUNCATE ... CASCADE.
	Cascade bool
	// Top is set for the statement itself; CTE names the entry of the
	// statement's own WITH list that holds the write, when the statement
	// is a SELECT, INSERT, UPDATE or DELETE (the places the guard can
	// guard). Otherwise Host says where the write is.
	Top bool
	CTE string
	// Host is what holds the write when neither Top nor CTE applies:
	// "MERGE's WITH list", "CREATE TABLE ... AS", "SELECT ... INTO",
	// "EXPLAIN ANALYZE", "COPY (query) TO", "DECLARE CURSOR", "a rule's
	// action", ...
	Host string
	// Loc is the table name's offset in the parsed text.
	Loc int
}

// Call is a call of a function or procedure.
type Call struct {
	Func sqlparse.Name
	// Args are what the parse tree says of each argument's type (Arg).
	Args []Arg
	// Procedure is set for the procedure of CALL.
	Procedure bool
	// Variadic is set for VARIADIC in the call.
	Variadic bool
	// PlanOnly is set for a call in a statement PostgreSQL plans but does
	// not run: under EXPLAIN without ANALYZE or CREATE TABLE ... AS ...
	// WITH NO DATA (not PREPARE, whose statement runs under its name
	// later). Planning may
	// evaluate an IMMUTABLE or STABLE function (constant folding,
	// estimates), never a VOLATILE one.
	PlanOnly bool
	// Discarded numbers (from 1, per statement) the target list of an
	// EXISTS subquery that holds the call directly, 0 for none. PostgreSQL
	// throws that list away before the subquery is planned or run
	// (simplify_EXISTS_query: only whether a row exists counts) unless an
	// aggregate or a set-returning function is in it; the walk numbers
	// only lists of plain calls, constants, columns, parameters, casts,
	// ROW(...) and subqueries of a subquery with no set operation,
	// data-modifying WITH entry, HAVING, window, grouping sets, OFFSET,
	// locking clause or LIMIT but a positive constant (its DISTINCT ON,
	// ORDER BY and GROUP BY expressions count as the list's), and
	// analyze counts the calls of a list as planned, not run, when none
	// of its calls can be an aggregate or a set-returning function.
	Discarded int
	Loc       int
}

// Arg is what the parse tree says of a call's argument: its type when
// it is a constant or a cast (Type, "" when the tree does not say), and
// its name for name => value.
type Arg struct {
	// Type is a PostgreSQL type name as pg_catalog spells it ("int4",
	// "numeric", "bool", "text", "unknown" for a quoted literal or NULL),
	// or a cast's type (Schema.Type, ArrayDims); "" when unknown.
	Schema, Type string
	ArrayDims    int
	Name         string
}

// Refusal is a statement or node the analysis cannot see through: what
// it runs is unknown, so it may write any table.
type Refusal struct {
	// Kind is PostgreSQL's node name (DoStmt, ExecuteStmt, ...).
	Kind string
	// Reason completes "query Q ..." with why and what to do.
	Reason string
	Loc    int
}

// Report is what the analysis found in one statement.
type Report struct {
	// Kind is the statement's node name and Class its class.
	Kind  string
	Class Class
	// Writes are the writes of named tables, in tree order.
	Writes []Write
	// Calls are the function and procedure calls, in tree order, the
	// ones in statements that do not run now (PREPARE, a view's query,
	// EXPLAIN without ANALYZE) included.
	Calls []Call
	// Refreshes are the materialized views REFRESH runs the query of.
	Refreshes []sqlparse.Name
	// Refusals are the statements and nodes whose effects are unknown.
	Refusals []Refusal
	// ReplicationRole are the offsets where the statement sets
	// session_replication_role (SET, SET LOCAL, or set_config with the
	// name as a constant), which, set to replica, stops ordinary triggers,
	// the database-side guard's among them, for the session.
	ReplicationRole []int
	// StringSettings are the offsets (-1: the statement's own) where the
	// statement sets standard_conforming_strings to other than on (SET,
	// SET LOCAL, SET ... FROM CURRENT, or set_config with that name or
	// a name that is not a constant): off, PostgreSQL reads a backslash
	// in an ordinary string constant as an escape, so a later
	// statement's text may read as other statements (issue 24).
	StringSettings []int
	// SearchPaths are where the statement sets search_path (SET, SET
	// LOCAL, or set_config with the name as a constant or not), which
	// changes what the unqualified names of later statements on the
	// session resolve to.
	SearchPaths []SearchPath
	// Fields are the names written after a dot (x.f, (x).f, s.t.c): for a
	// function f of one composite argument, PostgreSQL reads x.f as f(x)
	// when x has no field f (PostgreSQL docs 8.16.5).
	Fields []Field
}

// Field is a name written after a dot, at Loc.
type Field struct {
	Name string
	Loc  int
}

// ctx is where the walk is.
type ctx struct {
	// top: the node is the statement itself.
	top bool
	// cte: in an entry of the top statement's WITH list that the guard
	// handles; the entry's name.
	cte string
	// host: what holds the node when neither applies ("" at the top).
	host string
	// runs: the statements under the node run when the statement runs.
	runs bool
	// procedure: the FuncCall is CALL's.
	procedure bool
	// planOnly: the statement is planned, not run (Call.PlanOnly).
	planOnly bool
	// discarded: in the target list of an EXISTS subquery that
	// PostgreSQL may throw away (Call.Discarded).
	discarded int
}

// Of analyses the statement st of a file whose source is src.
func Of(st *sqlparse.Stmt, src []byte) *Report {
	r := &Report{}
	if st == nil || st.Raw == nil || st.Raw.Node == nil {
		r.Class = Refused
		r.Refusals = append(r.Refusals, Refusal{Kind: "none", Reason: "has no parse tree fencegen can analyse for writes", Loc: -1})
		return r
	}
	r.Kind = kindOf(st.Raw)
	r.Class = Classes[r.Kind]
	w := &walker{r: r}
	w.node(st.Raw, ctx{top: true, runs: true})
	for i := range r.Writes {
		if r.Writes[i].Loc < 0 {
			r.Writes[i].Loc, r.Writes[i].Table.Loc = st.Start, st.Start
		}
	}
	for i := range r.Calls {
		if r.Calls[i].Loc < 0 {
			r.Calls[i].Loc, r.Calls[i].Func.Loc = st.Start, st.Start
		}
	}
	for i := range r.Fields {
		if r.Fields[i].Loc < 0 {
			r.Fields[i].Loc = st.Start
		}
	}
	for i := range r.SearchPaths {
		if r.SearchPaths[i].Loc < 0 {
			r.SearchPaths[i].Loc = st.Start
		}
	}
	for i := range r.ReplicationRole {
		if r.ReplicationRole[i] < 0 {
			r.ReplicationRole[i] = st.Start
		}
	}
	for i := range r.Refreshes {
		if r.Refreshes[i].Loc < 0 {
			r.Refreshes[i].Loc = st.Start
		}
	}
	for i := range r.Refusals {
		f := &r.Refusals[i]
		if f.Loc < 0 {
			f.Loc = st.Start
		}
		if f.Reason == "" {
			word := f.Kind
			if f.Kind == r.Kind && st.End <= len(src) && st.Start < st.End {
				word = strings.ToUpper(firstWord(string(src[st.Start:st.End])))
			}
			f.Reason = "is a statement (" + word + ", PostgreSQL's " + f.Kind + ") that fencegen does not analyse, so it cannot show that it writes no fenced table; move it to the schema (migrations) if it is DDL, or write the statement's writes as SELECT, INSERT, UPDATE or DELETE queries, which fencegen guards"
		}
	}
	return r
}

// OfTree analyses a statement's parse tree parsed alone (a function
// body's statement): locations are offsets in its own text.
func OfTree(raw *pg.Node) *Report {
	return Of(&sqlparse.Stmt{Raw: raw}, nil)
}

func firstWord(s string) string {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') })
	if i < 0 {
		return s
	}
	return s[:i]
}

type walker struct {
	r *Report
	// exists counts the EXISTS target lists numbered (Call.Discarded).
	exists int
}

// unreferencedCTE reports whether the WITH entry name of owner's WITH
// list (owner: the statement that holds the list), whose query is a
// SELECT, is referenced nowhere in owner: PostgreSQL does not run such an
// entry at all (its planner skips a SELECT entry no part of the statement
// refers to, cterefcount 0; PostgreSQL docs 7.8.1). A RangeVar of that
// name without a schema counts as a reference anywhere in owner (its WITH
// list's entries, a subquery, another statement's WITH list) but in the
// body of a statement under owner whose own WITH list has an entry of the
// name, which the body's references resolve to instead (the nearest WITH
// list that has the name, parse_relation.c, scanNameSpaceForCTE); the
// names in that inner list's own entries still count.
func unreferencedCTE(owner protoreflect.Message, name string) bool {
	if owner == nil {
		return false
	}
	refs := 0
	sqlparse.EachMessage(owner, func(m protoreflect.Message) bool {
		if wc := withOf(m); m.Interface() != owner.Interface() && definesCTE(wc, name) {
			// Its WITH list's entries count; the rest of the statement
			// is not owner's.
			if !unreferencedIn(wc, name) {
				refs++
			}
			return false
		}
		if rv, ok := m.Interface().(*pg.RangeVar); ok && rv.Schemaname == "" && rv.Relname == name {
			refs++
		}
		return refs == 0
	})
	return refs == 0
}

// unreferencedIn reports whether no RangeVar of wc's entries names name
// (unqualified).
func unreferencedIn(wc *pg.WithClause, name string) bool {
	found := false
	sqlparse.EachMessage(wc.ProtoReflect(), func(m protoreflect.Message) bool {
		if rv, ok := m.Interface().(*pg.RangeVar); ok && rv.Schemaname == "" && rv.Relname == name {
			found = true
		}
		return !found
	})
	return !found
}

// withOf is the WITH list of m, a statement's message, nil for none.
func withOf(m protoreflect.Message) *pg.WithClause {
	switch x := m.Interface().(type) {
	case *pg.SelectStmt:
		return x.WithClause
	case *pg.InsertStmt:
		return x.WithClause
	case *pg.UpdateStmt:
		return x.WithClause
	case *pg.DeleteStmt:
		return x.WithClause
	case *pg.MergeStmt:
		return x.WithClause
	}
	return nil
}

// definesCTE reports whether wc has an entry named name.
func definesCTE(wc *pg.WithClause, name string) bool {
	if wc == nil {
		return false
	}
	for _, n := range wc.Ctes {
		if cte := n.GetCommonTableExpr(); cte != nil && cte.Ctename == name {
			return true
		}
	}
	return false
}

// nodeOneof is the oneof of pg_query's Node message, looked up on first
// use: the lookup makes protobuf build pg_query's whole file descriptor
// (about 5% of a small project's run, BENCHMARKS.md), which the first
// parse needs as well (sqlparse starts it beside the program's start-up).
var nodeOneof = sync.OnceValue(func() protoreflect.OneofDescriptor {
	return (&pg.Node{}).ProtoReflect().Descriptor().Oneofs().ByName("node")
})

// kindOf is the node name of n's message (SelectStmt, FuncCall, ...).
func kindOf(n *pg.Node) string {
	m := n.ProtoReflect()
	fd := m.WhichOneof(nodeOneof())
	if fd == nil {
		return ""
	}
	return string(fd.Message().Name())
}

func (w *walker) node(n *pg.Node, c ctx) {
	if n == nil {
		return
	}
	m := n.ProtoReflect()
	fd := m.WhichOneof(nodeOneof())
	if fd == nil {
		return
	}
	w.message(m.Get(fd).Message(), c)
}

func (w *walker) refuse(kind, reason string, loc int) {
	w.r.Refusals = append(w.r.Refusals, Refusal{Kind: kind, Reason: reason, Loc: loc})
}

// inner is the context of the nodes under a statement at c that are not
// its own WITH list.
func inner(c ctx, host string) ctx {
	if c.top || c.cte != "" {
		c.host = host
	}
	c.top, c.cte, c.procedure = false, "", false
	return c
}

// with walks the WITH list of owner, a statement at c (nil: unknown, its
// entries count as referenced); guarded says whether the guard handles
// its entries when the statement is the top one.
func (w *walker) with(owner protoreflect.Message, wc *pg.WithClause, c ctx, guarded bool, host string) {
	if wc == nil {
		return
	}
	for _, n := range wc.Ctes {
		cte := n.GetCommonTableExpr()
		if cte == nil {
			w.node(n, inner(c, host))
			continue
		}
		cc := inner(c, host)
		if c.top && guarded {
			cc.host, cc.cte = "", cte.Ctename
		}
		if cte.Ctequery.GetSelectStmt() != nil && unreferencedCTE(owner, cte.Ctename) {
			// Not run: its calls are as a planned statement's (a SELECT
			// entry cannot hold a data-modifying statement).
			cc.host, cc.cte, cc.runs, cc.planOnly = "an unreferenced WITH entry", "", false, true
		}
		w.node(cte.Ctequery, cc)
		// SEARCH and CYCLE clauses: expressions.
		if cte.SearchClause != nil {
			w.generic(cte.SearchClause.ProtoReflect(), inner(c, host))
		}
		if cte.CycleClause != nil {
			w.generic(cte.CycleClause.ProtoReflect(), inner(c, host))
		}
	}
}

func (w *walker) write(v Write, rv *pg.RangeVar, c ctx) {
	if rv == nil {
		return
	}
	v.Table = sqlparse.Name{Schema: rv.Schemaname, Name: rv.Relname, Loc: int(rv.Location)}
	v.Loc = int(rv.Location)
	v.Only = !rv.Inh
	v.Top, v.CTE, v.Host = c.top, c.cte, c.host
	if !c.runs {
		return // the statement does not run (EXPLAIN, WITH NO DATA)
	}
	w.r.Writes = append(w.r.Writes, v)
}

// message walks m, a node's message, at c.
func (w *walker) message(m protoreflect.Message, c ctx) {
	name := string(m.Descriptor().Name())
	switch x := m.Interface().(type) {
	case *pg.InsertStmt:
		v := Write{Verb: "INSERT", Events: []string{"INSERT"}}
		if oc := x.OnConflictClause; oc != nil && oc.Action == pg.OnConflictAction_ONCONFLICT_UPDATE {
			v.Events = append(v.Events, "UPDATE")
			v.Targets = setTargets(oc.TargetList, nil)
		}
		if len(x.Cols) > 0 && !hasDefault(x.SelectStmt) && (x.OnConflictClause == nil || !hasDefault(x.OnConflictClause.TargetList...)) {
			for _, c := range x.Cols {
				if rt := c.GetResTarget(); rt != nil && len(rt.Indirection) == 0 {
					v.NoDefault = append(v.NoDefault, rt.Name)
				}
			}
		}
		w.write(v, x.Relation, c)
		w.with(m, x.WithClause, c, true, "a WITH list of a statement inside another")
		w.generic(m, inner(c, "a subquery"), "with_clause", "relation")
	case *pg.UpdateStmt:
		v := Write{Verb: "UPDATE", Events: []string{"UPDATE"}, Set: []string{}, Targets: setTargets(x.TargetList, nil)}
		for _, t := range x.TargetList {
			if rt := t.GetResTarget(); rt != nil && !selfAssigned(rt, x.Relation) {
				v.Set = append(v.Set, rt.Name)
			}
		}
		if !hasDefault(x.TargetList...) {
			v.NoDefault = []string{"*"}
		}
		w.write(v, x.Relation, c)
		w.with(m, x.WithClause, c, true, "a WITH list of a statement inside another")
		w.generic(m, inner(c, "a subquery"), "with_clause", "relation")
	case *pg.DeleteStmt:
		w.write(Write{Verb: "DELETE", Events: []string{"DELETE"}}, x.Relation, c)
		w.with(m, x.WithClause, c, true, "a WITH list of a statement inside another")
		w.generic(m, inner(c, "a subquery"), "with_clause", "relation")
	case *pg.MergeStmt:
		v := Write{Verb: "MERGE"}
		multi := false
		if !hasDefault(x.MergeWhenClauses...) {
			v.NoDefault = []string{"*"}
		}
		for _, n := range x.MergeWhenClauses {
			if wc := n.GetMergeWhenClause(); wc != nil {
				switch wc.CommandType {
				case pg.CmdType_CMD_INSERT:
					v.Events = appendNew(v.Events, "INSERT")
					v.NoDefault = nil // its columns not listed take their defaults
				case pg.CmdType_CMD_UPDATE:
					v.Events = appendNew(v.Events, "UPDATE")
					if v.Set == nil {
						v.Set = []string{} // nil would be any column
					}
					for _, t := range wc.TargetList {
						if rt := t.GetResTarget(); rt != nil && !selfAssigned(rt, x.Relation) {
							v.Set = appendNew(v.Set, rt.Name)
						}
					}
					if !multi {
						if v.Targets = setTargets(wc.TargetList, v.Targets); v.Targets == nil {
							multi = true
						}
					}
				case pg.CmdType_CMD_DELETE:
					v.Events = appendNew(v.Events, "DELETE")
				}
			}
		}
		if len(v.Events) > 0 {
			// Every WHEN clause DO NOTHING: no row of the target
			// changes and none of its triggers fires (they fire for the
			// actions a MERGE specifies).
			w.write(v, x.Relation, c)
		}
		// The guard does not handle a MERGE's WITH list.
		w.with(m, x.WithClause, c, false, "MERGE's WITH list")
		w.generic(m, inner(c, "a MERGE"), "with_clause", "relation")
	case *pg.SelectStmt:
		if x.IntoClause != nil {
			// SELECT ... INTO t: CREATE TABLE t AS, whose statement the
			// guard cannot wrap (PostgreSQL: "SELECT ... INTO is not
			// allowed here").
			w.with(m, x.WithClause, c, false, "SELECT ... INTO")
			w.generic(m, inner(c, "SELECT ... INTO"), "with_clause")
			return
		}
		w.with(m, x.WithClause, c, true, "a WITH list of a statement inside another")
		if limitZero(x) {
			// LIMIT 0: PostgreSQL's Limit node returns before asking its
			// input for a row (nodeLimit.c), so nothing under it runs;
			// its OFFSET is evaluated, and a data-modifying WITH entry
			// runs to completion whatever the statement reads of it
			// (PostgreSQL docs 7.8.4): the WITH list is walked above.
			w.node(x.LimitOffset, inner(c, "a subquery"))
			cc := inner(c, "a subquery under LIMIT 0")
			cc.runs, cc.planOnly = false, true
			w.generic(m, cc, "with_clause", "limit_offset")
			return
		}
		w.generic(m, inner(c, "a subquery"), "with_clause")
	case *pg.TruncateStmt:
		for _, n := range x.Relations {
			w.write(Write{Verb: "TRUNCATE", Events: []string{"TRUNCATE"}, Cascade: x.Behavior == pg.DropBehavior_DROP_CASCADE}, n.GetRangeVar(), c)
		}
	case *pg.CopyStmt:
		if x.IsProgram {
			w.refuse(name, "runs COPY ... PROGRAM, whose command runs on the database server and can write any table, fenced ones included, without the guard; load the rows with an INSERT query (:copyfrom or :batchexec), which fencegen checks", -1)
		}
		if x.Relation != nil && x.IsFrom {
			w.write(Write{Verb: "COPY", Events: []string{"INSERT"}}, x.Relation, c)
		}
		// COPY (query) TO runs the query.
		w.node(x.Query, inner(c, "COPY (query) TO"))
		w.generic(m, inner(c, "COPY"), "relation", "query")
	case *pg.ExplainStmt:
		cc := inner(c, "EXPLAIN ANALYZE")
		if !explainAnalyze(x.Options) {
			// EXPLAIN without ANALYZE plans the statement and does not
			// run it (PostgreSQL docs, EXPLAIN).
			cc.host, cc.runs, cc.planOnly = "EXPLAIN", false, true
		}
		w.node(x.Query, cc)
	case *pg.CreateTableAsStmt:
		host := "CREATE TABLE ... AS"
		if x.Objtype == pg.ObjectType_OBJECT_MATVIEW {
			host = "CREATE MATERIALIZED VIEW"
		}
		if x.Query.GetExecuteStmt() != nil {
			w.refuse("CreateTableAsStmt", "runs CREATE TABLE ... AS EXECUTE, which runs a prepared statement that fencegen cannot see, so it cannot show that it writes no fenced table; write the prepared statement's query as the query, which fencegen checks", -1)
			return
		}
		cc := inner(c, host)
		if x.Into != nil && x.Into.SkipData {
			// WITH NO DATA creates the table without running the query
			// (PostgreSQL docs, CREATE TABLE AS).
			cc.runs, cc.planOnly = false, true
		}
		w.node(x.Query, cc)
		w.generic(m, inner(c, host), "query")
	case *pg.DeclareCursorStmt:
		w.node(x.Query, inner(c, "DECLARE CURSOR"))
	case *pg.PrepareStmt:
		// Its statement runs whenever the session executes the name:
		// EXECUTE, which fencegen refuses, but also a driver's own
		// execution of a statement it prepared under that name (pgx
		// names its cached statements stmtcache_<hash of the SQL>, lib/pq
		// numbers them), which a DEALLOCATE of the name and a PREPARE of
		// it rebind to this statement (trial t24f). So its writes and
		// calls are judged as a run statement's, under the host PREPARE,
		// where no guard can go.
		w.generic(m, inner(c, "PREPARE"))
	case *pg.ViewStmt, *pg.RuleStmt, *pg.CreateFunctionStmt, *pg.CreateTrigStmt:
		// Definitions: their statements run later, through the catalog
		// (the analysis of views, rules, functions and triggers).
		cc := inner(c, "a definition")
		cc.runs = false
		w.generic(m, cc)
	case *pg.ExecuteStmt:
		// Refused also where it does not run (EXPLAIN without
		// ANALYZE): PostgreSQL still evaluates its parameters and plans
		// the prepared statement, which folds a call of a non-volatile
		// function that may write (trial N9).
		w.refuse(name, "EXECUTEs a prepared statement that fencegen cannot see, so it cannot show that it writes no fenced table; write the prepared statement itself as the query, which fencegen guards", -1)
	case *pg.DoStmt:
		w.do(x, c)
	case *pg.LoadStmt:
		w.refuse(name, "runs LOAD, which loads a shared library whose initialisation code fencegen cannot see; load it in the server's configuration (shared_preload_libraries) instead", -1)
	case *pg.CallStmt:
		if x.Funccall == nil {
			w.refuse(name, "CALLs a procedure fencegen cannot resolve, so it cannot show that it writes no fenced table; call a procedure the schema defines", -1)
			return
		}
		cc := inner(c, "CALL")
		cc.procedure = true
		w.message(x.Funccall.ProtoReflect(), cc)
	case *pg.SubLink:
		sel := discardedTargets(x)
		if sel == nil {
			w.generic(m, c)
			return
		}
		// EXISTS (SELECT f() ...): the target list is numbered, the
		// rest of the subquery walked as a SELECT's.
		w.exists++
		cc := inner(c, "a subquery")
		cc.discarded = w.exists
		for _, l := range [][]*pg.Node{sel.TargetList, sel.DistinctClause, sel.SortClause, sel.GroupClause} {
			for _, t := range l {
				w.node(t, cc)
			}
		}
		w.generic(sel.ProtoReflect(), inner(c, "a subquery"), "target_list", "distinct_clause", "sort_clause", "group_clause")
		w.generic(m, c, "subselect")
	case *pg.RefreshMatViewStmt:
		if rv := x.Relation; rv != nil {
			w.r.Refreshes = append(w.r.Refreshes, sqlparse.Name{Schema: rv.Schemaname, Name: rv.Relname, Loc: int(rv.Location)})
		}
	case *pg.ColumnRef:
		for i, f := range x.Fields {
			if s := f.GetString_(); s != nil && i > 0 {
				w.r.Fields = append(w.r.Fields, Field{Name: s.Sval, Loc: int(x.Location)})
			}
		}
		w.generic(m, c)
	case *pg.A_Indirection:
		for _, f := range x.Indirection {
			if s := f.GetString_(); s != nil {
				w.r.Fields = append(w.r.Fields, Field{Name: s.Sval, Loc: -1})
			}
		}
		w.generic(m, c)
	case *pg.VariableSetStmt:
		if x.Name == "session_replication_role" && x.Kind == pg.VariableSetKind_VAR_SET_VALUE && c.runs {
			w.r.ReplicationRole = append(w.r.ReplicationRole, -1)
		}
		if x.Name == "client_encoding" && c.runs && !UTF8Setting(x) {
			// A client encoding whose trail bytes include a backslash
			// (SJIS, BIG5, GBK, GB18030) changes where a constant of a
			// later statement ends (trial t24 F10d).
			w.r.StringSettings = append(w.r.StringSettings, -1)
		}
		if x.Name == "standard_conforming_strings" && c.runs && !SettingOn(x) {
			w.r.StringSettings = append(w.r.StringSettings, -1)
		}
		if x.Name == "search_path" && c.runs {
			sp := SearchPath{Known: true, Loc: -1}
			switch x.Kind {
			case pg.VariableSetKind_VAR_SET_VALUE:
				for _, a := range x.Args {
					if v := a.GetAConst().GetSval(); v != nil {
						sp.Schemas = append(sp.Schemas, v.Sval)
					} else {
						sp.Known = false
					}
				}
			case pg.VariableSetKind_VAR_SET_DEFAULT, pg.VariableSetKind_VAR_RESET, pg.VariableSetKind_VAR_RESET_ALL:
				sp.Default = true
			default:
				sp.Known = false
			}
			w.r.SearchPaths = append(w.r.SearchPaths, sp)
		}
		w.generic(m, c)
	case *pg.FuncCall:
		if n := funcName(x.Funcname, 0); (n.Schema == "" || n.Schema == "pg_catalog") && n.Name == "set_config" && len(x.Args) > 0 && c.runs {
			if a := x.Args[0].GetAConst(); a == nil || a.GetSval() == nil || a.GetSval().Sval == "session_replication_role" {
				// A name that is not a constant may be it.
				w.r.ReplicationRole = append(w.r.ReplicationRole, int(x.Location))
			}
			if a := x.Args[0].GetAConst(); a != nil && a.GetSval() != nil && strings.EqualFold(a.GetSval().Sval, "client_encoding") {
				if v := x.Args[1%len(x.Args)].GetAConst().GetSval(); len(x.Args) < 2 || v == nil || !utf8Name(v.Sval) {
					w.r.StringSettings = append(w.r.StringSettings, int(x.Location))
				}
			}
			if a := x.Args[0].GetAConst(); a == nil || a.GetSval() == nil || strings.EqualFold(a.GetSval().Sval, "standard_conforming_strings") {
				if v := x.Args[1%len(x.Args)].GetAConst().GetSval(); len(x.Args) < 2 || a == nil || v == nil || !onValue(v.Sval) {
					w.r.StringSettings = append(w.r.StringSettings, int(x.Location))
				}
			}
			if a := x.Args[0].GetAConst(); a == nil || a.GetSval() == nil || a.GetSval().Sval == "search_path" {
				sp := SearchPath{Loc: int(x.Location)}
				if len(x.Args) > 1 && a != nil && a.GetSval() != nil {
					if v := x.Args[1].GetAConst().GetSval(); v != nil {
						sp.Schemas, sp.Known = searchPathList(v.Sval), true
					}
				}
				w.r.SearchPaths = append(w.r.SearchPaths, sp)
			}
		}
		if tree, plan, ok := TextRunnerQuery(x); ok {
			// SQL text of a constant that the function runs: analysed
			// as the statement it is, located at the call.
			sub := &walker{r: &Report{}}
			sub.node(tree, ctx{top: true, runs: c.runs && !plan, planOnly: c.planOnly || plan})
			for i := range sub.r.Calls {
				sub.r.Calls[i].PlanOnly = sub.r.Calls[i].PlanOnly || c.planOnly && !c.runs
			}
			w.merge(sub.r, funcName(x.Funcname, 0).Name+"()", int(x.Location))
		}
		call := Call{Func: funcName(x.Funcname, int(x.Location)), Procedure: c.procedure, Variadic: x.FuncVariadic, PlanOnly: c.planOnly && !c.runs, Discarded: c.discarded, Loc: int(x.Location)}
		for _, a := range x.Args {
			call.Args = append(call.Args, argOf(a))
		}
		w.r.Calls = append(w.r.Calls, call)
		c.procedure = false
		w.generic(m, c)
	default:
		switch cl, ok := Classes[name]; {
		case !ok || cl == Unexpected:
			w.refuse(name, "holds a node ("+name+") that fencegen's write analysis does not classify, so it cannot show that it writes no fenced table; write the query without it", -1)
			return
		case cl == Refused:
			w.refuse(name, "", -1) // Of says what
			return
		}
		w.generic(m, c)
	}
}

// do walks a DO block of PL/pgSQL: its statements, read as a function
// body's (Body), run at c under host "a DO block", located at the DO
// statement; a block in another language, or one the parser does not
// read, is refused, and so is dynamic SQL in it.
func (w *walker) do(x *pg.DoStmt, c ctx) {
	const refused = "runs a DO block, whose code may write a fenced table where fencegen cannot add the fencing guard; write its fenced writes as their own queries, which fencegen guards"
	// Another language, and an empty block (no PL/pgSQL block), are
	// errors of DoBlock.
	_, b, err := DoBlock(x)
	if err != nil {
		w.refuse("DoStmt", refused, -1)
		return
	}
	if b.Dynamic != "" {
		w.refuse("DoStmt", "runs a DO block where "+strings.TrimPrefix(b.Dynamic, "its body ")+"; write its fenced writes as their own queries, which fencegen guards", -1)
	}
	cc := inner(c, "a DO block")
	for _, st := range b.Stmts {
		if k := kindOf(st); !Reads(Classes[k]) {
			// Schema statements in a query are checked against the fenced
			// tables (analyze.queryDDL); in a DO block they are not seen.
			w.refuse("DoStmt", "runs a DO block whose code runs a schema statement or another statement fencegen does not analyse there (PostgreSQL's "+k+"), which can rewrite, drop or unguard a fenced table; schema changes belong in the schema files (migrations), which fencegen reads", -1)
			continue
		}
		sub := &walker{r: &Report{}}
		sub.node(st, ctx{top: true, runs: c.runs})
		// Located at the DO statement: the block's text is a string.
		w.merge(sub.r, cc.host, -1)
	}
}

// limitZero reports whether SELECT x has LIMIT 0 (FETCH FIRST 0 ROWS
// ONLY), an integer constant, without WITH TIES.
func limitZero(x *pg.SelectStmt) bool {
	if x.LimitCount == nil || x.LimitOption != pg.LimitOption_LIMIT_OPTION_COUNT {
		return false
	}
	c := x.LimitCount.GetAConst()
	return c != nil && !c.Isnull && c.GetIval() != nil && c.GetIval().Ival == 0
}

// merge adds to w's report what sub, the report of a statement run inside
// the statement (a DO block's, SQL text a function runs), found, held by
// host and located at loc (-1: the statement's start).
func (w *walker) merge(sub *Report, host string, loc int) {
	for _, v := range sub.Writes {
		v.Top, v.CTE, v.Host, v.Loc, v.Table.Loc = false, "", host, loc, loc
		w.r.Writes = append(w.r.Writes, v)
	}
	for _, call := range sub.Calls {
		call.Loc, call.Func.Loc, call.Procedure = loc, loc, false
		w.r.Calls = append(w.r.Calls, call)
	}
	for _, f := range sub.Refusals {
		f.Loc = loc
		w.r.Refusals = append(w.r.Refusals, f)
	}
	for _, n := range sub.Refreshes {
		n.Loc = loc
		w.r.Refreshes = append(w.r.Refreshes, n)
	}
	for _, f := range sub.Fields {
		f.Loc = loc
		w.r.Fields = append(w.r.Fields, f)
	}
	for range sub.ReplicationRole {
		w.r.ReplicationRole = append(w.r.ReplicationRole, loc)
	}
	for range sub.StringSettings {
		w.r.StringSettings = append(w.r.StringSettings, loc)
	}
	for _, sp := range sub.SearchPaths {
		sp.Loc = loc
		w.r.SearchPaths = append(w.r.SearchPaths, sp)
	}
}

// SearchPath is a setting of search_path: Schemas as written ("$user"
// included), Known false when the value is not a constant (set_config
// of a parameter), Default for SET ... TO DEFAULT and RESET. Loc is -1
// inside a DO block.
type SearchPath struct {
	Schemas []string
	Known   bool
	Default bool
	Loc     int
}

// searchPathList splits a search_path value as PostgreSQL reads it: names
// separated by commas, double quotes keeping case and commas, others
// folded to lower case.
func searchPathList(v string) []string {
	var out []string
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if len(part) >= 2 && part[0] == '"' && part[len(part)-1] == '"' {
			out = append(out, strings.ReplaceAll(part[1:len(part)-1], `""`, `"`))
		} else if part != "" {
			out = append(out, strings.ToLower(part))
		}
	}
	return out
}

// generic walks every message field of m at c, but those named in skip.
func (w *walker) generic(m protoreflect.Message, c ctx, skip ...string) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		for _, s := range skip {
			if string(fd.Name()) == s {
				return true
			}
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				w.child(l.Get(i).Message(), c)
			}
			return true
		}
		w.child(v.Message(), c)
		return true
	})
}

// child walks a field's message: a Node, or a message of a node kind
// held directly (RangeVar, WithClause, ...).
func (w *walker) child(m protoreflect.Message, c ctx) {
	if n, ok := m.Interface().(*pg.Node); ok {
		w.node(n, c)
		return
	}
	if wc, ok := m.Interface().(*pg.WithClause); ok {
		w.with(nil, wc, inner(c, "a WITH list of a statement inside another"), false, "a WITH list of a statement inside another")
		return
	}
	w.message(m, c)
}

// discardedTargets returns the subquery of an EXISTS sublink whose target
// list PostgreSQL throws away before planning it, with its DISTINCT,
// ORDER BY and GROUP BY lists (simplify_EXISTS_query, subselect.c, which
// make_subplan and convert_EXISTS_sublink_to_join call on every EXISTS
// sublink), whatever the functions it calls are, but aggregates and
// set-returning functions, which analyze checks (Call.Discarded): a plain
// SELECT without set operation, data-modifying WITH entry, HAVING, window,
// grouping sets, OFFSET, locking clause or LIMIT other than a positive
// constant or ALL (PostgreSQL keeps the list when any of those is there),
// whose target, DISTINCT ON, ORDER BY and GROUP BY expressions hold only
// calls (without OVER, FILTER, ORDER BY, DISTINCT, *), constants,
// unqualified columns (x.f may be f(x), a set-returning function),
// parameters, casts, ROW(...) and subqueries (walked as the list's, so that
// a call there counts as in the list: an aggregate of the list's level
// may sit there). nil for any other sublink.
func discardedTargets(x *pg.SubLink) *pg.SelectStmt {
	if x.SubLinkType != pg.SubLinkType_EXISTS_SUBLINK || x.Subselect == nil {
		return nil
	}
	s := x.Subselect.GetSelectStmt()
	if s == nil || s.Op != pg.SetOperation_SETOP_NONE || len(s.ValuesLists) > 0 || s.IntoClause != nil ||
		s.HavingClause != nil || len(s.WindowClause) > 0 || s.LimitOffset != nil || len(s.LockingClause) > 0 || len(s.TargetList) == 0 {
		return nil
	}
	if s.WithClause != nil {
		for _, n := range s.WithClause.Ctes {
			if n.GetCommonTableExpr().GetCtequery().GetSelectStmt() == nil {
				return nil // a data-modifying entry (hasModifyingCTE)
			}
		}
	}
	if s.LimitCount != nil {
		// LIMIT with a constant positive or NULL (ALL) count is dropped;
		// any other keeps the list.
		k := s.LimitCount.GetAConst()
		if k == nil || s.LimitOption != pg.LimitOption_LIMIT_OPTION_COUNT || !k.Isnull && (k.GetIval() == nil || k.GetIval().Ival <= 0) {
			return nil
		}
	}
	ok := true
	for _, l := range [][]*pg.Node{s.TargetList, s.DistinctClause, s.SortClause, s.GroupClause} {
		for _, t := range l {
			sqlparse.EachMessage(t.ProtoReflect(), func(m protoreflect.Message) bool {
				switch y := m.Interface().(type) {
				case *pg.Node, *pg.ResTarget, *pg.A_Const, *pg.Integer, *pg.Float, *pg.Boolean, *pg.String, *pg.BitString,
					*pg.A_Star, *pg.ParamRef, *pg.TypeCast, *pg.TypeName, *pg.NamedArgExpr, *pg.List, *pg.RowExpr, *pg.SortBy:
				case *pg.SubLink:
					// Its subquery is walked with the list (Call.Discarded):
					// an aggregate there that belongs to this level keeps
					// the list, and analyze keeps it for any aggregate.
					return false
				case *pg.ColumnRef:
					// x.f may be a call of f(x) (attribute notation), a
					// set-returning one among them: a bare column only.
					if len(y.Fields) != 1 {
						ok = false
					}
				case *pg.FuncCall:
					if y.Over != nil || y.AggFilter != nil || y.AggStar || y.AggDistinct || len(y.AggOrder) > 0 || y.AggWithinGroup {
						ok = false
					}
				default:
					ok = false
				}
				return ok
			})
		}
	}
	if !ok {
		return nil
	}
	return s
}

// selfAssigned reports whether the SET item rt of a write of rel assigns
// its column the column's own value (SET id = id, SET id = t.id with t the
// relation's name or alias), which leaves the column unchanged.
func selfAssigned(rt *pg.ResTarget, rel *pg.RangeVar) bool {
	if rt == nil || rel == nil || len(rt.Indirection) > 0 || rt.Val == nil {
		return false
	}
	cr := rt.Val.GetColumnRef()
	if cr == nil {
		return false
	}
	var fs []string
	for _, f := range cr.Fields {
		s := f.GetString_()
		if s == nil {
			return false // a star
		}
		fs = append(fs, s.Sval)
	}
	name := rel.Relname
	if rel.Alias != nil {
		name = rel.Alias.Aliasname
	}
	switch len(fs) {
	case 1:
		return fs[0] == rt.Name
	case 2:
		return fs[0] == name && fs[1] == rt.Name
	}
	return false
}

// hasDefault reports whether the DEFAULT keyword (SetToDefault) appears
// anywhere in the trees.
func hasDefault(trees ...*pg.Node) bool {
	found := false
	for _, n := range trees {
		if n == nil {
			continue
		}
		sqlparse.EachMessage(n.ProtoReflect(), func(m protoreflect.Message) bool {
			if _, ok := m.Interface().(*pg.SetToDefault); ok {
				found = true
			}
			return !found
		})
	}
	return found
}

func appendNew(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// explainAnalyze reports whether EXPLAIN's options turn ANALYZE on.
func explainAnalyze(opts []*pg.Node) bool {
	on := false
	for _, o := range opts {
		d := o.GetDefElem()
		if d == nil || !strings.EqualFold(d.Defname, "analyze") {
			continue
		}
		on = true
		if d.Arg == nil {
			continue
		}
		switch a := d.Arg.Node.(type) {
		case *pg.Node_Boolean:
			on = a.Boolean.Boolval
		case *pg.Node_String_:
			switch strings.ToLower(a.String_.Sval) {
			case "false", "off", "no", "0":
				on = false
			}
		case *pg.Node_Integer:
			on = a.Integer.Ival != 0
		case *pg.Node_AConst:
			if iv := a.AConst.GetIval(); iv != nil && !a.AConst.Isnull {
				on = iv.Ival != 0
			}
		}
	}
	return on
}

func funcName(parts []*pg.Node, loc int) sqlparse.Name {
	var ss []string
	for _, p := range parts {
		ss = append(ss, p.GetString_().GetSval())
	}
	switch len(ss) {
	case 0:
		return sqlparse.Name{Loc: loc}
	case 1:
		return sqlparse.Name{Name: ss[0], Loc: loc}
	}
	return sqlparse.Name{Schema: ss[len(ss)-2], Name: ss[len(ss)-1], Loc: loc}
}

// argOf is what the tree says of an argument's type.
func argOf(n *pg.Node) Arg {
	var a Arg
	if na := n.GetNamedArgExpr(); na != nil {
		a.Name = na.Name
		if na.Arg != nil {
			n = na.Arg
		}
	}
	switch x := n.Node.(type) {
	case *pg.Node_AConst:
		switch {
		case x.AConst.Isnull:
			a.Type = "unknown"
		case x.AConst.GetIval() != nil:
			a.Type = "int4"
		case x.AConst.GetFval() != nil:
			// An integer beyond int4 is int8, or numeric beyond int8
			// (PostgreSQL's make_const).
			v := x.AConst.GetFval().GetFval()
			switch _, err := strconv.ParseInt(v, 10, 64); {
			case strings.ContainsAny(v, ".eE"):
				a.Type = "numeric"
			case err == nil:
				a.Type = "int8"
			case strings.Trim(v, "0123456789") == "":
				a.Type = "numeric"
			}
		case x.AConst.GetBoolval() != nil:
			a.Type = "bool"
		case x.AConst.GetSval() != nil:
			a.Type = "unknown"
		case x.AConst.GetBsval() != nil:
			a.Type = "bit"
		}
	case *pg.Node_TypeCast:
		if tn := x.TypeCast.TypeName; tn != nil {
			var ss []string
			for _, p := range tn.Names {
				ss = append(ss, p.GetString_().GetSval())
			}
			if len(ss) > 0 {
				a.Type = ss[len(ss)-1]
				if len(ss) > 1 {
					a.Schema = ss[len(ss)-2]
				}
			}
			a.ArrayDims = len(tn.ArrayBounds)
		}
	}
	return a
}

// setTargets appends to to the columns a SET list names (Write.Targets),
// nil when an entry is not a ResTarget (any column). A multiple-column
// assignment ((a, b) = ROW(...), (a, b) = (SELECT ...)) names its columns
// in one ResTarget each, whose value is a MultiAssignRef (PostgreSQL's
// gram.y, set_clause): PostgreSQL's UPDATE OF triggers see those columns
// as targets as they see a = ... (trial r24 N4).
func setTargets(list []*pg.Node, to []string) []string {
	if to == nil {
		to = []string{}
	}
	for _, t := range list {
		rt := t.GetResTarget()
		if rt == nil || rt.Name == "" {
			return nil
		}
		to = appendNew(to, rt.Name)
	}
	return to
}

// SettingOn reports whether SET x gives its setting the boolean value
// on; RESET and SET ... TO DEFAULT count as on too (a setting of the
// database, role or server that is off is the schema's finding).
func SettingOn(x *pg.VariableSetStmt) bool {
	switch x.Kind {
	case pg.VariableSetKind_VAR_RESET, pg.VariableSetKind_VAR_RESET_ALL, pg.VariableSetKind_VAR_SET_DEFAULT:
		return true
	case pg.VariableSetKind_VAR_SET_VALUE:
		if len(x.Args) != 1 {
			return false
		}
		c := x.Args[0].GetAConst()
		switch {
		case c.GetSval() != nil:
			return onValue(c.GetSval().Sval)
		case c.GetIval() != nil:
			return c.GetIval().Ival == 1
		}
	}
	return false
}

// onValue reports whether PostgreSQL reads v as the boolean on
// (parse_bool: a prefix of true, yes or on, or 1).
func onValue(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	switch v {
	case "on", "1":
		return true
	}
	return len(v) > 0 && (strings.HasPrefix("true", v) || strings.HasPrefix("yes", v))
}

// UTF8Setting reports whether SET x sets client_encoding to UTF8 (or
// resets it, to what the driver asked for at connect: UTF8 for pgx and
// lib/pq).
func UTF8Setting(x *pg.VariableSetStmt) bool {
	switch x.Kind {
	case pg.VariableSetKind_VAR_RESET, pg.VariableSetKind_VAR_RESET_ALL, pg.VariableSetKind_VAR_SET_DEFAULT:
		return true
	case pg.VariableSetKind_VAR_SET_VALUE:
		return len(x.Args) == 1 && x.Args[0].GetAConst().GetSval() != nil && utf8Name(x.Args[0].GetAConst().GetSval().Sval)
	}
	return false
}

// utf8Name reports whether v names PostgreSQL's UTF8 encoding (the
// spellings it accepts: UTF8, UTF-8, Unicode, any case).
func utf8Name(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "utf8", "utf-8", "unicode":
		return true
	}
	return false
}
