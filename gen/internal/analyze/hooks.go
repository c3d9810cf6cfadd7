package analyze

// Writes PostgreSQL sets off beyond the statement's own: the triggers,
// rules, defaults, CHECKs, generated columns and index expressions of the
// tables it writes (and of their partitions, children and parents), the
// foreign-key actions of those writes, followed through the tables they
// write, and the functions that views, operators, casts, aggregates and
// domains run (catalog.Hook). Each is followed to the fenced tables its
// functions write; anything fencegen cannot read counts as a write of any
// fenced table.
//
// What a statement, a view's query, a default, a CHECK, a policy or a
// domain's definition refers to is read from its parse tree (the names of
// writes.Names), so a name is found however it is written and a comment or
// string literal that spells one is none; only the body of a function in a
// language fencegen does not parse is still scanned as text
// (scanWritesLocked), string literals included.

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/pgpb"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/writes"
)

// steps is the chain of w for messages.
func (w hiddenWrite) steps() []string {
	if len(w.path) > 0 {
		return w.path
	}
	var names []string
	for _, g := range w.via {
		names = append(names, g.Name+"()")
	}
	return names
}

// verbEvents are the trigger events of a write by verb (a statement in a
// function body).
func verbEvents(verb string) []string {
	switch verb {
	case "MERGE":
		return []string{"INSERT", "UPDATE", "DELETE"}
	case "COPY":
		return []string{"INSERT"}
	}
	return []string{verb}
}

// remoteSQLRE finds, in text no parser reads, calls of remoteSQLFuncs.
// unicodeIdentRE finds a Unicode-escaped identifier, U&"..." (PostgreSQL
// docs 4.1.1, "Identifiers and Key Words").
var unicodeIdentRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bu&"`) })

var remoteSQLRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:\bdblink(?:_exec|_send_query|_open)?|\bpg_background_launch|\bcron\s*\.\s*schedule(?:_in_database)?)\s*\(`)
})

// hookWhere names hook h of relation x for messages.
func hookWhere(h *catalog.Hook, x *catalog.Table) string {
	what := map[string]string{"table": "the defaults, CHECKs or generated columns of %s", "index": "an index on %s", "view": "view %s", "policy": "a policy on %s"}[h.Kind]
	if what == "" {
		what = "%s"
	}
	if h.Kind == "view" && !x.IsView {
		// CREATE TABLE ... AS: a table, whose query gave its columns
		// their types (a domain's among them).
		what = "table %s, whose columns take their types from its CREATE TABLE ... AS query"
	}
	return fmt.Sprintf(what+" (%s:%d)", x.QualifiedName(), h.File, h.Line)
}

// tableWritesLocked returns the writes of fenced tables that a write of
// t (events: "INSERT", "UPDATE", "DELETE", "TRUNCATE") sets off: its
// hooks' functions and its relatives' triggers and hooks, its foreign-key
// actions (the fenced tables they reach, and what writing the others sets
// off) and, when own is set, t's own triggers and rules (the analyzer
// reports those of a statement's target itself, sound.go). fw.mu must be
// held.
//
// cols are the columns an UPDATE sets (nil: any), which decide the ON
// UPDATE actions; targets the columns its SET lists name
// (writes.Write.Targets; nil: any), which decide the UPDATE OF triggers
// that fire (catalog.Trigger.FiresOn); noDefault the columns whose DEFAULT the write never
// evaluates ("*" every column; writes.Write.NoDefault), whose default
// expressions are left out of t's and its relatives' table statements
// (their CHECKs and generated columns still run); with noFK set the
// foreign-key actions are left out (a table that AllCascades reached,
// whose own actions it followed). With only set (UPDATE ONLY t, DELETE
// FROM ONLY t, ...: writes.Write.Only) t's partitions and inheritance
// children are not written, so their triggers and hooks are left out
// (a partitioned table's own rows are none: PostgreSQL runs UPDATE ONLY
// and DELETE ONLY of one without touching a partition).
func (fw *funcWrites) tableWritesLocked(t *catalog.Table, events []string, cols, targets, noDefault []string, own, noFK, only bool) []hiddenWrite {
	if fw.busyTables[t] {
		return nil
	}
	fw.busyTables[t] = true
	defer delete(fw.busyTables, t)
	var ws []hiddenWrite
	add := func(step string, w hiddenWrite) {
		w.path = append([]string{step}, w.steps()...)
		for _, x := range ws {
			if x.table == w.table && x.verb == w.verb && x.unknown == w.unknown {
				return
			}
		}
		ws = append(ws, w)
	}
	if own {
		// As another sql entry's schema declares t (the entries share a
		// database): a table reached through a foreign key, a view's base
		// relation, a table a body writes. A statement's own target is
		// judged by sharedWrites.
		if r, _ := sharedReach(fw.cat, t.Schema, t.Name, t, events, cols, targets, false); r != nil {
			add("the schema of "+r.Entry, hiddenWrite{verb: "statements fencegen cannot see",
				unknown: fmt.Sprintf("in the schema of %s (the same database) a write of %s writes %s, which the schema of this sql entry does not declare", r.Entry, t.QualifiedName(), r.What)})
		}
	}
	// Defaults, CHECKs, generated columns and index expressions run on
	// INSERT and UPDATE; policies on every write but TRUNCATE.
	trigEvents := rowMoveEvents(fw.cat, t, events)
	rowValues := slices.Contains(events, "INSERT") || slices.Contains(events, "UPDATE")
	rows := rowValues || slices.Contains(events, "DELETE")
	tables := append([]*catalog.Table{t}, fw.cat.Relatives(t)...)
	if only {
		below := fw.cat.Descendants(t)
		tables = slices.DeleteFunc(tables, func(x *catalog.Table) bool { return slices.Contains(below, x) })
	}
	for _, x := range tables {
		for _, h := range x.Hooks {
			switch h.Kind {
			case "table", "index":
				if !rowValues {
					continue
				}
			case "policy":
				if !rows || !x.RowSecurity {
					continue // a table without ROW LEVEL SECURITY enabled applies none
				}
			}
			if h.Kind == "foreign" {
				add(fmt.Sprintf("foreign table %s (%s:%d)", x.QualifiedName(), h.File, h.Line), hiddenWrite{verb: "statements fencegen cannot see",
					unknown: "PostgreSQL sends its writes to a foreign server, which may be this database (postgres_fdw), and runs whatever that server's triggers and rules run"})
			}
			text := h.Text
			if h.Kind == "table" && len(noDefault) > 0 {
				// The text names x's columns as they were named when it
				// was written (catalog.Table.TextNoDefault).
				if names, ok := fw.tableNamesLocked(text, x.TextNoDefault(noDefault)); ok {
					for _, w := range fw.nameWritesLocked(fw.boundNamesLocked(names, x), true) {
						add(hookWhere(h, x), w)
					}
					continue
				}
			}
			for _, w := range fw.hookWritesLocked(text, x, true) {
				add(hookWhere(h, x), w)
			}
		}
		if rowValues {
			fw.columnTypeWritesLocked(x, add)
		}
		for _, tr := range x.Triggers {
			// A trigger's WHEN condition runs for every row too (its
			// function is followed above, or by setsOff).
			if !tr.FiresOn(x, trigEvents, targets) {
				continue
			}
			for _, f := range fw.namedInLocked(tr.Text) {
				if f.Name == tr.Func.Name {
					continue
				}
				for _, w := range fw.ofLocked(f) {
					add(fmt.Sprintf("trigger %s on %s (%s:%d), whose WHEN condition or arguments name %s()", tr.Name, x.QualifiedName(), tr.File, tr.Line, f.Name), w)
				}
			}
		}
		if x == t && !own {
			continue
		}
		for _, tr := range x.Triggers {
			if !tr.FiresOn(x, trigEvents, targets) {
				continue
			}
			step := fmt.Sprintf("trigger %s on %s (%s:%d)", tr.Name, x.QualifiedName(), tr.File, tr.Line)
			fs := fw.cat.TriggerFuncs(tr)
			if len(fs) == 0 && !builtinTrigger(tr.Func) {
				add(step, hiddenWrite{verb: "statements fencegen cannot see", unknown: "its function " + tr.Func.String() + "() is not defined in the schema"})
			}
			for _, f := range fs {
				for _, w := range fw.ofLocked(f) {
					add(step+" → "+f.Name+"()", w)
				}
			}
		}
		if x != t {
			continue // a relative's rules do not fire for t
		}
		for _, r := range x.Rules {
			if !r.Fires() || !slices.Contains(events, r.Event) {
				continue
			}
			step := fmt.Sprintf("rule %s on %s (%s:%d)", r.Name, x.QualifiedName(), r.File, r.Line)
			if r.Raw != nil {
				// The actions' whole parse trees (package writes).
				for _, act := range r.Raw {
					for _, w := range fw.treeWritesLocked(act) {
						add(step, w)
					}
				}
				continue
			}
			for _, act := range r.Actions {
				walk(act, func(n sqlparse.Node) {
					for _, w := range fw.nodeWritesLocked(n) {
						add(step, w)
					}
				})
			}
		}
	}
	ops := map[string]string{"DELETE": "delete", "UPDATE": "update", "TRUNCATE": ""}
	for _, ev := range events {
		op, ok := ops[ev]
		if !ok || op == "" || noFK {
			continue
		}
		for _, c := range fw.cat.AllCascades(t, op, cols) {
			step := "foreign keys " + c.Path
			if c.Table.Fence != nil {
				if own {
					add(step, hiddenWrite{table: c.Table, verb: c.Event})
				}
				continue
			}
			for _, w := range fw.tableWritesLocked(c.Table, []string{c.Event}, c.Columns, nil, nil, true, true, false) {
				add(step, w)
			}
		}
	}
	return ws
}

// rowMoveEvents are the row triggers' events of a write (events) of t:
// an UPDATE of a table with partitions may move a row to another
// partition, which PostgreSQL performs as a DELETE from the one (its
// BEFORE and AFTER DELETE row triggers fire) and an INSERT into the other
// (its INSERT row triggers), the partitioned table's own row triggers
// being cloned onto every partition (PostgreSQL docs, CREATE TRIGGER,
// Notes).
func rowMoveEvents(cat *catalog.Catalog, t *catalog.Table, events []string) []string {
	if !slices.Contains(events, "UPDATE") {
		return events
	}
	for _, x := range cat.Relatives(t) {
		for p := x.PartitionOf(); p != nil; p = p.PartitionOf() {
			if p == t {
				out := slices.Clone(events)
				for _, e := range []string{"INSERT", "DELETE"} {
					if !slices.Contains(out, e) {
						out = append(out, e)
					}
				}
				return out
			}
		}
	}
	return events
}

// textWritesLocked returns the writes of fenced tables that running SQL
// text may set off through what it names: the views it reads (their
// queries), the operators, casts and domains whose functions may run, and,
// when funcs is set, every function it names (a word that names a
// function counts as a call). fw.mu must be held.
func (fw *funcWrites) textWritesLocked(text string, funcs bool) []hiddenWrite {
	return fw.hookWritesLocked(text, nil, funcs)
}

// hookWritesLocked is textWritesLocked for the text of a hook of
// relation own (see boundNamesLocked). fw.mu must be held.
func (fw *funcWrites) hookWritesLocked(text string, own *catalog.Table, funcs bool) []hiddenWrite {
	if names, ok := fw.namesLocked(text); ok {
		return fw.nameWritesLocked(fw.boundNamesLocked(names, own), funcs)
	}
	return fw.scanWritesLocked(text, funcs)
}

// boundNamesLocked returns names, the names of text stored in the schema
// (a view's query, a rule's action, a table's or policy's expressions),
// with the present names of the relations and types that one of them
// named before an ALTER ... RENAME TO (catalog.Table.Former,
// catalog.UserType.Former): PostgreSQL bound the text to the relation or
// type itself when it was created, so it still reads, writes or coerces
// to it under its new name while a new one may have taken the old name
// (issue 24, F13). Both count, conservatively. own, when not nil, is the
// relation the text is a hook of: its own name there (CREATE VIEW v AS
// ...) names it, not a relation formerly of that name. names is not
// changed.
func (fw *funcWrites) boundNamesLocked(names map[string]bool, own *catalog.Table) map[string]bool {
	var out map[string]bool
	set := func(k string) {
		if names[k] || out[k] {
			return
		}
		if out == nil {
			out = maps.Clone(names)
		}
		out[k] = true
	}
	ownName := ""
	if own != nil {
		ownName = strings.ToLower(own.Name)
	}
	for _, s := range fw.cat.Schemas {
		for _, t := range s.Tables {
			for _, f := range t.Former {
				if f == ownName {
					continue
				}
				if names[f] {
					set(strings.ToLower(t.Name))
				}
				if names[writes.TypeKey+f] {
					set(writes.TypeKey + strings.ToLower(t.Name))
				}
				if names[writes.RelKey+f] {
					set(writes.RelKey + strings.ToLower(t.Name))
				}
			}
		}
		for _, ut := range s.Types {
			for _, f := range ut.Former {
				if names[f] {
					set(strings.ToLower(ut.Name))
				}
				if names[writes.TypeKey+f] {
					set(writes.TypeKey + strings.ToLower(ut.Name))
				}
			}
		}
	}
	if out == nil {
		return names
	}
	return out
}

// namesLocked returns the names the SQL text refers to, read from its
// parse tree (writes.Names), and whether it parsed: a schema statement (a
// hook's text), a query, or an expression (a parameter's DEFAULT, read as
// SELECT expr). fw.mu must be held.
func (fw *funcWrites) namesLocked(text string) (map[string]bool, bool) {
	if r, ok := fw.parsed[text]; ok {
		return r, r != nil
	}
	var names map[string]bool
	if tree, err := pgpb.Parse(text); err == nil {
		var nodes []*pg.Node
		for _, st := range tree.Stmts {
			nodes = append(nodes, st.Stmt)
		}
		names = writes.Names(nodes...)
	} else if tree, err := pgpb.Parse("SELECT " + text); err == nil && len(tree.Stmts) == 1 {
		names = writes.Names(tree.Stmts[0].Stmt)
	}
	fw.parsed[text] = names
	return names, names != nil
}

// tableNamesLocked is namesLocked for the text of a table hook (CREATE
// TABLE, ALTER TABLE or ALTER VIEW) read for a write that evaluates no
// DEFAULT of the columns noDefault ("*": of any column): the names of its
// parse tree without those columns' DEFAULT expressions (a column
// definition's DEFAULT, ALTER COLUMN ... SET DEFAULT); its CHECKs,
// generated columns and other defaults stay. ok is false when the text
// does not parse. fw.mu must be held.
func (fw *funcWrites) tableNamesLocked(text string, noDefault []string) (map[string]bool, bool) {
	key := text + "\x00" + strings.Join(noDefault, ",")
	if r, ok := fw.parsedTable[key]; ok {
		return r, r != nil
	}
	var names map[string]bool
	if tree, err := pgpb.Parse(text); err == nil {
		var nodes []*pg.Node
		for _, st := range tree.Stmts {
			nodes = append(nodes, st.Stmt)
		}
		all := slices.Contains(noDefault, "*")
		names = writes.NamesWithoutDefaults(func(col string) bool { return all || slices.Contains(noDefault, col) }, nodes...)
	}
	if fw.parsedTable == nil {
		fw.parsedTable = map[string]map[string]bool{}
	}
	fw.parsedTable[key] = names
	return names, names != nil
}

// noDefaultAt is writes.Write.NoDefault of the statement's write of t at
// loc, nil (any column's DEFAULT may run) when the write analysis found
// none there.
func (a *analyzer) noDefaultAt(t *catalog.Table, loc int) []string {
	w := a.writeAt(loc)
	if w == nil || a.cat.Table(w.Table.Schema, w.Table.Name) != t {
		return nil
	}
	return w.NoDefault
}

// onlyAt is writes.Write.Only of the statement's write of t at loc:
// false (the write reaches t's partitions and children) when the write
// analysis found none there.
func (a *analyzer) onlyAt(t *catalog.Table, loc int) bool {
	w := a.writeAt(loc)
	return w != nil && w.Only && a.cat.Table(w.Table.Schema, w.Table.Name) == t
}

// targetsAt is writes.Write.Targets of the statement's write of t at
// loc, with t's fencing token column, which the guard's SET adds; nil
// (any column) when the write analysis found none there.
func (a *analyzer) targetsAt(t *catalog.Table, loc int) []string {
	w := a.writeAt(loc)
	if w == nil || w.Targets == nil || a.cat.Table(w.Table.Schema, w.Table.Name) != t {
		return nil
	}
	if t.Fence != nil {
		return append(slices.Clone(w.Targets), t.Fence.Column)
	}
	return w.Targets
}

// remoteSQLFuncs are the functions that run SQL text on another
// connection or later (dblink, PostgreSQL docs F.11; the pg_background and
// pg_cron extensions), possibly in this database: what they run fencegen
// cannot see.
var remoteSQLFuncs = []string{"dblink", "dblink_exec", "dblink_send_query", "dblink_open", "pg_background_launch", "schedule", "schedule_in_database"}

// remoteIn returns the first function of names that runs SQL elsewhere,
// "" when none (cron.schedule counts with its schema).
func remoteIn(names map[string]bool) string {
	for _, f := range remoteSQLFuncs {
		if !names[f] {
			continue
		}
		if strings.HasPrefix(f, "schedule") {
			if !names["cron"] {
				continue
			}
			f = "cron." + f
		}
		return f
	}
	return ""
}

// implicitOps are the operators PostgreSQL applies where no operator is
// written (GROUP BY, DISTINCT, IN, CASE x WHEN, JOIN ... USING, ORDER BY,
// UNION, BETWEEN, LIKE): a user-defined one of these names, over a type
// of the schema, may run in any statement.
var implicitOps = map[string]bool{"=": true, "<>": true, "<": true, ">": true, "<=": true, ">=": true, "~~": true, "~~*": true, "!~~": true, "!~~*": true}

// namesRelation reports whether names (writes.Names) names relation
// name as a relation: where it runs a view's query or applies a table's
// policies (writes.RelKey); a map not from a parse tree by any name.
func namesRelation(names map[string]bool, name string) bool {
	n := strings.ToLower(name)
	if names[writes.RelsMarked] {
		return names[writes.RelKey+n]
	}
	return names[n]
}

// nameWritesLocked returns the writes of fenced tables that running a
// statement whose parse tree refers to names (writes.Names) may set off:
// the views it reads (their queries, followed the same way), the
// row-level security policies of the tables it reads, the operators,
// casts and domains whose functions may run, and, when funcs is set,
// every function it names (a name that names a function counts as a
// call). A function that runs SQL elsewhere (dblink, ...) counts as a
// write of any fenced table. fw.mu must be held.
func (fw *funcWrites) nameWritesLocked(names map[string]bool, funcs bool) []hiddenWrite {
	var ws hiddenWrites
	add := ws.add
	if funcs {
		for _, f := range fw.namedLocked(names) {
			for _, w := range fw.ofLocked(f) {
				add(f.Name+"()", w)
			}
		}
	}
	if fn := remoteIn(names); fn != "" {
		add("", hiddenWrite{verb: "statements fencegen cannot see", at: -1,
			unknown: "it calls " + fn + "(), which runs SQL on another connection, possibly to this database",
			direct:  "calls " + fn + "(), which runs SQL on another connection, possibly to this database, where fencegen cannot add the fencing guard; write the fenced writes as their own queries, which fencegen guards"})
	}
	for _, s := range fw.cat.Schemas {
		for _, v := range s.Tables {
			if len(v.Hooks) == 0 || fw.busyTables[v] || !namesRelation(names, v.Name) {
				continue
			}
			fw.busyTables[v] = true
			for _, h := range v.Hooks {
				if h.Kind == "foreign" {
					// A read of a foreign table runs what its server
					// runs: postgres_fdw's remote query may loop back to
					// this database (a view or function there that
					// writes), file_fdw's program option runs a program.
					add(fmt.Sprintf("foreign table %s (%s:%d)", v.QualifiedName(), h.File, h.Line), hiddenWrite{verb: "statements fencegen cannot see", at: -1,
						unknown: "reading foreign table " + v.QualifiedName() + " runs what its foreign server runs, which may be this database (postgres_fdw: a view or function there may write) or a program (file_fdw)"})
					continue
				}
				if h.Kind != "policy" && (!v.IsView || h.Kind != "view") {
					continue // defaults and CHECKs (a view's too) run on writes only
				}
				if h.Kind == "policy" && !v.RowSecurity {
					continue // not applied: ROW LEVEL SECURITY is not enabled
				}
				step := hookWhere(h, v)
				if h.Kind == "policy" {
					// Row-level security policies run on reads too.
					step = fmt.Sprintf("a policy on %s (%s:%d)", v.QualifiedName(), h.File, h.Line)
				}
				for _, w := range fw.hookWritesLocked(h.Text, v, true) {
					add(step, w)
				}
			}
			delete(fw.busyTables, v)
		}
	}
	if fn := indexMaintainerIn(names); fn != "" {
		fw.indexWritesLocked(&ws, fn)
	}
	if fn := sqlTextRunnerIn(names); fn != "" {
		fw.anyObjectWritesLocked(&ws, fn)
	}
	fw.rowTypeWritesLocked(&ws, func(v *catalog.Table) bool {
		n := strings.ToLower(v.Name)
		return names[writes.TypeKey+n] || names[n] && populatesRow(names)
	})
	fw.schemaHookWritesLocked(&ws, func(h *catalog.Hook) bool {
		return names[strings.ToLower(h.Name)] || (h.Kind == "operator" && implicitOps[h.Name])
	})
	return ws
}

// sqlTextRunners are the functions that run SQL text they are given, or
// read relations they are given by name or by schema or database, in this
// database and connection: those of PostgreSQL's catalog found with
//
//	SELECT proname, prosrc FROM pg_proc
//	WHERE pronamespace = 'pg_catalog'::regnamespace
//	  AND (prosrc ~ '(query|cursor|table|schema|database)_to_xml'
//	       OR prosrc ~ '^ts_stat' OR prosrc ~ 'rewrite_query')
//
// (PostgreSQL 15: the *_to_xml, *_to_xmlschema and *_to_xml_and_xmlschema
// functions of docs 9.15.4, ts_stat and ts_rewrite's query form of docs
// 9.13; a SPI call with text from a C function leaves no other trace in
// pg_proc), and those of the contrib modules tablefunc (crosstab,
// connectby; docs F.41) and xml2 (xpath_table; docs F.49). What the text
// or the relations run, fencegen does not read: any function or view of
// the schema may run there (anyObjectWritesLocked). A query_to_* or
// table_to_* call whose text is a string constant is read instead, as
// the statement it is (writes.TextRunnerQuery): its names and calls
// replace the function's. dblink and the like,
// which run text elsewhere, are remoteSQLFuncs.
var sqlTextRunners = []string{
	"query_to_xml", "query_to_xmlschema", "query_to_xml_and_xmlschema",
	"cursor_to_xml", "cursor_to_xmlschema",
	"table_to_xml", "table_to_xmlschema", "table_to_xml_and_xmlschema",
	"schema_to_xml", "schema_to_xmlschema", "schema_to_xml_and_xmlschema",
	"database_to_xml", "database_to_xmlschema", "database_to_xml_and_xmlschema",
	"ts_stat", "ts_rewrite",
	"crosstab", "crosstab2", "crosstab3", "crosstab4", "connectby", "xpath_table",
}

// sqlTextRunnerIn returns the first of sqlTextRunners names holds, ""
// when none.
func sqlTextRunnerIn(names map[string]bool) string {
	for _, f := range sqlTextRunners {
		if names[f] {
			return f
		}
	}
	return ""
}

// anyObjectWritesLocked adds to ws the writes of fenced tables that SQL
// text run by fn, which fencegen does not read, may set off: as if it
// called every function of the schema and read every relation (its views'
// queries, its tables' policies and row types). A schema where none of
// those writes a fenced table lets the call pass. fw.mu must be held.
//
// The *_xmlschema functions (but *_and_xmlschema) only plan the query
// for its result's shape, which evaluates no VOLATILE function (a
// non-volatile one may be folded): for those only the non-volatile
// functions count.
func (fw *funcWrites) anyObjectWritesLocked(ws *hiddenWrites, fn string) {
	planOnly := strings.HasSuffix(fn, "_xmlschema") && !strings.HasSuffix(fn, "_and_xmlschema")
	all := map[string]bool{}
	for _, s := range fw.cat.Schemas {
		for _, f := range s.Funcs {
			if !planOnly || f.Volatility != 'v' {
				all[strings.ToLower(f.Name)] = true
			}
		}
		if planOnly {
			continue
		}
		for _, t := range s.Tables {
			all[strings.ToLower(t.Name)] = true
			all[writes.TypeKey+strings.ToLower(t.Name)] = true
		}
		for _, t := range s.Types {
			all[strings.ToLower(t.Name)] = true
		}
	}
	step := fn + "(), which runs SQL text or reads relations fencegen does not see, where any function or view of the schema may run,"
	for _, w := range fw.nameWritesLocked(all, true) {
		ws.add(step, w)
	}
}

// indexMaintainers are the functions that maintain or check an index
// outside a write of its table, evaluating its expressions and predicate
// over the table's rows (PostgreSQL docs 9.28.8, "Index Maintenance
// Functions": brin_summarize_new_values, brin_summarize_range,
// gin_clean_pending_list; amcheck's bt_index_check and
// bt_index_parent_check with heapallindexed, and gin_index_check). The
// index is named by a value (regclass), which fencegen does not resolve:
// every index of the schema counts.
var indexMaintainers = []string{"brin_summarize_new_values", "brin_summarize_range", "gin_clean_pending_list", "bt_index_check", "bt_index_parent_check", "gin_index_check"}

// indexMaintainerIn returns the first of indexMaintainers names holds, ""
// when none.
func indexMaintainerIn(names map[string]bool) string {
	for _, f := range indexMaintainers {
		if names[f] {
			return f
		}
	}
	return ""
}

// indexWritesLocked adds to ws the writes of fenced tables that the
// expressions and predicates of every index of the schema set off, run
// by index-maintenance function fn. fw.mu must be held.
func (fw *funcWrites) indexWritesLocked(ws *hiddenWrites, fn string) {
	for _, s := range fw.cat.Schemas {
		for _, v := range s.Tables {
			for _, h := range v.Hooks {
				if h.Kind != "index" {
					continue
				}
				for _, w := range fw.hookWritesLocked(h.Text, v, true) {
					ws.add(fn+"(), which evaluates "+hookWhere(h, v), w)
				}
			}
		}
	}
}

// rowPopulators are the built-in functions and operators that build a
// value of a row type from another representation, given a value of that
// type (a whole-row reference names the table only as a relation):
// json_populate_record(set), jsonb_populate_record(set) (PostgreSQL docs
// 9.16) and hstore's populate_record and #= (docs F.18).
var rowPopulators = []string{"json_populate_record", "json_populate_recordset", "jsonb_populate_record", "jsonb_populate_recordset", "jsonb_populate_record_valid", "populate_record", "#="}

// populatesRow reports whether names holds one of rowPopulators.
func populatesRow(names map[string]bool) bool {
	return slices.ContainsFunc(rowPopulators, func(f string) bool { return names[f] })
}

// rowTypeWritesLocked adds to ws the writes of fenced tables that
// building a value of the row type of a table typed says the statement
// uses as a type sets off. A table's row type is a composite type
// (PostgreSQL docs 8.16): a value of it built from text, a ROW, JSON or
// a cast runs the CHECKs of its columns' domains, and those of the row
// types and composite types its columns are of, as for CREATE TYPE ... AS
// (...). The columns' types are read from the table's statements (CREATE
// TABLE, ALTER TABLE ... ADD COLUMN, ALTER COLUMN ... TYPE), every type
// they name; a statement fencegen cannot parse is followed whole. fw.mu
// must be held.
func (fw *funcWrites) rowTypeWritesLocked(ws *hiddenWrites, typed func(v *catalog.Table) bool) {
	for _, s := range fw.cat.Schemas {
		for _, v := range s.Tables {
			if v.IsView || fw.busyTables[v] || !typed(v) {
				continue
			}
			fw.busyTables[v] = true
			for _, h := range v.Hooks {
				if h.Kind != "table" && h.Kind != "foreign" {
					continue
				}
				step := fmt.Sprintf("the row type of %s (%s:%d)", v.QualifiedName(), h.File, h.Line)
				hn, ok := fw.namesLocked(h.Text)
				hn = fw.boundNamesLocked(hn, v)
				if !ok {
					for _, w := range fw.hookWritesLocked(h.Text, v, true) {
						ws.add(step, w)
					}
					continue
				}
				var sub hiddenWrites
				fw.typeHooksWritesLocked(&sub, func(d *catalog.Hook) bool { return hn[writes.TypeKey+d.Name] })
				fw.rowTypeWritesLocked(&sub, func(x *catalog.Table) bool { return hn[writes.TypeKey+strings.ToLower(x.Name)] })
				for _, w := range sub {
					ws.add(step, w)
				}
			}
			delete(fw.busyTables, v)
		}
	}
}

// namedLocked returns the schema's functions, in schema order, that names
// holds (a call, or a reference such as FUNCTION = f), by their name or a
// former one (catalog.Func.Former). fw.mu must be held.
func (fw *funcWrites) namedLocked(names map[string]bool) []*catalog.Func {
	var out []*catalog.Func
	for _, s := range fw.cat.Schemas {
		for _, f := range s.Funcs {
			// A former name (ALTER FUNCTION ... RENAME TO) names it too
			// in text PostgreSQL bound before the rename.
			if names[strings.ToLower(f.Name)] || slices.ContainsFunc(f.Former, func(n string) bool { return names[n] }) {
				out = append(out, f)
			}
		}
	}
	return out
}

// scanWritesLocked is textWritesLocked for text no parser of fencegen
// reads (the body of a function in a language other than sql and
// plpgsql): the names are found as words of the text, string literals
// included, and a name written with Unicode escapes, which the scan does
// not decode, counts as a write of any fenced table. fw.mu must be held.
func (fw *funcWrites) scanWritesLocked(text string, funcs bool) []hiddenWrite {
	var ws hiddenWrites
	add := ws.add
	if funcs {
		for _, f := range fw.namedInLocked(text) {
			for _, w := range fw.ofLocked(f) {
				add(f.Name+"()", w)
			}
		}
	}
	if m := unicodeIdentRE().FindStringIndex(text); m != nil {
		// Every scan of text here matches objects by name; a name written
		// with Unicode escapes is not matched (U&"jo\0062s" is jobs).
		add("", hiddenWrite{verb: "statements fencegen cannot see", at: m[0],
			unknown: `it names an object with Unicode escapes (U&"..."), which fencegen's scan of the text does not decode; write the name plainly`,
			direct:  `names an object with Unicode escapes (U&"..."): fencegen finds the views, operators, casts and domains a query sets off by their names in its text and does not decode these, so it cannot show that the query writes no fenced table; write the name plainly`})
	}
	lower := strings.ToLower(text)
	if m := remoteSQLRE().FindStringIndex(text); m != nil {
		fn := strings.TrimSpace(strings.TrimSuffix(text[m[0]:m[1]], "(")) + "()"
		add("", hiddenWrite{verb: "statements fencegen cannot see", at: m[0],
			unknown: "it calls " + fn + ", which runs SQL on another connection, possibly to this database",
			direct:  "calls " + fn + ", which runs SQL on another connection, possibly to this database, where fencegen cannot add the fencing guard; write the fenced writes as their own queries, which fencegen guards"})
	}
	for _, s := range fw.cat.Schemas {
		for _, v := range s.Tables {
			if len(v.Hooks) == 0 || fw.busyTables[v] || !fw.wordRE(v.Name).MatchString(text) {
				continue
			}
			if !v.IsView {
				fw.busyTables[v] = true
				// Row-level security policies run on reads too.
				for _, h := range v.Hooks {
					if h.Kind != "policy" || !v.RowSecurity {
						continue
					}
					for _, w := range fw.hookWritesLocked(h.Text, v, true) {
						add(fmt.Sprintf("a policy on %s (%s:%d)", v.QualifiedName(), h.File, h.Line), w)
					}
				}
				delete(fw.busyTables, v)
				continue
			}
			fw.busyTables[v] = true
			for _, h := range v.Hooks {
				for _, w := range fw.hookWritesLocked(h.Text, v, true) {
					add(hookWhere(h, v), w)
				}
			}
			delete(fw.busyTables, v)
		}
	}
	for _, fn := range sqlTextRunners {
		if fw.wordRE(fn).MatchString(lower) {
			fw.anyObjectWritesLocked(&ws, fn)
			break
		}
	}
	for _, fn := range indexMaintainers {
		if fw.wordRE(fn).MatchString(lower) {
			fw.indexWritesLocked(&ws, fn)
			break
		}
	}
	fw.rowTypeWritesLocked(&ws, func(v *catalog.Table) bool { return fw.wordRE(v.Name).MatchString(text) })
	fw.schemaHookWritesLocked(&ws, func(h *catalog.Hook) bool {
		if h.Kind == "operator" {
			return strings.Contains(text, h.Name)
		}
		return fw.wordRE(h.Name).MatchString(lower)
	})
	return ws
}

