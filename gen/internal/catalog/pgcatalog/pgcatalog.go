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
// The tables are parsed once, on first use; what the accessors return is
// shared and must not be changed.
package pgcatalog

//go:generate sh -c "cd ../../../.. && go run ./internal/pgcatalog"

import (
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

type data struct {
	funcs     map[string][]*Func
	types     map[string]*Type
	ops       map[string][]*Operator
	casts     map[[2]string]byte
	relations map[[2]string]*Relation
}

var (
	once sync.Once
	d    data
)

func load() *data {
	once.Do(func() {
		d.funcs = map[string][]*Func{}
		for _, l := range lines(funcsData) {
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
			d.funcs[fn.Name] = append(d.funcs[fn.Name], fn)
		}
		d.types = map[string]*Type{}
		for _, l := range lines(typesData) {
			f := strings.Split(l, "|")
			d.types[f[0]] = &Type{Name: f[0], Kind: f[1][0], Category: f[2][0], Preferred: f[2][1] == 'p',
				HasArray: strings.HasSuffix(f[2], "[]"), Extension: f[3]}
		}
		d.ops = map[string][]*Operator{}
		for _, l := range lines(operatorsData) {
			// The name may hold the separator itself (|, ||, |/, ||/, |>>):
			// the other four fields are counted from the end.
			f := strings.Split(l, "|")
			n := len(f)
			name := strings.Join(f[:n-4], "|")
			d.ops[name] = append(d.ops[name], &Operator{Name: name, Left: f[n-4], Right: f[n-3], Result: f[n-2], Extension: f[n-1]})
		}
		d.casts = map[[2]string]byte{}
		for _, l := range lines(castsData) {
			f := strings.Split(l, "|")
			d.casts[[2]string{f[0], f[1]}] = f[2][0]
		}
		d.relations = map[[2]string]*Relation{}
		for _, l := range lines(relationsData) {
			f := strings.Split(l, "|")
			r := &Relation{Schema: f[0], Name: f[1], Kind: f[2][0]}
			for _, c := range list(f[3]) {
				name, typ, _ := strings.Cut(c, " ")
				r.Columns = append(r.Columns, Column{Name: name, Type: strings.TrimSuffix(typ, "!"), NotNull: strings.HasSuffix(typ, "!")})
			}
			d.relations[[2]string{r.Schema, r.Name}] = r
		}
	})
	return &d
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
func Funcs(name string) []*Func { return load().funcs[name] }

// LookupType returns the built-in type name ("int4", "citext"), or nil.
// Array types are not listed: an array's element is.
func LookupType(name string) *Type { return load().types[name] }

// Operators returns the operators named name.
func Operators(name string) []*Operator { return load().ops[name] }

// Cast returns the context of the cast from source to target ('i'
// implicit, 'a' assignment, 'e' explicit; PostgreSQL docs, 53.10
// "pg_cast"), and whether pg_cast has one.
func Cast(source, target string) (byte, bool) {
	c, ok := load().casts[[2]string{source, target}]
	return c, ok
}

// LookupRelation returns the system table or view schema.name, or nil.
func LookupRelation(schema, name string) *Relation {
	return load().relations[[2]string{schema, name}]
}
