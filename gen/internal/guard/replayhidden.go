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
	// calls are the names of the functions its bodies call.
	calls []string
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
		why, calls := routineBody(cf, source)
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
		r.routines[name] = rr
	case *pg.Node_CreateEventTrigStmt:
		_, fn := nodeName(n.CreateEventTrigStmt.GetFuncname())
		if why := r.risk(fn, nil); why != "" {
			c := r.atStmt(f, st, "creates event trigger %s, which runs function %s after schema statements; %s", n.CreateEventTrigStmt.GetTrigname(), fn, why)
			c.advice = ": an event trigger fires on the schema statements of every later migration, fencegen's guard migrations included, and the replay cannot tell whether it disables, drops or replaces a guard trigger there; run only functions whose bodies are plain SELECT, INSERT, UPDATE, DELETE or MERGE from event triggers, or drop it"
			r.pending = append(r.pending, c)
		}
	case *pg.Node_CreateTrigStmt:
		_, fn := nodeName(n.CreateTrigStmt.GetFuncname())
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
// are all harmless) and the functions they call.
func routineBody(cf *pg.CreateFunctionStmt, source string) (why string, calls []string) {
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
			return "is not read by fencegen (" + err.Error() + ")", nil
		}
		if b.Dynamic != "" {
			return strings.TrimPrefix(b.Dynamic, "its body "), nil
		}
		stmts = b.Stmts
	default:
		return "is written in LANGUAGE " + lang + ", which fencegen does not read", nil
	}
	for _, s := range stmts {
		if w := harmless(s); w != "" {
			return w, nil
		}
		calls = append(calls, calledFunctions(s)...)
	}
	return "", calls
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
// a guarded table while its guard is off, which no guard migration
// undoes (as ALTER ... TYPE ... USING 0): an UPDATE that assigns the
// token column while the trigger is disabled or the migration's
// transaction runs as replica (SET LOCAL session_replication_role), and
// a TRUNCATE of the table followed, in its migration, by an INSERT into
// it (the rows come back with their default tokens).
func (r *guardReplay) resets(f *sqlparse.File, st *sqlparse.Stmt, at func(what, fails string, a ...any) *cause, refuse func(string, *cause, string)) {
	guardOf := func(rv *pg.RangeVar) (string, guardInstalled, bool) {
		key := r.key(rangeName(rv))
		if in, ok := r.tables[key]; ok {
			return key, in, true
		}
		if p, ok := r.partitionGuard(key); ok {
			return p, r.tables[p], true
		}
		return "", guardInstalled{}, false
	}
	const advice = ": it may lower every stored token, and then a stale holder's write passes the guard; no guard migration can undo that: keep the token column's values (set other columns only, or only raise tokens with the guard on)"
	const ack = ", or, if lowering every stored token is deliberate, write the comment -- " + catalog.ResetTokensMark + " just before this statement"
	acked := func() bool { return ackReset(f, st) }
	// gone records rows of guarded table key that statement c removes:
	// rows inserted into it in the same migration (before or after, see
	// the INSERT) come back without their tokens.
	gone := func(key string, c *cause) {
		c.ack = acked()
		if ins := r.inserted[key]; ins != nil {
			delete(r.inserted, key)
			if ins.ack || c.ack {
				return
			}
			ins.advice = fmt.Sprintf(", and %s:%d:%d %s: the rows inserted stand in for the rows removed with tokens the INSERT gives them, not the stored ones%s%s", c.file, c.line, c.col, c.what, advice, ack)
			r.refused[fmt.Sprintf("insert %s:%d", ins.file, ins.line)] = ins
			return
		}
		if r.truncated[key] == nil {
			r.truncated[key] = c
		}
	}
	switch x := st.Raw.Node.(type) {
	case *pg.Node_UpdateStmt:
		key, in, ok := guardOf(x.UpdateStmt.GetRelation())
		if !ok {
			return
		}
		col := column(in.fn.text)
		assigns := false
		for _, t := range x.UpdateStmt.GetTargetList() {
			if rt := t.GetResTarget(); rt != nil && sqlparse.QuoteIdent(rt.GetName()) == col {
				assigns = true
			}
		}
		switch {
		case !assigns:
		case acked():
		case in.disabled != nil:
			refuse("reset", at("sets token column %s of fenced table %s while %s:%d:%d has its guard trigger off", "", col, key, in.disabled.file, in.disabled.line, in.disabled.col), advice+ack)
		case r.localReplica:
			refuse("reset", at("sets token column %s of fenced table %s while the migration runs with session_replication_role replica (SET, SET LOCAL or set_config), under which its guard trigger does not fire", "", col, key), advice+ack)
		case r.partitionOff(key):
			refuse("reset", at("sets token column %s of fenced table %s while the clone of its guard trigger on a partition is off", "", col, key), advice+ack)
		}
	case *pg.Node_TruncateStmt:
		for _, rel := range x.TruncateStmt.GetRelations() {
			if key, _, ok := guardOf(rel.GetRangeVar()); ok {
				gone(key, at("truncates fenced table %s", "", key))
			}
		}
	case *pg.Node_DeleteStmt:
		if key, _, ok := guardOf(x.DeleteStmt.GetRelation()); ok {
			gone(key, at("deletes rows of fenced table %s", "", key))
		}
	case *pg.Node_CreateTableAsStmt:
		// A copy of a guarded table's rows (CREATE TABLE keep AS SELECT
		// ... FROM jobs): whether it keeps the token column.
		ctas := x.CreateTableAsStmt
		sel := ctas.GetQuery().GetSelectStmt()
		if ctas.GetInto().GetRel() == nil || sel == nil || len(sel.GetFromClause()) != 1 {
			return
		}
		_, in, ok := guardOf(sel.GetFromClause()[0].GetRangeVar())
		if !ok {
			return
		}
		r.copies[r.key(rangeName(ctas.GetInto().GetRel()))] = keepsToken(sel, column(in.fn.text), nil)
	case *pg.Node_InsertStmt:
		key, in, ok := guardOf(x.InsertStmt.GetRelation())
		if !ok || r.carried(x.InsertStmt, column(in.fn.text)) {
			return
		}
		line, col := diag.Position(f.Src, st.Start)
		if c := r.truncated[key]; c != nil {
			delete(r.truncated, key)
			if c.ack || acked() {
				return
			}
			c.advice = fmt.Sprintf(", and %s:%d:%d inserts rows into it again without their tokens: they come back with the tokens the INSERT gives them, not the stored ones (the guard trigger fires on UPDATE only)%s%s", f.Name, line, col, advice, ack)
			r.refused[fmt.Sprintf("truncate %s:%d", c.file, c.line)] = c
			return
		}
		if r.inserted[key] == nil {
			c := at("inserts rows into fenced table %s without their tokens", "", key)
			c.ack = acked()
			r.inserted[key] = c
		}
	}
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
	tl := sel.GetTargetList()
	if len(tl) == 1 {
		if f := tl[0].GetResTarget().GetVal().GetColumnRef().GetFields(); len(f) > 0 && f[len(f)-1].GetAStar() != nil {
			return true // SELECT *, SELECT t.*
		}
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
// quoted) of the guarded table it writes stored tokens: an INSERT ...
// SELECT from one table, of a copy that kept the token column (or a
// table the replay did not see made), taking the token column's values
// by name (SELECT *, with no column list; or the token column in its
// column list given the column of that name).
func (r *guardReplay) carried(ins *pg.InsertStmt, col string) bool {
	sel := ins.GetSelectStmt().GetSelectStmt()
	if sel == nil || len(sel.GetFromClause()) != 1 || sel.GetFromClause()[0].GetRangeVar() == nil || len(sel.GetValuesLists()) > 0 {
		return false
	}
	if keeps, ok := r.copies[r.key(rangeName(sel.GetFromClause()[0].GetRangeVar()))]; ok && !keeps {
		return false
	}
	if len(ins.GetCols()) == 0 {
		tl := sel.GetTargetList()
		if len(tl) != 1 {
			return false
		}
		f := tl[0].GetResTarget().GetVal().GetColumnRef().GetFields()
		return len(f) > 0 && f[len(f)-1].GetAStar() != nil
	}
	return keepsToken(sel, col, ins.GetCols())
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
