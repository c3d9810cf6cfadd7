package golang_test

import (
	"fmt"
	"strings"
	"testing"
)

// sqlcTypes is how sqlc v1.31.1 maps each way of writing a column type for
// pgx/v5, as its models.go declares a table column of that type: NOT NULL,
// nullable, both again with emit_pointers_for_null_types, then an array
// (NULL or not; sqlc maps the elements as NOT NULL), without and with
// pointers. The rows were produced by running sqlc on the same schema
// (sqlc's internal/codegen/golang/postgresql_type.go is the rule): a
// spelling sqlc does not know, such as regclass or xml, is interface{}.
//
// Not listed, since the catalog decides them before the emitter maps
// anything: a domain (sqlc: interface{}), pg_catalog.text, pg_catalog.date,
// pg_catalog.uuid and pg_catalog.oid written qualified (sqlc:
// interface{}), and types no schema or extension defines (sqlc:
// interface{}).
var sqlcTypes = []struct {
	sql                 string
	notNull, null       string
	ptrNotNull, ptrNull string
	array, ptrArray     string
}{
	{"smallint", "int16", "pgtype.Int2", "int16", "*int16", "[]int16", "[]int16"},
	{"integer", "int32", "pgtype.Int4", "int32", "*int32", "[]int32", "[]int32"},
	{"bigint", "int64", "pgtype.Int8", "int64", "*int64", "[]int64", "[]int64"},
	{"int2", "int16", "pgtype.Int2", "int16", "*int16", "[]int16", "[]int16"},
	{"int4", "int32", "pgtype.Int4", "int32", "*int32", "[]int32", "[]int32"},
	{"int8", "int64", "pgtype.Int8", "int64", "*int64", "[]int64", "[]int64"},
	{"int", "int32", "pgtype.Int4", "int32", "*int32", "[]int32", "[]int32"},
	{"real", "float32", "pgtype.Float4", "float32", "*float32", "[]float32", "[]float32"},
	{"float4", "float32", "pgtype.Float4", "float32", "*float32", "[]float32", "[]float32"},
	{"float8", "float64", "pgtype.Float8", "float64", "*float64", "[]float64", "[]float64"},
	{"double precision", "float64", "pgtype.Float8", "float64", "*float64", "[]float64", "[]float64"},
	{"float", "float64", "pgtype.Float8", "float64", "*float64", "[]float64", "[]float64"},
	{"numeric", "pgtype.Numeric", "pgtype.Numeric", "pgtype.Numeric", "pgtype.Numeric", "[]pgtype.Numeric", "[]pgtype.Numeric"},
	{"numeric(10,2)", "pgtype.Numeric", "pgtype.Numeric", "pgtype.Numeric", "pgtype.Numeric", "[]pgtype.Numeric", "[]pgtype.Numeric"},
	{"decimal", "pgtype.Numeric", "pgtype.Numeric", "pgtype.Numeric", "pgtype.Numeric", "[]pgtype.Numeric", "[]pgtype.Numeric"},
	{"money", "pgtype.Numeric", "pgtype.Numeric", "pgtype.Numeric", "pgtype.Numeric", "[]pgtype.Numeric", "[]pgtype.Numeric"},
	{"boolean", "bool", "pgtype.Bool", "bool", "*bool", "[]bool", "[]bool"},
	{"bool", "bool", "pgtype.Bool", "bool", "*bool", "[]bool", "[]bool"},
	{"text", "string", "pgtype.Text", "string", "*string", "[]string", "[]string"},
	{"varchar", "string", "pgtype.Text", "string", "*string", "[]string", "[]string"},
	{"varchar(10)", "string", "pgtype.Text", "string", "*string", "[]string", "[]string"},
	{"character varying", "string", "pgtype.Text", "string", "*string", "[]string", "[]string"},
	{"character varying(5)", "string", "pgtype.Text", "string", "*string", "[]string", "[]string"},
	{"char", "string", "pgtype.Text", "string", "*string", "[]string", "[]string"},
	{"char(3)", "string", "pgtype.Text", "string", "*string", "[]string", "[]string"},
	{"character(3)", "string", "pgtype.Text", "string", "*string", "[]string", "[]string"},
	{"bpchar", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"\"char\"", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"name", "string", "pgtype.Text", "string", "*string", "[]string", "[]string"},
	{"citext", "string", "pgtype.Text", "string", "*string", "[]string", "[]string"},
	{"string", "string", "pgtype.Text", "string", "*string", "[]string", "[]string"},
	{"bytea", "[]byte", "[]byte", "[]byte", "[]byte", "[][]byte", "[][]byte"},
	{"json", "[]byte", "[]byte", "[]byte", "[]byte", "[][]byte", "[][]byte"},
	{"jsonb", "[]byte", "[]byte", "[]byte", "[]byte", "[][]byte", "[][]byte"},
	{"jsonpath", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"xml", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"date", "pgtype.Date", "pgtype.Date", "pgtype.Date", "pgtype.Date", "[]pgtype.Date", "[]pgtype.Date"},
	{"time", "pgtype.Time", "pgtype.Time", "pgtype.Time", "pgtype.Time", "[]pgtype.Time", "[]pgtype.Time"},
	{"time(3)", "pgtype.Time", "pgtype.Time", "pgtype.Time", "pgtype.Time", "[]pgtype.Time", "[]pgtype.Time"},
	{"time without time zone", "pgtype.Time", "pgtype.Time", "pgtype.Time", "pgtype.Time", "[]pgtype.Time", "[]pgtype.Time"},
	{"timetz", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"time with time zone", "time.Time", "sql.NullTime", "time.Time", "*time.Time", "[]time.Time", "[]time.Time"},
	{"timestamp", "pgtype.Timestamp", "pgtype.Timestamp", "pgtype.Timestamp", "pgtype.Timestamp", "[]pgtype.Timestamp", "[]pgtype.Timestamp"},
	{"timestamp(3)", "pgtype.Timestamp", "pgtype.Timestamp", "pgtype.Timestamp", "pgtype.Timestamp", "[]pgtype.Timestamp", "[]pgtype.Timestamp"},
	{"timestamp without time zone", "pgtype.Timestamp", "pgtype.Timestamp", "pgtype.Timestamp", "pgtype.Timestamp", "[]pgtype.Timestamp", "[]pgtype.Timestamp"},
	{"timestamptz", "pgtype.Timestamptz", "pgtype.Timestamptz", "pgtype.Timestamptz", "pgtype.Timestamptz", "[]pgtype.Timestamptz", "[]pgtype.Timestamptz"},
	{"timestamp with time zone", "pgtype.Timestamptz", "pgtype.Timestamptz", "pgtype.Timestamptz", "pgtype.Timestamptz", "[]pgtype.Timestamptz", "[]pgtype.Timestamptz"},
	{"interval", "pgtype.Interval", "pgtype.Interval", "pgtype.Interval", "pgtype.Interval", "[]pgtype.Interval", "[]pgtype.Interval"},
	{"interval(2)", "pgtype.Interval", "pgtype.Interval", "pgtype.Interval", "pgtype.Interval", "[]pgtype.Interval", "[]pgtype.Interval"},
	{"interval day", "pgtype.Interval", "pgtype.Interval", "pgtype.Interval", "pgtype.Interval", "[]pgtype.Interval", "[]pgtype.Interval"},
	{"uuid", "pgtype.UUID", "pgtype.UUID", "pgtype.UUID", "pgtype.UUID", "[]pgtype.UUID", "[]pgtype.UUID"},
	{"inet", "netip.Addr", "*netip.Addr", "netip.Addr", "*netip.Addr", "[]netip.Addr", "[]netip.Addr"},
	{"cidr", "netip.Prefix", "*netip.Prefix", "netip.Prefix", "*netip.Prefix", "[]netip.Prefix", "[]netip.Prefix"},
	{"macaddr", "net.HardwareAddr", "net.HardwareAddr", "net.HardwareAddr", "net.HardwareAddr", "[]net.HardwareAddr", "[]net.HardwareAddr"},
	{"macaddr8", "net.HardwareAddr", "net.HardwareAddr", "net.HardwareAddr", "net.HardwareAddr", "[]net.HardwareAddr", "[]net.HardwareAddr"},
	{"bit", "pgtype.Bits", "pgtype.Bits", "pgtype.Bits", "pgtype.Bits", "[]pgtype.Bits", "[]pgtype.Bits"},
	{"bit(3)", "pgtype.Bits", "pgtype.Bits", "pgtype.Bits", "pgtype.Bits", "[]pgtype.Bits", "[]pgtype.Bits"},
	{"varbit", "pgtype.Bits", "pgtype.Bits", "pgtype.Bits", "pgtype.Bits", "[]pgtype.Bits", "[]pgtype.Bits"},
	{"bit varying", "pgtype.Bits", "pgtype.Bits", "pgtype.Bits", "pgtype.Bits", "[]pgtype.Bits", "[]pgtype.Bits"},
	{"bit varying(4)", "pgtype.Bits", "pgtype.Bits", "pgtype.Bits", "pgtype.Bits", "[]pgtype.Bits", "[]pgtype.Bits"},
	{"point", "pgtype.Point", "pgtype.Point", "pgtype.Point", "pgtype.Point", "[]pgtype.Point", "[]pgtype.Point"},
	{"line", "pgtype.Line", "pgtype.Line", "pgtype.Line", "pgtype.Line", "[]pgtype.Line", "[]pgtype.Line"},
	{"lseg", "pgtype.Lseg", "pgtype.Lseg", "pgtype.Lseg", "pgtype.Lseg", "[]pgtype.Lseg", "[]pgtype.Lseg"},
	{"box", "pgtype.Box", "pgtype.Box", "pgtype.Box", "pgtype.Box", "[]pgtype.Box", "[]pgtype.Box"},
	{"path", "pgtype.Path", "pgtype.Path", "pgtype.Path", "pgtype.Path", "[]pgtype.Path", "[]pgtype.Path"},
	{"polygon", "pgtype.Polygon", "pgtype.Polygon", "pgtype.Polygon", "pgtype.Polygon", "[]pgtype.Polygon", "[]pgtype.Polygon"},
	{"circle", "pgtype.Circle", "pgtype.Circle", "pgtype.Circle", "pgtype.Circle", "[]pgtype.Circle", "[]pgtype.Circle"},
	{"tsvector", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"tsquery", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"hstore", "pgtype.Hstore", "pgtype.Hstore", "pgtype.Hstore", "pgtype.Hstore", "[]pgtype.Hstore", "[]pgtype.Hstore"},
	{"ltree", "string", "pgtype.Text", "string", "*string", "[]string", "[]string"},
	{"lquery", "string", "pgtype.Text", "string", "*string", "[]string", "[]string"},
	{"ltxtquery", "string", "pgtype.Text", "string", "*string", "[]string", "[]string"},
	{"vector", "pgvector.Vector", "pgvector.Vector", "*pgvector.Vector", "*pgvector.Vector", "[]pgvector.Vector", "[]*pgvector.Vector"},
	{"oid", "pgtype.Uint32", "pgtype.Uint32", "pgtype.Uint32", "pgtype.Uint32", "[]pgtype.Uint32", "[]pgtype.Uint32"},
	{"xid", "pgtype.Uint32", "pgtype.Uint32", "pgtype.Uint32", "pgtype.Uint32", "[]pgtype.Uint32", "[]pgtype.Uint32"},
	{"xid8", "pgtype.Uint64", "pgtype.Uint64", "pgtype.Uint64", "pgtype.Uint64", "[]pgtype.Uint64", "[]pgtype.Uint64"},
	{"cid", "pgtype.Uint32", "pgtype.Uint32", "pgtype.Uint32", "pgtype.Uint32", "[]pgtype.Uint32", "[]pgtype.Uint32"},
	{"tid", "pgtype.TID", "pgtype.TID", "pgtype.TID", "pgtype.TID", "[]pgtype.TID", "[]pgtype.TID"},
	{"regclass", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"regtype", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"regproc", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"regprocedure", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"regnamespace", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"regrole", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"regoper", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"regconfig", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"pg_lsn", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"txid_snapshot", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"pg_snapshot", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"aclitem", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"int2vector", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"oidvector", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"refcursor", "interface{}", "interface{}", "interface{}", "interface{}", "[]interface{}", "[]interface{}"},
	{"pg_catalog.int4", "int32", "pgtype.Int4", "int32", "*int32", "[]int32", "[]int32"},
	{"pg_catalog.varchar", "string", "pgtype.Text", "string", "*string", "[]string", "[]string"},
	{"pg_catalog.bpchar", "string", "pgtype.Text", "string", "*string", "[]string", "[]string"},
	{"pg_catalog.timetz", "time.Time", "sql.NullTime", "time.Time", "*time.Time", "[]time.Time", "[]time.Time"},
	{"pg_catalog.time", "pgtype.Time", "pgtype.Time", "pgtype.Time", "pgtype.Time", "[]pgtype.Time", "[]pgtype.Time"},
	{"pg_catalog.bool", "bool", "pgtype.Bool", "bool", "*bool", "[]bool", "[]bool"},
	{"pg_catalog.numeric", "pgtype.Numeric", "pgtype.Numeric", "pgtype.Numeric", "pgtype.Numeric", "[]pgtype.Numeric", "[]pgtype.Numeric"},
	{"pg_catalog.interval", "pgtype.Interval", "pgtype.Interval", "pgtype.Interval", "pgtype.Interval", "[]pgtype.Interval", "[]pgtype.Interval"},
	{"pg_catalog.jsonb", "[]byte", "[]byte", "[]byte", "[]byte", "[][]byte", "[][]byte"},
	{"int4range", "pgtype.Range[pgtype.Int4]", "pgtype.Range[pgtype.Int4]", "pgtype.Range[pgtype.Int4]", "pgtype.Range[pgtype.Int4]", "[]pgtype.Range[pgtype.Int4]", "[]pgtype.Range[pgtype.Int4]"},
	{"int8range", "pgtype.Range[pgtype.Int8]", "pgtype.Range[pgtype.Int8]", "pgtype.Range[pgtype.Int8]", "pgtype.Range[pgtype.Int8]", "[]pgtype.Range[pgtype.Int8]", "[]pgtype.Range[pgtype.Int8]"},
	{"numrange", "pgtype.Range[pgtype.Numeric]", "pgtype.Range[pgtype.Numeric]", "pgtype.Range[pgtype.Numeric]", "pgtype.Range[pgtype.Numeric]", "[]pgtype.Range[pgtype.Numeric]", "[]pgtype.Range[pgtype.Numeric]"},
	{"tsrange", "pgtype.Range[pgtype.Timestamp]", "pgtype.Range[pgtype.Timestamp]", "pgtype.Range[pgtype.Timestamp]", "pgtype.Range[pgtype.Timestamp]", "[]pgtype.Range[pgtype.Timestamp]", "[]pgtype.Range[pgtype.Timestamp]"},
	{"tstzrange", "pgtype.Range[pgtype.Timestamptz]", "pgtype.Range[pgtype.Timestamptz]", "pgtype.Range[pgtype.Timestamptz]", "pgtype.Range[pgtype.Timestamptz]", "[]pgtype.Range[pgtype.Timestamptz]", "[]pgtype.Range[pgtype.Timestamptz]"},
	{"daterange", "pgtype.Range[pgtype.Date]", "pgtype.Range[pgtype.Date]", "pgtype.Range[pgtype.Date]", "pgtype.Range[pgtype.Date]", "[]pgtype.Range[pgtype.Date]", "[]pgtype.Range[pgtype.Date]"},
	{"int4multirange", "pgtype.Multirange[pgtype.Range[pgtype.Int4]]", "pgtype.Multirange[pgtype.Range[pgtype.Int4]]", "pgtype.Multirange[pgtype.Range[pgtype.Int4]]", "pgtype.Multirange[pgtype.Range[pgtype.Int4]]", "[]pgtype.Multirange[pgtype.Range[pgtype.Int4]]", "[]pgtype.Multirange[pgtype.Range[pgtype.Int4]]"},
	{"int8multirange", "pgtype.Multirange[pgtype.Range[pgtype.Int8]]", "pgtype.Multirange[pgtype.Range[pgtype.Int8]]", "pgtype.Multirange[pgtype.Range[pgtype.Int8]]", "pgtype.Multirange[pgtype.Range[pgtype.Int8]]", "[]pgtype.Multirange[pgtype.Range[pgtype.Int8]]", "[]pgtype.Multirange[pgtype.Range[pgtype.Int8]]"},
	{"nummultirange", "pgtype.Multirange[pgtype.Range[pgtype.Numeric]]", "pgtype.Multirange[pgtype.Range[pgtype.Numeric]]", "pgtype.Multirange[pgtype.Range[pgtype.Numeric]]", "pgtype.Multirange[pgtype.Range[pgtype.Numeric]]", "[]pgtype.Multirange[pgtype.Range[pgtype.Numeric]]", "[]pgtype.Multirange[pgtype.Range[pgtype.Numeric]]"},
	{"tsmultirange", "pgtype.Multirange[pgtype.Range[pgtype.Timestamp]]", "pgtype.Multirange[pgtype.Range[pgtype.Timestamp]]", "pgtype.Multirange[pgtype.Range[pgtype.Timestamp]]", "pgtype.Multirange[pgtype.Range[pgtype.Timestamp]]", "[]pgtype.Multirange[pgtype.Range[pgtype.Timestamp]]", "[]pgtype.Multirange[pgtype.Range[pgtype.Timestamp]]"},
	{"tstzmultirange", "pgtype.Multirange[pgtype.Range[pgtype.Timestamptz]]", "pgtype.Multirange[pgtype.Range[pgtype.Timestamptz]]", "pgtype.Multirange[pgtype.Range[pgtype.Timestamptz]]", "pgtype.Multirange[pgtype.Range[pgtype.Timestamptz]]", "[]pgtype.Multirange[pgtype.Range[pgtype.Timestamptz]]", "[]pgtype.Multirange[pgtype.Range[pgtype.Timestamptz]]"},
	{"datemultirange", "pgtype.Multirange[pgtype.Range[pgtype.Date]]", "pgtype.Multirange[pgtype.Range[pgtype.Date]]", "pgtype.Multirange[pgtype.Range[pgtype.Date]]", "pgtype.Multirange[pgtype.Range[pgtype.Date]]", "[]pgtype.Multirange[pgtype.Range[pgtype.Date]]", "[]pgtype.Multirange[pgtype.Range[pgtype.Date]]"},
	{"mood", "Mood", "NullMood", "Mood", "*Mood", "[]Mood", "[]Mood"},
	{"comp", "string", "sql.NullString", "string", "*string", "[]string", "[]string"},
	{"public.mood", "Mood", "NullMood", "Mood", "*Mood", "[]Mood", "[]Mood"},
}

