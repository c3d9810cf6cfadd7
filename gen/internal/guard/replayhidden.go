package guard

import (
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/writes"
)

// This file is the replay's reading of code that runs where the
// statement's own tree does not show it (issue 24, trial-pg3 findings 5,
// 6, 7 and 12): a DO block's body (replayed statement by statement, as
// the migration's own), the functions and procedures the migrations
// create (a call of one whose body is not harmless to the guard is a
// finding, so is an event trigger or a trigger that runs one), settings
// changed through set_config or pg_settings, the guard trigger's clone
// on a partition, and statements that reset stored tokens while the guard
// is off. Sound by construction: a body statement is harmless only when
// it is a plain SELECT, INSERT, UPDATE, DELETE or MERGE that calls no
// such function and changes no setting; anything else (a schema
// statement, dynamic SQL, a body the replay cannot read, a language it
// does not read) is not.

// routineRisk is what the migrations' functions and procedures of one
// name (unqualified, overloads together) do that may change the guard.
type routineRisk struct {
	// why is set when a body runs something other than harmless
	// statements (or is not read): what, for the finding.
	why string
	// calls are the names of the functions its bodies call; writes the
	// writes of tables its bodies' statements make (token resets).
	calls  []string
	writes []writes.Write
	// file and line locate its (first risky) definition.
	file string
	line int
}

// define records a CREATE FUNCTION or PROCEDURE of a migration (any, the
// first on) in r.routines, and an event trigger or a trigger that runs
// one whose body is not harmless, to be reported once a guard migration
// precedes or follows it (pending).
func (r *guardReplay) define(f *sqlparse.File, st *sqlparse.Stmt, source string) {
	if st.Raw == nil {
		return
	}
	if source == "" {
		source = string(f.Src[st.Start:st.End])
	}
	switch n := st.Raw.Node.(type) {
	case *pg.Node_CreateFunctionStmt:
		cf := n.CreateFunctionStmt
		_, name := nodeName(cf.GetFuncname())
		why, calls, ws := routineBody(cf, source)
		rr := r.routines[name]
		if rr == nil || rr.why == "" && why != "" {
			line, _ := diag.Position(f.Src, st.Start)
			if rr != nil {
				rr.why, rr.file, rr.line = why, f.Name, line
			} else {
				rr = &routineRisk{why: why, file: f.Name, line: line}
			}
		}
		rr.calls = append(rr.calls, calls...)
		rr.writes = append(rr.writes, ws...)
		r.routines[name] = rr
	case *pg.Node_RuleStmt:
		// A rule's actions run with the writes of its table (token
		// resets).
		key := r.key(rangeName(n.RuleStmt.GetRelation()))
		for _, a := range n.RuleStmt.GetActions() {
			r.ruleWrites[key] = append(r.ruleWrites[key], writes.OfTree(a).Writes...)
			for _, fc := range funcCalls(a) {
				_, fn := nodeName(fc.GetFuncname())
				r.ruleCalls[key] = append(r.ruleCalls[key], fn)
			}
		}
	case *pg.Node_CreateEventTrigStmt:
		_, fn := nodeName(n.CreateEventTrigStmt.GetFuncname())
		if why := r.risk(fn, nil); why != "" {
			c := r.atStmt(f, st, "creates event trigger %s, which runs function %s after schema statements; %s", n.CreateEventTrigStmt.GetTrigname(), fn, why)
			c.advice = ": an event trigger fires on the schema statements of every later migration, fencegen's guard migrations included, and the replay cannot tell whether it disables, drops or replaces a guard trigger there; run only functions whose bodies are plain SELECT, INSERT, UPDATE, DELETE or MERGE from event triggers, or drop it"
			r.pending = append(r.pending, c)
		}
	case *pg.Node_CreateTrigStmt:
		_, fn := nodeName(n.CreateTrigStmt.GetFuncname())
		tk := r.key(rangeName(n.CreateTrigStmt.GetRelation()))
		r.triggers[tk] = append(r.triggers[tk], fn)
		if why := r.risk(fn, nil); why != "" {
			table := rangeName(n.CreateTrigStmt.GetRelation())
			c := r.atStmt(f, st, "creates trigger %s on table %s, which runs function %s; %s", n.CreateTrigStmt.GetTrigname(), table.String(), fn, why)
			c.advice = ": it runs on the writes of every later migration and of every writer, and the replay cannot tell whether it disables, drops or replaces a guard trigger when it does; keep schema statements and settings out of trigger functions"
			r.pending = append(r.pending, c)
		}
	}
}

// atStmt is a cause at statement st of file f.
func (r *guardReplay) atStmt(f *sqlparse.File, st *sqlparse.Stmt, what string, a ...any) *cause {
	line, col := diag.Position(f.Src, st.Start)
	return &cause{file: f.Name, line: line, col: col, what: fmt.Sprintf(what, a...)}
}

// risk says why calling the migrations' function name may change the
// guard ("" when every body of that name, and of every function they
// call, is harmless, or the migrations define no function of the name).
func (r *guardReplay) risk(name string, seen map[string]bool) string {
	rr := r.routines[name]
	if rr == nil || seen[name] {
		return ""
	}
	if rr.why != "" {
		return fmt.Sprintf("the body of %s (%s:%d) %s", name, rr.file, rr.line, rr.why)
	}
	if seen == nil {
		seen = map[string]bool{}
	}
	seen[name] = true
	for _, c := range rr.calls {
		if why := r.risk(c, seen); why != "" {
			return why
		}
	}
	return ""
}

