package analyze

import (
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/writes"
)

// ddlResolution says what a schema statement in a query file can do to
// what the other queries' names resolve to, or to what writing a relation
// reaches (issue 24). fencegen reads the schema from the schema files
// only; a query file's DDL runs on a connection, and a pool hands that
// connection (its temporary objects, its search_path) to every later
// query, in any order. So a statement that can give a name a relation
// through which a fenced table is written, or make a fenced table
// reachable through a relation, is refused while the schema has a fenced
// table; what cannot is accepted.
type ddlResolution int

const (
	// ddlKeeps statements give no name a new relation and attach nothing
	// to a fenced table (types, sequences, indexes, comments; their
	// function calls are checked by queryDDL).
	ddlKeeps ddlResolution = iota + 1
	// ddlRelation statements create, replace, rename, move or re-parent a
	// relation: refused when writing the relation may write a fenced
	// table (queryDDLResolution reads the statement).
	ddlRelation
	// ddlRefused statements can change what calls and names run
	// (functions, triggers, rules, operators, schemas with elements): refused
	// while the schema has a fenced table (queryDDL, or here).
	ddlRefused
)

// ddlKinds classifies every schema statement kind of pg_query's tree
// (writes.Classes' Schema class; TestQueryDDLKindsClassified fails on one
// missing).
var ddlKinds = map[string]ddlResolution{
	"CreateStmt": ddlRelation, "ViewStmt": ddlRelation, "AlterTableStmt": ddlRelation,
	"RenameStmt": ddlRelation, "AlterObjectSchemaStmt": ddlRelation,
	"CreateForeignTableStmt": ddlRefused, "CreateSchemaStmt": ddlRelation,
	"IndexStmt": ddlKeeps, "CommentStmt": ddlKeeps, "CreateEnumStmt": ddlKeeps, "AlterEnumStmt": ddlKeeps,
	"CompositeTypeStmt": ddlKeeps, "CreateDomainStmt": ddlKeeps, "CreateRangeStmt": ddlKeeps,
	"CreateSeqStmt": ddlKeeps, "AlterSeqStmt": ddlKeeps, "DropStmt": ddlKeeps,
	"CreateFunctionStmt": ddlRefused, "CreateTrigStmt": ddlRefused, "RuleStmt": ddlRefused,
	"DefineStmt": ddlKeeps,
}

// belongs ends a refusal of a schema statement in a query.
const belongs = "schema changes belong in the schema files (migrations), which fencegen reads"

