package gen

import (
	"fmt"
	"sort"
	"strings"

	tidbparser "github.com/pingcap/tidb/pkg/parser"
	tidb "github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/config"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/writes/mysqlwrites"
)

// mysqlWriteFacts is what the MySQL write analysis knows of an entry's
// schema: the views, triggers, stored routines and foreign keys its
// files define (read from their text, as parsed: migration tools' down
// sections blanked), and the tables cat fences. A statement it cannot
// read that may define one of them makes every query refused
// (mysqlwrites.Schema.Unread).
//
// The files are read statement by statement as mysqlwrites.ReadSchema
// reads them, but a statement the TiDB parser has already parsed (into
// sqlparse.Stmt.MySQL, for the catalog) is not parsed again: its trees
// are handed over when they lie within the statement's text. A stored
// program, and a statement without such trees, is read from its text.
//
// It also refuses, at its name, each trigger of a fenced table that may
// replace the fencing token the guard stores (mysqlTokenRewrites).
//
// notes are, for each MERGE table whose UNION option names a fenced
// table, at the statement that set it: MariaDB and MySQL fire none of
// the fenced table's triggers for the rows a MERGE table writes.
func mysqlWriteFacts(schema []*sqlparse.File, cat *catalog.Catalog) (*mysqlwrites.Schema, diag.List, diag.List) {
	sc := mysqlwrites.NewSchema()
	at := map[*mysqlwrites.Trigger]triggerAt{}
	eventAt := map[*mysqlwrites.Event]triggerAt{}
	unionAt := map[string]triggerAt{}
	// The session's sql_mode as the schema's SET statements leave it
	// (the lexing and tree modes only; known false after a SET whose
	// value fencegen cannot read): each later statement must read as the
	// same statement under it as in the default mode.
	var mode mysql.SQLMode
	known, modeSet := true, false
	unionWas := map[string]string{}
	noteUnions := func(f *sqlparse.File, st mysqlwrites.Statement) {
		if !strings.Contains(strings.ToUpper(st.Text), "UNION") {
			return
		}
		for name, t := range sc.Tables {
			if u := strings.Join(t.Union, ","); u != "" && u != unionWas[name] {
				unionWas[name] = u
				unionAt[name] = triggerAt{f, st.Pos}
			}
		}
	}
	var errs diag.List
	errs = append(errs, mysqlSchemaNameCases(schema)...)
	// The session's client character set as the schema's SET statements
	// leave it: one whose multi-byte characters may end in an ASCII byte
	// is refused where it is set (fencegen reads the schema as UTF-8).
	var charset mysqlwrites.ClientCharset
	for _, f := range schema {
		stmts := f.Stmts
		for _, st := range mysqlwrites.SplitStatements(string(f.Src)) {
			if !mysqlwrites.IsProgram(st.Text) {
				if at, why := charset.Read(st.Text); why != "" {
					line, col := diag.Position(f.Src, st.Pos+at)
					errs.Add(f.Name, line, col, "schema statement %s", why)
				}
			}
			if at, why := charset.NonASCII(st.Text); why != "" {
				line, col := diag.Position(f.Src, st.Pos+at)
				errs.Add(f.Name, line, col, "schema statement %s", why)
			}
			if !mysqlwrites.IsProgram(st.Text) {
				isSet := false
				if strings.Contains(strings.ToLower(st.Text), "sql_mode") {
					if set, _, err := tidbparser.New().Parse(st.Text, "", ""); err == nil && len(set) == 1 {
						var m mysql.SQLMode
						var k bool
						if m, k, isSet = mysqlwrites.SchemaMode(set[0]); isSet {
							mode, known, modeSet = m, k, true
						}
					}
				}
				if !isSet && modeSet {
					if at, why := mysqlwrites.SchemaReading(st.Text, mode, known); why != "" {
						line, col := diag.Position(f.Src, st.Pos+at)
						errs.Add(f.Name, line, col, "schema statement %s (the schema sets sql_mode before it, and fencegen reads the schema in the default mode)", why)
					}
				}
			}
			end := st.Pos + len(st.Text)
			for len(stmts) > 0 && stmts[0].Start < st.Pos {
				stmts = stmts[1:]
			}
			n := 0
			for n < len(stmts) && stmts[n].Start < end && stmts[n].End <= end && stmts[n].MySQL != nil {
				n++
			}
			if n == 0 || (n < len(stmts) && stmts[n].Start < end) || mysqlwrites.IsProgram(st.Text) {
				_ = sc.AddTextAt(st.Text, mysqlwrites.Source{Name: f.Name, Src: f.Src, Pos: st.Pos})
				for _, tr := range sc.Triggers {
					if _, ok := at[tr]; !ok {
						at[tr] = triggerAt{f, st.Pos + tr.Pos}
					}
				}
				for _, ev := range sc.Events {
					if _, ok := eventAt[ev]; !ok {
						eventAt[ev] = triggerAt{f, st.Pos + ev.Pos}
					}
				}
				continue
			}
			for _, p := range stmts[:n] {
				sc.Add(p.MySQL)
			}
			noteUnions(f, st)
		}
	}
	for _, t := range cat.FencedTables() {
		sc.Fence(t.Name)
	}
	errs = append(errs, mysqlTokenRewrites(sc, cat, at)...)
	notes := mysqlEventWrites(sc, eventAt)
	names := make([]string, 0, len(unionAt))
	for name := range unionAt {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t := sc.Tables[name]
		if t == nil {
			continue
		}
		for _, u := range t.Union {
			if !sc.Fenced[u] {
				continue
			}
			loc := unionAt[name]
			line, col := diag.Position(loc.f.Src, loc.off)
			notes.AddErr(&diag.Error{File: loc.f.Name, Line: line, Col: col,
				Msg: fmt.Sprintf("note: MERGE table %s has fenced table %s in its UNION option: %s for the rows a MERGE table writes, so the guard triggers of %s do not check them: a write of %s by a writer outside the generated code changes %s with no token (the generated queries that write %s are refused); drop %s from the UNION, or the MERGE table",
					name, u, mergeTriggerlessNote, u, name, u, name, u)})
		}
	}
	return sc, errs, notes
}

