package analyze

import (
	"fmt"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/catalog"

	"github.com/fencegen/fencegen/gen/internal/guard/mysqlguard"
	"github.com/fencegen/fencegen/gen/internal/writes/mysqlwrites"
)

// mysqlEngine is the storage engine the schema names for table, "" when
// it names none (or there is no schema).
func mysqlEngine(schema *mysqlwrites.Schema, table string) string {
	if schema == nil {
		return ""
	}
	if t := schema.Tables[strings.ToLower(table)]; t != nil {
		return t.Engine
	}
	return ""
}

// mysqlGuardStage is the guard stage of a MySQL write to a fenced table
// (package mysqlguard): it rewrites q.SQL into its guarded form and
// records it in q.Fence.MySQL, or returns why the write cannot be guarded
// (the caller refuses the query at its statement).
func mysqlGuardStage(q *Query, schema *mysqlwrites.Schema, goType func(*Param) string) error {
	f := q.Fence
	// Rewrite numbers the statement's ? in text order; a named parameter
	// used twice is two of them (q.Placeholders), so the token is one past
	// the placeholders, and each is mapped back to its parameter below.
	token := f.TokenParam
	if len(q.Placeholders) > 0 {
		token = len(q.Placeholders) + 1
	}
	keys, _ := f.Table.UniqueKeys()
	g, err := mysqlguard.Rewrite(q.SQL, mysqlguard.Spec{
		Column:     f.Column,
		Key:        f.Table.PrimaryKey,
		UniqueKeys: keys,
		Param:      token,
		Strict:     f.Strict,
		// Mode required (not loosened to strict's opposite: a required
		// table's generated guard is non-strict) declares its token.
		Required:  !f.Strict && f.Table.Fence != nil && f.Table.Fence.Required,
		Table:     f.Table.QualifiedName(),
		Name:      f.Table.Name,
		Engine:    mysqlEngine(schema, f.Table.Name),
		KeyTypes:  mysqlKeyTypes(f.Table),
		KeyParams: mysqlKeyParams(q, f.Table, token, goType),
		StoreAs:   mysqlStoreAs(f.Table),
	})
	if err != nil {
		return err
	}
	if g.Form != mysqlguard.Store {
		switch q.Cmd {
		case CmdExec, CmdExecRows, CmdExecResult:
		case CmdExecLastID:
			if g.Form == mysqlguard.Upsert {
				return fmt.Errorf("%s on a fenced upsert: its result is read by the guard, which tells a refusal from a write; use :execresult, whose LastInsertId is the driver's", q.Cmd)
			}
			return fmt.Errorf("%s on a fenced %s: the guard reads the stored token through LAST_INSERT_ID, so the statement's last insert id is not the row's; use :exec, :execrows or :execresult", q.Cmd, strings.ToUpper(f.Kind))
		default:
			return fmt.Errorf("%s on a fenced write: MySQL returns no rows from a write; use :exec, :execrows or :execresult", q.Cmd)
		}
	}
	param := func(ps []int) []int {
		out := make([]int, len(ps))
		for i, p := range ps {
			switch {
			case p == token:
				out[i] = f.TokenParam
			case len(q.Placeholders) > 0:
				out[i] = q.Placeholders[p-1]
			default:
				out[i] = p
			}
		}
		return out
	}
	g.Params, g.StoredParams = param(g.Params), param(g.StoredParams)
	// The guarded statement's parameters are g.Params, in its own order.
	q.SQL, f.MySQL, q.Placeholders = g.SQL, g, nil
	return nil
}

// mysqlStoreAs is, by lower-case name, the CAST type that converts a
// value as storing it in each column of t does, for the DECIMAL and
// temporal columns (mysqlguard.Spec.StoreAs): DECIMAL(p,s), DATETIME(n)
// for DATETIME and TIMESTAMP, TIME(n), DATE.
func mysqlStoreAs(t *catalog.Table) map[string]string {
	out := map[string]string{}
	for _, c := range t.Columns {
		if c.Type.Schema != catalog.MySQLSchema || c.Type.ArrayDims > 0 {
			continue
		}
		as := ""
		switch c.Type.Name {
		case "decimal", "dec", "numeric", "fixed":
			// An UNSIGNED column's negative value converts to a negative
			// DECIMAL, which differs from what it holds.
			as = fmt.Sprintf("DECIMAL(%d,%d)", max(c.Precision, 1), c.Scale)
		case "datetime", "timestamp":
			as = fmt.Sprintf("DATETIME(%d)", c.Scale)
		case "time":
			as = fmt.Sprintf("TIME(%d)", c.Scale)
		case "date":
			as = "DATE"
		}
		if as != "" {
			out[strings.ToLower(c.Name)] = as
		}
	}
	return out
}

