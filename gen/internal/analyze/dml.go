package analyze

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/catalog/pgcatalog"
	"github.com/fencegen/fencegen/gen/internal/config"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// target resolves the table an INSERT, UPDATE or DELETE writes.
// verb is the write: INSERT (an upsert's UPDATE included), UPDATE or
// DELETE.
func (a *analyzer) target(sc *scope, n sqlparse.Name, verb string) *catalog.Table {
	t := a.cat.Table(n.Schema, n.Name)
	if t == nil {
		a.errorf(n.Loc, "%s", a.missingRelation(n))
		return nil
	}
	events := verbEvents(verb)
	if verb == "INSERT" {
		events = []string{"INSERT", "UPDATE"} // ON CONFLICT DO UPDATE
	}
	a.shadowed(n, t, verb, events, n.Loc)
	// A write of a view: what PostgreSQL turns it into (its INSTEAD OF
	// triggers and rules, its base relation) is followed by setsOff and
	// checkWrites (viewWrites).
	if t.IsSequence {
		a.errorf(n.Loc, "cannot change sequence %q", t.Name)
	}
	return t
}

// fence records the guard of a write to a fenced table. q is nil for a
// write inside a CTE, which the analyzer refuses for fenced tables for now.
func (a *analyzer) fence(q *Query, t *catalog.Table, kind string, loc int) {
	if t == nil || a.planOnly {
		return
	}
	a.setsOff(t, fenceEvents(kind), loc)
	if t.Fence == nil {
		// Marked on a partition or child only: a write named on t reaches
		// those rows without the guard (not with ONLY, and an INSERT
		// only a partition's).
		verb, only := strings.ToUpper(kind), false
		if kind == "upsert" {
			verb = "INSERT"
		}
		if w := a.writeAt(loc); w != nil {
			only = w.Only
		}
		if d := reachedBy(a.cat, t, verb, only); len(d) > 0 {
			a.refuseFenced(loc, d[0], "%s on %s can write rows of its fenced %s %s without the guard: mark the fencing token on %s itself (its partitions and children then inherit it)",
				strings.ToUpper(kind), t.QualifiedName(), descendantKind(t, d[0]), d[0].QualifiedName(), t.QualifiedName())
		}
		return
	}
	strict := t.Fence.Strict
	if a.ann.Strict {
		strict = true
	}
	if a.ann.NonStrict {
		strict = false
	}
	f := &Fence{Table: t, Column: t.Fence.Column, Strict: strict, Kind: kind, Loosens: t.Fence.Strict && !strict}
	if q == nil {
		// A data-modifying WITH entry: guarded in place (package guard,
		// form InWith, Spec.CTE).
		if a.cteFence != nil {
			a.errorf(loc, "a second fenced write in one WITH clause (%s and %s); fencegen guards one fenced write per statement: split it", a.cteFence.CTE, a.currentCTE)
			return
		}
		f.CTE = a.currentCTE
		a.cteFence = f
		return
	}
	q.Fence = f
}

// cascades refuses a write to t (op "delete", "update" of the columns set,
// or "truncate" for TRUNCATE ... CASCADE) that makes PostgreSQL delete or
// update rows of a fenced table through a FOREIGN KEY action: those rows
// are written without their tokens being checked.
func (a *analyzer) cascades(t *catalog.Table, op string, set []string, loc int) {
	for _, c := range a.cat.Cascades(t, op, set) {
		if op == "truncate" {
			a.refuseFenced(loc, c.Table, "TRUNCATE ... CASCADE on %s reaches fenced table %s through foreign keys, %s: it empties every table that refers to %s, whatever the foreign key's action, without checking fencing tokens; drop CASCADE (%s then refuses the TRUNCATE while a table refers to %s), or delete the rows with fenced DELETE queries",
				t.QualifiedName(), c.Table.QualifiedName(), c.Path, t.QualifiedName(), a.server(), t.QualifiedName())
			continue
		}
		a.refuseFenced(loc, c.Table, "%s on %s reaches fenced table %s through foreign keys, %s: %s writes those rows without checking their fencing tokens. fencegen judges the schema, not the rows a table holds, so this stays refused while the foreign key has that action, even when another query deletes those rows first; to clear it, make the foreign key ON DELETE/ON UPDATE RESTRICT or NO ACTION in the schema, and write the fenced rows first with their own fenced query (%s then refuses the %s while any remain)",
			strings.ToUpper(op), t.QualifiedName(), c.Table.QualifiedName(), c.Path, a.server(), a.server(), strings.ToUpper(op))
	}
}

