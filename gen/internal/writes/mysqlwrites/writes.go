// Package mysqlwrites is fencegen's write analysis for MySQL and MariaDB:
// given a statement parsed by the TiDB parser (the parser sqlc's MySQL
// engine uses) and the schema's facts (Schema: fenced tables, views,
// triggers, stored routines, foreign keys), it returns every table the
// statement may write, with the statement's own writes told apart from
// those it sets off (through a view, a trigger, a foreign key's ON DELETE
// or ON UPDATE action, a CALLed procedure or a stored function), and
// refuses what it cannot see through.
//
// The statement's whole tree is walked with ast.Visitor, and every node
// the visitor reaches is checked against what a reflective walk of the
// same tree reaches: a node that the parser's Accept methods skip is a
// refusal, not a hole. Every statement node type of the parser is in
// Classes (TestEveryStmtNodeClassified); one missing is refused.
//
// Stored program bodies (procedures, functions, triggers) are kept as
// text: the TiDB parser reads only part of MySQL's compound-statement
// grammar (no SIGNAL, no SELECT ... INTO a variable), so a body is read
// token by token, each statement that can write (INSERT, REPLACE, UPDATE,
// DELETE, LOAD DATA, CALL, TRUNCATE, DDL) is cut out and parsed alone,
// and every word naming a stored function or a view is followed. Dynamic
// SQL (PREPARE, EXECUTE) or a statement that does not parse makes the
// body opaque: whatever reaches it is refused.
//
// The idea is the PostgreSQL analysis's (package writes): classify every
// node kind, refuse the unclassified, and let the database be the oracle
// in tests (package mysqloracle's tests run the statements against
// MariaDB with recording triggers).
package mysqlwrites

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
)

// Write is a table the statement may write.
type Write struct {
	// Verb is what writes: INSERT, REPLACE, UPDATE, DELETE, LOAD DATA,
	// TRUNCATE, or a DDL statement's words (ALTER TABLE, DROP TABLE,
	// RENAME TABLE, CREATE TABLE, CREATE INDEX, DROP INDEX, ...); for a
	// write set off by another, the verb of the statement (or foreign-key
	// action) that does it.
	Verb string
	// Table is the table's name, lower-case, without its database.
	Table string
	// Events are the row events the write may set off on Table (INSERT,
	// UPDATE, DELETE): an upsert both INSERT and UPDATE, REPLACE all
	// three; none for TRUNCATE and DDL, which fire no row triggers.
	Events []string
	// Direct is set for the statement's own target: the write the guard
	// can put the token comparison in. Via says what set off the others
	// ("view v", "trigger t on accounts", "procedure p", "function f",
	// "foreign key of ledger to accounts ON DELETE CASCADE"), outermost
	// first, joined by " -> ".
	Direct bool
	Via    string
	// Multi is set for a write of a multi-table UPDATE or DELETE; Upsert
	// for INSERT ... ON DUPLICATE KEY UPDATE; Select for INSERT (or
	// REPLACE) ... SELECT.
	Multi, Upsert, Select bool
	// Lenient names the statement's own modifier that turns errors into
	// warnings ("IGNORE"), or that runs the write where its errors never
	// reach the caller ("DELAYED"), "" when it has none. The guard of a
	// write of several rows (and of an upsert) refuses by raising an
	// error (1242), which IGNORE would downgrade to a warning: the row
	// is skipped or the failed expression stored as NULL, then 0, in the
	// token column, and the statement succeeds.
	Lenient string
	// Set are the columns an UPDATE (or an upsert's ON DUPLICATE KEY
	// UPDATE) of Table assigns, lower-case; nil when any column may
	// change (REPLACE, a multi-table UPDATE, a write through a view, one
	// set off by a foreign key).
	Set []string
	// Loc is the byte offset of the table's name in the file (the base
	// passed to Of plus its offset in the statement's text), or of the
	// statement when the name is not found there.
	Loc int
}

// Refusal is what the analysis cannot see through: the statement may
// write any table.
type Refusal struct {
	// Kind is the parser's node type (ExecuteStmt, ...) or what was not
	// read ("trigger", "procedure", "function").
	Kind string
	// Reason completes "the statement ..." with why and what to do.
	Reason string
	Loc    int
	// At is, for what a stored program's body holds, where in the
	// schema (Source.Pos the byte offset of the statement or words in
	// question), when the body was read with its place
	// (Schema.AddTextAt); nil otherwise. Loc is then the caller's, the
	// statement that reaches the body.
	At *Source
}

