// Package config reads fencegen's configuration: fencegen.yaml, or an
// existing sqlc configuration file (sqlc.yaml, sqlc.yml, sqlc.json; version
// "1" with packages, version "2" with sql/gen.go) read as-is.
//
// fencegen.yaml is sqlc's version 2 format plus one key per sql entry,
// fence, that marks fencing-token columns:
//
//	version: "2"
//	sql:
//	  - engine: postgresql
//	    schema: schema.sql
//	    queries: queries.sql
//	    gen:
//	      go: {package: accounts, out: ., sql_package: pgx/v5}
//	    fence:
//	      tables:
//	        - {table: account_balances, column: last_fencing_token, mode: strict}
//
// The fence key may also be at the top level (version "1" or "2"). A
// table fenced anywhere in the file is fenced in every sql entry whose
// schema has it, as a database has one guard trigger per table
// (FenceTable.AnyEntry, FenceTable.From); two entries that fence it
// differently are an error naming both places.
//
// A fencegen.yaml may instead extend an sqlc configuration, which sqlc
// then keeps reading untouched (sqlc refuses the fence key), adding only
// fenced tables, which apply to every sql entry whose schema has them:
//
//	extends: sqlc.yaml
//	fence:
//	  tables:
//	    - {table: account_balances, column: last_fencing_token}
//
// Every key sqlc v1.31.1 accepts for PostgreSQL is accepted, with sqlc's
// meaning (sqlc's internal/config and internal/codegen/golang/opts):
//
//   - honoured: version 1 packages and version 2 sql entries (name,
//     engine, schema, queries), every gen.go option (GoOptions), overrides
//     (db_type or its older spelling postgres_type, column, go_type as a
//     string or {import, package, type, pointer, slice}, go_struct_tag,
//     nullable or its older spelling null, engine) and rename, per
//     package or global (version 1's top level, version 2's
//     overrides.go), out outside the configuration's directory, an entry
//     without schema (the queries see only the system catalogs), and
//     codegen items that run the sqlc-gen-go plugin (read as gen.go).
//   - parsed for the analyzer: strict_function_checks, strict_order_by,
//     database and analyzer (a PostgreSQL entry's database.uri is asked
//     as sqlc asks it: Package.Database; a managed one, or a MySQL
//     entry's, is not, with notes).
//   - accepted without effect on the output: cloud, servers, options,
//     rules (sqlc vet), gen.json and other generators, omit_sqlc_version, sql_driver,
//     emit_prepared_queries (sqlc's pgx templates ignore it), an override
//     with unsigned: true (it never matches a PostgreSQL column).
//   - refused at their location: a sql_package other than pgx/v5, the
//     mysql and sqlite engines when nothing else is generated (skipped
//     otherwise), codegen plugins other than sqlc-gen-go when nothing else
//     is generated (skipped with a Note otherwise), and what sqlc refuses
//     (unknown keys, a negative query_parameter_limit,
//     emit_methods_with_db_argument with emit_prepared_queries).
package config

// Position is a location in the configuration file, 1-based.
type Position struct {
	Line, Col int
}

// Config is a loaded configuration file.
type Config struct {
	// Path is the configuration file path as given (relative paths stay
	// relative: it appears in messages).
	Path string
	// Dir is the directory that holds the file; every path inside the
	// configuration is relative to it.
	Dir string
	// Version is "1" or "2".
	Version string
	// Packages are the sql entries (version 2) or packages (version 1) in
	// file order.
	Packages []Package
	// Skipped are the entries with gen.go (or version 1 packages) for
	// sqlc's other engines, mysql and sqlite: fencegen generates code for
	// PostgreSQL only and leaves them to sqlc. A configuration whose every
	// entry is for another engine is an error instead.
	Skipped []Skipped
	// Extension is the path, as given to Load, of the configuration that
	// extends this one with fenced tables (its extends key names Path),
	// or "" when Load read Path itself.
	Extension string
	// Notes are remarks on keys fencegen accepts but does not act on in
	// the way sqlc would (a database for query analysis, a codegen
	// plugin next to entries fencegen generates), in file order.
	Notes []Note
}

// Note is a remark at a place in the configuration file.
type Note struct {
	Pos Position
	Msg string
}

// Skipped is an entry fencegen does not generate.
type Skipped struct {
	Name, Engine, Out string
	Pos               Position
}

