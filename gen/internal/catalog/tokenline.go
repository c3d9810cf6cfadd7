package catalog

// The fencing tokens a table stores must survive the schema's life (issues
// 24 and 27): once a migration leaves a table fenced, holders write their
// tokens into its token column, and the guard (the generated statement's
// and the database-side trigger) compares each later write with them. A
// later migration whose marked column holds other values (the token column
// dropped and added again in two statements, the mark moved to a new
// column, the table re-created with its rows copied without the tokens)
// lowers every stored token, and the next write of a stale holder passes.
// The catalog follows where each column's values come from (origin), and
// at the end of each schema file (a migration) requires the column each
// fenced table marks to hold the tokens of the column it marked at the end
// of an earlier file.

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	tidb "github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/fencegen/fencegen/gen/internal/diag"
)

// ResetTokensMark, in the comments just before a schema statement,
// acknowledges that the statement gives a fenced table a token column
// that does not hold the tokens stored before (see tokenLine).
const ResetTokensMark = "fencegen:reset-tokens"

// tokenLine is the catalog's record of where fenced tables' stored tokens
// live.
type tokenLine struct {
	// file is the schema file the last statement came from.
	file string
	// from maps a column to the column whose values it was given: by an
	// UPDATE t SET c = o of every row, an INSERT ... SELECT that copies o
	// into c, or MySQL's MODIFY or CHANGE (read as a drop and an add).
	from map[*Column]*Column
	// tokens maps a table to the column that held its tokens at the end of
	// the last schema file that left it fenced.
	tokens map[*Table]*Column
	// copied maps a table to the table it had rows copied from (INSERT
	// ... SELECT), with the statement.
	copied map[*Table]copiedRows
	// redefined is the column a MySQL MODIFY or CHANGE of the statement
	// being applied dropped, by its new name.
	redefined map[*Table]redefinedColumn
	// reported holds the tables whose broken line is reported.
	reported map[*Table]bool
	// keys are the configuration's fence keys (ExpectFenceKeys), whose
	// marks come after the schema is read: their tables' token columns
	// are followed by name from the start.
	keys []FenceKey
}

// FenceKey is a table and token column a fence key of the configuration
// names (schema "" for the search_path's), and where.
type FenceKey struct {
	Schema, Table, Column string
	File                  string
	Line, Col             int
}

// ExpectFenceKeys gives the catalog, before the schema's statements, the
// tables the configuration's fence keys will mark (MarkFence, after the
// schema): the token line (a marked column must hold the tokens stored
// before, across the schema's files) covers them as it covers a
// COMMENT's mark, each following the column of the key's name at the end
// of every file where the table has it.
func (c *Catalog) ExpectFenceKeys(keys []FenceKey) {
	c.line.init()
	c.line.keys = append(c.line.keys, keys...)
}

type copiedRows struct {
	from *Table
	// name is from's name at the copy, to its name then.
	name, to string
	at       *diag.Error
	ack      bool
}

type redefinedColumn struct {
	name string
	col  *Column
}

func (l *tokenLine) init() {
	if l.from == nil {
		l.from = map[*Column]*Column{}
		l.tokens = map[*Table]*Column{}
		l.copied = map[*Table]copiedRows{}
		l.redefined = map[*Table]redefinedColumn{}
		l.reported = map[*Table]bool{}
	}
}

// origin is the column whose values c holds.
func (l *tokenLine) origin(c *Column) *Column {
	seen := map[*Column]bool{}
	for c != nil && !seen[c] {
		seen[c] = true
		o, ok := l.from[c]
		if !ok {
			return c
		}
		c = o
	}
	return c
}

// carry records that column to was given the values of column o, or,
// when o is nil or to itself, other values.
func (l *tokenLine) carry(to, o *Column) {
	if o != nil && o != to {
		l.from[to] = o
	} else {
		delete(l.from, to)
	}
}

