package sqlparse

import (
	pg "github.com/pganalyze/pg_query_go/v5"
	tidb "github.com/pingcap/tidb/pkg/parser/ast"
)

// This file is fencegen's own small SQL syntax tree. Only the parts that the
// catalog and the analyzer need are modelled; everything else becomes an
// Unknown node that keeps its location. Locations are byte offsets into the
// parsed source (the whole file), or -1 when PostgreSQL gives none.

// Node is any node of the tree.
type Node interface{ Pos() int }

// Stmt is a top-level statement with its span in the source.
type Stmt struct {
	// Start and End are byte offsets of the statement text in the file,
	// End exclusive and before the terminating semicolon.
	Start, End int
	// Lead is where the text that belongs to the statement begins: just
	// after the previous statement's semicolon (or the file's start). The
	// comments between Lead and Start are the statement's annotation.
	Lead int
	// SqlcStart is, for a MySQL statement, where sqlc v1.31.1 places it:
	// the first occurrence in the file of the TiDB parser's text of it
	// (which begins after the leading "--" comments, at the file's start
	// for the first statement). sqlc reports there an error that has no
	// position of its own.
	SqlcStart int
	// Node is the converted statement.
	Node Node
	// Raw is the statement's whole parse tree as PostgreSQL's parser
	// returns it (pg_query's protobuf tree), locations being byte offsets
	// into the file. Only the write analysis (package writes) reads it:
	// it must see every node, the ones Node leaves out (Unknown) too.
	Raw *pg.Node
	// MySQL is, for a statement of a MySQL configuration (package
	// mysqlparse), the TiDB parser's whole statement, offsets in it
	// being byte offsets into the file; Raw is then nil.
	MySQL tidb.StmtNode
	// SqlcSkips is set for a MySQL statement that sqlc v1.31.1 drops
	// from the file with its leading comments (its converter has no node
	// for it: CREATE INDEX, CREATE PROCEDURE, SET, ...): never a query.
	// The catalog and the write analysis still read it.
	SqlcSkips bool
}

// Name is a possibly schema-qualified name.
type Name struct {
	Schema string
	Name   string
	Loc    int
}

func (n *Name) Pos() int { return n.Loc }

// String returns schema.name or name.
func (n *Name) String() string {
	if n.Schema != "" {
		return n.Schema + "." + n.Name
	}
	return n.Name
}

// TypeName is a type reference such as bigint, numeric(15,2), text[].
type TypeName struct {
	Schema string
	// Name is the type name as PostgreSQL's parser reports it: built-in
	// aliases are already canonical (int8, int4, numeric, bool, varchar...).
	Name string
	// ArrayDims is the number of [] suffixes.
	ArrayDims int
	Setof     bool
	// Typmod is set when the type has modifiers: varchar(10),
	// numeric(15, 2), timestamp(3).
	Typmod bool
	Loc    int
	// Unsigned and Length are a MySQL type's (Schema "mysql"): UNSIGNED,
	// and the display width or length written (0 when none), which
	// sqlc reads for tinyint(1).
	Unsigned bool
	Length   int
	// Scale is a MySQL type's digits after the point as written: a
	// DECIMAL's scale, a DATETIME's, TIMESTAMP's or TIME's fractional
	// seconds; 0 when none is written (MySQL's default for each).
	Scale int
	// Values are a MySQL ENUM's or SET's members.
	Values []string
	// SqlcSchema is the schema sqlc v1.31.1's parser (PostgreSQL 17's
	// grammar) qualifies the name with where this one (16's) gives none:
	// "pg_catalog" for json written without quotes, a keyword there.
	// Only how sqlc spells the type (its db_type overrides) reads it.
	SqlcSchema string
}

func (n *TypeName) Pos() int { return n.Loc }

// Unknown is a statement or expression fencegen does not model.
type Unknown struct {
	// Kind is the PostgreSQL node name, e.g. "CreateIndexStmt".
	Kind string
	Loc  int
	// Params are the parameters inside a MySQL statement or expression
	// that is not modelled (MySQL's ? are positional: each is sent, typed
	// interface{}).
	Params []*Param
}

func (n *Unknown) Pos() int { return n.Loc }

// Explain is EXPLAIN [ANALYZE] of a SELECT (VALUES included), INSERT,
// UPDATE or DELETE: Query is that statement, converted. EXPLAIN of
// another statement (MERGE, EXECUTE, DECLARE CURSOR, CREATE TABLE AS)
// stays Unknown. Whether it runs (ANALYZE) is the write analysis's
// question (package writes reads Stmt.Raw).
type Explain struct {
	Query Node
	Loc   int
}

func (n *Explain) Pos() int { return n.Loc }

// Wrapped is a statement that wraps a query whose parameters sqlc
// v1.31.1 reads as the wrapper's: Verb "DECLARE CURSOR" (of a SELECT,
// VALUES included; PostgreSQL binds the DECLARE's parameters to it),
// "COPY" (COPY (query) TO) or "PREPARE" (PREPARE name AS query), whose
// query PostgreSQL binds no parameter of the statement to. Query is the
// query, converted. What runs is the write analysis's question (package
// writes reads Stmt.Raw).
type Wrapped struct {
	Verb  string
	Query Node
	Loc   int
}

func (n *Wrapped) Pos() int { return n.Loc }

// SetSearchPath is SET [LOCAL] search_path TO schemas, and SET
// search_path TO DEFAULT or RESET search_path (Default). Each schema is a
// name as PostgreSQL reads it ("$user" included).
type SetSearchPath struct {
	Schemas []string
	Default bool
	Local   bool
	Loc     int
}