// descendantKind names what d is to t: "partition" or "child table".
func descendantKind(t, d *catalog.Table) string {
	for p := d.PartitionOf(); p != nil; p = p.PartitionOf() {
		if p == t {
			return "partition"
		}
	}
	return "child table"
}

// sqlType spells t for a cast in SQL, schema-qualified. The catalog keeps
// no type modifiers, and char and bit without one mean char(1) and bit(1)
// (PostgreSQL docs, 8.3 and 8.10): they are cast as text and varbit, which
// the assignment to the column then checks and pads as it would the value
// itself.
func sqlType(t catalog.Type) string {
	schema := t.Schema
	if schema == "" {
		schema = "pg_catalog"
	}
	if schema == "pg_catalog" {
		switch t.Name {
		case "bpchar", "char":
			t.Name = "text"
		case "bit":
			t.Name = "varbit"
		}
	}
	return sqlparse.QuoteIdent(schema) + "." + sqlparse.QuoteIdent(t.Name) + strings.Repeat("[]", t.ArrayDims)
}

// mysqlInsertArity refuses, as sqlc v1.31.1 does on MySQL, an INSERT
// (or REPLACE) whose one VALUES row has more or fewer values than its
// column list names (no list names none: INSERT INTO t VALUES (1, 2) is
// refused), or that gives a parameter, as a VALUES value or a SELECT
// target, at a position past the last column named (sqlc's
// validate.InsertStmt and findParameters). sqlc gives these errors no
// position: they are reported at the statement, where sqlc reports them.
// Other mismatched rows (of several VALUES rows, or of a SELECT without
// such a parameter) sqlc generates; MySQL refuses them when run (error
// 1136), and the checks after this one refuse them at the row. It
// reports whether the INSERT was refused.
func (a *analyzer) mysqlInsertArity(n *sqlparse.Insert) bool {
	if n.Select == nil {
		return false
	}
	named := len(n.Columns)
	if rows := n.Select.Values; len(rows) == 1 && len(rows[0]) != named {
		if len(rows[0]) > named {
			a.sqlcStmtErrorf("INSERT has more expressions than target columns")
		} else {
			a.sqlcStmtErrorf("INSERT has more target columns than expressions")
		}
		return true
	}
	rows := n.Select.Values
	if len(rows) == 0 && n.Select.SetOp == "" {
		row := make([]sqlparse.Node, len(n.Select.Targets))
		for i, tg := range n.Select.Targets {
			row[i] = tg.Expr
		}
		rows = [][]sqlparse.Node{row}
	}
	for _, row := range rows {
		for i, e := range row {
			if _, ok := e.(*sqlparse.Param); ok && i >= named {
				a.sqlcStmtErrorf("INSERT has more expressions than target columns")
				return true
			}
		}
	}
	return false
}

// dmlScope is the scope of an INSERT, UPDATE or DELETE: a data-modifying
// WITH entry sees the CTEs defined before it.
func dmlScope(outer *scope) *scope {
	sc := &scope{}
	if outer != nil {
		sc.ctes = copyCTEs(outer.ctes)
	}
	return sc
}

