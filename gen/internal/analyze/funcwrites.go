package analyze

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/catalog/pgcatalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/writes"
)

// A query that calls a user-defined function or procedure runs whatever
// the function's body runs, and fencegen cannot add the fencing guard in
// there. checkFuncWrites refuses such a call when the body writes a fenced
// table: a LANGUAGE sql body is parsed; any other body (plpgsql, plpython,
// ...) is scanned with a conservative regular expression for INSERT INTO,
// UPDATE, DELETE FROM, TRUNCATE, MERGE INTO and COPY ... FROM followed by
// a fenced table's name, string literals included (dynamic SQL). Calls
// between user-defined functions are followed. A table name built at run
// time (EXECUTE format('UPDATE %I ...', name)) and triggers are not seen.

// hiddenWrite is a write to a fenced table inside a function body.
type hiddenWrite struct {
	table *catalog.Table
	// verb is the statement: INSERT, UPDATE, DELETE, TRUNCATE, MERGE or
	// COPY.
	verb string
	// via is the chain of functions from the one called to the one whose
	// body writes, when they differ.
	via []*catalog.Func
	// path is the chain of steps from the one called to the write, when
	// it goes through more than function calls: "g()", "trigger t on
	// logs (schema.sql:6)", "view v (schema.sql:4)". When set, it is
	// what messages print (via is then its functions only).
	path []string
	// unknown, when table is nil, says why the body may write any table
	// (dynamic SQL, a body fencegen cannot read): the call is refused as
	// if it wrote every fenced table.
	unknown string
	// direct, for a finding in the scanned text itself (no step leads to
	// it), is what that text does, read after "query Name ", and at where
	// in the text it is.
	direct string
	at     int
	// anyStatement is set for a write reached through a cast PostgreSQL
	// may apply to any value (not only where a statement casts
	// explicitly) or an operator class's support function: every
	// statement's own text reaches it (checkTextWrites), which reports
	// it once, naming the cast or class.
	anyStatement bool
}

// funcWrites finds and caches the fenced writes of user-defined functions.
// It is shared by the queries Analyze analyses concurrently: mu guards the
// maps, for the whole of a lookup (busy tracks one chain of calls).
type funcWrites struct {
	mu    sync.Mutex
	cat   *catalog.Catalog
	cache map[*catalog.Func][]hiddenWrite
	busy  map[*catalog.Func]bool
	calls map[string]*regexp.Regexp
	words map[string]*regexp.Regexp
	// busyTables tracks one chain of table writes (tableWritesLocked).
	busyTables map[*catalog.Table]bool
	// busyHooks tracks one chain of domain and type definitions
	// (textWritesLocked).
	busyHooks map[*catalog.Hook]bool
	// attrs caches attrCalledInLocked's expressions by function name.
	attrs map[string]*regexp.Regexp
	// role caches setsRoleLocked.
	role map[*catalog.Func]bool
	// strs caches setsStringSettings.
	strs map[*catalog.Func]bool
	// parsed caches namesLocked by text: nil for text that does not
	// parse.
	parsed map[string]map[string]bool
	// parsedTable caches tableNamesLocked by text and columns.
	parsedTable map[string]map[string]bool
	// opclasses caches opClassLocked by hook (nil: not read).
	opclasses map[*catalog.Hook]*opClass
}

func newFuncWrites(cat *catalog.Catalog) *funcWrites {
	return &funcWrites{cat: cat, cache: map[*catalog.Func][]hiddenWrite{}, busy: map[*catalog.Func]bool{},
		calls: map[string]*regexp.Regexp{}, words: map[string]*regexp.Regexp{}, busyTables: map[*catalog.Table]bool{}, busyHooks: map[*catalog.Hook]bool{}, attrs: map[string]*regexp.Regexp{}, role: map[*catalog.Func]bool{}, strs: map[*catalog.Func]bool{}, parsed: map[string]map[string]bool{}}
}

// checkFuncWrites refuses every call in the statement of a user-defined
// function or procedure whose body writes a fenced table.
func (a *analyzer) checkFuncWrites(q *Query) {
	if a.funcs == nil {
		return
	}
	discarded := a.discardedLists()
	// Every call of the parse tree (writes.Report.Calls), at any depth;
	// those of schema DDL are queryDDL's (the functions its text names).
	// A view's query runs where the view is read: a view no query
	// fencegen passes can read (createsFreshRelation) runs none.
	for _, fc := range a.rep.Calls {
		if a.rep.Class == writes.Schema && (a.rep.Kind != "ViewStmt" || a.createsFreshRelation()) {
			break
		}
		cands := a.candidatesOf(fc)
		if len(cands) == 0 && !knownBuiltin(fc.Func) && a.cat.RangeConstructor(fc.Func.Schema, fc.Func.Name) == nil {
			kind := "function"
			if fc.Procedure {
				kind = "procedure"
			}
			a.refuseAnyFenced(fc.Loc, "query %s calls %s %s(), which neither the schema nor PostgreSQL's catalog defines (one created outside the schema files fencegen reads, or renamed), so fencegen cannot show that it writes no fenced table; define the %s in the schema files", q.Name, kind, fc.Func.String(), kind)
		}
		if (fc.PlanOnly || discarded[fc.Discarded]) && len(cands) > 0 && !slices.ContainsFunc(cands, func(f *catalog.Func) bool { return f.Volatility != 'v' || len(f.Defaults) > 0 }) {
			// Planned, not run (EXPLAIN without ANALYZE, WITH NO DATA), or
			// in an EXISTS target list the planner throws away: the
			// planner evaluates no VOLATILE function. A non-volatile one
			// may be evaluated while planning (constant folding,
			// estimates) and may call one that writes, and a parameter
			// DEFAULT is inserted into the call while planning: those
			// are refused as if run.
			continue
		}
		for _, f := range cands {
			for _, w := range a.funcs.of(f) {
				a.refuseHidden(fc.Loc, w, "%s", hiddenWriteMsg(q.Name, f, w, fc.Procedure))
			}
		}
	}
	a.checkAttributeCalls(q)
}