func (n *SetSearchPath) Pos() int { return n.Loc }

// ---- DDL ----

// CreateTable is CREATE TABLE.
type CreateTable struct {
	Table       Name
	IfNotExists bool
	Columns     []*ColumnDef
	// PrimaryKey lists the table-level PRIMARY KEY columns.
	PrimaryKey []string
	// Inherits lists parent tables (INHERITS or PARTITION OF).
	Inherits []Name
	// Keys are the PRIMARY KEY and UNIQUE constraints, column-level and
	// table-level, in order; ForeignKeys the FOREIGN KEY constraints.
	Keys        []*KeyConstraint
	ForeignKeys []*ForeignKey
	// PartitionOf is set for CREATE TABLE ... PARTITION OF (Inherits[0]
	// is the partitioned table); PartitionBy for a partitioned table.
	PartitionOf bool
	PartitionBy bool
	// LikeTables lists tables copied with LIKE, and LikeOptions the
	// INCLUDING options of each (PostgreSQL's TableLikeOption bits: see
	// LikeComments, LikeDefaults, ...).
	LikeTables  []Name
	LikeOptions []uint32
	// OnCommitDrop is set for CREATE TEMP TABLE ... ON COMMIT DROP: the
	// table is gone when the transaction that made it ends.
	OnCommitDrop bool
	// Temp is set for CREATE TEMP TABLE with no schema written (Table's
	// Schema is then pg_temp).
	Temp bool
	// Comments are a MySQL table's column COMMENT options, applied as
	// COMMENT ON COLUMN once the table exists (the fence mark among them).
	Comments []*Comment
}

func (n *CreateTable) Pos() int { return n.Table.Loc }

// INCLUDING options of CREATE TABLE ... (LIKE t ...), as PostgreSQL's
// TableLikeOption bits (src/include/nodes/parsenodes.h; INCLUDING ALL
// sets them all).
const (
	LikeComments  uint32 = 1 << 0
	LikeDefaults  uint32 = 1 << 3
	LikeGenerated uint32 = 1 << 4
	LikeIdentity  uint32 = 1 << 5
	LikeIndexes   uint32 = 1 << 6
)

// ForeignKey is a FOREIGN KEY (or REFERENCES) constraint: Columns of the
// table refer to the row of Parent. OnDelete and OnUpdate are PostgreSQL's
// action codes: 'a' NO ACTION, 'r' RESTRICT, 'c' CASCADE, 'n' SET NULL,
// 'd' SET DEFAULT.
type ForeignKey struct {
	// Name is the constraint's name; "" when PostgreSQL chooses it.
	Name    string
	Columns []string
	Parent  Name
	// Refs are the parent's columns referred to; empty for its primary
	// key.
	Refs               []string
	OnDelete, OnUpdate byte
}

// KeyConstraint is a PRIMARY KEY or UNIQUE constraint. Name is "" when
// PostgreSQL chooses it.
type KeyConstraint struct {
	Name    string
	Columns []string
	Primary bool
	// Index is the unique index of ADD CONSTRAINT ... USING INDEX (Columns
	// is then empty: they are the index's).
	Index string
	// Prefix is, for each of Columns, the length of the prefix the key
	// compares (MySQL's UNIQUE (email(10))), 0 for the whole value; nil
	// when no part has one.
	Prefix []int
}

// ColumnDef is a column in CREATE TABLE or ALTER TABLE ADD COLUMN.
type ColumnDef struct {
	Name       string
	Type       *TypeName
	NotNull    bool
	PrimaryKey bool
	HasDefault bool
	Generated  bool
	// GeneratedVirtual is set for a MySQL generated column declared
	// VIRTUAL (or with no kind, MySQL's default); Generated is set too.
	GeneratedVirtual bool
	Identity         bool
	// Serial is set for serial, bigserial and smallserial columns.
	Serial bool
	// AutoIncrement is set for a MySQL AUTO_INCREMENT column (HasDefault
	// is set too).
	AutoIncrement bool
	// IdentityAlways is set for GENERATED ALWAYS AS IDENTITY (Identity
	// is set too); GeneratedStored for GENERATED ALWAYS AS (expr) STORED.
	IdentityAlways bool
	// IdentityNotNull is set when the column is NOT NULL only by being an
	// identity column (no NOT NULL or PRIMARY KEY of its own), which
	// sqlc v1.31.1's catalog reads as nullable.
	IdentityNotNull bool
	// DefaultNull is set when the DEFAULT is a NULL constant, perhaps
	// cast (PostgreSQL stores no default for it unless the type is a
	// domain).
	DefaultNull bool
	// DefaultAtMost1 is set when the DEFAULT is an integer constant at
	// or below 1 (the first token a lease mints), perhaps cast: what a
	// fencing token column may default to (by convention 0, what a row no
	// fenced write has touched stores).
	DefaultAtMost1 bool
	// SequenceName is an identity column's SEQUENCE NAME option (the
	// sequence PostgreSQL makes for it); empty for the default name.
	SequenceName Name
	// Keys are the column's PRIMARY KEY and UNIQUE constraints, and
	// ForeignKeys its REFERENCES constraints (for ALTER TABLE ... ADD
	// COLUMN; CREATE TABLE lists them in its own Keys and ForeignKeys).
	Keys        []*KeyConstraint
	ForeignKeys []*ForeignKey
	Loc         int
}