// Package is one sql entry: a schema, its queries and how to emit Go.
type Package struct {
	// Name is the entry's optional name.
	Name string
	// Doubtful is set, in a configuration LoadAll returns with errors,
	// on an entry with a problem of its own that may change how its
	// files are read (an engine missing or unsupported, an unknown
	// sql_package): its files are not checked in that run, so that no
	// error follows from the problem. A misspelled key read as its
	// suggestion and a fence mode typo do not count.
	Doubtful bool
	// Engine is "postgresql" or "mysql".
	Engine string
	// Schema and Queries are files, directories or glob patterns, relative
	// to Config.Dir, in the order given. Schema may be empty: as in sqlc,
	// the queries then see only the system catalogs (pg_catalog,
	// information_schema).
	Schema  []string
	Queries []string
	// SchemaPos and QueriesPos locate each of Schema and Queries in the
	// configuration file (nil when unknown).
	SchemaPos, QueriesPos []Position
	// Go holds the gen.go options (version 2) or the package's options
	// (version 1).
	Go GoOptions
	// Fence marks fencing-token columns in addition to COMMENT ON COLUMN
	// annotations in the schema.
	Fence []FenceTable
	// FencegenSchema are, for an engine mysql entry of a configuration
	// that an extending one names (Config.Extension), the schema files,
	// directories or glob patterns of its schema key, relative to the
	// extending file's directory: read by fencegen only, after Schema,
	// they hold the stored programs sqlc v1.31.1 cannot parse (CREATE
	// TRIGGER, FUNCTION, EVENT, DELIMITER lines), which the write
	// analysis follows and the catalog skips. FencegenSchemaPos locates
	// each in the extending file.
	FencegenSchema    []string
	FencegenSchemaPos []Position
	// StrictFunctionChecks is sqlc's strict_function_checks: a call of a
	// function the catalog does not have is an error (by default it
	// yields an untyped result).
	StrictFunctionChecks bool
	// StrictOrderBy is sqlc's strict_order_by, nil when unset (sqlc's
	// default is true): an ORDER BY name that matches no column is an
	// error.
	StrictOrderBy *bool
	// Database is sqlc's database key when sqlc analyses the entry's
	// queries with it (analyzer.database not false), nil otherwise.
	Database *Database
	// Pos is where the entry starts in the configuration file.
	Pos Position
}

// Database is an entry's database key (sqlc's database-backed analysis:
// docs/sqlc.md, "database:").
type Database struct {
	// URI is the connection string as written (sqlc expands $VAR and
	// ${VAR} in it from the environment); "" when Managed.
	URI string
	// Managed is sqlc Cloud's managed database (managed: true).
	Managed bool
	// Pos locates the key in the configuration file.
	Pos Position
}

// FenceTable marks a table's fencing-token column.
type FenceTable struct {
	// Table is the table name as written, optionally schema-qualified,
	// each part folded as PostgreSQL folds identifiers: accounts,
	// app.accounts, "Accounts" (see SplitName).
	Table string
	// Column is the fencing-token column as written, folded likewise.
	Column string
	// TableSchema ("" when unqualified), TableName and ColumnName are
	// Table and Column as PostgreSQL reads them (SplitName): unquoted
	// parts in lower case, quoted ones as written, without the quotes.
	TableSchema, TableName, ColumnName string
	// TablePos and ColumnPos are where the table and column values are.
	TablePos, ColumnPos Position
	// Mode is "" or "non-strict" (stored ≤ presented accepted) or "strict"
	// (stored < presented).
	Mode string
	// Pos is where the entry is in the configuration file.
	Pos Position
	// File is the configuration file the entry is in when that is not
	// Config.Path: the extending configuration (Config.Extension).
	File string
	// AnyEntry is set for the tables of an extending configuration: they
	// apply to every sql entry whose schema has the table, and it is an
	// error only when no entry's schema has it.
	AnyEntry bool
	// From names the sql entry whose fence key lists the table when it
	// is another entry's ("sql entry pgdb", EntryName): a table fenced in
	// one entry is fenced in every entry whose schema has it (a database
	// has one guard trigger per table). It is "" for an entry's own
	// tables, the top-level fence key's and an extending configuration's.
	From string
}

// PGTypes reports whether postgresql_types is in effect: the value given,
// else true for fencegen's own configuration file (fencegen.yaml or
// fencegen.yml without extends) and false for one sqlc reads (sqlc.yaml,
// sqlc.yml, sqlc.json, any other name, and a fencegen.yaml that extends
// one), whose API is sqlc's by default.
func (o GoOptions) PGTypes() bool {
	return o.PostgreSQLTypes != nil && *o.PostgreSQLTypes
}

// Types reports whether the entry's engine's own types are in effect
// instead of sqlc's: postgresql_types (PGTypes) for a PostgreSQL entry,
// mysql_types (MySQLTypes) for a MySQL one. Their defaults are the same:
// on in fencegen's own configuration file, off in one sqlc reads.
func (o GoOptions) Types() bool {
	if o.Engine == EngineMySQL {
		return o.MySQLTypes != nil && *o.MySQLTypes
	}
	return o.PGTypes()
}

// TypesOption is the name of the option Types reads for the entry's
// engine: "mysql_types" or "postgresql_types", as vet notes name it.
func (o GoOptions) TypesOption() string {
	if o.Engine == EngineMySQL {
		return "mysql_types"
	}
	return "postgresql_types"
}

