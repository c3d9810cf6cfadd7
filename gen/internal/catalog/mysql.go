package catalog

// MySQL schemas (engine mysql): the statements mysqlparse converts, read
// as sqlc v1.31.1's catalog reads MySQL, and MySQL's built-in types.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// MySQLSchema is the Schema of MySQL's built-in types (mysqlparse.Schema).
const MySQLSchema = "mysql"

// resolveMySQLType is ResolveType for a MySQL built-in type: its name in
// lower case as sqlc names it (int, varchar, text, ...), UNSIGNED, and
// the width of tinyint(1), which sqlc types bool.
func (c *Catalog) resolveMySQLType(tn *sqlparse.TypeName) (Type, bool) {
	t := Type{Schema: MySQLSchema, Name: strings.ToLower(tn.Name), Unsigned: tn.Unsigned}
	if t.Name == "tinyint" && tn.Length == 1 {
		t.Length = 1
	}
	return t, true
}

// mysql applies one statement of a MySQL schema.
func (u *updater) mysql(n sqlparse.Node) {
	u.mysqlStmt(n)
	u.c.relinkEnums()
}

// relinkEnums keeps the ENUM and SET columns' enums as sqlc's catalog
// keeps them: renamed <table>_<column> after the table or the column is
// renamed, dropped with the column or its table.
//
// It runs after every statement of a MySQL schema, so whether a column's
// table is still the one its name resolves to (Catalog.Table) is read
// from a name index of each schema made once per call, not by searching
// the schema's tables for every enum.
func (c *Catalog) relinkEnums() {
	byName := map[*Schema]map[string]*Table{}
	current := func(t *Table) bool {
		if t.Schema == "" {
			return c.Table("", t.Name) == t
		}
		s := c.Schema(t.Schema)
		if s == nil {
			return false // Catalog.Table's system table is not t
		}
		m, ok := byName[s]
		if !ok {
			m = make(map[string]*Table, len(s.Tables))
			for _, x := range s.Tables {
				if _, dup := m[x.Name]; !dup {
					m[x.Name] = x // the first, as Schema.table
				}
			}
			byName[s] = m
		}
		return m[t.Name] == t
	}
	for _, s := range c.Schemas {
		s.Enums = slices.DeleteFunc(s.Enums, func(e *Enum) bool {
			col := e.Linked
			if col == nil {
				return false
			}
			t := col.Table
			if t == nil || !current(t) || t.Column(col.Name) != col || col.Type.Name != e.Name {
				return true
			}
			if name := t.Name + "_" + col.Name; name != e.Name {
				e.Name = name
				col.Type.Name, col.DBType = name, name
			}
			return false
		})
	}
}

func (u *updater) mysqlStmt(n sqlparse.Node) {
	switch n := n.(type) {
	case *sqlparse.CreateTable:
		if u.c.Schema(n.Table.Schema) == nil && n.Table.Schema != "" {
			// A database qualifier: MySQL's databases are sqlc's schemas,
			// made by CREATE DATABASE.
			u.errorf(n.Table.Loc, ErrNotFound, "schema %q does not exist", n.Table.Schema)
			return
		}
		u.createTable(n)
		t := u.c.Table(n.Table.Schema, n.Table.Name)
		if t == nil {
			return
		}
		// sqlc's MySQL catalog makes a column NOT NULL only by its own
		// NOT NULL or PRIMARY KEY; a table-level PRIMARY KEY (a, b)
		// leaves its columns nullable in the API, as MySQL does not.
		var before []*Column
		for _, k := range n.PrimaryKey {
			i := slices.IndexFunc(n.Columns, func(d *sqlparse.ColumnDef) bool { return d.Name == k })
			if col := t.Column(k); col != nil && i >= 0 && !n.Columns[i].NotNull && !n.Columns[i].PrimaryKey {
				before = append(before, col)
			}
		}
		keepSqlcNullable(before)
		for _, cm := range n.Comments {
			u.comment(cm)
		}
	case *sqlparse.AlterTable:
		var fence *Fence
		if t := u.c.Table(n.Table.Schema, n.Table.Name); t != nil && t.Fence != nil && t.Fence.Source == "comment" && t.Fence.From == nil {
			fence = t.Fence
		}
		u.alterTable(n)
		for _, cm := range n.Comments {
			u.comment(cm)
		}
		if fence != nil {
			u.redefinedMark(n, fence)
		}
	case *sqlparse.Rename:
		u.rename(n)
		for _, m := range n.More {
			u.rename(m)
		}
	case *sqlparse.Drop:
		u.drop(n)
	case *sqlparse.CreateView:
		u.createView(n)
	case *sqlparse.CreateSchema:
		u.createSchema(n)
	case *sqlparse.CreateIndex:
		u.createIndex(n)
	case *sqlparse.CreateFunction:
		// MySQL names a procedure once, whatever its parameters: CREATE
		// PROCEDURE IF NOT EXISTS of a name it has is a no-op (MariaDB's
		// note 1304), and without IF NOT EXISTS an error, which sqlc
		// v1.31.1 reports too (as relation "p" already exists).
		if n.Procedure && slices.ContainsFunc(u.c.Funcs(n.Func.Schema, n.Func.Name), func(f *Func) bool { return f.Procedure }) {
			if !n.IfNotExists {
				u.errorf(n.Loc, ErrExists, "procedure %q already exists", n.Func.Name)
			}
			return
		}
		u.createFunction(n)
		if u.c.MySQLRoutines == "" {
			line, col := u.pos(n.Loc)
			u.c.MySQLRoutines = fmt.Sprintf("procedure %s (%s:%d:%d)", n.Func.Name, u.f.Name, line, col)
		}
	case *sqlparse.Unknown:
		if n.Kind == "UseStmt" {
			u.mysqlUse(n)
			return
		}
		if u.c.MySQLRoutines != "" {
			return
		}
		for _, k := range []string{"Trigger", "Procedure", "Function", "Event"} {
			if strings.Contains(n.Kind, k) {
				line, col := u.pos(n.Loc)
				u.c.MySQLRoutines = fmt.Sprintf("%s (%s:%d:%d)", diag.A(strings.ToLower(k)), u.f.Name, line, col)
			}
		}
	}
}