// routineBody reads the body of a CREATE FUNCTION or PROCEDURE (source
// its whole text): why it may change the guard ("" when its statements
// are all harmless), the functions they call and the writes they make.
func routineBody(cf *pg.CreateFunctionStmt, source string) (why string, calls []string, ws []writes.Write) {
	lang, as := writes.LanguageAndCode(cf.GetOptions(), "sql")
	var stmts []*pg.Node
	switch {
	case cf.SqlBody != nil:
		eachNode(cf.SqlBody, func(n *pg.Node) bool {
			switch n.Node.(type) {
			case *pg.Node_List:
				return true
			}
			stmts = append(stmts, n)
			return false
		})
	case lang == "sql" || lang == "plpgsql":
		b, err := writes.Body(lang, as, source)
		if err != nil {
			return "is not read by fencegen (" + err.Error() + ")", nil, nil
		}
		if b.Dynamic != "" {
			return strings.TrimPrefix(b.Dynamic, "its body "), nil, nil
		}
		stmts = b.Stmts
	default:
		return "is written in LANGUAGE " + lang + ", which fencegen does not read", nil, nil
	}
	for _, s := range stmts {
		if w := harmless(s); w != "" {
			return w, nil, nil
		}
		calls = append(calls, calledFunctions(s)...)
		ws = append(ws, writes.OfTree(s).Writes...)
	}
	return "", calls, ws
}

// harmless says why body statement n may change the guard: "" for a
// SELECT, INSERT, UPDATE, DELETE or MERGE that neither sets a setting
// (set_config, pg_settings) nor writes a system catalog.
func harmless(n *pg.Node) string {
	switch n.Node.(type) {
	case *pg.Node_SelectStmt, *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt, *pg.Node_MergeStmt:
	default:
		return "runs " + kindName(n) + ", a statement the replay of the guard migrations does not follow in a body"
	}
	if slices.Contains(calledFunctions(n), "set_config") {
		return "calls set_config, which can set session_replication_role (no ordinary trigger fires then)"
	}
	if rel := writtenCatalog(n); rel != "" {
		return "writes " + rel + ", a system catalog or view"
	}
	return ""
}

// kindName is the PostgreSQL node name of statement n (DropStmt, ...).
func kindName(n *pg.Node) string {
	fd := n.ProtoReflect().WhichOneof(n.ProtoReflect().Descriptor().Oneofs().ByName("node"))
	if fd == nil {
		return "a statement"
	}
	return string(fd.Message().Name())
}

// writtenCatalog is the pg_catalog relation (pg_settings, pg_trigger,
// ...) that DML statement n writes, or "".
func writtenCatalog(n *pg.Node) string {
	var rv *pg.RangeVar
	switch x := n.Node.(type) {
	case *pg.Node_UpdateStmt:
		rv = x.UpdateStmt.GetRelation()
	case *pg.Node_InsertStmt:
		rv = x.InsertStmt.GetRelation()
	case *pg.Node_DeleteStmt:
		rv = x.DeleteStmt.GetRelation()
	case *pg.Node_MergeStmt:
		rv = x.MergeStmt.GetRelation()
	}
	if rv == nil {
		return ""
	}
	if rv.GetSchemaname() == "pg_catalog" || rv.GetSchemaname() == "" && strings.HasPrefix(rv.GetRelname(), "pg_") {
		return rv.GetRelname()
	}
	return ""
}

// calledFunctions are the (unqualified) names of the functions n calls,
// CALL included.
func calledFunctions(n *pg.Node) []string {
	var out []string
	for _, fc := range funcCalls(n) {
		_, name := nodeName(fc.GetFuncname())
		out = append(out, name)
	}
	return out
}

// eachNode calls f on n and, in tree order, on every node below it for
// which no node above returned false.
func eachNode(n *pg.Node, f func(*pg.Node) bool) {
	eachMessage(n, func(m protoreflect.Message) bool {
		nd, ok := m.Interface().(*pg.Node)
		return !ok || f(nd)
	})
}

// eachMessage calls f on n's message and, in tree order, on every message
// below it (whatever its type: CALL's FuncCall is not a Node) for which no
// message above returned false.
func eachMessage(n *pg.Node, f func(protoreflect.Message) bool) {
	if n == nil {
		return
	}
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if !f(m) {
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Kind() != protoreflect.MessageKind {
				return true
			}
			switch {
			case fd.IsList():
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					walk(l.Get(i).Message())
				}
			case fd.IsMap():
			default:
				walk(v.Message())
			}
			return true
		})
	}
	walk(n.ProtoReflect())
}

// hidden follows, in a migration after a guard migration, what statement
// st runs that its own tree does not show: a DO block's statements
// (replayed as the migration's own; dynamic SQL, or a block the replay
// cannot read, is a finding), a call of a function whose body is not
// harmless, set_config and writes of pg_settings, and token resets while
// the guard is off (UPDATE of the token column, TRUNCATE before an
// INSERT). It reports whether it took the statement (a DO block).
func (r *guardReplay) hidden(f *sqlparse.File, st *sqlparse.Stmt, at func(what, fails string, a ...any) *cause) bool {
	if st.Raw == nil {
		r.madeTables(f, st, at) // CREATE TABLE: its parse tree is let go (ReadsRaw)
		return false
	}
	refuse := func(key string, c *cause, advice string) {
		c.advice = advice
		r.refused[fmt.Sprintf("%s %s:%d", key, f.Name, st.Start)] = c
	}
	if set := st.Raw.GetVariableSetStmt(); set != nil && set.GetIsLocal() {
		r.set(f, st, at)
		return false
	}
	if do := st.Raw.GetDoStmt(); do != nil {
		r.do(f, st, do, at, refuse)
		return true
	}
	// Calls of the migrations' functions whose bodies are not harmless,
	// and set_config.
	for _, fc := range funcCalls(st.Raw) {
		_, name := nodeName(fc.GetFuncname())
		if name == "set_config" {
			r.setConfig(f, st, fc, at, refuse)
			continue
		}
		if why := r.risk(name, nil); why != "" && (len(r.tables) > 0 || len(r.lost) > 0) {
			refuse("call", at("calls %s, and %s", "", name, why), ": the replay of the guard migrations cannot tell whether that disables, drops or replaces a guard trigger, so a stale token's UPDATE of a fenced table might pass from here on; run such statements in the migration itself, where the replay reads them")
		}
	}
	if rel := writtenCatalog(st.Raw); rel != "" {
		refuse("catalog", at("writes %s", "", rel), ": a write of a system catalog or view (UPDATE pg_settings sets a setting through set_config, session_replication_role among them, under which no guard trigger fires) is not followed by the replay of the guard migrations; use SET, which it reads")
	}
	r.resets(f, st, at, refuse)
	return false
}

