package mysqlwrites

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // the parser's value expressions
)

// Schema is what the write analysis knows of a MySQL schema: its tables
// (and which are fenced), views, triggers and stored routines. Names are
// lower-case and without their database: a write of db.t is a write of
// t, which can only add writes (sound). ReadSchema fills one from schema
// SQL; a catalog can fill one too.
//
// Which object a schema statement's name means is not always known:
// fencegen cannot tell whether a database qualifier (db.x), or the
// database a USE statement selects, is the project's database, and
// whether the server folds the case of table, view and trigger names
// (lower_case_table_names) or not. A statement removes or replaces only
// what it surely names (unqualified, not after a USE of a database other
// than the project's, the same case for tables, views and triggers;
// routine names never differ by case), and
// otherwise adds: a name then stands for every definition it may have
// (View.Alt, Routine.Alt, several Triggers), and a write or call reaches
// them all.
type Schema struct {
	// Fenced holds the tables with a fencing-token column.
	Fenced map[string]bool
	// Tables are the base tables.
	Tables map[string]*Table
	// Views are the views, whose writes reach their base tables and whose
	// reads run their query (and the stored functions it calls).
	Views map[string]*View
	// Triggers run on a table's INSERT, UPDATE or DELETE.
	Triggers []*Trigger
	// Events are the events (CREATE EVENT), whose bodies run on their
	// schedule, outside any statement (EventWrites).
	Events []*Event
	// Routines are the stored functions and Procedures the stored
	// procedures: MySQL keeps them apart, so a function and a procedure
	// may share a name.
	Routines   map[string]*Routine
	Procedures map[string]*Routine
	// Unread are schema statements that may define a view, trigger,
	// routine or foreign key and that could not be read (their first
	// words): while there is one, Of refuses every statement, since what
	// it defines could write a fenced table unseen.
	Unread []string

	// DefaultEngine is the storage engine the schema's own SET
	// default_storage_engine (or storage_engine; SESSION or GLOBAL, a
	// migration tool's later sessions get it) last chose, as written,
	// which a CREATE TABLE without ENGINE gets; "" for the server's
	// default.
	DefaultEngine string
	// sessionEngine and globalEngine are the SESSION and GLOBAL values
	// of default_storage_engine the schema set ("" not set).
	sessionEngine, globalEngine string

	// elsewhere is set after a USE statement whose database may not be
	// the project's: any but that of a USE before the schema defined
	// anything (project), which selects the project's.
	elsewhere bool
	project   string
	// src is the place of the statement AddTextAt reads.
	src *Source
}

// use reads USE db (name as written, without backquotes).
func (sc *Schema) use(name string) {
	if sc.project == "" && name != "" && len(sc.Tables) == 0 && len(sc.Views) == 0 && len(sc.Triggers) == 0 && len(sc.Routines) == 0 && len(sc.Procedures) == 0 {
		sc.project = name
	}
	sc.elsewhere = name == "" || name != sc.project
}

// Table is a base table: its columns (lower-case) and the foreign keys
// that reference another table from it.
type Table struct {
	Name    string
	Columns []string
	Refs    []ForeignKey
	// Exact is the name as written; Sure is set while the name surely
	// means this table of the project's database, and only then does a
	// DROP TABLE of Exact remove it. A table whose name may mean another
	// (a case variant, a qualified name) holds the columns and foreign
	// keys of both.
	Exact string
	Sure  bool
	// Engine is the storage engine its CREATE TABLE or a later ALTER
	// TABLE names (ENGINE = InnoDB), as written; "" for the server's
	// default.
	Engine string
	// Union are the tables a MERGE (MRG_MyISAM) table's UNION= option
	// names, lower-case: a write of the MERGE table writes their rows
	// (and fires none of their triggers).
	Union []string
	// Volatile is set once a column of the table has been declared
	// GENERATED or ON UPDATE (CURRENT_TIMESTAMP): an UPDATE may change
	// it without assigning it, so the ON UPDATE actions of the foreign
	// keys that reference the table count for every UPDATE of it.
	Volatile bool
}

// ForeignKey is a reference from Table's columns to Parent; OnDelete and
// OnUpdate are the actions as MySQL spells them ("CASCADE", "SET NULL",
// "SET DEFAULT", "RESTRICT", "NO ACTION", "" for none).
type ForeignKey struct {
	// Name is the constraint's name (lower case) as CONSTRAINT name
	// gives it, "" when the schema names none (the server then makes
	// one up, which a DROP FOREIGN KEY may name: such a key stays).
	Name               string
	Parent             string
	OnDelete, OnUpdate string
	// Columns are the referenced columns of Parent (lower-case), the
	// names they had and have since (a rename adds the new name); nil
	// when one is not a plain column. InnoDB runs the ON UPDATE action
	// only when an UPDATE changes one of them.
	Columns []string
}

// View is a view and its query. Base are the tables (or views) its FROM
// clause names: a write through the view may write any of them.
type View struct {
	Name   string
	Select ast.StmtNode
	Base   []string
	// Exact is the name as written; Sure is set when it surely names
	// the project's view (see Schema). Alt is another definition the
	// name may have: a read or write of the view reaches each.
	Exact string
	Sure  bool
	Alt   *View
}

// Source is where a stored program's text lies in the schema: the
// file's name and text and a byte offset in it (see AddTextAt).
type Source struct {
	Name string
	Src  []byte
	Pos  int
}

// at is src moved off bytes further into the file; nil for a nil src.
func (src *Source) at(off int) *Source {
	if src == nil {
		return nil
	}
	return &Source{Name: src.Name, Src: src.Src, Pos: src.Pos + max(off, 0)}
}

// Trigger is a trigger on Table for Event (INSERT, UPDATE or DELETE).
// Body is its text, read as a routine body (see Routine); Opaque is set
// when fencegen cannot read it, and any write that fires it is refused.
//
// Timing is BEFORE or AFTER; Pos is the byte offset of the trigger's
// name in the text given to AddText.
//
// Exact is the name as written, Sure set when it surely names the
// project's trigger: only then does a DROP TRIGGER of Exact remove it.
type Trigger struct {
	Name, Table, Event string
	Exact              string
	Sure               bool
	Timing             string
	Body               string
	Opaque             string
	Pos                int
	// BodyAt is where Body starts in the schema (AddTextAt), nil when
	// the statement was read without its place (AddText).
	BodyAt *Source
}

// Event is an event the schema creates: its body (the statement after
// DO) runs on the event's schedule, in the server, with no fencing
// token. Pos is the byte offset of its name in the text given to
// AddText; BodyAt is where Body starts (AddTextAt), nil when unknown.
type Event struct {
	Name, Exact string
	Sure        bool
	Body        string
	Pos         int
	BodyAt      *Source
}