// hiddenWrites collects the writes a statement sets off, each table,
// verb and unknown once.
type hiddenWrites []hiddenWrite

// add adds w, reached through step (a hook or function that leads to it;
// "" when w is the text's own), unless ws holds its table, verb and
// unknown already.
func (ws *hiddenWrites) add(step string, w hiddenWrite) {
	if step != "" {
		w.path = append([]string{step}, w.steps()...)
	}
	for _, x := range *ws {
		if x.table == w.table && x.verb == w.verb && x.unknown == w.unknown {
			return
		}
	}
	*ws = append(*ws, w)
}

// schemaHookWritesLocked adds to ws the writes of the schema's own hooks
// (catalog.Cat.Hooks): every cast, and the operators, domains and types
// for which named says the statement names them. A domain over another
// domain runs that one's CHECKs too, and a composite type's fields those
// of their domains: a domain's or type's definition is followed to what
// it names. fw.mu must be held.
func (fw *funcWrites) schemaHookWritesLocked(ws *hiddenWrites, named func(h *catalog.Hook) bool) {
	ops := fw.operatorsRunLocked(named)
	for _, h := range fw.cat.Hooks {
		switch h.Kind {
		case "event trigger":
			continue // DDL only: queryDDL
		case "operator":
			any, ok := ops[h]
			if !ok {
				continue
			}
			step := fmt.Sprintf("operator %s (%s:%d)", h.Name, h.File, h.Line)
			if !named(h) {
				step = fmt.Sprintf("operator %s (%s:%d), which PostgreSQL may run in place of one the statement uses (its negator or commutator) or, as an operator class's, for any statement,", h.Name, h.File, h.Line)
			}
			for _, f := range fw.namedInLocked(h.Text) {
				for _, w := range fw.ofLocked(f) {
					w.anyStatement = any
					ws.add(step+" → "+f.Name+"()", w)
				}
			}
			continue
		case "domain", "type":
			fw.typeHookWritesLocked(ws, h, named)
			continue
		case "range":
			fw.rangeHookWritesLocked(ws, h, named)
			continue
		case "base type":
			fw.baseTypeWritesLocked(ws, h, named)
			continue
		case "operator class":
			used, any := fw.opClassUseLocked(h, named)
			if !used {
				continue
			}
			step := opClassStep(h, any)
			for _, f := range fw.namedInLocked(h.Text) {
				for _, w := range fw.ofLocked(f) {
					w.anyStatement = any != ""
					ws.add(step+" → "+f.Name+"()", w)
				}
			}
			continue
		}
		step := fmt.Sprintf("%s %s (%s:%d)", h.Kind, h.Name, h.File, h.Line)
		if h.Kind == "cast" {
			step = fmt.Sprintf("a cast (%s:%d), which PostgreSQL may apply to any value,", h.File, h.Line)
			if h.ExplicitOnly {
				// Applied only where the text casts to its target type
				// by name, or to the type's array (_t, t[]); a domain
				// over it is followed to its definition as any domain.
				arr := &catalog.Hook{Kind: h.Kind, Name: "_" + h.Name}
				if !named(h) && !named(arr) {
					continue
				}
				step = fmt.Sprintf("an explicit cast to %s (%s:%d), which the statement writes,", h.Name, h.File, h.Line)
			}
		}
		for _, f := range fw.namedInLocked(h.Text) {
			for _, w := range fw.ofLocked(f) {
				w.anyStatement = h.Kind == "cast" && !h.ExplicitOnly
				ws.add(step+" → "+f.Name+"()", w)
			}
		}
	}
}