// ackReset reports whether the statement being applied carries
// ResetTokensMark in its leading comments.
func (u *updater) ackReset() bool {
	if u.s.Lead < 0 || u.s.Start > len(u.f.Src) || u.s.Lead > u.s.Start {
		return false
	}
	return strings.Contains(string(u.f.Src[u.s.Lead:u.s.Start]), ResetTokensMark)
}

// tokenFileStart ends the token line's last file when statement of file
// name starts another one.
func (c *Catalog) tokenFileStart(name string) {
	c.line.init()
	if c.line.file != "" && c.line.file != name {
		c.endTokenFile()
	}
	c.line.file = name
}

// endTokenFile checks, at the end of a schema file, that every table the
// file leaves fenced stores its tokens in the column that held them at the
// end of the earlier files (or in one given their values), and records
// that column.
func (c *Catalog) endTokenFile() {
	l := &c.line
	l.init()
	type marked struct {
		t   *Table
		f   *Fence
		key *FenceKey
	}
	var all []marked
	for _, s := range c.Schemas {
		for _, t := range s.Tables {
			if f := t.Fence; f != nil && f.From == nil && f.Source == "comment" {
				all = append(all, marked{t: t, f: f})
			}
		}
	}
	for i := range l.keys {
		k := &l.keys[i]
		t := c.Table(k.Schema, k.Table)
		if t == nil || t.IsView || t.Fence != nil && (t.Fence.Source == "comment" || t.Fence.From != nil) {
			continue
		}
		all = append(all, marked{t: t, f: &Fence{Column: k.Column, File: k.File, Line: k.Line, Col: k.Col}, key: k})
	}
	for _, m := range all {
		t, f := m.t, m.f
		col := t.Column(f.Column)
		if col == nil {
			continue
		}
		prev, before := l.tokens[t], t
		cp, copied := l.copied[t]
		if prev == nil && copied {
			before = cp.from
			prev = l.tokens[cp.from]
			if prev == nil && cp.from.Fence != nil && cp.from.Fence.From == nil {
				prev = cp.from.Column(cp.from.Fence.Column)
			}
		}
		if prev != nil && l.origin(col) != l.origin(prev) && !l.reported[t] {
			l.reported[t] = true
			where := &diag.Error{File: f.File, Line: f.Line, Col: f.Col}
			ack := f.resetAck
			if m.key != nil && col.addedAt != nil {
				// The statement that gave the table the column.
				where, ack = col.addedAt, col.addedAck
			}
			var what, fix string
			switch {
			case copied && before != t:
				where, ack = cp.at, cp.ack
				what = fmt.Sprintf("copies the rows of fenced table %s into %s without their tokens (column %s into %s)", cp.name, cp.to, prev.Name, col.Name)
				fix = fmt.Sprintf("copy the token column with the rows (INSERT INTO %s (..., %s) SELECT ..., %s FROM %s)", cp.to, col.Name, prev.Name, cp.name)
			case m.key != nil && t.Column(prev.Name) == prev:
				what = fmt.Sprintf("gives fenced table %s a column %s, which its fence key (%s:%d:%d) names as the fencing token, but %s does not hold the tokens stored in %s", t.QualifiedName(), col.Name, m.key.File, m.key.Line, m.key.Col, col.Name, prev.Name)
				fix = fmt.Sprintf("carry the tokens over (UPDATE %s SET %s = %s, of every row, while both columns exist)", t.Name, col.Name, prev.Name)
			case m.key != nil:
				what = fmt.Sprintf("gives fenced table %s a column %s, which its fence key (%s:%d:%d) names as the fencing token, but the column that held its tokens (%s) is dropped and %s does not hold them", t.QualifiedName(), col.Name, m.key.File, m.key.Line, m.key.Col, prev.Name, col.Name)
				fix = fmt.Sprintf("keep the token column (rename or retype it in place instead of dropping it), or carry the tokens over (UPDATE %s SET <new column> = %s, of every row, before dropping it)", t.Name, prev.Name)
			case t.Column(prev.Name) == prev:
				what = fmt.Sprintf("marks column %s of fenced table %s as its fencing token, but %s does not hold the tokens stored in %s", col.Name, t.QualifiedName(), col.Name, prev.Name)
				fix = fmt.Sprintf("carry the tokens over (UPDATE %s SET %s = %s, of every row, while both columns exist)", t.Name, col.Name, prev.Name)
			default:
				what = fmt.Sprintf("marks column %s of fenced table %s as its fencing token, but the column that held its tokens (%s) is dropped and %s does not hold them", col.Name, t.QualifiedName(), prev.Name, col.Name)
				fix = fmt.Sprintf("keep the token column (rename or retype it in place instead of dropping it), or carry the tokens over (UPDATE %s SET <new column> = %s, of every row, before dropping it)", t.Name, prev.Name)
			}
			if !ack {
				c.Errors.AddErr(&diag.Error{File: where.File, Line: where.Line, Col: where.Col, Err: ErrFence,
					Msg: fmt.Sprintf("this migration %s: once it is applied every row's token is lower than the tokens leases have issued, and a stale holder's write passes both the guard trigger and the generated code; no guard migration can undo that: %s, or, if lowering every stored token is deliberate, write the comment -- %s just before this statement", what, fix, ResetTokensMark)})
			}
		}
		l.tokens[t] = col
	}
	clear(l.reported)
}