// TestTypeMappingMatchesSqlc declares one table column per row of
// sqlcTypes in each of the four forms and checks the model's field types.
func TestTypeMappingMatchesSqlc(t *testing.T) {
	var cols []string
	for i, r := range sqlcTypes {
		cols = append(cols,
			fmt.Sprintf("nn%d %s NOT NULL", i, r.sql), fmt.Sprintf("nl%d %s", i, r.sql),
			fmt.Sprintf("an%d %s[] NOT NULL", i, r.sql), fmt.Sprintf("al%d %s[]", i, r.sql))
	}
	schema := "CREATE TYPE mood AS ENUM ('a', 'b');\nCREATE TYPE comp AS (x int, y text);\n" +
		"CREATE TABLE t (\n  " + strings.Join(cols, ",\n  ") + "\n);\n"
	queries := "-- name: ListT :many\nSELECT * FROM t;\n"
	for _, ptr := range []bool{false, true} {
		opts := ""
		if ptr {
			opts = "emit_pointers_for_null_types: true"
		}
		a := parseAPI(t, generate(t, goConfig(opts), schema, queries))
		for i, r := range sqlcTypes {
			nn, nl, arr := r.notNull, r.null, r.array
			if ptr {
				nn, nl, arr = r.ptrNotNull, r.ptrNull, r.ptrArray
			}
			for _, f := range []struct{ col, want string }{
				{fmt.Sprintf("Nn%d", i), nn}, {fmt.Sprintf("Nl%d", i), nl},
				{fmt.Sprintf("An%d", i), arr}, {fmt.Sprintf("Al%d", i), arr},
			} {
				line := "field T." + f.col + " " + f.want
				if !a.lines[line] {
					t.Errorf("pointers=%v: %s %s: want %s; have %s", ptr, f.col, r.sql, f.want, a.fieldType("T", f.col))
				}
			}
		}
	}
}