// funcCalls are the FuncCall nodes of tree n.
func funcCalls(n *pg.Node) []*pg.FuncCall {
	var out []*pg.FuncCall
	eachMessage(n, func(m protoreflect.Message) bool {
		if fc, ok := m.Interface().(*pg.FuncCall); ok {
			out = append(out, fc)
		}
		return true
	})
	return out
}

// setConfig follows set_config(name, value, is_local): of
// session_replication_role as SET (is_local false) or SET LOCAL (true)
// does; a name or is_local that is not a constant is a finding.
func (r *guardReplay) setConfig(f *sqlparse.File, st *sqlparse.Stmt, fc *pg.FuncCall, at func(what, fails string, a ...any) *cause, refuse func(string, *cause, string)) {
	args := fc.GetArgs()
	str := func(i int) (string, bool) {
		if i >= len(args) {
			return "", false
		}
		a := args[i]
		for a.GetTypeCast() != nil {
			a = a.GetTypeCast().GetArg()
		}
		if s := a.GetAConst().GetSval(); s != nil {
			return s.GetSval(), true
		}
		if b := a.GetAConst().GetBoolval(); b != nil {
			return fmt.Sprint(b.GetBoolval()), true
		}
		return "", false
	}
	name, ok1 := str(0)
	value, ok2 := str(1)
	local, ok3 := str(2)
	if !ok1 {
		if len(r.tables) > 0 {
			refuse("set_config", at("calls set_config with a setting's name known only at run time", ""), ": it may set session_replication_role, under which no guard trigger fires; name the setting in the statement")
		}
		return
	}
	if !strings.EqualFold(name, "session_replication_role") {
		return
	}
	isLocal := ok3 && (local == "true" || local == "t" || local == "on")
	if !ok2 || !ok3 {
		refuse("set_config", at("sets session_replication_role with set_config to a value, or for a scope, known only at run time", ""), ": the replay cannot tell whether it leaves the migration's session without ordinary triggers (fencegen's guard triggers included); use SET LOCAL session_replication_role in the migration, which the replay reads")
		return
	}
	set := &pg.VariableSetStmt{Kind: pg.VariableSetKind_VAR_SET_VALUE, Name: "session_replication_role", IsLocal: isLocal,
		Args: []*pg.Node{pg.MakeAConstStrNode(value, 0)}}
	r.set(f, &sqlparse.Stmt{Start: st.Start, End: st.End, Raw: &pg.Node{Node: &pg.Node_VariableSetStmt{VariableSetStmt: set}}}, at)
}

// set follows a SET (or RESET) of session_replication_role: LOCAL, for
// the token resets of its migration (localReplica); otherwise as raw
// does.
func (r *guardReplay) set(f *sqlparse.File, st *sqlparse.Stmt, at func(what, fails string, a ...any) *cause) {
	set := st.Raw.GetVariableSetStmt()
	if set == nil || set.GetName() != "session_replication_role" {
		return
	}
	if set.GetIsLocal() {
		value := ""
		for _, a := range set.GetArgs() {
			value += a.GetAConst().GetSval().GetSval()
		}
		r.localReplica = set.GetKind() == pg.VariableSetKind_VAR_SET_VALUE && !strings.EqualFold(value, "origin")
		return
	}
	r.raw(f, st, at)
}

// do replays the statements of DO block x as the migration's own, at its
// position; a block in a language other than PL/pgSQL, one the parser
// does not read, or one that runs dynamic SQL is a finding (while a table
// is guarded).
func (r *guardReplay) do(f *sqlparse.File, st *sqlparse.Stmt, x *pg.DoStmt, at func(what, fails string, a ...any) *cause, refuse func(string, *cause, string)) {
	guarded := len(r.tables) > 0 || len(r.lost) > 0
	const advice = ": the replay of the guard migrations cannot tell whether it disables, drops or replaces a guard trigger, so a stale token's UPDATE of a fenced table might pass from here on; write the block's schema statements as the migration's own statements (or with constant text), where the replay reads them"
	lang, b, err := writes.DoBlock(x)
	if lang != "plpgsql" {
		if guarded {
			refuse("do", at("runs a DO block in LANGUAGE %s, which fencegen does not read", "", lang), advice)
		}
		return
	}
	if err != nil {
		if guarded {
			refuse("do", at("runs a DO block fencegen does not read (%v)", "", err), advice)
		}
		return
	}
	if b.Dynamic != "" && guarded {
		refuse("do", at("runs a DO block where %s", "", strings.TrimPrefix(b.Dynamic, "its body ")), advice)
	}
	for _, s := range b.Stmts {
		text, err := pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: s}}})
		if err != nil {
			if guarded {
				refuse("do", at("runs a DO block whose statement %s fencegen does not read (%v)", "", kindName(s), err), advice)
			}
			continue
		}
		sub, err := sqlparse.ParseStatement(f.Name, []byte(text))
		if err != nil {
			if guarded {
				refuse("do", at("runs a DO block whose statement %s fencegen does not read (%v)", "", kindName(s), err), advice)
			}
			continue
		}
		// Located at the DO statement: the block's text is a string.
		sub.Start, sub.End, sub.Lead = st.Start, st.End, st.Lead
		r.define(f, sub, text)
		r.statement(f, sub)
		r.member(sub)
	}
}

// partitionGuard returns the guarded table whose guard trigger table key
// has a clone of (key a partition of it, at any depth), if any.
func (r *guardReplay) partitionGuard(key string) (string, bool) {
	seen := map[string]bool{}
	for !seen[key] {
		seen[key] = true
		next := ""
		for _, p := range r.parents[key] {
			if p.partition {
				next = p.key
			}
		}
		if next == "" {
			return "", false
		}
		if _, ok := r.tables[next]; ok {
			return next, true
		}
		key = next
	}
	return "", false
}