// rangeHookWritesLocked adds to ws the writes of h, a range type's hook
// (CREATE TYPE ... AS RANGE), if rangeUsedLocked says the statement whose
// names named tells may run its canonical or subtype_diff function: the
// functions its text names. fw.mu must be held.
func (fw *funcWrites) rangeHookWritesLocked(ws *hiddenWrites, h *catalog.Hook, named func(h *catalog.Hook) bool) {
	var found hiddenWrites
	for _, f := range fw.namedInLocked(h.Text) {
		for _, w := range fw.ofLocked(f) {
			found.add(f.Name+"()", w)
		}
	}
	if len(found) == 0 || !fw.rangeUsedLocked(h, named) {
		return
	}
	step := fmt.Sprintf("range type %s (%s:%d), whose canonical and subtype_diff functions PostgreSQL runs where a value of it is built, indexed or estimated,", h.Name, h.File, h.Line)
	for _, w := range found {
		ws.add(step, w)
	}
}

// rangeHooksWritesLocked adds to ws the writes of every range type's hook
// (rangeHookWritesLocked). fw.mu must be held.
func (fw *funcWrites) rangeHooksWritesLocked(ws *hiddenWrites, named func(h *catalog.Hook) bool) {
	for _, h := range fw.cat.Hooks {
		if h.Kind == "range" {
			fw.rangeHookWritesLocked(ws, h, named)
		}
	}
}