// mysqlEnumColumn is the column of an ENUM or SET type: as sqlc, an enum
// type named <table>_<column> holds its values.
func (u *updater) mysqlEnumColumn(d *sqlparse.ColumnDef, t *Table) *Column {
	name := t.Name + "_" + d.Name
	s := u.c.Schema(t.Schema)
	if s != nil {
		if e := u.c.Enum(s.Name, name); e != nil {
			e.Values = slices.Clone(d.Type.Values)
			e.Linked = nil
		} else {
			line, col := u.pos(d.Loc)
			s.Enums = append(s.Enums, &Enum{Schema: s.Name, Name: name, Values: slices.Clone(d.Type.Values), SqlcPublic: t.SqlcPublic, File: u.f.Name, Line: line, Col: col})
		}
	}
	typ := Type{Schema: t.Schema, Name: name}
	col := &Column{Name: d.Name, Type: typ, DBType: name, NotNull: d.NotNull || d.PrimaryKey, attNotNull: d.NotNull || d.PrimaryKey, HasDefault: d.HasDefault, Generated: d.Generated, GeneratedVirtual: d.GeneratedVirtual, Identity: d.Identity, AutoIncrement: d.AutoIncrement, Table: t}
	if e := u.c.Enum(t.Schema, name); e != nil {
		e.Linked = col
	}
	return col
}

// mysqlTokenType reports whether MySQL type t cannot hold a fencing token,
// and why: the lease's token is a signed 64-bit integer, which only BIGINT
// (signed) holds; INT overflows, and BIGINT UNSIGNED compares otherwise
// than the token once converted (and refuses a negative one).
func mysqlTokenType(t Type) (bool, string) {
	switch {
	case t.Name == "bigint" && !t.Unsigned:
		return false, ""
	case t.Name == "bigint":
		return true, "it must be BIGINT (signed), the lease's int64 token; declare it BIGINT NOT NULL DEFAULT 0"
	case t.Name == "tinyint" || t.Name == "smallint" || t.Name == "mediumint" || t.Name == "int" || t.Name == "integer":
		return true, fmt.Sprintf("%s cannot hold every int64 token the lease mints; declare it BIGINT NOT NULL DEFAULT 0", strings.ToUpper(t.Name))
	}
	return true, "it must be BIGINT (signed) so that tokens compare in order; declare it BIGINT NOT NULL DEFAULT 0"
}

// mysqlUse reads USE db. fencegen cannot tell which database the
// schema's statements run in, only that unqualified names are the
// project's: a USE before the schema defines anything (a dump's
// CREATE DATABASE d; USE d) selects the project's database, and so does
// a later USE of the same name; a USE of another database is an error,
// since the statements after it would be read as changing the
// project's objects while the server changes that database's.
func (u *updater) mysqlUse(n *sqlparse.Unknown) {
	text := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(string(u.f.Src[u.s.Start:u.s.End])), ";"))
	name := ""
	if f := strings.Fields(text); len(f) == 2 && strings.EqualFold(f[0], "USE") {
		name = strings.Trim(f[1], "`")
	}
	if name != "" && name == u.c.mysqlUse {
		return
	}
	if s := u.c.Schema(""); name != "" && u.c.mysqlUse == "" && (s == nil || len(s.Tables) == 0 && len(s.Funcs) == 0) && u.c.MySQLRoutines == "" {
		u.c.mysqlUse = name
		return
	}
	u.errorf(n.Loc, ErrAmbiguous, "%s: fencegen reads the schema's unqualified names as the project's database, and cannot tell whether this one is it (only a USE before the schema defines anything, or a USE of that same database, selects it); qualify the statements meant for another database (db.name) instead of USE", text)
}

// redefinedMark reports a MODIFY or CHANGE of fence's token column, in
// ALTER TABLE n, that gives the column no COMMENT: MariaDB and MySQL
// replace the whole definition, comment included, so the fencing mark
// goes and the table would silently stop being fenced (its writes
// generated without a token). A definition with a COMMENT is taken as
// written: the mark repeated keeps the table fenced, another comment
// (an empty one) unfences it deliberately.
func (u *updater) redefinedMark(n *sqlparse.AlterTable, fence *Fence) {
	for _, cmd := range n.Cmds {
		if cmd.Kind != sqlparse.AlterDropColumn || cmd.Redefine == "" || cmd.Column != fence.Column {
			continue
		}
		if slices.ContainsFunc(n.Comments, func(c *sqlparse.Comment) bool { return c.Column == cmd.Redefine }) {
			return
		}
		verb := "MODIFY"
		if cmd.Redefine != cmd.Column {
			verb = "CHANGE"
		}
		u.errorf(cmd.Loc, ErrFence, "ALTER TABLE %s %s of fencing token column %s without a COMMENT: MariaDB/MySQL replaces the column's whole definition, its COMMENT 'fencegen:token' (marked at %s:%d) included, so table %s would no longer be fenced and its writes would be generated without a token. Repeat the mark in the new definition (%s ... COMMENT 'fencegen:token'); to stop fencing %s deliberately, give the definition another COMMENT (COMMENT '')",
			n.Table.Name, verb, fence.Column, fence.File, fence.Line, n.Table.Name, verb, n.Table.Name)
		return
	}
}