// Report is what Of found in one statement.
type Report struct {
	// Kind is the statement's node type (InsertStmt, ...), Class its
	// class.
	Kind  string
	Class Class
	// Writes are every table the statement may write, in the order found
	// (the statement's own first).
	Writes   []Write
	Refusals []Refusal
}

// FencedWrites are the writes of r on tables sc fences.
func (r *Report) FencedWrites(sc *Schema) []Write {
	var out []Write
	for _, w := range r.Writes {
		if sc.Fenced[w.Table] {
			out = append(out, w)
		}
	}
	return out
}

// Guardable reports whether w is a write the guard can put the token
// comparison in: the statement's own single-table INSERT, UPDATE or
// DELETE (REPLACE, LOAD DATA, multi-table writes, writes set off through
// views, triggers, foreign keys or routines, DDL, and a write with
// IGNORE or DELAYED are not).
func (w Write) Guardable() bool {
	return w.Direct && !w.Multi && w.Lenient == "" && (w.Verb == "INSERT" || w.Verb == "UPDATE" || w.Verb == "DELETE")
}

// Of analyses st, a statement parsed by the TiDB parser, against sc.
// base is the byte offset of st's text (st.Text()) in its file: Loc
// values are file offsets. A nil sc is an empty schema.
func Of(st ast.StmtNode, base int, sc *Schema) *Report {
	if sc == nil {
		sc = NewSchema()
	}
	r := of(st, base, sc)
	if st != nil {
		checkModes(r, st.Text(), base, sc)
	}
	return r
}

// of is Of without the second reading under other lexing modes
// (checkModes), which reads the statement again through it.
func of(st ast.StmtNode, base int, sc *Schema) *Report {
	r := &Report{}
	if st == nil {
		r.Class = Refused
		r.Refusals = append(r.Refusals, Refusal{Kind: "none", Reason: "has no parse tree fencegen can analyse for writes", Loc: base})
		return r
	}
	r.Kind = kindOf(st)
	r.Class = Classes[r.Kind]
	a := &analysis{sc: sc, r: r, bodies: map[string]*effects{}, done: map[string]bool{}}
	for _, u := range sc.Unread {
		r.Refusals = append(r.Refusals, Refusal{Kind: "schema", Loc: base,
			Reason: "runs against a schema with a statement fencegen could not read (" + u + "), which may define a view, trigger, routine or foreign key that writes a fenced table"})
	}
	e := a.statement(st, st.Text(), base, true)
	a.close(e, "", base)
	return r
}

// EventWrites analyses the body of ev, an event of sc, as a statement
// that runs it: the Report's Writes are every table it may write (none
// Direct: an event's writes carry no fencing token and no guard), and
// its Refusals what the analysis cannot see through in it. Loc values
// are 0; a Refusal's At is where in the body, when ev.BodyAt is known.
func EventWrites(ev *Event, sc *Schema) *Report {
	r := &Report{Kind: "event"}
	a := &analysis{sc: sc, r: r, bodies: map[string]*effects{}, done: map[string]bool{}}
	p := "event " + ev.Name
	a.close(a.body(p, ev.Body, ev.BodyAt, p, 0), p, 0)
	return r
}

