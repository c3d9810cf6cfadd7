// Package catalog is fencegen's model of a PostgreSQL schema: schemas,
// tables and views with their columns, enum types and functions, plus the
// fencing-token column of each fenced table. It is built by applying DDL
// statements in order with Update, as PostgreSQL would, and never sees
// parser nodes other than fencegen's own (package sqlparse).
//
// Update is the one entry point; each DDL kind has its method in a file of
// its own (table.go, alter.go, constraint.go, rename.go, comment.go,
// types.go, drop.go, sequence.go, view.go, function.go, schema.go). Where
// PostgreSQL would refuse a schema that sqlc accepts (a REFERENCES target
// or a type that does not exist), the catalog goes on as sqlc does and
// says so in Notes.
package catalog

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/writes"
)

var (
	// ErrNotFound is the sentinel under errors for a missing table, column,
	// type or schema.
	ErrNotFound = errors.New("not found")
	// ErrExists is the sentinel under errors for an object created twice.
	ErrExists = errors.New("already exists")
	// ErrFence is the sentinel under errors for an invalid fencing-token
	// column.
	ErrFence = errors.New("invalid fencing token column")
	// ErrAmbiguous is the sentinel under errors for a schema statement
	// whose objects fencegen cannot tell apart from the project's (a
	// MySQL USE of another database).
	ErrAmbiguous = errors.New("ambiguous name")
)

// Type is a resolved column or expression type.
type Type struct {
	// Schema is "pg_catalog" for built-in types, or the user schema.
	Schema string
	// Name is the canonical name: int8, int4, text, numeric, an enum name.
	Name string
	// ArrayDims is the number of array dimensions.
	ArrayDims int
	// Bare is set for bpchar and timetz written under those internal
	// names, unqualified (not as CHAR(n), TIME WITH TIME ZONE or
	// pg_catalog.bpchar): sqlc knows them only by their SQL spellings and
	// maps the bare names to interface{}; the emitter does the same.
	Bare bool
	// Unsigned and Length are a MySQL type's (Schema MySQLSchema):
	// UNSIGNED, and the display width where it changes the Go type
	// (tinyint(1), sqlc's bool); 0 otherwise.
	Unsigned bool
	Length   int
}

// IsArray reports whether t is an array type.
func (t Type) IsArray() bool { return t.ArrayDims > 0 }

// Elem returns the element type of an array type.
func (t Type) Elem() Type { t.ArrayDims = 0; return t }

// String returns the SQL spelling, e.g. "int8" or "public.mood[]".
func (t Type) String() string {
	if t.Schema == MySQLSchema {
		if t.Unsigned {
			return t.Name + " unsigned"
		}
		return t.Name
	}
	s := t.Name
	if t.Schema != "" && t.Schema != "pg_catalog" {
		s = t.Schema + "." + s
	}
	return s + strings.Repeat("[]", t.ArrayDims)
}

// Column is a table, view or composite column.
type Column struct {
	Name string
	Type Type
	// typmod is set when the column's type has modifiers (varchar(10)).
	typmod bool
	// DBType is the column's type as PostgreSQL's parser spells it,
	// without array brackets: schema-qualified where the grammar
	// qualifies it ("pg_catalog.timestamptz" for TIMESTAMP WITH TIME
	// ZONE, "pg_catalog.int4" for INTEGER, "pg_catalog.varchar" for
	// VARCHAR(n)) and as written otherwise ("timestamptz", "text",
	// "bigserial", "mood"). sqlc's db_type overrides compare with this
	// spelling exactly. A view's columns carry the spelling of the
	// expressions they come from, where sqlc gives one.
	DBType string
	// Precision is a MySQL DECIMAL column's precision, its digits in all
	// (DECIMAL(30, 2): 30; 10 when not written, MySQL's default), 0 for
	// any other column.
	Precision int
	// Scale is a MySQL column's digits after the point (sqlparse.TypeName.
	// Scale): a DECIMAL's scale, a DATETIME's, TIMESTAMP's or TIME's
	// fractional seconds; 0 for any other column.
	Scale int
	// NotNull is set when the column cannot hold NULL: declared NOT NULL
	// (pg_attribute.attnotnull: attNotNull) or of a domain declared NOT
	// NULL (domainNotNull), which ALTER COLUMN ... TYPE takes away.
	NotNull       bool
	attNotNull    bool
	domainNotNull bool
	// sqlcNullable is set while the column's NOT NULL comes only from an
	// ALTER TABLE ... ADD PRIMARY KEY, which sqlc v1.31.1's catalog does
	// not apply: Sqlc then types it nullable (see keepSqlcNullable).
	sqlcNullable bool
	HasDefault   bool
	// defaultAtMost1 is set when the DEFAULT is an integer constant at
	// or below 1 (sqlparse.ColumnDef.DefaultAtMost1).
	defaultAtMost1 bool
	// Generated is set for a generated column (GENERATED ALWAYS AS
	// (expr) STORED): read like any column, never written.
	// GeneratedVirtual is set too for a MySQL VIRTUAL one.
	Generated        bool
	GeneratedVirtual bool
	// Identity is set for an identity column, IdentityAlways when it is
	// GENERATED ALWAYS (an INSERT gives it a value only with OVERRIDING
	// SYSTEM VALUE).
	Identity       bool
	IdentityAlways bool
	// Sequence is set for a serial column, whose default draws from a
	// sequence.
	Sequence bool
	// AutoIncrement is set for a MySQL AUTO_INCREMENT column, which the
	// server gives the next value of the table's counter when an INSERT
	// stores NULL or 0 into it (or leaves it out).
	AutoIncrement bool
	Comment       string
	Table         *Table
	// Sqlc is, for a column of a view or of CREATE TABLE ... AS, how
	// sqlc v1.31.1 types it where that is not Type and NotNull (set by
	// the ColumnGenerator from the query's select list); nil otherwise.
	Sqlc *ColumnTyping
	// NameGuessed is set, for a column of a view or of CREATE TABLE ...
	// AS, when Name is the catalog's reading of an expression that
	// PostgreSQL may name otherwise (and the statement's column list does
	// not name it): a star over the relation is then sent as written
	// rather than spelt out column by column.
	NameGuessed bool
	// commentAt locates the statement that gave the column its Comment.
	commentAt *diag.Error
	// addedAt locates the column definition that created it (CREATE
	// TABLE, ADD COLUMN), for the token line of a table fenced by a
	// fence key (tokenline.go).
	addedAt *diag.Error
	// addedAck is set when that statement carries ResetTokensMark.
	addedAck bool
	// changed locates the last ALTER TABLE ... ALTER COLUMN of the
	// column, for errors it causes; seq orders it among the statements.
	changed *diag.Error
	seq     int
	// former are the names the column had before ALTER TABLE ... RENAME
	// COLUMN: its DEFAULT is written under one of them in the schema
	// statements before the rename (TextNoDefault).
	former []string
	// domains are the domains the column's declared type goes through,
	// outermost first (a domain over a domain gives both; an array of a
	// domain too): DROP DOMAIN ... CASCADE of any of them drops the
	// column, as PostgreSQL's dependencies do (issue 24).
	domains []Type
}

// DependsOnType reports whether the column's type is, or is an array
// of, or is declared through a domain that is, user type schema.name
// (name in any schema when schema is ""): DROP TYPE or DROP DOMAIN ...
// CASCADE of it drops the column, ALTER TYPE of it changes the stored
// values.
func (c *Column) DependsOnType(schema, name string) bool {
	match := func(t Type) bool { return t.Name == name && (schema == "" || t.Schema == schema) }
	return match(c.Type) || slices.ContainsFunc(c.domains, match)
}