// Routine is a stored procedure or function. Body is the text after its
// parameter list (its characteristics and its statement); Opaque is set
// when fencegen cannot read it, and any call of it is refused.
//
// Sure is set when its name surely means the project's routine; Alt is
// another definition the name may have (see Schema): a call runs each.
type Routine struct {
	Name     string
	Function bool
	Body     string
	Opaque   string
	Sure     bool
	Alt      *Routine
	// BodyAt is where Body starts in the schema (AddTextAt), nil when
	// unknown.
	BodyAt *Source
}

// NewSchema is an empty Schema.
func NewSchema() *Schema {
	return &Schema{Fenced: map[string]bool{}, Tables: map[string]*Table{}, Views: map[string]*View{}, Routines: map[string]*Routine{}, Procedures: map[string]*Routine{}}
}

// Fence marks table as fenced.
func (sc *Schema) Fence(table string) { sc.Fenced[strings.ToLower(table)] = true }

// SchemaError is a schema statement ReadSchema could not read: File is
// the index of the file in ReadSchema's arguments, Pos the statement's
// byte offset in it.
type SchemaError struct {
	File, Pos int
	Err       error
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("schema file %d, offset %d: %v", e.File, e.Pos, e.Err)
}

func (e *SchemaError) Unwrap() error { return e.Err }

// ReadSchema reads the schema statements of files in order: CREATE
// TABLE (columns, foreign keys), ALTER TABLE, CREATE VIEW, DROP and
// RENAME, and CREATE PROCEDURE, FUNCTION and TRIGGER (which the TiDB
// parser does not read: their header is read here and their body, kept
// as text, is read statement by statement when a write reaches it;
// DELIMITER lines are honoured). The error joins a *SchemaError for every
// statement it could not parse; the Schema holds the rest.
func ReadSchema(files ...[]byte) (*Schema, error) {
	sc := NewSchema()
	var errs []error
	// The session's sql_mode as the schema's SET statements leave it: a
	// statement that then reads as another statement than in the default
	// mode, which this reads, is unread (SchemaReading).
	var mode mysql.SQLMode
	known, modeSet := true, false
	var charset ClientCharset
	for fi, f := range files {
		for _, st := range SplitStatements(string(f)) {
			if !IsProgram(st.Text) {
				if _, why := charset.Read(st.Text); why != "" {
					sc.Unread = append(sc.Unread, firstWords(st.Text)+", which "+why)
				}
			}
			if _, why := charset.NonASCII(st.Text); why != "" {
				sc.Unread = append(sc.Unread, firstWords(st.Text)+", which "+why)
			}
			if !IsProgram(st.Text) {
				isSet := false
				if strings.Contains(strings.ToLower(st.Text), "sql_mode") {
					if set, _, err := parser.New().Parse(st.Text, "", ""); err == nil && len(set) == 1 {
						var m mysql.SQLMode
						var k bool
						if m, k, isSet = SchemaMode(set[0]); isSet {
							mode, known, modeSet = m, k, true
						}
					}
				}
				if !isSet && modeSet {
					if _, why := SchemaReading(st.Text, mode, known); why != "" {
						sc.Unread = append(sc.Unread, firstWords(st.Text)+", which "+why)
					}
				}
			}
			if err := sc.add(st.Text); err != nil {
				errs = append(errs, &SchemaError{File: fi, Pos: st.Pos, Err: err})
				sc.unread(st.Text)
			}
		}
	}
	return sc, errors.Join(errs...)
}

// Statement is one statement of a file and its byte offset.
type Statement struct {
	Text string
	Pos  int
}

// SplitStatements splits src into statements at the delimiter (";", or
// what a DELIMITER line sets). With ";", a stored program's compound
// statement (BEGIN ... END, IF ... END IF, CASE ... END CASE, loops) is
// kept whole.
func SplitStatements(src string) []Statement {
	var out []Statement
	delim := ";"
	regionStart := 0
	flush := func(end int) {
		if regionStart >= end {
			return
		}
		region := src[regionStart:end]
		if delim == ";" {
			out = append(out, splitSemicolon(region, regionStart)...)
		} else {
			out = append(out, splitCustom(region, regionStart, delim)...)
		}
	}
	for lineStart := 0; lineStart < len(src); {
		lineEnd := strings.IndexByte(src[lineStart:], '\n')
		if lineEnd < 0 {
			lineEnd = len(src)
		} else {
			lineEnd += lineStart
		}
		line := strings.TrimSpace(src[lineStart:lineEnd])
		if len(line) > 10 && strings.EqualFold(line[:10], "DELIMITER ") {
			flush(lineStart)
			delim = strings.TrimSpace(line[10:])
			regionStart = min(lineEnd+1, len(src))
		} else if d, ok := atlasDelimiter(line); ok {
			flush(lineStart)
			delim = d
			regionStart = min(lineEnd+1, len(src))
		}
		lineStart = lineEnd + 1
	}
	flush(len(src))
	return out
}

// atlasDelimiter reads Atlas's "-- atlas:delimiter X" directive line,
// which sets the file's delimiter to X (on a line of its own, as
// "-- end" in what fencegen guard writes for Atlas).
func atlasDelimiter(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, "--")
	if !ok {
		return "", false
	}
	rest, ok = strings.CutPrefix(strings.TrimSpace(rest), "atlas:delimiter")
	if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
		return "", false
	}
	d := strings.TrimSpace(rest)
	if d == "" {
		return "", false
	}
	return d, true
}

// IsProgram reports whether the schema statement text is one that
// ReadSchema reads by hand and the TiDB parser does not: a DELIMITER
// line, CREATE PROCEDURE, FUNCTION, TRIGGER or EVENT, DROP of one, or
// ALTER EVENT.
// Such a statement defines no table: a catalog skips it, while
// ReadSchema (the write analysis) still reads it.
func IsProgram(text string) bool {
	toks := lex(text)
	if len(toks) == 0 {
		return false
	}
	switch toks[0].upper() {
	case "DELIMITER":
		return true
	case "CREATE":
		k, _ := programKind(toks)
		return k != ""
	case "DROP":
		return len(toks) > 1 && routineKinds[toks[1].upper()]
	case "ALTER":
		return alterEvent(toks) > 0
	}
	return false
}