func (a *analyzer) insert(outer *scope, n *sqlparse.Insert, q *Query) []*Column {
	sc := dmlScope(outer)
	a.with(sc, n.With)
	t := a.target(sc, n.Table, "INSERT")
	if t == nil {
		return nil
	}
	if q != nil {
		q.InsertTable = t
	}
	var cols []*catalog.Column
	outsideLease := false // the token column is DEFAULT (outsidelease.go)
	if len(n.Columns) == 0 {
		// INSERT INTO t VALUES (...) fills the columns in order, generated
		// ones included (they take DEFAULT; PostgreSQL docs, 5.4
		// "Generated Columns").
		cols = append(cols, t.Columns...)
	}
	for _, ct := range n.Columns {
		c := t.Column(ct.Name)
		if c == nil {
			if insertParamAt(n, len(cols)) {
				// sqlc types a parameter from its target column and
				// refuses the query when that column does not exist.
				a.errorf(ct.Loc, "column %q of relation %q does not exist", ct.Name, t.Name)
			} else {
				// sqlc v1.31.1 resolves an INSERT's target column only
				// for a parameter's type: INSERT ... (a, gone) VALUES
				// (@a, NULL) is generated.
				a.refusedf(ct.Loc, "column %q of relation %q does not exist", ct.Name, t.Name)
			}
			cols = append(cols, nil) // keeps the count for the VALUES check
			continue
		}
		if t.Fence != nil && c.Name == t.Fence.Column && !a.planOnly {
			if !a.createdOutsideLease(n, t, c, len(cols), ct.Loc) {
				a.errorf(ct.Loc, "%sINSERT sets fencing token column %s.%s by hand; fencegen stores the presented token itself: drop the column from the INSERT (or, for rows created outside a lease, write DEFAULT as its value)", a.queryPrefix(), t.QualifiedName(), c.Name)
			} else {
				outsideLease = true
			}
			cols = append(cols, nil)
			continue
		}
		cols = append(cols, c)
	}
	sqlcArity := a.opts.MySQL && a.mysqlInsertArity(n)
	if n.Select != nil {
		if len(n.Select.Values) > 0 {
			for _, row := range n.Select.Values {
				if sqlcArity {
					break
				}
				if len(row) != len(cols) && len(n.Columns) > 0 {
					loc := n.Loc
					if len(row) > 0 {
						loc = row[0].Pos()
					}
					if len(row) > len(cols) {
						a.errorf(loc, "INSERT has more expressions than target columns")
					} else {
						a.errorf(loc, "INSERT has more target columns than expressions")
					}
					continue
				}
				for i, e := range row {
					if i < len(cols) && cols[i] != nil {
						c := cols[i]
						// sqlc resolves no column reference in a VALUES
						// list (only parameters' target columns).
						a.unchecked++
						a.strictly(func() {
							a.insertValue = true
							a.compare(sc, e, columnValue(c))
							a.insertValue = false
						})
						a.unchecked--
						if x, ok := e.(*sqlparse.AExpr); ok && a.swallowers[x] != nil {
							// VALUES (@a + 1): sqlc's parameter is the
							// whole value (findSwallowed), typed as
							// its target column.
							a.sqlcSwallowedAs(a.swallowers[x], columnValue(c))
						}
					}
				}
			}
		} else {
			// INSERT ... SELECT x, $1: a parameter in the list takes its
			// target column's name and type.
			if n.Select.SetOp == "" {
				for i, tg := range n.Select.Targets {
					if p, ok := tg.Expr.(*sqlparse.Param); ok && i < len(cols) && cols[i] != nil {
						c := cols[i]
						a.typeParam(p, columnValue(c), c.Name)
					}
				}
			}
			// sqlc resolves no reference of INSERT ... SELECT's query
			// (outputColumns reads an INSERT's RETURNING only).
			a.unchecked++
			sel := a.selectCols(n.Select, sc)
			a.unchecked--
			if len(sel) != len(cols) && len(n.Columns) > 0 && !sqlcArity {
				a.errorf(n.Loc, "INSERT has %d target columns but the query returns %d", len(cols), len(sel))
			}
		}
	}
	rs := &scope{parent: nil, ctes: sc.ctes}
	rs.rels = []*rel{tableRel(t, n.Alias)}
	if oc := n.OnConflict; oc != nil {
		// sqlc v1.31.1 checks an ON CONFLICT DO UPDATE's conflict
		// columns, SET columns and SET col = EXCLUDED.col references
		// only in an INSERT of one VALUES row (validate.InsertStmt), and
		// a SET column elsewhere only for a parameter assigned to it
		// (resolve.go's ResTarget); it resolves no other reference in
		// SET or WHERE. What it does not check, PostgreSQL or MySQL
		// refuses: a note (refusedf), an error on a fenced table.
		validated := !a.opts.MySQL && oc.DoUpdate && n.Select != nil && len(n.Select.Values) == 1 && len(n.Select.Values[0]) == len(n.Columns)
		missing := false
		for _, name := range oc.Columns {
			if t.Column(name) == nil {
				if validated {
					a.errorf(oc.TargetLoc, "column %q of relation %q does not exist", name, t.Name)
				} else {
					a.refusedf(oc.TargetLoc, "column %q of relation %q does not exist", name, t.Name)
				}
				missing = true
			}
		}
		// The two arbiter checks below apply to fenced tables only: sqlc
		// accepts both, and a schema in a sqlc project often lacks an index
		// that a migration outside it creates (river's unique_key). On a
		// fenced table the guard depends on the arbiter, so it is checked.
		if t.Fence != nil && !a.planOnly && oc.Constraint != "" && !oc.DoUpdate && !t.HasConstraint(oc.Constraint) {
			// PostgreSQL refuses it at PREPARE already (parse analysis).
			a.errorf(oc.Loc, "constraint %q for table %q does not exist (fencegen knows PRIMARY KEY and UNIQUE constraints, named or named by PostgreSQL)", oc.Constraint, t.Name)
		}
		if t.Fence != nil && !a.planOnly && len(oc.Columns) > 0 && !oc.TargetExprs && !missing && !t.ConflictArbiter(oc.Columns) {
			// PostgreSQL accepts it at PREPARE and refuses it when it
			// plans it, at every execution (42P10).
			a.errorf(oc.Loc, "there is no unique or exclusion constraint matching the ON CONFLICT specification: %s has no PRIMARY KEY, UNIQUE constraint or unique index on exactly (%s), so PostgreSQL refuses this INSERT every time it runs; add one in the schema (CREATE UNIQUE INDEX ON %s (%s)), or name the columns of an existing one",
				t.QualifiedName(), strings.Join(oc.Columns, ", "), t.QualifiedName(), strings.Join(oc.Columns, ", "))
		}
		if oc.DoUpdate && oc.TargetLoc < 0 {
			// Reported at the statement, as sqlc does.
			a.errorf(a.stmt.Start, "ON CONFLICT DO UPDATE requires inference specification or constraint name")
		}
		ex := tableRel(t, "excluded")
		cs := &scope{rels: []*rel{tableRel(t, n.Alias), ex}, ctes: sc.ctes}
		if a.opts.MySQL {
			// MySQL's ON DUPLICATE KEY UPDATE has no excluded: a column
			// names the target table's row (n = n + 1), the inserted
			// value is VALUES(n), a call read in the same scope.
			cs = &scope{rels: []*rel{tableRel(t, n.Alias)}, ctes: sc.ctes}
		}
		for _, s := range oc.Set {
			c := t.Column(s.Name)
			if c == nil {
				switch {
				case validated || len(sqlcAssignedParams(s.Expr)) > 0 && !a.opts.MySQL:
					a.errorf(s.Loc, "column %q of relation %q does not exist", s.Name, t.Name)
				case len(sqlcAssignedParams(s.Expr)) > 0:
					a.errorf(s.Loc, "column %q does not exist", s.Name) // sqlc's MySQL message
				default:
					a.refusedf(s.Loc, "column %q of relation %q does not exist", s.Name, t.Name)
					a.unchecked++
					a.expr(cs, s.Expr)
					a.unchecked--
				}
				continue
			}
			if t.Fence != nil && c.Name == t.Fence.Column && !a.planOnly {
				clause := "ON CONFLICT DO UPDATE"
				if a.opts.MySQL {
					clause = "ON DUPLICATE KEY UPDATE"
				}
				a.errorf(s.Loc, "%s%s sets fencing token column %s.%s by hand; fencegen stores the presented token itself", a.queryPrefix(), clause, t.QualifiedName(), c.Name)
			}
			if validated && isExcludedRef(s.Expr) {
				a.assign(cs, s, c)
				continue
			}
			a.unchecked++
			a.assign(cs, s, c)
			a.unchecked--
		}
		if oc.Where != nil {
			a.uncheckedWhere(cs, oc.Where)
		}

	}
	kind := "insert"
	if n.OnConflict != nil && n.OnConflict.DoUpdate {
		kind = "upsert" // the DO UPDATE branch is guarded
	}
	if outsideLease {
		// No token: the row stores the column's default (outsidelease.go).
		a.setsOff(t, fenceEvents(kind), n.Loc)
		a.plainWrites = append(a.plainWrites, n.Loc) // checkWrite lets it pass
		if !slices.Contains(q.CreatesOutsideLease, t) {
			q.CreatesOutsideLease = append(q.CreatesOutsideLease, t)
		}
	} else if !n.MySQLSet || t.Fence == nil {
		// INSERT ... SET of a fenced table is not handed to the guard
		// (no q.Fence): mysqlFenceHandedOver refuses it.
		a.fence(q, t, kind, n.Loc)
	}
	if kind == "upsert" {
		// DO UPDATE is an UPDATE for foreign-key actions: a key it sets
		// runs the ON UPDATE actions of the keys referencing it.
		set := []string{}
		for _, s := range n.OnConflict.Set {
			set = append(set, s.Name)
		}
		a.cascades(t, "update", set, n.Loc)
	}
	if kind == "upsert" && t.Fence != nil && !a.planOnly && n.OnConflict.Constraint != "" {
		cf := a.cteFence
		if q != nil {
			cf = q.Fence
		}
		switch cols := t.ConstraintColumns(n.OnConflict.Constraint); {
		case cols == nil:
			a.errorf(n.OnConflict.Loc, "constraint %q for table %q does not exist (fencegen knows PRIMARY KEY and UNIQUE constraints, named or named by PostgreSQL)", n.OnConflict.Constraint, t.Name)
		case cf != nil && cf.Table == t:
			cf.ConflictColumns = cols
		}
	}
	f := a.cteFence // an upsert in WITH is guarded as one of many rows
	if q != nil {
		f = nil
		if q.Fence != nil && n.Select != nil && (len(n.Select.Values) != 1 || a.setReturningRow(n.Select.Values[0])) {
			f = q.Fence
			f.setReturning = len(n.Select.Values) == 1
		}
	}
	if f != nil && kind == "upsert" && f.Table == t && f.InsertTypes == nil {
		f.ManyRows = true
		for _, ct := range n.Columns {
			if c := t.Column(ct.Name); c != nil {
				f.InsertTypes = append(f.InsertTypes, sqlType(c.Type))
			}
		}
	}
	return a.targets(rs, n.Returning)
}