// mysqlEventWrites notes, at its name, each event the schema leaves
// (CREATE EVENT) whose body may write a fenced table, or that fencegen
// cannot show writes none (issue 27): the server runs it on its
// schedule, outside the generated code and with no fencing token, as a
// writer outside the generated code, so fencegen cannot guard it; the
// guard triggers (fencegen guard) check its rows as any writer's. A
// query that reaches a trigger or procedure writing a fenced table is
// refused at the query (mysqlwrites.Of); an event is reached by none.
func mysqlEventWrites(sc *mysqlwrites.Schema, at map[*mysqlwrites.Event]triggerAt) diag.List {
	var notes diag.List
	if len(sc.Fenced) == 0 {
		return notes
	}
	for _, ev := range sc.Events {
		loc, ok := at[ev]
		if !ok {
			continue
		}
		r := mysqlwrites.EventWrites(ev, sc)
		var what []string
		seen := map[string]bool{}
		for _, w := range r.FencedWrites(sc) {
			d := w.Table + " (" + w.Verb
			if w.Via != "event "+ev.Name {
				d += ", through " + strings.TrimPrefix(w.Via, "event "+ev.Name+" -> ")
			}
			d += ")"
			if !seen[d] {
				seen[d] = true
				what = append(what, d)
			}
		}
		writes := "writes fenced table " + strings.Join(what, ", ")
		if len(r.Refusals) > 0 {
			// What its body holds that fencegen cannot read.
			writes = "may write any fenced table (its body " + strings.TrimPrefix(r.Refusals[0].Reason, "reaches, through event "+ev.Name+", something that ") + ")"
		} else if len(what) == 0 {
			continue
		}
		line, col := diag.Position(loc.f.Src, loc.off)
		notes.AddErr(&diag.Error{File: loc.f.Name, Line: line, Col: col,
			Msg: fmt.Sprintf("note: event %s %s on its schedule, in the server, outside the generated code and with no fencing token: fencegen cannot guard it, and the guard triggers (fencegen guard) check its rows only as they check any writer's (an UPDATE that leaves the token as stored passes on a non-strict table); write the rows from a guarded query under a lease, or drop the event",
				ev.Name, writes)})
	}
	return notes
}

// mergeTriggerlessNote is the text every MERGE note of mysqlWriteFacts
// holds (GuardNotes prints them).
const mergeTriggerlessNote = "MariaDB and MySQL fire no triggers of the underlying tables"

// mysqlSchemaNameCases is mysqlNameCases over the schema's statements.
func mysqlSchemaNameCases(schema []*sqlparse.File) diag.List {
	var errs diag.List
	cases := map[string]string{}
	for _, f := range schema {
		for _, p := range f.Stmts {
			if p.MySQL != nil {
				mysqlNameCases(&errs, cases, f, p.Start, p.MySQL)
			}
		}
	}
	return errs
}