// rangeUsedLocked reports whether a statement whose names named tells may
// run the canonical or subtype_diff function of h, a range type's hook.
// PostgreSQL runs canonical where it builds a value of the type (its
// input and receive functions, its constructors, operators that return a
// range) and subtype_diff where a GiST or SP-GiST index over it is kept
// (penalty, picksplit) and where the planner estimates a condition on it
// from the column's statistics (PostgreSQL docs, CREATE TYPE, Range
// Types; rangetypes_gist.c, rangetypes_selfuncs.c): in a statement that
// holds a value of the type. That value comes from a constant, a
// parameter or a cast to the type, a function of it, or a relation's
// column, so the statement names one of rangeTypesLocked's types (the
// type, its multirange type, a domain or composite type made of one) or a
// relation with a column of one of them, or whose statements (CREATE
// TABLE, an index expression) name one; a view or function it names is
// followed through its text, a table it writes through its hooks, by the
// callers (issue 24, trial N14: a range type's existence no longer
// refuses every statement). fw.mu must be held.
func (fw *funcWrites) rangeUsedLocked(h *catalog.Hook, named func(h *catalog.Hook) bool) bool {
	return fw.typesUsedLocked(fw.rangeTypesLocked(h), named)
}

// typesUsedLocked reports whether named says the statement names one of
// types or a relation with a column of one (tableOfTypes). fw.mu must be
// held.
func (fw *funcWrites) typesUsedLocked(types map[string]bool, named func(h *catalog.Hook) bool) bool {
	for n := range types {
		if named(&catalog.Hook{Kind: "type", Name: n}) {
			return true
		}
	}
	for _, s := range fw.cat.Schemas {
		for _, t := range s.Tables {
			for _, n := range append([]string{t.Name}, t.Former...) {
				if named(&catalog.Hook{Kind: "table", Name: strings.ToLower(n)}) && fw.tableOfTypes(t, types) {
					return true
				}
			}
		}
	}
	return false
}

// rangeTypesLocked returns the lower-case names of the types whose values
// hold a value of the range type of hook h: the type, its multirange type
// (MULTIRANGE_TYPE_NAME, or PostgreSQL's default name: "range" in the
// name replaced by "multirange", or "_multirange" appended) and, closed
// over them, the domains and composite types whose statements name one.
// fw.mu must be held.
func (fw *funcWrites) rangeTypesLocked(h *catalog.Hook) map[string]bool {
	types := map[string]bool{h.Name: true, h.Name + "_multirange": true}
	if strings.Contains(h.Name, "range") {
		types[strings.Replace(h.Name, "range", "multirange", 1)] = true
	}
	if m := multirangeNameRE().FindStringSubmatch(h.Text); m != nil {
		n := m[1]
		if i := strings.LastIndexByte(n, '.'); i >= 0 {
			n = n[i+1:]
		}
		types[strings.ToLower(strings.Trim(strings.TrimSpace(n), `"`))] = true
	}
	// A renamed type (ALTER TYPE ... RENAME TO) keeps its columns and
	// the texts PostgreSQL bound to it: its former names count too.
	for _, sc := range fw.cat.Schemas {
		for _, ut := range sc.Types {
			if strings.ToLower(ut.Name) == h.Name || slices.Contains(ut.Former, h.Name) {
				types[strings.ToLower(ut.Name)] = true
				for _, f := range ut.Former {
					types[f] = true
				}
			}
		}
	}
	fw.madeOfLocked(types)
	return types
}

