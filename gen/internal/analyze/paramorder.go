package analyze

import (
	"reflect"
	"sync"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// paramsInSqlcOrder returns the parameters of a statement in the order in
// which sqlc numbers named parameters: source order, except that a
// statement's clauses are taken in this order (sqlc v1.31.1, checked
// against its output):
//
//   - SELECT: DISTINCT ON, the list, FROM, WHERE, GROUP BY, HAVING,
//     WINDOW, VALUES, ORDER BY, OFFSET, LIMIT, then WITH; a UNION/INTERSECT/EXCEPT: ORDER BY,
//     OFFSET, LIMIT, WITH, then its left and right queries;
//   - INSERT: the query or VALUES, ON CONFLICT, RETURNING, then WITH;
//   - UPDATE: SET, WHERE, FROM, RETURNING, then WITH;
//   - DELETE: USING, WHERE, RETURNING, then WITH;
//   - a SET target's subscripts come before its value.
//
// So in WITH x AS (... @a ...) UPDATE t SET c = @b, @b is $1 and @a $2.
func paramsInSqlcOrder(stmt sqlparse.Node) []*sqlparse.Param {
	var out []*sqlparse.Param
	inSqlcOrder(stmt, struct{}{}, func(n any, s struct{}) struct{} {
		if p, ok := n.(*sqlparse.Param); ok {
			out = append(out, p)
		}
		return s
	})
	return out
}

// inSqlcOrder calls enter for every node under stmt (and every other
// pointer of the tree, a *Target among them), parents first, in
// the order paramsInSqlcOrder describes (sqlc's walk). Each call gets
// the state its parent's call returned (s for stmt itself), as sqlc's
// visitor passes itself down by value: what a node sets holds for the
// nodes under it, not for those beside it.
func inSqlcOrder[S any](stmt sqlparse.Node, s S, enter func(n any, s S) S) {
	var visit func(v reflect.Value, s S)
	fields := func(v reflect.Value, s S, names ...string) {
		for _, n := range names {
			visit(fieldByName(v, n), s)
		}
	}
	visit = func(v reflect.Value, s S) {
		switch v.Kind() {
		case reflect.Interface:
			if !v.IsNil() {
				visit(v.Elem(), s)
			}
			return
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				visit(v.Index(i), s)
			}
			return
		case reflect.Pointer:
			if v.IsNil() {
				return
			}
		default:
			if v.Kind() == reflect.Struct {
				for _, i := range walkInfoOf(v.Type()).fields {
					visit(v.Field(i), s)
				}
			}
			return
		}
		e := v.Elem()
		s = enter(v.Interface(), s)
		switch n := v.Interface().(type) {
		case *sqlparse.Select:
			if n.SetOp != "" {
				fields(e, s, "OrderBy", "Offset", "Limit", "With", "Left", "Right")
			} else {
				fields(e, s, "DistinctOn", "Targets", "From", "Where", "GroupBy", "Having", "Windows", "Values", "OrderBy", "Offset", "Limit", "With")
			}
		case *sqlparse.Insert:
			fields(e, s, "Columns", "Select", "OnConflict", "Returning", "With")
		case *sqlparse.Update:
			// OrderBy and Limit are MySQL's, whose parameters are
			// numbered in text order (numberMySQLParams).
			fields(e, s, "Set", "Where", "From", "Returning", "With", "OrderBy", "Limit")
		case *sqlparse.Delete:
			fields(e, s, "Using", "Where", "Returning", "With", "OrderBy", "Limit")
		case *sqlparse.Target:
			fields(e, s, "Subscripts", "Expr")
		default:
			visit(e, s)
		}
	}
	visit(reflect.ValueOf(stmt), s)
}

// fieldIndexes caches fieldByName's indexes by struct type and field name.
var fieldIndexes sync.Map // fieldKey → []int

type fieldKey struct {
	t    reflect.Type
	name string
}

// fieldByName is v.FieldByName(name), with the field's index looked up
// once per type: reflect's lookup by name was most of
// paramsInSqlcOrder's cost (issue 23).
func fieldByName(v reflect.Value, name string) reflect.Value {
	k := fieldKey{v.Type(), name}
	if i, ok := fieldIndexes.Load(k); ok {
		return v.FieldByIndex(i.([]int))
	}
	f, ok := v.Type().FieldByName(name)
	if !ok {
		return reflect.Value{}
	}
	fieldIndexes.Store(k, f.Index)
	return v.FieldByIndex(f.Index)
}