// alterEvent returns the index of the token after EVENT in ALTER
// [DEFINER = user] EVENT, or 0 for any other ALTER statement.
func alterEvent(toks []token) int {
	if len(toks) < 2 || toks[0].upper() != "ALTER" || toks[1].upper() != "EVENT" && toks[1].upper() != "DEFINER" {
		return 0
	}
	if k, i := programKind(toks); k == "EVENT" {
		return i
	}
	return 0
}

func addStmt(out []Statement, s string, pos int) []Statement {
	t := strings.TrimSpace(s)
	if t == "" || len(lex(t)) == 0 {
		return out
	}
	return append(out, Statement{Text: t, Pos: pos + strings.Index(s, t)})
}

// splitCustom splits region at delim outside strings and comments.
func splitCustom(region string, base int, delim string) []Statement {
	var out []Statement
	start := 0
	for i := 0; i < len(region); {
		switch c := region[i]; {
		case strings.HasPrefix(region[i:], delim):
			out = addStmt(out, region[start:i], base+start)
			i += len(delim)
			start = i
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(region) && region[j] != c {
				if region[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			i = j + 1
		case c == '#' || strings.HasPrefix(region[i:], "-- "):
			for i < len(region) && region[i] != '\n' {
				i++
			}
		case strings.HasPrefix(region[i:], "/*") && !strings.HasPrefix(region[i:], "/*!"):
			j := strings.Index(region[i+2:], "*/")
			if j < 0 {
				i = len(region)
			} else {
				i += j + 4
			}
		default:
			i++
		}
	}
	return addStmt(out, region[start:min(len(region), len(region))], base+start)
}

// splitSemicolon splits region at semicolons, keeping a stored program's
// compound statements whole.
func splitSemicolon(region string, base int) []Statement {
	toks := lex(region)
	var out []Statement
	start, first := 0, 0 // byte offset and token index of the statement
	depth := 0
	program := false
	for i, t := range toks {
		if i == first {
			program = false
			depth = 0
		}
		if i == first+1 || (i > first && i < first+12 && !program) {
			if t.upper() == "PROCEDURE" || t.upper() == "FUNCTION" || t.upper() == "TRIGGER" || t.upper() == "EVENT" {
				// ALTER EVENT ... DO may hold a compound statement, as
				// CREATE EVENT does.
				program = toks[first].upper() == "CREATE" || t.upper() == "EVENT" && alterEvent(toks[first:]) > 0
			}
		}
		if program {
			depth += blockDelta(toks, i)
			if depth < 0 {
				depth = 0
			}
		}
		if t.kind == tokPunct && t.text == ";" && depth == 0 {
			out = addStmt(out, region[start:t.pos], base+start)
			start, first = t.end, i+1
		}
	}
	return addStmt(out, region[start:], base+start)
}

// blockDelta is what token i does to the nesting of a stored program's
// compound statements: +1 opens (BEGIN, CASE, IF, LOOP, WHILE, REPEAT,
// and MariaDB's FOR var IN ... DO loop), -1 closes (END, whose END IF /
// END CASE / END FOR / ... word is not an opener). FOR opens only before
// a name and IN: its other uses (FOR EACH ROW, FOR UPDATE, HANDLER FOR,
// CURSOR FOR, SET STATEMENT ... FOR, FOR SYSTEM_TIME, FOR PORTION OF)
// open nothing.
func blockDelta(toks []token, i int) int {
	w := toks[i].upper()
	prev, next := "", ""
	nextPunct := ""
	if i > 0 {
		prev = toks[i-1].upper()
	}
	if i+1 < len(toks) {
		next = toks[i+1].upper()
		if toks[i+1].kind == tokPunct {
			nextPunct = toks[i+1].text
		}
	}
	switch w {
	case "BEGIN", "CASE", "LOOP", "WHILE":
		if prev == "END" {
			return 0
		}
		return 1
	case "IF", "REPEAT":
		if prev == "END" || nextPunct == "(" || next == "NOT" || next == "EXISTS" {
			return 0
		}
		return 1
	case "FOR":
		if prev != "END" && i+2 < len(toks) && toks[i+1].kind == tokWord && toks[i+2].upper() == "IN" {
			return 1
		}
		return 0
	case "END":
		return -1
	}
	return 0
}

var routineKinds = map[string]bool{"PROCEDURE": true, "FUNCTION": true, "TRIGGER": true, "EVENT": true}

// add reads one schema statement.
func (sc *Schema) add(text string) error {
	toks := lex(text)
	if len(toks) == 0 {
		return nil
	}
	switch toks[0].upper() {
	case "CREATE":
		if k, i := programKind(toks); k != "" {
			return sc.addProgram(k, toks, i, text)
		}
	case "DROP":
		if len(toks) > 1 && (toks[1].upper() == "TRIGGER" || toks[1].upper() == "FUNCTION" || toks[1].upper() == "PROCEDURE" || toks[1].upper() == "EVENT") {
			j := 2
			if j+1 < len(toks) && toks[j].upper() == "IF" && toks[j+1].upper() == "EXISTS" {
				j += 2
			}
			exact, qualified, _ := nameRef(toks, j)
			if qualified || sc.elsewhere {
				// It may name another database's object: the
				// project's stays.
				return nil
			}
			switch toks[1].upper() {
			case "TRIGGER":
				sc.Triggers = slices.DeleteFunc(sc.Triggers, func(tr *Trigger) bool { return tr.Sure && tr.Exact == exact })
			case "FUNCTION":
				dropRoutine(sc.Routines, strings.ToLower(exact))
			case "PROCEDURE":
				dropRoutine(sc.Procedures, strings.ToLower(exact))
			case "EVENT":
				sc.Events = slices.DeleteFunc(sc.Events, func(ev *Event) bool { return ev.Sure && ev.Exact == exact })
			}
			return nil
		}
	case "ALTER":
		if i := alterEvent(toks); i > 0 {
			return sc.alterEvent(toks, i, text)
		}
	case "DELIMITER":
		return nil
	case "USE":
		name := ""
		if len(toks) == 2 && toks[1].kind == tokWord || len(toks) == 3 && toks[2].kind == tokPunct && toks[2].text == ";" {
			name = toks[1].text
		}
		sc.use(name)
		return nil
	}
	p := parser.New()
	stmts, _, err := p.Parse(text, "", "")
	if err != nil {
		return err
	}
	for _, st := range stmts {
		sc.addStmt(st)
	}
	return nil
}

// programKind finds a stored program's kind in a CREATE statement's
// header (CREATE [OR REPLACE] [DEFINER = u] [AGGREGATE] FUNCTION ...):
// the kind and the index of the token after it, or "".
func programKind(toks []token) (string, int) {
	for i := 1; i < len(toks) && i < 16; i++ {
		w := toks[i].upper()
		if routineKinds[w] {
			return w, i + 1
		}
		switch w {
		case "TABLE", "VIEW", "INDEX", "DATABASE", "SCHEMA", "SEQUENCE", "USER", "ROLE", "SERVER":
			return "", 0
		}
	}
	return "", 0
}

// qualifiedName reads [db.]name at toks[i]: the lower-case name without
// its database, and the index after it.
func qualifiedName(toks []token, i int) (string, int) {
	if i >= len(toks) || toks[i].kind != tokWord {
		return "", i
	}
	name := toks[i].text
	i++
	if i+1 < len(toks) && toks[i].kind == tokPunct && toks[i].text == "." && toks[i+1].kind == tokWord {
		name = toks[i+1].text
		i += 2
	}
	return strings.ToLower(name), i
}

// nameRef reads [db.]name at toks[i]: the name as written, whether it
// has a database qualifier, and the index after it.
func nameRef(toks []token, i int) (string, bool, int) {
	if i >= len(toks) || toks[i].kind != tokWord {
		return "", false, i
	}
	if i+2 < len(toks) && toks[i+1].kind == tokPunct && toks[i+1].text == "." && toks[i+2].kind == tokWord {
		return toks[i+2].text, true, i + 3
	}
	return toks[i].text, false, i + 1
}

// alterEvent reads ALTER EVENT at toks[i], after EVENT (issue 27): its
// DO gives the event a new body, which replaces the one CREATE EVENT
// gave and is read as that one is (EventWrites), its place the new
// body's; RENAME TO gives it another name. ALTER EVENT without either
// (a schedule, a comment, ENABLE or DISABLE) leaves the body as it is.
// An ALTER EVENT ... DO of an event the schema does not create (another
// database's, or one the server would refuse as unknown) is read as an
// event with that body, so that a body writing a fenced table is never
// missed; a RENAME TO of such an event, whose body fencegen does not
// know, is unread (Schema.Unread), which refuses every query.
func (sc *Schema) alterEvent(toks []token, i int, text string) error {
	exact, qualified, i := nameRef(toks, i)
	if exact == "" {
		return fmt.Errorf("ALTER EVENT without a name fencegen can read")
	}
	sure := !qualified && !sc.elsewhere
	newExact, newQualified, do := "", false, -1
scan:
	for j := i; j < len(toks); j++ {
		if toks[j].kind != tokWord || toks[j].quoted {
			continue
		}
		switch toks[j].upper() {
		case "RENAME":
			// RENAME and DO are reserved words: neither can stand
			// unquoted in the schedule or the comment.
			if j+1 < len(toks) && toks[j+1].upper() == "TO" {
				newExact, newQualified, _ = nameRef(toks, j+2)
				if newExact == "" {
					return fmt.Errorf("ALTER EVENT %s RENAME TO without a name fencegen can read", exact)
				}
			}
		case "DO":
			do = j
			break scan
		}
	}
	if do >= 0 && do+1 >= len(toks) {
		return fmt.Errorf("ALTER EVENT %s: nothing after its DO", exact)
	}
	if do < 0 && newExact == "" {
		return nil
	}
	k := slices.IndexFunc(sc.Events, func(ev *Event) bool { return sure && ev.Sure && ev.Exact == exact })
	name, nameExact, nameSure := strings.ToLower(exact), exact, sure
	if newExact != "" {
		name, nameExact, nameSure = strings.ToLower(newExact), newExact, sure && !newQualified && !sc.elsewhere
	}
	if do < 0 {
		if k < 0 {
			sc.Unread = append(sc.Unread, firstWords(text)+", which renames an event the schema does not create, whose body fencegen cannot read")
			return nil
		}
		ev := sc.Events[k]
		ev.Name, ev.Exact, ev.Sure = name, nameExact, nameSure
		return nil
	}
	ev := &Event{Name: name, Exact: nameExact, Sure: nameSure, Body: text[toks[do+1].pos:], Pos: toks[do+1].pos, BodyAt: sc.src.at(toks[do+1].pos)}
	if k < 0 {
		sc.Events = append(sc.Events, ev)
	} else {
		sc.Events[k] = ev
	}
	return nil
}

// dropRoutine removes the definitions of name that surely are the
// project's (Routine.Sure).
func dropRoutine(m map[string]*Routine, name string) {
	var keep []*Routine
	for r := m[name]; r != nil; r = r.Alt {
		if !r.Sure {
			keep = append(keep, r)
		}
	}
	delete(m, name)
	for i := len(keep) - 1; i >= 0; i-- {
		c := *keep[i]
		c.Alt = m[name]
		m[name] = &c
	}
}

// hasSure reports whether name has a definition that surely is the
// project's.
func hasSure(m map[string]*Routine, name string) bool {
	for r := m[name]; r != nil; r = r.Alt {
		if r.Sure {
			return true
		}
	}
	return false
}

// putRoutine adds r to m as CREATE [OR REPLACE] does: when its name is
// sure, OR REPLACE drops the project's definition and a CREATE without
// it of a name the project has changes nothing; otherwise r is one more
// definition the name may have.
func putRoutine(m map[string]*Routine, r *Routine, replace bool) {
	if r.Sure {
		if replace {
			dropRoutine(m, r.Name)
		} else if hasSure(m, r.Name) {
			return // the server keeps the routine it has
		}
	}
	r.Alt = m[r.Name]
	m[r.Name] = r
}

// addProgram reads CREATE PROCEDURE, FUNCTION or TRIGGER at toks[i],
// after the kind's word.
//
// As on the server, CREATE ... OR REPLACE of a name the schema already
// holds (a trigger, a function, a procedure: three namespaces) replaces
// it, and any other CREATE of it changes nothing: IF NOT EXISTS is a
// no-op there, and without it the server refuses the statement, so the
// definition it has is still the one that runs.
func (sc *Schema) addProgram(kind string, toks []token, i int, text string) error {
	if i+2 < len(toks) && toks[i].upper() == "IF" && toks[i+1].upper() == "NOT" && toks[i+2].upper() == "EXISTS" {
		i += 3
	}
	namePos := 0
	if i < len(toks) {
		namePos = toks[i].pos
	}
	exact, qualified, i := nameRef(toks, i)
	name := strings.ToLower(exact)
	sure := !qualified && !sc.elsewhere
	if name == "" {
		return fmt.Errorf("CREATE %s without a name fencegen can read", kind)
	}
	switch kind {
	case "EVENT":
		// An event runs on its schedule, not from a statement: its body,
		// after DO (a reserved word, which the schedule cannot hold but
		// in a string), is followed by EventWrites.
		j := i
		for j < len(toks) && !(toks[j].kind == tokWord && !toks[j].quoted && toks[j].upper() == "DO") {
			j++
		}
		if j+1 >= len(toks) {
			return fmt.Errorf("CREATE EVENT %s: fencegen cannot find its DO", name)
		}
		same := func(ev *Event) bool { return sure && ev.Sure && ev.Exact == exact }
		switch {
		case orReplace(toks):
			sc.Events = slices.DeleteFunc(sc.Events, same)
		case slices.ContainsFunc(sc.Events, same):
			return nil // the server keeps the event it has
		}
		sc.Events = append(sc.Events, &Event{Name: name, Exact: exact, Sure: sure, Body: text[toks[j+1].pos:], Pos: namePos, BodyAt: sc.src.at(toks[j+1].pos)})
		return nil
	case "TRIGGER":
		if i+1 >= len(toks) {
			return fmt.Errorf("CREATE TRIGGER %s: no event", name)
		}
		timing := toks[i].upper()
		i++ // BEFORE or AFTER
		var events []string
		for i < len(toks) {
			w := toks[i].upper()
			if w == "INSERT" || w == "UPDATE" || w == "DELETE" {
				events = append(events, w)
				i++
				if i < len(toks) && toks[i].upper() == "OR" {
					i++
					continue
				}
			}
			break
		}
		if len(events) == 0 || i >= len(toks) || toks[i].upper() != "ON" {
			return fmt.Errorf("CREATE TRIGGER %s: fencegen cannot read its event and table", name)
		}
		table, j := qualifiedName(toks, i+1)
		if j+2 >= len(toks) || toks[j].upper() != "FOR" || toks[j+1].upper() != "EACH" || toks[j+2].upper() != "ROW" {
			return fmt.Errorf("CREATE TRIGGER %s: no FOR EACH ROW", name)
		}
		j += 3
		if j+1 < len(toks) && (toks[j].upper() == "FOLLOWS" || toks[j].upper() == "PRECEDES") {
			_, j = qualifiedName(toks, j+1)
		}
		body, bodyAt := "", sc.src.at(len(text))
		if j < len(toks) {
			body, bodyAt = text[toks[j].pos:], sc.src.at(toks[j].pos)
		}
		// Only a sure name (unqualified, the same case) replaces the
		// project's trigger or leaves it in place; any other is one more
		// trigger that may fire.
		same := func(tr *Trigger) bool { return sure && tr.Sure && tr.Exact == exact }
		switch {
		case orReplace(toks):
			// MariaDB's CREATE OR REPLACE TRIGGER drops the trigger of
			// that name first.
			sc.Triggers = slices.DeleteFunc(sc.Triggers, same)
		case slices.ContainsFunc(sc.Triggers, same):
			return nil // the server keeps the trigger it has
		}
		for _, ev := range events {
			sc.Triggers = append(sc.Triggers, &Trigger{Name: name, Exact: exact, Sure: sure, Table: table, Event: ev, Timing: timing, Body: body, Pos: namePos, BodyAt: bodyAt})
		}
		return nil
	default:
		// PROCEDURE or FUNCTION name (params) ...: the body is what
		// follows the parameter list.
		if i >= len(toks) || toks[i].text != "(" {
			return fmt.Errorf("CREATE %s %s: no parameter list", kind, name)
		}
		depth := 0
		for ; i < len(toks); i++ {
			if toks[i].kind == tokPunct && toks[i].text == "(" {
				depth++
			} else if toks[i].kind == tokPunct && toks[i].text == ")" {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		body, bodyAt := "", sc.src.at(len(text))
		if i+1 < len(toks) {
			body, bodyAt = text[toks[i+1].pos:], sc.src.at(toks[i+1].pos)
		}
		m := sc.Procedures
		if kind == "FUNCTION" {
			m = sc.Routines
		}
		putRoutine(m, &Routine{Name: name, Function: kind == "FUNCTION", Body: body, Sure: sure, BodyAt: bodyAt}, orReplace(toks))
		return nil
	}
}

// Add reads a schema statement parsed by the TiDB parser (a catalog's
// front end hands its statements here instead of ReadSchema's text):
// CREATE TABLE, ALTER TABLE, CREATE VIEW, DROP, RENAME, CREATE and DROP
// PROCEDURE; other statements change nothing here.
func (sc *Schema) Add(st ast.StmtNode) { sc.addStmt(st) }

// AddTextAt is AddText of a statement that lies at at in the schema:
// the triggers and routines it defines record where their bodies are
// (BodyAt), and what the analysis cannot read in a body is refused
// there (Refusal.At).
func (sc *Schema) AddTextAt(text string, at Source) error {
	sc.src = &at
	defer func() { sc.src = nil }()
	return sc.AddText(text)
}

// AddText reads one schema statement's text, as ReadSchema reads each
// statement of a file (CREATE TRIGGER and CREATE FUNCTION included).
func (sc *Schema) AddText(text string) error {
	err := sc.add(text)
	if err != nil {
		sc.unread(text)
	}
	return err
}

// unread records a statement that could not be read when it may define
// something a write can reach.
func (sc *Schema) unread(text string) {
	for _, t := range lex(text) {
		switch t.upper() {
		case "VIEW", "TRIGGER", "PROCEDURE", "FUNCTION", "REFERENCES", "FOREIGN", "RENAME":
			sc.Unread = append(sc.Unread, firstWords(text))
			return
		}
	}
}

// addStmt reads a parsed schema statement.
func (sc *Schema) addStmt(st ast.StmtNode) {
	switch x := st.(type) {
	case *ast.SetStmt:
		sc.setEngine(x)
	case *ast.CreateTableStmt:
		name := x.Table.Name.L
		sure := sc.sure(x.Table)
		if sure && (sc.sureTable(x.Table.Name.O) || sc.sureView(x.Table.Name.O)) {
			// IF NOT EXISTS is a no-op; without it the server refuses
			// the statement: either way the table it has stays.
			return
		}
		t := &Table{Name: name, Exact: x.Table.Name.O, Sure: sure, Engine: sc.DefaultEngine}
		if x.ReferTable != nil {
			if rt := sc.Tables[x.ReferTable.Name.L]; rt != nil {
				t.Columns = append(t.Columns, rt.Columns...)
				t.Engine, t.Volatile = rt.Engine, rt.Volatile
			}
		}
		t.Engine = engine(x.Options, t.Engine)
		t.Union = union(x.Options, t.Union)
		for _, c := range x.Cols {
			t.Columns = append(t.Columns, c.Name.Name.L)
			t.Volatile = t.Volatile || volatile(c)
			for _, o := range c.Options {
				if o.Tp == ast.ColumnOptionReference && o.Refer != nil {
					t.Refs = append(t.Refs, foreignKey(o.Refer))
				}
			}
		}
		for _, c := range x.Constraints {
			if c.Tp == ast.ConstraintForeignKey && c.Refer != nil {
				fk := foreignKey(c.Refer)
				fk.Name = strings.ToLower(c.Name)
				t.Refs = append(t.Refs, fk)
			}
		}
		sc.putTable(t)
	case *ast.AlterTableStmt:
		t := sc.Tables[x.Table.Name.L]
		if t == nil {
			return
		}
		// A name that may mean another table adds columns and keys
		// to the project's, and renames none of its columns away.
		sure := sc.sure(x.Table) && t.Sure && t.Exact == x.Table.Name.O
		var renameTo *ast.TableName
		defer func() {
			if renameTo != nil {
				sc.rename(x.Table, renameTo)
			}
		}()
		for _, s := range x.Specs {
			switch s.Tp {
			case ast.AlterTableOption:
				t.Engine = engine(s.Options, t.Engine)
				t.Union = union(s.Options, t.Union)
			case ast.AlterTableAddColumns:
				for _, c := range s.NewColumns {
					t.Columns = append(t.Columns, c.Name.Name.L)
					t.Volatile = t.Volatile || volatile(c)
					for _, o := range c.Options {
						if o.Tp == ast.ColumnOptionReference && o.Refer != nil {
							t.Refs = append(t.Refs, foreignKey(o.Refer))
						}
					}
				}
			case ast.AlterTableAddConstraint:
				if s.Constraint != nil && s.Constraint.Tp == ast.ConstraintForeignKey && s.Constraint.Refer != nil {
					fk := foreignKey(s.Constraint.Refer)
					fk.Name = strings.ToLower(s.Constraint.Name)
					t.Refs = append(t.Refs, fk)
				}
			case ast.AlterTableDropForeignKey, ast.AlterTableDropCheck:
				// DROP FOREIGN KEY name, and DROP CONSTRAINT name (which
				// the TiDB parser reads as DROP CHECK): the key of that
				// name goes, where the name surely means this table (a
				// table it may mean keeps the keys of both).
				name := s.Name
				if s.Tp == ast.AlterTableDropCheck && s.Constraint != nil {
					name = s.Constraint.Name
				}
				if sure && name != "" {
					t.Refs = slices.DeleteFunc(t.Refs, func(fk ForeignKey) bool { return fk.Name == strings.ToLower(name) })
				}
			case ast.AlterTableRenameTable:
				// The server renames the table after the statement's
				// other actions, which change the table whatever the
				// order (issue 27, trial r27s F4): renamed first, they
				// would change a table the schema no longer holds.
				if s.NewTable != nil {
					renameTo = s.NewTable
				}
			case ast.AlterTableChangeColumn:
				if s.OldColumnName != nil && len(s.NewColumns) > 0 {
					t.Columns = renameColumn(t.Columns, s.OldColumnName.Name.L, s.NewColumns[0].Name.Name.L, sure)
					sc.renameReferenced(t.Name, s.OldColumnName.Name.L, s.NewColumns[0].Name.Name.L)
				}
				for _, c := range s.NewColumns {
					t.Volatile = t.Volatile || volatile(c)
				}
			case ast.AlterTableModifyColumn:
				for _, c := range s.NewColumns {
					t.Volatile = t.Volatile || volatile(c)
				}
			case ast.AlterTableRenameColumn:
				if s.OldColumnName != nil && s.NewColumnName != nil {
					t.Columns = renameColumn(t.Columns, s.OldColumnName.Name.L, s.NewColumnName.Name.L, sure)
					sc.renameReferenced(t.Name, s.OldColumnName.Name.L, s.NewColumnName.Name.L)
				}
			}
		}
	case *ast.CreateViewStmt:
		name, exact := x.ViewName.Name.L, x.ViewName.Name.O
		sure := sc.sure(x.ViewName)
		if sure && (sc.sureTable(exact) || sc.sureView(exact) && !x.OrReplace) {
			// The server refuses the statement (a table of that name, or
			// a view without OR REPLACE): the definition it has stays.
			return
		}
		old := sc.Views[name]
		if sure && x.OrReplace {
			old = dropView(old, exact)
		}
		sc.setView(name, &View{Name: name, Exact: exact, Sure: sure, Select: x.Select, Base: fromTables(x.Select), Alt: old})
	case *ast.DropTableStmt:
		for _, t := range x.Tables {
			if !sc.sure(t) {
				continue // it may name another database's: the project's stays
			}
			if x.IsView {
				sc.setView(t.Name.L, dropView(sc.Views[t.Name.L], t.Name.O))
			} else if sc.sureTable(t.Name.O) {
				delete(sc.Tables, t.Name.L)
			}
		}
	case *ast.RenameTableStmt:
		for _, tt := range x.TableToTables {
			sc.rename(tt.OldTable, tt.NewTable)
		}
	case *ast.UseStmt:
		sc.use(x.DBName)
	case *ast.DropProcedureStmt:
		if sc.sure(x.ProcedureName) {
			dropRoutine(sc.Procedures, x.ProcedureName.Name.L)
		}
	case *ast.ProcedureInfo:
		name := x.ProcedureName.Name.L
		body := ""
		if x.ProcedureBody != nil {
			body = x.ProcedureBody.Text()
			if strings.TrimSpace(body) == "" {
				// A statement parsed inside another may carry no text:
				// the parser's restore writes it back.
				var b strings.Builder
				if err := x.ProcedureBody.Restore(format.NewRestoreCtx(format.DefaultRestoreFlags, &b)); err == nil {
					body = b.String()
				}
			}
		}
		r := &Routine{Name: name, Body: body, Sure: sc.sure(x.ProcedureName)}
		if strings.TrimSpace(body) == "" {
			r.Opaque = "its body's text is not available"
		}
		putRoutine(sc.Procedures, r, false)
	}
}

// engine is the ENGINE option among opts, else was.
func engine(opts []*ast.TableOption, was string) string {
	for _, o := range opts {
		if o.Tp == ast.TableOptionEngine {
			was = o.StrValue
		}
	}
	return was
}

// setEngine reads set's assignments of default_storage_engine or
// storage_engine into DefaultEngine: the value as written, DEFAULT being
// the server's ("") for GLOBAL and the GLOBAL value for the session, and
// a text naming the expression when it is not a name or string (then
// not InnoDB, so the guard refuses a write of several rows). A GLOBAL
// value other than InnoDB counts as well as the session's, since a
// migration tool may run later statements in new sessions.
func (sc *Schema) setEngine(set *ast.SetStmt) {
	for _, v := range set.Variables {
		switch strings.ToLower(v.Name) {
		case "default_storage_engine", "storage_engine":
		default:
			continue
		}
		var val string
		switch e := v.Value.(type) {
		case *ast.DefaultExpr:
			if !v.IsGlobal {
				val = sc.globalEngine
			}
		case *ast.ColumnNameExpr:
			val = e.Name.Name.O
		case ast.ValueExpr:
			if str, ok := e.GetValue().(string); ok {
				val = str
			} else {
				val = "(SET " + v.Name + " = an expression)"
			}
		default:
			val = "(SET " + v.Name + " = an expression)"
		}
		if v.IsGlobal {
			sc.globalEngine = val
		} else {
			sc.sessionEngine = val
		}
	}
	sc.DefaultEngine = sc.sessionEngine
	if g := sc.globalEngine; g != "" && !strings.EqualFold(g, "InnoDB") && (sc.DefaultEngine == "" || strings.EqualFold(sc.DefaultEngine, "InnoDB")) {
		sc.DefaultEngine = g
	}
}

// union is the UNION option among opts (a MERGE table's tables,
// lower-case), else was; a later UNION replaces an earlier one.
func union(opts []*ast.TableOption, was []string) []string {
	for _, o := range opts {
		if o.Tp == ast.TableOptionUnion {
			was = nil
			for _, n := range o.TableNames {
				was = append(was, n.Name.L)
			}
		}
	}
	return was
}

// Engines that write their own table's rows only: a write of a table
// with another engine (FEDERATED, FEDERATEDX, CONNECT, SPIDER, which
// write a table the CONNECTION option or their own options name, maybe
// a fenced one of this server; OQGRAPH; one fencegen does not know) may
// write any table and is refused while a table is fenced. MERGE and
// MRG_MyISAM write the tables of their UNION option (Table.Union).
var ownRowEngines = map[string]bool{
	"": true, "innodb": true, "myisam": true, "aria": true, "memory": true, "heap": true, "archive": true,
	"csv": true, "blackhole": true, "rocksdb": true, "tokudb": true, "columnstore": true, "s3": true,
	"sequence": true, "example": true, "merge": true, "mrg_myisam": true, "ndb": true, "ndbcluster": true,
}

// OwnRows reports whether a write of t writes its own rows (or, for a
// MERGE table, those of its UNION tables) only: false for an engine that
// writes elsewhere or that fencegen does not know.
func (t *Table) OwnRows() bool { return ownRowEngines[strings.ToLower(t.Engine)] }

// sure reports whether n surely names an object of the project's
// database: no database qualifier, and no USE of a database other than
// the project's before it (Schema.use).
func (sc *Schema) sure(n *ast.TableName) bool { return n.Schema.O == "" && !sc.elsewhere }

// sureTable reports whether the project surely has a table named exact
// (in that case).
func (sc *Schema) sureTable(exact string) bool {
	t := sc.Tables[strings.ToLower(exact)]
	return t != nil && t.Sure && t.Exact == exact
}

// sureView reports whether the project surely has a view named exact.
func (sc *Schema) sureView(exact string) bool {
	for v := sc.Views[strings.ToLower(exact)]; v != nil; v = v.Alt {
		if v.Sure && v.Exact == exact {
			return true
		}
	}
	return false
}

// setView sets the definitions of name (none: deleted).
func (sc *Schema) setView(name string, v *View) {
	if v == nil {
		delete(sc.Views, name)
		return
	}
	sc.Views[name] = v
}

// dropView is the chain v without the project's view exact (copied:
// the chain v is left as it is).
func dropView(v *View, exact string) *View {
	if v == nil {
		return nil
	}
	rest := dropView(v.Alt, exact)
	if v.Sure && v.Exact == exact {
		return rest
	}
	c := *v
	c.Alt = rest
	return &c
}

// putTable adds t; a table already under its lower-case name (a case
// variant, or one whose name may mean another) keeps its definition
// and gains t's columns and foreign keys.
func (sc *Schema) putTable(t *Table) {
	old := sc.Tables[t.Name]
	if old == nil {
		sc.Tables[t.Name] = t
		return
	}
	for _, c := range t.Columns {
		if !slices.Contains(old.Columns, c) {
			old.Columns = append(old.Columns, c)
		}
	}
	old.Refs = append(old.Refs, t.Refs...)
	old.Sure = false
	if old.Engine == "" {
		old.Engine = t.Engine
	}
	for _, u := range t.Union {
		if !slices.Contains(old.Union, u) {
			old.Union = append(old.Union, u)
		}
	}
}

// renameColumn renames column from to to in cols; when the table's
// name may mean another table, to is added and from kept.
func renameColumn(cols []string, from, to string, sure bool) []string {
	if !sure {
		if slices.Contains(cols, from) && !slices.Contains(cols, to) {
			cols = append(cols, to)
		}
		return cols
	}
	for i, c := range cols {
		if c == from {
			cols[i] = to
		}
	}
	return cols
}

// rename is one pair of RENAME TABLE (or ALTER TABLE ... RENAME): as on
// the server, a view is renamed as a table is (its definition goes with
// it), a table's triggers follow it, and the views that name the old
// table keep naming it (they read whatever later takes that name). A
// RENAME TABLE of several pairs is applied pair by pair, in order, so a
// swap (a TO tmp, b TO a, tmp TO b) ends as on the server.
//
// Only what from surely names moves (the project's object of that exact
// name, when from is unqualified and not after a USE); what it may name
// is copied: the old name keeps it and the new name gains it.
func (sc *Schema) rename(fromName, toName *ast.TableName) {
	from, to := fromName.Name.L, toName.Name.L
	fromSure, toSure := sc.sure(fromName), sc.sure(toName)
	moves := func(sure bool, exact string) bool { return fromSure && sure && exact == fromName.Name.O }
	var moved, copied []*View
	for v := sc.Views[from]; v != nil; v = v.Alt {
		if moves(v.Sure, v.Exact) {
			moved = append(moved, v)
		} else {
			copied = append(copied, v)
		}
	}
	if len(moved) > 0 {
		sc.setView(from, dropView(sc.Views[from], fromName.Name.O))
	}
	for _, v := range append(moved, copied...) {
		c := *v
		c.Name, c.Exact, c.Sure, c.Alt = to, toName.Name.O, toSure && moves(v.Sure, v.Exact), sc.Views[to]
		sc.Views[to] = &c
	}
	tableMoved := false
	if t := sc.Tables[from]; t != nil {
		tableMoved = moves(t.Sure, t.Exact)
		c := *t
		if tableMoved {
			delete(sc.Tables, from)
		} else {
			c.Columns, c.Refs = slices.Clone(t.Columns), slices.Clone(t.Refs)
		}
		c.Name, c.Exact, c.Sure = to, toName.Name.O, toSure && tableMoved
		sc.putTable(&c)
	}
	if sc.Fenced[from] {
		if tableMoved {
			delete(sc.Fenced, from)
		}
		sc.Fenced[to] = true
	}
	for _, tr := range sc.Triggers {
		if tr.Table != from {
			continue
		}
		if tableMoved {
			tr.Table = to
		} else {
			c := *tr
			c.Table = to
			sc.Triggers = append(sc.Triggers, &c)
		}
	}
}

func foreignKey(r *ast.ReferenceDef) ForeignKey {
	fk := ForeignKey{Parent: r.Table.Name.L}
	for _, p := range r.IndexPartSpecifications {
		if p.Column == nil || p.Expr != nil {
			fk.Columns = nil
			break
		}
		fk.Columns = append(fk.Columns, p.Column.Name.L)
	}
	if r.OnDelete != nil && r.OnDelete.ReferOpt != ast.ReferOptionNoOption {
		fk.OnDelete = r.OnDelete.ReferOpt.String()
	}
	if r.OnUpdate != nil && r.OnUpdate.ReferOpt != ast.ReferOptionNoOption {
		fk.OnUpdate = r.OnUpdate.ReferOpt.String()
	}
	return fk
}

// fromTables are the table names a view's query reads (lower-case,
// sorted, each once).
func fromTables(n ast.Node) []string {
	c := &tableCollector{seen: map[string]bool{}}
	if n != nil {
		n.Accept(c)
	}
	sort.Strings(c.names)
	return c.names
}

type tableCollector struct {
	seen  map[string]bool
	names []string
}

func (c *tableCollector) Enter(n ast.Node) (ast.Node, bool) {
	if t, ok := n.(*ast.TableName); ok && !c.seen[t.Name.L] {
		c.seen[t.Name.L] = true
		c.names = append(c.names, t.Name.L)
	}
	return n, false
}

func (c *tableCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// orReplace reports whether a CREATE statement's header says OR REPLACE.
func orReplace(toks []token) bool {
	return len(toks) > 2 && toks[1].upper() == "OR" && toks[2].upper() == "REPLACE"
}

// TokenRewrite says why tr may replace the fencing token col that the
// guard stores in a row of its table, or "": a BEFORE INSERT or BEFORE
// UPDATE trigger whose body fencegen cannot read, or that may assign
// NEW.col (SET NEW.col = ..., SELECT or FETCH ... INTO NEW.col, or NEW.col
// passed to a CALL, whose procedure may assign it as an OUT or INOUT
// parameter). An AFTER trigger, or one on DELETE, cannot change the row
// written. The body is read token by token; a use of NEW.col that could
// be a target is counted as one (e.g. NEW.col = 1 as an argument after a
// comma), so that the reading errs only towards refusing.
func (tr *Trigger) TokenRewrite(col string) string {
	if tr.Timing != "BEFORE" || tr.Event != "INSERT" && tr.Event != "UPDATE" {
		return ""
	}
	if tr.Opaque != "" {
		return "fencegen cannot read its body (" + tr.Opaque + ")"
	}
	if why := tokenRewriteIn(lex(tr.Body), col); why != "" {
		return why
	}
	// The server reads the body under the sql_mode of the session that
	// created the trigger, stored with it, which fencegen cannot see.
	for _, m := range modeReadings(tr.Body) {
		if why := tokenRewriteIn(lexMode(tr.Body, true, m.mode), col); why != "" {
			return why + ", read under sql_mode " + m.name + " (where " + m.what + "; the server reads the body under the mode of the session that created the trigger, which fencegen cannot see)"
		}
	}
	return ""
}

// tokenRewriteIn is TokenRewrite's reading of a body's tokens.
func tokenRewriteIn(toks []token, col string) string {
	stmtStart := 0 // the index of the current statement's first token
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind == tokPunct && t.text == ";" {
			stmtStart = i + 1
			continue
		}
		if !strings.EqualFold(t.text, "NEW") || t.kind != tokWord || i+2 >= len(toks) ||
			toks[i+1].kind != tokPunct || toks[i+1].text != "." || toks[i+2].kind != tokWord || !strings.EqualFold(toks[i+2].text, col) {
			continue
		}
		prev := ""
		if i > 0 {
			prev = strings.ToUpper(toks[i-1].text)
		}
		next := ""
		if i+3 < len(toks) {
			next = toks[i+3].text
			if next == ":" && i+4 < len(toks) && toks[i+4].text == "=" {
				next = ":="
			}
		}
		into, call := false, false
		for _, u := range toks[stmtStart:i] {
			switch u.upper() {
			case "INTO":
				into = true
			case "CALL":
				call = true
			}
		}
		switch {
		case (prev == "SET" || prev == ",") && (next == "=" || next == ":="):
			return "it assigns NEW." + col + " (SET NEW." + col + " = ...)"
		case prev == "INTO" || prev == "," && into:
			return "it assigns NEW." + col + " (... INTO NEW." + col + ")"
		case call:
			return "it passes NEW." + col + " to a CALL, whose procedure may assign it as an OUT or INOUT parameter"
		}
	}
	return ""
}

// volatile reports whether column c is GENERATED or ON UPDATE: a value
// an UPDATE may change without assigning the column.
func volatile(c *ast.ColumnDef) bool {
	for _, o := range c.Options {
		if o.Tp == ast.ColumnOptionGenerated || o.Tp == ast.ColumnOptionOnUpdate {
			return true
		}
	}
	return false
}

// renameReferenced adds to, for column from of table parent renamed, to
// the referenced columns of the foreign keys to parent (InnoDB follows
// the rename); from stays, so that the columns only grow.
func (sc *Schema) renameReferenced(parent, from, to string) {
	for _, t := range sc.Tables {
		for i := range t.Refs {
			if fk := &t.Refs[i]; fk.Parent == parent && slices.Contains(fk.Columns, from) && !slices.Contains(fk.Columns, to) {
				fk.Columns = append(slices.Clone(fk.Columns), to)
			}
		}
	}
}
