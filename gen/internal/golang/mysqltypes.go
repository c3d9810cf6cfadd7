package golang

import (
	"github.com/dave/jennifer/jen"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/config"
)

// mysqlTypes is sqlc v1.31.1's MySQL mapping for database/sql (its golang
// codegen's mysqlType, read from its source and checked against its
// output on sqlc's MySQL end-to-end cases): the Go type for NOT NULL
// values, then the nullable one. Integers keep their width and sign
// (tinyint is int8, int unsigned uint32), but a nullable integer is the
// smallest sql.NullIntN database/sql has whatever the sign; decimal is a
// string, blobs are []byte (sql.NullString when nullable), json is
// json.RawMessage either way. tinyint(1) and year are mysqlType's
// special cases; the types it does not list are interface{}.
var mysqlTypes = map[string][2]goType{
	"varchar": {{name: "string"}, sqlNull("NullString")}, "text": {{name: "string"}, sqlNull("NullString")},
	"char": {{name: "string"}, sqlNull("NullString")}, "tinytext": {{name: "string"}, sqlNull("NullString")},
	"mediumtext": {{name: "string"}, sqlNull("NullString")}, "longtext": {{name: "string"}, sqlNull("NullString")},
	"tinyint":   {{name: "int8"}, sqlNull("NullInt16")},
	"year":      {{name: "int16"}, sqlNull("NullInt16")},
	"smallint":  {{name: "int16"}, sqlNull("NullInt16")},
	"int":       {{name: "int32"}, sqlNull("NullInt32")},
	"integer":   {{name: "int32"}, sqlNull("NullInt32")},
	"mediumint": {{name: "int32"}, sqlNull("NullInt32")},
	"bigint":    {{name: "int64"}, sqlNull("NullInt64")},
	"blob":      {{name: "byte", slices: 1}, sqlNull("NullString")}, "binary": {{name: "byte", slices: 1}, sqlNull("NullString")},
	"varbinary": {{name: "byte", slices: 1}, sqlNull("NullString")}, "tinyblob": {{name: "byte", slices: 1}, sqlNull("NullString")},
	"mediumblob": {{name: "byte", slices: 1}, sqlNull("NullString")}, "longblob": {{name: "byte", slices: 1}, sqlNull("NullString")},
	"double": {{name: "float64"}, sqlNull("NullFloat64")}, "double precision": {{name: "float64"}, sqlNull("NullFloat64")},
	"real": {{name: "float64"}, sqlNull("NullFloat64")}, "float": {{name: "float64"}, sqlNull("NullFloat64")},
	"decimal": {{name: "string"}, sqlNull("NullString")}, "dec": {{name: "string"}, sqlNull("NullString")},
	"fixed": {{name: "string"}, sqlNull("NullString")},
	"enum":  {{name: "string"}, {name: "string"}},
	"date":  {{pkg: "time", name: "Time"}, sqlNull("NullTime")}, "timestamp": {{pkg: "time", name: "Time"}, sqlNull("NullTime")},
	"datetime": {{pkg: "time", name: "Time"}, sqlNull("NullTime")}, "time": {{pkg: "time", name: "Time"}, sqlNull("NullTime")},
	"boolean": {{name: "bool"}, sqlNull("NullBool")}, "bool": {{name: "bool"}, sqlNull("NullBool")},
	"json": {{pkg: "encoding/json", name: "RawMessage"}, {pkg: "encoding/json", name: "RawMessage"}},
	"any":  {{name: "interface{}"}, {name: "interface{}"}},
}

// mysqlPGNames are the names the analysis gives the values it types
// itself (literals, operators, aggregates: PostgreSQL's catalog), as
// sqlc's MySQL catalog names them.
var mysqlPGNames = map[string]string{
	"int2": "smallint", "int4": "int", "int8": "bigint", "text": "text", "varchar": "varchar", "bpchar": "char",
	"bool": "bool", "numeric": "decimal", "float4": "float", "float8": "double", "timestamp": "datetime",
	"timestamptz": "datetime", "date": "date", "time": "time", "json": "json", "jsonb": "json", "bytea": "blob",
}

// mysqlType is defaultType for a MySQL configuration; ok is false for a
// type it leaves to the shared mapping (an enum).
func (m *typeMapper) mysqlType(t catalog.Type, notNull bool) (goType, bool) {
	name := t.Name
	switch t.Schema {
	case catalog.MySQLSchema:
	case "pg_catalog", "":
		n, ok := mysqlPGNames[t.Name]
		if !ok {
			if t.Name == "any" || t.Name == "unknown" {
				return goType{name: "interface{}"}, true
			}
			if m.cat.Enum(t.Schema, t.Name) != nil {
				return goType{}, false
			}
			return goType{name: "interface{}"}, true
		}
		name = n
	default:
		return goType{}, false
	}
	switch {
	case name == "tinyint" && t.Length == 1:
		if notNull {
			return goType{name: "bool"}, true
		}
		return sqlNull("NullBool"), true
	case notNull && t.Unsigned:
		switch name {
		case "tinyint":
			return goType{name: "uint8"}, true
		case "smallint":
			return goType{name: "uint16"}, true
		case "int", "integer", "mediumint":
			return goType{name: "uint32"}, true
		case "bigint":
			return goType{name: "uint64"}, true
		}
	}
	pair, ok := mysqlTypes[name]
	if !ok {
		return goType{name: "interface{}"}, true
	}
	if notNull {
		return pair[0], true
	}
	return pair[1], true
}

// mysql reports whether the output is for a MySQL configuration.
func (m *typeMapper) mysql() bool { return m.opts.Engine == config.EngineMySQL }

// mysqlInSlices is inSliceExpansion's body for MySQL, sqlc's: MySQL's
// placeholders are positional, so each list's marker becomes one ? per
// element where the list stands, its elements appended in the order of
// the placeholders; an empty list is NULL (IN (NULL) matches nothing). As
// sqlc's template ranges over every placeholder's field, a parameter used
// more than once (Query.Placeholders) is appended, and a list's first
// remaining marker expanded, once per use. (A fenced write's lists are
// mysqlSliceExpansion's: the guard refuses one in an INSERT it stores.)
func (e *emitter) mysqlInSlices(q *analyze.Query, sig signature, appendParam func(jen.Code) jen.Code) []jen.Code {
	order := q.Placeholders
	if len(order) == 0 {
		for i := range sig.args {
			order = append(order, i+1)
		}
	}
	var body []jen.Code
	for _, n := range order {
		i := n - 1
		if i < 0 || i >= len(sig.args) {
			continue
		}
		a := sig.args[i]
		if i >= len(q.Params) || !q.Params[i].InList {
			body = append(body, appendParam(a))
			continue
		}
		marker := jen.Lit(analyze.SliceMarker(q.Params[i].Name))
		body = append(body, jen.If(jen.Len(jen.Add(a)).Op(">").Lit(0)).Block(
			jen.For(jen.List(jen.Id("_"), jen.Id("v")).Op(":=").Range().Add(a)).Block(appendParam(jen.Id("v"))),
			jen.Id("query").Op("=").Qual("strings", "Replace").Call(jen.Id("query"), marker,
				jen.Qual("strings", "Repeat").Call(jen.Lit(",?"), jen.Len(jen.Add(a))).Index(jen.Lit(1), jen.Empty()), jen.Lit(1)),
		).Else().Block(
			jen.Id("query").Op("=").Qual("strings", "Replace").Call(jen.Id("query"), marker, jen.Lit("NULL"), jen.Lit(1)),
		))
	}
	return body
}