func (n *ColumnDef) Pos() int { return n.Loc }

// AlterTable is ALTER TABLE with its commands.
type AlterTable struct {
	Table     Name
	MissingOK bool
	// Only is set by ALTER TABLE ONLY: the table's inheritance children
	// and partitions are left alone.
	Only bool
	Cmds []*AlterCmd
	// Comments are, on MySQL, the COMMENTs of the columns the commands
	// add (ADD, CHANGE and MODIFY COLUMN), applied after the commands.
	Comments []*Comment
}

func (n *AlterTable) Pos() int { return n.Table.Loc }

// AlterCmdKind says what an AlterCmd does.
type AlterCmdKind int

const (
	AlterOther AlterCmdKind = iota
	AlterAddColumn
	AlterDropColumn
	AlterColumnType
	AlterSetNotNull
	AlterDropNotNull
	AlterAddPrimaryKey
	AlterAddUnique
	AlterAddForeignKey
	// AlterAttachPartition and AlterDetachPartition name the partition
	// in Other; AlterInherit and AlterNoInherit the parent.
	AlterAttachPartition
	AlterDetachPartition
	AlterInherit
	AlterNoInherit
	// AlterDropConstraint drops the constraint named Constraint (RENAME
	// CONSTRAINT is a Rename).
	AlterDropConstraint
	// AlterSetDefault and AlterDropDefault are ALTER COLUMN SET / DROP
	// DEFAULT.
	AlterSetDefault
	AlterDropDefault
	// AlterAddIdentity is ALTER COLUMN ADD GENERATED ... AS IDENTITY
	// (Always for ALWAYS), AlterDropIdentity ALTER COLUMN DROP IDENTITY.
	AlterAddIdentity
	AlterDropIdentity
	// AlterDropExpression is ALTER COLUMN DROP EXPRESSION: a generated
	// column becomes an ordinary one.
	AlterDropExpression
	// AlterDropIndex is MySQL's DROP INDEX name, DROP KEY name (Constraint)
	// and DROP PRIMARY KEY (Constraint ""): a unique key, primary key or
	// index of the table goes.
	AlterDropIndex
	// AlterRenameIndex is MySQL's RENAME INDEX / RENAME KEY Constraint TO
	// NewName: a key or index of the table takes a new name.
	AlterRenameIndex
	// AlterRename is a RENAME COLUMN (Column TO NewName) or RENAME TO
	// (NewName, Column "") of a MySQL ALTER TABLE beyond the one sqlc
	// applies (see Rename.Dropped).
	AlterRename
)

// AlterCmd is one ALTER TABLE action.
type AlterCmd struct {
	Kind      AlterCmdKind
	Column    string
	Def       *ColumnDef     // AlterAddColumn
	Type      *TypeName      // AlterColumnType
	Keys      []string       // AlterAddPrimaryKey
	Key       *KeyConstraint // AlterAddPrimaryKey and AlterAddUnique
	FK        *ForeignKey    // AlterAddForeignKey
	Other     Name           // the partition or parent table
	MissingOK bool
	// Constraint is the constraint named by DROP CONSTRAINT.
	Constraint string
	// NewName is the new name of AlterRenameIndex and AlterRename.
	NewName string
	// AnyConstraint is set on MySQL's DROP CONSTRAINT name (MariaDB
	// 10.2, MySQL 8.0.19), which drops the PRIMARY KEY (name PRIMARY), a
	// unique key, a foreign key or a CHECK of that name, not on DROP
	// FOREIGN KEY, which drops a foreign key only.
	AnyConstraint bool
	// Redefine is set on the AlterDropColumn that MySQL's MODIFY and
	// CHANGE COLUMN are read as (a drop, then an add of the new
	// definition, as sqlc reads them): the column's keys, indexes and
	// foreign keys stay, on the column's name Redefine, as in MySQL.
	Redefine string
	// Shrink is set on MySQL's DROP COLUMN: the column leaves the keys
	// and indexes it is part of, which stay on their other columns (MySQL
	// manual, ALTER TABLE: a key goes only with its last column).
	Shrink bool
	// Always is set by ADD GENERATED ALWAYS AS IDENTITY; Nextval by SET
	// DEFAULT nextval(...), DefaultNull by SET DEFAULT NULL (see
	// ColumnDef.DefaultNull).
	Always, Nextval, DefaultNull bool
	// DefaultAtMost1 is set by SET DEFAULT of an integer constant at or
	// below 1 (see ColumnDef.DefaultAtMost1).
	DefaultAtMost1 bool
	// SequenceName is ADD GENERATED ... AS IDENTITY's SEQUENCE NAME.
	SequenceName Name
	Loc          int
}

// CreateIndex is CREATE [UNIQUE] INDEX. Only unique indexes on plain
// columns matter to the catalog (ADD CONSTRAINT ... USING INDEX turns one
// into a PRIMARY KEY or UNIQUE constraint).
type CreateIndex struct {
	// Name is "" when PostgreSQL chooses it.
	Name  string
	Table Name
	// Columns are the indexed columns, nil if any key is an expression.
	Columns []string
	// Prefix is KeyConstraint.Prefix for Columns.
	Prefix []int
	Unique bool
	// Partial is set by WHERE.
	Partial     bool
	IfNotExists bool
}

func (n *CreateIndex) Pos() int { return n.Table.Loc }

