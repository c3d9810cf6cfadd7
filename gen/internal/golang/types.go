package golang

import (
	"maps"
	"strings"
	"sync"

	"github.com/dave/jennifer/jen"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/config"
)

const (
	pgtypePkg = "github.com/jackc/pgx/v5/pgtype"
	pgxPkg    = "github.com/jackc/pgx/v5"
	pgconnPkg = "github.com/jackc/pgx/v5/pgconn"
	// The packages of pgx/v4 output (sql_package: pgx/v4): pgx/v4 keeps
	// its connection layer and its types in modules of their own.
	pgtypeV4Pkg = "github.com/jackc/pgtype"
	pgxV4Pkg    = "github.com/jackc/pgx/v4"
	pgconnV4Pkg = "github.com/jackc/pgconn"
	fencePkg    = "github.com/fencegen/fencegen/runtime/fence"
	// fenceImplPkg holds the readers generated code runs fenced writes
	// through; only generated code imports it.
	fenceImplPkg = "github.com/fencegen/fencegen/runtime/fenceimpl"
	// pgvectorPkg is imported as pgvector.
	pgvectorPkg = "github.com/pgvector/pgvector-go"

	// The packages of database/sql output.
	sqlPkg    = "database/sql"
	uuidPkg   = "github.com/google/uuid"
	pqPkg     = "github.com/lib/pq"
	pqtypePkg = "github.com/sqlc-dev/pqtype"
)

// sqlNull is database/sql's sql.<name>.
func sqlNull(name string) goType { return goType{pkg: sqlPkg, name: name} }

// stdlibTypes is sqlc's database/sql mapping (its golang codegen's
// postgresType for the lib/pq driver): the Go type for NOT NULL values,
// then the nullable one. The types it does not list are interface{}.
// numeric is a string because the standard library has no decimal type
// (lib/pq returns numerics as text); interval is int64 (nanoseconds as
// lib/pq scans it, which sqlc keeps).
var stdlibTypes = map[string][2]goType{
	"int2":        {{name: "int16"}, sqlNull("NullInt16")},
	"int4":        {{name: "int32"}, sqlNull("NullInt32")},
	"int8":        {{name: "int64"}, sqlNull("NullInt64")},
	"float4":      {{name: "float32"}, sqlNull("NullFloat64")},
	"float8":      {{name: "float64"}, sqlNull("NullFloat64")},
	"numeric":     {{name: "string"}, sqlNull("NullString")},
	"money":       {{name: "string"}, sqlNull("NullString")},
	"bool":        {{name: "bool"}, sqlNull("NullBool")},
	"text":        {{name: "string"}, sqlNull("NullString")},
	"varchar":     {{name: "string"}, sqlNull("NullString")},
	"bpchar":      {{name: "string"}, sqlNull("NullString")},
	"name":        {{name: "string"}, sqlNull("NullString")},
	"citext":      {{name: "string"}, sqlNull("NullString")},
	"ltree":       {{name: "string"}, sqlNull("NullString")},
	"lquery":      {{name: "string"}, sqlNull("NullString")},
	"ltxtquery":   {{name: "string"}, sqlNull("NullString")},
	"string":      {{name: "string"}, sqlNull("NullString")}, // sqlc's text alias (CockroachDB's STRING)
	"bytea":       {{name: "byte", slices: 1}, {name: "byte", slices: 1}},
	"blob":        {{name: "byte", slices: 1}, {name: "byte", slices: 1}},
	"json":        {{pkg: "encoding/json", name: "RawMessage"}, {pkg: pqtypePkg, name: "NullRawMessage"}},
	"jsonb":       {{pkg: "encoding/json", name: "RawMessage"}, {pkg: pqtypePkg, name: "NullRawMessage"}},
	"date":        {{pkg: "time", name: "Time"}, sqlNull("NullTime")},
	"time":        {{pkg: "time", name: "Time"}, sqlNull("NullTime")},
	"timetz":      {{pkg: "time", name: "Time"}, sqlNull("NullTime")},
	"timestamp":   {{pkg: "time", name: "Time"}, sqlNull("NullTime")},
	"timestamptz": {{pkg: "time", name: "Time"}, sqlNull("NullTime")},
	"interval":    {{name: "int64"}, sqlNull("NullInt64")},
	"uuid":        {{pkg: uuidPkg, name: "UUID"}, {pkg: uuidPkg, name: "NullUUID"}},
	"inet":        same(goType{pkg: pqtypePkg, name: "Inet"}),
	"cidr":        same(goType{pkg: pqtypePkg, name: "CIDR"}),
	"macaddr":     same(goType{pkg: pqtypePkg, name: "Macaddr"}),
	"macaddr8":    same(goType{pkg: pqtypePkg, name: "Macaddr"}),
}