// queryDDLResolution refuses a schema statement of a query file that can
// make a name resolve to a relation through which a fenced table is
// written, or make a fenced table reachable through a relation: CREATE
// [OR REPLACE] [TEMP] VIEW over such a relation (a temporary one shadows
// every other relation of its name on the connection), ALTER ... RENAME
// and SET SCHEMA of one (or of a schema holding one), CREATE TABLE ...
// INHERITS or PARTITION OF a fenced table, ALTER TABLE ... INHERIT a
// fenced table or ATTACH PARTITION of one, a foreign table (PostgreSQL
// sends its writes elsewhere, maybe back here), and a schema created with
// elements. A kind ddlKinds does not classify is refused.
func (a *analyzer) queryDDLResolution(q *Query) {
	if a.stmt.Raw == nil || len(a.cat.FencedTables()) == 0 {
		return
	}
	n := unwrapRaw(a.stmt.Raw)
	kind := nodeKind(n)
	if writes.Classes[kind] != writes.Schema {
		return // CREATE TABLE ... AS, SET, ...: not a schema statement
	}
	class, ok := ddlKinds[kind]
	if !ok {
		a.refuseAnyFenced(a.stmt.Start, "query %s is a schema statement (PostgreSQL's %s) that fencegen does not classify, so it cannot show that it leaves the other queries' names and the fenced tables alone; %s", q.Name, kind, belongs)
		return
	}
	if class != ddlRelation {
		if kind == "CreateForeignTableStmt" {
			a.refuseAnyFenced(a.stmt.Start, "query %s creates a foreign table, whose writes PostgreSQL sends to another server, which may be this database (postgres_fdw), and which can take the name of a relation the other queries write; %s", q.Name, belongs)
		}
		return
	}
	// reach refuses when writing relation named nm may write a fenced
	// table; how says what the statement does with it.
	// A fenced table renamed or moved is refused by queryDDL, with what
	// that does to its rows.
	reach := func(nm sqlparse.Name, how string) {
		if nm.Name == "" {
			return
		}
		renamed := strings.HasPrefix(how, "renames") || strings.HasPrefix(how, "moves")
		for _, u := range a.sameNameAll(nm) {
			if renamed && u == a.cat.Table(nm.Schema, nm.Name) && u.Fence != nil {
				return
			}
			if w, ok := a.relationWrites(u); ok {
				through := ", through which a write " + w.describe() + " without the guard"
				if w.table == u {
					through = ": a write through it writes " + u.FullName() + " without the guard"
				}
				a.refuseHidden(a.stmt.Start, w, "query %s %s %s %s%s, and later queries on the connection (a pool hands it on, with its temporary objects and settings) can write it by a name that fencegen's analysis of them resolves otherwise; %s",
					q.Name, how, relKind(u), u.FullName(), through, belongs)
				return
			}
		}
	}
	switch s := n.Node.(type) {
	case *pg.Node_ViewStmt:
		v, ok := a.stmt.Node.(*sqlparse.CreateView)
		if !ok {
			a.refuseAnyFenced(a.stmt.Start, "query %s creates a view fencegen could not read, which may take the name of a relation the other queries write; %s", q.Name, belongs)
			return
		}
		if v.Base == nil {
			return // not automatically updatable: a write of it fails
		}
		reach(*v.Base, "creates view "+s.ViewStmt.View.Relname+" over")
	case *pg.Node_CreateStmt:
		for _, e := range s.CreateStmt.TableElts {
			if lc := e.GetTableLikeClause(); lc != nil && lc.Relation != nil {
				a.likeReach(q, s.CreateStmt.Relation.Relname, nameOfRV(lc.Relation), "creates table %s LIKE")
			}
		}
		for _, p := range s.CreateStmt.InhRelations {
			if rv := p.GetRangeVar(); rv != nil {
				howf := "creates table %s as an INHERITS child of"
				if s.CreateStmt.Partbound != nil {
					howf = "creates table %s as a partition of"
				}
				how := fmt.Sprintf(howf, s.CreateStmt.Relation.Relname)
				a.parentReach(q, nameOfRV(rv), how)
				// The child gets the parent's defaults and CHECKs, as
				// LIKE ... INCLUDING ALL copies them.
				a.likeReach(q, s.CreateStmt.Relation.Relname, nameOfRV(rv), howf)
				if s.CreateStmt.Partbound != nil && !a.errAt[a.stmt.Start] {
					// A partition gets its parent's row triggers (clones).
					reach(nameOfRV(rv), how)
				}
			}
		}
	case *pg.Node_AlterTableStmt:
		at := s.AlterTableStmt
		for _, c := range at.Cmds {
			cmd := c.GetAlterTableCmd()
			if cmd == nil {
				continue
			}
			switch cmd.Subtype {
			case pg.AlterTableType_AT_AddInherit:
				if rv := cmd.Def.GetRangeVar(); rv != nil {
					a.parentReach(q, nameOfRV(rv), "makes "+at.Relation.Relname+" an INHERITS child of")
				}
			case pg.AlterTableType_AT_AttachPartition:
				if pc := cmd.Def.GetPartitionCmd(); pc != nil && pc.Name != nil {
					reach(nameOfRV(pc.Name), "attaches to "+at.Relation.Relname+", as a partition,")
					if !a.errAt[a.stmt.Start] {
						// The partition gets the parent's row triggers
						// (clones), which a write named on it then fires.
						reach(nameOfRV(at.Relation), "attaches "+pc.Name.Relname+" as a partition of")
					}
				}
			}
		}
		a.alterTableCmds(q, at)
	case *pg.Node_RenameStmt:
		r := s.RenameStmt
		switch r.RenameType {
		case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_MATVIEW, pg.ObjectType_OBJECT_FOREIGN_TABLE:
			reach(nameOfRV(r.Relation), "renames to "+r.Newname)
		case pg.ObjectType_OBJECT_SCHEMA:
			a.schemaReach(q, r.Subname, "renames schema "+r.Subname+" to "+r.Newname+", which holds")
		case pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_PROCEDURE, pg.ObjectType_OBJECT_ROUTINE, pg.ObjectType_OBJECT_AGGREGATE,
			pg.ObjectType_OBJECT_TYPE, pg.ObjectType_OBJECT_DOMAIN:
			a.refuseAnyFenced(a.stmt.Start, "query %s renames %s, which changes what the queries that name it call, unseen by fencegen's analysis of them; %s", q.Name, diag.A(objectWord(r.RenameType)), belongs)
		}
	case *pg.Node_AlterObjectSchemaStmt:
		o := s.AlterObjectSchemaStmt
		switch o.ObjectType {
		case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_MATVIEW, pg.ObjectType_OBJECT_FOREIGN_TABLE:
			reach(nameOfRV(o.Relation), "moves to schema "+o.Newschema)
		case pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_PROCEDURE, pg.ObjectType_OBJECT_ROUTINE, pg.ObjectType_OBJECT_AGGREGATE,
			pg.ObjectType_OBJECT_TYPE, pg.ObjectType_OBJECT_DOMAIN, pg.ObjectType_OBJECT_OPERATOR:
			a.refuseAnyFenced(a.stmt.Start, "query %s moves %s to schema %s, which changes what the queries that name it call, unseen by fencegen's analysis of them; %s", q.Name, diag.A(objectWord(o.ObjectType)), o.Newschema, belongs)
		}
	case *pg.Node_CreateSchemaStmt:
		if len(s.CreateSchemaStmt.SchemaElts) > 0 {
			a.refuseAnyFenced(a.stmt.Start, "query %s creates schema %s with objects in it (tables, views, triggers), which fencegen does not analyse in a query file; %s", q.Name, s.CreateSchemaStmt.Schemaname, belongs)
		}
	}
}

