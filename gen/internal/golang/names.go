package golang

import (
	"go/token"
	"strings"
	"unicode"

	"github.com/jinzhu/inflection"
)

// namer turns SQL names into Go names the way sqlc does, so that generated
// APIs match: snake_case to CamelCase, "id" to "ID" (and any configured
// initialisms), table names singularised, configured renames first.
type namer struct {
	initialisms map[string]bool
	rename      map[string]string
	exactTables bool
}

func newNamer(initialisms []string, rename map[string]string, exact bool) *namer {
	n := &namer{initialisms: map[string]bool{}, rename: rename, exactTables: exact}
	if initialisms == nil {
		initialisms = []string{"id"}
	}
	// As sqlc, an initialism matches a name part spelt exactly as
	// configured: "id" upper-cases user_id's "id", not userID's "ID".
	for _, i := range initialisms {
		n.initialisms[i] = true
	}
	return n
}

// structName converts a SQL name to an exported Go name as sqlc does: a
// rename for the whole name wins; otherwise every character that is not a
// letter or digit separates parts, each part is an initialism upper-cased
// or gets its first letter upper-cased, and a leading digit gets an
// underscore in front.
func (n *namer) structName(name string) string {
	if r, ok := n.rename[name]; ok {
		return r
	}
	var b strings.Builder
	parts := strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, p := range parts {
		if n.initialisms[p] {
			b.WriteString(strings.ToUpper(p))
			continue
		}
		rs := []rune(p)
		rs[0] = unicode.ToTitle(rs[0])
		b.WriteString(string(rs))
	}
	s := b.String()
	if s == "" {
		return "Column"
	}
	if !unicode.IsLetter([]rune(s)[0]) {
		s = "_" + s
	}
	return s
}

// modelName is the struct name for a table.
func (n *namer) modelName(schema, table string) string {
	if r, ok := n.rename[table]; ok {
		return r
	}
	return n.structName(n.modelSQLName(schema, table))
}

// modelSQLName is the SQL-style name a table's model is named after: the
// table name, singular unless emit_exact_table_names, prefixed with its
// schema outside public. sqlc also names a sqlc.embed field's tags after
// it.
func (n *namer) modelSQLName(schema, table string) string {
	name := table
	if !n.exactTables {
		name = inflection.Singular(name)
	}
	if schema != "" && schema != "public" && schema != "pg_catalog" {
		name = schema + "_" + name
	}
	return name
}

// paramName converts a SQL name to an unexported Go identifier that is not
// a keyword.
func (n *namer) paramName(name string) string {
	s := n.structName(name)
	// Lower the leading initialism or first letter: ID -> id, UserID -> userID.
	rs := []rune(s)
	i := 0
	for i < len(rs) && unicode.IsUpper(rs[i]) {
		i++
	}
	switch {
	case i == len(rs):
		s = strings.ToLower(s)
	case i > 1:
		s = strings.ToLower(string(rs[:i-1])) + string(rs[i-1:])
	default:
		s = strings.ToLower(string(rs[:1])) + string(rs[1:])
	}
	if token.IsKeyword(s) || reserved[s] {
		s += "_"
	}
	return s
}

// reserved are names generated code uses itself in a method's body, where
// a parameter of the same name would shadow them: its locals, the
// packages it names, and the predeclared identifiers it uses (nil, append,
// int64(token), error in closure types, len in the batch methods).
var reserved = map[string]bool{
	"ctx": true, "q": true, "db": true, "arg": true, "err": true, "rows": true, "row": true,
	"items": true, "i": true, "token": true, "found": true, "result": true,
	"fence": true, "pgx": true, "pgtype": true, "pgconn": true, "context": true, "string": true, "errors": true, "fmt": true,
	"nil": true, "true": true, "false": true, "append": true, "len": true, "int64": true, "error": true,
}

// batchLocals are the locals of a :batchexec, :batchone or :batchmany
// method (batch.go), besides reserved: its one slice parameter must not
// take their names.
var batchLocals = map[string]bool{"batch": true, "br": true, "a": true, "vals": true}