// pgtypeV4 is pgx/v4's pgtype.<name> (github.com/jackc/pgtype).
func pgtypeV4(name string) goType { return goType{pkg: pgtypeV4Pkg, name: name} }

// pgxV4Types is sqlc's pgx/v4 mapping (its golang codegen's postgresType
// for the pgx/v4 driver): the Go type for NOT NULL values, then the
// nullable one. It is database/sql's mapping (stdlibTypes) where sqlc
// gives pgx/v4 no type of its own, pgtype's (github.com/jackc/pgtype)
// where it does: numeric, json, jsonb, the network types, the ranges,
// hstore, the bit strings, the system identifiers and the geometric
// types. The types pgxTypes lists and this map does not (the
// multiranges, xid8, vector, tsvector, "char", void) are interface{}, as
// in sqlc. interval is int64 with sqlc, which pgx/v4 does not scan into
// (pgtype.Interval has no int64 form): the column is sqlc's, so is the
// type.
var pgxV4Types = withTypes(stdlibTypes, map[string][2]goType{
	"numeric":   same(pgtypeV4("Numeric")),
	"money":     same(pgtypeV4("Numeric")),
	"json":      same(pgtypeV4("JSON")),
	"jsonb":     same(pgtypeV4("JSONB")),
	"inet":      same(pgtypeV4("Inet")),
	"cidr":      same(pgtypeV4("CIDR")),
	"macaddr":   same(pgtypeV4("Macaddr")),
	"macaddr8":  same(pgtypeV4("Macaddr")),
	"daterange": same(pgtypeV4("Daterange")),
	"tsrange":   same(pgtypeV4("Tsrange")),
	"tstzrange": same(pgtypeV4("Tstzrange")),
	"numrange":  same(pgtypeV4("Numrange")),
	"int4range": same(pgtypeV4("Int4range")),
	"int8range": same(pgtypeV4("Int8range")),
	"hstore":    same(pgtypeV4("Hstore")),
	"bit":       same(pgtypeV4("Varbit")),
	"varbit":    same(pgtypeV4("Varbit")),
	"cid":       same(pgtypeV4("CID")),
	"oid":       same(pgtypeV4("OID")),
	"tid":       same(pgtypeV4("TID")),
	"xid":       same(pgtypeV4("XID")),
	"box":       same(pgtypeV4("Box")),
	"circle":    same(pgtypeV4("Circle")),
	"line":      same(pgtypeV4("Line")),
	"lseg":      same(pgtypeV4("Lseg")),
	"path":      same(pgtypeV4("Path")),
	"point":     same(pgtypeV4("Point")),
	"polygon":   same(pgtypeV4("Polygon")),
})

// withTypes returns a copy of base with the entries of over added to it
// or replacing its own.
func withTypes(base, over map[string][2]goType) map[string][2]goType {
	m := maps.Clone(base)
	maps.Copy(m, over)
	return m
}

// goType is a Go type reference: a qualified name plus pointer and slice
// markers.
type goType struct {
	pkg, name string
	pointer   bool
	// inner is what sqlc keeps of an override's "[]" and "*" in front of
	// the qualified name, after slices and pointer: "*" for a string
	// go_type "*time.Time" whose path has no slash, **time.Time (its
	// parse keeps the star in the type name and adds one); the prefix of
	// an object form's type written with one ({type: "[]*time.Time"}).
	inner  string
	slices int
	// args are a generic type's type arguments: pgtype.Range[pgtype.Int4].
	args []goType
}

func (t goType) code() jen.Code {
	s := jen.Null()
	for i := 0; i < t.slices; i++ {
		s = s.Index()
	}
	if t.pointer {
		s = s.Op("*")
	}
	if t.inner != "" {
		s = s.Op(t.inner)
	}
	switch {
	case t.name == "interface{}":
		s = s.Interface()
	case t.pkg == "":
		s = s.Id(t.name)
	default:
		s = s.Qual(t.pkg, t.name)
	}
	if len(t.args) > 0 {
		args := make([]jen.Code, len(t.args))
		for i, a := range t.args {
			args[i] = a.code()
		}
		s = s.Types(args...)
	}
	return s
}