func (a *analyzer) update(outer *scope, n *sqlparse.Update, q *Query) []*Column {
	sc := dmlScope(outer)
	a.with(sc, n.With)
	t := a.target(sc, n.Table, "UPDATE")
	if t == nil {
		return nil
	}
	sc.rels = []*rel{tableRel(t, n.Alias)}
	a.addFrom(sc, n.From)
	if n.Limit != nil {
		a.limit(sc, &sqlparse.Select{Limit: n.Limit})
	}
	for _, s := range n.Set {
		c := t.Column(s.Name)
		if c == nil {
			if !hasParam(s.Expr) {
				// sqlc resolves a SET column only for a parameter's
				// type: SET is_deleted = TRUE on a table without the
				// column is generated.
				a.refusedf(s.Loc, "column %q of relation %q does not exist", s.Name, t.Name)
				a.unchecked++
				a.expr(sc, s.Expr)
				a.unchecked--
				continue
			}
			if a.opts.MySQL {
				// sqlc's MySQL message names no relation.
				a.errorf(s.Loc, "column %q does not exist", s.Name)
				continue
			}
			a.errorf(s.Loc, "column %q of relation %q does not exist", s.Name, t.Name)
			continue
		}
		if t.Fence != nil && c.Name == t.Fence.Column && !a.planOnly {
			a.errorf(s.Loc, "%sUPDATE sets fencing token column %s.%s by hand; fencegen stores the presented token itself: drop the assignment", a.queryPrefix(), t.QualifiedName(), c.Name)
			continue
		}
		// sqlc resolves a SET value's references only for a parameter's
		// type (resolve.go's ResTarget and A_Expr cases).
		a.unchecked++
		a.assign(sc, s, c)
		a.unchecked--
	}
	if n.Where != nil {
		a.updateWhere = true
		a.uncheckedWhere(sc, n.Where)
		a.updateWhere = false
	}
	for _, o := range n.OrderBy {
		a.sortKey(sc, o, nil) // MySQL's UPDATE ... ORDER BY: the table's columns
	}
	set := []string{} // nil would be any column
	for _, s := range n.Set {
		if !a.opts.MySQL && (selfAssigned(s, n) || selfCast(s, n, t) || selfArith(s, n, t)) {
			// SET id = id: PostgreSQL queues a referenced key's ON
			// UPDATE action only when its value changes
			// (writes.Write.Set).
			continue
		}
		set = append(set, s.Name)
	}
	a.cascades(t, "update", set, n.Loc)
	a.setCols = set
	a.fence(q, t, "update", n.Loc)
	a.setCols = nil
	a.volatileWhere(t, "UPDATE", n.Where)
	for _, f := range n.From {
		a.volatileWhere(t, "UPDATE", f) // UPDATE ... FROM: joined as the WHERE clause is
	}
	if len(n.From) > 0 {
		// Like sqlc, RETURNING * of UPDATE ... FROM lists the FROM items'
		// columns first; the star, spelt out like every star, makes the
		// statement return them in that order.
		rs := &scope{rels: append(append([]*rel{}, sc.rels[1:]...), sc.rels[0]), parent: sc.parent, ctes: sc.ctes}
		sc = rs
	}
	// PostgreSQL analyses RETURNING, too, before the SET list.
	a.updateWhere = true
	defer func() { a.updateWhere = false }()
	return a.targets(sc, n.Returning)
}

