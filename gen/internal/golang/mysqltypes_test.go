package golang

import (
	"testing"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/config"
)

// TestMySQLTypes checks the mapping docs/mysql.md's type table shows (sqlc
// v1.31.1's mysqlType), NOT NULL and nullable.
func TestMySQLTypes(t *testing.T) {
	m := newTypeMapper(Input{Catalog: catalog.New(), Options: config.GoOptions{Engine: config.EngineMySQL, SQLPackage: config.SQLPackageStdlib}}, namerFor(config.GoOptions{}), false)
	my := func(name string) catalog.Type { return catalog.Type{Schema: catalog.MySQLSchema, Name: name} }
	for _, tc := range []struct {
		typ               catalog.Type
		notNull, nullable string
	}{
		{catalog.Type{Schema: catalog.MySQLSchema, Name: "tinyint", Length: 1}, "bool", "database/sql.NullBool"},
		{my("bool"), "bool", "database/sql.NullBool"},
		{my("tinyint"), "int8", "database/sql.NullInt16"},
		{catalog.Type{Schema: catalog.MySQLSchema, Name: "tinyint", Unsigned: true}, "uint8", "database/sql.NullInt16"},
		{my("smallint"), "int16", "database/sql.NullInt16"},
		{my("int"), "int32", "database/sql.NullInt32"},
		{catalog.Type{Schema: catalog.MySQLSchema, Name: "int", Unsigned: true}, "uint32", "database/sql.NullInt32"},
		{my("bigint"), "int64", "database/sql.NullInt64"},
		{catalog.Type{Schema: catalog.MySQLSchema, Name: "bigint", Unsigned: true}, "uint64", "database/sql.NullInt64"},
		{my("year"), "int16", "database/sql.NullInt16"},
		{my("decimal"), "string", "database/sql.NullString"},
		{my("float"), "float64", "database/sql.NullFloat64"},
		{my("double"), "float64", "database/sql.NullFloat64"},
		{my("char"), "string", "database/sql.NullString"},
		{my("varchar"), "string", "database/sql.NullString"},
		{my("text"), "string", "database/sql.NullString"},
		{my("binary"), "[]byte", "database/sql.NullString"},
		{my("varbinary"), "[]byte", "database/sql.NullString"},
		{my("blob"), "[]byte", "database/sql.NullString"},
		{my("date"), "time.Time", "database/sql.NullTime"},
		{my("datetime"), "time.Time", "database/sql.NullTime"},
		{my("timestamp"), "time.Time", "database/sql.NullTime"},
		{my("time"), "time.Time", "database/sql.NullTime"},
		{my("json"), "encoding/json.RawMessage", "encoding/json.RawMessage"},
		{my("geometry"), "interface{}", "interface{}"},
		// Values the analysis types itself (literals, COUNT(*)).
		{catalog.Type{Schema: "pg_catalog", Name: "int8"}, "int64", "database/sql.NullInt64"},
		{catalog.Type{Schema: "pg_catalog", Name: "text"}, "string", "database/sql.NullString"},
	} {
		if g := m.defaultType(tc.typ, true).String(); g != tc.notNull {
			t.Errorf("%s NOT NULL: %s, want %s", tc.typ, g, tc.notNull)
		}
		if g := m.defaultType(tc.typ, false).String(); g != tc.nullable {
			t.Errorf("%s nullable: %s, want %s", tc.typ, g, tc.nullable)
		}
	}
}