// String is used in tests and for comparisons.
func (t goType) String() string {
	s := strings.Repeat("[]", t.slices)
	if t.pointer {
		s += "*"
	}
	s += t.inner
	if t.pkg != "" {
		s += t.pkg + "."
	}
	s += t.name
	if len(t.args) > 0 {
		args := make([]string, len(t.args))
		for i, a := range t.args {
			args[i] = a.String()
		}
		s += "[" + strings.Join(args, ", ") + "]"
	}
	return s
}

// pgtypeOf is pgtype.<name>.
func pgtypeOf(name string) goType { return goType{pkg: pgtypePkg, name: name} }

// rangeOf is pgtype.Range[pgtype.<elem>].
func rangeOf(elem string) goType {
	return goType{pkg: pgtypePkg, name: "Range", args: []goType{pgtypeOf(elem)}}
}

// multirangeOf is pgtype.Multirange[pgtype.Range[pgtype.<elem>]].
func multirangeOf(elem string) goType {
	return goType{pkg: pgtypePkg, name: "Multirange", args: []goType{rangeOf(elem)}}
}

func same(t goType) [2]goType { return [2]goType{t, t} }

// typeMapper maps PostgreSQL types to Go types as sqlc does for the
// entry's sql_package (pgx/v5, pgx/v4 or database/sql).
type typeMapper struct {
	cat   *catalog.Catalog
	names *namer
	opts  config.GoOptions
	// mu guards enumsUsed and imports, which files rendered
	// concurrently (Emit) add to.
	mu        sync.Mutex
	enumsUsed map[*catalog.Enum]bool
	overrides []override
	// imports maps override import paths to their package names.
	imports map[string]string
	// pgTypes is postgresql_types (config.GoOptions.PGTypes): a column
	// of a domain has its base type's Go type, not sqlc's interface{}.
	pgTypes bool
}