func (a *analyzer) delete(outer *scope, n *sqlparse.Delete, q *Query) []*Column {
	sc := dmlScope(outer)
	a.with(sc, n.With)
	t := a.target(sc, n.Table, "DELETE")
	if t == nil {
		return nil
	}
	sc.rels = []*rel{tableRel(t, n.Alias)}
	a.addFrom(sc, n.Using)
	if n.Where != nil {
		a.uncheckedWhere(sc, n.Where)
	}
	for _, o := range n.OrderBy {
		a.sortKey(sc, o, nil) // MySQL's DELETE ... ORDER BY: the table's columns
	}
	if n.Limit != nil {
		a.limit(sc, &sqlparse.Select{Limit: n.Limit})
	}
	a.cascades(t, "delete", nil, n.Loc)
	a.fence(q, t, "delete", n.Loc)
	a.volatileWhere(t, "DELETE", n.Where)
	for _, u := range n.Using {
		a.volatileWhere(t, "DELETE", u)
	}
	if len(n.Using) > 0 {
		// Like sqlc, RETURNING * of DELETE ... USING is the target's
		// columns; spelt out, the statement returns just those.
		a.bareStar = sc.rels[:1]
		defer func() { a.bareStar = nil }()
	}
	return a.targets(sc, n.Returning)
}