// sqlcStdlibTypes is sqlcTypes for database/sql (no sql_package): sqlc
// v1.31.1's models.go for the same columns, NOT NULL, nullable, and an
// array (NULL or not). sqlc ignores emit_pointers_for_null_types for
// database/sql: the rows are the same with it, which the test checks too.
var sqlcStdlibTypes = []struct {
	sql                  string
	notNull, null, array string
}{
	{"smallint", "int16", "sql.NullInt16", "[]int16"},
	{"integer", "int32", "sql.NullInt32", "[]int32"},
	{"bigint", "int64", "sql.NullInt64", "[]int64"},
	{"int2", "int16", "sql.NullInt16", "[]int16"},
	{"int4", "int32", "sql.NullInt32", "[]int32"},
	{"int8", "int64", "sql.NullInt64", "[]int64"},
	{"int", "int32", "sql.NullInt32", "[]int32"},
	{"real", "float32", "sql.NullFloat64", "[]float32"},
	{"float4", "float32", "sql.NullFloat64", "[]float32"},
	{"float8", "float64", "sql.NullFloat64", "[]float64"},
	{"double precision", "float64", "sql.NullFloat64", "[]float64"},
	{"float", "float64", "sql.NullFloat64", "[]float64"},
	{"numeric", "string", "sql.NullString", "[]string"},
	{"numeric(10,2)", "string", "sql.NullString", "[]string"},
	{"decimal", "string", "sql.NullString", "[]string"},
	{"money", "string", "sql.NullString", "[]string"},
	{"boolean", "bool", "sql.NullBool", "[]bool"},
	{"bool", "bool", "sql.NullBool", "[]bool"},
	{"text", "string", "sql.NullString", "[]string"},
	{"varchar", "string", "sql.NullString", "[]string"},
	{"varchar(10)", "string", "sql.NullString", "[]string"},
	{"character varying", "string", "sql.NullString", "[]string"},
	{"character varying(5)", "string", "sql.NullString", "[]string"},
	{"char", "string", "sql.NullString", "[]string"},
	{"char(3)", "string", "sql.NullString", "[]string"},
	{"character(3)", "string", "sql.NullString", "[]string"},
	{"bpchar", "interface{}", "interface{}", "[]interface{}"},
	{"\"char\"", "interface{}", "interface{}", "[]interface{}"},
	{"name", "string", "sql.NullString", "[]string"},
	{"citext", "string", "sql.NullString", "[]string"},
	{"string", "string", "sql.NullString", "[]string"},
	{"bytea", "[]byte", "[]byte", "[][]byte"},
	{"json", "json.RawMessage", "pqtype.NullRawMessage", "[]json.RawMessage"},
	{"jsonb", "json.RawMessage", "pqtype.NullRawMessage", "[]json.RawMessage"},
	{"jsonpath", "interface{}", "interface{}", "[]interface{}"},
	{"xml", "interface{}", "interface{}", "[]interface{}"},
	{"date", "time.Time", "sql.NullTime", "[]time.Time"},
	{"time", "time.Time", "sql.NullTime", "[]time.Time"},
	{"time(3)", "time.Time", "sql.NullTime", "[]time.Time"},
	{"time without time zone", "time.Time", "sql.NullTime", "[]time.Time"},
	{"timetz", "interface{}", "interface{}", "[]interface{}"},
	{"time with time zone", "time.Time", "sql.NullTime", "[]time.Time"},
	{"timestamp", "time.Time", "sql.NullTime", "[]time.Time"},
	{"timestamp(3)", "time.Time", "sql.NullTime", "[]time.Time"},
	{"timestamp without time zone", "time.Time", "sql.NullTime", "[]time.Time"},
	{"timestamptz", "time.Time", "sql.NullTime", "[]time.Time"},
	{"timestamp with time zone", "time.Time", "sql.NullTime", "[]time.Time"},
	{"interval", "int64", "sql.NullInt64", "[]int64"},
	{"interval(2)", "int64", "sql.NullInt64", "[]int64"},
	{"interval day", "int64", "sql.NullInt64", "[]int64"},
	{"uuid", "uuid.UUID", "uuid.NullUUID", "[]uuid.UUID"},
	{"inet", "pqtype.Inet", "pqtype.Inet", "[]pqtype.Inet"},
	{"cidr", "pqtype.CIDR", "pqtype.CIDR", "[]pqtype.CIDR"},
	{"macaddr", "pqtype.Macaddr", "pqtype.Macaddr", "[]pqtype.Macaddr"},
	{"macaddr8", "pqtype.Macaddr", "pqtype.Macaddr", "[]pqtype.Macaddr"},
	{"bit", "interface{}", "interface{}", "[]interface{}"},
	{"bit(3)", "interface{}", "interface{}", "[]interface{}"},
	{"varbit", "interface{}", "interface{}", "[]interface{}"},
	{"bit varying", "interface{}", "interface{}", "[]interface{}"},
	{"bit varying(4)", "interface{}", "interface{}", "[]interface{}"},
	{"point", "interface{}", "interface{}", "[]interface{}"},
	{"line", "interface{}", "interface{}", "[]interface{}"},
	{"lseg", "interface{}", "interface{}", "[]interface{}"},
	{"box", "interface{}", "interface{}", "[]interface{}"},
	{"path", "interface{}", "interface{}", "[]interface{}"},
	{"polygon", "interface{}", "interface{}", "[]interface{}"},
	{"circle", "interface{}", "interface{}", "[]interface{}"},
	{"tsvector", "interface{}", "interface{}", "[]interface{}"},
	{"tsquery", "interface{}", "interface{}", "[]interface{}"},
	{"hstore", "interface{}", "interface{}", "[]interface{}"},
	{"ltree", "string", "sql.NullString", "[]string"},
	{"lquery", "string", "sql.NullString", "[]string"},
	{"ltxtquery", "string", "sql.NullString", "[]string"},
	{"vector", "interface{}", "interface{}", "[]interface{}"},
	{"oid", "interface{}", "interface{}", "[]interface{}"},
	{"xid", "interface{}", "interface{}", "[]interface{}"},
	{"xid8", "interface{}", "interface{}", "[]interface{}"},
	{"cid", "interface{}", "interface{}", "[]interface{}"},
	{"tid", "interface{}", "interface{}", "[]interface{}"},
	{"regclass", "interface{}", "interface{}", "[]interface{}"},
	{"regtype", "interface{}", "interface{}", "[]interface{}"},
	{"regproc", "interface{}", "interface{}", "[]interface{}"},
	{"regprocedure", "interface{}", "interface{}", "[]interface{}"},
	{"regnamespace", "interface{}", "interface{}", "[]interface{}"},
	{"regrole", "interface{}", "interface{}", "[]interface{}"},
	{"regoper", "interface{}", "interface{}", "[]interface{}"},
	{"regconfig", "interface{}", "interface{}", "[]interface{}"},
	{"pg_lsn", "interface{}", "interface{}", "[]interface{}"},
	{"txid_snapshot", "interface{}", "interface{}", "[]interface{}"},
	{"pg_snapshot", "interface{}", "interface{}", "[]interface{}"},
	{"aclitem", "interface{}", "interface{}", "[]interface{}"},
	{"int2vector", "interface{}", "interface{}", "[]interface{}"},
	{"oidvector", "interface{}", "interface{}", "[]interface{}"},
	{"refcursor", "interface{}", "interface{}", "[]interface{}"},
	{"pg_catalog.int4", "int32", "sql.NullInt32", "[]int32"},
	{"pg_catalog.varchar", "string", "sql.NullString", "[]string"},
	{"pg_catalog.bpchar", "string", "sql.NullString", "[]string"},
	{"pg_catalog.timetz", "time.Time", "sql.NullTime", "[]time.Time"},
	{"pg_catalog.time", "time.Time", "sql.NullTime", "[]time.Time"},
	{"pg_catalog.bool", "bool", "sql.NullBool", "[]bool"},
	{"pg_catalog.numeric", "string", "sql.NullString", "[]string"},
	{"pg_catalog.interval", "int64", "sql.NullInt64", "[]int64"},
	{"pg_catalog.jsonb", "json.RawMessage", "pqtype.NullRawMessage", "[]json.RawMessage"},
	{"int4range", "interface{}", "interface{}", "[]interface{}"},
	{"int8range", "interface{}", "interface{}", "[]interface{}"},
	{"numrange", "interface{}", "interface{}", "[]interface{}"},
	{"tsrange", "interface{}", "interface{}", "[]interface{}"},
	{"tstzrange", "interface{}", "interface{}", "[]interface{}"},
	{"daterange", "interface{}", "interface{}", "[]interface{}"},
	{"int4multirange", "interface{}", "interface{}", "[]interface{}"},
	{"int8multirange", "interface{}", "interface{}", "[]interface{}"},
	{"nummultirange", "interface{}", "interface{}", "[]interface{}"},
	{"tsmultirange", "interface{}", "interface{}", "[]interface{}"},
	{"tstzmultirange", "interface{}", "interface{}", "[]interface{}"},
	{"datemultirange", "interface{}", "interface{}", "[]interface{}"},
	{"mood", "Mood", "NullMood", "[]Mood"},
	{"comp", "string", "sql.NullString", "[]string"},
	{"public.mood", "Mood", "NullMood", "[]Mood"},
}

