package catalog

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// Update applies one schema statement of file f to the catalog. Statements
// that do not change the catalog (GRANT, SET, CREATE INDEX, ...) are
// skipped. Problems are added to c.Errors with their location.
func (c *Catalog) Update(f *sqlparse.File, s *sqlparse.Stmt) {
	c.apply(f, s, stmtFile)
}

// apply is Update of a statement written in a schema file (how
// stmtFile), an element of CREATE SCHEMA or a statement a DO block runs
// (code.go), whose problems are not errors: the block may not run it
// (IF, EXCEPTION), and PostgreSQL, not sqlc, reads it.
func (c *Catalog) apply(f *sqlparse.File, s *sqlparse.Stmt, how int) {
	if how == stmtFile && s.MySQL == nil {
		if !c.replaying && c.tx.file != f {
			c.tx = txState{file: f} // a file is a session of its own
		}
		if (&updater{c: c, f: f, s: s}).transaction() {
			return
		}
		c.log = append(c.log, logged{f, s})
	}
	c.seq++
	c.tokenFileStart(f.Name)
	// The relation index (index) is built on lookup for the current seq:
	// one built before this statement changes the catalog (the token
	// line's end of the last file looks tables up) or by a nested
	// statement (a DO block's, CREATE SCHEMA's elements) would be kept
	// after it, at the same seq, without what it created (trial t27h F0:
	// a last schema file's table was missing with a fence key). The
	// index is dropped when the statement ends, and lookups while it
	// runs, nested ones included, read the catalog itself.
	updating := c.cache.updating
	c.cache.updating = true
	defer func() {
		c.cache.updating = updating
		c.cache.idx.Store(nil)
	}()
	if how == stmtCode {
		errs, notes := len(c.Errors), len(c.notes)
		defer func() { c.Errors, c.notes = c.Errors[:errs], c.notes[:notes] }()
	}
	if how == stmtFile && f != c.pathFile {
		// A SET search_path lasts to the end of its file: migration
		// tools run each file in a session (or transaction) of its own.
		c.pathFile, c.searchPath = f, nil
	}
	u := &updater{c: c, f: f, s: s}
	if s.MySQL != nil {
		c.isMySQL = true
		u.mysql(s.Node)
		u.carryMySQL(s.MySQL)
		return
	}
	u.offStrings()
	u.calls()
	u.rowSecurity(how)
	u.triggerStates(how)
	if u.s.Raw.GetCreateStatsStmt() != nil {
		c.HasStatistics = true
	}
	if how == stmtCode && !u.codeStatement(s.Node) {
		return
	}
	switch n := s.Node.(type) {
	case *sqlparse.Select:
		// pg_dump's SELECT pg_catalog.set_config('search_path', '', false).
		if p, ok := setConfigSearchPath(n); ok {
			c.searchPath = p
		}
	case *sqlparse.SetSearchPath:
		switch {
		case n.Default:
			c.searchPath = nil
		case len(n.Schemas) > 0:
			c.searchPath = n.Schemas
		}
	case *sqlparse.CreateTable:
		u.createTable(n)
	case *sqlparse.AlterTable:
		u.alterTable(n)
	case *sqlparse.Rename:
		u.rename(n)
	case *sqlparse.Comment:
		u.comment(n)
	case *sqlparse.CreateEnum:
		u.createEnum(n)
	case *sqlparse.AlterEnum:
		u.alterEnum(n)
	case *sqlparse.Sequence:
		u.sequence(n)
	case *sqlparse.CreateSchema:
		name, ok := u.createSchemaName(n)
		if !ok {
			u.codeErrorf("creates a schema named after the role that runs it (AUTHORIZATION CURRENT_USER or SESSION_USER), which fencegen cannot know: name the schema")
			return
		}
		n.Name = name
		u.createSchema(n)
		u.schemaElements(name)
	case *sqlparse.Drop:
		u.drop(n)
	case *sqlparse.CreateView:
		u.createView(n)
	case *sqlparse.CreateFunction:
		u.createFunction(n)
	case *sqlparse.AlterObjectSchema:
		u.setSchema(n)
	case *sqlparse.CreateComposite:
		u.createComposite(n)
	case *sqlparse.CreateRange:
		u.createRange(n)
	case *sqlparse.CreateDomain:
		u.createDomain(n)
	case *sqlparse.CreateIndex:
		u.createIndex(n)
	case *sqlparse.CreateTrigger:
		u.createTrigger(n)
	case *sqlparse.CreateRule:
		u.createRule(n)
	case *sqlparse.Unknown:
		if do := s.Raw.GetDoStmt(); do != nil {
			u.doBlock(do)
		}
		if af := s.Raw.GetAlterFunctionStmt(); af != nil {
			u.alterFunction(af)
		}
		u.unknownHook(n)
	}
	u.hook(s.Node)
	if s.Raw != nil {
		u.carryPG(s.Raw)
	}
}