// partitionTriggers follows an ALTER TABLE that disables (or makes
// replica-only) the clone of a guard trigger on a partition of a guarded
// table, or enables it again.
func (r *guardReplay) partitionTriggers(f *sqlparse.File, st *sqlparse.Stmt, key string, table sqlparse.Name, at func(what, fails string, a ...any) *cause) {
	parent, ok := r.partitionGuard(key)
	if !ok {
		return
	}
	k := "partition " + key
	for _, op := range disabledTriggers(st) {
		if !guardTrigger(op[1:]) {
			continue
		}
		switch op[0] {
		case '+':
			delete(r.refused, k)
		case '-', 'r':
			how := "disables"
			if op[0] == 'r' {
				how = "makes fire only in sessions whose session_replication_role is replica (ENABLE REPLICA TRIGGER)"
			}
			c := at("%s the clone of the guard trigger of fenced table %s on its partition %s", "", how, parent, table.String())
			c.advice = fmt.Sprintf(": PostgreSQL runs the partition's clone, not the parent's trigger, for the rows of %s, so a stale token's UPDATE of them passes; no guard migration changes the clone's state: remove this statement (or enable it again: ALTER TABLE %s ENABLE TRIGGER %s)", table.String(), table.String(), triggerOr(op[1:]))
			r.refused[k] = c
		}
	}
}

// triggerOr is name, or ALL for "" (ALL and USER).
func triggerOr(name string) string {
	if name == "" {
		return "ALL"
	}
	return name
}

// resets reports a statement that lowers or resets the stored tokens of
// a guarded table, which no guard migration undoes (as ALTER ... TYPE ...
// USING 0): an UPDATE that assigns the token column while the trigger is
// disabled or the migration's transaction runs as replica (SET LOCAL
// session_replication_role), and rows of the table removed and rows
// inserted into it whose tokens are not the stored ones (rowWrite).
func (r *guardReplay) resets(f *sqlparse.File, st *sqlparse.Stmt, at func(what, fails string, a ...any) *cause, refuse func(string, *cause, string)) {
	if up := st.Raw.GetUpdateStmt(); up != nil {
		key, in, ok := r.guardOf(r.key(rangeName(up.GetRelation())))
		if ok {
			col := column(in.fn.text)
			assigns := false
			for _, t := range up.GetTargetList() {
				if rt := t.GetResTarget(); rt != nil && sqlparse.QuoteIdent(rt.GetName()) == col {
					assigns = true
				}
			}
			switch {
			case !assigns:
			case ackReset(f, st):
			case in.disabled != nil:
				refuse("reset", at("sets token column %s of fenced table %s while %s:%d:%d has its guard trigger off", "", col, key, in.disabled.file, in.disabled.line, in.disabled.col), resetAdvice+resetAck)
			case r.localReplica:
				refuse("reset", at("sets token column %s of fenced table %s while the migration runs with session_replication_role replica (SET, SET LOCAL or set_config), under which its guard trigger does not fire", "", col, key), resetAdvice+resetAck)
			case r.partitionOff(key):
				refuse("reset", at("sets token column %s of fenced table %s while the clone of its guard trigger on a partition is off", "", col, key), resetAdvice+resetAck)
			}
		}
	}
	r.madeTables(f, st, at)
	for _, w := range r.rowWrites(f, st) {
		r.rowWrite(f, st, w, at)
	}
}

const (
	resetAdvice = ": it may lower every stored token, and then a stale holder's write passes the guard; no guard migration can undo that: keep the token column's values (set other columns only, or only raise tokens with the guard on)"
	resetAck    = ", or, if lowering every stored token is deliberate, write the comment -- " + catalog.ResetTokensMark + " just before this statement"
)

// guardOf returns the guarded table whose guard trigger fires for the
// rows of table key: key itself, or the partitioned table it is a
// partition of.
func (r *guardReplay) guardOf(key string) (string, guardInstalled, bool) {
	if in, ok := r.tables[key]; ok {
		return key, in, true
	}
	if p, ok := r.partitionGuard(key); ok {
		return p, r.tables[p], true
	}
	return "", guardInstalled{}, false
}

// copyState is what the replay knows of the rows of a table the
// migration being replayed made (copyOf).
type copyState int

const (
	// copyLoses: rows whose column of the token's name may not hold
	// the stored tokens.
	copyLoses copyState = iota
	// copyEmpty: created in the migration, no rows yet.
	copyEmpty
	// copyCarries: rows copied, in this migration, from a guarded table
	// (or another such copy) with its token column, untouched since.
	copyCarries
)

// copyOf is a table the migration being replayed made: the state of its
// rows, and what they carry when they carry the stored tokens.
type copyOf struct {
	state copyState
	rowsOf
}

// rowsOf is what the replay knows of rows that carry the stored tokens
// of a guarded table: the column (quoted) that holds them, whether they
// are every row of the table (all), and the statement (r.seq) as of
// which; seq -1 for a guarded table's own rows (from, its key).
type rowsOf struct {
	col  string
	all  bool
	seq  int
	from string
}

// whole reports whether SELECT sel reads every row of its table: no
// WHERE, LIMIT, OFFSET, GROUP BY, HAVING or DISTINCT.
func whole(sel *pg.SelectStmt) bool {
	return sel != nil && sel.GetWhereClause() == nil && sel.GetLimitCount() == nil && sel.GetLimitOffset() == nil &&
		len(sel.GetGroupClause()) == 0 && sel.GetHavingClause() == nil && len(sel.GetDistinctClause()) == 0
}

// snapshot is what a copy of rows src made now by SELECT sel carries.
func (r *guardReplay) snapshot(src rowsOf, sel *pg.SelectStmt) rowsOf {
	out := rowsOf{col: src.col, all: src.all && whole(sel), seq: src.seq}
	if src.seq < 0 {
		out.seq = r.seq
	}
	return out
}

// fkRef is a table's foreign key to table to (a key); cascade is set for
// ON DELETE CASCADE, which deletes the table's rows with the rows of to.
type fkRef struct {
	to      string
	cascade bool
}