// kindOf is the node's Go type name (InsertStmt, ...).
func kindOf(n ast.Node) string {
	t := reflect.TypeOf(n)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// effects are what a statement (or a stored program's body) does
// itself: its writes, the routines it calls and the views it reads.
type effects struct {
	writes   []Write
	calls    []call
	views    []call
	refusals []Refusal
}

type call struct {
	name      string
	procedure bool
	loc       int
	// at is where a call a stored program's body makes lies in the
	// schema (Refusal.At), nil elsewhere.
	at *Source
}

type analysis struct {
	sc     *Schema
	r      *Report
	bodies map[string]*effects // "trigger t", "routine r": a body's own effects
	done   map[string]bool     // what close has expanded
}

// statement collects the effects of st, whose text is text at base.
func (a *analysis) statement(st ast.StmtNode, text string, base int, top bool) *effects {
	v := &visitor{a: a, e: &effects{}, toks: lex(text), base: base, top: top, root: st, seen: map[uintptr]bool{}}
	st.Accept(v)
	v.checkUnvisited(st)
	return v.e
}

// close adds e's writes and refusals to the report with via as their
// path, and follows every write, call and view read to what it sets off.
func (a *analysis) close(e *effects, via string, loc int) {
	for _, f := range e.refusals {
		if via != "" {
			f.Reason = "reaches, through " + via + ", something that " + f.Reason
			f.Loc = loc
		}
		a.r.Refusals = append(a.r.Refusals, f)
	}
	for _, w := range e.writes {
		if via != "" {
			w.Direct, w.Multi = false, false
			if w.Via == "" {
				w.Via = via
			} else {
				w.Via = via + " -> " + w.Via
			}
			w.Loc = loc
		}
		a.write(w)
	}
	for _, c := range e.calls {
		l := c.loc
		if via != "" {
			l = loc
		}
		a.call(c, via, l)
	}
	for _, c := range e.views {
		l := c.loc
		if via != "" {
			l = loc
		}
		a.viewRead(c.name, via, l)
	}
}

// write adds w and what it sets off: the base tables of a view, the
// triggers of its events, the foreign-key actions of the tables that
// reference it.
func (a *analysis) write(w Write) {
	key := fmt.Sprintf("write %s %s %s %v %v %v", w.Table, w.Via, w.Verb, w.Events, w.Set == nil, w.Set)
	if a.done[key] {
		return
	}
	a.done[key] = true
	a.r.Writes = append(a.r.Writes, w)
	via := w.Via
	if via != "" {
		via += " -> "
	}
	// What a write sets off is followed once per table and event: the
	// first path found names it (a foreign key that references its own
	// table, or two that reference each other, would not end otherwise).
	if v := a.sc.Views[w.Table]; v != nil && !a.done["through view "+w.Table] {
		a.done["through view "+w.Table] = true
		// Each definition the name may have (View.Alt).
		for ; v != nil; v = v.Alt {
			for _, b := range v.Base {
				bw := w
				bw.Table, bw.Direct, bw.Multi, bw.Set = b, false, false, nil
				bw.Via = via + "view " + v.Name
				a.write(bw)
			}
		}
	}
	if t := a.sc.Tables[w.Table]; t != nil && !a.done["through merge "+w.Table] {
		if len(t.Union) > 0 {
			// A MERGE table's rows are its UNION tables' rows.
			a.done["through merge "+w.Table] = true
			for _, u := range t.Union {
				uw := w
				uw.Table, uw.Direct, uw.Multi, uw.Set = u, false, false, nil
				uw.Via = via + "MERGE table " + w.Table + " (UNION=" + strings.Join(t.Union, ", ") + ")"
				a.write(uw)
			}
		}
		if !t.OwnRows() && len(a.sc.Fenced) > 0 {
			a.r.Refusals = append(a.r.Refusals, Refusal{Kind: "engine", Loc: w.Loc,
				Reason: "writes " + w.Table + ", whose ENGINE=" + t.Engine + " may write the rows of another table (a remote or virtual table, maybe a fenced one of this server), which fencegen cannot follow; write the table the engine stores its rows in"})
		}
	}
	for _, ev := range w.Events {
		// The triggers once per table and event; the foreign keys once
		// each, when the write may set off their action (mayChange).
		triggers := !a.done["sets off "+w.Table+" "+ev]
		a.done["sets off "+w.Table+" "+ev] = true
		for _, tr := range a.sc.Triggers {
			if !triggers || tr.Table != w.Table || tr.Event != ev {
				continue
			}
			p := via + "trigger " + tr.Name + " on " + tr.Table
			if tr.Opaque != "" {
				a.r.Refusals = append(a.r.Refusals, Refusal{Kind: "trigger", Loc: w.Loc, At: tr.BodyAt,
					Reason: "writes " + w.Table + ", which sets off " + p + ", whose body fencegen cannot read (" + tr.Opaque + "), so it cannot show that it writes no fenced table"})
				continue
			}
			if a.done[p] {
				continue
			}
			a.done[p] = true
			a.close(a.body("trigger "+tr.Name+" "+tr.Event, tr.Body, tr.BodyAt, p, w.Loc), p, w.Loc)
		}
		if ev != "DELETE" && ev != "UPDATE" {
			continue
		}
		for _, child := range sortedTables(a.sc) {
			for i, fk := range child.Refs {
				if fk.Parent != w.Table || ev == "UPDATE" && !a.mayChange(w, fk) {
					continue
				}
				if k := fmt.Sprintf("foreign key %s %d %s", child.Name, i, ev); a.done[k] {
					continue
				} else {
					a.done[k] = true
				}
				action := fk.OnDelete
				if ev == "UPDATE" {
					action = fk.OnUpdate
				}
				var cev string
				switch strings.ToUpper(action) {
				case "CASCADE":
					cev = ev
				case "SET NULL", "SET DEFAULT":
					cev = "UPDATE"
				default:
					continue
				}
				cw := Write{Verb: cev, Table: child.Name, Events: []string{cev}, Loc: w.Loc,
					Via: via + "foreign key of " + child.Name + " to " + w.Table + " ON " + ev + " " + strings.ToUpper(action)}
				a.write(cw)
			}
		}
	}
}

// mayChange reports whether UPDATE w of fk's parent may change a column
// fk references: InnoDB runs the ON UPDATE action only then. It may
// unless w assigns known columns (Set), none of them referenced, the
// parent has no GENERATED or ON UPDATE column (Table.Volatile) and no
// BEFORE UPDATE trigger, which may change any column of the row.
func (a *analysis) mayChange(w Write, fk ForeignKey) bool {
	if w.Set == nil || fk.Columns == nil {
		return true
	}
	if p := a.sc.Tables[w.Table]; p == nil || p.Volatile {
		return true
	}
	for _, c := range fk.Columns {
		if slices.Contains(w.Set, c) {
			return true
		}
	}
	return slices.ContainsFunc(a.sc.Triggers, func(tr *Trigger) bool {
		return tr.Table == w.Table && tr.Event == "UPDATE" && tr.Timing != "AFTER"
	})
}

func sortedTables(sc *Schema) []*Table {
	out := make([]*Table, 0, len(sc.Tables))
	for _, t := range sc.Tables {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// call follows a call of a routine.
func (a *analysis) call(c call, via string, loc int) {
	r := a.sc.Routines[c.name]
	what := "function "
	if c.procedure {
		what = "procedure "
		r = a.sc.Procedures[c.name]
	}
	p := what + c.name
	if via != "" {
		p = via + " -> " + p
	}
	if r == nil {
		if c.procedure {
			reason := "CALLs " + c.name
			if via != "" {
				reason = "reaches, through " + via + ", a CALL of " + c.name
			}
			a.r.Refusals = append(a.r.Refusals, Refusal{Kind: "CallStmt", Loc: loc, At: c.at,
				Reason: reason + ", a procedure the schema does not define, so fencegen cannot show that it writes no fenced table; define the procedure in the schema files"})
		}
		// A function the schema does not define is a built-in one (a
		// stored function must exist when the statement runs).
		return
	}
	// Each definition the name may have (Routine.Alt) may run.
	opaque := false
	for d := r; d != nil; d = d.Alt {
		if d.Opaque != "" {
			a.r.Refusals = append(a.r.Refusals, Refusal{Kind: what[:len(what)-1], Loc: loc, At: d.BodyAt,
				Reason: "runs " + p + ", whose body fencegen cannot read (" + d.Opaque + "), so it cannot show that it writes no fenced table"})
			opaque = true
		}
	}
	if opaque || a.done[what+c.name] {
		return
	}
	a.done[what+c.name] = true
	for k := 0; r != nil; r, k = r.Alt, k+1 {
		key := what + c.name
		if k > 0 {
			key += fmt.Sprintf(" (definition %d)", k+1)
		}
		a.close(a.body(key, r.Body, r.BodyAt, p, loc), p, loc)
	}
}

// viewRead follows a read of a view: its query runs.
func (a *analysis) viewRead(name, via string, loc int) {
	v := a.sc.Views[name]
	if v == nil || a.done["view "+name] {
		return
	}
	a.done["view "+name] = true
	p := "view " + name
	if via != "" {
		p = via + " -> " + p
	}
	// Each definition the name may have (View.Alt).
	for ; v != nil; v = v.Alt {
		if v.Select == nil {
			continue
		}
		e := a.statement(v.Select, v.Select.Text(), loc, false)
		// A view's own FROM tables are read, not written.
		a.close(e, p, loc)
	}
}

// body reads a stored program's body: every statement in it that can
// write is cut out and parsed alone; the words naming stored functions
// and views are followed. Locations are meaningless inside (close puts
// them at the caller's).
func (a *analysis) body(key, text string, at *Source, what string, loc int) *effects {
	if e, ok := a.bodies[key]; ok {
		return e
	}
	e := &effects{}
	a.bodies[key] = e
	opaque := func(e *effects) func(string, int) {
		return func(reason string, off int) {
			e.refusals = append(e.refusals, Refusal{Kind: "body", Loc: loc, At: at.at(off), Reason: reason + "; fencegen cannot show that " + what + " writes no fenced table"})
		}
	}
	a.scanBody(text, 0, loc, at, e, opaque(e))
	if len(a.sc.Fenced) == 0 {
		return e
	}
	// The server reads a stored program's body under the sql_mode of
	// the session that created it, which it stores with the program and
	// fencegen cannot see: a body read otherwise under a mode that
	// changes its tokens or its tree must have the same effects.
	want := effectsSignature(e)
	for _, m := range modeReadings(text) {
		alt := &effects{}
		a.scanBody(text, m.mode, loc, at, alt, opaque(alt))
		if effectsSignature(alt) != want {
			opaque(e)("reads differently under sql_mode "+m.name+" (where "+m.what+"), which the server stores with the program from the session that created it and fencegen cannot see; write "+m.fix, 0)
			break
		}
	}
	return e
}

// effectsSignature is what a body's effects hold, without locations: the
// writes, calls, views read and refusals, sorted.
func effectsSignature(e *effects) string {
	var parts []string
	for _, w := range e.writes {
		w.Loc = 0
		parts = append(parts, fmt.Sprintf("write %+v", w))
	}
	for _, c := range e.calls {
		parts = append(parts, fmt.Sprintf("call %s %v", c.name, c.procedure))
	}
	for _, v := range e.views {
		parts = append(parts, "view "+v.name)
	}
	for _, f := range e.refusals {
		parts = append(parts, "refused "+f.Kind+": "+f.Reason)
	}
	sort.Strings(parts)
	return strings.Join(parts, "\n")
}

// cut parses the statement of a body that starts at toks[i] (up to the
// next semicolon outside parentheses, or END of the block) and adds its
// effects to e; it returns the index of the statement's last token.
func (a *analysis) cut(toks []token, i int, text string, mode mysql.SQLMode, at *Source, e *effects, opaque func(string, int)) int {
	depth := 0
	j := i
	for ; j < len(toks); j++ {
		t := toks[j]
		if t.kind == tokPunct {
			switch t.text {
			case "(":
				depth++
			case ")":
				depth--
			case ";":
				if depth <= 0 {
					goto done
				}
			}
		}
	}
done:
	stmtText := text[toks[i].pos:toks[j-1].end]
	p := parser.New()
	p.SetSQLMode(mode)
	stmts, _, err := p.Parse(stmtText, "", "")
	if err != nil || len(stmts) != 1 {
		opaque("holds a statement fencegen's parser does not read ("+firstWords(stmtText)+")", toks[i].pos)
		return j - 1
	}
	sub := a.statement(stmts[0], stmts[0].Text(), 0, true)
	for k := range sub.refusals {
		// What the statement holds is refused where the body has it.
		if f := &sub.refusals[k]; f.At == nil {
			f.At = at.at(toks[i].pos + max(f.Loc, 0))
		}
	}
	for _, w := range sub.writes {
		w.Direct = false
		e.writes = append(e.writes, w)
	}
	for _, c := range sub.calls {
		c.at = at.at(toks[i].pos + max(c.loc, 0))
		e.calls = append(e.calls, c)
	}
	e.views = append(e.views, sub.views...)
	e.refusals = append(e.refusals, sub.refusals...)
	return j - 1
}

func firstWords(s string) string {
	f := strings.Fields(s)
	if len(f) > 4 {
		f = f[:4]
	}
	return strings.Join(f, " ") + " ..."
}