// ColumnTyping is a type and nullability as sqlc declares a value; Any
// is set where sqlc declares interface{}.
type ColumnTyping struct {
	Type    Type
	NotNull bool
	Any     bool
	// DBType is sqlc's spelling of Type (see Column.DBType).
	DBType string
}

// Fence describes a table's fencing-token column.
type Fence struct {
	// From is the ancestor table whose mark this is, for a partition or
	// an inheritance child of a fenced table (a write to the child writes
	// the parent's rows, so it is fenced the same way); nil for a table's
	// own mark.
	From *Table
	// Column is the fencing-token column's name.
	Column string
	// Strict selects the stored < presented guard; the default accepts
	// stored ≤ presented (Kleppmann 2016: only lower tokens are rejected).
	Strict bool
	// Required is mode "required": the generated guard is the non-strict
	// one, and the database-side guard also refuses an UPDATE that does
	// not set the token column (a write that presents no token), which
	// the non-strict trigger lets through (package guard, database.go).
	Required bool
	// Source says where the mark came from: "comment" or "config".
	Source string
	// File, Line, Col locate the mark.
	File      string
	Line, Col int
	// seq orders the mark among the schema statements (Catalog.seq).
	seq int
	// resetAck is set when the marking statement carries
	// ResetTokensMark (tokenline.go).
	resetAck bool
}

// Table is a table or view.
type Table struct {
	Schema     string
	Name       string
	Columns    []*Column
	PrimaryKey []string
	IsView     bool
	// UnnamedColumns is set for a view or CREATE TABLE ... AS whose
	// query has an unnamed expression (PostgreSQL's ?column?) that
	// Columns leaves out, as sqlc's catalog does: PostgreSQL's star over
	// the relation returns it, so a star over it is sent as written.
	UnnamedColumns bool
	// Unnamed are those unnamed expressions, each with its place among
	// the query's columns: sqlc's catalog keeps them, named "", and its
	// model declares each as an embedded field of its Go type (int32 for
	// SELECT 1).
	Unnamed []UnnamedColumn
	// IsSequence marks a sequence: a relation of one row (last_value,
	// log_cnt, is_called) that queries may read but that has no model.
	IsSequence bool
	// OwnedBy is the column a sequence belongs to (OWNED BY, or the
	// serial or identity column PostgreSQL made it for): dropping the
	// column or its table drops the sequence.
	OwnedBy *Column
	Comment string
	Fence   *Fence
	// File, Line, Col locate the CREATE statement.
	File      string
	Line, Col int
	// Partitioned marks a partitioned table (PARTITION BY): its rows live
	// in its partitions.
	Partitioned bool
	// Temp marks a relation of CREATE TEMP with no schema written: it is
	// in Schema pg_temp, and its model is named as sqlc names it, as if
	// it were in the default schema (CREATE TEMP TABLE tmp_docs:
	// TmpDoc; CREATE TABLE pg_temp.t: PgTempT).
	Temp bool
	// SqlcPublic marks a relation created without a schema written while
	// a SET search_path of its schema file named another schema first:
	// it is in that schema (Schema), and, as sqlc (which does not read
	// SET) has it in the default schema, its model is named as if it
	// were there.
	SqlcPublic bool
	// Base is, for a view whose query can make it automatically
	// updatable (sqlparse.CreateView.Base), the relation its FROM list
	// named when it was created, as PostgreSQL binds it (a later rename
	// keeps it; a new relation of the old name is not it); BaseOnly is
	// set for FROM ONLY. ViewRead is set for a view made by CREATE VIEW,
	// whose query was read: Base nil then means that no write of the view
	// reaches a base relation (PostgreSQL runs its INSTEAD OF triggers or
	// rules, or refuses the write). See Catalog.ViewBase.
	Base     *Table
	BaseOnly bool
	ViewRead bool
	// Former are the names, lower case, the relation had before ALTER
	// ... RENAME TO. What PostgreSQL bound to it when created (a view's
	// or materialized view's query, a rule's actions, a policy's
	// expressions) keeps reading or writing it under its new name, while
	// that text still holds the old one: text stored in the schema that
	// names a former name counts as naming it (issue 24, F13).
	Former []string
	// refs are, for a view or a materialized view, the relations its
	// query named when it was created (sqlparse.CreateView.Refs), as
	// PostgreSQL binds them: DROP ... CASCADE of one drops the view
	// (dropDependentViews).
	refs []*Table
	// Triggers and Rules are the table's triggers and rewrite rules
	// (trigger.go); DROP TRIGGER and DROP RULE remove them (drop.go), and
	// DROP FUNCTION ... CASCADE the triggers that run the function.
	Triggers []*Trigger
	Rules    []*Rule
	// Hooks are the schema statements whose expressions PostgreSQL
	// evaluates when the table is written (column defaults, CHECK
	// constraints, generated columns, index expressions and predicates)
	// or, for a view, read (its query); see Hook.
	Hooks []*Hook
	// RowSecurity is set once ALTER TABLE ... ENABLE ROW LEVEL SECURITY
	// ran on the table (and cleared by DISABLE): PostgreSQL applies its
	// policies (its "policy" Hooks) only then (PostgreSQL docs, 5.8 Row
	// Security Policies: "When row security is enabled on a table ...";
	// pg_class.relrowsecurity). A DO block's (stmtCode) only sets it, as
	// the block may not run it.
	RowSecurity bool
	// parents are the tables this one inherits from (INHERITS, PARTITION
	// OF, ATTACH PARTITION, ALTER TABLE ... INHERIT): ALTER TABLE on a
	// parent changes its children too, and a fenced parent fences them.
	parents []*Table
	// partitionOf is the partitioned table this one is a partition of.
	partitionOf *Table
	// keys maps the name of each PRIMARY KEY and UNIQUE constraint to it.
	keys map[string]key
	// indexes maps the name of each index that is no constraint's to the
	// columns of a unique index on plain columns, or nil.
	indexes map[string][]string
	// partial marks the partial unique indexes in indexes (CREATE UNIQUE
	// INDEX ... WHERE): arbiters of ON CONFLICT, never constraints.
	partial map[string]bool
	// untrackedUnique is set by a unique index fencegen does not model
	// (on expressions, or copied by LIKE ... INCLUDING INDEXES): an ON
	// CONFLICT target may match it.
	untrackedUnique bool
	// untrackedFile, untrackedLine and untrackedCol locate the
	// statement of the first unique key untrackedUnique records (File
	// "" when unknown).
	untrackedFile               string
	untrackedLine, untrackedCol int
	// keysDoubt locates, on a MySQL table, the first schema statement
	// whose effect on the table's keys the catalog may not hold as the
	// server does (Table.KeysInDoubt), nil when none.
	keysDoubt *diag.Error
	// keyPrefix maps a column to the shortest prefix of it a unique key
	// compares (MySQL's UNIQUE (email(10))). It is never taken back (a
	// dropped key leaves it): a shorter prefix than a key's matches more
	// rows, never fewer.
	keyPrefix map[string]int
	// foreignKeys are t's FOREIGN KEY constraints.
	foreignKeys []foreignKey
}