// carrying returns the column (quoted) in which table key holds the
// stored tokens of a guarded table: a guarded table's (or a partition's)
// token column, or that of a copy made in this migration that carries
// them (copyCarries). A table of any other provenance (made in another
// migration, from a view, a join or values) carries none the replay can
// show.
func (r *guardReplay) carrying(key string) (rowsOf, bool) {
	if g, in, ok := r.guardOf(key); ok {
		return rowsOf{col: column(in.fn.text), all: g == key, seq: -1, from: key}, true
	}
	if c, ok := r.copies[key]; ok && c.state == copyCarries {
		return c.rowsOf, true
	}
	return rowsOf{}, false
}

// tokenCol is the token column (quoted) of guarded table key, or of the
// fenced table that left name key (dropped, renamed or moved away), ""
// when the replay knows of none.
func (r *guardReplay) tokenCol(key string) string {
	if _, in, ok := r.guardOf(key); ok {
		return column(in.fn.text)
	}
	if l := r.lost[key]; l != nil && l.column != "" {
		return l.column
	}
	if c := r.removed[key]; c != nil {
		return c.column
	}
	return ""
}

// selectSource is the one table (a key) that SELECT sel reads its rows
// from, "" for any other SELECT (a join, a subquery, VALUES, a set
// operation, a WITH list).
func (r *guardReplay) selectSource(sel *pg.SelectStmt) string {
	if sel == nil || sel.GetWithClause() != nil || sel.GetOp() != pg.SetOperation_SETOP_NONE || len(sel.GetValuesLists()) > 0 ||
		len(sel.GetFromClause()) != 1 || sel.GetFromClause()[0].GetRangeVar() == nil {
		return ""
	}
	return r.key(rangeName(sel.GetFromClause()[0].GetRangeVar()))
}

// star reports whether sel's target list is a single * (or t.*).
func star(sel *pg.SelectStmt) bool {
	tl := sel.GetTargetList()
	if len(tl) != 1 {
		return false
	}
	f := tl[0].GetResTarget().GetVal().GetColumnRef().GetFields()
	return len(f) > 0 && f[len(f)-1].GetAStar() != nil
}

// madeTables follows the tables statement st makes, moves or changes, for
// the provenance of their rows (copies): CREATE TABLE (empty), CREATE
// TABLE ... AS and SELECT ... INTO (carrying the stored tokens when they
// copy a guarded table's, or a carrying copy's, token column), a rename
// or move (which takes the rows to another name: when a fenced table's
// rows left that name, they stand in for them), DROP TABLE, and ALTER
// TABLE of a copy's columns (its rows no longer shown to carry them).
func (r *guardReplay) madeTables(f *sqlparse.File, st *sqlparse.Stmt, at func(what, fails string, a ...any) *cause) {
	made := func(into *pg.IntoClause, sel *pg.SelectStmt, what string) {
		key := r.key(rangeName(into.GetRel()))
		c := copyOf{state: copyLoses}
		if into.GetSkipData() {
			c.state = copyEmpty
		} else if src, ok := r.carrying(r.selectSource(sel)); ok && keepsToken(sel, src.col, nil) {
			c = copyOf{state: copyCarries, rowsOf: r.snapshot(src, sel)}
		}
		r.copies[key] = c
		if r.checked(key) && c.state != copyEmpty {
			r.insertion(f, st, key, c.state == copyCarries && c.col == r.tokenCol(key), c.rowsOf, at("%s %s with rows in place of the rows of fenced table %s, without their tokens", "", what, into.GetRel().GetRelname(), key))
		}
	}
	var raw any
	if st.Raw != nil {
		raw = st.Raw.Node
	}
	switch x := raw.(type) {
	case *pg.Node_CreateTableAsStmt:
		if x.CreateTableAsStmt.GetObjtype() == pg.ObjectType_OBJECT_TABLE {
			made(x.CreateTableAsStmt.GetInto(), x.CreateTableAsStmt.GetQuery().GetSelectStmt(), "creates table")
		}
	case *pg.Node_SelectStmt:
		if into := x.SelectStmt.GetIntoClause(); into != nil {
			made(into, x.SelectStmt, "creates (SELECT ... INTO) table")
		}
	}
	switch n := st.Node.(type) {
	case *sqlparse.CreateTable:
		if n.IfNotExists {
			r.copies[r.key(n.Table)] = copyOf{state: copyLoses} // it may exist, with rows
		} else {
			r.copies[r.key(n.Table)] = copyOf{state: copyEmpty}
		}
	case *sqlparse.Drop:
		if n.Kind == "table" {
			for _, name := range n.Names {
				delete(r.copies, r.key(name))
			}
		}
	case *sqlparse.Rename:
		if n.Kind == "column" {
			r.touchCopy(r.key(n.Target))
			return
		}
		if n.Kind == "table" {
			key := r.key(n.Target)
			to := sqlparse.QuoteIdent(n.NewName)
			if schema, _, ok := strings.Cut(key, "."); ok {
				to = schema + "." + to
			}
			r.moveRows(f, st, key, to, at("renames table %s to %s, whose rows", "", n.Target.String(), n.NewName))
		}
	case *sqlparse.AlterObjectSchema:
		if n.Kind == "table" {
			key := r.key(n.Target)
			to := tableKey(sqlparse.Name{Schema: n.NewSchema, Name: n.Target.Name})
			r.moveRows(f, st, key, to, at("moves table %s to schema %s, whose rows", "", n.Target.String(), n.NewSchema))
		}
	case *sqlparse.AlterTable:
		for _, c := range n.Cmds {
			switch c.Kind {
			case sqlparse.AlterAddColumn, sqlparse.AlterDropColumn, sqlparse.AlterColumnType:
				r.touchCopy(r.key(n.Table))
			}
		}
	}
}