type updater struct {
	c *Catalog
	f *sqlparse.File
	s *sqlparse.Stmt
	// refused is the last refusef's message (see alterTable).
	refused string
	// created is the relation a CREATE TABLE or VIEW statement created,
	// nil when it created none (IF NOT EXISTS of one that exists, ON
	// COMMIT DROP, PostgreSQL's error): its hooks (hook) are the new
	// relation's, never another's of the name.
	created *Table
}

func (u *updater) pos(loc int) (int, int) {
	if loc < 0 || loc < u.s.Start || loc > u.s.End {
		loc = u.s.Start
	}
	return diag.Position(u.f.Src, loc)
}

func (u *updater) errorf(loc int, sentinel error, format string, args ...any) {
	line, col := u.pos(loc)
	u.c.Errors.AddErr(&diag.Error{File: u.f.Name, Line: line, Col: col, Err: sentinel, Msg: fmt.Sprintf(format, args...)})
}

func (u *updater) schemaFor(name string, loc int) *Schema {
	s := u.c.Schema(name)
	if s == nil && name == "pg_temp" {
		// The session's temporary schema always exists.
		s = &Schema{Name: name}
		u.c.Schemas = append(u.c.Schemas, s)
	}
	if s == nil {
		u.errorf(loc, ErrNotFound, "schema %q does not exist", name)
	}
	return s
}

func (u *updater) table(n sqlparse.Name) *Table {
	t := u.c.Table(n.Schema, n.Name)
	if t == nil {
		u.errorf(n.Loc, ErrNotFound, "relation %q does not exist", n.String())
	}
	return t
}

// userTable is table for statements that change the table: the system
// catalogs are not changed.
func (u *updater) userTable(n sqlparse.Name, missingOK bool) *Table {
	t := u.c.Table(n.Schema, n.Name)
	if t == nil || t.IsSystem() {
		if !missingOK && t == nil {
			u.errorf(n.Loc, ErrNotFound, "relation %q does not exist", n.String())
		}
		return nil
	}
	return t
}

// newType returns the schema a new type goes in, or nil after reporting
// that the schema does not exist or the name is taken.
func (u *updater) newType(n sqlparse.Name) *Schema {
	s := u.schemaFor(n.Schema, n.Loc)
	if s == nil {
		return nil
	}
	if u.c.Enum(s.Name, n.Name) != nil || u.c.UserType(s.Name, n.Name) != nil {
		u.errorf(n.Loc, ErrExists, "type %q already exists", n.String())
		return nil
	}
	return s
}

// notef adds a note (see Catalog.Notes) at loc.
func (u *updater) notef(loc int, format string, args ...any) {
	line, col := u.pos(loc)
	u.c.notes.AddErr(&diag.Error{File: u.f.Name, Line: line, Col: col, Err: ErrNotFound, Msg: "note: " + fmt.Sprintf(format, args...)})
}

// refusef notes, at loc, a statement PostgreSQL refuses for a reason
// sqlc does not check (a constraint's columns, a second primary key,
// identity rules): like sqlc, fencegen goes on, without the statement's
// change to what the catalog models. format is PostgreSQL's message.
func (u *updater) refusef(loc int, format string, args ...any) {
	server := "PostgreSQL"
	if u.s.MySQL != nil {
		server = "MariaDB/MySQL"
	}
	u.refused = fmt.Sprintf(format, args...)
	u.notef(loc, "%s: %s refuses this statement; its change is left out", u.refused, server)
}

// resolveType is Catalog.ResolveType for a type written in the schema: a
// type PostgreSQL does not know is a note, not an error, and keeps its
// name as written (sqlc goes on, and types its columns interface{}).
func (u *updater) resolveType(tn *sqlparse.TypeName, loc int) Type {
	typ, ok := u.c.ResolveType(tn)
	if !ok && tn != nil {
		if tn.Loc >= 0 {
			loc = tn.Loc
		}
		line, col := u.pos(loc)
		u.c.notes.AddErr(&diag.Error{File: u.f.Name, Line: line, Col: col, Err: &UnknownTypeError{Type: typ},
			Msg: fmt.Sprintf("note: type %q does not exist; its values are typed interface{}", typ.String())})
	}
	return typ
}