// assign types the value of SET column = value, and of SET column[i] = value
// (subscripts are int4, the value is the element type).
func (a *analyzer) assign(sc *scope, s *sqlparse.Target, c *catalog.Column) {
	target := columnValue(c)
	if len(s.Subscripts) > 0 {
		for _, x := range s.Subscripts {
			a.subscript(sc, x, c.Name)
		}
		if target.Type.ArrayDims > 0 {
			target.Type.ArrayDims = 0
			target.Column = nil
		}
	}
	if len(s.Fields) > 0 {
		// SET composite.field = value: the field's type is not modelled.
		a.expr(sc, s.Expr)
		return
	}
	// SET col = COALESCE(@v, col), SET col = CASE WHEN ... THEN @v ELSE
	// ... END: like sqlc, a parameter that is one of the values assigned
	// is named and typed after the column, nullable as it is.
	for _, p := range assignedParams(s.Expr) {
		_, whole := s.Expr.(*sqlparse.Param)
		a.setValue = whole
		a.strictly(func() { a.typeParam(p, target, c.Name) })
		a.setValue = false
	}
	a.strictly(func() { a.compare(sc, s.Expr, target) })
	if !a.opts.MySQL && len(s.Subscripts) > 0 {
		// SET names[$1] = $2: sqlc types a parameter that is a subscript
		// or the value assigned as the whole column (its parent is the
		// assignment's target), []string for both, where PostgreSQL
		// types them int4 and the element type (postgresql_types).
		whole := columnValue(c)
		var ps []*sqlparse.Param
		for _, x := range s.Subscripts {
			if p, ok := x.(*sqlparse.Param); ok {
				ps = append(ps, p)
			}
		}
		for _, x := range append(ps, sqlcAssignedParams(s.Expr)...) {
			p := a.param(x.Number)
			if !p.Known || p.Slice {
				continue
			}
			p.Sqlc = nil
			if sq := sqlcColumnParam(whole); sq.Type != p.Type || sq.NotNull != p.NotNull || sq.Column != p.Column {
				p.Sqlc = sq
			}
		}
		return
	}
	if !a.opts.MySQL {
		// SET value = CASE $1 WHEN true THEN ... END: sqlc types a
		// parameter by the nearest comparison, function call, cast or
		// assignment it is nested in (find_params.go's parent), here the
		// assignment: named and typed as the column, where PostgreSQL
		// types it from the WHEN values (postgresql_types).
		assigned := map[int]bool{}
		for _, p := range assignedParams(s.Expr) {
			assigned[p.Number] = true
		}
		for _, x := range sqlcAssignedParams(s.Expr) {
			p := a.param(x.Number)
			if assigned[x.Number] || !p.Known || p.Sqlc != nil && !p.Sqlc.Any || p.Slice {
				continue
			}
			if !p.Named {
				p.Name = c.Name
			}
			p.Sqlc = nil
			if sq := sqlcColumnParam(target); sq.Type != p.Type || sq.NotNull != p.NotNull || sq.Column != p.Column {
				p.Sqlc = sq
			}
		}
	}
}

// isExcludedRef reports whether e is a reference EXCLUDED.col, which
// sqlc checks in ON CONFLICT DO UPDATE's SET col = EXCLUDED.col.
func isExcludedRef(e sqlparse.Node) bool {
	cr, ok := e.(*sqlparse.ColumnRef)
	return ok && len(cr.Fields) == 2 && strings.EqualFold(cr.Fields[0], "excluded")
}