// mysqlMarks reports whether the configuration fences a table or a
// schema file holds a token mark: a schema that fences no table in the
// end may have dropped a fenced one through a name the server reads
// otherwise.
func mysqlMarks(schema []*sqlparse.File, fence []config.FenceTable) bool {
	if len(fence) > 0 {
		return true
	}
	for _, f := range schema {
		if strings.Contains(strings.ToLower(string(f.Src)), "fencegen:token") {
			return true
		}
	}
	return false
}

// mysqlNameCases refuses a schema statement that names a table or view
// in another case than the name's first use in the schema (CREATE TABLE
// accounts ...; DROP TABLE Accounts): MySQL keeps the two names apart
// where lower_case_table_names is 0 (Linux) and folds them where it is 1
// or 2, so fencegen cannot tell which table the statement changes, while
// the catalog, as sqlc's, folds the name. cases maps each name (with its
// database) in lower case to its first spelling.
func mysqlNameCases(errs *diag.List, cases map[string]string, f *sqlparse.File, off int, st tidb.StmtNode) {
	var names []*tidb.TableName
	switch x := st.(type) {
	case *tidb.CreateTableStmt:
		names = append(names, x.Table, x.ReferTable)
	case *tidb.CreateViewStmt:
		names = append(names, x.ViewName)
	case *tidb.DropTableStmt:
		names = append(names, x.Tables...)
	case *tidb.RenameTableStmt:
		for _, tt := range x.TableToTables {
			names = append(names, tt.OldTable, tt.NewTable)
		}
	case *tidb.AlterTableStmt:
		names = append(names, x.Table)
		for _, s := range x.Specs {
			names = append(names, s.NewTable)
		}
	case *tidb.TruncateTableStmt:
		names = append(names, x.Table)
	}
	for _, n := range names {
		if n == nil || n.Name.O == "" {
			continue
		}
		key := n.Schema.L + "." + n.Name.L
		first, ok := cases[key]
		if !ok {
			cases[key] = n.Name.O
			continue
		}
		if first != n.Name.O {
			line, col := diag.Position(f.Src, off)
			errs.Add(f.Name, line, col, "table %s is written %s before: MySQL keeps names that differ only in case apart where lower_case_table_names is 0 (Linux) and folds them elsewhere, so fencegen cannot tell which table this statement changes; write it %s throughout the schema",
				n.Name.O, first, first)
			return
		}
	}
}

// triggerAt is where a trigger's CREATE TRIGGER names it.
type triggerAt struct {
	f   *sqlparse.File
	off int
}

// mysqlTokenRewrites refuses each trigger the schema leaves on a fenced
// table that may replace the row's fencing token: a BEFORE INSERT or
// BEFORE UPDATE trigger that may assign NEW.<token>, or whose body
// fencegen cannot read (mysqlwrites.Trigger.TokenRewrite). The guard
// stores the presented token in the row the statement writes; such a
// trigger stores another (SET NEW.tok = 0), and a later stale holder
// passes. As on PostgreSQL (analyze's fencedRewrites), where such a
// trigger function is refused at the queries that fire it; here at the
// trigger, which fires for every writer. fencegen's own guard triggers
// (fencegen guard) read NEW.<token> only, and pass.
func mysqlTokenRewrites(sc *mysqlwrites.Schema, cat *catalog.Catalog, at map[*mysqlwrites.Trigger]triggerAt) diag.List {
	var errs diag.List
	done := map[string]bool{}
	for _, t := range cat.FencedTables() {
		for _, tr := range sc.Triggers {
			if !strings.EqualFold(tr.Table, t.Name) || done[tr.Name] {
				continue
			}
			why := tr.TokenRewrite(t.Fence.Column)
			loc, ok := at[tr]
			if why == "" || !ok {
				continue
			}
			done[tr.Name] = true
			line, col := diag.Position(loc.f.Src, loc.off)
			errs.Add(loc.f.Name, line, col, "trigger %s on fenced table %s runs BEFORE %s and %s: it would replace the fencing token the guard stores in the row, so a later stale holder could pass; leave token column %s to fencegen, or drop the trigger",
				tr.Name, t.Name, tr.Event, why, t.Fence.Column)
		}
	}
	return errs
}