// mysqlKeyTypes is the type class of each primary-key column of t
// (mysqlguard.Spec.KeyTypes), by lower-case name.
func mysqlKeyTypes(t *catalog.Table) map[string]mysqlguard.KeyClass {
	out := map[string]mysqlguard.KeyClass{}
	for _, k := range t.PrimaryKey {
		class := mysqlguard.KeyOther
		if c := t.Column(k); c != nil && c.Type.ArrayDims == 0 {
			switch c.Type.Name {
			case "char", "varchar", "text", "tinytext", "mediumtext", "longtext",
				"binary", "varbinary", "blob", "tinyblob", "mediumblob", "longblob":
				class = mysqlguard.KeyString
			case "tinyint", "smallint", "mediumint", "int", "integer", "bigint",
				"decimal", "dec", "numeric", "fixed", "bool", "boolean":
				class = mysqlguard.KeyNumber
			}
		}
		out[strings.ToLower(k)] = class
	}
	return out
}

// mysqlKeyParams maps each placeholder of q's statement (numbered in
// text order, as mysqlguard numbers them; token is the token's) whose
// parameter the method sends typed as a primary-key column of t to that
// column's lower-case name (mysqlguard.Spec.KeyParams): typed from the
// column itself, in sqlc's typing too, and, where an override changes
// its Go type (goType, nil for none), to a Go type of the key's class
// (mysqlGoTypeFits): a VARCHAR key's parameter overridden to int64 or
// float64 is sent as a number, which MySQL compares with the key as
// floating-point numbers ('0' and '00' both equal 0), no key lookup.
// Likewise a DECIMAL key of more than mysqlExactDigits digits compared
// with a string, its parameter's Go type unless an override makes it an
// integer: MySQL 8 compares the two as floating-point numbers (with
// interpolateParams=true, or where a prepared statement's parameter
// keeps the string's type), so 12345678901234567890123 and
// 12345678901234567890124 both equal '12345678901234567890123'; MariaDB
// compares them as decimals.
func mysqlKeyParams(q *Query, t *catalog.Table, token int, goType func(*Param) string) map[int]string {
	out := map[int]string{}
	classes := mysqlKeyTypes(t)
	byNumber := map[int]*Param{}
	for _, p := range q.Params {
		byNumber[p.Number] = p
	}
	n := len(q.Placeholders)
	if n == 0 {
		n = token - 1
	}
	for i := 1; i <= n; i++ {
		num := i
		if len(q.Placeholders) > 0 {
			num = q.Placeholders[i-1]
		}
		p := byNumber[num]
		if p == nil || !p.Known || p.Slice || p.SqlcUntyped || p.Column == nil {
			continue
		}
		if p.Sqlc != nil && (p.Sqlc.Any || p.Sqlc.Column != p.Column) {
			continue
		}
		for _, k := range t.PrimaryKey {
			if c := t.Column(k); c != nil && c == p.Column {
				g := ""
				if goType != nil {
					g = goType(p)
				}
				if g != "" && !mysqlGoTypeFits(g, classes[strings.ToLower(k)]) {
					continue
				}
				if c.Precision > mysqlExactDigits && !mysqlGoTypeFits(g, mysqlguard.KeyNumber) {
					// sqlc types a DECIMAL column's parameter string:
					// MySQL compares a string with a DECIMAL as
					// floating-point numbers (MariaDB as decimals), so
					// keys of more digits than a double keeps may both
					// equal it.
					continue
				}
				out[i] = strings.ToLower(k)
			}
		}
	}
	return out
}

// mysqlExactDigits is the most significant digits of a DECIMAL whose
// distinct values stay distinct as double-precision numbers (DBL_DIG):
// a string compared with a DECIMAL key of at most as many digits, which
// MySQL compares as floating-point numbers ("Type Conversion in
// Expression Evaluation"), still equals one key at most.
const mysqlExactDigits = 15

// mysqlGoTypeFits reports whether a parameter declared with Go type g (as
// Options.ParamGoType spells it) is sent, by go-sql-driver/mysql, as a
// value MySQL compares with a key column of class class as a lookup of
// that key: a string or bytes for a string key (compared under the key's
// collation), an integer or boolean (sent as an integer) for an integer
// or DECIMAL key (compared exactly). A float compares as a
// floating-point number with either class, and any other type (time,
// a named type whose kind this cannot see, a slice) is no lookup: the
// write takes the all-or-nothing form.
func mysqlGoTypeFits(g string, class mysqlguard.KeyClass) bool {
	g = strings.TrimPrefix(g, "*")
	switch class {
	case mysqlguard.KeyString:
		switch g {
		case "string", "[]byte", "[]uint8", "database/sql.NullString", "encoding/json.RawMessage":
			return true
		}
	case mysqlguard.KeyNumber:
		switch g {
		case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
			"bool", "byte", "rune", "database/sql.NullInt64", "database/sql.NullInt32", "database/sql.NullInt16",
			"database/sql.NullByte", "database/sql.NullBool":
			return true
		}
	}
	return false
}