// madeOfLocked adds to types, closed over them, the domains and composite
// types whose statements name one. fw.mu must be held.
func (fw *funcWrites) madeOfLocked(types map[string]bool) {
	for changed := true; changed; {
		changed = false
		for _, d := range fw.cat.Hooks {
			if (d.Kind != "domain" && d.Kind != "type") || types[d.Name] {
				continue
			}
			if textNamesAny(d.Text, types) {
				types[d.Name], changed = true, true
			}
		}
	}
}

var multirangeNameRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?is)\bmultirange_type_name\s*=\s*((?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)(?:\s*\.\s*(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*))?)`)
})

// textNamesAny reports whether a word of SQL text (sourceWordRE, lower
// case, unquoted) is one of names.
func textNamesAny(text string, names map[string]bool) bool {
	for _, w := range sourceWordRE().FindAllString(text, -1) {
		if names[strings.ToLower(strings.Trim(w, `"`))] {
			return true
		}
	}
	return false
}

// tableOfTypes reports whether relation t has a column of one of types
// (or an array of one), as the catalog has its columns, or a statement
// (CREATE TABLE, ALTER TABLE, CREATE INDEX, its query) that names one.
func (fw *funcWrites) tableOfTypes(t *catalog.Table, types map[string]bool) bool {
	for _, c := range t.Columns {
		for _, n := range []string{c.Type.Name, c.DBType} {
			if i := strings.LastIndexByte(n, '.'); i >= 0 {
				n = n[i+1:]
			}
			n = strings.ToLower(strings.TrimRight(strings.Trim(n, `"`), "[] 0123456789"))
			if types[n] || types[strings.TrimPrefix(n, "_")] {
				return true
			}
		}
	}
	for _, h := range t.Hooks {
		if textNamesAny(h.Text, types) {
			return true
		}
	}
	return false
}

// baseTypeWritesLocked adds to ws the writes of base type h's support
// functions (INPUT, OUTPUT, RECEIVE, SEND, TYPMOD_IN, TYPMOD_OUT,
// ANALYZE, SUBSCRIPT: every function its CREATE TYPE names) when the
// statement uses the type: names it (a cast, a typmod, its array type), a
// domain or composite type made of it, or a relation with a column of
// one, whose values PostgreSQL reads and writes through them (a function
// declaring it is followed by declaredTypeWritesLocked; trial x24 F8).
// fw.mu must be held.
func (fw *funcWrites) baseTypeWritesLocked(ws *hiddenWrites, h *catalog.Hook, named func(h *catalog.Hook) bool) {
	if fw.busyHooks[h] {
		return
	}
	types := map[string]bool{h.Name: true, "_" + h.Name: true}
	fw.madeOfLocked(types)
	if !fw.typesUsedLocked(types, named) {
		return
	}
	fw.busyHooks[h] = true
	step := fmt.Sprintf("base type %s (%s:%d), whose support functions PostgreSQL runs where a statement names the type or reads or writes a value of it,", h.Name, h.File, h.Line)
	for _, f := range fw.namedInLocked(h.Text) {
		for _, w := range fw.ofLocked(f) {
			ws.add(step+" → "+f.Name+"()", w)
		}
	}
	delete(fw.busyHooks, h)
}

// typeHookWritesLocked adds to ws the writes of h, a domain or type hook,
// if named says it is used: its CHECKs and DEFAULTs, and those of the
// domains and types it is made of. fw.mu must be held.
func (fw *funcWrites) typeHookWritesLocked(ws *hiddenWrites, h *catalog.Hook, named func(h *catalog.Hook) bool) {
	if fw.busyHooks[h] || !named(h) {
		return
	}
	fw.busyHooks[h] = true
	step := fmt.Sprintf("%s %s (%s:%d)", h.Kind, h.Name, h.File, h.Line)
	for _, w := range fw.textWritesLocked(h.Text, true) {
		ws.add(step, w)
	}
	delete(fw.busyHooks, h)
}

// typeHooksWritesLocked adds to ws the writes of every domain and type
// hook that named says is used (typeHookWritesLocked). fw.mu must be held.
func (fw *funcWrites) typeHooksWritesLocked(ws *hiddenWrites, named func(h *catalog.Hook) bool) {
	for _, h := range fw.cat.Hooks {
		if h.Kind == "domain" || h.Kind == "type" {
			fw.typeHookWritesLocked(ws, h, named)
		}
	}
}

// declaredTypeWritesLocked returns the writes that the types a function
// or DO block declares may set off (source: its whole CREATE statement,
// or the DO block's code): its parameters, result, OUT and TABLE columns,
// an aggregate's STYPE, PL/pgSQL variables and their %TYPE and %ROWTYPE.
// PostgreSQL coerces a value to each (a result to the RETURNS type, an
// argument to its parameter's, an assignment to the variable's), which
// runs a domain's CHECK, also when the query never names the domain
// (trial pg4 F8: SELECT mk(1)::int, mk returning a domain whose CHECK
// writes). The declarations are read as the words of f's whole CREATE
// statement, so that none is missed: a word that names a domain or type
// counts as using it, one that names a table as using its row type (a
// %ROWTYPE, or a %TYPE of one of its columns). fw.mu must be held.
func (fw *funcWrites) declaredTypeWritesLocked(source string) hiddenWrites {
	var ws hiddenWrites
	if source == "" {
		return ws
	}
	words := map[string]bool{}
	for _, w := range sourceWordRE().FindAllString(source, -1) {
		words[strings.ToLower(strings.Trim(w, `"`))] = true
	}
	fw.typeHooksWritesLocked(&ws, func(h *catalog.Hook) bool { return words[strings.ToLower(h.Name)] })
	fw.rowTypeWritesLocked(&ws, func(v *catalog.Table) bool { return words[strings.ToLower(v.Name)] })
	fw.rangeHooksWritesLocked(&ws, func(h *catalog.Hook) bool { return words[strings.ToLower(h.Name)] })
	return ws
}

// columnTypeWritesLocked adds (add) the writes that a row value of x's
// columns sets off through their types, as the catalog has them: a
// domain's CHECK (or a composite type's domains') runs for every value
// an INSERT or UPDATE stores. The table's statements may not name the
// type: a column of CREATE TABLE ... AS takes its query's type (trial
// pg4 F8: o2 AS SELECT * FROM o1, o1.x of a domain), and a renamed
// type keeps its columns (a hook names it by a former name, F13).
// fw.mu must be held.
func (fw *funcWrites) columnTypeWritesLocked(x *catalog.Table, add func(string, hiddenWrite)) {
	types := map[string]bool{}
	for _, c := range x.Columns {
		// Type is a domain's base type; DBType spells the domain as the
		// column (or the column CREATE TABLE ... AS copied) declared it.
		for _, n := range []string{c.Type.Name, c.DBType} {
			if i := strings.LastIndexByte(n, '.'); i >= 0 {
				n = n[i+1:]
			}
			if n = strings.ToLower(strings.Trim(n, `"`)); n != "" {
				types[n] = true
			}
		}
	}
	// A renamed type's hooks (ALTER DOMAIN ... ADD CONSTRAINT) may name
	// it by its new name, its column by its former one, or the reverse.
	for _, s := range fw.cat.Schemas {
		for _, ut := range s.Types {
			n := strings.ToLower(ut.Name)
			for _, f := range ut.Former {
				if types[f] || types[n] {
					types[f], types[n] = true, true
				}
			}
		}
	}
	var ws hiddenWrites
	fw.typeHooksWritesLocked(&ws, func(h *catalog.Hook) bool { return types[h.Name] })
	fw.rangeHooksWritesLocked(&ws, func(h *catalog.Hook) bool { return types[h.Name] })
	for _, w := range ws {
		add("the types of the columns of "+x.QualifiedName(), w)
	}
}