// Cascade is a write that PostgreSQL makes in a fenced table because of a
// write in another table: a FOREIGN KEY of Table (on Columns) whose ON
// DELETE or ON UPDATE action (Action: CASCADE, SET NULL or SET DEFAULT)
// deletes or updates its rows.
type Cascade struct {
	Table   *Table
	Columns []string
	Action  string
	// Event is what the action does to Table's rows: "DELETE", "UPDATE"
	// (SET NULL, SET DEFAULT, ON UPDATE CASCADE) or "TRUNCATE".
	Event string
	// Path spells the chain of foreign keys from the table written to
	// Table: "projects → groups (project_id, ON DELETE CASCADE) → items
	// (group_id, ON DELETE SET NULL)".
	Path string
}

// Cascades returns the fenced tables whose rows PostgreSQL deletes or
// updates, without fencegen's guard, because of a write to t (PostgreSQL
// docs, 5.4.5 "Foreign Keys", and TRUNCATE): op is "delete" (rows of t
// deleted), "update" (the columns updated of t change) or "truncate"
// (TRUNCATE t CASCADE, which empties every table that refers to t,
// whatever its ON DELETE action). Every chain is followed, through the
// rows deleted and the key columns changed.
func (c *Catalog) Cascades(t *Table, op string, updated []string) []Cascade {
	var out []Cascade
	for _, x := range c.AllCascades(t, op, updated) {
		if x.Table.Fence != nil {
			out = append(out, x)
		}
	}
	return out
}

// AllCascades is Cascades for every table a foreign-key action writes,
// fenced or not (their triggers, rules and defaults run too), each once,
// with the first chain found.
func (c *Catalog) AllCascades(t *Table, op string, updated []string) []Cascade {
	actions := map[byte]string{'c': "CASCADE", 'n': "SET NULL", 'd': "SET DEFAULT"}
	var out []Cascade
	type key struct {
		t   *Table
		ev  string
		col string
	}
	seen := map[key]bool{}
	var walk func(p *Table, del bool, updated []string, path string)
	walk = func(p *Table, del bool, updated []string, path string) {
		k := key{p, "UPDATE", strings.Join(updated, ",")}
		if del {
			k.ev, k.col = "DELETE", ""
		}
		if seen[k] {
			return
		}
		seen[k] = true
		var refs []fkRef
		for _, x := range keyedBy(c, p) {
			refs = append(refs, c.referrers(x)...)
		}
		for _, ref := range refs {
			ch, fk := ref.t, ref.t.foreignKeys[ref.i]
			if fk.clone {
				continue
			}
			act := fk.onUpdate
			switch {
			case op == "truncate":
				act = 'c'
			case del:
				act = fk.onDelete
			default:
				refs := fk.refs
				if len(refs) == 0 {
					refs = fk.parent.PrimaryKey
				}
				// A generated column referenced counts as updated whatever
				// the SET list names: PostgreSQL recomputes it when a
				// column it is computed from changes, and the key's
				// ON UPDATE action then runs (as FiresOn counts it for
				// UPDATE OF triggers).
				changed := func(r string) bool {
					if slices.Contains(updated, r) {
						return true
					}
					col := fk.parent.Column(r)
					return col == nil || col.Generated
				}
				if updated != nil && !slices.ContainsFunc(refs, changed) && !c.beforeUpdate(p, refs) {
					continue
				}
			}
			name, ok := actions[act]
			if !ok {
				continue
			}
			kind := "ON UPDATE "
			switch {
			case op == "truncate":
				kind, name = "TRUNCATE ... ", "CASCADE"
			case del:
				kind = "ON DELETE "
			}
			event := "UPDATE"
			switch {
			case op == "truncate":
				event = "TRUNCATE"
			case del && act == 'c':
				event = "DELETE"
			}
			link := fmt.Sprintf("%s → %s (%s, %s%s)", path, ch.QualifiedName(), strings.Join(fk.columns, ", "), kind, name)
			if !slices.ContainsFunc(out, func(x Cascade) bool { return x.Table == ch && x.Event == event }) {
				out = append(out, Cascade{Table: ch, Columns: fk.columns, Action: kind + name, Event: event, Path: link})
			}
			if event == "UPDATE" {
				// The referencing columns change: foreign keys
				// that refer to them act in turn.
				walk(ch, false, fk.columns, link)
			} else {
				walk(ch, true, nil, link)
			}
		}
	}
	walk(t, op != "update", updated, t.QualifiedName())
	return out
}

// keyedBy returns, in a fixed order, the tables whose foreign keys' referenced rows a write
// of p's rows changes: p itself, the partitioned tables p is a partition
// of (a foreign key referencing a partitioned table acts on the rows of
// its partitions, PostgreSQL docs 5.11.2.3, so a DELETE or UPDATE of a
// partition, or a TRUNCATE of it, runs the actions of the foreign keys
// that reference its ancestors) and p's partitions and inheritance
// children at any depth (a write of p reaches their rows, which foreign
// keys may reference directly; without ONLY, and conservatively with
// it). An inheritance parent is left out: a foreign key referencing it
// sees only its own rows.
func keyedBy(c *Catalog, p *Table) []*Table {
	out := []*Table{p}
	for a := p.partitionOf; a != nil && !slices.Contains(out, a); a = a.partitionOf {
		out = append(out, a)
	}
	return c.descendants(p, map[*Table]bool{p: true}, out)
}

// beforeUpdate reports whether a BEFORE UPDATE row trigger of t (or of
// a relative, whose rows an UPDATE of t writes) may change one of the key
// columns cols, whatever the UPDATE assigns: PostgreSQL runs a referenced
// key's ON UPDATE action whenever the stored key differs. A PL/pgSQL
// trigger function is read on its parse tree (writes.ReadTrigger): one
// that assigns none of cols in NEW, nor all of NEW, and returns NEW, OLD
// or NULL changes no key; any other (another language, a body not read,
// a function the schema does not define) may.
func (c *Catalog) beforeUpdate(t *Table, cols []string) bool {
	for _, x := range append([]*Table{t}, c.Relatives(t)...) {
		for _, tr := range x.Triggers {
			if !tr.Before || !slices.Contains(tr.Events, "UPDATE") {
				continue
			}
			fs := c.Funcs(tr.Func.Schema, tr.Func.Name)
			if len(fs) == 0 {
				return true
			}
			for _, f := range fs {
				if f.Language != "plpgsql" {
					return true
				}
				for _, col := range cols {
					row, err := writes.ReadTrigger(f.Source, col)
					if err != nil || row.AssignsColumn || row.ReturnsOther {
						return true
					}
				}
			}
		}
	}
	return false
}

// Relatives returns t's ancestors (the tables it is a partition or an
// inheritance child of) and descendants (its partitions and children), at
// any depth: a write of t runs their defaults, CHECKs and row triggers
// too (a row routed to a partition, a row of a child updated through t).
func (c *Catalog) Relatives(t *Table) []*Table {
	var out []*Table
	seen := map[*Table]bool{t: true}
	var up func(*Table)
	up = func(x *Table) {
		ps := slices.Clone(x.parents)
		if x.partitionOf != nil {
			ps = append(ps, x.partitionOf)
		}
		for _, p := range ps {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
				up(p)
			}
		}
	}
	up(t)
	return c.descendants(t, seen, out)
}

// descendants appends to out t's partitions and inheritance children, at
// any depth and depth first, that seen does not hold, adding them to
// seen.
func (c *Catalog) descendants(t *Table, seen map[*Table]bool, out []*Table) []*Table {
	for _, ch := range c.children(t) {
		if !seen[ch] {
			seen[ch] = true
			out = c.descendants(ch, seen, append(out, ch))
		}
	}
	return out
}

// PartitionOf returns the partitioned table t is a partition of, or nil.
func (t *Table) PartitionOf() *Table { return t.partitionOf }