// foreignKeys records the foreign keys a CREATE TABLE or ALTER TABLE
// gives its table (fks), and the one table a view's SELECT reads
// (viewBase): what deletes the rows of a fenced table, and what writes
// them, beside the statements that name it. It reads the converted
// tree: the parse tree of a CREATE TABLE is let go (ReadsRaw).
func (r *guardReplay) foreignKeys(st *sqlparse.Stmt) {
	add := func(from string, fks []*sqlparse.ForeignKey) {
		for _, fk := range fks {
			r.fks[from] = append(r.fks[from], fkRef{to: r.key(fk.Parent), cascade: fk.OnDelete == 'c'})
		}
	}
	switch n := st.Node.(type) {
	case *sqlparse.CreateTable:
		from := r.key(n.Table)
		delete(r.fks, from)
		add(from, n.ForeignKeys)
	case *sqlparse.AlterTable:
		from := r.key(n.Table)
		for _, c := range n.Cmds {
			switch {
			case c.Kind == sqlparse.AlterAddForeignKey && c.FK != nil:
				add(from, []*sqlparse.ForeignKey{c.FK})
			case c.Kind == sqlparse.AlterAddColumn && c.Def != nil:
				add(from, c.Def.ForeignKeys)
			}
		}
	}
	if v := st.Raw.GetViewStmt(); v != nil {
		key := r.key(rangeName(v.GetView()))
		delete(r.viewBase, key)
		if base := r.selectSource(v.GetQuery().GetSelectStmt()); base != "" {
			r.viewBase[key] = base
		}
	}
}

// touchCopy records that the rows of copy key may no longer carry the
// stored tokens (its columns changed, or its token column written).
func (r *guardReplay) touchCopy(key string) {
	if c, ok := r.copies[key]; ok && c.state == copyCarries {
		r.copies[key] = copyOf{state: copyLoses}
	}
}

// moveRows follows a rename or move of table key to name to (c says
// what it does): a copy's state goes with it, and when the rows of a
// fenced table left to, the moved rows stand in for them, carrying the
// stored tokens only when key is guarded or a carrying copy.
func (r *guardReplay) moveRows(f *sqlparse.File, st *sqlparse.Stmt, key, to string, c *cause) {
	if key == to {
		return
	}
	// The fenced table's own rows, an empty table or a carrying copy
	// (not a table of earlier migrations, whose rows are unknown).
	src, carried := r.carrying(key)
	cp, isCopy := r.copies[key]
	delete(r.copies, key)
	if isCopy {
		r.copies[to] = cp
	}
	if r.removed[to] == nil {
		return
	}
	carried = carried && src.col == r.tokenCol(to) || isCopy && cp.state == copyEmpty
	c.what += " take the place of the rows of fenced table " + to + " without their tokens"
	r.insertion(f, st, to, carried, src, c)
}

// checked reports whether inserts into table key are checked for the
// stored tokens: key is guarded (or a partition of a guarded table), or
// the rows of a fenced table left the name.
func (r *guardReplay) checked(key string) bool {
	if _, _, ok := r.guardOf(key); ok {
		return true
	}
	return r.removed[key] != nil
}

// rowWriteOf is a write of table rows that a statement makes: its own
// (direct: the statement itself, whose source the replay reads), or one
// a function it calls, a trigger or a rule makes (via says how, ending
// with a space: "calls f, whose body ").
type rowWriteOf struct {
	w      writes.Write
	key    string
	direct bool
	via    string
}

// rowWrites are the writes of table rows statement st makes: its own at
// any depth (WITH entries, MERGE), those of the bodies of the
// migrations' functions it calls (and of those they call), and those
// the triggers and rules of the tables written make, and the writes of
// a view's base table (writes through a view the migrations define as a
// SELECT from one table).
func (r *guardReplay) rowWrites(f *sqlparse.File, st *sqlparse.Stmt) []rowWriteOf {
	var out []rowWriteOf
	seenFn, seenRule := map[string]bool{}, map[string]bool{}
	var fromFunc func(name, via string)
	var add func(w writes.Write, direct bool, via string)
	add = func(w writes.Write, direct bool, via string) {
		key := r.key(w.Table)
		out = append(out, rowWriteOf{w: w, key: key, direct: direct, via: via})
		for _, fn := range r.triggers[key] {
			fromFunc(fn, fmt.Sprintf("%swrites table %s, whose trigger ", via, key))
		}
		if !seenRule[key] {
			seenRule[key] = true
			for _, rw := range r.ruleWrites[key] {
				add(rw, false, fmt.Sprintf("%swrites table %s, whose rule ", via, key))
			}
			for _, fn := range r.ruleCalls[key] {
				fromFunc(fn, fmt.Sprintf("%swrites table %s, whose rule ", via, key))
			}
		}
		if base := r.viewBase[key]; base != "" && !seenRule["view "+key] {
			seenRule["view "+key] = true
			bw := w
			bw.Table = sqlparse.Name{Name: base}
			out = append(out, rowWriteOf{w: bw, key: base, via: fmt.Sprintf("%swrites view %s, which ", via, key)})
		}
	}
	fromFunc = func(name, via string) {
		rr := r.routines[name]
		if rr == nil || seenFn[name] {
			return
		}
		seenFn[name] = true
		v := fmt.Sprintf("%scalls %s, whose body ", via, name)
		for _, w := range rr.writes {
			add(w, false, v)
		}
		for _, c := range rr.calls {
			fromFunc(c, v)
		}
	}
	rep := writes.Of(st, f.Src)
	for _, w := range rep.Writes {
		add(w, w.Top, "")
	}
	for _, c := range rep.Calls {
		fromFunc(c.Func.Name, "")
	}
	return out
}