// discardedLists returns the EXISTS target lists of the statement
// (writes.Call.Discarded) that PostgreSQL throws away before running
// them: those where no call can be an aggregate or a set-returning
// function (either keeps the list, simplify_EXISTS_query), that is, every
// call names only functions of the schema, none an aggregate or SETOF, and
// no function of PostgreSQL's catalog of that name.
func (a *analyzer) discardedLists() map[int]bool {
	out := map[int]bool{}
	keep := map[int]bool{}
	for _, fc := range a.rep.Calls {
		if fc.Discarded == 0 {
			continue
		}
		cands := a.candidatesOf(fc)
		builtin := fc.Func.Schema == "pg_catalog" || fc.Func.Schema == "" && len(pgcatalog.Funcs(fc.Func.Name)) > 0
		if len(cands) == 0 || builtin || slices.ContainsFunc(cands, func(f *catalog.Func) bool { return f.ReturnsSet || f.Language == "aggregate" }) {
			keep[fc.Discarded] = true
			continue
		}
		out[fc.Discarded] = true
	}
	for n := range keep {
		delete(out, n)
	}
	return out
}

// checkAttributeCalls refuses the calls written in attribute notation:
// for a function f of one argument of a composite type, PostgreSQL reads
// x.f and (x).f as f(x) when x's type has no field f (PostgreSQL docs,
// 8.16.5 "Using Composite Types in Queries"). A name after a dot in the
// parse tree (writes.Report.Fields) that names such a function counts as
// a call (conservatively: it may be a column of that name).
func (a *analyzer) checkAttributeCalls(q *Query) {
	for _, fd := range a.rep.Fields {
		for _, f := range a.funcs.attrFuncs(fd.Name) {
			for _, w := range a.funcs.of(f) {
				a.refuseHidden(fd.Loc, w, "%s", strings.Replace(hiddenWriteMsg(q.Name, f, w, false), " calls function ", " calls, in attribute notation (x."+f.Name+" is "+f.Name+"(x)), function ", 1))
			}
		}
	}
}

// attrFuncs returns the schema's functions of one composite argument
// named name, which x.name may call (checkAttributeCalls).
func (fw *funcWrites) attrFuncs(name string) []*catalog.Func {
	var fs []*catalog.Func
	for _, s := range fw.cat.Schemas {
		for _, f := range s.Funcs {
			if f.Name != name || len(f.ArgTypes) != 1 || f.Procedure {
				continue
			}
			at := f.ArgTypes[0]
			if fw.cat.Table(at.Schema, at.Name) != nil || fw.cat.UserType(at.Schema, at.Name) != nil {
				fs = append(fs, f)
			}
		}
	}
	return fs
}

// attrCalledInLocked returns the schema's functions of one composite
// argument that text may call in attribute notation, for a body
// fencegen's parsers did not read (attrFuncs reads a parse tree's).
// fw.mu must be held.
func (fw *funcWrites) attrCalledInLocked(text string) []*catalog.Func {
	if !strings.Contains(text, ".") {
		return nil
	}
	var fs []*catalog.Func
	for _, s := range fw.cat.Schemas {
		for _, f := range s.Funcs {
			if len(f.ArgTypes) != 1 || f.Procedure {
				continue
			}
			at := f.ArgTypes[0]
			if fw.cat.Table(at.Schema, at.Name) == nil && fw.cat.UserType(at.Schema, at.Name) == nil {
				continue
			}
			re, ok := fw.attrs[f.Name]
			if !ok {
				q := regexp.QuoteMeta(f.Name)
				if strings.ToLower(f.Name) == f.Name {
					q = `(?i:` + q + `)|"` + q + `"`
				} else {
					q = `"` + q + `"`
				}
				re = regexp.MustCompile(`\.\s*(?:` + q + `)(?:\s*([^\sA-Za-z0-9_$])|\s*$|\s+[A-Za-z])`)
				fw.attrs[f.Name] = re
			}
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				if m[1] != "(" {
					fs = append(fs, f)
					break
				}
			}
		}
	}
	return fs
}

// knownBuiltin reports whether n names a function of PostgreSQL's catalog
// or of one of the extensions fencegen knows (pgcatalog), which write no
// table of the schema (the ones that run SQL text elsewhere, dblink and
// the like, are refused by name: remoteSQLFuncs).
// A schema-qualified name other than pg_catalog counts as known: the
// analyzer reports one it cannot resolve as not existing.
func knownBuiltin(n sqlparse.Name) bool {
	if n.Schema != "" && n.Schema != "pg_catalog" {
		return true
	}
	return len(pgcatalog.Funcs(n.Name)) > 0
}

