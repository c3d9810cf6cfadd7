package catalog

// CREATE TRIGGER and CREATE RULE: recorded on their table so that the
// analyzer can see the writes a statement sets off beyond its own target
// (PostgreSQL docs, "Triggers" and "The Rule System").

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// Trigger is a trigger on a table: Func runs on the Events.
type Trigger struct {
	Name string
	// Func is the trigger function as named (schema may be "").
	Func sqlparse.Name
	// Events are "INSERT", "UPDATE", "DELETE" and "TRUNCATE".
	Events []string
	// Instead marks an INSTEAD OF trigger (on a view).
	Instead bool
	// Columns are the columns of UPDATE OF c1, c2 (PostgreSQL's
	// pg_trigger.tgattr), which a renamed column follows: the trigger
	// fires for an UPDATE only when one of them is a target of its SET
	// list (FiresOn). Empty: it fires for every UPDATE (no column list,
	// or a list fencegen did not resolve to the table's columns).
	Columns []*Column
	// Before marks a BEFORE ... FOR EACH ROW trigger, whose function may
	// change the row written (NEW), keys included; set too when the
	// statement's parse tree is not at hand.
	Before bool
	// Text is the CREATE TRIGGER statement, whose WHEN condition and
	// arguments may call functions too.
	Text string
	// Args are the trigger's arguments (EXECUTE FUNCTION f('a', 'b')),
	// as strings, as the function receives them (TG_ARGV).
	Args []string
	// Never marks a trigger whose WHEN condition is a constant that is
	// never true (WHEN (false), WHEN (1 = 2), WHEN (NULL)): PostgreSQL
	// fires it for no row, so FiresOn reports false for every write.
	Never bool
	// Disabled marks a trigger ALTER TABLE ... DISABLE TRIGGER turned
	// off (triggerStates): PostgreSQL fires it in no session, so FiresOn
	// reports false for every write.
	Disabled bool
	// Changed are the columns of a row trigger's WHEN condition that
	// holds only when one of them changes (WHEN (OLD.c IS DISTINCT FROM
	// NEW.c), <> or NOT ... IS NOT DISTINCT FROM, their ORs and row
	// forms, and ANDs of one of them with comparisons that call no
	// function): FiresOn counts the trigger as firing for an UPDATE only
	// when one of them may change (mayChange). Nil: no such condition.
	Changed []*Column
	// File, Line and Col locate the CREATE TRIGGER.
	File string
	Line int
	Col  int
	// Also are functions the trigger may run besides those Func names:
	// one of several Func could denote, renamed or moved since
	// (rebindTriggers). TriggerFuncs returns them all.
	Also []sqlparse.Name
	// Bound are the functions Func named when the trigger was created,
	// as PostgreSQL binds it (by OID: renamed, moved or replaced, the
	// same function); several when fencegen cannot tell which. DROP
	// FUNCTION ... CASCADE drops the trigger only with all of them
	// (dropFuncs).
	Bound []*Func
}