// rowWrite follows one write of table rows (rowWrites) for the stored
// tokens: rows of a fenced table removed (DELETE, TRUNCATE, a MERGE's
// DELETE, and what foreign keys cascade from them) and rows inserted
// into it (INSERT, COPY FROM, a MERGE's INSERT) whose token column is
// not shown to hold the stored tokens, in either order within a
// migration, or the insert in a later migration than the removal; and
// the writes of the migration's copies of a fenced table's rows.
func (r *guardReplay) rowWrite(f *sqlparse.File, st *sqlparse.Stmt, e rowWriteOf, at func(what, fails string, a ...any) *cause) {
	w := e.w
	has := func(ev string) bool { return slices.Contains(w.Events, ev) }
	switch {
	case w.Verb == "TRUNCATE":
		r.removeRows(f, st, e.key, true, w.Cascade, w.Only, e.via, "truncates", at, map[string]bool{})
	case w.Verb == "DELETE" || w.Verb == "MERGE" && has("DELETE"):
		r.removeRows(f, st, e.key, false, false, w.Only, e.via, "deletes rows of", at, map[string]bool{})
	}
	if has("UPDATE") {
		if c, ok := r.copies[e.key]; ok && c.state == copyCarries && (w.Targets == nil || slices.ContainsFunc(w.Targets, func(t string) bool { return sqlparse.QuoteIdent(t) == c.col })) {
			r.touchCopy(e.key)
		}
	}
	if !has("INSERT") {
		return
	}
	if c, ok := r.copies[e.key]; ok && !r.checked(e.key) {
		// Filling a copy: it carries the stored tokens when it was empty
		// (or carried them) and an INSERT ... SELECT from one carrying
		// table takes the token column by its name.
		ins := st.Raw.GetInsertStmt()
		if e.direct && w.Verb == "INSERT" && ins != nil && (c.state == copyEmpty || c.state == copyCarries) {
			sel := ins.GetSelectStmt().GetSelectStmt()
			if src, ok := r.carrying(r.selectSource(sel)); ok && ins.GetWithClause() == nil && (c.state == copyEmpty || c.col == src.col) &&
				(len(ins.GetCols()) == 0 && star(sel) || len(ins.GetCols()) > 0 && keepsToken(sel, src.col, ins.GetCols())) {
				snap := r.snapshot(src, sel)
				if c.state == copyCarries {
					snap.all = snap.all || c.all
					snap.seq = max(snap.seq, c.seq)
				}
				r.copies[e.key] = copyOf{state: copyCarries, rowsOf: snap}
				return
			}
		}
		r.copies[e.key] = copyOf{state: copyLoses}
		return
	}
	if !r.checked(e.key) {
		return
	}
	key := e.key
	if g, _, ok := r.guardOf(key); ok {
		key = g
	}
	col := r.tokenCol(key)
	carried, src := false, rowsOf{}
	if e.direct {
		if ins := st.Raw.GetInsertStmt(); ins != nil && w.Verb == "INSERT" {
			src, carried = r.carried(ins, col)
		} else if m := st.Raw.GetMergeStmt(); m != nil && w.Verb == "MERGE" {
			carried = r.mergeCarried(m, col)
		}
	}
	what := "inserts rows into"
	switch w.Verb {
	case "COPY":
		what = "copies rows (COPY ... FROM) into"
	case "MERGE":
		what = "inserts rows (MERGE ... INSERT) into"
	}
	r.insertion(f, st, key, carried, src, at("%s%s fenced table %s without their tokens", "", e.via, what, key))
}

// removeRows records that statement st removes the rows of table key
// (truncate: TRUNCATE, with cascade: CASCADE; only: ONLY), with the rows
// of its inheritance children and partitions, and those foreign keys
// delete with them (ON DELETE CASCADE, or any foreign key to a table
// truncated with CASCADE); via and verb say how, for the finding.
func (r *guardReplay) removeRows(f *sqlparse.File, st *sqlparse.Stmt, key string, truncate, cascade, only bool, via, verb string, at func(what, fails string, a ...any) *cause, seen map[string]bool) {
	if seen[key] {
		return
	}
	seen[key] = true
	if c, ok := r.copies[key]; ok {
		if truncate {
			c.state = copyEmpty
		}
		c.all = false
		r.copies[key] = c
	}
	if g, _, ok := r.guardOf(key); ok {
		if g == key {
			r.gone(f, st, g, at("%s%s fenced table %s", "", via, verb, key))
		} else {
			r.gone(f, st, g, at("%s%s partition %s of fenced table %s", "", via, verb, key, g))
		}
	}
	if !only {
		for child, refs := range r.parents {
			for _, p := range refs {
				if p.key == key {
					r.removeRows(f, st, child, truncate, cascade, false, via, verb, at, seen)
				}
			}
		}
	}
	for from, fks := range r.fks {
		for _, fk := range fks {
			if fk.to != key || !(truncate && cascade || !truncate && fk.cascade) {
				continue
			}
			how := fmt.Sprintf("%s%s table %s, which (ON DELETE CASCADE of a foreign key of %s) ", via, verb, key, from)
			if truncate {
				how = fmt.Sprintf("%s%s table %s with CASCADE, which (a foreign key of %s references it) ", via, verb, key, from)
			}
			r.removeRows(f, st, from, truncate, cascade, false, how, verb, at, seen)
		}
	}
}

// gone records that the rows of guarded table key are removed, by
// statement c: rows inserted into it in the same migration (before, see
// insertion) stand in for them without their tokens.
func (r *guardReplay) gone(f *sqlparse.File, st *sqlparse.Stmt, key string, c *cause) {
	c.ack = ackReset(f, st)
	c.column = r.tokenCol(key)
	c.seq = r.seq
	if ins := r.inserted[key]; ins != nil {
		delete(r.inserted, key)
		if !ins.ack && !c.ack {
			ins.advice = fmt.Sprintf(", and %s:%d:%d %s: the rows inserted stand in for the rows removed with tokens the INSERT gives them, not the stored ones%s%s", c.file, c.line, c.col, c.what, resetAdvice, resetAck)
			r.refused[fmt.Sprintf("insert %s:%d:%d", ins.file, ins.line, ins.col)] = ins
		}
	}
	if r.removed[key] == nil || r.removed[key].ack && !c.ack {
		r.removed[key] = c
	}
}

