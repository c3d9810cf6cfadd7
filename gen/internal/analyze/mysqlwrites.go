package analyze

import (
	"slices"
	"strings"
	"unicode"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/writes/mysqlwrites"
)

// mysqlWrites is the write analysis of a MySQL statement while the schema
// has a fenced table (package mysqlwrites, over the TiDB parser's whole
// tree and the schema's views, triggers, routines and foreign keys in
// Options.MySQLSchema). It refuses, each at the name of the table written
// (file:line:col), every write of a fenced table the guard cannot guard,
// and every refusal of the analysis (what it cannot see through); the
// statement's own single-table INSERT, UPDATE or DELETE of a fenced table
// is left to the guard stage (q.Fence, MySQLGuard). It returns the
// analysis's report (for mysqlFenceHandedOver) and whether the query was
// refused. Without Options.MySQLSchema (a caller that did not read the
// schema's facts) it refuses as mysqlFenced does, and the report is nil.
func (a *analyzer) mysqlWrites(q *Query) (*mysqlwrites.Report, bool) {
	sc := a.opts.MySQLSchema
	if sc == nil || a.stmt.MySQL == nil {
		return nil, a.mysqlFenced(q)
	}
	r := mysqlwrites.Of(a.stmt.MySQL, a.mysqlTextBase(), sc)
	refused := false
	for _, f := range r.Refusals {
		if f.At != nil {
			// What a stored program's body holds is refused where the
			// body has it, naming the query that reaches it.
			loc := f.Loc
			if loc < a.stmt.Start || loc > a.stmt.End {
				loc = a.stmt.Start
			}
			qline, qcol := diag.Position(a.file.Src, loc)
			line, col := diag.Position(f.At.Src, f.At.Pos)
			a.errs.Add(f.At.Name, line, col, "query %s (%s:%d:%d) %s", q.Name, a.file.Name, qline, qcol, f.Reason)
			refused = true
			continue
		}
		a.errorf(f.Loc, "query %s %s", q.Name, f.Reason)
		refused = true
	}
	for _, w := range r.FencedWrites(sc) {
		if w.Guardable() && w.Direct && q.Cmd == CmdCopyFrom {
			// sqlc's MySQL :copyfrom sends the rows with LOAD DATA LOCAL
			// INFILE, which the guard does not rewrite: the token would
			// not be stored in the rows loaded.
			a.errorf(w.Loc, "query %s loads rows into fenced table %s with :copyfrom, which MySQL runs as LOAD DATA LOCAL INFILE without the fencing token; insert them with :exec (or :execrows) INSERT queries, which fencegen guards", q.Name, w.Table)
			refused = true
			continue
		}
		if w.Guardable() {
			continue
		}
		a.errorf(w.Loc, "query %s %s", q.Name, mysqlUnguardable(w))
		refused = true
	}
	return r, refused
}

// mysqlFenceHandedOver refuses a MySQL query whose own single-table
// write of a fenced table (which mysqlWrites leaves to the guard, r being
// its report) the analysis did not hand to the guard stage as q.Fence:
// such a write would otherwise be generated as it is. It reports whether
// it refused.
func (a *analyzer) mysqlFenceHandedOver(q *Query, r *mysqlwrites.Report) bool {
	if r == nil {
		return false
	}
	refused := false
	for _, w := range r.FencedWrites(a.opts.MySQLSchema) {
		if !w.Guardable() || q.Fence != nil && strings.EqualFold(q.Fence.Table.Name, w.Table) {
			continue
		}
		if w.Verb == "INSERT" && !w.Upsert && slices.ContainsFunc(q.CreatesOutsideLease, func(t *catalog.Table) bool { return strings.EqualFold(t.Name, w.Table) }) {
			// INSERT ... VALUES (..., DEFAULT): rows created outside a
			// lease (outsidelease.go), generated as sqlc's; a new row
			// holds no newer token, and the default is below every one.
			continue
		}
		a.errorf(w.Loc, "query %s writes fenced table %s (%s) in a form fencegen's analysis does not hand to the guard; write it as a single-table UPDATE or DELETE, or an INSERT ... VALUES", q.Name, w.Table, w.Verb)
		refused = true
	}
	return refused
}

// mysqlUnguardable says why w, a write of a fenced table, cannot carry the
// guard.
func mysqlUnguardable(w mysqlwrites.Write) string {
	switch {
	case w.Via != "":
		return "writes fenced table " + w.Table + " through " + w.Via + " (" + strings.ToLower(w.Verb) + "), inside the database where no token comparison can be added; write the fenced table's rows with their own guarded query"
	case w.Lenient == "IGNORE":
		return "runs " + w.Verb + " IGNORE on fenced table " + w.Table + ": IGNORE turns the guard's refusal (an error) into a warning, so a stale write would skip the row, or store 0 as its token, and succeed; write it without IGNORE"
	case w.Lenient != "":
		return "runs " + w.Verb + " " + w.Lenient + " on fenced table " + w.Table + ": the server may write the rows after the statement has returned, where the guard's refusal reaches no caller; write it without " + w.Lenient
	case w.Verb == "REPLACE":
		return "runs REPLACE INTO fenced table " + w.Table + ", which deletes the row it conflicts with whatever token that row holds; write INSERT ... ON DUPLICATE KEY UPDATE, which the guard guards"
	case w.Verb == "LOAD DATA":
		return "loads rows into fenced table " + w.Table + " with LOAD DATA, which has no place for a token comparison; insert them with an INSERT query"
	case w.Multi:
		return "writes fenced table " + w.Table + " in a multi-table " + w.Verb + "; write the fenced table's part as a single-table " + w.Verb
	case w.Verb == "TRUNCATE":
		return "truncates fenced table " + w.Table + ", which no token comparison can guard"
	default:
		return "runs " + w.Verb + " on fenced table " + w.Table + "; schema changes belong in the schema files (migrations)"
	}
}

// mysqlTextBase is the file offset where the TiDB statement's text
// (ast.Node.Text, which mysqlwrites locates names in) starts: the text
// is found in the file from the statement's lead on; when it is not (a
// statement parsed with blanks before it), its first non-space byte is
// matched; failing that, the statement's start.
func (a *analyzer) mysqlTextBase() int {
	text := a.stmt.MySQL.Text()
	src := string(a.file.Src)
	from := max(0, min(a.stmt.Lead, a.stmt.Start))
	if from > len(src) {
		return a.stmt.Start
	}
	if i := strings.Index(src[from:], text); i >= 0 && from+i <= a.stmt.Start {
		return from + i
	}
	trimmed := strings.TrimLeftFunc(text, unicode.IsSpace)
	if trimmed != "" {
		if i := strings.Index(src[from:], trimmed); i >= 0 && from+i <= a.stmt.Start {
			return from + i - (len(text) - len(trimmed))
		}
	}
	return a.stmt.Start
}
