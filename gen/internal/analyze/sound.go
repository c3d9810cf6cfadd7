package analyze

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/pgpb"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/writes"
)

// The guard is sound when every statement that may write a fenced table is
// guarded or refused. While the schema has a fenced table, a statement is
// generated without the guard only when fencegen can show that it writes
// none. The evidence is package writes' analysis of the statement's whole
// parse tree (writes.Of): every write of a named table at any depth and
// under any host statement, every function call, and every statement or
// node it cannot see through. checkWrites resolves those against the
// catalog: a write that reaches a fenced table (the table itself, one of
// its inheritance children or partitions, a view's base tables) passes
// only as the guarded write the type analysis found (Query.Fence), at the
// top of the statement or in its WITH list; any other is refused where it
// is written. A schema without a fenced table refuses nothing here, as
// sqlc.

// refuseAnyFenced reports, at loc, a statement that may write any fenced
// table where fencegen cannot tell which: an error (format says why and
// what to do instead), or in a query annotated "-- @fence off: <reason>"
// an opt-out of every fenced table.
func (a *analyzer) refuseAnyFenced(loc int, format string, args ...any) {
	if a.planOnly {
		return // under EXPLAIN: checkWrites judges
	}
	if a.ann != nil && a.ann.OptOut != "" {
		a.optedOutAny = true
		return
	}
	a.errorf(loc, format+optOutHint, args...)
}

// unmodelled checks a statement of a kind the type analysis does not
// model (sqlparse.Unknown) while the schema has a fenced table: the write
// analysis decides (checkWrites); schema DDL that sqlparse does not model
// is refused here.
func (a *analyzer) unmodelled(q *Query, n *sqlparse.Unknown) {
	switch writes.Classes[n.Kind] {
	case writes.ReadOnly, writes.Writes, writes.Host, writes.Refused:
		return // checkWrites
	}
	word := n.Kind
	if f := strings.Fields(string(a.file.Src[a.stmt.Start:a.stmt.End])); len(f) > 0 {
		word = strings.ToUpper(strings.TrimRight(f[0], "(;"))
	}
	a.refuseAnyFenced(a.stmt.Start, "query %s is a statement (%s, PostgreSQL's %s) that fencegen does not analyse, so it cannot show that it writes no fenced table; move it to the schema (migrations) if it is DDL, or write the statement's writes as SELECT, INSERT, UPDATE or DELETE queries, which fencegen guards", q.Name, word, n.Kind)
}

// checkWrites refuses, while the schema has a fenced table, what the
// write analysis found (rep) that may write a fenced table without the
// guard: a statement it cannot see through (DO, EXECUTE, ...), a write
// of a fenced table other than the guarded one, a write of a table whose
// inheritance children or partitions are fenced, a write of a view, and
// what the writes set off (triggers, rules, foreign-key actions) where
// the type analysis did not follow them; and REFRESH MATERIALIZED VIEW of
// a view whose query calls a function that writes one.
func (a *analyzer) checkWrites(q *Query, rep *writes.Report) {
	for _, f := range rep.Refusals {
		if (f.Kind == "VacuumStmt" || f.Kind == "ClusterStmt") && rep.Kind == f.Kind && a.maintenance(q) {
			continue
		}
		a.refuseAnyFenced(f.Loc, "query %s %s", q.Name, f.Reason)
	}
	for _, w := range rep.Writes {
		a.checkWrite(q, w)
	}
	for _, n := range rep.Refreshes {
		a.checkRefresh(q, n)
	}
}

// typed reports whether the type analysis followed w: an INSERT, UPDATE
// or DELETE that is the statement or in its WITH list.
func typed(w writes.Write) bool {
	return (w.Top || w.CTE != "") && (w.Verb == "INSERT" || w.Verb == "UPDATE" || w.Verb == "DELETE")
}

func (a *analyzer) checkWrite(q *Query, w writes.Write) {
	t := a.cat.Table(w.Table.Schema, w.Table.Name)
	if !a.errAt[w.Loc] {
		// As another sql entry's schema declares the relation (the
		// entries share a database).
		a.sharedWrites(q, w, t)
	}
	if t == nil {
		// PostgreSQL refuses the statement under the search_path fencegen
		// knows; under another, an unqualified name may be a fenced table.
		if w.Table.Schema == "" && !typed(w) {
			for _, f := range a.cat.FencedTables() {
				if f.Name == w.Table.Name {
					a.refuseFenced(w.Loc, f, "query %s runs %s on %s, unqualified, which names no table of the search_path fencegen knows but fenced table %s under another; qualify the name", q.Name, w.Verb, w.Table.Name, f.QualifiedName())
					return
				}
			}
		}
		return
	}
	if !typed(w) && !a.errAt[w.Loc] {
		a.shadowed(w.Table, t, w.Verb, w.Events, w.Loc)
	}
	if !typed(w) {
		// What the write sets off: triggers, rules, defaults, foreign-key
		// actions (the type analysis follows these for the writes it
		// models).
		a.setsOff(t, w.Events, w.Loc)
		switch w.Verb {
		case "UPDATE", "DELETE":
			a.cascades(t, strings.ToLower(w.Verb), w.Set, w.Loc)
		case "INSERT":
			// An upsert's DO UPDATE is an UPDATE for foreign-key actions
			// (Set nil: any column).
			if slices.Contains(w.Events, "UPDATE") {
				a.cascades(t, "update", w.Set, w.Loc)
			}
		case "MERGE":
			// Its WHEN actions: DELETE, and UPDATE of the columns set.
			if slices.Contains(w.Events, "DELETE") {
				a.cascades(t, "delete", nil, w.Loc)
			}
			if slices.Contains(w.Events, "UPDATE") {
				a.cascades(t, "update", w.Set, w.Loc)
			}
		case "TRUNCATE":
			if w.Cascade {
				a.cascades(t, "truncate", nil, w.Loc)
			}
		}
	}
	if a.errAt[w.Loc] {
		return // refused there already, with the reason
	}
	where := ""
	switch {
	case w.Top:
	case w.CTE != "":
		where = " in WITH entry " + w.CTE
	default:
		where = " inside " + w.Host
	}
	if t.IsView {
		// Its INSTEAD OF triggers and rules are followed with its other
		// triggers and rules (setsOff); what reaches its base relation
		// here.
		a.viewWrites(t, w.Verb, w.Events, w.Loc, fmt.Sprintf("query %s runs %s on view %s%s", q.Name, w.Verb, t.QualifiedName(), where))
		return
	}
	if typed(w) && len(a.errs) > 0 {
		return // the type analysis said why it is not guarded
	}
	if t.Fence != nil && q.Fence != nil && q.Fence.Table == t && typed(w) && q.Fence.CTE == w.CTE {
		return // the guarded write (the guard covers t's children and partitions)
	}
	if typed(w) && slices.Contains(a.plainWrites, w.Loc) {
		return // accepted without the guard by the type analysis
	}
	reached := reachedBy(a.cat, t, w.Verb, w.Only)
	if len(reached) == 0 {
		return
	}
	if a.ann != nil && a.ann.OptOut != "" {
		for _, f := range reached {
			a.optOutTable(f)
		}
		return
	}
	f := reached[0]
	{
		var why string
		switch {
		case f != t:
			why = fmt.Sprintf("query %s runs %s on %s%s, which reaches its fenced %s %s (a write of a table is a write of its inheritance children and partitions) without the guard: mark the fencing token on %s itself (its partitions and children then inherit it), or write %s with its own fenced query",
				q.Name, w.Verb, t.QualifiedName(), where, descendantKind(t, f), f.QualifiedName(), t.QualifiedName(), f.QualifiedName())
		case w.Host == "SELECT ... INTO" || w.Host == "CREATE TABLE ... AS" || w.Host == "CREATE MATERIALIZED VIEW":
			why = fmt.Sprintf("query %s runs %s on fenced table %s inside %s: the guard must wrap the statement, and PostgreSQL refuses SELECT ... INTO and CREATE TABLE AS there (\"SELECT ... INTO is not allowed here\"), so the guarded query would fail every time; run the write as its own query (WITH ... RETURNING), which fencegen guards, and create the table from its result",
				q.Name, w.Verb, t.QualifiedName(), w.Host)
		case w.Host == "PREPARE":
			why = fmt.Sprintf("query %s prepares %s on fenced table %s (PREPARE), which then runs without the fencing guard whenever the session executes the statement's name: EXECUTE, or the driver's own statement of that name, which a DEALLOCATE and a PREPARE of it rebind (pgx names each statement it caches stmtcache_<hash of its SQL>, lib/pq numbers them), so a generated query would run this write instead; write the statement itself as the query, which fencegen guards",
				q.Name, w.Verb, t.QualifiedName())
		case w.Host != "":
			why = fmt.Sprintf("query %s runs %s on fenced table %s inside %s, where fencegen cannot add the fencing guard; write it as its own query (an UPDATE, INSERT or DELETE, or a WITH entry of one), which fencegen guards",
				q.Name, w.Verb, t.QualifiedName(), w.Host)
		default:
			why = fmt.Sprintf("query %s runs %s on fenced table %s%s, which fencegen cannot guard; write it as an UPDATE, INSERT or DELETE, which fencegen guards",
				q.Name, w.Verb, t.QualifiedName(), where)
		}
		a.refuseFenced(w.Loc, f, "%s", why)
	}
}