// sourceWordRE matches the identifiers of SQL text, quoted ones included
// (a keyword or a word in a string or comment matches too: the reading is
// conservative).
var sourceWordRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"(?:[^"]|"")+"|[\pL_][\pL\pN_$]*`) })

// operatorsRunLocked returns the schema's operators (their hooks) whose
// functions a statement may run, each with whether for any statement:
// those named says it uses; the operators of the schema's operator
// classes and families, which an index scan, a sort or a hash runs
// wherever the planner picks them (any statement); and, closed over both,
// each one's NEGATOR and COMMUTATOR, which the planner substitutes for it
// (NOT (a op b) becomes a negator b, b op a is a commutator a op' b to
// match an index; PostgreSQL docs 36.15, "Operator Optimization
// Information"), read in either operator's definition (PostgreSQL links
// the pair both ways). fw.mu must be held.
func (fw *funcWrites) operatorsRunLocked(named func(h *catalog.Hook) bool) map[*catalog.Hook]bool {
	var ops []*catalog.Hook
	for _, h := range fw.cat.Hooks {
		if h.Kind == "operator" {
			ops = append(ops, h)
		}
	}
	out := map[*catalog.Hook]bool{}
	if len(ops) == 0 {
		return out
	}
	mentions := func(text, sym string) bool {
		if names, ok := fw.namesLocked(text); ok {
			return names[sym]
		}
		return strings.Contains(text, sym)
	}
	var queue []*catalog.Hook
	mark := func(h *catalog.Hook, any bool) {
		if cur, ok := out[h]; ok && (cur || !any) {
			return
		}
		out[h] = any
		queue = append(queue, h)
	}
	for _, h := range ops {
		if named(h) {
			mark(h, false)
		}
	}
	for _, c := range fw.cat.Hooks {
		if c.Kind != "operator class" {
			continue
		}
		for _, h := range ops {
			if mentions(c.Text, h.Name) {
				mark(h, true)
			}
		}
	}
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		for _, o := range ops {
			if o != h && o.Name != h.Name && (mentions(h.Text, o.Name) || mentions(o.Text, h.Name)) {
				mark(o, out[h])
			}
		}
	}
	return out
}

// namedInLocked returns the schema's functions whose name text has as a
// word (a call, or a reference such as FUNCTION = f). fw.mu must be held.
func (fw *funcWrites) namedInLocked(text string) []*catalog.Func {
	if names, ok := fw.namesLocked(text); ok {
		return fw.namedLocked(names)
	}
	return fw.matchingLocked(text, fw.wordRE)
}

// wordRE matches name as a word, plain (any case) or double-quoted.
func (fw *funcWrites) wordRE(name string) *regexp.Regexp {
	if re, ok := fw.words[name]; ok {
		return re
	}
	q := regexp.QuoteMeta(name)
	var re *regexp.Regexp
	if strings.ToLower(name) != name {
		re = regexp.MustCompile(`"` + q + `"`)
	} else {
		re = regexp.MustCompile(`(?i)(?:^|[^A-Za-z0-9_$"])(?:` + q + `|"` + q + `")(?:$|[^A-Za-z0-9_$"])`)
	}
	fw.words[name] = re
	return re
}

// treeWritesLocked returns the writes of fenced tables that running the
// statement of parse tree n (a rule's action) does, as the write analysis
// reads its whole tree (writes.OfTree): the writes of fenced tables, of
// their partitions and children, what writing other tables sets off, the
// functions it calls, the views, operators and domains it names, and, for
// a statement or node the analysis refuses, a write of any fenced table.
// fw.mu must be held.
func (fw *funcWrites) treeWritesLocked(n *pg.Node) []hiddenWrite {
	var ws []hiddenWrite
	add := func(w hiddenWrite) {
		for _, x := range ws {
			if x.table == w.table && x.verb == w.verb && x.unknown == w.unknown {
				return
			}
		}
		ws = append(ws, w)
	}
	rep := writes.OfTree(n)
	if !writes.Reads(rep.Class) {
		add(hiddenWrite{verb: "statements fencegen cannot see", unknown: "it runs a statement fencegen does not analyse there (PostgreSQL's " + rep.Kind + ")"})
	}
	for _, w := range rep.Writes {
		fw.table(w.Table, w.Verb, w.Only, add)
		// A rule's action is bound to its target when created: a
		// relation renamed since is written still (catalog.Table.Former).
		targets := []*catalog.Table{fw.cat.Table(w.Table.Schema, w.Table.Name)}
		for _, f := range fw.cat.FormerlyNamed(w.Table) {
			if f.Fence != nil {
				add(hiddenWrite{table: f, verb: w.Verb, path: []string{w.Verb + " on " + w.Table.Name + ", bound to " + relKind(f) + " " + f.QualifiedName() + " before it was renamed"}})
				continue
			}
			for _, d := range reachedBy(fw.cat, f, w.Verb, w.Only) {
				add(hiddenWrite{table: d, verb: w.Verb, path: []string{w.Verb + " on " + f.QualifiedName() + ", whose " + descendantKind(f, d) + " " + d.QualifiedName() + " is fenced"}})
			}
			targets = append(targets, f)
		}
		for _, u := range targets {
			if u == nil || u.Fence != nil {
				continue
			}
			// Its foreign-key actions and UPDATE OF triggers count as
			// set off whatever columns it names (cols and targets nil): a
			// rule's action is bound to its columns when created, and
			// sets them renamed since or not, as its text does not say.
			for _, x := range fw.tableWritesLocked(u, w.Events, nil, nil, w.NoDefault, true, false, w.Only) {
				x.path = append([]string{w.Verb + " on " + u.QualifiedName()}, x.steps()...)
				add(x)
			}
			if u.IsView {
				for _, x := range fw.viewBaseWritesLocked(u, w.Verb, w.Events, w.NoDefault) {
					x.path = append([]string{w.Verb + " on " + u.QualifiedName()}, x.steps()...)
					add(x)
				}
			}
		}
	}
	for _, c := range rep.Calls {
		// A rule's action is bound to its functions when created,
		// renamed since or not.
		gs := append(candidatesIn(fw.cat, c), formerlyNamed(fw.cat, c.Func)...)
		if len(gs) == 0 && !knownBuiltin(c.Func) && fw.cat.RangeConstructor(c.Func.Schema, c.Func.Name) == nil {
			add(hiddenWrite{verb: "statements fencegen cannot see", unknown: "it calls " + c.Func.String() + "(), which neither the schema nor PostgreSQL's catalog defines"})
		}
		for _, g := range gs {
			for _, x := range fw.ofLocked(g) {
				x.path = append([]string{g.Name + "()"}, x.steps()...)
				add(x)
			}
		}
	}
	for _, r := range rep.Refusals {
		why := strings.SplitN(r.Reason, ";", 2)[0]
		if rest, ok := strings.CutPrefix(why, "is "); ok {
			why = "runs " + rest
		}
		add(hiddenWrite{verb: "statements fencegen cannot see", unknown: "it " + why})
	}
	for _, x := range fw.nameWritesLocked(fw.boundNamesLocked(writes.Names(n), nil), false) {
		add(x)
	}
	return ws
}

// nodeWritesLocked returns the writes of fenced tables that one node of
// a rule's action does (for a rule without parse trees: Rule.Raw): its target's, and what writing that sets off.
// fw.mu must be held.
func (fw *funcWrites) nodeWritesLocked(n sqlparse.Node) []hiddenWrite {
	var target sqlparse.Name
	var ev string
	switch n := n.(type) {
	case *sqlparse.Insert:
		target, ev = n.Table, "INSERT"
	case *sqlparse.Update:
		target, ev = n.Table, "UPDATE"
	case *sqlparse.Delete:
		target, ev = n.Table, "DELETE"
	case *sqlparse.FuncCall:
		var ws []hiddenWrite
		for _, f := range fw.cat.Funcs(n.Func.Schema, n.Func.Name) {
			for _, w := range fw.ofLocked(f) {
				w.path = append([]string{f.Name + "()"}, w.steps()...)
				ws = append(ws, w)
			}
		}
		return ws
	case *sqlparse.Unknown:
		return []hiddenWrite{{verb: "statements fencegen cannot see", unknown: "it runs a command fencegen does not analyse"}}
	default:
		return nil
	}
	u := fw.cat.Table(target.Schema, target.Name)
	switch {
	case u == nil:
		return nil
	case u.Fence != nil:
		return []hiddenWrite{{table: u, verb: ev}}
	}
	var ws []hiddenWrite
	for _, w := range fw.tableWritesLocked(u, []string{ev}, nil, nil, nil, true, false, false) {
		w.path = append([]string{ev + " on " + u.QualifiedName()}, w.steps()...)
		ws = append(ws, w)
	}
	if u.IsView {
		for _, w := range fw.viewBaseWritesLocked(u, ev, []string{ev}, nil) {
			w.path = append([]string{ev + " on " + u.QualifiedName()}, w.steps()...)
			ws = append(ws, w)
		}
	}
	return ws
}