// Rename is ALTER ... RENAME.
type Rename struct {
	// Kind is "table", "column", "type", "schema", "view" or "value" (enum
	// value).
	Kind    string
	Target  Name
	Subname string // the column or enum value being renamed
	NewName string
	// MissingOK is set by IF EXISTS.
	MissingOK bool
	// Only is set by ALTER TABLE ONLY ... RENAME COLUMN (PostgreSQL
	// refuses it for a column the table's children inherit).
	Only bool
	// Args is, for a function or procedure, the number of argument types
	// named (-1: none given, the name alone), and ArgTypes those types
	// (nil when none given).
	Args     int
	ArgTypes []*TypeName
	Loc      int
	// More are the further pairs of MySQL's RENAME TABLE a TO b, c TO d,
	// ...: renamed after this one, left to right, so that a pair may
	// take a name an earlier pair freed (a swap: jobs TO jobs_old,
	// jobs_new TO jobs).
	More []*Rename
	// Dropped are, on MySQL's ALTER TABLE, the other actions of the
	// statement that holds this RENAME COLUMN or RENAME TO (nil: none).
	// sqlc v1.31.1 reads such a statement as the rename alone, so the
	// columns and types it generates from leave them out; the server
	// runs them all, so the catalog applies those that change keys and
	// foreign keys only (which sqlc does not read), and holds the keys
	// in doubt for the column changes (issue 27, trial r27s F2).
	Dropped *AlterTable
}

// AlterObjectSchema is ALTER TABLE / TYPE / VIEW ... SET SCHEMA.
type AlterObjectSchema struct {
	// Kind is "table", "view", "materialized view", "type" or another
	// object kind.
	Kind      string
	Target    Name
	NewSchema string
	MissingOK bool
	// Args is, for a function or procedure, the number of argument types
	// named (-1: none given, the name alone), and ArgTypes those types
	// (nil when none given).
	Args     int
	ArgTypes []*TypeName
	Loc      int
}

func (n *AlterObjectSchema) Pos() int { return n.Loc }

// CreateComposite is CREATE TYPE name AS (column type, ...).
type CreateComposite struct {
	Type    Name
	Columns []*ColumnDef
}

func (n *CreateComposite) Pos() int { return n.Type.Loc }

// CreateDomain is CREATE DOMAIN name AS type [NOT NULL] ...
type CreateDomain struct {
	Type    Name
	Base    *TypeName
	NotNull bool
	// HasDefault is set by its DEFAULT, DefaultAtMost1 when that is an
	// integer constant at or below 1 (see ColumnDef.DefaultAtMost1).
	HasDefault, DefaultAtMost1 bool
}

func (n *CreateDomain) Pos() int { return n.Type.Loc }

// CreateRange is CREATE TYPE name AS RANGE (...).
type CreateRange struct {
	Type Name
}

func (n *CreateRange) Pos() int { return n.Type.Loc }

func (n *Rename) Pos() int { return n.Loc }

// Comment is COMMENT ON.
type Comment struct {
	// Kind is "column", "table" or another object kind.
	Kind   string
	Target Name
	Column string // for columns
	// Text is the comment; empty for COMMENT ... IS NULL.
	Text string
	Loc  int
}

func (n *Comment) Pos() int { return n.Loc }

// CreateEnum is CREATE TYPE ... AS ENUM.
type CreateEnum struct {
	Type   Name
	Values []string
}

func (n *CreateEnum) Pos() int { return n.Type.Loc }

// AlterEnum is ALTER TYPE ... ADD VALUE / RENAME VALUE.
type AlterEnum struct {
	Type        Name
	NewValue    string
	OldValue    string // set for RENAME VALUE
	Before      string
	After       string
	IfNotExists bool
}

func (n *AlterEnum) Pos() int { return n.Type.Loc }

// Sequence is CREATE SEQUENCE (Create set) or ALTER SEQUENCE. Only what
// the catalog keeps is modelled: the name and OWNED BY.
type Sequence struct {
	Create bool
	Name   Name
	// IfNotExists is CREATE's IF NOT EXISTS, MissingOK ALTER's IF EXISTS.
	IfNotExists, MissingOK bool
	// OwnedBy is the table.column of OWNED BY ([schema.]table.column),
	// OwnedByNone is set by OWNED BY NONE.
	OwnedBy     []string
	OwnedByNone bool
}

func (n *Sequence) Pos() int { return n.Name.Loc }

// CreateSchema is CREATE SCHEMA.
type CreateSchema struct {
	Name        string
	IfNotExists bool
	Loc         int
}

func (n *CreateSchema) Pos() int { return n.Loc }

// Drop is DROP TABLE / VIEW / TYPE / SCHEMA / FUNCTION.
type Drop struct {
	Kind  string
	Names []Name
	// On are, for DROP TRIGGER and DROP RULE, the tables the Names are
	// on (one per name).
	On        []Name
	MissingOK bool
	// Cascade is set by DROP ... CASCADE.
	Cascade bool
	// Sigs are, for DROP FUNCTION, PROCEDURE, ROUTINE or AGGREGATE, each
	// name's input argument types as written (PostgreSQL identifies a
	// function by them: OUT parameters are not among them); nil for a
	// name written without an argument list, which PostgreSQL resolves
	// by the name alone.
	Sigs [][]*TypeName
	Loc  int
}

func (n *Drop) Pos() int { return n.Loc }