// TriggerFuncs returns the schema's functions trigger tr may run: those
// its function's name denotes (in any schema, when unqualified) and those
// it was bound to under another name (Trigger.Also).
func (c *Catalog) TriggerFuncs(tr *Trigger) []*Func {
	out := c.Funcs(tr.Func.Schema, tr.Func.Name)
	for _, n := range tr.Also {
		for _, f := range c.Funcs(n.Schema, n.Name) {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	for _, f := range c.present(tr.Bound) {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// present returns those of fs that are a schema's functions still.
func (c *Catalog) present(fs []*Func) []*Func {
	var out []*Func
	for _, f := range fs {
		if s := c.Schema(f.Schema); s != nil && slices.Contains(s.Funcs, f) {
			out = append(out, f)
		}
	}
	return out
}

// triggerFuncsAt returns the functions a trigger's EXECUTE FUNCTION n()
// binds to now (Trigger.Bound): those of that name taking no argument in
// n's schema or, n unqualified, in the first schema of the search_path
// that has one; any schema's when none has (fencegen's search_path may
// not be the one PostgreSQL runs with).
func (c *Catalog) triggerFuncsAt(n sqlparse.Name) []*Func {
	zero := func(f *Func) bool { return f.Name == n.Name && len(f.sig) == 0 && !f.Procedure }
	for _, s := range c.funcSchemas(n.Schema) {
		var out []*Func
		for _, f := range s.Funcs {
			if zero(f) {
				out = append(out, f)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	if n.Schema != "" {
		return nil
	}
	return slices.DeleteFunc(c.Funcs("", n.Name), func(f *Func) bool { return !zero(f) })
}

// FiresOn reports whether trigger tr of table on fires for a write of
// events ("INSERT", "UPDATE", "DELETE", "TRUNCATE") whose UPDATE SET
// lists name targets (writes.Write.Targets; nil: any column). A trigger
// declared UPDATE OF c1, c2 fires for an UPDATE only when one of its
// columns is a target (PostgreSQL docs, CREATE TRIGGER: a column a BEFORE
// trigger changes does not count); it counts as firing whatever the
// targets when one of its columns is no longer one of on's (dropped or
// replaced since) or is a generated column, which PostgreSQL counts as
// updated when a column it is computed from is.
func (tr *Trigger) FiresOn(on *Table, events, targets []string) bool {
	if tr.Never || tr.Disabled {
		return false
	}
	for _, e := range tr.Events {
		if !slices.Contains(events, e) {
			continue
		}
		if on.IsView && !tr.Instead && !slices.ContainsFunc(on.Triggers, func(x *Trigger) bool { return x.Instead && slices.Contains(x.Events, e) }) {
			// A view's statement-level trigger fires only for an event
			// a row-level INSTEAD OF trigger of the view handles
			// (PostgreSQL docs, CREATE TRIGGER): an automatically
			// updatable view's write fires its base table's.
			continue
		}
		if e != "UPDATE" || targets == nil {
			return true
		}
		if len(tr.Columns) > 0 && !slices.ContainsFunc(tr.Columns, func(c *Column) bool {
			return !slices.Contains(on.Columns, c) || c.Generated || slices.Contains(targets, c.Name)
		}) {
			continue
		}
		if len(tr.Changed) == 0 || tr.mayChange(on, targets) {
			return true
		}
	}
	return false
}

// mayChange reports whether an UPDATE of on whose SET lists name targets
// may change one of tr.Changed: one of them is a target, a generated
// column or no longer one of on's; or another BEFORE row trigger of
// UPDATE on on, which may assign NEW (fencegen does not read what it
// assigns), may fire; or on is a partition, whose partitioned parent's
// BEFORE triggers run for its rows too. A column no SET list names and no
// BEFORE trigger assigns keeps its value, which built-in = and IS
// DISTINCT FROM find equal to itself (the schema defines no operator:
// createTrigger reads the condition only then).
func (tr *Trigger) mayChange(on *Table, targets []string) bool {
	if on.partitionOf != nil {
		return true
	}
	for _, c := range tr.Changed {
		if !slices.Contains(on.Columns, c) || c.Generated || slices.Contains(targets, c.Name) {
			return true
		}
	}
	return slices.ContainsFunc(on.Triggers, func(x *Trigger) bool {
		return x != tr && x.Before && !x.Never && slices.Contains(x.Events, "UPDATE")
	})
}

// changedColumns returns the columns of t whose change WHEN condition n
// of an UPDATE row trigger requires (Trigger.Changed), nil when n is not
// of that form: OLD.c IS DISTINCT FROM NEW.c (either way round), OLD.c
// <> NEW.c (or !=), NOT (OLD.c IS NOT DISTINCT FROM NEW.c), NOT (OLD.c =
// NEW.c), the same of two rows of columns ((OLD.a, OLD.b) IS DISTINCT
// FROM (NEW.a, NEW.b)), an OR of such conditions (the union), and an AND
// of one with conditions that call no function (plainCondition): the
// first such conjunct's columns.
func changedColumns(n *pg.Node, t *Table) []*Column {
	switch {
	case n.GetBoolExpr() != nil:
		be := n.GetBoolExpr()
		switch be.Boolop {
		case pg.BoolExprType_OR_EXPR:
			var out []*Column
			for _, a := range be.Args {
				cs := changedColumns(a, t)
				if cs == nil {
					return nil
				}
				out = append(out, cs...)
			}
			return out
		case pg.BoolExprType_AND_EXPR:
			var out []*Column
			for _, a := range be.Args {
				if cs := changedColumns(a, t); cs != nil && out == nil {
					out = cs
					continue
				}
				if !plainCondition(a) {
					return nil
				}
			}
			return out
		case pg.BoolExprType_NOT_EXPR:
			if len(be.Args) == 1 {
				if x := be.Args[0].GetAExpr(); x != nil && (x.Kind == pg.A_Expr_Kind_AEXPR_NOT_DISTINCT || x.Kind == pg.A_Expr_Kind_AEXPR_OP && opName(x) == "=") {
					return oldNewPairs(x.Lexpr, x.Rexpr, t)
				}
			}
		}
	case n.GetAExpr() != nil:
		x := n.GetAExpr()
		if x.Kind == pg.A_Expr_Kind_AEXPR_DISTINCT || x.Kind == pg.A_Expr_Kind_AEXPR_OP && (opName(x) == "<>" || opName(x) == "!=") {
			return oldNewPairs(x.Lexpr, x.Rexpr, t)
		}
	}
	return nil
}

// opName is the operator of x, "" when it is schema-qualified or not one
// name.
func opName(x *pg.A_Expr) string {
	if len(x.Name) != 1 {
		return ""
	}
	return x.Name[0].GetString_().GetSval()
}

// oldNewPairs returns the columns of t that l and r compare as OLD.c
// against NEW.c (either way round), column by column for two ROW forms;
// nil when they are anything else.
func oldNewPairs(l, r *pg.Node, t *Table) []*Column {
	if lr, rr := l.GetRowExpr(), r.GetRowExpr(); lr != nil || rr != nil {
		if lr == nil || rr == nil || len(lr.Args) != len(rr.Args) || len(lr.Args) == 0 {
			return nil
		}
		var out []*Column
		for i := range lr.Args {
			cs := oldNewPairs(lr.Args[i], rr.Args[i], t)
			if cs == nil {
				return nil
			}
			out = append(out, cs...)
		}
		return out
	}
	lq, lc := oldNewRef(l)
	rq, rc := oldNewRef(r)
	if lq == "" || rq == "" || lq == rq || lc != rc {
		return nil
	}
	c := t.Column(lc)
	if c == nil {
		return nil
	}
	return []*Column{c}
}

// oldNewRef returns "old" or "new" and the column of a reference OLD.c or
// NEW.c; "" for anything else.
func oldNewRef(n *pg.Node) (string, string) {
	cr := n.GetColumnRef()
	if cr == nil || len(cr.Fields) != 2 {
		return "", ""
	}
	q, c := cr.Fields[0].GetString_().GetSval(), cr.Fields[1].GetString_().GetSval()
	if (q != "old" && q != "new") || c == "" {
		return "", ""
	}
	return q, c
}

// plainCondition reports whether n is a condition that calls no function
// a schema can define: comparisons (built-in operators: createTrigger
// reads the condition only when the schema defines none) of columns and
// constants, IS [NOT] NULL, IS [NOT] TRUE and the like, AND, OR and NOT,
// and IN lists of those. A cast may run a schema's function (a domain's
// CHECK, a user cast) and is not plain.
func plainCondition(n *pg.Node) bool {
	switch {
	case n == nil:
		return true
	case n.GetColumnRef() != nil:
		for _, f := range n.GetColumnRef().Fields {
			if f.GetString_() == nil {
				return false
			}
		}
		return true
	case n.GetAConst() != nil:
		return true
	case n.GetNullTest() != nil:
		return plainCondition(n.GetNullTest().Arg)
	case n.GetBooleanTest() != nil:
		return plainCondition(n.GetBooleanTest().Arg)
	case n.GetBoolExpr() != nil:
		for _, a := range n.GetBoolExpr().Args {
			if !plainCondition(a) {
				return false
			}
		}
		return true
	case n.GetList() != nil:
		for _, a := range n.GetList().Items {
			if !plainCondition(a) {
				return false
			}
		}
		return true
	case n.GetAExpr() != nil:
		x := n.GetAExpr()
		switch x.Kind {
		case pg.A_Expr_Kind_AEXPR_OP, pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT, pg.A_Expr_Kind_AEXPR_IN:
			return opName(x) != "" && plainCondition(x.Lexpr) && plainCondition(x.Rexpr)
		}
	}
	return false
}

// Rule is a rewrite rule on a table or view: on Event, PostgreSQL runs
// Actions too (or instead, when Instead).
type Rule struct {
	Name string
	// Event is "SELECT", "INSERT", "UPDATE" or "DELETE".
	Event   string
	Instead bool
	// Cond is set for a rule with a WHERE condition.
	Cond bool
	// Actions are the rule's commands (sqlparse nodes); none for DO
	// NOTHING.
	Actions []sqlparse.Node
	// Raw are the commands' whole parse trees (pg_query's), which the
	// write analysis reads (package writes); nil when the statement was
	// not parsed by pg_query.
	Raw []*pg.Node
	// Never marks a rule whose WHERE condition is a constant that is
	// never true (WHERE false, WHERE 1 = 2, WHERE NULL): PostgreSQL runs
	// none of its actions, and a DO INSTEAD one leaves the command as
	// written. Disabled marks one ALTER TABLE ... DISABLE RULE turned off
	// (triggerStates). Fires is false for both.
	Never, Disabled bool
	// File and Line locate the CREATE RULE.
	File string
	Line int
}

// Fires reports whether PostgreSQL's rewriter applies rule r (it is not
// disabled, and its condition may be true).
func (r *Rule) Fires() bool { return !r.Never && !r.Disabled }

// A trigger or rule on a table the schema does not define is skipped, as
// sqlc does (it does not model them).

func (u *updater) createTrigger(n *sqlparse.CreateTrigger) {
	t := u.c.Table(n.Table.Schema, n.Table.Name)
	if t == nil || t.IsSystem() {
		return
	}
	tr := &Trigger{Name: n.Name, Func: n.Func, Events: n.Events, Instead: n.Instead, Text: u.f.Text(u.s), File: u.f.Name, Bound: u.c.triggerFuncsAt(n.Func)}
	tr.Line, tr.Col = u.pos(n.Loc)
	tr.Before = !n.Instead && !afterTriggerRE().MatchString(tr.Text)
	if u.s.Raw != nil {
		if ct := u.s.Raw.GetCreateTrigStmt(); ct != nil {
			// TRIGGER_TYPE_BEFORE (trigger.h) of a row trigger.
			tr.Before = ct.Row && ct.Timing&2 != 0
			if ct.WhenClause != nil && !slices.ContainsFunc(u.c.Hooks, func(h *Hook) bool { return h.Kind == "operator" }) {
				// (An operator of the schema may be the one a comparison
				// binds to, by the search_path: then it is not read.)
				v, null, ok := constBool(ct.WhenClause)
				tr.Never = ok && (null || !v)
				if !tr.Never && slices.Equal(n.Events, []string{"UPDATE"}) {
					tr.Changed = changedColumns(ct.WhenClause, t)
				}
			}
			for _, a := range ct.Args {
				tr.Args = append(tr.Args, a.GetString_().GetSval())
			}
			for _, cn := range ct.Columns {
				c := t.Column(cn.GetString_().GetSval())
				if c == nil {
					tr.Columns = nil // PostgreSQL refuses it; counted as firing always
					break
				}
				tr.Columns = append(tr.Columns, c)
			}
		}
	}
	if i := slices.IndexFunc(t.Triggers, func(x *Trigger) bool { return x.Name == n.Name }); i >= 0 {
		t.Triggers[i] = tr
		return
	}
	t.Triggers = append(t.Triggers, tr)
}

func (u *updater) createRule(n *sqlparse.CreateRule) {
	t := u.c.Table(n.Table.Schema, n.Table.Name)
	if t == nil || t.IsSystem() {
		return
	}
	r := &Rule{Name: n.Name, Event: n.Event, Instead: n.Instead, Cond: n.Cond, Actions: n.Actions, File: u.f.Name}
	r.Line, _ = u.pos(n.Loc)
	if u.s.Raw != nil {
		if rs := u.s.Raw.GetRuleStmt(); rs != nil {
			r.Raw = slices.Clone(rs.Actions)
			if rs.WhereClause != nil && !slices.ContainsFunc(u.c.Hooks, func(h *Hook) bool { return h.Kind == "operator" }) {
				// (As a trigger's WHEN: an operator of the schema may be
				// the one a comparison binds to.)
				v, null, ok := constBool(rs.WhereClause)
				r.Never = ok && (null || !v) && n.Event != "SELECT"
			}
			if rs.WhereClause != nil && (len(rs.Actions) > 0 || rs.Instead) {
				// PostgreSQL's rewrite adds a conditional rule's WHERE to
				// each of its actions, and the negated condition to the
				// command itself for DO INSTEAD (PostgreSQL docs 41.4,
				// "Rules on INSERT, UPDATE, and DELETE"), so it is
				// evaluated for the command's rows unless the rule is
				// DO ALSO NOTHING: the analysis reads it as a statement of
				// its own, SELECT <condition>.
				r.Raw = append(r.Raw, &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{
					TargetList: []*pg.Node{pg.MakeResTargetNodeWithVal(rs.WhereClause, -1)}, Op: pg.SetOperation_SETOP_NONE}}})
			}
		}
	}
	if n.Event == "SELECT" {
		// CREATE RULE "_RETURN" AS ON SELECT ... DO INSTEAD SELECT turns
		// the table into a view (PostgreSQL 15 and earlier): reading it
		// runs the rule's query, whose functions the analyzer follows as
		// a view's.
		t.IsView, t.ViewRead, t.Base = true, false, nil // its query is not read for a base relation
		t.Hooks = append(t.Hooks, u.newHook("view", ""))
	}
	if i := slices.IndexFunc(t.Rules, func(x *Rule) bool { return x.Name == n.Name }); i >= 0 {
		t.Rules[i] = r
		return
	}
	t.Rules = append(t.Rules, r)
}

// afterTriggerRE matches a CREATE TRIGGER of an AFTER trigger in text no
// PostgreSQL parse tree comes with (MySQL's, with an optional DEFINER).
var afterTriggerRE = lazyRegexp(`(?is)^\s*create\s+(?:definer\s*=\s*\S+\s+)?trigger\s+(?:if\s+not\s+exists\s+)?\S+\s+after\b`)

// rebindTriggers makes the triggers whose function is f name it as to:
// PostgreSQL binds a trigger to its function's OID, which ALTER FUNCTION
// ... RENAME TO and SET SCHEMA keep, so the trigger runs f under its new
// name, and not a function created later under the old one. A trigger
// function takes no arguments. When the trigger's name denotes other
// functions too (an unqualified name, found in several schemas), f's new
// name is added to them (Trigger.Also).
func (c *Catalog) rebindTriggers(f *Func, to sqlparse.Name) {
	if len(f.ArgTypes) != 0 {
		return
	}
	for _, s := range c.Schemas {
		for _, t := range s.Tables {
			for _, tr := range t.Triggers {
				fs := c.Funcs(tr.Func.Schema, tr.Func.Name)
				if !slices.Contains(fs, f) {
					for i, n := range tr.Also {
						if slices.Contains(c.Funcs(n.Schema, n.Name), f) {
							tr.Also[i] = to
						}
					}
					continue
				}
				zero := slices.DeleteFunc(slices.Clone(fs), func(g *Func) bool { return len(g.ArgTypes) != 0 })
				if len(zero) == 1 {
					tr.Func = to
				} else {
					// Its name denotes others too (in other schemas):
					// it may run either.
					tr.Also = append(tr.Also, to)
				}
			}
		}
	}
}

// constBool evaluates a boolean expression made of constants only: the
// boolean constants (TRUE, FALSE, 'f'::boolean), NULL, NOT, AND, OR, and
// comparisons of two integer constants. ok is false for anything else (a
// column, a function call, a parameter), which may be true.
func constBool(n *pg.Node) (v, null, ok bool) {
	switch {
	case n.GetAConst() != nil:
		c := n.GetAConst()
		if c.Isnull {
			return false, true, true
		}
		if b := c.GetBoolval(); b != nil {
			return b.Boolval, false, true
		}
	case n.GetTypeCast() != nil:
		tc := n.GetTypeCast()
		if tc.TypeName == nil || len(tc.TypeName.Names) == 0 || len(tc.TypeName.ArrayBounds) > 0 {
			return false, false, false
		}
		typ := tc.TypeName.Names[len(tc.TypeName.Names)-1].GetString_().GetSval()
		if typ != "bool" && typ != "boolean" || len(tc.TypeName.Names) == 2 && tc.TypeName.Names[0].GetString_().GetSval() != "pg_catalog" || len(tc.TypeName.Names) > 2 {
			return false, false, false
		}
		if c := tc.Arg.GetAConst(); c != nil && c.GetSval() != nil {
			switch strings.ToLower(strings.TrimSpace(c.GetSval().Sval)) {
			case "t", "true", "y", "yes", "on", "1":
				return true, false, true
			case "f", "false", "n", "no", "off", "0":
				return false, false, true
			}
			return false, false, false
		}
		return constBool(tc.Arg)
	case n.GetBoolExpr() != nil:
		be := n.GetBoolExpr()
		switch be.Boolop {
		case pg.BoolExprType_NOT_EXPR:
			if len(be.Args) != 1 {
				return false, false, false
			}
			v, null, ok := constBool(be.Args[0])
			return !v && !null, null, ok
		case pg.BoolExprType_AND_EXPR, pg.BoolExprType_OR_EXPR:
			and := be.Boolop == pg.BoolExprType_AND_EXPR
			anyNull := false
			for _, a := range be.Args {
				v, null, ok := constBool(a)
				if !ok {
					return false, false, false
				}
				switch {
				case null:
					anyNull = true
				case v != and: // FALSE decides an AND, TRUE an OR
					return v, false, true
				}
			}
			return and && !anyNull, anyNull, true
		}
	case n.GetAExpr() != nil:
		e := n.GetAExpr()
		if e.Kind != pg.A_Expr_Kind_AEXPR_OP || len(e.Name) != 1 || e.Lexpr == nil || e.Rexpr == nil {
			return false, false, false
		}
		l, r := e.Lexpr.GetAConst(), e.Rexpr.GetAConst()
		if l == nil || r == nil {
			return false, false, false
		}
		if l.GetIval() == nil || r.GetIval() == nil {
			return false, false, false
		}
		a, b := l.GetIval().Ival, r.GetIval().Ival
		switch e.Name[0].GetString_().GetSval() {
		case "=":
			return a == b, false, true
		case "<>", "!=":
			return a != b, false, true
		case "<":
			return a < b, false, true
		case ">":
			return a > b, false, true
		case "<=":
			return a <= b, false, true
		case ">=":
			return a >= b, false, true
		}
	}
	return false, false, false
}