// pgxTypes is sqlc's default pgx/v5 mapping: the Go type for NOT NULL
// values, then the nullable one.
var pgxTypes = map[string][2]goType{
	"int2":      {{name: "int16"}, {pkg: pgtypePkg, name: "Int2"}},
	"int4":      {{name: "int32"}, {pkg: pgtypePkg, name: "Int4"}},
	"int8":      {{name: "int64"}, {pkg: pgtypePkg, name: "Int8"}},
	"float4":    {{name: "float32"}, {pkg: pgtypePkg, name: "Float4"}},
	"float8":    {{name: "float64"}, {pkg: pgtypePkg, name: "Float8"}},
	"numeric":   {{pkg: pgtypePkg, name: "Numeric"}, {pkg: pgtypePkg, name: "Numeric"}},
	"money":     {{pkg: pgtypePkg, name: "Numeric"}, {pkg: pgtypePkg, name: "Numeric"}},
	"bool":      {{name: "bool"}, {pkg: pgtypePkg, name: "Bool"}},
	"text":      {{name: "string"}, {pkg: pgtypePkg, name: "Text"}},
	"varchar":   {{name: "string"}, {pkg: pgtypePkg, name: "Text"}},
	"bpchar":    {{name: "string"}, {pkg: pgtypePkg, name: "Text"}},
	"name":      {{name: "string"}, {pkg: pgtypePkg, name: "Text"}},
	"citext":    {{name: "string"}, {pkg: pgtypePkg, name: "Text"}},
	"ltree":     {{name: "string"}, {pkg: pgtypePkg, name: "Text"}},
	"lquery":    {{name: "string"}, {pkg: pgtypePkg, name: "Text"}},
	"ltxtquery": {{name: "string"}, {pkg: pgtypePkg, name: "Text"}},
	// sqlc maps a type named string (CockroachDB's STRING, which
	// PostgreSQL does not have) as text.
	"string": {{name: "string"}, {pkg: pgtypePkg, name: "Text"}},
	"bytea":  {{name: "byte", slices: 1}, {name: "byte", slices: 1}},
	// sqlc maps a type named blob (SQLite's, in schemas shared with it)
	// as bytea.
	"blob":        {{name: "byte", slices: 1}, {name: "byte", slices: 1}},
	"json":        {{name: "byte", slices: 1}, {name: "byte", slices: 1}},
	"jsonb":       {{name: "byte", slices: 1}, {name: "byte", slices: 1}},
	"date":        {{pkg: pgtypePkg, name: "Date"}, {pkg: pgtypePkg, name: "Date"}},
	"time":        {{pkg: pgtypePkg, name: "Time"}, {pkg: pgtypePkg, name: "Time"}},
	"timestamp":   {{pkg: pgtypePkg, name: "Timestamp"}, {pkg: pgtypePkg, name: "Timestamp"}},
	"timestamptz": {{pkg: pgtypePkg, name: "Timestamptz"}, {pkg: pgtypePkg, name: "Timestamptz"}},
	"interval":    {{pkg: pgtypePkg, name: "Interval"}, {pkg: pgtypePkg, name: "Interval"}},
	"uuid":        {{pkg: pgtypePkg, name: "UUID"}, {pkg: pgtypePkg, name: "UUID"}},
	"inet":        {{pkg: "net/netip", name: "Addr"}, {pkg: "net/netip", name: "Addr", pointer: true}},
	"cidr":        {{pkg: "net/netip", name: "Prefix"}, {pkg: "net/netip", name: "Prefix", pointer: true}},
	"macaddr":     {{pkg: "net", name: "HardwareAddr"}, {pkg: "net", name: "HardwareAddr"}},
	"macaddr8":    {{pkg: "net", name: "HardwareAddr"}, {pkg: "net", name: "HardwareAddr"}},
	"bit":         {{pkg: pgtypePkg, name: "Bits"}, {pkg: pgtypePkg, name: "Bits"}},
	"varbit":      {{pkg: pgtypePkg, name: "Bits"}, {pkg: pgtypePkg, name: "Bits"}},
	"point":       {{pkg: pgtypePkg, name: "Point"}, {pkg: pgtypePkg, name: "Point"}},
	"box":         {{pkg: pgtypePkg, name: "Box"}, {pkg: pgtypePkg, name: "Box"}},
	"line":        {{pkg: pgtypePkg, name: "Line"}, {pkg: pgtypePkg, name: "Line"}},
	"lseg":        {{pkg: pgtypePkg, name: "Lseg"}, {pkg: pgtypePkg, name: "Lseg"}},
	"path":        {{pkg: pgtypePkg, name: "Path"}, {pkg: pgtypePkg, name: "Path"}},
	"polygon":     {{pkg: pgtypePkg, name: "Polygon"}, {pkg: pgtypePkg, name: "Polygon"}},
	"circle":      {{pkg: pgtypePkg, name: "Circle"}, {pkg: pgtypePkg, name: "Circle"}},
	"tsvector":    {{name: "interface{}"}, {name: "interface{}"}},
	"hstore":      {{pkg: pgtypePkg, name: "Hstore"}, {pkg: pgtypePkg, name: "Hstore"}},
	"oid":         same(pgtypeOf("Uint32")),
	"xid":         same(pgtypeOf("Uint32")),
	"cid":         same(pgtypeOf("Uint32")),
	"xid8":        same(pgtypeOf("Uint64")),
	"tid":         same(pgtypeOf("TID")),
	"void":        {{name: "interface{}"}, {name: "interface{}"}},
	// TIME WITH TIME ZONE: pgtype has no Timetz; sqlc uses the standard
	// library's types.
	"timetz": {{pkg: "time", name: "Time"}, {pkg: "database/sql", name: "NullTime"}},
	// PostgreSQL's internal one-byte "char" (CHAR(n) is bpchar).
	"char": {{name: "interface{}"}, {name: "interface{}"}},

	"int4range":      same(rangeOf("Int4")),
	"int8range":      same(rangeOf("Int8")),
	"numrange":       same(rangeOf("Numeric")),
	"tsrange":        same(rangeOf("Timestamp")),
	"tstzrange":      same(rangeOf("Timestamptz")),
	"daterange":      same(rangeOf("Date")),
	"int4multirange": same(multirangeOf("Int4")),
	"int8multirange": same(multirangeOf("Int8")),
	"nummultirange":  same(multirangeOf("Numeric")),
	"tsmultirange":   same(multirangeOf("Timestamp")),
	"tstzmultirange": same(multirangeOf("Timestamptz")),
	"datemultirange": same(multirangeOf("Date")),
	// pgvector's vector (github.com/pgvector/pgvector-go).
	"vector": same(goType{pkg: pgvectorPkg, name: "Vector"}),
}