// sqlcAssignedParams returns the parameters of an assigned expression
// that sqlc types as the assigned column: those not nested in an
// operator, function call or cast (which sqlc types them from), reached
// through CASE (its operand, WHEN conditions and results), COALESCE,
// AND, OR and NOT.
func sqlcAssignedParams(e sqlparse.Node) []*sqlparse.Param {
	var out []*sqlparse.Param
	var visit func(x sqlparse.Node)
	visit = func(x sqlparse.Node) {
		switch n := x.(type) {
		case *sqlparse.Param:
			out = append(out, n)
		case *sqlparse.Coalesce:
			for _, y := range n.Args {
				visit(y)
			}
		case *sqlparse.BoolExpr:
			for _, y := range n.Args {
				visit(y)
			}
		case *sqlparse.Case:
			visit(n.Arg)
			for _, w := range n.Whens {
				visit(w.Cond)
				visit(w.Result)
			}
			visit(n.Else)
		}
	}
	visit(e)
	return out
}

// assignedParams returns the parameters among the values an assigned
// expression can take: e itself, the arguments of COALESCE, and the
// results of CASE, at any depth.
func assignedParams(e sqlparse.Node) []*sqlparse.Param {
	switch n := e.(type) {
	case *sqlparse.Coalesce:
		var out []*sqlparse.Param
		for _, x := range n.Args {
			out = append(out, assignedParams(x)...)
		}
		return out
	case *sqlparse.Case:
		var out []*sqlparse.Param
		for _, w := range n.Whens {
			out = append(out, assignedParams(w.Result)...)
		}
		return append(out, assignedParams(n.Else)...)
	case *sqlparse.Param:
		return []*sqlparse.Param{n}
	}
	return nil
}

// subscript types an array subscript: a parameter there is an int4.
func (a *analyzer) subscript(sc *scope, x sqlparse.Node, hint string) {
	if p, ok := x.(*sqlparse.Param); ok {
		a.typeParam(p, known("int4", true), hint)
		return
	}
	a.expr(sc, x)
}

// didYouMeanRelation is " (did you mean X?)" naming the table or view of
// the catalog closest to n (in n's schema when n is qualified), or "".
func (a *analyzer) didYouMeanRelation(n sqlparse.Name) string {
	var names []string
	for _, s := range a.cat.Schemas {
		if n.Schema != "" && s.Name != n.Schema {
			continue
		}
		for _, t := range s.Tables {
			names = append(names, t.Name)
		}
	}
	if c := config.Closest(n.Name, names); c != "" && c != n.Name {
		c = config.QuoteName(c) // as it must be written
		if n.Schema != "" {
			c = config.QuoteName(n.Schema) + "." + c
		}
		return fmt.Sprintf(" (did you mean %s?)", c)
	}
	return ""
}

// hasParam reports whether e holds a parameter ($n, @name, sqlc.arg).
func hasParam(e sqlparse.Node) bool {
	found := false
	walk(e, func(n sqlparse.Node) {
		if _, ok := n.(*sqlparse.Param); ok {
			found = true
		}
	})
	return found
}

// selfAssigned reports whether SET item s of UPDATE n assigns its column
// the column's own value (SET id = id, SET id = t.id with t the table's
// name or alias).
func selfAssigned(s *sqlparse.Target, n *sqlparse.Update) bool {
	cr, ok := s.Expr.(*sqlparse.ColumnRef)
	if !ok || len(s.Subscripts) > 0 || len(s.Fields) > 0 {
		return false
	}
	name := n.Table.Name
	if n.Alias != "" {
		name = n.Alias
	}
	switch len(cr.Fields) {
	case 1:
		return cr.Fields[0] == s.Name
	case 2:
		return cr.Fields[0] == name && cr.Fields[1] == s.Name
	}
	return false
}