// TestStdlibTypeMappingMatchesSqlc is TestTypeMappingMatchesSqlc for
// database/sql, with and without emit_pointers_for_null_types.
func TestStdlibTypeMappingMatchesSqlc(t *testing.T) {
	var cols []string
	for i, r := range sqlcStdlibTypes {
		cols = append(cols,
			fmt.Sprintf("nn%d %s NOT NULL", i, r.sql), fmt.Sprintf("nl%d %s", i, r.sql),
			fmt.Sprintf("an%d %s[] NOT NULL", i, r.sql), fmt.Sprintf("al%d %s[]", i, r.sql))
	}
	schema := "CREATE TYPE mood AS ENUM ('a', 'b');\nCREATE TYPE comp AS (x int, y text);\n" +
		"CREATE TABLE t (\n  " + strings.Join(cols, ",\n  ") + "\n);\n"
	queries := "-- name: ListT :many\nSELECT * FROM t;\n"
	for _, opts := range []string{"sql_package: database/sql", "sql_package: database/sql, emit_pointers_for_null_types: true"} {
		a := parseAPI(t, generate(t, goConfig(opts), schema, queries))
		for i, r := range sqlcStdlibTypes {
			for _, f := range []struct{ col, want string }{
				{fmt.Sprintf("Nn%d", i), r.notNull}, {fmt.Sprintf("Nl%d", i), r.null},
				{fmt.Sprintf("An%d", i), r.array}, {fmt.Sprintf("Al%d", i), r.array},
			} {
				if line := "field T." + f.col + " " + f.want; !a.lines[line] {
					t.Errorf("%s: %s %s: want %s; have %s", opts, f.col, r.sql, f.want, a.fieldType("T", f.col))
				}
			}
		}
	}
}