// insertion records that statement c puts rows into table key (checked),
// carrying the stored tokens (src) or not: without them, after rows of
// the table were removed, in this migration or an earlier one (removed),
// it is a finding; before, in this migration, one when they are removed
// (gone). With them, when they are every row of the table as of before
// the first removal, in this migration (a copy put back, a copy swapped
// in, the table renamed back), nothing removed is missing any more.
func (r *guardReplay) insertion(f *sqlparse.File, st *sqlparse.Stmt, key string, carried bool, src rowsOf, c *cause) {
	if carried {
		if rc := r.removed[key]; rc != nil && src.all && rc.file == c.file &&
			(src.seq >= 0 && src.seq < rc.seq || src.seq < 0 && src.from != key && rc.vacated) {
			delete(r.removed, key)
		}
		return
	}
	c.ack = ackReset(f, st)
	rc := r.removed[key]
	if rc == nil {
		if r.inserted[key] == nil {
			r.inserted[key] = c
		}
		return
	}
	if rc.ack || c.ack {
		return
	}
	if rc.file == c.file && !rc.vacated {
		// Reported at the removal, naming the first insert.
		k := fmt.Sprintf("removed %s:%d:%d", rc.file, rc.line, rc.col)
		if r.refused[k] == nil {
			rc.advice = fmt.Sprintf(", and %s:%d:%d %s: they come back with the tokens the INSERT gives them, not the stored ones (the guard trigger fires on UPDATE only)%s%s", c.file, c.line, c.col, c.what, resetAdvice, resetAck)
			r.refused[k] = rc
		}
		return
	}
	// The removal is in an earlier migration (applied, maybe): the
	// insert is the statement to change.
	c.advice = fmt.Sprintf(", after %s:%d:%d %s: the rows inserted stand in for the rows removed with tokens the INSERT gives them, not the stored ones (the guard trigger fires on UPDATE only)%s%s", rc.file, rc.line, rc.col, rc.what, resetAdvice, resetAck)
	r.refused[fmt.Sprintf("insert %s:%d:%d", c.file, c.line, c.col)] = c
}

// ackReset reports whether the statement st of f carries
// catalog.ResetTokensMark in its leading comments: a reset of the stored
// tokens it makes is deliberate.
func ackReset(f *sqlparse.File, st *sqlparse.Stmt) bool {
	return st.Lead >= 0 && st.Lead <= st.Start && st.Start <= len(f.Src) && strings.Contains(string(f.Src[st.Lead:st.Start]), catalog.ResetTokensMark)
}

// keepsToken reports whether SELECT sel gives column col (quoted) of the
// table it reads the values of that table's column col: a * or a column
// reference of that name, at the position of col in cols (the INSERT's
// column list; nil: anywhere, for a copy made AS the SELECT).
func keepsToken(sel *pg.SelectStmt, col string, cols []*pg.Node) bool {
	if sel == nil {
		return false
	}
	tl := sel.GetTargetList()
	if star(sel) {
		return true // SELECT *, SELECT t.*
	}
	names := func(rt *pg.ResTarget) bool {
		f := rt.GetVal().GetColumnRef().GetFields()
		if len(f) == 0 || sqlparse.QuoteIdent(f[len(f)-1].GetString_().GetSval()) != col {
			return false
		}
		return rt.GetName() == "" || sqlparse.QuoteIdent(rt.GetName()) == col
	}
	if cols == nil {
		return slices.ContainsFunc(tl, func(n *pg.Node) bool { return names(n.GetResTarget()) })
	}
	for i, c := range cols {
		if sqlparse.QuoteIdent(c.GetResTarget().GetName()) == col {
			return i < len(tl) && names(tl[i].GetResTarget())
		}
	}
	return false
}

// carried reports whether INSERT ins gives the token column (col,
// quoted) of the guarded table it writes the stored tokens: an INSERT
// ... SELECT from one table that carries them in a column of that name
// (carrying: a guarded table, or a copy this migration made of one with
// its token column and did not touch since), taking it by name (SELECT *
// with no column list; or the token column in the column list given the
// column of that name).
func (r *guardReplay) carried(ins *pg.InsertStmt, col string) (rowsOf, bool) {
	sel := ins.GetSelectStmt().GetSelectStmt()
	if ins.GetWithClause() != nil {
		return rowsOf{}, false
	}
	src, ok := r.carrying(r.selectSource(sel))
	if !ok || src.col != col {
		return rowsOf{}, false
	}
	src.all = src.all && whole(sel)
	if len(ins.GetCols()) == 0 {
		return src, star(sel)
	}
	return src, keepsToken(sel, col, ins.GetCols())
}

// mergeCarried is carried for MERGE m: its source is one carrying table,
// and each of its INSERT actions lists the token column and gives it the
// source's column of that name.
func (r *guardReplay) mergeCarried(m *pg.MergeStmt, col string) bool {
	src := m.GetSourceRelation().GetRangeVar()
	if src == nil || m.GetWithClause() != nil {
		return false
	}
	if from, ok := r.carrying(r.key(rangeName(src))); !ok || from.col != col {
		return false
	}
	alias := src.GetRelname()
	if a := src.GetAlias(); a != nil {
		alias = a.GetAliasname()
	}
	for _, n := range m.GetMergeWhenClauses() {
		wc := n.GetMergeWhenClause()
		if wc.GetCommandType() != pg.CmdType_CMD_INSERT {
			continue
		}
		found := false
		for i, t := range wc.GetTargetList() {
			if sqlparse.QuoteIdent(t.GetResTarget().GetName()) != col {
				continue
			}
			found = true
			if i >= len(wc.GetValues()) {
				return false
			}
			f := wc.GetValues()[i].GetColumnRef().GetFields()
			if len(f) == 0 || len(f) > 2 || sqlparse.QuoteIdent(f[len(f)-1].GetString_().GetSval()) != col || len(f) == 2 && f[0].GetString_().GetSval() != alias {
				return false
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// partitionOff reports whether a partition of guarded table key has the
// clone of its guard trigger off.
func (r *guardReplay) partitionOff(key string) bool {
	for k := range r.refused {
		if p, ok := strings.CutPrefix(k, "partition "); ok {
			if g, _ := r.partitionGuard(p); g == key {
				return true
			}
		}
	}
	return false
}