// QualifiedName returns schema.name, or name in the default schema.
func (t *Table) QualifiedName() string {
	if t.Schema == "" || t.Schema == DefaultSchema {
		return t.Name
	}
	return t.Schema + "." + t.Name
}

// Column returns the column named name, or nil.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// TextNoDefault returns, for a write of t that evaluates the DEFAULT of
// none of columns noDefault (their present names; "*" every column),
// the column names whose DEFAULT in the text of t's schema statements
// (Hooks) the write does not evaluate: a name written there is the one
// its column had then, which a rename may since have given another
// column (RENAME COLUMN n TO m; ADD COLUMN n: the DEFAULT written for n
// is m's). A name is left out only when every column of t that has or
// had it is among noDefault (issue 24, trial t24f rename2 b8).
func (t *Table) TextNoDefault(noDefault []string) []string {
	if slices.Contains(noDefault, "*") {
		return []string{"*"}
	}
	var names []string
	for _, c := range t.Columns {
		for _, n := range append([]string{c.Name}, c.former...) {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	var out []string
	for _, n := range names {
		all := true
		for _, c := range t.Columns {
			if (c.Name == n || slices.Contains(c.former, n)) && !slices.Contains(noDefault, c.Name) {
				all = false
				break
			}
		}
		if all {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// FenceColumn returns the fencing-token column, or nil for an unfenced
// table.
func (t *Table) FenceColumn() *Column {
	if t.Fence == nil {
		return nil
	}
	return t.Column(t.Fence.Column)
}

// sequenceColumns are the columns of every sequence relation (PostgreSQL
// docs, CREATE SEQUENCE: "SELECT * FROM name" shows last_value, log_cnt
// and is_called).
var sequenceColumns = []struct {
	name, typ string
}{{"last_value", "int8"}, {"log_cnt", "int8"}, {"is_called", "bool"}}

// NewSequence returns the relation of sequence schema.name.
func NewSequence(schema, name string) *Table {
	t := &Table{Schema: schema, Name: name, IsSequence: true}
	for _, c := range sequenceColumns {
		t.Columns = append(t.Columns, &Column{Name: c.name, Type: Type{Schema: "pg_catalog", Name: c.typ}, NotNull: true, attNotNull: true, Table: t})
	}
	return t
}

// Enum is an enum type.
type Enum struct {
	Schema  string
	Name    string
	Values  []string
	Comment string
	// SqlcPublic is Table.SqlcPublic's for an enum.
	SqlcPublic bool
	// Linked is, for a MySQL ENUM or SET column's type, the column: the
	// enum is named <table>_<column> and follows the column's renames
	// and drops, as in sqlc's catalog.
	Linked *Column
	// File, Line, Col locate the CREATE TYPE statement.
	File      string
	Line, Col int
}

// Func is a function signature.
type Func struct {
	Schema   string
	Name     string
	ArgTypes []Type
	// ArgDBTypes and ReturnDBType spell ArgTypes and an explicit RETURNS
	// type as the parser records them (see Column.DBType): sqlc matches
	// db_type overrides against a call's parameters and result with
	// these spellings only ("pg_catalog.int4" for int, "bool" for bool).
	ArgDBTypes   []string
	ReturnDBType string
	ArgNames     []string
	ReturnType   *Type
	// ReturnsTable lists the columns of RETURNS TABLE / SETOF composite.
	ReturnsTable []*Column
	ReturnsSet   bool
	// TableReturn is set when ReturnsTable comes from RETURNS TABLE
	// (...), not from OUT parameters (sqlc names the one column of the
	// first after the function in FROM, of the second after the OUT
	// parameter).
	TableReturn bool
	// Returns is the type the RETURNS clause names, as sqlc v1.31.1's
	// catalog keeps it (PostgreSQL's parser's returnType): RETURNS TABLE
	// of one column that column's type, of several record; nil where
	// RETURNS is not written (a function of OUT parameters, a
	// procedure). sqlc reads a function in FROM from it (analyze's
	// sqlcRangeFunc).
	Returns *Type
	// Procedure is set for CREATE PROCEDURE.
	Procedure bool
	// Variadic is set when the last parameter is VARIADIC.
	Variadic bool
	// Defaults are the source text of the parameters' DEFAULT
	// expressions (SELECT expr), evaluated in the caller.
	Defaults []string
	// Language is the function's language in lower case ("sql",
	// "plpgsql", ...), and Body its source text: the AS string, or the
	// deparsed statements of a SQL-standard body (BEGIN ATOMIC ... END).
	// The analyzer reads them to find writes to fenced tables hidden in
	// the function.
	Language string
	Body     string
	// Source is the text of the CREATE FUNCTION statement, which
	// PostgreSQL's PL/pgSQL parser reads (package writes, Body).
	Source string
	// Volatility is 'i' (IMMUTABLE), 's' (STABLE) or 'v' (VOLATILE, also
	// when CREATE FUNCTION does not say), as pg_proc.provolatile.
	Volatility byte
	// File and Line locate the CREATE FUNCTION statement, for messages.
	File string
	Line int
	// VolatilityAt locates the statement that gave the function its
	// Volatility: its CREATE [OR REPLACE] FUNCTION, or the last ALTER
	// FUNCTION ... IMMUTABLE, STABLE or VOLATILE of it.
	VolatilityAt Position
	// Former are the names, lower case, the function had before ALTER
	// FUNCTION ... RENAME TO. PostgreSQL binds a column DEFAULT, a CHECK,
	// a generated column, an index expression, a policy, a view, a
	// domain, an operator, a cast or an event trigger to the function
	// itself (its OID) when it is created: one written with a former
	// name still runs this function after the rename, while fencegen
	// reads those statements' text by name. The analysis counts a
	// former name as naming the function too (conservatively: also in
	// text written after the rename, which PostgreSQL binds to another
	// function of that name).
	Former []string
	// sig identifies the function among its schema's functions of its
	// name, as PostgreSQL does: its input argument types, each as
	// argKey spells it (a domain apart from its base type). DROP,
	// ALTER ... RENAME and SET SCHEMA and CREATE OR REPLACE of a
	// function match it (issue 24, trial t24f overdrop).
	sig []string
	// Bound, for a SQL-standard body (BEGIN ATOMIC ... END, RETURN
	// expr), are the relations its names could denote when the function
	// was created, which PostgreSQL binds the body to (by OID): keyed by
	// the name as written, lower case, "schema|name" or "|name"
	// (unqualified, as the search_path resolved it then). A table renamed
	// or moved since is still the one the body reads and writes; nil for
	// a body bound by name when run.
	Bound map[string]*Table
}

// UserType is a user-defined type other than an enum: a composite type
// (CREATE TYPE x AS (...)), a range type or a domain.
type UserType struct {
	Schema string
	Name   string
	// Kind is "composite", "range" or "domain".
	Kind string
	// Columns are a composite type's fields.
	Columns []*Column
	// Base is a domain's underlying type; NotNull is set by its NOT NULL
	// constraint.
	Base    Type
	NotNull bool
	Comment string
	// hasDefault is set by a domain's DEFAULT (its own, or its base
	// domain's as CREATE DOMAIN copied it; ALTER DOMAIN ... SET DEFAULT),
	// defaultAtMost1 when that is an integer constant at or below 1: the
	// default of a column of the domain without one of its own.
	hasDefault, defaultAtMost1 bool
	// over are the domains a domain's base goes through, outermost
	// first (CREATE DOMAIN d2 AS d1: d1 and d1's).
	over []Type
	// Constructors are a range type's constructor functions' names:
	// its own and its multirange type's.
	Constructors []string
	// Former are the names, lower case, the type had before ALTER TYPE
	// (or DOMAIN) ... RENAME TO: a column, field or function that was
	// declared of it is of it still (PostgreSQL binds types by OID), as
	// Table.Former.
	Former []string
}

// UnnamedColumn is an unnamed expression of a view's query (Table.Unnamed):
// At is its place among the query's columns (0 first).
type UnnamedColumn struct {
	At     int
	Column *Column
}

// Schema is a namespace.
type Schema struct {
	Name   string
	Tables []*Table
	Enums  []*Enum
	Funcs  []*Func
	Types  []*UserType
	// created is set when a CREATE SCHEMA made the schema (not for the
	// public schema the catalog starts with).
	created bool
}

// DefaultSchema is where unqualified names are created and looked up first.
const DefaultSchema = "public"

// Catalog is the schema model.
type Catalog struct {
	Schemas []*Schema
	// MySQLRoutines names, for a MySQL schema, the first trigger,
	// procedure, function or event it defines ("procedure p"), whose
	// writes fencegen does not analyse on MySQL yet; "" when none.
	MySQLRoutines string
	// mysqlUse is the database a MySQL schema's first USE selected
	// before it defined anything: the project's (see updater.mysqlUse).
	mysqlUse string
	// isMySQL is set once a MySQL statement has been applied: keys and
	// indexes are then named per table (relationNameTaken).
	isMySQL bool
	// seq counts the statements applied (Update), to order marks and
	// column changes.
	seq int
	// Hooks are the schema statements whose functions PostgreSQL may run
	// from any statement: CREATE OPERATOR, CREATE CAST and domain
	// constraints (CREATE DOMAIN, ALTER DOMAIN); see Hook.
	Hooks []*Hook
	// HasStatistics is set once the schema runs CREATE STATISTICS (or
	// may, in a DO block): ANALYZE evaluates extended statistics'
	// expressions, which fencegen does not read.
	HasStatistics bool
	// Extensions are the extensions the schema creates (CREATE
	// EXTENSION), by name, each with the schema its objects live in.
	Extensions map[string]string
	// Errors collects located problems found while applying statements.
	Errors diag.List
	// notes are located remarks that are not errors (see Notes).
	notes diag.List
	// replicationRoleNotes are notes of schema statements that set
	// session_replication_role for later sessions, given by Notes while
	// a table is fenced.
	replicationRoleNotes diag.List
	// offStringErrors are errors of schema statements PostgreSQL reads
	// otherwise with standard_conforming_strings off (offStrings), given
	// by Validate while a table is fenced.
	offStringErrors diag.List
	// codeErrors are errors of schema statements whose code fencegen does
	// not read (code.go), given by Validate while a table is fenced.
	codeErrors diag.List
	// elsewhere are the tables other sql entries fence that this schema
	// does not define (FenceElsewhere).
	elsewhere []FenceElsewhere
	// reach are the relations through which a write reaches a fenced
	// table, as each sql entry's schema declares them (Reach).
	reach []Reach
	// columns types the columns of views (WithColumnGenerator); without
	// it a view has no columns.
	columns ColumnGenerator
	// searchPath is the search_path a SET search_path of the schema file
	// being applied (pathFile) set, nil for PostgreSQL's default
	// ("$user", public): unqualified names are created in its first
	// schema that exists and looked up through it (Schema, Table).
	// Validate, which ends the schema, resets it: queries are analysed
	// under the default.
	searchPath []string
	pathFile   *sqlparse.File
	// cache holds the lookups' index (lookup.go).
	cache indexCache
	// line follows where fenced tables' stored tokens live
	// (tokenline.go).
	line tokenLine
	// log are the statements of schema files applied, less those a
	// ROLLBACK undid; tx follows the transaction statements of the file
	// being applied, and replaying is set while a ROLLBACK builds the
	// catalog again from log (tx.go).
	log       []logged
	tx        txState
	replaying bool
}

// Option configures a catalog made by New.
type Option func(*Catalog)

// WithColumnGenerator gives the catalog the generator that types the
// columns of each view's query (CREATE VIEW, CREATE MATERIALIZED VIEW,
// CREATE TABLE AS). Without it, such relations have no columns.
func WithColumnGenerator(g ColumnGenerator) Option {
	return func(c *Catalog) { c.columns = g }
}

// New returns a catalog with the public and pg_catalog schemas.
func New(opts ...Option) *Catalog {
	c := &Catalog{Schemas: []*Schema{{Name: DefaultSchema}, {Name: "pg_catalog"}}}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Notes returns the located remarks about the schema that are not errors,
// sorted, each message starting "note: ": types PostgreSQL does not know
// (typed interface{} in Go, as sqlc does) and foreign keys to relations
// the schema never creates.
func (c *Catalog) Notes() diag.List {
	notes := append(append(diag.List(nil), c.notes...), c.unboundForeignKeyNotes()...)
	if len(c.FencedTables()) > 0 {
		notes = append(notes, c.replicationRoleNotes...)
	}
	return notes.Sort()
}

// Schema returns the schema named name, or nil. Name "" is the schema
// PostgreSQL creates an unqualified object in: the first schema of the
// search_path set by the schema file being applied that exists, else the
// default schema.
func (c *Catalog) Schema(name string) *Schema {
	if name == "" {
		// PostgreSQL creates an unqualified object in the first schema
		// of the search_path that exists.
		for _, p := range c.searchPath {
			for _, s := range c.Schemas {
				if s.Name == p && p != "pg_temp" {
					return s
				}
			}
		}
		name = DefaultSchema
	}
	for _, s := range c.Schemas {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Table returns the table or view schema.name (schema "" searches the
// session's temporary schema, the search_path a SET search_path of the
// schema file being applied set, the default schema, then every other
// schema, then PostgreSQL's system catalogs), or nil.
func (c *Catalog) Table(schema, name string) *Table {
	if schema != "" {
		if s := c.Schema(schema); s != nil {
			if t := c.schemaTable(s, name); t != nil {
				return t
			}
		}
		return systemTable(schema, name)
	}
	// A temporary relation comes first, as PostgreSQL searches the
	// session's pg_temp before the search_path for relations.
	if s := c.Schema("pg_temp"); s != nil {
		if t := c.schemaTable(s, name); t != nil {
			return t
		}
	}
	for _, p := range c.searchPath {
		if s := c.Schema(p); s != nil && p != "" {
			if t := c.schemaTable(s, name); t != nil {
				return t
			}
		}
	}
	if s := c.Schema(DefaultSchema); s != nil {
		if t := c.schemaTable(s, name); t != nil {
			return t
		}
	}
	for _, s := range c.Schemas {
		if t := c.schemaTable(s, name); t != nil {
			return t
		}
	}
	return systemTable("pg_catalog", name)
}

// SameNamed returns, for a name written without a schema that resolved
// to t, the other relations (tables, views, foreign tables) of that name
// in other schemas, in schema order: which of them PostgreSQL writes
// depends on the search_path at run time (a SET search_path, a
// function's SET clause, the role's setting), which fencegen cannot see.
// Nil when n is qualified.
func (c *Catalog) SameNamed(n sqlparse.Name, t *Table) []*Table {
	if n.Schema != "" {
		return nil
	}
	var out []*Table
	for _, s := range c.Schemas {
		if u := c.schemaTable(s, n.Name); u != nil && u != t && !u.IsSequence {
			out = append(out, u)
		}
	}
	return out
}

// FormerlyNamed returns the relations of the schema (not system ones)
// that were named n's name before an ALTER ... RENAME TO (Table.Former),
// whatever their schema now (ALTER ... SET SCHEMA may have moved them
// too): text PostgreSQL bound when it was created that names n may mean
// one of them.
func (c *Catalog) FormerlyNamed(n sqlparse.Name) []*Table {
	name := strings.ToLower(n.Name)
	var out []*Table
	for _, s := range c.Schemas {
		for _, t := range s.Tables {
			if !t.IsSystem() && slices.Contains(t.Former, name) {
				out = append(out, t)
			}
		}
	}
	return out
}

// FullName is t's name qualified with its schema, public included, as a
// message tells a user to write it.
func (t *Table) FullName() string {
	if t.Schema == "" {
		return DefaultSchema + "." + t.Name
	}
	return t.Schema + "." + t.Name
}

// UserType returns the composite, range or domain type schema.name, or nil.
func (c *Catalog) UserType(schema, name string) *UserType {
	for _, s := range c.Schemas {
		if schema != "" && s.Name != schema {
			continue
		}
		for _, t := range s.Types {
			if t.Name == name {
				return t
			}
		}
	}
	return nil
}

// domain returns the domain tn names (not an array of one), or nil.
func (c *Catalog) domain(tn *sqlparse.TypeName) *UserType {
	if tn == nil || tn.ArrayDims > 0 {
		return nil
	}
	if d := c.UserType(tn.Schema, tn.Name); d != nil && d.Kind == "domain" {
		return d
	}
	return nil
}

// domainChain is the domains tn goes through, outermost first (tn a
// domain or an array of one, over other domains); nil for other types.
func (c *Catalog) domainChain(tn *sqlparse.TypeName) []Type {
	if tn == nil {
		return nil
	}
	d := c.UserType(tn.Schema, tn.Name)
	if d == nil || d.Kind != "domain" {
		return nil
	}
	return append([]Type{{Schema: d.Schema, Name: d.Name}}, d.over...)
}

// isDomain reports whether tn names a domain (not an array of one).
func (c *Catalog) isDomain(tn *sqlparse.TypeName) bool { return c.domain(tn) != nil }

// declareNotNull makes c NOT NULL as a declaration does (attnotnull).
func (c *Column) declareNotNull() { c.NotNull, c.attNotNull = true, true }

// DomainNotNull reports whether tn names a domain declared NOT NULL.
func (c *Catalog) DomainNotNull(tn *sqlparse.TypeName) bool {
	d := c.domain(tn)
	return d != nil && d.NotNull
}

func (s *Schema) table(name string) *Table {
	for _, t := range s.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Enum returns the enum type schema.name, or nil.
func (c *Catalog) Enum(schema, name string) *Enum {
	for _, s := range c.Schemas {
		if schema != "" && s.Name != schema {
			continue
		}
		for _, e := range s.Enums {
			if e.Name == name {
				return e
			}
		}
	}
	return nil
}

// Funcs returns the user-defined functions named name.
func (c *Catalog) Funcs(schema, name string) []*Func {
	var out []*Func
	for _, s := range c.Schemas {
		if schema != "" && s.Name != schema {
			continue
		}
		for _, f := range s.Funcs {
			if f.Name == name {
				out = append(out, f)
			}
		}
	}
	return out
}

// FencedTables returns every fenced table, in schema order.
func (c *Catalog) FencedTables() []*Table {
	var out []*Table
	for _, s := range c.Schemas {
		for _, t := range s.Tables {
			if t.Fence != nil {
				out = append(out, t)
			}
		}
	}
	return out
}

// builtinAliases maps type names PostgreSQL's grammar leaves as written to
// their canonical names.
var builtinAliases = map[string]string{
	"serial": "int4", "serial4": "int4", "bigserial": "int8", "serial8": "int8",
	"smallserial": "int2", "serial2": "int2", "integer": "int4", "int": "int4",
	"bigint": "int8", "smallint": "int2", "decimal": "numeric", "real": "float4",
	"boolean": "bool", "character varying": "varchar", "double precision": "float8",
}

// builtins are the pg_catalog types the type mapper knows.
var builtins = map[string]bool{
	"int2": true, "int4": true, "int8": true, "float4": true, "float8": true, "numeric": true,
	"bool": true, "text": true, "varchar": true, "bpchar": true, "char": true, "name": true,
	"bytea": true, "date": true, "time": true, "timetz": true, "timestamp": true, "timestamptz": true,
	"interval": true, "uuid": true, "json": true, "jsonb": true, "inet": true, "cidr": true,
	"macaddr": true, "macaddr8": true, "bit": true, "varbit": true, "money": true, "oid": true,
	"xml": true, "tsvector": true, "tsquery": true, "point": true, "line": true, "lseg": true,
	"box": true, "path": true, "polygon": true, "circle": true, "int4range": true, "int8range": true,
	"numrange": true, "tsrange": true, "tstzrange": true, "daterange": true, "int4multirange": true,
	"int8multirange": true, "nummultirange": true, "tsmultirange": true, "tstzmultirange": true,
	"datemultirange": true, "void": true, "record": true, "any": true, "anyelement": true,
	"anyarray": true, "trigger": true, "regclass": true, "regtype": true, "xid": true, "cstring": true,
	"citext": true, "hstore": true, "ltree": true, "vector": true, "anyenum": true, "unknown": true,
	"jsonpath": true, "pg_lsn": true, "bit varying": true, "lquery": true, "ltxtquery": true,
	"tid": true, "cid": true, "xid8": true, "regproc": true, "regprocedure": true, "regnamespace": true,
	"regrole": true, "regoper": true, "regconfig": true, "aclitem": true, "int2vector": true,
	"oidvector": true, "pg_node_tree": true, "txid_snapshot": true, "pg_snapshot": true, "refcursor": true,
}

// KnownTypeName reports whether name is a type the catalog knows without
// a schema: pg_catalog's, and the common extensions' (citext, hstore,
// ltree, vector), wherever they are installed.
func KnownTypeName(name string) bool { return builtins[name] }

// ResolveType turns a parsed type name into a Type, looking up user types.
// It reports ok=false for an unknown type.
func (c *Catalog) ResolveType(tn *sqlparse.TypeName) (Type, bool) {
	if tn == nil {
		return Type{Schema: "pg_catalog", Name: "unknown"}, false
	}
	if tn.Schema == MySQLSchema {
		return c.resolveMySQLType(tn)
	}
	name := strings.ToLower(tn.Name)
	if a, ok := builtinAliases[name]; ok {
		name = a
	}
	if tn.Schema == "pg_catalog" || (tn.Schema == "" && builtins[name]) {
		bare := tn.Schema == "" && (name == "bpchar" || name == "timetz")
		return Type{Schema: "pg_catalog", Name: name, ArrayDims: tn.ArrayDims, Bare: bare}, builtins[name] || tn.Schema == "pg_catalog"
	}
	if e := c.Enum(tn.Schema, tn.Name); e != nil {
		return Type{Schema: e.Schema, Name: e.Name, ArrayDims: tn.ArrayDims}, true
	}
	if u := c.UserType(tn.Schema, tn.Name); u != nil {
		if u.Kind == "domain" {
			// A domain is its base type with constraints.
			t := u.Base
			t.ArrayDims += tn.ArrayDims
			return t, true
		}
		return Type{Schema: u.Schema, Name: u.Name, ArrayDims: tn.ArrayDims}, true
	}
	if t := c.Table(tn.Schema, tn.Name); t != nil && !t.IsSequence {
		return Type{Schema: t.Schema, Name: t.Name, ArrayDims: tn.ArrayDims}, true
	}
	// Extension types living in a user schema (e.g. public.citext).
	if builtins[name] {
		return Type{Schema: "pg_catalog", Name: name, ArrayDims: tn.ArrayDims}, true
	}
	return Type{Schema: tn.Schema, Name: tn.Name, ArrayDims: tn.ArrayDims}, false
}

// anyMark finds anything that looks like a fencegen annotation, however
// misspelt, so that a typo is an error and never silently unfences a table.
var nearMark = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(?:fence[-_ ]?gen[-_ :]*|fence:)tok\w*`) })

var anyMark = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bfence[-_ ]?gen\s*:\s*(\S*)(?:[ \t,]+(\S+))?`) })

// ParseFenceComment reports whether a column comment marks the column as a
// fencing token ("fencegen:token", optionally followed by "strict" or
// "non-strict"), and the mode it asks for. A comment that mentions
// "fencegen:" in any other way is an error: a misspelt mark must not leave
// the table unfenced, nor a misspelt mode leave it non-strict.
func ParseFenceComment(comment string) (marked, strict bool, err error) {
	marked, mode, err := ParseFenceMark(comment)
	return marked, mode == "strict", err
}

// ParseFenceMark is ParseFenceComment with the mode the mark gives:
// "strict", "non-strict", "required" or "" (none: non-strict).
func ParseFenceMark(comment string) (marked bool, mode string, err error) {
	marked, strict, required, err := parseFenceComment(comment)
	switch {
	case strict:
		mode = "strict"
	case required:
		mode = "required"
	}
	return marked, mode, err
}

func parseFenceComment(comment string) (marked, strict, required bool, err error) {
	m := anyMark().FindStringSubmatch(comment)
	if m == nil {
		// Near misses without the colon ("fencegen token", "fencegen_token",
		// "fence:token") are errors too.
		if n := nearMark().FindString(comment); n != "" {
			return false, false, false, fmt.Errorf("unrecognised fencegen annotation %q in the column comment: want 'fencegen:token', 'fencegen:token strict', 'fencegen:token non-strict' or 'fencegen:token required'", n)
		}
		return false, false, false, nil
	}
	if !strings.HasPrefix(m[0], "fencegen:token") || strings.TrimRight(m[1], ".,;:)'\"") != "token" {
		return false, false, false, fmt.Errorf("unrecognised fencegen annotation %q in the column comment: want 'fencegen:token', 'fencegen:token strict', 'fencegen:token non-strict' or 'fencegen:token required'", strings.TrimSpace(m[0]))
	}
	if strings.HasPrefix(m[0], "fencegen:token,") && m[2] != "" {
		return false, false, false, fmt.Errorf("write the fencing mode after a space, as in 'fencegen:token strict', not %q", strings.TrimSpace(m[0]))
	}
	switch strings.TrimRight(m[2], ".;)") {
	case "":
		return true, false, false, nil
	case "strict":
		return true, true, false, nil
	case "non-strict", "nonstrict":
		return true, false, false, nil
	case "required":
		return true, false, true, nil
	}
	if m[1] != "token" {
		// The mark ends a sentence ("fencegen:token. Highest token ..."):
		// what follows is ordinary comment text.
		return true, false, false, nil
	}
	word := strings.ToLower(strings.TrimRight(m[2], ".;)"))
	for _, mode := range []string{"strict", "non-strict", "required"} {
		if len(word) <= len(mode)+1 && editDistance(word, mode) <= 2 {
			return false, false, false, fmt.Errorf("unrecognised fencing mode %q after fencegen:token: want 'strict', 'non-strict' or 'required'", m[2])
		}
	}
	if r, _ := utf8.DecodeRuneInString(word); unicode.IsLetter(r) || unicode.IsDigit(r) {
		// A word right after the mark is read as its mode: an unknown one
		// ("stricter", "exclusive") must not silently mean non-strict.
		return false, false, false, fmt.Errorf("unrecognised word %q after fencegen:token: the mark is 'fencegen:token', 'fencegen:token strict', 'fencegen:token non-strict' or 'fencegen:token required' (end it with '.' or ';' before other comment text)", m[2])
	}
	// Text set off from the mark ("fencegen:token - highest token ...",
	// "fencegen:token (see docs)") is ordinary comment text.
	return true, false, false, nil
}

// MarkFence marks table.column as the table's fencing token, checking
// that the column is usable as one.
func (c *Catalog) MarkFence(t *Table, column string, strict bool, source, file string, line, col int) {
	if t.Fence != nil && t.Fence.Column != column {
		c.Errors.AddErr(&diag.Error{File: file, Line: line, Col: col, Err: ErrFence,
			Msg: fmt.Sprintf("table %s already has fencing token column %q (marked at %s:%d); a table has one fencing token", t.QualifiedName(), t.Fence.Column, t.Fence.File, t.Fence.Line)})
		return
	}
	t.Fence = &Fence{Column: column, Strict: strict, Source: source, File: file, Line: line, Col: col, seq: c.seq}
}

// Validate passes each fenced table's mark on to its partitions and
// inheritance children (see Fence.From), checks every fenced table's token
// column and returns the problems found while building the catalog.
func (c *Catalog) Validate() diag.List {
	c.searchPath, c.pathFile = nil, nil // the schema ends (see searchPath)
	c.endTokenFile()
	errs := append(diag.List(nil), c.Errors...)
	errs = append(errs, c.inheritFences()...)
	if len(c.FencedTables()) > 0 || c.FencesElsewhere() {
		errs = append(errs, c.offStringErrors...)
		errs = append(errs, c.codeErrors...)
	}
	for _, t := range c.FencedTables() {
		f := t.Fence
		if f.From != nil {
			// Checked on the table marked, and here where the child's
			// own column differs: a partition's or inheritance child's
			// own DEFAULT (PARTITION OF p (tok DEFAULT 999)), or its
			// DROP NOT NULL, which an INSERT into the child or a NULL
			// stored there meets as they would on the table marked
			// (trial t24h F_partdefault, F_child_nullable).
			if err := c.childTokenProblem(t, f.Column); err != nil {
				errs.AddErr(err)
			}
			continue
		}
		c.tokenCheckNotes(t)
		errs = append(errs, c.strayMarkText(t)...)
		col := t.Column(f.Column)
		if col != nil && col.changed != nil && (col.seq > f.seq || f.Source == "config") {
			// The column was made unusable after it was marked (or,
			// marked in the configuration, by an ALTER TABLE): reported
			// at that statement.
			f = &Fence{Column: f.Column, File: col.changed.File, Line: col.changed.Line, Col: col.changed.Col}
		}
		if col != nil && col.Type.Name == "int4" && !col.Type.IsArray() && col.Type.Schema == "pg_catalog" {
			// Accepted, as a column retyped from bigint (a migration)
			// keeps its guard, but noted: tokens are int64
			// (fence.Token), and an etcd lease's follow the cluster's
			// revision.
			c.notes.AddErr(&diag.Error{File: f.File, Line: f.Line, Col: f.Col, Err: ErrFence,
				Msg: fmt.Sprintf("note: fencing token column %s.%s is integer: tokens are int64 (fence.Token), and once the lease mints one above 2,147,483,647 (an etcd lease's token follows the whole cluster's revision) every write of the table fails to encode it, writing nothing; declare it BIGINT NOT NULL DEFAULT 0", t.QualifiedName(), col.Name)})
		}
		if msg := c.tokenColumnProblem(t, f.Column); msg != "" {
			errs.AddErr(&diag.Error{File: f.File, Line: f.Line, Col: f.Col, Err: ErrFence, Msg: msg})
		}
	}
	return errs
}

// tokenColumnProblem is the error of fenced table t's token column column
// ("fencing token column ... must be NOT NULL: ..."), or "" when it is
// usable as one.
func (c *Catalog) tokenColumnProblem(t *Table, column string) string {
	col := t.Column(column)
	badType, why := false, "it must be bigint, the lease's int64 token, so that tokens compare in order; declare it BIGINT NOT NULL DEFAULT 0"
	if col != nil {
		badType = col.Type.IsArray() || col.Type.Schema != "pg_catalog" || (col.Type.Name != "int8" && col.Type.Name != "int4")
		if col.Type.Schema == MySQLSchema {
			badType, why = mysqlTokenType(col.Type)
		}
	}
	switch {
	case t.IsView:
		return fmt.Sprintf("%s is a view; only tables can be fenced", t.QualifiedName())
	case col == nil:
		return fmt.Sprintf("fencing token column %q does not exist in table %s", column, t.QualifiedName())
	case badType:
		if col.Type.Name == "int2" && !col.Type.IsArray() {
			why = "smallint cannot hold every int64 token the lease mints (a write fails to encode one above 32,767); declare it BIGINT NOT NULL DEFAULT 0"
		}
		return fmt.Sprintf("fencing token column %s.%s has type %s: %s", t.QualifiedName(), col.Name, col.Type, why)
	case col.Generated:
		server := "PostgreSQL"
		if col.Type.Schema == MySQLSchema {
			server = "MariaDB/MySQL"
		}
		kind := "STORED"
		if col.GeneratedVirtual {
			kind = "VIRTUAL"
		}
		return fmt.Sprintf("fencing token column %s.%s is a generated column (GENERATED ALWAYS AS ... %s): %s computes it and refuses to store a value into it, so the guard could not store the presented token; declare it BIGINT NOT NULL DEFAULT 0", t.QualifiedName(), col.Name, kind, server)
	case col.Identity:
		return fmt.Sprintf("fencing token column %s.%s is an identity column: its values come from a sequence (and GENERATED ALWAYS refuses the stored token), so a row would start with an arbitrary token; fencegen stores the lease's token itself: declare it BIGINT NOT NULL DEFAULT 0", t.QualifiedName(), col.Name)
	case col.AutoIncrement:
		return fmt.Sprintf("fencing token column %s.%s is an AUTO_INCREMENT column: the server replaces a stored 0 or NULL with the table's next counter value, so a row would start with an arbitrary token; fencegen stores the lease's token itself: declare it BIGINT NOT NULL DEFAULT 0", t.QualifiedName(), col.Name)
	case col.HasDefault && col.Sequence:
		return fmt.Sprintf("fencing token column %s.%s is a serial column: its default draws from a sequence, so a row would start with an arbitrary token; fencegen stores the lease's token itself: declare it BIGINT NOT NULL DEFAULT 0", t.QualifiedName(), col.Name)
	case c.defaultAbove1(col):
		return fmt.Sprintf("fencing token column %s.%s has a DEFAULT that is not an integer constant at or below 1 (the first token a lease mints): a row created without a token (an INSERT that leaves the column out, or writes DEFAULT) would store a token the lease never minted, above the tokens of its holders or changing with the clock, so their guarded writes of that row would be refused as stale; declare it BIGINT NOT NULL DEFAULT 0 (0 is what a row no fenced write has touched stores)", t.QualifiedName(), col.Name)
	case !col.NotNull:
		return fmt.Sprintf("fencing token column %s.%s must be NOT NULL: a NULL stored token never compares (NULL <= $token is never true), so every fenced write would be refused; declare it BIGINT NOT NULL DEFAULT 0", t.QualifiedName(), col.Name)
	}
	return ""
}

// childTokenProblem is the error of t, a partition or inheritance child
// of a fenced table, whose own token column has a problem
// (tokenColumnProblem) that none of its parents' has: the child's own
// DEFAULT or DROP NOT NULL. It is located at the statement that gave the
// child's column its DEFAULT or changed it (Column.changed, where not its
// parents'), else at the child's CREATE TABLE. nil when there is none, or
// a parent has it too (reported there).
func (c *Catalog) childTokenProblem(t *Table, column string) *diag.Error {
	col := t.Column(column)
	if col == nil || t.IsView {
		return nil
	}
	msg := c.tokenColumnProblem(t, column)
	if msg == "" {
		return nil
	}
	own := col.changed != nil
	for _, p := range t.parents {
		pc := p.Column(column)
		if pc == nil || p.Fence == nil || p.Fence.Column != column {
			continue
		}
		if c.tokenColumnProblem(p, column) != "" {
			return nil // the parent's own, reported on it
		}
		if pc.changed == col.changed {
			own = false // the parent's change, copied with the column
		}
	}
	at := &diag.Error{File: t.File, Line: t.Line, Col: t.Col, Err: ErrFence, Msg: msg}
	if own {
		at.File, at.Line, at.Col = col.changed.File, col.changed.Line, col.changed.Col
	}
	return at
}

// defaultAbove1 reports whether column col's default is other than an
// integer constant at or below 1: its own DEFAULT, or without one the
// default of the domain it is declared of (trial r24 N5: CREATE DOMAIN
// tok AS bigint DEFAULT 5 gave the column 5 unnoticed).
func (c *Catalog) defaultAbove1(col *Column) bool {
	if col.HasDefault {
		return !col.defaultAtMost1
	}
	if len(col.domains) > 0 {
		if d := c.UserType(col.domains[0].Schema, col.domains[0].Name); d != nil && d.Kind == "domain" && d.hasDefault {
			return !d.defaultAtMost1
		}
	}
	return false
}

// inheritFences gives every descendant of a fenced table (partitions,
// INHERITS children, at any depth) its ancestor's fence: PostgreSQL's
// UPDATE and DELETE on a parent write the children's rows, and a write
// named on a child writes rows the parent's readers see. A table marked
// itself with another column is an error.
func (c *Catalog) inheritFences() diag.List {
	var errs diag.List
	var tables []*Table
	for _, s := range c.Schemas {
		for _, t := range s.Tables {
			if t.Fence != nil && t.Fence.From != nil {
				t.Fence = nil // recomputed below
			}
			tables = append(tables, t)
		}
	}
	var ancestorFence func(t *Table, seen map[*Table]bool) *Fence
	ancestorFence = func(t *Table, seen map[*Table]bool) *Fence {
		for _, p := range t.parents {
			if seen[p] {
				continue
			}
			seen[p] = true
			if p.Fence != nil && p.Fence.From == nil {
				f := *p.Fence
				f.From = p
				return &f
			}
			if f := ancestorFence(p, seen); f != nil {
				return f
			}
		}
		return nil
	}
	for _, t := range tables {
		f := ancestorFence(t, map[*Table]bool{t: true})
		switch {
		case f == nil:
		case t.Fence == nil:
			t.Fence = f
		case t.Fence.Column != f.Column:
			errs.AddErr(&diag.Error{File: t.Fence.File, Line: t.Fence.Line, Col: t.Fence.Col, Err: ErrFence,
				Msg: fmt.Sprintf("table %s inherits fencing token column %q from %s (marked at %s:%d); a table has one fencing token", t.QualifiedName(), f.Column, f.From.QualifiedName(), f.File, f.Line)})
		}
	}
	return errs
}

// editDistance is the optimal string alignment distance between a and b
// (insertions, deletions, substitutions and adjacent transpositions).
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