// CreateView is CREATE [MATERIALIZED] VIEW.
type CreateView struct {
	View    Name
	Columns []string
	Query   *Select
	Replace bool
	// AsTable is set for CREATE TABLE ... AS: the relation is a table
	// with the query's columns. IfNotExists is its
	// IF NOT EXISTS.
	AsTable, IfNotExists bool
	// OnCommitDrop is set for CREATE TEMP TABLE ... ON COMMIT DROP AS.
	OnCommitDrop bool
	// Temp is set for CREATE TEMP TABLE ... AS and CREATE TEMP VIEW with
	// no schema written (View's Schema is then pg_temp).
	Temp bool
	// Base is, for CREATE VIEW whose query can make an automatically
	// updatable view (PostgreSQL docs, CREATE VIEW, "Updatable Views": a
	// SELECT with no WITH, DISTINCT, GROUP BY, HAVING, LIMIT, OFFSET or
	// set operation at its top, whose FROM list is one table or view),
	// that relation as written: an INSERT, UPDATE or DELETE of the view
	// that no INSTEAD OF trigger or DO INSTEAD rule takes writes it. Nil
	// for any other query, and for CREATE TABLE AS and CREATE MATERIALIZED
	// VIEW. BaseOnly is set for FROM ONLY (its inheritance children are
	// not written).
	Base     *Name
	BaseOnly bool
	// Refs are, for CREATE VIEW and CREATE MATERIALIZED VIEW (not
	// CREATE TABLE AS, a copy), the relations its query names anywhere
	// (FROM lists, joins, subqueries, WITH entries), as written; a name
	// spelt like one of the query's WITH entries is left out. PostgreSQL
	// records a dependency of the view on each, so DROP ... CASCADE of
	// one drops the view.
	Refs []Name
}

func (n *CreateView) Pos() int { return n.View.Loc }

// CreateFunction is CREATE FUNCTION (only what inference needs).
type CreateFunction struct {
	Func         Name
	ArgTypes     []*TypeName
	ArgNames     []string
	ReturnType   *TypeName // nil for procedures
	ReturnsTable []*ColumnDef
	// OutParams are the OUT and INOUT parameters, in order (INOUT ones
	// are in ArgTypes too).
	OutParams []*ColumnDef
	// Procedure is set for CREATE PROCEDURE.
	Procedure bool
	// Variadic is set when the last parameter is VARIADIC: a call may
	// pass more arguments than ArgTypes has.
	Variadic bool
	// Defaults are the source text of the parameters' DEFAULT
	// expressions, which PostgreSQL evaluates in the caller for each
	// argument a call leaves out.
	Defaults []string
	// OrReplace is set for CREATE OR REPLACE.
	OrReplace bool
	// IfNotExists is set for MySQL's CREATE PROCEDURE IF NOT EXISTS: a
	// no-op when a procedure of that name exists.
	IfNotExists bool
	Body        string
	Language    string
	// Standard is set for a SQL-standard body (BEGIN ATOMIC ... END, or
	// RETURN expr), which PostgreSQL parses and binds to the objects it
	// names when the function is created.
	Standard bool
	// Volatility is "immutable", "stable", "volatile" or "" (not said:
	// volatile; PostgreSQL docs, CREATE FUNCTION).
	Volatility string
	Loc        int
}

func (n *CreateFunction) Pos() int { return n.Loc }

// ---- DML ----

// With is a WITH clause.
type With struct {
	Recursive bool
	CTEs      []*CTE
}

// CTE is one WITH entry.
type CTE struct {
	Name    string
	Columns []string
	Query   Node // *Select, *Insert, *Update or *Delete
	Loc     int
	// Search is a recursive CTE's SEARCH clause, Cycle its CYCLE clause
	// (PostgreSQL 14+), or nil: each adds columns to the CTE's.
	Search *CTESearch
	Cycle  *CTECycle
}

// CTESearch is SEARCH { BREADTH | DEPTH } FIRST BY ... SET Column.
type CTESearch struct {
	Column       string
	BreadthFirst bool
}

// CTECycle is CYCLE ... SET Mark [TO MarkValue DEFAULT MarkDefault]
// USING Path; MarkValue and MarkDefault are nil when not written (the
// mark is then boolean).
type CTECycle struct {
	Mark                   string
	MarkValue, MarkDefault Node
	Path                   string
}

// Target is one entry of a SELECT list or RETURNING list, or a SET target.
type Target struct {
	Name string // AS alias, or the SET column
	Expr Node
	Loc  int
	// Indirection is set for a SET target with subscripts or fields:
	// SET names[$1] = $2. Subscripts holds the subscript expressions (for
	// a slice, both bounds), Fields the field names.
	Subscripts []Node
	Fields     []string
}

// Select is SELECT, VALUES, or a set operation (UNION/INTERSECT/EXCEPT).
type Select struct {
	With     *With
	Distinct bool
	// DistinctOn holds the expressions of DISTINCT ON (...).
	DistinctOn []Node
	// Windows are the WINDOW clause's named windows.
	Windows []*WindowDef
	Targets []*Target
	From    []Node
	Where   Node
	GroupBy []Node
	Having  Node
	OrderBy []Node
	Limit   Node
	Offset  Node
	Values  [][]Node
	// SetOp is "", "UNION", "INTERSECT" or "EXCEPT"; Left and Right are set
	// for set operations.
	SetOp       string
	Left, Right *Select
	Locking     bool
	Loc         int
}

func (n *Select) Pos() int { return n.Loc }

