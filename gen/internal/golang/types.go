package golang

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/config"
)

const (
	pgtypePkg = "github.com/jackc/pgx/v5/pgtype"
	pgxPkg    = "github.com/jackc/pgx/v5"
	pgconnPkg = "github.com/jackc/pgx/v5/pgconn"
	fencePkg  = "github.com/fencegen/fencegen/runtime/fence"
)

// goType is a Go type reference: a qualified name plus pointer and slice
// markers.
type goType struct {
	pkg, name string
	pointer   bool
	slices    int
}

func (t goType) code() jen.Code {
	var s *jen.Statement = jen.Null()
	for i := 0; i < t.slices; i++ {
		s = s.Index()
	}
	if t.pointer {
		s = s.Op("*")
	}
	switch {
	case t.name == "interface{}":
		return s.Interface()
	case t.pkg == "":
		return s.Id(t.name)
	default:
		return s.Qual(t.pkg, t.name)
	}
}

// String is used in tests and for comparisons.
func (t goType) String() string {
	s := strings.Repeat("[]", t.slices)
	if t.pointer {
		s += "*"
	}
	if t.pkg != "" {
		s += t.pkg + "."
	}
	return s + t.name
}

// typeMapper maps PostgreSQL types to Go types as sqlc does for pgx/v5.
type typeMapper struct {
	cat       *catalog.Catalog
	names     *namer
	opts      config.GoOptions
	enumsUsed map[*catalog.Enum]bool
	overrides []override
	// imports maps override import paths to their package names.
	imports map[string]string
}

// pgxTypes is sqlc's default pgx/v5 mapping: the Go type for NOT NULL
// values, then the nullable one.
var pgxTypes = map[string][2]goType{
	"int2":        {{name: "int16"}, {pkg: pgtypePkg, name: "Int2"}},
	"int4":        {{name: "int32"}, {pkg: pgtypePkg, name: "Int4"}},
	"int8":        {{name: "int64"}, {pkg: pgtypePkg, name: "Int8"}},
	"float4":      {{name: "float32"}, {pkg: pgtypePkg, name: "Float4"}},
	"float8":      {{name: "float64"}, {pkg: pgtypePkg, name: "Float8"}},
	"numeric":     {{pkg: pgtypePkg, name: "Numeric"}, {pkg: pgtypePkg, name: "Numeric"}},
	"money":       {{pkg: pgtypePkg, name: "Numeric"}, {pkg: pgtypePkg, name: "Numeric"}},
	"bool":        {{name: "bool"}, {pkg: pgtypePkg, name: "Bool"}},
	"text":        {{name: "string"}, {pkg: pgtypePkg, name: "Text"}},
	"varchar":     {{name: "string"}, {pkg: pgtypePkg, name: "Text"}},
	"bpchar":      {{name: "string"}, {pkg: pgtypePkg, name: "Text"}},
	"char":        {{name: "string"}, {pkg: pgtypePkg, name: "Text"}},
	"name":        {{name: "string"}, {pkg: pgtypePkg, name: "Text"}},
	"citext":      {{name: "string"}, {pkg: pgtypePkg, name: "Text"}},
	"ltree":       {{name: "string"}, {pkg: pgtypePkg, name: "Text"}},
	"bytea":       {{name: "byte", slices: 1}, {name: "byte", slices: 1}},
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
	"oid":         {{name: "uint32"}, {pkg: pgtypePkg, name: "Uint32"}},
	"xid":         {{name: "uint32"}, {pkg: pgtypePkg, name: "Uint32"}},
	"void":        {{name: "interface{}"}, {name: "interface{}"}},
}

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
	return m.defaultType(t, notNull)
}

// defaultType is sqlc's default pgx/v5 mapping.
func (m *typeMapper) defaultType(t catalog.Type, notNull bool) goType {
	if t.ArrayDims > 0 {
		el := m.goTypeOf(nil, t.Elem(), true)
		if el.name == "byte" && el.slices == 1 {
			el.slices = 1
		}
		el.slices += 1
		if el.name == "interface{}" && el.slices == 1 {
			return goType{name: "interface{}"}
		}
		return el
	}
	if t.Schema == "pg_catalog" || t.Schema == "" {
		if pair, ok := pgxTypes[t.Name]; ok {
			if notNull {
				return pair[0]
			}
			if m.opts.EmitPointersForNullTypes && pair[0].pkg == "" && pair[0].name != "interface{}" && pair[0].slices == 0 {
				g := pair[0]
				g.pointer = true
				return g
			}
			return pair[1]
		}
	}
	if e := m.cat.Enum(t.Schema, t.Name); e != nil {
		m.enumsUsed[e] = true
		name := m.names.modelName(e.Schema, e.Name)
		if !m.names.exactTables {
			name = m.names.structName(enumGoName(e))
		}
		if notNull {
			return goType{name: name}
		}
		if m.opts.EmitPointersForNullTypes {
			return goType{name: name, pointer: true}
		}
		return goType{name: "Null" + name}
	}
	return goType{name: "interface{}"}
}

func enumGoName(e *catalog.Enum) string {
	if e.Schema != "" && e.Schema != "public" {
		return e.Schema + "_" + e.Name
	}
	return e.Name
}