// carryPG records the column values an UPDATE or INSERT ... SELECT of a
// PostgreSQL schema file copies (tokenLine.from).
func (u *updater) carryPG(raw *pg.Node) {
	l := &u.c.line
	if up := raw.GetUpdateStmt(); up != nil {
		if up.GetWhereClause() != nil || len(up.GetFromClause()) > 0 || up.GetWithClause() != nil {
			return
		}
		t := u.c.Table(up.GetRelation().GetSchemaname(), up.GetRelation().GetRelname())
		if t == nil {
			return
		}
		for _, n := range up.GetTargetList() {
			rt := n.GetResTarget()
			to := t.Column(rt.GetName())
			if to == nil || len(rt.GetIndirection()) > 0 {
				continue
			}
			l.carry(to, t.Column(pgColumnRef(rt.GetVal())))
		}
		return
	}
	ins := raw.GetInsertStmt()
	if ins == nil || ins.GetSelectStmt() == nil {
		return
	}
	to := u.c.Table(ins.GetRelation().GetSchemaname(), ins.GetRelation().GetRelname())
	sel := ins.GetSelectStmt().GetSelectStmt()
	if to == nil || sel == nil || len(sel.GetFromClause()) != 1 || sel.GetFromClause()[0].GetRangeVar() == nil {
		return
	}
	rv := sel.GetFromClause()[0].GetRangeVar()
	from := u.c.Table(rv.GetSchemaname(), rv.GetRelname())
	if from == nil || from == to {
		return
	}
	var targets []*Column
	if cols := ins.GetCols(); len(cols) > 0 {
		for _, n := range cols {
			targets = append(targets, to.Column(n.GetResTarget().GetName()))
		}
	} else {
		targets = to.Columns
	}
	var sources []*Column
	for _, n := range sel.GetTargetList() {
		v := n.GetResTarget().GetVal()
		if f := v.GetColumnRef().GetFields(); len(f) == 1 && f[0].GetAStar() != nil {
			sources = append(sources, from.Columns...)
			continue
		}
		sources = append(sources, from.Column(pgColumnRef(v)))
	}
	u.copyRows(to, from, targets, sources)
}

// pgColumnRef is the name of the column n refers to, "" when n is not a
// column reference.
func pgColumnRef(n *pg.Node) string {
	f := n.GetColumnRef().GetFields()
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1].GetString_().GetSval()
}