// UnknownTypeError is the Err of the note (Catalog.Notes) for a type the
// schema names and PostgreSQL does not know: its columns keep the name as
// written, which sqlc's Go type mapping may still know (blob is []byte),
// so the note's text ("typed interface{}") is what the catalog alone can
// say; a caller that knows the Go mapping rewrites it (gen). It matches
// ErrNotFound under errors.Is.
type UnknownTypeError struct {
	Type Type
}

func (e *UnknownTypeError) Error() string {
	return fmt.Sprintf("type %q does not exist", e.Type.String())
}

func (e *UnknownTypeError) Unwrap() error { return ErrNotFound }

// dbType is Column.DBType for tn.
func dbType(tn *sqlparse.TypeName) string {
	switch {
	case tn == nil:
		return ""
	case tn.Schema == MySQLSchema:
		return tn.Name // sqlc's db_type for MySQL: the type's name
	case tn.Schema != "":
		return tn.Schema + "." + tn.Name
	case tn.SqlcSchema != "":
		return tn.SqlcSchema + "." + tn.Name
	}
	return tn.Name
}

// mysqlScale is Column.Scale for a column of type tn.
func mysqlScale(tn *sqlparse.TypeName) int {
	if tn == nil || tn.Schema != MySQLSchema || tn.ArrayDims > 0 {
		return 0
	}
	switch strings.ToLower(tn.Name) {
	case "decimal", "dec", "numeric", "fixed", "datetime", "timestamp", "time":
		return tn.Scale
	}
	return 0
}

// mysqlPrecision is Column.Precision for a column of type tn.
func mysqlPrecision(tn *sqlparse.TypeName) int {
	if tn == nil || tn.Schema != MySQLSchema || tn.ArrayDims > 0 {
		return 0
	}
	switch strings.ToLower(tn.Name) {
	case "decimal", "dec", "numeric", "fixed":
		if tn.Length > 0 {
			return tn.Length
		}
		return 10
	}
	return 0
}

func (u *updater) column(d *sqlparse.ColumnDef, t *Table) *Column {
	c := u.newColumn(d, t)
	if c != nil {
		line, col := u.pos(d.Loc)
		c.addedAt, c.addedAck = &diag.Error{File: u.f.Name, Line: line, Col: col}, u.ackReset()
	}
	return c
}

// newColumn is column without the location.
func (u *updater) newColumn(d *sqlparse.ColumnDef, t *Table) *Column {
	if d.Type != nil && len(d.Type.Values) > 0 {
		return u.mysqlEnumColumn(d, t)
	}
	typ := u.resolveType(d.Type, d.Loc)
	att, dom := d.NotNull || d.PrimaryKey, u.c.DomainNotNull(d.Type)
	// PostgreSQL stores no DEFAULT NULL, unless a domain's default is to
	// be overridden or the type's modifier makes a length coercion of it
	// (PostgreSQL source, AddRelationNewConstraints).
	hasDefault := d.HasDefault && !(d.DefaultNull && d.Type != nil && !d.Type.Typmod && !u.c.isDomain(d.Type))
	c := &Column{Name: d.Name, Type: typ, DBType: dbType(d.Type), Precision: mysqlPrecision(d.Type), Scale: mysqlScale(d.Type), typmod: d.Type != nil && d.Type.Typmod, NotNull: att || dom, attNotNull: att, domainNotNull: dom, HasDefault: hasDefault, Sequence: d.Serial,
		Generated: d.Generated, GeneratedVirtual: d.GeneratedVirtual, Identity: d.Identity, IdentityAlways: d.IdentityAlways, AutoIncrement: d.AutoIncrement, Table: t, defaultAtMost1: d.DefaultAtMost1,
		domains: u.c.domainChain(d.Type)}
	if d.IdentityNotNull && !dom {
		// An identity column is NOT NULL in PostgreSQL; sqlc v1.31.1's
		// catalog reads NOT NULL only from the constraint, so it types
		// the column nullable (pgtype.Int8, sql.NullInt64): Column.Sqlc
		// keeps that typing for the API of a configuration sqlc reads,
		// postgresql_types declares PostgreSQL's (issue 23, F2). A
		// table-level PRIMARY KEY or SET NOT NULL makes it sqlc's NOT
		// NULL too.
		keepSqlcNullable([]*Column{c})
	}
	return c
}