// viewWrites refuses, at loc, a write (verb, of events) of view t that
// writes a fenced table through t's base relation, or may
// (viewBaseWritesLocked); what says what the query does.
func (a *analyzer) viewWrites(t *catalog.Table, verb string, events []string, loc int, what string) {
	if a.funcs == nil {
		return
	}
	a.funcs.mu.Lock()
	ws := a.funcs.viewBaseWritesLocked(t, verb, events, a.noDefaultAt(t, loc))
	a.funcs.mu.Unlock()
	for _, w := range ws {
		chain := strings.Join(w.steps(), " → ")
		if w.table == nil {
			a.refuseAnyFenced(loc, "%s, which may write a fenced table: %s, so fencegen cannot show that it writes none; write the tables under the view with their own queries, which fencegen guards", what, w.unknown)
			continue
		}
		a.refuseFenced(loc, w.table, "%s, which PostgreSQL turns into %s on fenced table %s (%s), where fencegen cannot add the fencing guard, so the token would not be checked; write %s itself, which fencegen guards",
			what, w.verb, w.table.QualifiedName(), chain, w.table.QualifiedName())
	}
}

// reachedBy are the fenced tables a write (verb) of t writes: t, and the
// inheritance children and partitions PostgreSQL writes through t.
// UPDATE, DELETE, MERGE and TRUNCATE reach all of them, or none with ONLY
// (only); INSERT, an upsert and COPY FROM reach the partitions a row is
// routed to, never an inheritance child. PostgreSQL docs 5.10
// "Inheritance" and 5.11 "Table Partitioning".
func reachedBy(cat *catalog.Catalog, t *catalog.Table, verb string, only bool) []*catalog.Table {
	var out []*catalog.Table
	if t.Fence != nil {
		out = append(out, t)
	}
	if only {
		return out
	}
	for _, d := range cat.FencedDescendants(t) {
		switch verb {
		case "INSERT", "COPY":
			if descendantKind(t, d) != "partition" {
				continue
			}
		}
		out = append(out, d)
	}
	return out
}

// writeAt is the write the write analysis found with its table at loc,
// nil if none.
func (a *analyzer) writeAt(loc int) *writes.Write {
	if a.rep == nil {
		return nil
	}
	for i := range a.rep.Writes {
		if a.rep.Writes[i].Loc == loc {
			return &a.rep.Writes[i]
		}
	}
	return nil
}

// checkRefresh refuses REFRESH MATERIALIZED VIEW n of a view the schema
// does not define, whose query is unknown. REFRESH runs the view's query:
// that of a view the schema defines is checked as a read of the view
// (checkTextWrites, which follows the views a statement names).
func (a *analyzer) checkRefresh(q *Query, n sqlparse.Name) {
	if t := a.cat.Table(n.Schema, n.Name); t == nil || !t.IsView {
		a.refuseAnyFenced(n.Loc, "query %s refreshes materialized view %s, which the schema does not define, so fencegen cannot show that its query writes no fenced table; define it in the schema files", q.Name, n.String())
	}
}

// fenceEvents are the trigger events of a write of kind (Fence.Kind).
func fenceEvents(kind string) []string {
	switch kind {
	case "insert":
		return []string{"INSERT"}
	case "upsert":
		return []string{"INSERT", "UPDATE"}
	case "update":
		return []string{"UPDATE"}
	case "delete":
		return []string{"DELETE"}
	}
	return nil
}

// setsOff refuses, at loc, a write of events to table t whose triggers or
// rules may write a fenced table: the guard checks the token of the rows
// the statement itself writes, never those a trigger function or a rule's
// action writes. Rule actions are followed to the triggers and rules of
// the tables they write.
func (a *analyzer) setsOff(t *catalog.Table, events []string, loc int) {
	if a.funcs == nil || t == nil {
		return
	}
	a.setsOffFrom(t, events, a.targetsAt(t, loc), loc, map[*catalog.Table]bool{})
	a.implicitWrites(t, events, loc)
}