// carryMySQL is carryPG for a MySQL statement.
func (u *updater) carryMySQL(st tidb.StmtNode) {
	l := &u.c.line
	switch n := st.(type) {
	case *tidb.UpdateStmt:
		if n.Where != nil || n.MultipleTable || n.Limit != nil {
			return
		}
		t := u.mysqlRef(n.TableRefs)
		if t == nil {
			return
		}
		for _, a := range n.List {
			to := t.Column(a.Column.Name.L)
			if to == nil {
				continue
			}
			var o *Column
			if ref, ok := a.Expr.(*tidb.ColumnNameExpr); ok {
				o = t.Column(ref.Name.Name.L)
			}
			l.carry(to, o)
		}
	case *tidb.InsertStmt:
		sel, ok := n.Select.(*tidb.SelectStmt)
		if !ok || sel.Fields == nil {
			return
		}
		to, from := u.mysqlRef(n.Table), u.mysqlRef(sel.From)
		if to == nil || from == nil || to == from {
			return
		}
		var targets []*Column
		if len(n.Columns) > 0 {
			for _, c := range n.Columns {
				targets = append(targets, to.Column(c.Name.L))
			}
		} else {
			targets = to.Columns
		}
		var sources []*Column
		for _, f := range sel.Fields.Fields {
			if f.WildCard != nil {
				sources = append(sources, from.Columns...)
				continue
			}
			var src *Column
			if ref, ok := f.Expr.(*tidb.ColumnNameExpr); ok {
				src = from.Column(ref.Name.Name.L)
			}
			sources = append(sources, src)
		}
		u.copyRows(to, from, targets, sources)
	}
}

// mysqlRef is the one table a MySQL FROM list names, or nil.
func (u *updater) mysqlRef(r *tidb.TableRefsClause) *Table {
	if r == nil || r.TableRefs == nil || r.TableRefs.Right != nil {
		return nil
	}
	ts, ok := r.TableRefs.Left.(*tidb.TableSource)
	if !ok {
		return nil
	}
	tn, ok := ts.Source.(*tidb.TableName)
	if !ok {
		return nil
	}
	return u.c.Table(tn.Schema.L, tn.Name.L)
}

// copyRows records an INSERT INTO to SELECT ... FROM from that copies
// sources[i] into targets[i] (nil for anything but a column), located at
// the statement.
func (u *updater) copyRows(to, from *Table, targets, sources []*Column) {
	l := &u.c.line
	for i, t := range targets {
		if t == nil {
			continue
		}
		var o *Column
		if i < len(sources) {
			o = sources[i]
		}
		l.carry(t, o)
	}
	if l.tokens[from] == nil && (from.Fence == nil || from.Fence.From != nil) {
		return // the rows hold no tokens
	}
	line, col := u.pos(u.s.Start)
	l.copied[to] = copiedRows{from: from, name: from.QualifiedName(), to: to.QualifiedName(), at: &diag.Error{File: u.f.Name, Line: line, Col: col}, ack: u.ackReset()}
}

// strayMarkText reports the columns of PostgreSQL fenced table t and of
// the tables it inherits from, other than its token column, whose comment
// contains "fencegen:token" without being a mark: after a rename of the
// token column, the database-side guard's trigger finds the column by
// that text in its comment (database.go in package guard), and would
// guard such a column instead (x24 F6).
func (c *Catalog) strayMarkText(t *Table) diag.List {
	var errs diag.List
	seen := map[*Table]bool{}
	var walk func(x *Table)
	walk = func(x *Table) {
		if seen[x] {
			return
		}
		seen[x] = true
		for _, col := range x.Columns {
			if col.Type.Schema == MySQLSchema || col.commentAt == nil || !strings.Contains(col.Comment, "fencegen:token") {
				continue
			}
			if marked, _, _ := ParseFenceMark(col.Comment); marked {
				continue // the mark itself (another one is an error of its own)
			}
			at := col.commentAt
			errs.AddErr(&diag.Error{File: at.File, Line: at.Line, Col: at.Col, Err: ErrFence,
				Msg: fmt.Sprintf("the comment of column %s of table %s contains 'fencegen:token' but is no fencing mark, while %s is fenced (token column %s): after a rename of the token column, the database-side guard's trigger looks the column up by that text in its comment, and would guard %s instead, letting a stale token's write through; reword the comment", col.Name, x.QualifiedName(), t.QualifiedName(), t.Fence.Column, col.Name)})
		}
		for _, p := range x.parents {
			walk(p)
		}
	}
	walk(t)
	return errs
}