// implicitWrites refuses, at loc, a write of t (events as in
// tableWritesLocked) that sets off a write of a fenced table beyond t's
// own triggers and rules (which setsOff reports).
func (a *analyzer) implicitWrites(t *catalog.Table, events []string, loc int) {
	if a.funcs == nil || t == nil {
		return
	}
	a.funcs.mu.Lock()
	ws := a.funcs.tableWritesLocked(t, events, a.setCols, a.targetsAt(t, loc), a.noDefaultAt(t, loc), false, false, a.onlyAt(t, loc))
	a.funcs.mu.Unlock()
	for _, w := range ws {
		if w.anyStatement {
			// A cast PostgreSQL may apply to any value, an operator
			// class's support function: the statement's
			// own text reaches it too (checkTextWrites, which every
			// statement runs), refused there once, naming the cast, not
			// again as if t's defaults or CHECKs ran it.
			continue
		}
		a.refuseHidden(loc, w, "%s", setOffMsg(a.ann.Name, "writes table "+t.QualifiedName()+", which sets off", w))
	}
}

// checkTextWrites refuses a statement that reads a view, or uses an
// operator, cast or domain, whose functions may write a fenced table.
func (a *analyzer) checkTextWrites(q *Query) {
	if a.funcs == nil {
		return
	}
	var ws []hiddenWrite
	if a.stmt.Raw != nil {
		// The names of the query's parse tree (writes.Names).
		a.funcs.mu.Lock()
		ws = a.funcs.nameWritesLocked(writes.Names(a.stmt.Raw), false)
		if do := a.stmt.Raw.GetDoStmt(); do != nil {
			// A DO block's code is a string to the parse tree: the types
			// it declares (DECLARE v d; v.x%TYPE) are read from its words,
			// as a function's are (trial pg4 F8).
			_, code := writes.LanguageAndCode(do.Args, "plpgsql")
			for _, w := range a.funcs.declaredTypeWritesLocked(code) {
				w.path = append([]string{"a DO block"}, w.steps()...)
				ws = append(ws, w)
			}
		}
		a.funcs.mu.Unlock()
	} else {
		text := stripSQLComments(string(a.file.Src[a.stmt.Start:a.stmt.End]))
		a.funcs.mu.Lock()
		ws = a.funcs.scanWritesLocked(text, false)
		a.funcs.mu.Unlock()
	}
	for _, w := range ws {
		if w.direct != "" && len(w.steps()) == 0 {
			// Found in the query itself: said of the query, where it is
			// (the call, for a tree; the offset in the text, for a scan).
			loc := a.stmt.Start + w.at
			if w.at < 0 {
				loc = a.stmt.Start
				if a.rep != nil {
					for _, c := range a.rep.Calls {
						if slices.Contains(remoteSQLFuncs, c.Func.Name) {
							loc = c.Loc
							break
						}
					}
				}
			}
			a.refuseAnyFenced(loc, "query %s %s", q.Name, w.direct)
			continue
		}
		a.refuseHidden(a.stmt.Start, w, "%s", setOffMsg(q.Name, "uses", w))
	}
}

func setOffMsg(query, what string, w hiddenWrite) string {
	chain := strings.Join(w.steps(), " → ")
	if w.table == nil {
		return fmt.Sprintf("query %s %s %s, which may write a fenced table: %s, so fencegen cannot show that it writes none; PostgreSQL runs that without the fencing guard: write the fenced writes as their own queries, which fencegen guards",
			query, what, chain, w.unknown)
	}
	return fmt.Sprintf("query %s %s %s, which runs %s on fenced table %s: PostgreSQL runs that write without the fencing guard, so it would not check the token; write it as its own query, which fencegen guards, or take that write out of the schema object",
		query, what, chain, w.verb, w.table.QualifiedName())
}

// viewBaseWritesLocked returns the writes of fenced tables that a write
// of view v (verb: INSERT, UPDATE, DELETE, MERGE or COPY; events its
// trigger events) makes through v's base relation, beyond v's own
// triggers, rules and query (tableWritesLocked follows those). PostgreSQL
// writes the base relation of an automatically updatable view for each
// event that no INSTEAD OF trigger of v and no unconditional DO INSTEAD
// rule of v takes (PostgreSQL docs, CREATE VIEW, "Updatable Views", and
// 41.2 "Views and the Rule System"); COPY FROM never does (COPY docs:
// only a view with an INSTEAD OF INSERT trigger), nor TRUNCATE, which
// PostgreSQL refuses on a view. The base relation is
// written as a statement's target is: the fenced tables it is or reaches
// (partitions, inheritance children), and what writing it sets off; a
// base view is followed the same way, with its own triggers and rules.
// A view whose definition fencegen did not read (catalog.ViewBase) counts
// as a write of any fenced table. noDefault is the write's
// (writes.Write.NoDefault): a write that evaluates no DEFAULT of v ("*")
// evaluates none of the base relation's either. fw.mu must be held.
func (fw *funcWrites) viewBaseWritesLocked(v *catalog.Table, verb string, events []string, noDefault []string) []hiddenWrite {
	if verb == "COPY" || verb == "TRUNCATE" || fw.busyTables[v] {
		return nil
	}
	var left []string // the events no INSTEAD OF trigger or DO INSTEAD rule takes
	for _, e := range events {
		taken := slices.ContainsFunc(v.Triggers, func(tr *catalog.Trigger) bool { return tr.Instead && slices.Contains(tr.Events, e) }) ||
			slices.ContainsFunc(v.Rules, func(r *catalog.Rule) bool { return r.Fires() && r.Instead && !r.Cond && r.Event == e })
		if !taken {
			left = append(left, e)
		}
	}
	if len(left) == 0 {
		return nil
	}
	base, only, known := fw.cat.ViewBase(v)
	if !known {
		return []hiddenWrite{{verb: "statements fencegen cannot see", unknown: "it writes view " + v.QualifiedName() + ", whose definition fencegen did not read (a table turned into a view by a _RETURN rule, a system view, or a view whose base relation was dropped), so it cannot tell which relation that writes"}}
	}
	if base == nil {
		return nil // not automatically updatable: PostgreSQL refuses the write
	}
	fw.busyTables[v] = true
	defer delete(fw.busyTables, v)
	var ws []hiddenWrite
	add := func(w hiddenWrite) {
		for _, x := range ws {
			if x.table == w.table && x.verb == w.verb && x.unknown == w.unknown {
				return
			}
		}
		ws = append(ws, w)
	}
	step := fmt.Sprintf("view %s (%s:%d), which writes its base %s %s", v.QualifiedName(), v.File, v.Line, relKind(base), base.QualifiedName())
	for _, f := range reachedBy(fw.cat, base, verb, only) {
		p := []string{step}
		if f != base {
			p = append(p, "its "+descendantKind(base, f)+" "+f.QualifiedName())
		}
		add(hiddenWrite{table: f, verb: verb, path: p})
	}
	if base.Fence != nil {
		return ws // the guard's concern is the write itself; refused above
	}
	// The view's columns may be named otherwise than the base's: only
	// "no DEFAULT at all" carries over.
	var baseNoDefault []string
	if slices.Contains(noDefault, "*") {
		baseNoDefault = []string{"*"}
	}
	for _, w := range fw.tableWritesLocked(base, left, nil, nil, baseNoDefault, true, false, false) {
		w.path = append([]string{step}, w.steps()...)
		add(w)
	}
	if base.IsView {
		for _, w := range fw.viewBaseWritesLocked(base, verb, left, baseNoDefault) {
			w.path = append([]string{step}, w.steps()...)
			add(w)
		}
	}
	return ws
}