// Insert is INSERT.
type Insert struct {
	With       *With
	Table      Name
	Alias      string
	Columns    []*Target
	Select     *Select // VALUES or a query; nil for DEFAULT VALUES
	OnConflict *OnConflict
	Returning  []*Target
	Loc        int
	// MySQLSet is set for MySQL's INSERT ... SET a = x, ..., read as
	// the column list (a, ...) with one VALUES row (x, ...), as sqlc
	// reads it. The guard does not rewrite this form: on a fenced table
	// it is refused.
	MySQLSet bool
}

func (n *Insert) Pos() int { return n.Loc }

// OnConflict is INSERT ... ON CONFLICT.
type OnConflict struct {
	// Columns are the conflict target's columns, ON CONFLICT (a, b), at
	// TargetLoc; Constraint is ON CONFLICT ON CONSTRAINT name.
	Columns    []string
	TargetLoc  int
	Constraint string
	// TargetExprs is set when the conflict target has an expression
	// (ON CONFLICT (lower(email))), which Columns leave out.
	TargetExprs bool
	DoUpdate    bool
	Set         []*Target
	Where       Node
	Loc         int
}

// Update is UPDATE.
type Update struct {
	// Limit is MySQL's UPDATE ... LIMIT count, OrderBy its ORDER BY
	// (SortBy items) of a single-table UPDATE.
	Limit     Node
	OrderBy   []Node
	With      *With
	Table     Name
	Alias     string
	Set       []*Target
	From      []Node
	Where     Node
	Returning []*Target
	Loc       int
}

func (n *Update) Pos() int { return n.Loc }

// Delete is DELETE.
type Delete struct {
	// Limit is MySQL's DELETE ... LIMIT count, OrderBy its ORDER BY
	// (SortBy items) of a single-table DELETE.
	Limit     Node
	OrderBy   []Node
	With      *With
	Table     Name
	Alias     string
	Using     []Node
	Where     Node
	Returning []*Target
	Loc       int
}

func (n *Delete) Pos() int { return n.Loc }

// Merge is MERGE INTO (modelled only so that writes to fenced tables are
// refused).
type Merge struct {
	Table Name
	Loc   int
}

func (n *Merge) Pos() int { return n.Loc }

// Copy is COPY table FROM/TO.
type Copy struct {
	Table Name
	From  bool
	Loc   int
}

func (n *Copy) Pos() int { return n.Loc }

// Call is CALL procedure(args).
type Call struct {
	Func *FuncCall
	Loc  int
}

func (n *Call) Pos() int { return n.Loc }

// Truncate is TRUNCATE.
type Truncate struct {
	Tables []Name
	// Cascade is set by TRUNCATE ... CASCADE.
	Cascade bool
	Loc     int
}

func (n *Truncate) Pos() int { return n.Loc }

// ---- FROM items ----

// RangeVar is a table or view reference in FROM.
type RangeVar struct {
	Name  Name
	Alias string
	// ColAliases are column aliases: FROM t AS a(x, y).
	ColAliases []string
	// Sample holds the arguments of TABLESAMPLE method (...), and Seed
	// its REPEATABLE (...) seed, for FROM t TABLESAMPLE ...; nil
	// otherwise.
	Sample []Node
	Seed   Node
}

func (n *RangeVar) Pos() int { return n.Name.Loc }

// Join is a JOIN.
type Join struct {
	// Type is "INNER", "LEFT", "RIGHT", "FULL" or "CROSS".
	Type    string
	Natural bool
	Left    Node
	Right   Node
	On      Node
	Using   []string
	Alias   string
	Loc     int
}

func (n *Join) Pos() int { return n.Loc }

// RangeSubselect is (SELECT ...) AS alias in FROM.
type RangeSubselect struct {
	Lateral    bool
	Query      *Select
	Alias      string
	ColAliases []string
	Loc        int
}

func (n *RangeSubselect) Pos() int { return n.Loc }

// RangeFunction is a function call in FROM, e.g. unnest($1::int[]) AS x.
type RangeFunction struct {
	Lateral bool
	// Funcs are the function calls: *FuncCall, or another expression such
	// as CURRENT_DATE (*SQLValueFunction).
	Funcs      []Node
	Alias      string
	ColAliases []string
	// ColDefs is a column definition list: AS t(a int, b text).
	ColDefs    []*ColumnDef
	Ordinality bool
	Loc        int
}

func (n *RangeFunction) Pos() int { return n.Loc }

// ---- expressions ----

// ColumnRef is a column reference: col, t.col, s.t.col, t.* or *.
type ColumnRef struct {
	Fields []string // "*" for a star
	// Bare is set when the column of a qualified reference that does
	// not exist is named without its qualifier in the error, as sqlc
	// names it (MySQL's multi-table UPDATE ... SET col = ?).
	Bare bool
	Loc  int
}

func (n *ColumnRef) Pos() int { return n.Loc }

// Param is a query parameter: $n, or a named one (@name, sqlc.arg(name),
// sqlc.narg(name), sqlc.slice(name)) after the analyzer numbered it.
type Param struct {
	Number int
	// Name is set for named parameters.
	Name string
	// Nullable is set by sqlc.narg.
	Nullable bool
	// Slice is set by sqlc.slice.
	Slice bool
	// Loc and End span the parameter's text in the source.
	Loc, End int
	// SqlcUnread is set for a MySQL parameter that sqlc v1.31.1 does
	// not read: its MySQL converter (internal/engine/dolphin) makes an
	// ast.TODO of the expression it is in, or leaves out the clause,
	// so the parameter is neither numbered nor a field of the method,
	// and a sqlc.arg there is not rewritten (mysqlparse lists the
	// expressions and clauses). MySQL still binds its ?.
	SqlcUnread bool
	// SqlcDropped is set for a MySQL parameter that sqlc v1.31.1 reads
	// (its sqlc.arg is rewritten to ?) but leaves out of the method, and
	// says where: "IN" for an element of an IN list whose left side is
	// neither a column nor a parameter (LOWER(name) IN (?, ?)), "BETWEEN"
	// for a bound or operand of a BETWEEN that tests no column (COUNT(*)
	// BETWEEN ? AND ?): its resolve.go types such a parameter by that
	// column and skips it without one.
	SqlcDropped string
}