// refuseHidden refuses, at loc, a hidden write w: a write of its fenced
// table, or, when w.table is nil (a body fencegen cannot read), of any.
func (a *analyzer) refuseHidden(loc int, w hiddenWrite, format string, args ...any) {
	if w.table == nil {
		a.refuseAnyFenced(loc, format, args...)
		return
	}
	a.refuseFenced(loc, w.table, format, args...)
}

// candidates are the user-defined functions a call of the converted tree
// (a rule's action) may run: candidatesOf without argument types.
func (a *analyzer) candidates(fc *sqlparse.FuncCall) []*catalog.Func {
	c := writes.Call{Func: fc.Func, Variadic: fc.Variadic, Loc: fc.Loc}
	for i := range fc.Args {
		c.Args = append(c.Args, writes.Arg{Name: fc.ArgNames[i]})
	}
	return candidatesIn(a.cat, c)
}

// candidatesOf are the user-defined functions call c may run (see
// candidatesIn).
func (a *analyzer) candidatesOf(c writes.Call) []*catalog.Func {
	return candidatesIn(a.cat, c)
}

// candidatesIn are the user-defined functions of cat that call c may run:
// the overloads PostgreSQL's function resolution may pick (PostgreSQL docs
// 10.3, "Functions"): those that take as many arguments as c passes
// (parameters with a DEFAULT may be left out, a VARIADIC one takes the
// rest), and to whose parameter types each argument whose type the parse
// tree says (a constant, a cast) is the same or implicitly cast. Where
// the tree does not say (a parameter, a column, an expression) every
// overload of the right arity stays: the call is refused when any of
// them writes, ambiguity counting as a write. When none stays (PostgreSQL
// would refuse the call) every function of the name is returned.
func candidatesIn(cat *catalog.Catalog, c writes.Call) []*catalog.Func {
	all := cat.Funcs(c.Func.Schema, c.Func.Name)
	if c.Func.Schema == "" {
		all = slices.DeleteFunc(slices.Clone(all), hiddenByBuiltin)
		if len(all) == 0 {
			return nil // the call runs PostgreSQL's own function
		}
	}
	var out []*catalog.Func
	named := false
	for _, x := range c.Args {
		named = named || x.Name != ""
	}
	for _, f := range all {
		n, params := len(c.Args), len(f.ArgTypes)
		switch {
		case f.Procedure:
			// CALL passes OUT arguments too: only the upper bound.
			if n > params && !f.Variadic {
				continue
			}
		case f.Variadic || c.Variadic:
			if n < params-1-len(f.Defaults) {
				continue
			}
		default:
			if n > params || n < params-len(f.Defaults) {
				continue
			}
		}
		if !named && !f.Variadic && !c.Variadic {
			fits := true
			for i, x := range c.Args {
				if i < params && !mayPass(x, f.ArgTypes[i]) {
					fits = false
					break
				}
			}
			if !fits {
				continue
			}
		}
		if named && !f.Variadic && !c.Variadic && !f.Procedure && !namedFits(f, c.Args) {
			continue
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return all
	}
	if len(out) > 1 && !named && !c.Variadic {
		if f := exactMatch(out, c.Args); f != nil {
			return []*catalog.Func{f}
		}
		if f := unknownMatch(out, c.Args); f != nil {
			return []*catalog.Func{f}
		}
	}
	return out
}

// namedFits reports whether f may take the arguments args of a call
// with named arguments (name => value), as PostgreSQL matches them
// (PostgreSQL docs 4.3, "Calling Functions"; 10.3 step 1): positional
// arguments first, each named one to the parameter of its name, which no
// positional one took, every parameter left out having a DEFAULT, and
// each argument whose type the tree says may be passed to its parameter
// (mayPass). f's parameter names must be known (else it fits).
func namedFits(f *catalog.Func, args []writes.Arg) bool {
	params := len(f.ArgTypes)
	if len(f.ArgNames) != params {
		return true
	}
	filled := make([]bool, params)
	for i, x := range args {
		j := i
		if x.Name != "" {
			j = slices.Index(f.ArgNames, x.Name)
		}
		if j < 0 || j >= params || filled[j] {
			return false
		}
		filled[j] = true
		if !mayPass(x, f.ArgTypes[j]) {
			return false
		}
	}
	for j, ok := range filled {
		if !ok && j < params-len(f.Defaults) {
			return false
		}
	}
	return true
}

// stringCategory are the built-in types of PostgreSQL's string type
// category (pg_type.typcategory 'S'), text its preferred type.
var stringCategory = map[string]bool{"text": true, "varchar": true, "bpchar": true, "name": true, "char": true}

// unknownMatch is the one of candidates cands that PostgreSQL's function
// resolution picks for a call whose arguments are all untyped literals
// (a quoted string or NULL, Type "unknown"), or nil: no exact match is
// possible, so at each position it keeps the candidates that take a
// string-category type if any does, then those that take text, its
// preferred type, if any does (PostgreSQL docs 10.3, step 4.e; parse_func.c
// func_select_candidate). f('x') of f(int) and f(text) runs f(text).
// Only candidates of built-in parameter types fencegen knows (the keys of
// implicitCasts), none with a DEFAULT or VARIADIC, and as many parameters
// as arguments, are judged; else nil.
func unknownMatch(cands []*catalog.Func, args []writes.Arg) *catalog.Func {
	for _, x := range args {
		if x.Type != "unknown" || x.Name != "" {
			return nil
		}
	}
	for _, f := range cands {
		if f.Variadic || len(f.Defaults) > 0 || f.Procedure || len(f.ArgTypes) != len(args) {
			return nil
		}
		for _, p := range f.ArgTypes {
			if _, ok := implicitCasts[p.Name]; !ok && !stringCategory[p.Name] || p.Schema != "" && p.Schema != "pg_catalog" || p.ArrayDims > 0 {
				return nil
			}
		}
	}
	left := slices.Clone(cands)
	for i := range args {
		keep := func(ok func(string) bool) {
			if slices.ContainsFunc(left, func(f *catalog.Func) bool { return ok(f.ArgTypes[i].Name) }) {
				left = slices.DeleteFunc(left, func(f *catalog.Func) bool { return !ok(f.ArgTypes[i].Name) })
			}
		}
		keep(func(t string) bool { return stringCategory[t] })
		keep(func(t string) bool { return t == "text" })
	}
	if len(left) == 1 {
		return left[0]
	}
	return nil
}

// hiddenByBuiltin reports whether f, a function of the schema outside
// pg_catalog, has the name and the parameter types of one of
// PostgreSQL's own functions (not an extension's): an unqualified call
// never reaches it, since PostgreSQL searches pg_catalog before the
// search_path's schemas (unless search_path names pg_catalog later) and,
// of two functions of the same name and parameter types, takes the one
// of the schema it searches first (PostgreSQL docs 10.3, "Functions";
// 5.9.3 "The Schema Search Path"; trial r24 F7: public.lower(text) that
// writes made SELECT lower($1::text) refused, which runs
// pg_catalog.lower).
func hiddenByBuiltin(f *catalog.Func) bool {
	if f.Schema == "pg_catalog" {
		return false
	}
	for _, b := range pgcatalog.Funcs(f.Name) {
		if b.Extension != "" || len(b.Args) != len(f.ArgTypes) || b.Kind == 'p' != f.Procedure {
			continue
		}
		same := true
		for i, t := range f.ArgTypes {
			if t.Schema != "pg_catalog" || t.Name+strings.Repeat("[]", t.ArrayDims) != b.Args[i] {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	return false
}

// exactMatch returns the one of cands whose parameter types are exactly
// the argument types the parse tree says, all of them known built-in
// types (constants, casts): PostgreSQL's function resolution takes such a
// match before any implicit cast (PostgreSQL docs 10.3, "Functions", step
// 2). nil when an argument's type is not known, when none or more than
// one match (functions of several schemas: the search_path decides), or
// when a candidate has parameter DEFAULTs, is VARIADIC or is a procedure,
// whose expanded forms may match too (PostgreSQL then may call the call
// ambiguous).
func exactMatch(cands []*catalog.Func, args []writes.Arg) *catalog.Func {
	for _, x := range args {
		if _, builtin := implicitCasts[x.Type]; !builtin || x.Schema != "" && x.Schema != "pg_catalog" {
			return nil
		}
	}
	var match *catalog.Func
	for _, f := range cands {
		if f.Variadic || len(f.Defaults) > 0 || f.Procedure {
			return nil
		}
		if len(f.ArgTypes) != len(args) {
			continue
		}
		exact := true
		for i, x := range args {
			p := f.ArgTypes[i]
			if p.Schema != "" && p.Schema != "pg_catalog" || p.Name != x.Type || p.ArrayDims != x.ArrayDims {
				exact = false
				break
			}
		}
		if exact {
			if match != nil {
				return nil
			}
			match = f
		}
	}
	return match
}

// formerlyNamed are the functions of the schema that had name n
// (catalog.Func.Former) before an ALTER FUNCTION ... RENAME TO: what was
// bound to them by that name when created (a rule's action, a
// SQL-standard body) still runs them.
func formerlyNamed(cat *catalog.Catalog, n sqlparse.Name) []*catalog.Func {
	var out []*catalog.Func
	for _, s := range cat.Schemas {
		if n.Schema != "" && s.Name != n.Schema {
			continue
		}
		for _, f := range s.Funcs {
			if slices.Contains(f.Former, strings.ToLower(n.Name)) {
				out = append(out, f)
			}
		}
	}
	return out
}

// implicitCasts are PostgreSQL's implicit casts between built-in types
// (pg_cast, castcontext 'i') that function resolution applies to an
// argument, for the types argument constants and casts name.
var implicitCasts = map[string][]string{
	"int2":        {"int4", "int8", "float4", "float8", "numeric"},
	"int4":        {"int8", "float4", "float8", "numeric"},
	"int8":        {"float4", "float8", "numeric"},
	"numeric":     {"float4", "float8"},
	"float4":      {"float8"},
	"text":        {"varchar", "bpchar", "name"},
	"varchar":     {"text", "bpchar", "name"},
	"bpchar":      {"text", "varchar", "name"},
	"name":        {"text", "varchar", "bpchar"},
	"date":        {"timestamp", "timestamptz"},
	"timestamp":   {"timestamptz"},
	"time":        {"timetz", "interval"},
	"bool":        nil,
	"float8":      nil,
	"uuid":        nil,
	"jsonb":       nil,
	"json":        nil,
	"bytea":       nil,
	"interval":    nil,
	"timestamptz": nil,
	"bit":         {"varbit"},
	"varbit":      {"bit"},
	"timetz":      nil,
}

// mayPass reports whether PostgreSQL may pass argument x to a parameter
// of type p: its type is unknown to the tree (or an untyped literal), the
// same, implicitly cast, or one of types fencegen does not compare (a
// user-defined type, a polymorphic parameter such as anyelement).
func mayPass(x writes.Arg, p catalog.Type) bool {
	if x.Type == "" || x.Type == "unknown" {
		return true
	}
	if x.Schema != "" && x.Schema != "pg_catalog" || p.Schema != "" && p.Schema != "pg_catalog" {
		return true
	}
	casts, known := implicitCasts[x.Type]
	_, pknown := implicitCasts[p.Name]
	if !known || !pknown {
		return true
	}
	if x.ArrayDims != p.ArrayDims {
		return false
	}
	return x.Type == p.Name || slices.Contains(casts, p.Name)
}

func hiddenWriteMsg(query string, f *catalog.Func, w hiddenWrite, call bool) string {
	kind := "function"
	if f.Procedure {
		kind = "procedure"
	}
	where := ""
	if f.File != "" {
		where = fmt.Sprintf(" (%s:%d)", f.File, f.Line)
	}
	chain := ""
	if p := w.steps(); len(p) > 0 {
		chain = ", through " + strings.Join(p, " → ") + ","
	}
	what := "calls"
	if call {
		what = "CALLs"
	}
	if w.table == nil {
		return fmt.Sprintf("query %s %s %s %s()%s, which%s may write a fenced table: %s, so fencegen cannot show that it writes none, and cannot add the fencing guard inside a %s; "+
			"write the %s's fenced writes as their own queries, which fencegen guards, or pass the token into the %s and guard the writes in its body",
			query, what, kind, f.Name, where, chain, w.unknown, kind, kind, kind)
	}
	instead := "write the " + w.verb + " as its own query, which fencegen guards"
	switch w.verb {
	case "TRUNCATE":
		instead = "delete the rows with a DELETE query, which fencegen guards"
	case "MERGE":
		instead = "write the MERGE's UPDATE, INSERT and DELETE as their own queries, which fencegen guards"
	case "COPY":
		instead = "load the rows with an INSERT query (:copyfrom or :batchexec), which fencegen guards"
	}
	return fmt.Sprintf("query %s %s %s %s()%s, whose body%s runs %s on fenced table %s: fencegen cannot add the fencing guard inside a %s, so that write would not check the token; "+
		"%s, or pass the token into the %s and guard the write in its body",
		query, what, kind, f.Name, where, chain, w.verb, w.table.QualifiedName(), kind, instead, kind)
}

// of returns the writes to fenced tables that running f may do. The
// slice is shared: callers must not change it.
func (fw *funcWrites) of(f *catalog.Func) []hiddenWrite {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	return fw.ofLocked(f)
}

func (fw *funcWrites) ofLocked(f *catalog.Func) []hiddenWrite {
	if ws, ok := fw.cache[f]; ok {
		return ws
	}
	if fw.busy[f] {
		return nil // recursion: its writes are being collected
	}
	fw.busy[f] = true
	defer delete(fw.busy, f)
	var ws []hiddenWrite
	add := func(w hiddenWrite) {
		for _, x := range ws {
			if x.table == w.table && x.verb == w.verb {
				return
			}
		}
		ws = append(ws, w)
	}
	callee := func(g *catalog.Func) {
		if g == f {
			return
		}
		for _, w := range fw.ofLocked(g) {
			w.path = append([]string{g.Name + "()"}, w.steps()...)
			w.via = append([]*catalog.Func{g}, w.via...)
			add(w)
		}
	}
	// A write of a table that is not fenced sets off that table's
	// triggers, rules, defaults, CHECKs and foreign-key actions.
	wrote := func(n sqlparse.Name, verb string) {
		t := fw.cat.Table(n.Schema, n.Name)
		if t == nil {
			return
		}
		for _, w := range fw.tableWritesLocked(t, verbEvents(verb), nil, nil, nil, true, false, false) {
			w.path = append([]string{verb + " on " + t.QualifiedName()}, w.steps()...)
			add(w)
		}
		if t.IsView {
			// PostgreSQL writes the view's base relation (an automatically
			// updatable view), or runs its rules and INSTEAD OF triggers
			// (above).
			for _, w := range fw.viewBaseWritesLocked(t, verb, verbEvents(verb), nil) {
				w.path = append([]string{verb + " on view " + t.QualifiedName()}, w.steps()...)
				add(w)
			}
		}
	}
	body := f.Body
	parsed := false
	var dynamic string
	var bodyTrees []*pg.Node
	if f.Language == "sql" || f.Language == "plpgsql" {
		// The body's statements, read by PostgreSQL's parsers (package
		// writes): a string or comment that spells a write is none.
		b, err := writes.Body(f.Language, body, f.Source)
		if errors.Is(err, writes.ErrOffStrings) {
			// Its statements depend on standard_conforming_strings,
			// which fencegen cannot see (issue 24): its text is
			// scanned below, and it is refused as unread.
			add(hiddenWrite{verb: "statements fencegen cannot see", unknown: err.Error()})
		}
		if err == nil {
			parsed, dynamic, bodyTrees = true, b.Dynamic, b.Stmts
			for _, st := range b.Stmts {
				rep := writes.OfTree(st)
				if !writes.Reads(rep.Class) {
					// DDL in a body can rewrite, drop or unguard a fenced
					// table (ALTER COLUMN ... TYPE ... USING, DISABLE
					// TRIGGER), unseen by the analysis of queries.
					add(hiddenWrite{verb: "statements fencegen cannot see", unknown: "its body runs a schema statement or another statement fencegen does not analyse in a function (PostgreSQL's " + rep.Kind + "), which can rewrite, drop or unguard a fenced table"})
				}
				for _, w := range rep.Writes {
					n := w.Table
					if t := f.BoundTable(n); t != nil {
						// A SQL-standard body writes the relation bound
						// when the function was created, renamed or
						// moved since or not.
						n = sqlparse.Name{Schema: t.Schema, Name: t.Name}
					}
					fw.table(n, w.Verb, w.Only, add)
					wrote(n, w.Verb)
				}
				for _, c := range rep.Calls {
					gs := candidatesIn(fw.cat, c)
					if f.Bound != nil {
						// A SQL-standard body is bound to its functions
						// when created, renamed since or not.
						gs = append(gs, formerlyNamed(fw.cat, c.Func)...)
					}
					if len(gs) == 0 && !knownBuiltin(c.Func) && fw.cat.RangeConstructor(c.Func.Schema, c.Func.Name) == nil {
						add(hiddenWrite{verb: "statements fencegen cannot see", unknown: "it calls " + c.Func.String() + "(), which neither the schema nor PostgreSQL's catalog defines"})
					}
					for _, g := range gs {
						callee(g)
					}
				}
				for _, r := range rep.Refusals {
					if writes.Classes[r.Kind] != writes.Refused || r.Kind == "DoStmt" || r.Kind == "ExecuteStmt" || r.Kind == "LoadStmt" {
						add(hiddenWrite{verb: "statements fencegen cannot see", unknown: "its body " + strings.TrimPrefix(strings.SplitN(r.Reason, ";", 2)[0], "is ")})
					}
				}
				for _, fd := range rep.Fields {
					for _, g := range fw.attrFuncs(fd.Name) {
						callee(g)
					}
				}
				for _, n := range rep.Refreshes {
					if t := fw.cat.Table(n.Schema, n.Name); t != nil {
						// REFRESH runs the view's query.
						for _, w := range fw.nameWritesLocked(map[string]bool{strings.ToLower(t.Name): true}, false) {
							add(w)
						}
					}
				}
			}
		}
	}
	if !parsed && f.Language != "aggregate" && body != "" {
		// A body fencegen's parsers did not read (another language, or
		// one they refused): its text is scanned for writes of fenced
		// tables, string literals included (dynamic SQL).
		text := stripSQLComments(body)
		for _, m := range writeRE().FindAllStringSubmatchIndex(text, -1) {
			verb := strings.ToUpper(strings.Fields(text[m[2]:m[3]])[0])
			if verb == "COPY" && m[6] < 0 {
				continue // COPY t TO ...: a read
			}
			fw.table(identName(text[m[4]:m[5]]), verb, false, add)
			wrote(identName(text[m[4]:m[5]]), verb)
			if verb == "TRUNCATE" {
				// TRUNCATE a, b, ...
				rest := text[m[1]:]
				for {
					mm := truncateMoreRE().FindStringSubmatchIndex(rest)
					if mm == nil {
						break
					}
					fw.table(identName(rest[mm[2]:mm[3]]), verb, false, add)
					wrote(identName(rest[mm[2]:mm[3]]), verb)
					rest = rest[mm[1]:]
				}
			}
		}
		for _, g := range fw.calledInLocked(text) {
			if g != f {
				callee(g)
			}
		}
	}
	if !parsed && f.Language != "aggregate" && body != "" {
		for _, g := range fw.attrCalledInLocked(stripSQLComments(body)) {
			if g != f {
				callee(g)
			}
		}
	}
	switch {
	case f.Language == "aggregate":
		// Its definition names the functions it runs (SFUNC = f, ...).
		for _, g := range fw.namedInLocked(body) {
			if g != f {
				callee(g)
			}
		}
	case parsed:
		// Views it reads, operators, casts and domains it uses: the names
		// of its statements' parse trees.
		names := writes.Names(bodyTrees...)
		for _, t := range f.Bound {
			// A SQL-standard body reads the views bound when the
			// function was created, under their names now.
			names[strings.ToLower(t.Name)] = true
			names[writes.RelKey+strings.ToLower(t.Name)] = true
		}
		for _, w := range fw.nameWritesLocked(names, false) {
			add(w)
		}
	case body != "":
		for _, w := range fw.scanWritesLocked(stripSQLComments(body), false) {
			add(w)
		}
	}
	// A parameter's DEFAULT runs for every call that leaves the argument
	// out (conservatively: for every call).
	for _, d := range f.Defaults {
		for _, w := range fw.textWritesLocked(d, true) {
			w.path = append([]string{"a parameter DEFAULT of " + f.Name + "()"}, w.steps()...)
			add(w)
		}
	}
	for _, w := range fw.declaredTypeWritesLocked(f.Source) {
		add(w)
	}
	if dynamic != "" {
		add(hiddenWrite{verb: "statements fencegen cannot see", unknown: dynamic})
	}
	if len(ws) == 0 {
		// Nothing named a fenced table: the body is free of fenced
		// writes only if fencegen read all of it.
		if why := unreadBody(f, parsed); why != "" {
			ws = append(ws, hiddenWrite{verb: "statements fencegen cannot see", unknown: why})
		}
	}
	fw.cache[f] = ws
	return ws
}

var executeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bexecute\b`) })

// unreadBody says why f's body may write a table its text does not name
// ("" when fencegen read it all): dynamic SQL (PL/pgSQL EXECUTE, whose
// command string is built at run time; PL/pgSQL docs, "Executing Dynamic
// Commands"), a LANGUAGE sql body that does not parse, or a body in
// another language (C, internal, PL/Python, ...), whose calls into the
// database fencegen cannot follow.
func unreadBody(f *catalog.Func, parsed bool) string {
	switch f.Language {
	case "aggregate":
		return ""
	case "sql":
		if parsed || strings.TrimSpace(f.Body) == "" {
			return ""
		}
		return "its LANGUAGE sql body does not parse"
	case "plpgsql":
		if parsed {
			return "" // its dynamic SQL, if any, is known (writes.Body)
		}
		if executeRE().MatchString(stripSQLComments(f.Body)) {
			return "its body runs dynamic SQL (EXECUTE), whose tables are known only at run time"
		}
		return ""
	case "":
		return "its language is unknown"
	}
	return "its body is LANGUAGE " + f.Language + ", which fencegen does not read"
}

// table records a write of verb to the table named n when it is fenced,
// or when n, unqualified, may name a fenced table of another schema
// under the search_path the body runs with (a SET search_path clause, the
// caller's).
func (fw *funcWrites) table(n sqlparse.Name, verb string, only bool, add func(hiddenWrite)) {
	t := fw.cat.Table(n.Schema, n.Name)
	if t != nil && t.Fence != nil {
		add(hiddenWrite{table: t, verb: verb})
	}
	if e := fw.cat.FencedElsewhere(n); t == nil && e != nil {
		// Another sql entry fences a table of that name in the same
		// database (trial t24 F11).
		add(hiddenWrite{verb: "statements fencegen cannot see", unknown: fmt.Sprintf("it runs %s on %s, which the schema of this sql entry does not define, and %s fences table %s.%s (%s:%d) of the same database", verb, n.String(), e.Entry, e.Schema, e.Name, e.File, e.Line)})
	}
	for _, w := range fw.sharedLocked(n.Schema, n.Name, t, verb) {
		// As another sql entry's schema declares the relation.
		add(w)
	}
	if t != nil && t.Fence == nil {
		// A write of a table writes its inheritance children and
		// partitions (reachedBy).
		for _, d := range reachedBy(fw.cat, t, verb, only) {
			add(hiddenWrite{table: d, verb: verb, path: []string{verb + " on " + t.QualifiedName() + ", whose " + descendantKind(t, d) + " " + d.QualifiedName() + " is fenced"}})
		}
	}
	if u, ws := fw.shadowWritesLocked(n, t, verb, verbEvents(verb)); u != nil {
		for _, w := range ws {
			w.path = append([]string{"unqualified " + n.Name + ", which the search_path may resolve to " + relKind(u) + " " + u.FullName()}, w.steps()...)
			add(w)
		}
	}
}

// shadowWritesLocked returns, for a name n written without a schema that
// resolved to t (nil: to nothing), the first relation of that name in
// another schema through which a write of verb (firing events) may write
// a fenced table, and those writes: a fenced table itself, one with a
// fenced partition or INHERITS child, a view whose base relation,
// INSTEAD OF triggers or rules write one, a table whose triggers, rules,
// defaults or foreign-key actions do (issue 24: a view app.gadgets over
// fenced app.widgets beside table public.gadgets). Which relation
// PostgreSQL writes depends on the search_path at run time, which
// fencegen cannot see. When t is fenced the write is guarded as t's. fw.mu
// must be held.
func (fw *funcWrites) shadowWritesLocked(n sqlparse.Name, t *catalog.Table, verb string, events []string) (*catalog.Table, []hiddenWrite) {
	if t != nil && t.Fence != nil {
		return nil, nil
	}
	for _, u := range fw.cat.SameNamed(n, t) {
		if u.Fence != nil {
			return u, []hiddenWrite{{table: u, verb: verb}}
		}
		var ws []hiddenWrite
		for _, d := range reachedBy(fw.cat, u, verb, false) {
			ws = append(ws, hiddenWrite{table: d, verb: verb, path: []string{verb + " on " + u.FullName() + ", whose " + descendantKind(u, d) + " " + d.QualifiedName() + " is fenced"}})
		}
		ws = append(ws, fw.tableWritesLocked(u, events, nil, nil, nil, true, false, false)...)
		if u.IsView {
			ws = append(ws, fw.viewBaseWritesLocked(u, verb, events, nil)...)
		}
		if len(ws) > 0 {
			return u, ws
		}
	}
	return nil, nil
}

// shadowed refuses a write of verb named n, unqualified, that resolved
// to t, when a relation of that name in another schema may write a
// fenced table (shadowWritesLocked).
func (a *analyzer) shadowed(n sqlparse.Name, t *catalog.Table, verb string, events []string, loc int) {
	if a.funcs == nil {
		return
	}
	a.funcs.mu.Lock()
	u, ws := a.funcs.shadowWritesLocked(n, t, verb, events)
	a.funcs.mu.Unlock()
	if u == nil {
		return
	}
	took := "names no relation of the search_path fencegen knows"
	qualify := u.FullName()
	if t != nil {
		took = "fencegen takes it for " + relKind(t) + " " + t.FullName()
		qualify = t.FullName() + " or " + u.FullName()
	}
	const runtime = "PostgreSQL picks the relation by the search_path the statement runs under (a SET search_path, the role's or database's setting, the connection's options); qualify the name (%s)"
	if u.Fence != nil {
		a.refuseFenced(loc, u, "query %s writes %s, unqualified: %s, but fenced table %s has the same name, and "+runtime,
			a.ann.Name, n.Name, took, u.FullName(), qualify)
		return
	}
	w := ws[0]
	what := "may write a fenced table: " + w.unknown
	if w.table != nil {
		what = "writes fenced table " + w.table.QualifiedName()
		if st := w.steps(); len(st) > 0 {
			what += " (" + strings.Join(st, " → ") + ")"
		}
	}
	a.refuseHidden(loc, w, "query %s writes %s, unqualified: %s, but %s %s has the same name and a write through it %s without the guard, and "+runtime,
		a.ann.Name, n.Name, took, relKind(u), u.FullName(), what, qualify)
}

const identPattern = `(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)`

var (
	// writeRE finds a write and the table it names in a function body.
	// FOR UPDATE OF, DO UPDATE SET and the like match too, with a "table"
	// name (of, set) that no fenced table has.
	writeRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(insert\s+into|update|delete\s+from|truncate(?:\s+table)?|merge\s+into|copy)\s+(?:only\s+)?(` +
			identPattern + `(?:\s*\.\s*` + identPattern + `)?)(?:\s*\*)?(?:\s*\([^)]*\))?(\s+from\b)?`)
	})
	truncateMoreRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*,\s*(?i:only\s+)?(` + identPattern + `(?:\s*\.\s*` + identPattern + `)?)(?:\s*\*)?`)
	})
	identPartRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(identPattern) })
)

// calledInLocked returns the schema's functions that text calls, in
// schema order. fw.mu must be held (callRE's cache).
func (fw *funcWrites) calledInLocked(text string) []*catalog.Func {
	return fw.matchingLocked(text, fw.callRE)
}

// matchingLocked returns the schema's functions, in schema order, whose
// name's or former name's (catalog.Func.Former) expression re(name)
// matches text. fw.mu must be held (re's
// cache).
func (fw *funcWrites) matchingLocked(text string, re func(name string) *regexp.Regexp) []*catalog.Func {
	var out []*catalog.Func
	for _, s := range fw.cat.Schemas {
		for _, f := range s.Funcs {
			if re(f.Name).MatchString(text) || slices.ContainsFunc(f.Former, func(n string) bool { return re(n).MatchString(text) }) {
				out = append(out, f)
			}
		}
	}
	return out
}

// callRE matches a call of the function named name: name( or "name"(.
func (fw *funcWrites) callRE(name string) *regexp.Regexp {
	if re, ok := fw.calls[name]; ok {
		return re
	}
	q := regexp.QuoteMeta(name)
	var re *regexp.Regexp
	if strings.ToLower(name) != name {
		// A name with capitals is only reachable quoted.
		re = regexp.MustCompile(`"` + q + `"\s*\(`)
	} else {
		re = regexp.MustCompile(`(?i)(?:\b` + q + `|"` + q + `")\s*\(`)
	}
	fw.calls[name] = re
	return re
}

// identName turns schema.name or name, each part plain (folded to lower
// case) or double-quoted, into a Name.
func identName(s string) sqlparse.Name {
	var parts []string
	for _, p := range identPartRE().FindAllString(s, -1) {
		if strings.HasPrefix(p, `"`) {
			parts = append(parts, strings.ReplaceAll(p[1:len(p)-1], `""`, `"`))
		} else {
			parts = append(parts, strings.ToLower(p))
		}
	}
	switch len(parts) {
	case 0:
		return sqlparse.Name{}
	case 1:
		return sqlparse.Name{Name: parts[0]}
	}
	return sqlparse.Name{Schema: parts[len(parts)-2], Name: parts[len(parts)-1]}
}

// stripSQLComments blanks out -- and /* */ comments, keeping string
// literals (which may hold dynamic SQL) as they are.
func stripSQLComments(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '\'':
			for i++; i < len(b) && b[i] != '\''; i++ {
			}
		case b[i] == '-' && i+1 < len(b) && b[i+1] == '-':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			depth := 0
			for ; i < len(b); i++ {
				if b[i] == '/' && i+1 < len(b) && b[i+1] == '*' {
					depth++
					b[i], b[i+1] = ' ', ' '
					i++
					continue
				}
				if b[i] == '*' && i+1 < len(b) && b[i+1] == '/' {
					depth--
					b[i], b[i+1] = ' ', ' '
					i++
					if depth == 0 {
						break
					}
					continue
				}
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
		}
	}
	return string(b)
}
