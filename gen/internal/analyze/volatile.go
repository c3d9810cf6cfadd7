package analyze

import (
	"fmt"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/catalog/pgcatalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// A fenced UPDATE or DELETE is guarded as more than one evaluation of its
// WHERE clause: the rows are locked and their tokens checked, then written
// (all or nothing), and a write that finds no row reads again by key to
// tell a stale token from a missing row. A volatile function there
// (random(), clock_timestamp(), nextval(), a user-defined function not
// declared IMMUTABLE or STABLE) may pick other rows each time, so the
// check and the write would disagree (PostgreSQL docs, 38.7 "Function
// Volatility Categories"). volatileWhere reports each such call in where,
// the WHERE clause or a FROM (USING) item.
func (a *analyzer) volatileWhere(t *catalog.Table, verb string, where sqlparse.Node) {
	if t == nil || t.Fence == nil || where == nil || a.ann.OptOut != "" || a.planOnly {
		return
	}
	walk(where, func(n sqlparse.Node) {
		fc, ok := n.(*sqlparse.FuncCall)
		if !ok {
			return
		}
		if why := a.volatileCall(fc); why != "" {
			a.errorf(fc.Loc, "the WHERE clause (or FROM, USING) of this %s of fenced table %s calls %s(), %s: the guard evaluates the WHERE clause more than once (to lock and check the rows' tokens, then to write them, and to read a missing row again by key), and a volatile function can match other rows each time; compute the value once, in Go or in a parameter, and pass it in",
				verb, t.QualifiedName(), fc.Func.Name, why)
		}
	})
}

// volatileCall says why fc is a call of a volatile function ("" when it
// is not): a user-defined function (any overload of the name) not declared
// IMMUTABLE or STABLE, or a built-in whose pg_proc.provolatile is 'v'.
func (a *analyzer) volatileCall(fc *sqlparse.FuncCall) string {
	if fs := a.cat.Funcs(fc.Func.Schema, fc.Func.Name); len(fs) > 0 {
		for _, f := range fs {
			if f.Volatility == 'v' && f.Language != "aggregate" {
				where := ""
				if f.File != "" {
					where = fmt.Sprintf(" (%s:%d)", f.File, f.Line)
				}
				return "a VOLATILE function" + where + " (CREATE FUNCTION without IMMUTABLE or STABLE is VOLATILE)"
			}
		}
		return ""
	}
	if fc.Func.Schema != "" && fc.Func.Schema != "pg_catalog" {
		return ""
	}
	for _, f := range pgcatalog.Funcs(fc.Func.Name) {
		if f.Volatility == 'v' {
			return "a volatile function"
		}
	}
	return ""
}