// selfCast reports whether SET item s of UPDATE n of table t assigns its
// column the column's own value cast to the column's own type (SET id =
// id::bigint on a bigint column): PostgreSQL coerces a value to its own
// type, without a type modifier, as a no-op (parse_coerce.c), so the value
// and an ON UPDATE action's key comparison are unchanged (issue 24). Only
// built-in types that take no modifier count, never a domain.
func selfCast(s *sqlparse.Target, n *sqlparse.Update, t *catalog.Table) bool {
	tc, ok := s.Expr.(*sqlparse.TypeCast)
	if !ok || tc.Type == nil || tc.Type.Typmod || tc.Type.ArrayDims > 0 || tc.Type.Schema != "" && tc.Type.Schema != "pg_catalog" {
		return false
	}
	c := t.Column(s.Name)
	if c == nil || c.Type.Schema != "pg_catalog" || c.Type.ArrayDims > 0 || c.Type.Name != tc.Type.Name ||
		!slices.Contains([]string{"int2", "int4", "int8", "text", "bool", "uuid", "date"}, c.Type.Name) {
		return false
	}
	self := *s
	self.Expr = tc.Arg
	return selfAssigned(&self, n)
}

// selfArith reports whether SET item s of UPDATE n of table t assigns its
// integer column (smallint, integer, bigint) the column's own value plus
// or minus the integer constant 0, or times 1 (SET id = id + 0, 0 + id,
// id - 0, id * 1, 1 * id): PostgreSQL's built-in integer operators, which
// pg_catalog's place first in the search path gives those spellings,
// return the same integer, so an ON UPDATE action's key comparison finds
// it unchanged and queues nothing, as for SET id = id (trial r24: SET id
// = id + 0 was refused; PostgreSQL wrote no fenced row). Any other
// expression counts as changing the key.
func selfArith(s *sqlparse.Target, n *sqlparse.Update, t *catalog.Table) bool {
	x, ok := s.Expr.(*sqlparse.AExpr)
	if !ok || x.Kind != "op" || x.Left == nil {
		return false
	}
	c := t.Column(s.Name)
	if c == nil || c.Type.Schema != "pg_catalog" || c.Type.ArrayDims > 0 || !slices.Contains([]string{"int2", "int4", "int8"}, c.Type.Name) {
		return false
	}
	isInt := func(e sqlparse.Node, v string) bool {
		k, ok := e.(*sqlparse.Const)
		return ok && k.Kind == "int" && k.Value == v
	}
	self := func(e sqlparse.Node) bool {
		y := *s
		y.Expr = e
		return selfAssigned(&y, n)
	}
	switch x.Op {
	case "+":
		return self(x.Left) && isInt(x.Right, "0") || isInt(x.Left, "0") && self(x.Right)
	case "-":
		return self(x.Left) && isInt(x.Right, "0")
	case "*":
		return self(x.Left) && isInt(x.Right, "1") || isInt(x.Left, "1") && self(x.Right)
	}
	return false
}

// insertParamAt reports whether the expression at position i of n's
// VALUES rows, or of its SELECT list, is a bare parameter: the one place
// sqlc v1.31.1 looks up an INSERT's target column (find_params.go).
func insertParamAt(n *sqlparse.Insert, i int) bool {
	if n.Select == nil {
		return false
	}
	for _, row := range n.Select.Values {
		if i < len(row) && isParam(row[i]) {
			return true
		}
	}
	if len(n.Select.Values) == 0 && n.Select.SetOp == "" && i < len(n.Select.Targets) {
		return isParam(n.Select.Targets[i].Expr)
	}
	return false
}

// setReturningRow reports whether a VALUES row calls, outside a
// subquery, a function that may return a set (any overload of its name,
// PostgreSQL's or the schema's, is SETOF): PostgreSQL then inserts a row
// for each of its values (INSERT ... VALUES (unnest($1), unnest($2))), so
// an upsert of it is one of many rows (trial F13: guarded as one row, its
// conflict check put unnest() in a WHERE, which PostgreSQL refuses, and
// every call failed).
func (a *analyzer) setReturningRow(row []sqlparse.Node) bool {
	found := false
	for _, x := range row {
		walkPruned(x, func(n sqlparse.Node) bool {
			switch n := n.(type) {
			case *sqlparse.Select:
				return false // a subquery's rows stay in it
			case *sqlparse.FuncCall:
				if a.mayReturnSet(n.Func) {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// mayReturnSet reports whether some function the name may call returns a
// set (SETOF, RETURNS TABLE): one of PostgreSQL's (pg_proc.proretset) or
// the schema's.
func (a *analyzer) mayReturnSet(n sqlparse.Name) bool {
	if n.Schema == "" || n.Schema == "pg_catalog" {
		for _, f := range pgcatalog.Funcs(n.Name) {
			if f.ReturnsSet {
				return true
			}
		}
	}
	for _, f := range a.cat.Funcs(n.Schema, n.Name) {
		if f.ReturnsSet {
			return true
		}
	}
	return false
}