// GoOptions are sqlc's gen.go options that make sense for pgx/v5 and
// database/sql. SQLPackage is one of them after loading (empty is
// database/sql).
type GoOptions struct {
	// Engine is the entry's engine (Package.Engine), which the Go code
	// depends on: MySQL's types and placeholders.
	Engine                    string
	Package                   string
	Out                       string
	SQLPackage                string
	EmitJSONTags              bool
	EmitDBTags                bool
	JSONTagsCaseStyle         string
	EmitInterface             bool
	EmitExactTableNames       bool
	EmitEmptySlices           bool
	EmitPointersForNullTypes  bool
	EmitResultStructPointers  bool
	EmitParamsStructPointers  bool
	EmitMethodsWithDBArgument bool
	EmitEnumValidMethod       bool
	EmitAllEnumValues         bool
	EmitPreparedQueries       bool
	// QueryParameterLimit is nil when unset (sqlc's default is 1).
	QueryParameterLimit    *int
	Rename                 map[string]string
	Initialisms            []string
	Overrides              []Override
	OutputDBFileName       string
	OutputModelsFileName   string
	OutputQuerierFileName  string
	OutputCopyfromFileName string
	OutputBatchFileName    string
	OutputFilesSuffix      string
	BuildTags              string
	OmitUnusedStructs      bool
	// WrapErrors wraps every error a query method returns as
	// fmt.Errorf("query <Method>: %w", err).
	WrapErrors bool
	// SqlcUntypedParams (sqlc_untyped_params, fencegen only) is accepted
	// for configurations written for earlier fencegen versions and
	// changes nothing: the parameters sqlc v1.31.1 leaves untyped
	// (analyze.Param.SqlcUntyped: @flag as an AND operand, @p = '',
	// COALESCE(@p, '')) are always interface{}, as in sqlc.
	SqlcUntypedParams bool
	// PostgreSQLTypes (postgresql_types, fencegen only) declares result
	// columns and parameters with the types and nullability PostgreSQL
	// gives them where sqlc v1.31.1 declares others (sum(bigint) is
	// pgtype.Numeric, not int64; a scalar subquery may be NULL; a domain
	// column has its base type, not interface{}): docs/sqlc.md lists
	// each class. nil when unset; Load resolves it (see PGTypes).
	PostgreSQLTypes *bool
	// MySQLTypes (mysql_types, fencegen only) is PostgreSQLTypes for a
	// MySQL entry (engine mysql): the parameters and types MariaDB/MySQL
	// give a query where sqlc v1.31.1 declares others, a parameter sqlc
	// does not read (x REGEXP ?, NOT (x <=> ?), ? COLLATE c, (a, b) = (?,
	// ?)) included, which its method then takes. docs/mysql.md lists
	// each class. nil when unset; Load resolves it (see Types).
	MySQLTypes *bool

	JSONTagsIDUppercase bool
	EmitExportedQueries bool
	// EmitSQLAsComment puts each query's SQL in its method's doc comment.
	EmitSQLAsComment bool
	// InflectionExcludeTableNames are the tables whose model struct keeps
	// the table's name unsingularised.
	InflectionExcludeTableNames []string

	// The options below are accepted so that sqlc configurations load
	// as-is, and have no effect on fencegen's output:
	//   - OmitSQLCVersion: fencegen's headers carry no version.
	//   - SQLDriver: chooses the database/sql driver; sqlc reads it only
	//     with sql_package database/sql.
	// emit_prepared_queries (EmitPreparedQueries above) also changes
	// nothing with pgx/v5: sqlc's pgx templates ignore it (only its
	// database/sql templates emit Prepare), but it keeps sqlc's check that
	// it excludes emit_methods_with_db_argument.
	OmitSQLCVersion bool
	SQLDriver       string
	// EmitPointersForNullEnumTypes is nil when unset.
	EmitPointersForNullEnumTypes *bool
}

// Override replaces the Go type chosen for a database type or a column.
type Override struct {
	// DBType is a database type name, e.g. "uuid" or "pg_catalog.int8".
	DBType string
	// Column is "table.column" or "schema.table.column".
	Column string
	// Nullable restricts a DBType override to nullable columns.
	Nullable bool
	// Unsigned restricts a DBType override to unsigned columns, which
	// only MySQL has: such an override never matches a PostgreSQL column,
	// and Load drops it from PostgreSQL entries. On MySQL it matches the
	// unsigned columns only, and one without it the signed ones only.
	Unsigned bool
	// Engine is the override's engine key: Load drops the override from
	// the entries of other engines.
	Engine string
	// GoType is the Go type to use.
	GoType GoType
	Pos    Position
	// Global is set for an override of every package (version 1's
	// top-level overrides, version 2's overrides.go): a column override
	// must match a column in the schema of one package at least, a
	// package's own in that package's schema.
	Global bool
	// GoStructTag is extra struct tag text for a column override, e.g.
	// `validate:"required"`.
	GoStructTag string
}

// GoType is an override's go_type: a string such as
// "github.com/google/uuid.UUID" or the object form.
type GoType struct {
	Import  string
	Package string
	Type    string
	Pointer bool
	Slice   bool
	// Spec is the string form when given as a string.
	Spec string
}