func (n *Param) Pos() int { return n.Loc }

// Embed is sqlc.embed(table) in a SELECT or RETURNING list: the table's
// columns, scanned into one field of the table's model type.
type Embed struct {
	Table    string
	Loc, End int
}

func (n *Embed) Pos() int { return n.Loc }

// Const is a literal.
type Const struct {
	// Kind is "int", "float", "string", "bool", "bitstring" or "null".
	Kind  string
	Value string
	Loc   int
}

func (n *Const) Pos() int { return n.Loc }

// TypeCast is expr::type or CAST(expr AS type).
type TypeCast struct {
	Arg  Node
	Type *TypeName
	Loc  int
}

func (n *TypeCast) Pos() int { return n.Loc }

// AExpr is an operator expression. Kind is "op", "any", "all", "in",
// "not in", "like", "ilike", "similar", "between", "not between",
// "distinct", "not distinct", "nullif".
type AExpr struct {
	Kind string
	Op   string
	// SqlcTODO is set on a MySQL expression that sqlc v1.31.1's
	// converter makes an ast.TODO of (mysqlparse's sqlcUnread list):
	// sqlc gives it no type, so its result column is interface{} and a
	// parameter compared with it is unnamed and untyped.
	SqlcTODO bool
	// SqlcOp is, for a MySQL operator that sqlc v1.31.1's converter
	// names otherwise than Op, that name ("div" for /, "bitand" for &):
	// sqlc types the result by it. "" when it is Op.
	SqlcOp string
	Left   Node // nil for a prefix operator
	Right  Node
	Loc    int
}

// SqlcName is the operator's name as sqlc v1.31.1 spells it (SqlcOp, else
// Op).
func (n *AExpr) SqlcName() string {
	if n.SqlcOp != "" {
		return n.SqlcOp
	}
	return n.Op
}

func (n *AExpr) Pos() int { return n.Loc }

// BoolExpr is AND, OR or NOT.
type BoolExpr struct {
	Op   string
	Args []Node
	Loc  int
	// SqlcTODO is set on a MySQL expression that sqlc v1.31.1's
	// converter makes an ast.TODO of (mysqlparse's sqlcUnread list):
	// sqlc gives it no type, so its result column is interface{} and a
	// parameter compared with it is unnamed and untyped.
	SqlcTODO bool
}

func (n *BoolExpr) Pos() int { return n.Loc }

// FuncCall is a function call.
type FuncCall struct {
	Func     Name
	Args     []Node
	Star     bool // count(*)
	Distinct bool
	Over     bool // a window function
	Variadic bool
	// MySQLAggregate is set for a MySQL aggregate (TiDB's
	// AggregateFuncExpr), to which sqlc's converter gives no position.
	MySQLAggregate bool
	// ArgNames holds named-argument notation names (name => value), "" for
	// positional arguments.
	ArgNames []string
	// WithinGroup holds the ORDER BY expressions of an ordered-set
	// aggregate's WITHIN GROUP (ORDER BY ...): the aggregated arguments,
	// which follow Args in the function's signature (PostgreSQL docs,
	// 4.2.7 "Aggregate Expressions").
	WithinGroup []Node
	Loc         int
	// AggOrder is an aggregate's ORDER BY (string_agg(x, ',' ORDER BY y);
	// not WITHIN GROUP's), Filter its FILTER (WHERE ...), Window the OVER
	// (...) of a window function (nil for OVER name without a definition
	// of its own).
	AggOrder []Node
	Filter   Node
	Window   *WindowDef
}

func (n *FuncCall) Pos() int { return n.Loc }

// WindowDef is a window definition: OVER (PARTITION BY ... ORDER BY ...),
// or an entry of WINDOW name AS (...) (PostgreSQL docs, 4.2.8 "Window
// Function Calls").
type WindowDef struct {
	Name        string // the WINDOW clause name, or the referenced window
	PartitionBy []Node
	OrderBy     []Node
	// Start and End are the frame's offsets (ROWS BETWEEN $1 PRECEDING ...).
	Start, End Node
}

// SubLink is a subquery in an expression. Kind is "EXISTS", "ANY", "ALL",
// "EXPR" (scalar subquery) or "ARRAY".
type SubLink struct {
	Kind  string
	Test  Node
	Op    string
	Query *Select
	Loc   int
	// SqlcTODO is set on a MySQL expression that sqlc v1.31.1's
	// converter makes an ast.TODO of (mysqlparse's sqlcUnread list):
	// sqlc gives it no type, so its result column is interface{} and a
	// parameter compared with it is unnamed and untyped.
	SqlcTODO bool
}

func (n *SubLink) Pos() int { return n.Loc }

// MultiColumn is column Column (from 1) of a subquery assigned to several
// columns at once, UPDATE ... SET (a, b) = (SELECT x, y ...). The first
// column's node holds the subquery in Sub; the others leave Sub nil and
// reach it through Source, so that a walk visits the subquery, and its
// parameters, once.
type MultiColumn struct {
	Sub    *SubLink
	Column int
	Loc    int
	source *SubLink
}

