package writes

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// Names returns every name the parse trees refer to, folded to lower
// case: each identifier (relations, columns, functions, types, domains,
// schemas), operator symbol and option word, wherever it is in the tree,
// but not the values of literals (a string constant that spells a name
// runs nothing). The analysis of what a view's query, a column default, a
// CHECK, an index expression, a policy or a domain's definition sets off
// (analyze/hooks.go) looks the schema's views, functions, operators and
// domains up in it: read from the tree, a name is found however it is
// written (quoted, Unicode-escaped, split over lines or comments) and a
// comment or string that spells one is none. Lower case makes the match a
// superset of PostgreSQL's (a quoted "Jobs" matches jobs too).
//
// A name written as a relation is also held as RelKey+name (see RelKey).
//
// A name written as a type (a TypeName: a cast, a column's or attribute's
// type, a function's argument) is also held as TypeKey+name (its last
// part), which no identifier spells: a table's name there is its row
// type, whose columns' domains run their CHECKs when a value of it is
// built.
func Names(trees ...*pg.Node) map[string]bool {
	return names(func(protoreflect.Message) bool { return false }, trees...)
}

// names is Names without the subtrees of the messages pruned reports.
func names(pruned func(protoreflect.Message) bool, trees ...*pg.Node) map[string]bool {
	out := map[string]bool{RelsMarked: true}
	for _, n := range trees {
		if n == nil {
			continue
		}
		sqlparse.EachMessage(n.ProtoReflect(), func(m protoreflect.Message) bool {
			if _, ok := m.Interface().(*pg.A_Const); ok || pruned(m) {
				return false
			}
			if fc, ok := m.Interface().(*pg.FuncCall); ok {
				if tree, _, ok := TextRunnerQuery(fc); ok {
					// The statement the function runs names what it
					// reads, not the function (which runs text fencegen
					// does not see when it is not a constant).
					for k := range names(pruned, append([]*pg.Node{tree}, fc.Args[1:]...)...) {
						out[k] = true
					}
					return false
				}
			}
			if rv, ok := m.Interface().(*pg.RangeVar); ok && rv.Relname != "" {
				out[RelKey+strings.ToLower(rv.Relname)] = true
			}
			if tn, ok := m.Interface().(*pg.TypeName); ok && len(tn.Names) > 0 {
				out[TypeKey+strings.ToLower(tn.Names[len(tn.Names)-1].GetString_().GetSval())] = true
			}
			m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
				switch {
				case fd.Kind() != protoreflect.StringKind:
				case fd.IsList():
					l := v.List()
					for i := 0; i < l.Len(); i++ {
						out[strings.ToLower(l.Get(i).String())] = true
					}
				default:
					if s := v.String(); s != "" {
						out[strings.ToLower(s)] = true
					}
				}
				return true
			})
			return true
		})
	}
	return out
}

// TypeKey prefixes, in Names' result, a name written as a type.
const TypeKey = "\x00type:"

// RelKey prefixes, in Names' result, a name written as a relation (a
// RangeVar: FROM, a DML target, TABLE, COPY, LOCK, LIKE, INHERITS ...):
// the only place where naming a view runs its query, or naming a table
// applies its row-level security policies. A column, alias, function or
// field of the same name does neither (trial r24 F5: SELECT wv FROM logs,
// where wv is a column of logs and a view that writes). RelsMarked is in
// every map Names returns, so a map built otherwise (without RelKey
// entries) is read by its plain names.
const (
	RelKey     = "\x00rel:"
	RelsMarked = "\x00rels"
)

// NamesWithoutDefaults is Names for the parse trees of table statements
// (CREATE TABLE, ALTER TABLE, ALTER VIEW) read for a write that evaluates
// no DEFAULT of the columns skip reports: the DEFAULT expressions of those
// columns (a column definition's, ALTER COLUMN ... SET DEFAULT) are left
// out; CHECKs, generated columns and the other columns' defaults stay.
func NamesWithoutDefaults(skip func(col string) bool, trees ...*pg.Node) map[string]bool {
	drop := map[protoreflect.Message]bool{}
	for _, n := range trees {
		if n == nil {
			continue
		}
		sqlparse.EachMessage(n.ProtoReflect(), func(m protoreflect.Message) bool {
			switch x := m.Interface().(type) {
			case *pg.ColumnDef:
				if !skip(x.Colname) {
					return true
				}
				if x.RawDefault != nil {
					drop[x.RawDefault.ProtoReflect()] = true
				}
				for _, c := range x.Constraints {
					if ct := c.GetConstraint(); ct != nil && ct.Contype == pg.ConstrType_CONSTR_DEFAULT {
						drop[c.ProtoReflect()] = true
					}
				}
			case *pg.AlterTableCmd:
				if x.Subtype == pg.AlterTableType_AT_ColumnDefault && x.Def != nil && skip(x.Name) {
					drop[x.Def.ProtoReflect()] = true
				}
			}
			return true
		})
	}
	return names(func(m protoreflect.Message) bool { return drop[m] }, trees...)
}

// NamesAtCreation is Names for the parse tree of a CREATE TABLE read for
// what creating the table runs: the DEFAULT, CHECK and generated-column
// expressions, which PostgreSQL stores for the rows to come and does not
// evaluate on a new table (it has none), are left out; partition bounds
// (evaluated once, at creation), index and exclusion specifications and
// the rest stay.
func NamesAtCreation(trees ...*pg.Node) map[string]bool {
	drop := map[protoreflect.Message]bool{}
	for _, n := range trees {
		if n == nil {
			continue
		}
		sqlparse.EachMessage(n.ProtoReflect(), func(m protoreflect.Message) bool {
			switch x := m.Interface().(type) {
			case *pg.ColumnDef:
				if x.RawDefault != nil {
					drop[x.RawDefault.ProtoReflect()] = true
				}
			case *pg.Constraint:
				switch x.Contype {
				case pg.ConstrType_CONSTR_DEFAULT, pg.ConstrType_CONSTR_CHECK, pg.ConstrType_CONSTR_GENERATED:
					drop[m] = true
				}
			}
			return true
		})
	}
	return names(func(m protoreflect.Message) bool { return drop[m] }, trees...)
}
