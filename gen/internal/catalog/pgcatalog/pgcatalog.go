// Package pgcatalog holds PostgreSQL's built-in functions, operators,
// casts, types and system relations (pg_catalog and information_schema), as
// read from a real server's pg_catalog by the program internal/pgcatalog,
// together with the objects of the extensions sqlc knows (pgcrypto,
// uuid-ossp, citext, hstore, ltree, pg_trgm, btree_gist, vector), each
// marked with its extension's name.
//
// The data in builtin.go is generated; regenerate it from the module root
// against a running server (DATABASE_URL, default
// postgres://postgres@127.0.0.1:5432/postgres) with
//
//	go run ./internal/pgcatalog
//
// or go generate ./gen/internal/catalog/pgcatalog. The output depends on the
// server's major version, recorded in ServerMajor; the test in
// internal/pgcatalog checks that the file is current.
//
// Each table is indexed on its first use and each entry parsed on its
// first lookup; what the accessors return is shared and must not be
// changed.
package pgcatalog

//go:generate sh -c "cd ../../../.. && go run ./internal/pgcatalog"

import (
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Func is one pg_proc row (PostgreSQL docs, 53.39 "pg_proc").
type Func struct {
	Name string
	// Kind is 'f' for a normal function, 'a' aggregate, 'w' window, 'p'
	// procedure (prokind).
	Kind byte
	// Strict functions return NULL when an argument is NULL
	// (proisstrict).
	Strict bool
	// Volatility is 'i' immutable, 's' stable or 'v' volatile.
	Volatility byte
	// ReturnsSet is set for SETOF results (proretset).
	ReturnsSet bool
	// Variadic is set when the last argument is VARIADIC: Args' last
	// element is then the array type (or "any" for VARIADIC "any").
	Variadic bool
	// Result is the result type's name ("int8", "text[]", "anyelement",
	// "record").
	Result string
	// Args are the input argument types, ArgNames their names ("" for
	// unnamed; nil when none is named).
	Args     []string
	ArgNames []string
	// Defaults is how many trailing arguments have defaults.
	Defaults int
	// Columns are the OUT / RETURNS TABLE columns, if any.
	Columns []Column
	// Extension names the extension that creates the function, "" for
	// pg_catalog's own.
	Extension string
}

// Column is a relation's or a function's result column.
type Column struct {
	Name    string
	Type    string
	NotNull bool
}

// Type is a pg_type row (PostgreSQL docs, 53.64 "pg_type").
type Type struct {
	Name string
	// Kind is typtype: 'b' base, 'p' pseudo, 'e' enum, 'r' range, 'm'
	// multirange, 'd' domain.
	Kind byte
	// Category is typcategory (PostgreSQL docs, Table 53.65): 'N'
	// numeric, 'S' string, 'D' date/time, ...
	Category  byte
	Preferred bool
	// HasArray is set when the type has an array type.
	HasArray  bool
	Extension string
}

// Operator is a pg_operator row: Left is "" for a prefix operator.
type Operator struct {
	Name, Left, Right, Result, Extension string
}

// Relation is a table or view of pg_catalog or information_schema.
type Relation struct {
	Schema, Name string
	// Kind is relkind: 'r' table, 'v' view, ...
	Kind    byte
	Columns []Column
}

// index maps a key (a function's or operator's name, a relation's
// "schema|name") to its lines of one of the data tables, and parses a
// key's lines on its first lookup only: a run looks up a few dozen of the
// 2,700 functions, and a process that generates a small project spent
// about a tenth of its CPU time parsing all of them.
//
// A sorted table (the functions', by name, and the relations', by line;
// TestSortedTables) needs no map of its lines either: a key's lines are
// found by binary search over the table's text, with order, which places
// a line before (-1), at (0) or after (+1) a key's lines in the table's
// order. Building the functions' map at the first lookup was about 3% of
// a small project's instructions, the relations' 2%.
type index[T any] struct {
	once   sync.Once
	lines  map[string][]string
	key    func(line string) string
	parse  func(lines []string) T
	order  func(line, key string) int
	mu     sync.Mutex
	parsed map[string]T
}

// get returns key's parsed entry (parse of no lines when key has none).
func (x *index[T]) get(data, key string) T {
	if x.order != nil {
		x.mu.Lock()
		defer x.mu.Unlock()
		if v, ok := x.parsed[key]; ok {
			return v
		}
		if x.parsed == nil {
			x.parsed = map[string]T{}
		}
		v := x.parse(sortedLines(data, key, x.order))
		x.parsed[key] = v
		return v
	}
	x.once.Do(func() {
		x.lines = map[string][]string{}
		x.parsed = map[string]T{}
		all := lines(data)
		start := 0
		for i := 1; i <= len(all); i++ {
			if i < len(all) && x.key(all[i]) == x.key(all[start]) {
				continue
			}
			// A run of lines with one key; keys are listed together in
			// the generated tables, but a second run is appended too.
			k := x.key(all[start])
			if prev, ok := x.lines[k]; ok {
				x.lines[k] = append(append([]string{}, prev...), all[start:i]...)
			} else {
				x.lines[k] = all[start:i:i]
			}
			start = i
		}
	})
	x.mu.Lock()
	defer x.mu.Unlock()
	if v, ok := x.parsed[key]; ok {
		return v
	}
	v := x.parse(x.lines[key])
	x.parsed[key] = v
	return v
}

// sortedLines returns the lines of data that order places at key (0),
// data's lines being in order's order: binary search for the first line
// not before key, then the run of lines at it. A byte offset stands for
// the line holding it (a newline for the line it ends), so the predicate
// is monotone over offsets.
func sortedLines(data, key string, order func(line, key string) int) []string {
	line := func(start int) string {
		end := strings.IndexByte(data[start:], '\n')
		if end < 0 {
			return data[start:]
		}
		return data[start : start+end]
	}
	lineStart := func(i int) int { return strings.LastIndexByte(data[:i], '\n') + 1 }
	at := sort.Search(len(data), func(i int) bool {
		l := line(lineStart(i))
		return l != "" && order(l, key) >= 0
	})
	var out []string
	for at < len(data) {
		l := line(at)
		if l == "" || order(l, key) != 0 {
			break
		}
		out = append(out, l)
		at += len(l) + 1
	}
	return out
}

// byName orders a function line by its name, the table's order.
func byName(l, name string) int { return strings.Compare(firstField(l), name) }

// byLine orders a relation line by its text, the table's order: a
// relation's line is key ("schema|name") and '|' followed by the rest, so
// the lines with that prefix are the key's, and they sort together.
func byLine(l, key string) int {
	n := min(len(l), len(key))
	if c := strings.Compare(l[:n], key[:n]); c != 0 {
		return c
	}
	if len(l) <= len(key) {
		return -1 // l is key, or a prefix of it: before key+"|"
	}
	switch {
	case l[len(key)] == '|':
		return 0
	case l[len(key)] < '|':
		return -1
	}
	return 1
}

// firstField is a line's text up to its first '|'.
func firstField(l string) string {
	name, _, _ := strings.Cut(l, "|")
	return name
}

// operatorName is an operator line's name: everything before its last four
// fields, since the name may hold the separator itself (|, ||, |/, ||/,
// |>>).
func operatorName(l string) string {
	end := len(l)
	for n := 0; n < 4; n++ {
		end = strings.LastIndexByte(l[:end], '|')
	}
	return l[:end]
}

// relationKey is a relation line's "schema|name".
func relationKey(l string) string {
	schema, rest, _ := strings.Cut(l, "|")
	return schema + "|" + firstField(rest)
}

var funcs = index[[]*Func]{key: firstField, order: byName, parse: func(ls []string) []*Func {
	var out []*Func
	for _, l := range ls {
		f := strings.Split(l, "|")
		fn := &Func{
			Name: f[0], Kind: f[1][0], Strict: f[1][1] == 's', Volatility: f[1][2],
			ReturnsSet: f[1][3] == '*', Variadic: f[1][4] == 'v', Result: f[2],
			Args: list(f[3]), Extension: f[7],
		}
		if f[4] != "" {
			fn.ArgNames = strings.Split(f[4], ",")
		}
		fn.Defaults, _ = strconv.Atoi(f[5])
		for _, c := range list(f[6]) {
			name, typ, _ := strings.Cut(c, " ")
			fn.Columns = append(fn.Columns, Column{Name: name, Type: typ})
		}
		out = append(out, fn)
	}
	return out
}}

var operators = index[[]*Operator]{key: operatorName, parse: func(ls []string) []*Operator {
	var out []*Operator
	for _, l := range ls {
		f := strings.Split(l, "|")
		n := len(f)
		name := strings.Join(f[:n-4], "|")
		out = append(out, &Operator{Name: name, Left: f[n-4], Right: f[n-3], Result: f[n-2], Extension: f[n-1]})
	}
	return out
}}

var relations = index[*Relation]{key: relationKey, order: byLine, parse: func(ls []string) *Relation {
	if len(ls) == 0 {
		return nil
	}
	f := strings.Split(ls[0], "|")
	r := &Relation{Schema: f[0], Name: f[1], Kind: f[2][0]}
	for _, c := range list(f[3]) {
		name, typ, _ := strings.Cut(c, " ")
		r.Columns = append(r.Columns, Column{Name: name, Type: strings.TrimSuffix(typ, "!"), NotNull: strings.HasSuffix(typ, "!")})
	}
	return r
}}

// The types and casts tables are small and read whole, each on its first
// use.
var (
	typesOnce sync.Once
	types     map[string]*Type
	castsOnce sync.Once
	casts     map[[2]string]byte
)

func loadTypes() map[string]*Type {
	typesOnce.Do(func() {
		types = map[string]*Type{}
		for _, l := range lines(typesData) {
			f := strings.Split(l, "|")
			types[f[0]] = &Type{Name: f[0], Kind: f[1][0], Category: f[2][0], Preferred: f[2][1] == 'p',
				HasArray: strings.HasSuffix(f[2], "[]"), Extension: f[3]}
		}
	})
	return types
}

func loadCasts() map[[2]string]byte {
	castsOnce.Do(func() {
		casts = map[[2]string]byte{}
		for _, l := range lines(castsData) {
			f := strings.Split(l, "|")
			casts[[2]string{f[0], f[1]}] = f[2][0]
		}
	})
	return casts
}

func lines(s string) []string { return strings.Split(strings.Trim(s, "\n"), "\n") }

func list(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// Funcs returns the built-in functions named name (lower case), in the
// order sqlc's catalog lists them: by result type, then argument types, as
// format_type spells them.
func Funcs(name string) []*Func { return funcs.get(funcsData, name) }

// LookupType returns the built-in type name ("int4", "citext"), or nil.
// Array types are not listed: an array's element is.
func LookupType(name string) *Type { return loadTypes()[name] }

// Operators returns the operators named name.
func Operators(name string) []*Operator { return operators.get(operatorsData, name) }

// Cast returns the context of the cast from source to target ('i'
// implicit, 'a' assignment, 'e' explicit; PostgreSQL docs, 53.10
// "pg_cast"), and whether pg_cast has one.
func Cast(source, target string) (byte, bool) {
	c, ok := loadCasts()[[2]string{source, target}]
	return c, ok
}

// LookupRelation returns the system table or view schema.name, or nil.
func LookupRelation(schema, name string) *Relation {
	if strings.ContainsRune(schema, '|') || strings.ContainsRune(name, '|') {
		// No key of the table holds a second '|' (relationKey), and
		// byLine would take "pg_catalog", "pg_class|r" for pg_class.
		return nil
	}
	return relations.get(relationsData, schema+"|"+name)
}