// shadowingRelation refuses a relation that a query creates (CREATE
// TABLE, CREATE TABLE ... AS, SELECT ... INTO, CREATE VIEW) named as a
// fenced table of another schema, or temporary (pg_temp comes first in
// the search_path): on the connection (a pool hands it on) the later
// queries that name the fenced table unqualified, guarded ones too,
// write the new relation, report success and leave the fenced table
// alone; a stale holder's hand-written write there passes no guard.
func (a *analyzer) shadowingRelation(q *Query) {
	if a.stmt.Raw == nil || a.planOnly || len(a.cat.FencedTables()) == 0 {
		return
	}
	n := unwrapRaw(a.stmt.Raw)
	var rv *pg.RangeVar
	switch s := n.Node.(type) {
	case *pg.Node_CreateStmt:
		rv = s.CreateStmt.Relation
	case *pg.Node_CreateTableAsStmt:
		rv = s.CreateTableAsStmt.GetInto().GetRel()
	case *pg.Node_SelectStmt:
		rv = s.SelectStmt.GetIntoClause().GetRel()
	case *pg.Node_ViewStmt:
		rv = s.ViewStmt.View
	}
	if rv == nil {
		return
	}
	for _, t := range a.cat.FencedTables() {
		if t.Name != rv.Relname || (rv.Schemaname == t.Schema && rv.Relpersistence != "t") {
			continue
		}
		a.refuseFenced(a.stmt.Start, t, "query %s creates relation %s, named as fenced table %s: on the connection (a pool hands it on, with its temporary objects) the later queries that name %s without a schema write it instead (a temporary relation comes first in the search_path), so a guarded write reports success without writing the fenced table; %s",
			q.Name, rv.Relname, t.FullName(), rv.Relname, belongs)
		return
	}
}

// parentReach refuses making a table an INHERITS child or a partition of
// parent when parent is fenced: the child's rows are rows of the fenced
// table, and a write named on the child, which fencegen takes for an
// unfenced table, writes them without the guard.
func (a *analyzer) parentReach(q *Query, parent sqlparse.Name, how string) {
	for _, p := range a.sameNameAll(parent) {
		if p.Fence != nil {
			a.refuseFenced(a.stmt.Start, p, "query %s %s fenced table %s: its rows become rows of %s, and a write named on it, which fencegen's analysis of the other queries takes for an unfenced table, writes them without the guard; schema changes belong in the schema files (migrations), which fencegen reads (a child or partition created there is fenced with its parent)",
				q.Name, how, p.FullName(), p.FullName())
			return
		}
	}
}