// pointerForNull lists the NOT NULL types that emit_pointers_for_null_types
// turns into pointers for nullable values, besides the predeclared ones.
// uuid.UUID is pgx/v4's (pgx/v5 has pgtype.UUID).
var pointerForNull = map[string]bool{"time.Time": true, pgvectorPkg + ".Vector": true, uuidPkg + ".UUID": true}

// goTypeOf returns the Go type for a value of type t that is column col
// (nil for an expression). A fenced table's token column maps to
// fence.Token; then sqlc's overrides apply, then the default mapping.
func (m *typeMapper) goTypeOf(col *catalog.Column, t catalog.Type, notNull bool) goType {
	isToken := col != nil && col.Table != nil && col.Table.Fence != nil && col.Table.Fence.Column == col.Name
	if isToken && notNull && t.ArrayDims == 0 {
		return goType{pkg: fencePkg, name: "Token"}
	}
	if g, ok := m.overrideFor(col, t, notNull); ok {
		return g
	}
	if !m.pgTypes && m.sqlcDomain(col) {
		return goType{name: "interface{}"}
	}
	return m.defaultType(t, notNull)
}

// modelType is the Go type of column c in its table's model: sqlc's
// typing of a view's column (catalog.Column.Sqlc) unless pgTypes, else
// goTypeOf's.
func (m *typeMapper) modelType(c *catalog.Column) goType {
	if t := c.Sqlc; t != nil && !m.pgTypes {
		if t.Any {
			return goType{name: "interface{}"}
		}
		col := &catalog.Column{Name: c.Name, Type: t.Type, NotNull: t.NotNull, DBType: t.DBType, Table: c.Table}
		return m.goTypeOf(col, t.Type, t.NotNull)
	}
	return m.goTypeOf(c, c.Type, c.NotNull)
}

// sqlcDomain reports whether col is of a type sqlc v1.31.1 knows by
// name only, and so declares interface{}: a domain of the schema (sqlc's
// catalog does not read CREATE DOMAIN), or a column of an
// information_schema view (of the domains sql_identifier,
// cardinal_number, character_data, yes_or_no and time_stamp).
func (m *typeMapper) sqlcDomain(col *catalog.Column) bool {
	if col == nil {
		return false
	}
	if t := col.Table; t != nil && t.Schema == "information_schema" && t.IsSystem() {
		_, system := catalog.SystemColumns[col.Name]
		return !system
	}
	if col.DBType == "" || m.cat == nil {
		return false
	}
	schema, name := "", col.DBType
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		schema, name = name[:i], name[i+1:]
	}
	if schema == "pg_catalog" {
		return false
	}
	u := m.cat.UserType(schema, name)
	return u != nil && u.Kind == "domain"
}