// setsOffFrom is setsOff of a write of t whose UPDATE SET lists name
// targets (writes.Write.Targets; nil: any column).
func (a *analyzer) setsOffFrom(t *catalog.Table, events, targets []string, loc int, seen map[*catalog.Table]bool) {
	if seen[t] {
		return
	}
	seen[t] = true
	name := a.ann.Name
	if t.Fence != nil && len(seen) == 1 {
		a.fencedRewrites(t, events, targets, loc)
	}
	trigEvents := rowMoveEvents(a.cat, t, events)
	for _, tr := range t.Triggers {
		if !tr.FiresOn(t, trigEvents, targets) {
			continue
		}
		fs := a.cat.TriggerFuncs(tr)
		if len(fs) == 0 && !builtinTrigger(tr.Func) && extensionTriggerOf(a.cat, tr) == nil {
			hint := "define the function in the schema"
			if len(a.cat.Extensions) > 0 {
				// A C function of an extension cannot be defined there.
				hint = "if it is an extension's C function, which fencegen does not read, write the trigger function in plpgsql instead (of the extensions' trigger functions fencegen knows " + knownExtensionTriggers() + ", after their CREATE EXTENSION); otherwise define the function in the schema"
			}
			a.refuseAnyFenced(loc, "query %s writes table %s, whose trigger %s (%s:%d) runs function %s(), which the schema does not define, so fencegen cannot show that it writes no fenced table; %s", name, t.QualifiedName(), tr.Name, tr.File, tr.Line, tr.Func.String(), hint)
		}
		for _, f := range fs {
			for _, w := range a.funcs.of(f) {
				what := "may write a fenced table: " + w.unknown
				if w.table != nil {
					what = "runs " + w.verb + " on fenced table " + w.table.QualifiedName()
				}
				msg := "query %s writes table %s, which fires trigger %s (%s:%d), whose function %s() %s: fencegen cannot add the fencing guard inside a trigger, so that write would not check the token; write it as its own query, which fencegen guards, or drop the trigger"
				a.refuseHidden(loc, w, msg, name, t.QualifiedName(), tr.Name, tr.File, tr.Line, f.Name, what)
			}
		}
	}
	for _, r := range t.Rules {
		if !r.Fires() || !slices.Contains(events, r.Event) {
			continue
		}
		if len(seen) == 1 && a.ann.Cmd == CmdCopyFrom {
			// :copyfrom sends the rows with COPY FROM, which runs no
			// rules (PostgreSQL docs, COPY: "it will not invoke rules");
			// its triggers fire (trial pg4 F9).
			continue
		}
		if r.Raw != nil {
			// The actions' whole parse trees (package writes): their
			// writes, calls, the views they read, what they set off.
			a.funcs.mu.Lock()
			var ws []hiddenWrite
			for _, act := range r.Raw {
				ws = append(ws, a.funcs.treeWritesLocked(act)...)
			}
			a.funcs.mu.Unlock()
			for _, w := range ws {
				chain := ""
				if p := w.steps(); len(p) > 0 {
					chain = ", through " + strings.Join(p, " → ") + ","
				}
				if w.table == nil {
					a.refuseAnyFenced(loc, "query %s writes table %s, whose rule %s (%s:%d)%s may write a fenced table: %s, so fencegen cannot show that it writes none; drop the rule or write its action as its own query", name, t.QualifiedName(), r.Name, r.File, r.Line, chain, w.unknown)
					continue
				}
				a.refuseFenced(loc, w.table, "query %s writes table %s, whose rule %s (%s:%d)%s also runs %s on fenced table %s: PostgreSQL's rewrite runs the rule's action without the fencing guard; write it as its own query, which fencegen guards, or drop the rule", name, t.QualifiedName(), r.Name, r.File, r.Line, chain, w.verb, w.table.QualifiedName())
			}
			continue
		}
		for _, act := range r.Actions {
			walk(act, func(n sqlparse.Node) {
				var target sqlparse.Name
				var ev []string
				switch n := n.(type) {
				case *sqlparse.Insert:
					target, ev = n.Table, []string{"INSERT"}
				case *sqlparse.Update:
					target, ev = n.Table, []string{"UPDATE"}
				case *sqlparse.Delete:
					target, ev = n.Table, []string{"DELETE"}
				case *sqlparse.FuncCall:
					for _, f := range a.candidates(n) {
						for _, w := range a.funcs.of(f) {
							msg := "query %s writes table %s, whose rule %s (%s:%d) calls %s(), which may write a fenced table; fencegen cannot guard a rule's actions: write them as their own queries, which fencegen guards, or drop the rule"
							a.refuseHidden(loc, w, msg, name, t.QualifiedName(), r.Name, r.File, r.Line, f.Name)
						}
					}
					return
				case *sqlparse.Unknown:
					a.refuseAnyFenced(loc, "query %s writes table %s, whose rule %s (%s:%d) runs a command fencegen does not analyse; fencegen cannot show that it writes no fenced table: drop the rule or write its action as its own query", name, t.QualifiedName(), r.Name, r.File, r.Line)
					return
				default:
					return
				}
				u := a.cat.Table(target.Schema, target.Name)
				if u == nil {
					return
				}
				if u.Fence != nil {
					a.refuseFenced(loc, u, "query %s writes table %s, whose rule %s (%s:%d) also runs %s on %s %s: PostgreSQL's rewrite runs the rule's action without the fencing guard; write it as its own query, which fencegen guards, or drop the rule", name, t.QualifiedName(), r.Name, r.File, r.Line, ev[0], relKind(u), u.QualifiedName())
					return
				}
				a.setsOffFrom(u, ev, nil, loc, seen)
				a.implicitWrites(u, ev, loc) // its defaults, CHECKs, relatives, FK actions
				if u.IsView {
					a.viewWrites(u, ev[0], ev, loc, fmt.Sprintf("query %s writes table %s, whose rule %s (%s:%d) also runs %s on view %s", name, t.QualifiedName(), r.Name, r.File, r.Line, ev[0], u.QualifiedName()))
				}
			})
		}
	}
}

func relKind(t *catalog.Table) string {
	switch {
	case t.IsView:
		return "view"
	case t.Fence != nil:
		return "fenced table"
	}
	return "table"
}

// fencedRewrites refuses a write of fenced table t whose own triggers or
// rules change what the guard writes: a trigger function that assigns
// NEW.<token> (or the whole NEW record) replaces the token the guard
// stores, and a DO INSTEAD rule replaces the guarded statement itself.
func (a *analyzer) fencedRewrites(t *catalog.Table, events, targets []string, loc int) {
	col := t.Fence.Column
	// A row written through t fires the row triggers of the partition or
	// child it lands in, and a partition's own row fires its partitioned
	// parent's (cloned) ones: each may replace the token. Those that
	// cannot fire for the write (UPDATE OF columns it does not set) are
	// left out.
	var trs []*catalog.Trigger
	for _, x := range append([]*catalog.Table{t}, a.cat.Relatives(t)...) {
		for _, tr := range x.Triggers {
			if tr.FiresOn(x, events, targets) {
				trs = append(trs, tr)
			}
		}
	}
	for _, tr := range trs {
		if a.opts.tokenRewriters[tr] {
			continue // an error at the trigger itself (TokenRewriteTriggers)
		}
		if why := tokenRewrite(a.cat, a.opts, tr, col, events); why != "" {
			a.refuseFenced(loc, t, "query %s writes fenced table %s, whose trigger %s (%s:%d) %s", a.ann.Name, t.QualifiedName(), tr.Name, tr.File, tr.Line, why)
		}
	}
	a.skippingTriggers(t, trs, events, loc)
	a.narrowPolicies(t, events, loc)
	for _, r := range t.Rules {
		if r.Fires() && r.Instead && slices.Contains(events, r.Event) {
			a.refuseFenced(loc, t, "query %s writes fenced table %s, whose rule %s (%s:%d) is DO INSTEAD: PostgreSQL replaces the guarded write with the rule's action, so the guard does not run; drop the rule, or write what it does as its own fenced queries",
				a.ann.Name, t.QualifiedName(), r.Name, r.File, r.Line)
		}
	}
}

