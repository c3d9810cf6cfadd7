package golang

import (
	"go/token"
	"strings"
	"sync"
	"unicode"
)

// namer turns SQL names into Go names the way sqlc does, so that generated
// APIs match: snake_case to CamelCase, "id" to "ID" (and any configured
// initialisms), table names singularised, configured renames first.
type namer struct {
	initialisms map[string]bool
	rename      map[string]string
	exactTables bool
	// inflectionExclude are the table names not singularised.
	inflectionExclude []string
}

func newNamer(initialisms []string, rename map[string]string, exact bool, inflectionExclude []string) *namer {
	n := &namer{initialisms: map[string]bool{}, rename: rename, exactTables: exact, inflectionExclude: inflectionExclude}
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

// modelName is the struct name for a table: the Go name of
// modelSQLName, so a rename is keyed by the singular, schema-prefixed
// name (sqlc's rename: {user: Person} renames table users).
func (n *namer) modelName(schema, table string) string {
	return n.structName(n.modelSQLName(schema, table))
}

// modelSQLName is the SQL-style name a table's model is named after: the
// table name prefixed with its schema outside public, then singular
// unless emit_exact_table_names or inflection_exclude_table_names names
// it (sqlc singularises the prefixed name: s2_news_items).
func (n *namer) modelSQLName(schema, table string) string {
	name := table
	if schema != "" && schema != "public" && schema != "pg_catalog" {
		name = schema + "_" + name
	}
	if !n.exactTables {
		name = singular(name, n.inflectionExclude)
	}
	return name
}

// singular is sqlc's singular form of a table name (its
// internal/inflection): a name in exclude (compared case-insensitively)
// stays as it is; campus, meta and metadata stay, calories and waves lose
// their plural (github.com/jinzhu/inflection gets those wrong); anything
// else is jinzhu/inflection's Singular (inflectSingular). The exceptions apply to the whole
// name only: my_meta is jinzhu's my_metum, as in sqlc.
func singular(name string, exclude []string) string {
	for _, x := range exclude {
		if strings.EqualFold(name, x) {
			return name
		}
	}
	switch strings.ToLower(name) {
	case "campus", "meta", "metadata":
		return name
	case "calories":
		return "calorie"
	case "waves":
		return "wave"
	}
	if s, ok := singulars.Load(name); ok {
		return s.(string)
	}
	s := inflectSingular(name)
	singulars.Store(name, s)
	return s
}

// singulars caches inflectSingular, by name: it tries its
// rules' regular expressions in turn, and a run asks for one table's
// singular many times (its model, its queries' rows, the API notes).
var singulars sync.Map

// embedTagName is the db and json tag name of a sqlc.embed field, whose
// Go name is model: sqlc snake-cases the model's Go name, so that
// APIKey gives apikey and PlayerData player_data (see jsonName's snake).
func embedTagName(model string) string {
	return jsonName(model, "snake", false)
}

// argName is sqlc's name of a method argument for a parameter named
// name (its argName): the _-separated parts joined, the first
// lower-cased, each other one "ID" when it is "id" (whatever the
// initialisms) or else with its words' first letters upper-cased
// (user_id: userID, html_url: htmlUrl, CamelCol: camelcol). Where that
// is not a Go identifier ("Mixed Case", 2fa; sqlc's code does not
// compile), it is paramName's. A keyword is returned as it is (see
// escapeArg).
func (n *namer) argName(name string) string {
	var b strings.Builder
	for i, p := range strings.Split(name, "_") {
		switch {
		case i == 0:
			b.WriteString(strings.ToLower(p))
		case p == "id":
			b.WriteString("ID")
		default:
			b.WriteString(titleWords(p))
		}
	}
	if s := b.String(); token.IsIdentifier(s) || token.IsKeyword(s) {
		return s
	}
	return n.paramName(name)
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
	"fence": true, "fenceimpl": true, "pgx": true, "pgtype": true, "pgconn": true, "context": true, "string": true, "errors": true, "fmt": true,
	"nil": true, "true": true, "false": true, "append": true, "len": true, "int64": true, "error": true,
}

// plainArgReserved reports whether an argument of a method that is
// neither fenced nor bulk (:copyfrom, :batch*) cannot take name n,
// besides Go's keywords, for command cmd: sqlc's (q), the method's first
// argument (ctx), and what the body declares in its own block, where an
// argument of the same name makes := declare nothing or redeclares it
// (:one's row, i and err; :many's rows, err and items, and the append and
// nil it uses; :exec's err; :execrows' result, err and the nil it uses).
// sqlc escapes only q and the keywords, so its code does not compile
// with the others; a name the body does not declare (rows for
// :execresult, i for :many, whose i is the loop's) is kept, as sqlc keeps
// it.
func plainArgReserved(cmd, n string) bool {
	switch n {
	case "q", "ctx":
		return true
	}
	switch cmd {
	case ":one":
		return n == "row" || n == "i" || n == "err"
	case ":many":
		return n == "rows" || n == "err" || n == "items" || n == "append" || n == "nil"
	case ":exec":
		return n == "err"
	case ":execrows", ":execlastid":
		return n == "result" || n == "err" || n == "nil"
	}
	return false
}

// batchLocals are the locals of a :batchexec, :batchone or :batchmany
// method (batch.go), besides reserved: its one slice parameter must not
// take their names.
var batchLocals = map[string]bool{"batch": true, "br": true, "a": true, "vals": true}