// likeReach refuses CREATE TABLE name (LIKE src ...) when src's column
// defaults, CHECKs, generated columns or index expressions (which LIKE
// copies with INCLUDING ...) may write a fenced table: a write named on
// the new table, which fencegen's analysis of the other queries does not
// know, would run them. Counted whatever the INCLUDING options say. An
// INHERITS child or a partition gets them too. how spells what the
// statement does, %s the new table's name.
func (a *analyzer) likeReach(q *Query, name string, src sqlparse.Name, how string) {
	if a.funcs == nil {
		return
	}
	for _, u := range a.sameNameAll(src) {
		a.funcs.mu.Lock()
		ws := a.funcs.tableWritesLocked(u, []string{"INSERT", "UPDATE"}, nil, nil, nil, false, true, false)
		a.funcs.mu.Unlock()
		if len(ws) > 0 {
			a.refuseHidden(a.stmt.Start, ws[0], "query %s %s %s, whose defaults, CHECKs or index expressions it may copy, through which a write %s without the guard, and later queries on the connection can write it by a name that fencegen's analysis of them resolves otherwise; schema changes belong in the schema files (migrations), which fencegen reads",
				q.Name, fmt.Sprintf(how, name), u.FullName(), ws[0].describe())
			return
		}
	}
}

// schemaReach refuses a change to schema name when it holds a relation
// through which a fenced table is written.
func (a *analyzer) schemaReach(q *Query, name, how string) {
	s := a.cat.Schema(name)
	if s == nil {
		return
	}
	for _, u := range s.Tables {
		if w, ok := a.relationWrites(u); ok {
			a.refuseHidden(a.stmt.Start, w, "query %s %s %s %s, through which a write %s without the guard, and changes what the other queries' names resolve to, unseen by fencegen's analysis of them; schema changes belong in the schema files (migrations), which fencegen reads",
				q.Name, how, relKind(u), u.FullName(), w.describe())
			return
		}
	}
}

// sameNameAll is the relation nm resolves to and, written without a
// schema, every relation of its name in another schema.
func (a *analyzer) sameNameAll(nm sqlparse.Name) []*catalog.Table {
	var out []*catalog.Table
	t := a.cat.Table(nm.Schema, nm.Name)
	if t != nil {
		out = append(out, t)
	}
	return append(out, a.cat.SameNamed(nm, t)...)
}

// relationWrites reports whether an INSERT, UPDATE or DELETE of relation
// u may write a fenced table, with the first such write: u fenced, a
// fenced partition or child, a view's base relation, rules and INSTEAD
// OF triggers, a table's triggers, rules, defaults and foreign-key
// actions.
func (a *analyzer) relationWrites(u *catalog.Table) (hiddenWrite, bool) {
	if u.Fence != nil {
		return hiddenWrite{table: u, verb: "UPDATE"}, true
	}
	if a.funcs == nil {
		return hiddenWrite{}, false
	}
	events := []string{"INSERT", "UPDATE", "DELETE"}
	for _, verb := range events {
		if d := reachedBy(a.cat, u, verb, false); len(d) > 0 {
			return hiddenWrite{table: d[0], verb: verb, path: []string{verb + " on " + u.FullName() + ", whose " + descendantKind(u, d[0]) + " " + d[0].QualifiedName() + " is fenced"}}, true
		}
	}
	a.funcs.mu.Lock()
	defer a.funcs.mu.Unlock()
	ws := a.funcs.tableWritesLocked(u, events, nil, nil, nil, true, false, false)
	if u.IsView {
		for _, verb := range events {
			ws = append(ws, a.funcs.viewBaseWritesLocked(u, verb, []string{verb}, nil)...)
		}
	}
	if len(ws) == 0 {
		return hiddenWrite{}, false
	}
	return ws[0], true
}

// describe says what w writes, for "a write ... without the guard".
func (w hiddenWrite) describe() string {
	if w.table == nil {
		return "may write a fenced table (" + w.unknown + ")"
	}
	s := "runs " + w.verb + " on fenced table " + w.table.QualifiedName()
	if st := w.steps(); len(st) > 0 {
		s += " (" + strings.Join(st, " → ") + ")"
	}
	return s
}

func nameOfRV(rv *pg.RangeVar) sqlparse.Name {
	if rv == nil {
		return sqlparse.Name{Loc: -1}
	}
	return sqlparse.Name{Schema: rv.Schemaname, Name: rv.Relname, Loc: int(rv.Location)}
}

func objectWord(t pg.ObjectType) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(t.String(), "OBJECT_")), "_", " ")
}