func (n *MultiColumn) Pos() int { return n.Loc }

// Source returns the subquery whose column n is.
func (n *MultiColumn) Source() *SubLink { return n.source }

// NullTest is IS [NOT] NULL.
type NullTest struct {
	Arg Node
	Not bool
	Loc int
}

func (n *NullTest) Pos() int { return n.Loc }

// BooleanTest is IS [NOT] TRUE/FALSE/UNKNOWN.
type BooleanTest struct {
	Arg Node
	Loc int
	// SqlcTODO is set on a MySQL expression that sqlc v1.31.1's
	// converter makes an ast.TODO of (mysqlparse's sqlcUnread list):
	// sqlc gives it no type, so its result column is interface{} and a
	// parameter compared with it is unnamed and untyped.
	SqlcTODO bool
}

func (n *BooleanTest) Pos() int { return n.Loc }

// Case is CASE.
type Case struct {
	Arg   Node
	Whens []*When
	Else  Node
	Loc   int
}

func (n *Case) Pos() int { return n.Loc }

// When is one WHEN of a CASE.
type When struct {
	Cond   Node
	Result Node
}

// Coalesce is COALESCE(...).
type Coalesce struct {
	Args []Node
	Loc  int
}

func (n *Coalesce) Pos() int { return n.Loc }

// MinMax is GREATEST or LEAST.
type MinMax struct {
	Op   string
	Args []Node
	Loc  int
}

func (n *MinMax) Pos() int { return n.Loc }

// ArrayExpr is ARRAY[...].
type ArrayExpr struct {
	Elems []Node
	Loc   int
}

func (n *ArrayExpr) Pos() int { return n.Loc }

// RowExpr is ROW(...) or (a, b).
type RowExpr struct {
	Args []Node
	Loc  int
	// SqlcTODO is set on a MySQL expression that sqlc v1.31.1's
	// converter makes an ast.TODO of (mysqlparse's sqlcUnread list):
	// sqlc gives it no type, so its result column is interface{} and a
	// parameter compared with it is unnamed and untyped.
	SqlcTODO bool
}

func (n *RowExpr) Pos() int { return n.Loc }

// Indirection is expr[idx] or (expr).field.
type Indirection struct {
	Arg    Node
	Fields []string // field names; "" for a subscript
	Slice  bool
	// Subscripts are the subscript expressions, in order (both bounds of
	// a slice).
	Subscripts []Node
	Loc        int
}

func (n *Indirection) Pos() int { return n.Loc }

// SQLValueFunction is CURRENT_DATE, CURRENT_TIMESTAMP, CURRENT_USER, ...
type SQLValueFunction struct {
	// Type is the result type name.
	Type string
	// Name is the function's name in lower case, e.g. "current_date".
	Name string
	Loc  int
}

func (n *SQLValueFunction) Pos() int { return n.Loc }

// Collate is expr COLLATE name.
type Collate struct {
	Arg Node
	Loc int
}

func (n *Collate) Pos() int { return n.Loc }

// CurrentOf is WHERE CURRENT OF cursor in UPDATE or DELETE. Loc is the
// CURRENT keyword's offset, or -1.
type CurrentOf struct {
	Cursor string
	Loc    int
}

func (n *CurrentOf) Pos() int { return n.Loc }

// Default is DEFAULT in VALUES or SET.
type Default struct{ Loc int }

func (n *Default) Pos() int { return n.Loc }

// SortBy is an ORDER BY item.
type SortBy struct {
	Expr Node
	Loc  int
}

func (n *SortBy) Pos() int { return n.Loc }

// CreateTrigger is CREATE [OR REPLACE] [CONSTRAINT] TRIGGER (PostgreSQL
// docs, "CREATE TRIGGER"): modelled so that writes its function may do
// are seen.
type CreateTrigger struct {
	Name  string
	Table Name
	Func  Name
	// Events are the firing events: "INSERT", "UPDATE", "DELETE",
	// "TRUNCATE".
	Events []string
	// Instead is set for an INSTEAD OF trigger (on a view: PostgreSQL
	// runs its function in place of writing the view's base relation).
	Instead bool
	Replace bool
	Loc     int
}

func (n *CreateTrigger) Pos() int { return n.Loc }

// CreateRule is CREATE [OR REPLACE] RULE (PostgreSQL docs, "CREATE
// RULE"): modelled so that the writes of its actions are seen.
type CreateRule struct {
	Name  string
	Table Name
	// Event is "SELECT", "INSERT", "UPDATE" or "DELETE".
	Event   string
	Instead bool
	// Cond is set for a rule with a WHERE condition.
	Cond bool
	// Actions are the rule's commands (converted like statements); none
	// for DO NOTHING.
	Actions []Node
	Replace bool
	Loc     int
}

func (n *CreateRule) Pos() int { return n.Loc }

// IsSqlcTODO reports whether n is a MySQL expression sqlc v1.31.1 reads
// as an ast.TODO (the nodes' SqlcTODO field).
func IsSqlcTODO(n Node) bool {
	switch n := n.(type) {
	case *AExpr:
		return n.SqlcTODO
	case *BoolExpr:
		return n.SqlcTODO
	case *SubLink:
		return n.SqlcTODO
	case *BooleanTest:
		return n.SqlcTODO
	case *RowExpr:
		return n.SqlcTODO
	}
	return false
}