// tokenRewrite says why trigger tr may replace the fencing token (column
// col) that a write of events ("INSERT", "UPDATE") stores, or returns "":
// its function assigns NEW.<col> or all of NEW, a BEFORE trigger's
// function may RETURN a row other than NEW (OLD on an UPDATE), or it is
// written in a language fencegen does not read. The text goes after
// "trigger <name> (<file>:<line>) ". Functions of fencegen's own guard
// (opts.GuardFunction) read NEW.<col> only.
func tokenRewrite(cat *catalog.Catalog, opts Options, tr *catalog.Trigger, col string, events []string) string {
	if !slices.ContainsFunc(tr.Events, func(e string) bool { return (e == "INSERT" || e == "UPDATE") && slices.Contains(events, e) }) {
		return ""
	}
	if et := extensionTriggerOf(cat, tr); et != nil {
		// An extension's trigger function of known behaviour: it
		// sets NEW's column named by its first argument, and nothing
		// else; on the token column it would replace the token.
		if len(tr.Args) > 0 && tr.Args[0] == col {
			return fmt.Sprintf("runs %s(%s) of extension %s, which assigns NEW.%s: it would replace the fencing token the guard stores, so a later stale holder could pass; leave the token column to fencegen, or drop the trigger",
				tr.Func.Name, tr.Args[0], et.extension, col)
		}
		return ""
	}
	for _, f := range cat.TriggerFuncs(tr) {
		if opts.GuardFunction != nil && opts.GuardFunction(f.File, f.Line) {
			continue
		}
		assigns, returnsOther, returnsOld := false, false, false
		if f.Language == "plpgsql" {
			// Read on PostgreSQL's PL/pgSQL parse tree (writes.ReadTrigger,
			// every statement kind classified by what it assigns); a body
			// it does not read (pg_query's parser refuses OPEN, FETCH,
			// MOVE and CLOSE of a cursor: it types no variable) may assign
			// NEW.<token>, and is scanned as text for its RETURNs.
			if row, err := writes.ReadTrigger(f.Source, col); err == nil {
				assigns, returnsOther, returnsOld = row.AssignsColumn, row.ReturnsOther, row.OldOnUpdate
			} else {
				body := stripSQLComments(f.Body)
				assigns, returnsOther, returnsOld = true, returnsOtherRow(body), returnsOldRow(body)
			}
		}
		// RETURN OLD from a BEFORE UPDATE trigger writes the old row,
		// its stored token with it (trial t24 F1).
		returnsOther = returnsOther || returnsOld && slices.Contains(events, "UPDATE") && slices.Contains(tr.Events, "UPDATE")
		switch {
		case f.Language != "plpgsql":
			return fmt.Sprintf("runs %s(), LANGUAGE %s, which fencegen does not read: it may replace the row, and with it the fencing token the guard stores, so a later stale holder could pass; write the trigger function in plpgsql, or drop the trigger",
				f.Name, f.Language)
		case assigns:
			return fmt.Sprintf("runs %s(), which assigns NEW.%s (or all of NEW): it would replace the fencing token the guard stores, so a later stale holder could pass; leave the token column to fencegen, or drop the trigger",
				f.Name, col)
		case !afterTriggerRE().MatchString(tr.Text) && returnsOther:
			return fmt.Sprintf("runs %s(), which may RETURN a row other than NEW (or NULL; OLD on an UPDATE): a BEFORE trigger's result replaces the row written, and with it the fencing token the guard stores, so a later stale holder could pass; return NEW (changing its other columns), or drop the trigger",
				f.Name)
		}
	}
	return ""
}

// TokenRewriteTriggers reports, from the schema alone, each BEFORE row
// trigger of a fenced table (or of a partition or inheritance child a
// write of it lands in, or of the parent whose cloned triggers it runs)
// that may replace the fencing token the guard stores (tokenRewrite), at
// its CREATE TRIGGER statement (trial r24 F7). Such a trigger defeats the
// guard for every writer, whatever fires it: the guarded statement's
// WHERE compares the stored token, which the trigger keeps at OLD's or
// sets to a constant, so a later stale holder passes; and PostgreSQL
// fires a table's BEFORE row triggers in the order of their names, so one
// named after fencegen_guard rewrites NEW after the database-side guard
// checked it. The triggers reported are in the returned set; a query's
// refusal (fencedRewrites) skips them, the cause being said once.
func TokenRewriteTriggers(cat *catalog.Catalog, opts Options) (diag.List, map[*catalog.Trigger]bool) {
	var errs diag.List
	set := map[*catalog.Trigger]bool{}
	if opts.MySQL {
		return nil, set
	}
	for _, t := range cat.FencedTables() {
		if t.IsView || t.Column(t.Fence.Column) == nil {
			continue // an error of its own (catalog.Validate)
		}
		for _, x := range append([]*catalog.Table{t}, cat.Relatives(t)...) {
			for _, tr := range x.Triggers {
				if set[tr] || !tr.Before || tr.Instead {
					continue
				}
				// The events of every guarded write it fires for: a guarded
				// UPDATE sets the token column, so a trigger declared UPDATE
				// OF other columns only fires for some, which their queries
				// refuse (fencedRewrites; issue 24 F3).
				var events []string
				for _, e := range []string{"INSERT", "UPDATE"} {
					if tr.FiresOn(x, []string{e}, []string{t.Fence.Column}) {
						events = append(events, e)
					}
				}
				why := tokenRewrite(cat, opts, tr, t.Fence.Column, events)
				if why == "" {
					continue
				}
				set[tr] = true
				on := ""
				if x != t {
					on = fmt.Sprintf(" (which a write of fenced table %s runs)", t.QualifiedName())
				}
				errs.AddErr(&diag.Error{File: tr.File, Line: tr.Line, Col: max(tr.Col, 1), Err: catalog.ErrFence,
					Msg: fmt.Sprintf("trigger %s on %s%s is a BEFORE %s row trigger that %s", tr.Name, x.QualifiedName(), on, strings.Join(events, " OR "), why)})
			}
		}
	}
	return errs, set
}

// skippingTriggers refuses a guarded UPDATE or DELETE (an upsert's DO
// UPDATE included) of fenced table t when a BEFORE row trigger of t, or
// of a partition or child it lands in (trs), may skip the row: its
// function may RETURN NULL (or, on DELETE, NEW, which is NULL there), or
// it is suppress_redundant_updates_trigger, which skips an UPDATE that
// changes nothing (issue 24). PostgreSQL then writes no row, and the
// guard cannot tell a row the trigger skipped from one that changed or
// went between its check and its write: a write by key would fail with
// *fence.ConcurrentChangeError after its retries, a locking one with
// ErrNotFound, though nothing else touched the row. A function fencegen
// does not read counts as one that may skip.
func (a *analyzer) skippingTriggers(t *catalog.Table, trs []*catalog.Trigger, events []string, loc int) {
	for _, ev := range []string{"UPDATE", "DELETE"} {
		if !slices.Contains(events, ev) {
			continue
		}
		for _, tr := range trs {
			if !tr.Before || !slices.Contains(tr.Events, ev) || afterTriggerRE().MatchString(tr.Text) {
				continue
			}
			why := ""
			if builtinTrigger(tr.Func) {
				if tr.Func.Name == "suppress_redundant_updates_trigger" && ev == "UPDATE" {
					why = "suppress_redundant_updates_trigger(), which skips an UPDATE that changes nothing (a holder writing the same values with the same token)"
				}
			} else {
				for _, f := range a.cat.TriggerFuncs(tr) {
					if a.opts.GuardFunction != nil && a.opts.GuardFunction(f.File, f.Line) {
						continue
					}
					null, isNew, read := false, false, false
					if f.Language == "plpgsql" {
						if row, err := writes.ReadTrigger(f.Source, t.Fence.Column); err == nil {
							null, isNew, read = row.ReturnsNull, row.NewOnDelete, true
						} else {
							for _, m := range returnRE().FindAllStringSubmatch(stripSQLComments(f.Body), -1) {
								switch strings.ToLower(strings.Trim(strings.TrimSpace(m[1]), "()")) {
								case "null":
									null = true
								case "new":
									isNew = true
								}
							}
							read = true
						}
					}
					switch {
					case !read:
						continue // LANGUAGE other than plpgsql: refused by fencedRewrites
					case null:
						why = f.Name + "(), which may RETURN NULL"
					case isNew && ev == "DELETE":
						why = f.Name + "(), which may RETURN NEW, and NEW is NULL in a BEFORE DELETE trigger"
					}
					if why != "" {
						break
					}
				}
			}
			if why == "" {
				continue
			}
			kind := strings.ToLower(ev)
			a.refuseFenced(loc, t, "query %s runs a guarded %s of fenced table %s, whose BEFORE %s trigger %s (%s:%d) runs %s: PostgreSQL then skips the row, and the guard cannot tell a skipped row from one that changed or went away concurrently, so the method would fail with a retryable-looking *fence.ConcurrentChangeError (by key) or fence.ErrNotFound (many rows) though nothing else touched it; make the trigger RAISE an exception where it skips the row (the error then reaches the caller), or make it an AFTER trigger, or drop it",
				a.ann.Name, kind, t.QualifiedName(), ev, tr.Name, tr.File, tr.Line, why)
			return
		}
	}
}