// defaultType is sqlc's default pgx/v5 mapping.
func (m *typeMapper) defaultType(t catalog.Type, notNull bool) goType {
	if t.ArrayDims > 0 {
		// One slice per dimension, of the NOT NULL element type:
		// text[][] is [][]string, bytea[] is [][]byte.
		el := m.goTypeOf(nil, t.Elem(), true)
		el.slices += t.ArrayDims
		return el
	}
	if t.Bare {
		// Like sqlc: bpchar and timetz spelt so in the schema.
		return goType{name: "interface{}"}
	}
	if m.mysql() {
		if g, ok := m.mysqlType(t, notNull); ok {
			return g
		}
	}
	if m.stdlib() && (t.Schema == "pg_catalog" || t.Schema == "") {
		if pair, ok := stdlibTypes[t.Name]; ok {
			// sqlc ignores emit_pointers_for_null_types for database/sql.
			if notNull {
				return pair[0]
			}
			return pair[1]
		}
		if _, ok := pgxTypes[t.Name]; ok {
			return goType{name: "interface{}"}
		}
	}
	if m.pgxV4() && (t.Schema == "pg_catalog" || t.Schema == "") {
		if pair, ok := pgxV4Types[t.Name]; ok {
			// sqlc: emit_pointers_for_null_types makes a nullable value a
			// pointer to the NOT NULL type where the two differ.
			if notNull || pair[0].String() == pair[1].String() {
				if notNull {
					return pair[0]
				}
				return pair[1]
			}
			if m.opts.EmitPointersForNullTypes {
				g := pair[0]
				g.pointer = true
				return g
			}
			return pair[1]
		}
		if _, ok := pgxTypes[t.Name]; ok {
			return goType{name: "interface{}"}
		}
	}
	if t.Schema == "pg_catalog" || t.Schema == "" {
		if pair, ok := pgxTypes[t.Name]; ok {
			g := pair[0]
			if g.pkg == pgvectorPkg {
				// sqlc: *pgvector.Vector for every vector value with
				// emit_pointers_for_null_types, NULL or not.
				g.pointer = m.opts.EmitPointersForNullTypes
				return g
			}
			if notNull {
				return g
			}
			if m.opts.EmitPointersForNullTypes && g.slices == 0 && len(g.args) == 0 &&
				(g.pkg == "" && g.name != "interface{}" || pointerForNull[g.pkg+"."+g.name]) {
				g.pointer = true
				return g
			}
			return pair[1]
		}
	}
	if e := m.cat.Enum(t.Schema, t.Name); e != nil {
		m.mu.Lock()
		m.enumsUsed[e] = true
		m.mu.Unlock()
		name := m.names.structName(enumGoName(e))
		if notNull {
			return goType{name: name}
		}
		if m.enumPointers() {
			return goType{name: name, pointer: true}
		}
		return goType{name: "Null" + name}
	}
	if ut := m.cat.UserType(t.Schema, t.Name); ut != nil && ut.Kind == "composite" {
		// sqlc maps a composite type to its text form.
		switch {
		case notNull:
			return goType{name: "string"}
		case m.opts.EmitPointersForNullTypes && !m.stdlib():
			return goType{name: "string", pointer: true}
		}
		return goType{pkg: "database/sql", name: "NullString"}
	}
	return goType{name: "interface{}"}
}

// stdlib reports whether the output is for database/sql.
func (m *typeMapper) stdlib() bool { return m.opts.SQLPackage == config.SQLPackageStdlib }

// pgxV4 reports whether the output is for pgx/v4.
func (m *typeMapper) pgxV4() bool { return m.opts.SQLPackage == config.SQLPackagePgxV4 }

// pgxPath, pgconnPath and pgtypePath are the import paths of pgx's
// packages for the entry's sql_package: pgx/v5's, or pgx/v4's
// (github.com/jackc/pgx/v4, github.com/jackc/pgconn,
// github.com/jackc/pgtype), as sqlc's imports.go chooses them.
func (m *typeMapper) pgxPath() string {
	if m.pgxV4() {
		return pgxV4Pkg
	}
	return pgxPkg
}

func (m *typeMapper) pgconnPath() string {
	if m.pgxV4() {
		return pgconnV4Pkg
	}
	return pgconnPkg
}

// pgtypePathFor is pgtypePath for an sql_package.
func pgtypePathFor(sqlPackage string) string {
	if sqlPackage == config.SQLPackagePgxV4 {
		return pgtypeV4Pkg
	}
	return pgtypePkg
}

// overridePgtypePath is the package sqlc imports for an override's
// object form naming a pgtype type without import ({type: pgtype.Text}):
// pgx/v5's for sql_package pgx/v5, github.com/jackc/pgtype for every
// other (database/sql too).
func overridePgtypePath(sqlPackage string) string {
	if sqlPackage == config.SQLPackagePgxV5 {
		return pgtypePkg
	}
	return pgtypeV4Pkg
}

// enumPointers reports whether nullable enums are *Enum rather than
// NullEnum: emit_pointers_for_null_enum_types when set, otherwise
// emit_pointers_for_null_types (as sqlc); never for database/sql, where
// sqlc ignores both.
func (m *typeMapper) enumPointers() bool {
	if m.stdlib() {
		return false
	}
	if p := m.opts.EmitPointersForNullEnumTypes; p != nil {
		return *p
	}
	return m.opts.EmitPointersForNullTypes
}

// enumGoName is the SQL name an enum's Go names derive from: the enum's
// name, prefixed with its schema outside public.
func enumGoName(e *catalog.Enum) string {
	if e.Schema != "" && e.Schema != "public" && !e.SqlcPublic {
		return e.Schema + "_" + e.Name
	}
	return e.Name
}

// enumUsed reports whether a query's parameter or result, or a kept
// model, uses e (enumsUsed).
func (m *typeMapper) enumUsed(e *catalog.Enum) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.enumsUsed[e]
}