// nodeKind is the name of n's statement message ("ViewStmt").
func nodeKind(n *pg.Node) string {
	if n == nil || n.Node == nil {
		return ""
	}
	k := fmt.Sprintf("%T", n.Node) // *pg_query.Node_ViewStmt
	return k[strings.LastIndex(k, "Node_")+len("Node_"):]
}

// noteSearchPath notes a query that sets search_path (SET, SET LOCAL,
// set_config; writes.Report.SearchPaths) to a path under which an
// unqualified name resolves to a relation other than the one fencegen
// resolves it to, through which a fenced table is written (issue 24: SET
// search_path = app, public, with view app.gadgets over fenced
// app.widgets beside table public.gadgets). The setting lasts for the
// session (SET LOCAL: the transaction), which on a pooled connection
// outlives the query. fencegen refuses its generated queries' writes of
// such a name written unqualified (shadowed), so they stay guarded or
// refused; hand-written SQL on that connection is not checked, hence a
// note. A value that is not a constant counts as any path.
func (a *analyzer) noteSearchPath(q *Query) {
	if a.rep == nil || a.funcs == nil {
		return
	}
	for _, sp := range a.rep.SearchPaths {
		if sp.Default {
			continue
		}
		var schemas []*catalog.Schema
		path := "a value fencegen cannot read"
		if sp.Known {
			path = strings.Join(sp.Schemas, ", ")
			for _, n := range sp.Schemas {
				if s := a.cat.Schema(n); s != nil {
					schemas = append(schemas, s)
				}
			}
		} else {
			schemas = a.cat.Schemas
		}
		for _, s := range schemas {
			for _, u := range s.Tables {
				if u.IsSequence || a.cat.Table("", u.Name) == u {
					continue
				}
				w, ok := a.relationWrites(u)
				if !ok {
					continue
				}
				line, col := diagPos(a, sp.Loc)
				q.Notes = append(q.Notes, fmt.Sprintf("%s:%d:%d: note: query %s sets search_path to %s: for the rest of the session (SET LOCAL: of the transaction), on a pooled connection for later queries too, an unqualified %s may name %s %s, through which a write %s without the guard; fencegen refuses its generated queries' unqualified writes of a name that such a relation shares, but hand-written SQL on that connection is not checked: qualify names, or set the search_path in the schema files and the connection string",
					a.file.Name, line, col, q.Name, path, u.Name, relKind(u), u.FullName(), w.describe()))
				return
			}
		}
	}
}

// diagPos is the line and column of offset loc of the query's file.
func diagPos(a *analyzer, loc int) (int, int) {
	return diag.Position(a.file.Src, a.clampLoc(loc))
}

// createsFreshRelation reports whether the statement is CREATE TABLE or
// CREATE VIEW (temporary or not) of a relation whose name no query can
// reach another way than fencegen sees: no relation of the schema has or
// had the name (in any schema: a temporary relation comes first in the
// search_path, and a new one may come before the schema's), no function
// body names it (a body's names resolve when it runs, unlike those of
// views, rules, triggers and defaults, which PostgreSQL binds when they
// are created), and no other sql entry shares the database (its queries
// name relations this catalog does not know). A later query of the
// entry that names it is an error (the relation does not exist in the
// schema), so what its definition calls (a view's query, a column's
// DEFAULT or CHECK) runs for no query fencegen passes; creating it runs
// none of that (issue 24, precision).
func (a *analyzer) createsFreshRelation() bool {
	if a.stmt.Raw == nil || a.funcs == nil || a.cat.SharesDatabase() {
		return false
	}
	n := unwrapRaw(a.stmt.Raw)
	var rv *pg.RangeVar
	switch s := n.Node.(type) {
	case *pg.Node_CreateStmt:
		rv = s.CreateStmt.Relation
	case *pg.Node_ViewStmt:
		if s.ViewStmt.Replace {
			return false
		}
		rv = s.ViewStmt.View
	}
	if rv == nil || rv.Relname == "" {
		return false
	}
	name := strings.ToLower(rv.Relname)
	for _, s := range a.cat.Schemas {
		for _, t := range s.Tables {
			if strings.ToLower(t.Name) == name || slices.Contains(t.Former, name) {
				return false
			}
		}
	}
	a.funcs.mu.Lock()
	defer a.funcs.mu.Unlock()
	re := a.funcs.wordRE(rv.Relname)
	for _, s := range a.cat.Schemas {
		for _, f := range s.Funcs {
			if re.MatchString(f.Body) {
				return false
			}
		}
	}
	return true
}
