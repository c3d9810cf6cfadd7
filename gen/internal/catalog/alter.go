package catalog

// ALTER TABLE and its actions.

import (
	"slices"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/diag"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

func (u *updater) alterTable(n *sqlparse.AlterTable) {
	if !n.MissingOK && u.c.Table(n.Table.Schema, n.Table.Name) == nil && !slices.ContainsFunc(n.Cmds, sqlcChecks) {
		// sqlc looks the table up only for the actions it applies:
		// ALTER TABLE nope OWNER TO x or SET DEFAULT passes.
		if own := u.c.Table("", n.Table.Name); u.c.isMySQL && n.Table.Schema != "" && own != nil && slices.ContainsFunc(n.Cmds, changesKeys) {
			// A database qualifier fencegen cannot tell from the
			// project's: the server may run the statement on the
			// schema's own table, whose keys are then in doubt (issue
			// 27, trial r27s F6).
			maybe := "fencegen cannot tell whether database " + n.Table.Schema + " is the project's"
			if n.Table.Schema == u.c.mysqlUse {
				maybe = "the schema's USE selects database " + n.Table.Schema + " as the project's"
			}
			u.notef(n.Table.Loc, "relation %q is not in the schema, and %s: its change is left out and the keys of table %s are in doubt", n.Table.String(), maybe, own.Name)
			u.doubtKeys(own, n.Table.Loc, "it changes the keys of table "+n.Table.String()+", which may be this table ("+maybe+"): write the statement without the database qualifier")
			return
		}
		u.refusef(n.Table.Loc, "relation %q does not exist", n.Table.String())
		return
	}
	t := u.userTable(n.Table, n.MissingOK)
	if t == nil {
		return
	}
	for _, cmd := range n.Cmds {
		// ADD COLUMN IF NOT EXISTS of a column t has skips its
		// constraints too.
		added := cmd.Kind == sqlparse.AlterAddColumn && cmd.Def != nil && t.Column(cmd.Def.Name) == nil
		u.refused = ""
		u.alterCmd(t, cmd, !n.Only)
		if added && t.Column(cmd.Def.Name) != nil {
			u.addColumnConstraints(t, cmd.Def)
		}
		if u.c.isMySQL && u.refused != "" && changesKeys(cmd) {
			u.doubtKeys(t, cmd.Loc, "fencegen reads it as a statement MariaDB/MySQL refuses ("+u.refused+") and leaves its change to the keys out")
		}
	}
}

// changesKeys reports whether an ALTER TABLE action may change a MySQL
// table's primary or unique keys.
func changesKeys(cmd *sqlparse.AlterCmd) bool {
	switch cmd.Kind {
	case sqlparse.AlterAddPrimaryKey, sqlparse.AlterAddUnique, sqlparse.AlterDropIndex, sqlparse.AlterDropConstraint, sqlparse.AlterDropColumn,
		sqlparse.AlterRenameIndex:
		return true
	case sqlparse.AlterAddColumn:
		return cmd.Def != nil && len(cmd.Def.Keys) > 0
	}
	return false
}

// doubtKeys records, at loc, that the catalog may not hold t's keys as
// the MySQL server does after the statement (Table.KeysInDoubt): the
// first such statement is kept.
func (u *updater) doubtKeys(t *Table, loc int, why string) {
	if t.keysDoubt != nil {
		return
	}
	line, col := u.pos(loc)
	t.keysDoubt = &diag.Error{File: u.f.Name, Line: line, Col: col, Msg: why}
}

// KeysInDoubt locates, on a MySQL table, the first schema statement
// after which the catalog's primary and unique keys of t may differ from
// the server's, with why (Msg), or returns nil: a statement the catalog
// reads as one the server refuses (a second PRIMARY KEY, a key on a
// column it does not have), whose change it leaves out while a server
// that runs it changes the keys, or a DROP COLUMN of a column of a
// primary key of several columns (MySQL 8 takes the column out of the
// key, MariaDB refuses the statement). A guarded UPDATE or DELETE looks
// rows up by the primary key, so the analysis refuses those of such a
// table (issue 27, trial t27s F2).
func (t *Table) KeysInDoubt() *diag.Error {
	if t.keysDoubt == nil {
		return nil
	}
	e := *t.keysDoubt
	return &e
}

// alterCmd applies one ALTER TABLE action to t and, as PostgreSQL does for
// column changes, to the tables inheriting from it when recurse is set
// (not for ALTER TABLE ONLY).
func (u *updater) alterCmd(t *Table, cmd *sqlparse.AlterCmd, recurse bool) {
	switch cmd.Kind {
	case sqlparse.AlterAddColumn, sqlparse.AlterDropColumn, sqlparse.AlterColumnType, sqlparse.AlterSetNotNull,
		sqlparse.AlterDropNotNull, sqlparse.AlterSetDefault, sqlparse.AlterDropDefault:
		for _, ch := range u.c.children(t) {
			skip := cmd.Kind == sqlparse.AlterAddColumn && ch.Column(cmd.Column) != nil ||
				cmd.Kind != sqlparse.AlterAddColumn && ch.Column(cmd.Column) == nil
			if recurse && !skip {
				u.alterCmd(ch, cmd, true)
			}
		}
	case sqlparse.AlterAttachPartition, sqlparse.AlterDetachPartition, sqlparse.AlterInherit, sqlparse.AlterNoInherit:
		other := u.userTable(cmd.Other, false)
		if other == nil {
			return
		}
		switch cmd.Kind {
		case sqlparse.AlterAttachPartition:
			u.c.attach(t, other)
		case sqlparse.AlterDetachPartition:
			u.c.keepInherited(other, t)
			other.parents = slices.DeleteFunc(other.parents, func(p *Table) bool { return p == t })
			other.partitionOf = nil
			// The detached table keeps its copies of t's foreign keys as
			// its own.
			for i := range other.foreignKeys {
				other.foreignKeys[i].clone = false
			}
		case sqlparse.AlterInherit:
			if !slices.Contains(t.parents, other) {
				t.parents = append(t.parents, other)
			}
		case sqlparse.AlterNoInherit:
			u.c.keepInherited(t, other)
			t.parents = slices.DeleteFunc(t.parents, func(p *Table) bool { return p == other })
		}
		return
	}
	switch cmd.Kind {
	case sqlparse.AlterAddColumn:
		if cmd.Def == nil {
			return
		}
		if t.Column(cmd.Def.Name) != nil {
			if !cmd.MissingOK {
				u.errorf(cmd.Loc, ErrExists, "column %q of relation %q already exists", cmd.Def.Name, t.Name)
			}
			return
		}
		c := u.column(cmd.Def, t)
		t.Columns = append(t.Columns, c)
		if r, ok := u.c.line.redefined[t]; ok && r.name == c.Name {
			// MySQL's MODIFY or CHANGE keeps the column's values.
			u.c.line.from[c] = r.col
			delete(u.c.line.redefined, t)
		}
		if cmd.Def.Serial || cmd.Def.Identity {
			u.columnSequence(c, cmd.Def.SequenceName)
		}
	case sqlparse.AlterDropColumn:
		if t.Column(cmd.Column) == nil {
			if !cmd.MissingOK {
				u.errorf(cmd.Loc, ErrNotFound, "column %q of relation %q does not exist", cmd.Column, t.Name)
			}
			return
		}
		switch {
		case cmd.Redefine != "":
			// MySQL's MODIFY or CHANGE: the keys stay, on the new name.
			u.c.renameColumnConstraints(t, cmd.Column, cmd.Redefine)
			u.c.line.redefined[t] = redefinedColumn{name: cmd.Redefine, col: t.Column(cmd.Column)}
			u.dropColumnOnly(t, cmd.Column)
		case cmd.Shrink:
			if u.c.isMySQL && len(t.PrimaryKey) > 1 && slices.Contains(t.PrimaryKey, cmd.Column) {
				u.doubtKeys(t, cmd.Loc, "it drops column "+cmd.Column+" of the primary key ("+strings.Join(t.PrimaryKey, ", ")+"), which MySQL 8 takes out of the key and MariaDB refuses")
			}
			u.c.shrinkKeys(t, cmd.Column)
			u.dropColumn(t, cmd.Column)
		default:
			u.dropColumn(t, cmd.Column)
		}
	case sqlparse.AlterDropIndex:
		// A name the catalog does not know (an unnamed key's, which
		// fencegen does not name as MySQL does) leaves the keys as they
		// are: the guard trigger then looks rows up by one key too many
		// (a refusal too many, never one too few).
		u.c.dropMySQLIndex(t, cmd.Constraint)
	case sqlparse.AlterRenameIndex:
		// A name the catalog does not know (an unnamed key's) keeps its
		// key: a later DROP INDEX of the new name then leaves it (a
		// refusal too many, never one too few).
		u.c.renameMySQLIndex(t, cmd.Constraint, cmd.NewName)
	case sqlparse.AlterColumnType, sqlparse.AlterSetNotNull, sqlparse.AlterDropNotNull, sqlparse.AlterSetDefault,
		sqlparse.AlterDropDefault, sqlparse.AlterAddIdentity, sqlparse.AlterDropIdentity, sqlparse.AlterDropExpression:
		if c := t.Column(cmd.Column); c != nil {
			u.alterColumn(t, c, cmd)
		} else if !sqlcChecks(cmd) {
			// sqlc applies no SET DEFAULT, DROP DEFAULT or identity
			// action, and so checks none of their columns.
			u.refusef(cmd.Loc, "column %q of relation %q does not exist", cmd.Column, t.Name)
		} else {
			u.errorf(cmd.Loc, ErrNotFound, "column %q of relation %q does not exist", cmd.Column, t.Name)
		}
	case sqlparse.AlterAddPrimaryKey, sqlparse.AlterAddUnique:
		primary := cmd.Kind == sqlparse.AlterAddPrimaryKey
		if primary {
			defer keepSqlcNullable(u.c.nullableColumns(t))
		}
		switch {
		case cmd.Key != nil && cmd.Key.Index == "" && cmd.Key.Columns == nil:
			// A key on an expression (MySQL's functional key parts):
			// fencegen does not model it (UniqueKeys' untracked).
			if !primary {
				u.untracked(t, cmd.Loc)
			}
		case primary && len(t.PrimaryKey) > 0:
			u.refusef(cmd.Loc, "multiple primary keys for table %q are not allowed", t.Name)
		case cmd.Key.Index != "":
			u.indexKey(t, cmd.Key, cmd.Loc)
		case primary && len(cmd.Key.Columns) == 0:
			// No columns and no index: nothing to add.
		case u.checkKey(t, cmd.Key.Name, cmd.Key.Columns, cmd.Loc):
			t.notePrefix(cmd.Key.Columns, cmd.Key.Prefix)
			u.c.addKeyTree(t, cmd.Key.Name, cmd.Key.Columns, primary, recurse)
		}
	case sqlparse.AlterAddForeignKey:
		u.addForeignKey(t, cmd.FK, "")
	case sqlparse.AlterDropConstraint:
		if cmd.AnyConstraint {
			u.c.dropMySQLConstraint(t, cmd.Constraint)
			return
		}
		// A name fencegen does not model (CHECK, EXCLUDE) is dropped
		// without a trace; so is one that does not exist.
		u.c.dropConstraint(t, cmd.Constraint)
	}
}

// nullableColumns are the columns of t, and of the partitions an ALTER
// TABLE on t reaches, that can hold NULL.
func (c *Catalog) nullableColumns(t *Table) []*Column {
	var out []*Column
	for _, col := range t.Columns {
		if !col.NotNull {
			out = append(out, col)
		}
	}
	for _, ch := range c.partitions(t) {
		out = append(out, c.nullableColumns(ch)...)
	}
	return out
}

// keepSqlcNullable keeps sqlc's typing of the columns of before that an
// ALTER TABLE ... ADD PRIMARY KEY made NOT NULL: sqlc v1.31.1's catalog
// applies no ADD CONSTRAINT (internal/sql/catalog applies ADD and DROP
// COLUMN, ALTER COLUMN TYPE, SET and DROP NOT NULL), so it still types
// them nullable, as a CREATE TABLE's PRIMARY KEY it does apply would not
// leave them (mergestat's github_pull_request_commits.hash:
// sql.NullString to sqlc, string to PostgreSQL). Column.Sqlc says so,
// for the API of a configuration sqlc reads; postgresql_types declares
// PostgreSQL's NOT NULL.
func keepSqlcNullable(before []*Column) {
	for _, col := range before {
		if col.NotNull && col.Sqlc == nil {
			col.Sqlc = &ColumnTyping{Type: col.Type, NotNull: false, DBType: col.DBType}
			col.sqlcNullable = true
		}
	}
}

// SqlcNotNull is the nullability sqlc v1.31.1's catalog gives c, which a
// parameter compared with c takes: c's own, but nullable while its NOT
// NULL comes only from an ALTER TABLE ... ADD PRIMARY KEY (see
// keepSqlcNullable).
func (c *Column) SqlcNotNull() bool { return c.NotNull && !c.sqlcNullable }

// sqlcChecks reports whether sqlc v1.31.1 applies an ALTER TABLE action
// to its catalog, and so refuses it on a table or column that does not
// exist (internal/sql/catalog: ADD COLUMN, DROP COLUMN, ALTER COLUMN
// TYPE, SET and DROP NOT NULL). PostgreSQL refuses the others as well;
// fencegen notes them and goes on, as sqlc goes on.
func sqlcChecks(cmd *sqlparse.AlterCmd) bool {
	switch cmd.Kind {
	case sqlparse.AlterAddColumn, sqlparse.AlterDropColumn, sqlparse.AlterColumnType, sqlparse.AlterSetNotNull, sqlparse.AlterDropNotNull:
		return true
	}
	return false
}

// addColumnConstraints adds the PRIMARY KEY, UNIQUE and REFERENCES
// constraints of a column that ALTER TABLE ... ADD COLUMN added to t (not
// to its inheritance children, which get the column only).
func (u *updater) addColumnConstraints(t *Table, d *sqlparse.ColumnDef) {
	for _, k := range d.Keys {
		if k.Primary && len(t.PrimaryKey) > 0 && !slices.Equal(t.PrimaryKey, k.Columns) {
			u.refusef(d.Loc, "multiple primary keys for table %q are not allowed", t.Name)
			continue
		}
		if u.checkKey(t, k.Name, k.Columns, d.Loc) {
			u.c.addKeyTree(t, k.Name, k.Columns, k.Primary, true)
		}
	}
	for _, fk := range d.ForeignKeys {
		u.addForeignKey(t, fk, "")
	}
}

// dropColumn drops column name of t with what depends on it: its owned
// sequences, its keys and foreign keys and the fencing mark on it.
func (u *updater) dropColumn(t *Table, name string) {
	u.c.dropOwnedSequences(t, name)
	u.c.dropColumnConstraints(t, name)
	u.dropColumnOnly(t, name)
}

// dropColumnOnly drops column name of t and the fencing mark on it, and
// leaves its keys (MySQL's MODIFY and CHANGE, read as a drop and an add).
func (u *updater) dropColumnOnly(t *Table, name string) {
	t.Columns = slices.DeleteFunc(t.Columns, func(c *Column) bool { return c.Name == name })
	if t.Fence != nil && t.Fence.Column == name {
		t.Fence = nil
	}
}

// alterColumn applies ALTER COLUMN c of t, with PostgreSQL's checks
// (PostgreSQL source, ATExecDropNotNull, ATExecAddIdentity,
// ATExecDropIdentity).
func (u *updater) alterColumn(t *Table, c *Column, cmd *sqlparse.AlterCmd) {
	line, col := u.pos(cmd.Loc)
	c.changed, c.seq = &diag.Error{File: u.f.Name, Line: line, Col: col}, u.c.seq
	switch cmd.Kind {
	case sqlparse.AlterColumnType:
		c.Type, c.DBType, c.Precision, c.Scale = u.resolveType(cmd.Type, cmd.Loc), dbType(cmd.Type), mysqlPrecision(cmd.Type), mysqlScale(cmd.Type)
		c.typmod = cmd.Type != nil && cmd.Type.Typmod
		// A NOT NULL that came from the old type's domain goes with it.
		c.domainNotNull = u.c.DomainNotNull(cmd.Type)
		c.NotNull = c.attNotNull || c.domainNotNull
		c.domains = u.c.domainChain(cmd.Type)
		if c.sqlcNullable {
			// sqlc applies the new type, and still no NOT NULL.
			c.Sqlc.Type, c.Sqlc.DBType = c.Type, c.DBType
		}
	case sqlparse.AlterSetNotNull:
		c.declareNotNull()
		if c.sqlcNullable {
			// sqlc applies SET NOT NULL.
			c.Sqlc, c.sqlcNullable = nil, false
		}
	case sqlparse.AlterDropNotNull:
		switch {
		case slices.Contains(t.PrimaryKey, c.Name):
			u.refusef(cmd.Loc, "column %q is in a primary key", c.Name)
		case c.Identity:
			u.refusef(cmd.Loc, "column %q of relation %q is an identity column", c.Name, t.Name)
		default:
			// A NOT NULL domain still refuses NULL.
			c.attNotNull, c.NotNull = false, c.domainNotNull
		}
	case sqlparse.AlterSetDefault:
		// SET DEFAULT NULL stores no default (see column; the catalog
		// keeps no domain of a column, so a domain's counts as none).
		c.HasDefault, c.Sequence = !cmd.DefaultNull || c.typmod, cmd.Nextval
		c.defaultAtMost1 = cmd.DefaultAtMost1
	case sqlparse.AlterDropDefault:
		c.HasDefault, c.Sequence = false, false
	case sqlparse.AlterAddIdentity:
		switch {
		case !c.NotNull:
			u.refusef(cmd.Loc, "column %q of relation %q must be declared NOT NULL before identity can be added", c.Name, t.Name)
		case c.Identity:
			u.refusef(cmd.Loc, "column %q of relation %q is already an identity column", c.Name, t.Name)
		default:
			c.Identity, c.IdentityAlways = true, cmd.Always
			u.columnSequence(c, cmd.SequenceName)
		}
	case sqlparse.AlterDropIdentity:
		if !c.Identity {
			if !cmd.MissingOK {
				u.refusef(cmd.Loc, "column %q of relation %q is not an identity column", c.Name, t.Name)
			}
			return
		}
		c.Identity, c.IdentityAlways = false, false
		u.c.dropOwnedSequences(t, c.Name)
	case sqlparse.AlterDropExpression:
		c.Generated, c.GeneratedVirtual = false, false
	}
}