// afterTriggerRE matches a CREATE TRIGGER of an AFTER trigger (a
// constraint trigger is one too), whose function's result PostgreSQL
// ignores.
var afterTriggerRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?is)^\s*create\s+(?:or\s+replace\s+)?(?:constraint\s+trigger\b|trigger\s+(?:"(?:[^"]|"")+"|\S+)\s+after\b)`)
})

// returnRE finds a PL/pgSQL RETURN and its expression.
var returnRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\breturn\b\s*([^;]*)`) })

// returnsOldRow reports whether a trigger function's body may RETURN
// OLD (read as text).
func returnsOldRow(body string) bool {
	for _, m := range returnRE().FindAllStringSubmatch(body, -1) {
		if strings.ToLower(strings.Trim(strings.TrimSpace(m[1]), "()\"")) == "old" {
			return true
		}
	}
	return false
}

// returnsOtherRow reports whether a trigger function's body may RETURN a
// row other than NEW, OLD or NULL: a BEFORE row trigger's result is the
// row PostgreSQL writes.
func returnsOtherRow(body string) bool {
	for _, m := range returnRE().FindAllStringSubmatch(body, -1) {
		switch strings.ToLower(strings.Trim(strings.TrimSpace(m[1]), "()")) {
		case "new", "old", "null", "":
		default:
			return true
		}
	}
	return false
}

// queryDDL checks a schema statement in a query file while the schema has
// a fenced table. fencegen reads the schema from its schema files only,
// so DDL run by a query is refused when it may write or change a fenced
// table: one it drops, alters, renames, moves, comments on or indexes
// (DROP TABLE, ALTER COLUMN ... TYPE ... USING, DROP COLUMN of the token
// and COMMENT ... IS NULL all rewrite or unguard its rows), a schema
// holding one, a trigger or rule (which changes what every later write
// sets off, unseen by the analysis of the other queries), and any DDL
// whose expressions (a DEFAULT or USING evaluated for every row, an index
// expression) call functions that may write a fenced table.
func (a *analyzer) queryDDL(q *Query, n sqlparse.Node) {
	a.queryDDLResolution(q)
	var names []sqlparse.Name
	what := ""
	switch n := n.(type) {
	case *sqlparse.AlterTable:
		names, what = []sqlparse.Name{n.Table}, "ALTER TABLE"
	case *sqlparse.Drop:
		what = "DROP " + strings.ToUpper(n.Kind)
		if ds := rawDrop(a.stmt.Raw); ds != nil {
			// As written: DROP DOMAIN, DROP PROCEDURE, DROP ROUTINE.
			what = "DROP " + strings.ToUpper(objectWord(ds.RemoveType))
		}
		switch n.Kind {
		case "schema":
			for _, nm := range n.Names {
				for _, t := range a.cat.FencedTables() {
					if t.Schema == nm.Name {
						a.refuseFenced(a.stmt.Start, t, "query %s drops schema %s, and with it fenced table %s and its rows; schema changes belong in the schema files (migrations), which fencegen reads", q.Name, nm.Name, t.QualifiedName())
					}
				}
			}
		case "trigger", "rule":
			names = n.On
		case "function", "routine", "aggregate", "operator", "cast", "transform", "opclass", "opfamily", "extension", "language":
			// Each drops functions (an extension its members, a language
			// the functions written in it, with CASCADE), which changes
			// what the calls of the same name resolve to, and with
			// CASCADE the triggers that run them: the guard trigger too.
			a.refuseAnyFenced(a.stmt.Start, "query %s runs %s, which changes what the triggers (the guard trigger among them), defaults and queries that call its functions do, unseen by fencegen's analysis of the other queries; schema changes belong in the schema files (migrations), which fencegen reads", q.Name, what)
			return
		default:
			if !dropKindClassified[n.Kind] {
				a.refuseAnyFenced(a.stmt.Start, "query %s runs %s, a schema statement fencegen does not classify, so it cannot show that it leaves the fenced tables and their guard alone; schema changes belong in the schema files (migrations), which fencegen reads", q.Name, what)
				return
			}
			names = n.Names
		}
		if n.Cascade && a.dropCascadeReaches(q, n, what) {
			return
		}
	case *sqlparse.AlterEnum:
		if n.OldValue != "" {
			if t, col := a.fencedTypeUser(n.Type); t != nil {
				a.refuseFenced(a.stmt.Start, t, "query %s runs ALTER TYPE %s RENAME VALUE, which changes the value stored in column %s of fenced table %s in every row that holds it, without the guard; schema changes belong in the schema files (migrations), which fencegen reads", q.Name, n.Type.Name, col, t.QualifiedName())
				return
			}
		}
	case *sqlparse.Rename:
		names, what = []sqlparse.Name{n.Target}, "ALTER ... RENAME"
		for _, m := range n.More {
			names = append(names, m.Target)
		}
	case *sqlparse.AlterObjectSchema:
		names, what = []sqlparse.Name{n.Target}, "ALTER ... SET SCHEMA"
	case *sqlparse.Comment:
		names, what = []sqlparse.Name{n.Target}, "COMMENT"
	case *sqlparse.CreateIndex:
		names, what = []sqlparse.Name{n.Table}, "CREATE INDEX"
	case *sqlparse.CreateTrigger, *sqlparse.CreateRule:
		a.refuseAnyFenced(a.stmt.Start, "query %s creates a trigger or rule, which changes what later writes set off, unseen by fencegen's analysis of the other queries; schema changes belong in the schema files (migrations), which fencegen reads", q.Name)
		return
	case *sqlparse.CreateFunction:
		a.refuseAnyFenced(a.stmt.Start, "query %s creates a function, which may replace one that triggers, defaults and queries call, unseen by fencegen's analysis of the other queries; schema changes belong in the schema files (migrations), which fencegen reads", q.Name)
		return
	}
	for _, nm := range names {
		t := a.cat.Table(nm.Schema, nm.Name)
		if t == nil {
			continue
		}
		fenced := t.Fence
		if fenced == nil {
			if d := a.cat.FencedDescendants(t); len(d) > 0 {
				t = d[0]
				fenced = t.Fence
			}
		}
		if fenced != nil {
			a.refuseFenced(a.stmt.Start, t, "query %s runs %s on fenced table %s: it can drop, rewrite or unguard the table's rows and its fencing token column without the guard (ALTER COLUMN ... TYPE ... USING rewrites every row), and fencegen reads the schema from the schema files only; schema changes belong there (migrations)", q.Name, what, t.QualifiedName())
		}
	}
	a.eventTriggerWrites(q, "runs a schema statement, which fires")
	if _, ok := n.(*sqlparse.CreateView); ok {
		return // its query's calls are checked as a SELECT's (checkFuncWrites)
	}
	var ws []hiddenWrite
	fresh := a.createsFreshRelation()
	a.funcs.mu.Lock()
	if a.stmt.Raw != nil {
		names := writes.Names(a.stmt.Raw)
		if fresh {
			// What a new table's DEFAULTs and CHECKs call runs for
			// rows no query fencegen passes can write.
			names = writes.NamesAtCreation(a.stmt.Raw)
		}
		ws = a.funcs.nameWritesLocked(names, true)
	} else {
		ws = a.funcs.scanWritesLocked(stripSQLComments(string(a.file.Src[a.stmt.Start:a.stmt.End])), true)
	}
	a.funcs.mu.Unlock()
	for _, w := range ws {
		a.refuseHidden(a.stmt.Start, w, "%s", setOffMsg(q.Name, "runs a schema statement that calls", w))
	}
}

// eventTriggerWrites refuses, once per statement, what the schema's event
// triggers that fire for the statement may write (those with WHEN TAG IN
// (...) only for a statement of a tag listed): schema statements
// (queryDDL), and the others PostgreSQL fires them for, SELECT INTO and
// REFRESH MATERIALIZED VIEW among them (writes.FiresEventTriggers; trial
// pg4 F11). how says what the statement does, for the message.
func (a *analyzer) eventTriggerWrites(q *Query, how string) {
	if a.eventsChecked {
		return
	}
	a.eventsChecked = true
	a.funcs.mu.Lock()
	var evws []hiddenWrite
	tag := ""
	if a.stmt.Raw != nil {
		tag = writes.CommandTag(a.stmt.Raw)
	}
	for _, h := range a.cat.Hooks {
		if h.Kind != "event trigger" {
			continue
		}
		if len(h.Tags) > 0 && tag != "" && !slices.Contains(h.Tags, tag) {
			// WHEN TAG IN (...) without the statement's command tag:
			// PostgreSQL does not fire it for this statement.
			continue
		}
		for _, f := range a.funcs.namedInLocked(h.Text) {
			for _, w := range a.funcs.ofLocked(f) {
				w.path = append([]string{fmt.Sprintf("event trigger (%s:%d) → %s()", h.File, h.Line, f.Name)}, w.steps()...)
				evws = append(evws, w)
			}
		}
	}
	a.funcs.mu.Unlock()
	for _, w := range evws {
		a.refuseHidden(a.stmt.Start, w, "%s", setOffMsg(q.Name, how, w))
	}
}

// unwrapRaw is the statement a RawStmt node wraps, or n itself when it
// is not one.
func unwrapRaw(n *pg.Node) *pg.Node {
	if rs := n.GetRawStmt(); rs != nil {
		return rs.Stmt
	}
	return n
}

// rawDrop is the DropStmt of raw, or nil.
func rawDrop(raw *pg.Node) *pg.DropStmt {
	if raw == nil {
		return nil
	}
	return unwrapRaw(raw).GetDropStmt()
}

// dropKindClassified are the kinds of DROP (sqlparse.Drop.Kind) a query
// file may run while the schema has a fenced table, without CASCADE,
// when it names no fenced table (queryDDL; with CASCADE,
// dropCascadeReaches decides): relations, indexes, types, collations,
// schemas, triggers, rules, and objects no fenced table's column or
// guard can depend on. A kind not here is refused (issue 24: DROP
// ROUTINE and DROP EXTENSION ... CASCADE removed the guard trigger).
var dropKindClassified = map[string]bool{
	"table": true, "view": true, "materialized view": true, "foreign_table": true, "index": true, "sequence": true,
	"type": true, "collation": true, "schema": true, "trigger": true, "rule": true, "policy": true,
	"statistic_ext": true, "publication": true, "event_trigger": true,
}

// dropCascadeReaches refuses DROP ... CASCADE (n) when what PostgreSQL
// drops with the object may be a column, default, trigger or function of
// a fenced table or of its guard, and reports whether it refused. The
// dependents it reads: a relation's row type as a fenced column's type;
// a type or domain a fenced column is of (an array of it, a domain over
// it, a composite or range type that may hold it); and, for any other
// kind (a collation, a sequence, a text search configuration, a schema
// holding types or functions), anything, as fencegen does not model
// those dependencies.
func (a *analyzer) dropCascadeReaches(q *Query, n *sqlparse.Drop, what string) bool {
	if a.errAt[a.stmt.Start] {
		return true // refused already (DROP SCHEMA of a fenced table's)
	}
	for _, nm := range n.Names {
		if t := a.cat.Table(nm.Schema, nm.Name); t != nil && (t.Fence != nil || len(a.cat.FencedDescendants(t)) > 0) {
			return false // queryDDL refuses the drop of a fenced table
		}
	}
	switch n.Kind {
	case "table", "view", "materialized view", "foreign_table", "type":
		for _, nm := range n.Names {
			if t, col := a.fencedTypeUser(nm); t != nil {
				a.refuseFenced(a.stmt.Start, t, "query %s runs %s %s CASCADE, which drops column %s of fenced table %s (of that type, or of one over it) and every row's value in it, without the guard; %s", q.Name, what, nm.Name, col, t.QualifiedName(), belongs)
				return true
			}
		}
		return false
	case "index", "trigger", "rule", "policy", "statistic_ext", "publication", "event_trigger":
		// Their dependents are constraints, statistics and publications
		// (DROP TRIGGER and DROP RULE name their table, checked above).
		return false
	case "schema":
		held := false
		for _, nm := range n.Names {
			if s := a.cat.Schema(nm.Name); s != nil && (len(s.Types) > 0 || len(s.Enums) > 0 || len(s.Funcs) > 0) {
				held = true
			}
		}
		if !held {
			return false
		}
	}
	a.refuseAnyFenced(a.stmt.Start, "query %s runs %s ... CASCADE, which drops what depends on it, and that may be a column, default or trigger of a fenced table or the guard's function, without the guard; without CASCADE PostgreSQL refuses a drop that would; %s", q.Name, what, belongs)
	return true
}

// fencedTypeUser returns a fenced table, and its column, whose column
// may be of the type or relation row type nm names: of it, an array of
// it, a domain over it, or of a composite or range type (which may hold
// it); nil when none.
func (a *analyzer) fencedTypeUser(nm sqlparse.Name) (*catalog.Table, string) {
	for _, t := range a.cat.FencedTables() {
		for _, c := range t.Columns {
			if c.DependsOnType(nm.Schema, nm.Name) {
				return t, c.Name
			}
			if u := a.cat.UserType(c.Type.Schema, c.Type.Name); u != nil && u.Kind != "domain" {
				return t, c.Name
			}
			if c.Type.Schema != "pg_catalog" && a.cat.Enum(c.Type.Schema, c.Type.Name) == nil && a.cat.UserType(c.Type.Schema, c.Type.Name) == nil {
				// A relation's row type, or a type fencegen does not know.
				return t, c.Name
			}
		}
	}
	return nil, ""
}

// builtinTriggerFuncs are PostgreSQL's own trigger functions (pg_catalog,
// prorettype trigger, other than the RI_FKey_ ones foreign keys use): they
// change the row at hand or skip it, and write no table.
var builtinTriggerFuncs = map[string]bool{
	"suppress_redundant_updates_trigger": true, "tsvector_update_trigger": true,
	"tsvector_update_trigger_column": true, "unique_key_recheck": true,
}

// extensionTriggerFunc is a trigger function of a contrib extension
// whose behaviour is known (PostgreSQL docs, F.41 spi): it sets the
// column of NEW named by the trigger's first argument and writes no
// table (autoinc's nextval advances a sequence, which the guard does not
// read); used as anything but a BEFORE ROW trigger it fails. Every other
// extension function stays unread, so refused.
type extensionTriggerFunc struct {
	extension string
}

// extensionTriggers are the known extension trigger functions by name.
var extensionTriggers = map[string]extensionTriggerFunc{
	"moddatetime":     {"moddatetime"},     // NEW.col := current timestamp
	"insert_username": {"insert_username"}, // NEW.col := current user name
	"autoinc":         {"autoinc"},         // NEW.col := nextval(seq) where 0 or NULL
}

// knownExtensionTriggers lists extensionTriggers' functions, for hints.
func knownExtensionTriggers() string {
	return "moddatetime(), insert_username() and autoinc()"
}

// extensionTriggerOf returns what the function of tr is when it is a
// known extension trigger function (extensionTriggers) that cat's schema
// does not define itself, whose extension the schema creates (CREATE
// EXTENSION), named unqualified or in the extension's schema; else nil.
func extensionTriggerOf(cat *catalog.Catalog, tr *catalog.Trigger) *extensionTriggerFunc {
	et, ok := extensionTriggers[tr.Func.Name]
	if !ok || len(cat.TriggerFuncs(tr)) > 0 {
		return nil
	}
	schema, ok := cat.Extensions[et.extension]
	if !ok || tr.Func.Schema != "" && tr.Func.Schema != schema {
		return nil
	}
	return &et
}

// builtinTrigger reports whether a trigger runs one of
// builtinTriggerFuncs (unqualified or pg_catalog.).
func builtinTrigger(n sqlparse.Name) bool {
	return (n.Schema == "" || n.Schema == "pg_catalog") && builtinTriggerFuncs[n.Name]
}

// noteReplicationRole notes a query that sets session_replication_role
// (SET, SET LOCAL, set_config; in a DO block, or in the body of a function
// it calls, at any depth) while the schema has a fenced table: SET
// session_replication_role = replica (superusers only) stops ordinary
// triggers, the guard trigger of fencegen_guard.sql among them, for the
// rest of the session, which on a pooled connection outlives the query
// (PostgreSQL docs 19.11.1). The generated writes keep their guard in the
// statement; a hand-written one on that connection goes unchecked. It
// writes no row, so it is a note. The write analysis finds it on the parse
// tree (writes.Report.ReplicationRole), not in the text.
func (a *analyzer) noteReplicationRole(q *Query) {
	if a.funcs == nil || a.rep == nil {
		return
	}
	loc, via := -1, ""
	if len(a.rep.ReplicationRole) > 0 {
		loc = a.rep.ReplicationRole[0]
	}
	for _, c := range a.rep.Calls {
		if loc >= 0 {
			break
		}
		for _, f := range a.candidatesOf(c) {
			if a.funcs.setsReplicationRole(f) {
				loc, via = c.Loc, " (in the body of "+f.Name+"())"
				break
			}
		}
	}
	if loc < 0 {
		return
	}
	line, col := diag.Position(a.file.Src, a.clampLoc(loc))
	q.Notes = append(q.Notes, fmt.Sprintf("%s:%d:%d: note: query %s sets session_replication_role%s: set to replica it stops the fencing guard's trigger for the rest of the session (SET LOCAL: of the transaction), on a pooled connection for later queries too; fencegen's generated writes keep their guard in the statement", a.file.Name, line, col, q.Name, via))
}

// setsReplicationRole reports whether f's body, or a function it calls,
// sets session_replication_role (see noteReplicationRole). A body
// fencegen does not read counts as not setting it: this is a note, and
// such a call is refused while it may write a fenced table.
func (fw *funcWrites) setsReplicationRole(f *catalog.Func) bool {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	return fw.setsLocked(f, fw.role, func(r *writes.Report) bool { return len(r.ReplicationRole) > 0 }, map[*catalog.Func]bool{})
}

// setsStringSettings reports whether f's body, or a function it calls,
// sets standard_conforming_strings to other than on or client_encoding to
// other than UTF8 (writes.Report.StringSettings; a constant EXECUTE
// included), as a query's own SET is refused for (offStrings; trial r24
// N2).
func (fw *funcWrites) setsStringSettings(f *catalog.Func) bool {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	return fw.setsLocked(f, fw.strs, func(r *writes.Report) bool { return len(r.StringSettings) > 0 }, map[*catalog.Func]bool{})
}

func (fw *funcWrites) setsLocked(f *catalog.Func, cache map[*catalog.Func]bool, sets1 func(*writes.Report) bool, seen map[*catalog.Func]bool) bool {
	if v, ok := cache[f]; ok {
		return v
	}
	if seen[f] {
		return false
	}
	seen[f] = true
	sets := false
	if f.Language == "sql" || f.Language == "plpgsql" {
		if b, err := writes.Body(f.Language, f.Body, f.Source); err == nil {
			for _, st := range b.Stmts {
				rep := writes.OfTree(st)
				if sets1(rep) {
					sets = true
				}
				for _, c := range rep.Calls {
					for _, g := range candidatesIn(fw.cat, c) {
						if !sets && g != f && fw.setsLocked(g, cache, sets1, seen) {
							sets = true
						}
					}
				}
			}
		}
	}
	cache[f] = sets
	return sets
}

// narrowPolicies refuses a guarded UPDATE or DELETE (an upsert's DO
// UPDATE included) of fenced table t whose row-level security policies
// for that command differ from those for SELECT (issue 24): a row the
// guard reads (SELECT's policies) but the write's policies exclude is
// skipped by PostgreSQL without an error, which the generated method
// could only report as a concurrent change (*fence.ConcurrentChangeError
// after its retries, by key) or fence.ErrNotFound (many rows), though
// nothing else touched the row. The policies are compared by command,
// PERMISSIVE or RESTRICTIVE, roles and USING expression (PostgreSQL's
// deparsed text); a policy changed by ALTER POLICY, or one whose text
// does not parse, counts as different.
func (a *analyzer) narrowPolicies(t *catalog.Table, events []string, loc int) {
	if !t.RowSecurity {
		return // PostgreSQL applies no policy of t
	}
	sel, ok := policyQuals(t, "select")
	for _, ev := range []string{"UPDATE", "DELETE"} {
		if !slices.Contains(events, ev) {
			continue
		}
		w, wok := policyQuals(t, strings.ToLower(ev))
		if ok && wok && slices.Equal(sel, w) {
			continue
		}
		kind := strings.ToLower(ev)
		a.refuseFenced(loc, t, "query %s runs a guarded %s of fenced table %s, whose row-level security policies for %s differ from those for SELECT (or fencegen cannot read them): PostgreSQL skips, without an error, a row the guard reads but the %s policies exclude, and the guard cannot tell a skipped row from one that changed or went away concurrently, so the method would fail with a retryable-looking *fence.ConcurrentChangeError (by key) or fence.ErrNotFound (many rows) though nothing else touched it; give %s the same USING as SELECT (a FOR ALL policy), or check the rows it excludes in a WITH CHECK or trigger that raises an exception",
			a.ann.Name, kind, t.QualifiedName(), ev, ev, ev)
		return
	}
}

// policyQuals returns, sorted, the policies of t that apply to command
// cmd ("select", "update", "delete"; FOR ALL ones too), each as its kind,
// roles and deparsed USING expression; ok is false when a policy hook of
// t is not a CREATE POLICY fencegen reads (ALTER POLICY, text that does
// not parse).
func policyQuals(t *catalog.Table, cmd string) (out []string, ok bool) {
	for _, h := range t.Hooks {
		if h.Kind != "policy" {
			continue
		}
		tree, err := pgpb.Parse(h.Text)
		if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetCreatePolicyStmt() == nil {
			return nil, false
		}
		p := tree.Stmts[0].Stmt.GetCreatePolicyStmt()
		if c := strings.ToLower(p.CmdName); c != "all" && c != cmd {
			continue
		}
		var roles []string
		for _, r := range p.Roles {
			rs := r.GetRoleSpec()
			roles = append(roles, fmt.Sprintf("%d:%s", rs.GetRoletype(), rs.GetRolename()))
		}
		slices.Sort(roles)
		using := ""
		if p.Qual != nil {
			sel := &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{
				TargetList: []*pg.Node{pg.MakeResTargetNodeWithVal(p.Qual, -1)}, Op: pg.SetOperation_SETOP_NONE}}}
			text, err := pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: sel}}})
			if err != nil {
				return nil, false
			}
			using = text
		}
		out = append(out, fmt.Sprintf("%v|%s|%s", p.Permissive, strings.Join(roles, ","), using))
	}
	slices.Sort(out)
	return out, true
}

// offStrings refuses, while the schema has a fenced table, a query whose
// text PostgreSQL reads otherwise when standard_conforming_strings is off
// (issue 24): a backslash in an ordinary string constant, in the query or
// in a dollar-quoted body it holds (sqlparse.OffValue), or a statement
// that sets the setting off. fencegen reads every text as PostgreSQL does
// with it on, its default; off (the server's, database's or role's
// setting, or a session's SET on a pooled connection), 'a\' goes on past
// its quote, so the statement PostgreSQL runs may hold writes fencegen
// never saw.
func (a *analyzer) offStrings(q *Query) {
	text := string(a.file.Src[a.stmt.Start:a.stmt.End])
	if at := sqlparse.OffValue(text, true); at >= 0 {
		a.refuseAnyFenced(a.stmt.Start+at, "query %s has a string constant with a backslash, which PostgreSQL reads otherwise when standard_conforming_strings is off (a server, database, role or session setting fencegen cannot see): the backslash then escapes the next character, a quote included, so the statement run may not be the one fencegen analysed; write it as an escape string E'...' with the backslash doubled (E'a\\\\b' for a\\b)", q.Name)
	}
	loc, via := -1, ""
	if len(a.rep.StringSettings) > 0 {
		loc = a.rep.StringSettings[0]
		if loc < 0 {
			loc = a.stmt.Start
		}
	}
	for _, c := range a.rep.Calls {
		if loc >= 0 || a.funcs == nil {
			break
		}
		for _, f := range a.candidatesOf(c) {
			if a.funcs.setsStringSettings(f) {
				loc, via = c.Loc, " (in the body of "+f.Name+"())"
				break
			}
		}
	}
	if loc >= 0 {
		a.refuseAnyFenced(loc, "query %s sets standard_conforming_strings to other than on, or client_encoding to other than UTF8%s: for the rest of the session (on a pooled connection, for later queries too) PostgreSQL then reads a backslash in an ordinary string constant as an escape, or a byte before a backslash as the first of a character (SJIS, BIG5, GBK), so a constant of a later statement may end elsewhere than fencegen reads it; leave the settings as they are", q.Name, via)
	}
}

// maintenance judges a query that is VACUUM, ANALYZE or CLUSTER, of the
// relations it names (and their partitions and inheritance children) or,
// naming none, of every table: PostgreSQL changes no row's values there
// and fires no trigger, but it evaluates the expressions and predicates of
// their indexes and runs their operator classes' support functions
// (ANALYZE's statistics of expression indexes, VACUUM FULL's and
// CLUSTER's rebuilt indexes and CLUSTER's sort by its index, BRIN
// summaries) and asks a foreign table's server (ANALYZE). Those that may
// write a fenced table are refused, with the index or foreign table
// named; with none the query is read-only (trial: ANALYZE, and CLUSTER,
// were refused as statements fencegen does not analyse). CLUSTER rewrites
// the table's rows as they are: no DEFAULT, CHECK, generated column or
// trigger runs (PostgreSQL docs, CLUSTER). It reports false, leaving the
// statement refused as unanalysed, for a relation the schema does not
// define, for a schema with CREATE STATISTICS (whose expressions ANALYZE
// evaluates, and which fencegen does not read), and inside a function
// body or DO block (class Refused there).
func (a *analyzer) maintenance(q *Query) bool {
	if a.funcs == nil || a.cat.HasStatistics {
		return false
	}
	var what string
	var rels []*pg.RangeVar
	switch {
	case a.stmt.Raw.GetVacuumStmt() != nil:
		v := a.stmt.Raw.GetVacuumStmt()
		what = "VACUUM"
		if !v.IsVacuumcmd {
			what = "ANALYZE"
		}
		for _, r := range v.Rels {
			rv := r.GetVacuumRelation().GetRelation()
			if rv == nil {
				return false
			}
			rels = append(rels, rv)
		}
	case a.stmt.Raw.GetClusterStmt() != nil:
		what = "CLUSTER"
		// CLUSTER without a table: every table clustered before.
		if rv := a.stmt.Raw.GetClusterStmt().Relation; rv != nil {
			rels = append(rels, rv)
		}
	default:
		return false
	}
	var tables []*catalog.Table
	if len(rels) == 0 {
		for _, s := range a.cat.Schemas {
			for _, t := range s.Tables {
				if !t.IsView {
					tables = append(tables, t)
				}
			}
		}
	}
	for _, rv := range rels {
		t := a.cat.Table(rv.Schemaname, rv.Relname)
		if t == nil {
			return false
		}
		tables = append(append(tables, t), a.cat.Relatives(t)...)
	}
	var ws hiddenWrites
	a.funcs.mu.Lock()
	for _, t := range tables {
		for _, h := range t.Hooks {
			switch h.Kind {
			case "index":
				for _, w := range a.funcs.hookWritesLocked(h.Text, t, true) {
					ws.add(what+", which evaluates "+hookWhere(h, t), w)
				}
			case "foreign":
				ws.add(fmt.Sprintf("foreign table %s (%s:%d)", t.QualifiedName(), h.File, h.Line), hiddenWrite{verb: "statements fencegen cannot see", at: -1,
					unknown: what + " of foreign table " + t.QualifiedName() + " runs what its foreign server runs, which may be this database"})
			}
		}
	}
	a.funcs.mu.Unlock()
	for _, w := range ws {
		a.refuseHidden(a.stmt.Start, w, "%s", setOffMsg(q.Name, "runs", w))
	}
	return true
}