// setConfigSearchPath reads SELECT set_config('search_path', 'list',
// is_local) with constant arguments: the schemas of the list (a
// comma-separated list of names, plain ones folded to lower case, quoted
// ones as written; PostgreSQL's SplitIdentifierString).
func setConfigSearchPath(n *sqlparse.Select) ([]string, bool) {
	if len(n.Targets) != 1 || len(n.From) > 0 {
		return nil, false
	}
	fc, ok := n.Targets[0].Expr.(*sqlparse.FuncCall)
	if !ok || fc.Func.Name != "set_config" || fc.Func.Schema != "" && fc.Func.Schema != "pg_catalog" || len(fc.Args) != 3 {
		return nil, false
	}
	name, ok1 := fc.Args[0].(*sqlparse.Const)
	value, ok2 := fc.Args[1].(*sqlparse.Const)
	if !ok1 || !ok2 || name.Kind != "string" || value.Kind != "string" || name.Value != "search_path" {
		return nil, false
	}
	var out []string
	for _, part := range strings.Split(value.Value, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
		case len(part) >= 2 && part[0] == '"' && part[len(part)-1] == '"':
			out = append(out, strings.ReplaceAll(part[1:len(part)-1], `""`, `"`))
		default:
			out = append(out, strings.ToLower(part))
		}
	}
	return out, true
}

// pathSchema reports whether an object written without a schema (written
// "") went to s through a SET search_path, where sqlc, which does not
// read SET, has it in the default schema.
func (u *updater) pathSchema(written string, s *Schema) bool {
	return written == "" && len(u.c.searchPath) > 0 && s.Name != DefaultSchema && s.Name != "pg_temp"
}

// triggerStates records ALTER TABLE ... DISABLE TRIGGER (name, ALL,
// USER) and ENABLE [ALWAYS | REPLICA] TRIGGER (Trigger.Disabled), and
// DISABLE and ENABLE [ALWAYS | REPLICA] RULE (Rule.Disabled; a view's
// _RETURN rule is left alone): a
// disabled trigger fires in no session, whatever its
// session_replication_role; one enabled for replica sessions counts as
// firing (fencegen does not know the sessions' role). A DISABLE in code
// that may not run (how == stmtCode) is not recorded, nor one of a
// partitioned table or a partition, whose cloned triggers PostgreSQL
// versions enable and disable apart.
func (u *updater) triggerStates(how int) {
	at := u.s.Raw.GetAlterTableStmt()
	if at == nil || at.Relation == nil || at.Objtype != pg.ObjectType_OBJECT_TABLE {
		return
	}
	t := u.c.Table(at.Relation.Schemaname, at.Relation.Relname)
	if t == nil || t.IsView {
		return
	}
	setRule := func(name string, disabled bool) {
		if disabled && how == stmtCode {
			return
		}
		for _, r := range t.Rules {
			if r.Name == name && r.Event != "SELECT" {
				r.Disabled = disabled
			}
		}
	}
	set := func(name string, disabled bool) {
		if disabled && (how == stmtCode || t.Partitioned || t.partitionOf != nil) {
			return
		}
		for _, tr := range t.Triggers {
			if name == "" || tr.Name == name {
				tr.Disabled = disabled
			}
		}
	}
	for _, c := range at.Cmds {
		cmd := c.GetAlterTableCmd()
		switch cmd.GetSubtype() {
		case pg.AlterTableType_AT_DisableTrig:
			set(cmd.GetName(), true)
		case pg.AlterTableType_AT_DisableTrigAll, pg.AlterTableType_AT_DisableTrigUser:
			set("", true)
		case pg.AlterTableType_AT_EnableTrig, pg.AlterTableType_AT_EnableAlwaysTrig, pg.AlterTableType_AT_EnableReplicaTrig:
			set(cmd.GetName(), false)
		case pg.AlterTableType_AT_EnableTrigAll, pg.AlterTableType_AT_EnableTrigUser:
			set("", false)
		case pg.AlterTableType_AT_DisableRule:
			setRule(cmd.GetName(), true)
		case pg.AlterTableType_AT_EnableRule, pg.AlterTableType_AT_EnableAlwaysRule, pg.AlterTableType_AT_EnableReplicaRule:
			setRule(cmd.GetName(), false)
		}
	}
}

// rowSecurity records ALTER TABLE ... ENABLE / DISABLE ROW LEVEL
// SECURITY (Table.RowSecurity); a DISABLE in code that may not run
// (how == stmtCode) leaves it set.
func (u *updater) rowSecurity(how int) {
	at := u.s.Raw.GetAlterTableStmt()
	if at == nil || at.Relation == nil || at.Objtype != pg.ObjectType_OBJECT_TABLE {
		return
	}
	t := u.c.Table(at.Relation.Schemaname, at.Relation.Relname)
	if t == nil || t.IsView {
		return
	}
	for _, c := range at.Cmds {
		switch c.GetAlterTableCmd().GetSubtype() {
		case pg.AlterTableType_AT_EnableRowSecurity:
			t.RowSecurity = true
		case pg.AlterTableType_AT_DisableRowSecurity:
			if how != stmtCode {
				t.RowSecurity = false
			}
		}
	}
}
