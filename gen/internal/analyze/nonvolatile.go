package analyze

import (
	"fmt"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/diag"
)

// PostgreSQL evaluates an IMMUTABLE function on its own, in statements
// that never name it: the planner folds a call of constant arguments
// (eval_const_expressions) wherever the schema hides one, in a column
// DEFAULT of an INSERT's target, an inheritance child's CHECK
// (constraint exclusion), a partition key; the relation cache evaluates
// index expressions and partial-index predicates while loading an index
// any read, DELETE, TRUNCATE or foreign-key check plans over; ANALYZE and
// the planner evaluate extended statistics expressions; REFRESH
// MATERIALIZED VIEW rebuilds a view's indexes. The planner also evaluates
// a STABLE call for its estimates (estimate_expression_value). PostgreSQL
// documents that such functions must not modify the database
// (PostgreSQL docs, 38.7 "Function Volatility Categories"), and checks it
// only for the function's own statements, not for the VOLATILE functions
// it calls. A non-VOLATILE function that can write a fenced table is
// therefore the defect itself, wherever it is used: fencegen cannot guard
// a write PostgreSQL runs while planning another statement (issue 24,
// trial t24 F1-F3). Writes fencegen cannot see (a body it does not read,
// dynamic SQL) keep the rule for calls: a statement calling the function
// is refused.

// nonVolatileWriters returns an error, at the statement that gave it its
// volatility (CREATE FUNCTION, or ALTER FUNCTION ... IMMUTABLE or
// STABLE), for each IMMUTABLE or STABLE function of the schema that can
// write a fenced table, directly or through what it calls.
func nonVolatileWriters(fw *funcWrites) diag.List {
	var errs diag.List
	for _, s := range fw.cat.Schemas {
		for _, f := range s.Funcs {
			if f.Procedure || f.Language == "aggregate" || f.Volatility == 'v' || f.Volatility == 0 || f.VolatilityAt.File == "" {
				continue
			}
			decl := "IMMUTABLE"
			if f.Volatility == 's' {
				decl = "STABLE"
			}
			for _, w := range fw.of(f) {
				if w.table == nil || w.anyStatement {
					// Unknown: a call of f is refused as for any function.
					// anyStatement: a cast or operator class PostgreSQL
					// may apply in any statement, f's or not, which every
					// statement's own check reports (checkTextWrites).
					continue
				}
				through := ""
				if steps := w.steps(); len(steps) > 0 {
					where := ""
					if len(w.via) > 0 {
						if g := w.via[len(w.via)-1]; g.File != "" {
							where = fmt.Sprintf(" at %s:%d", g.File, g.Line)
						}
					}
					through = fmt.Sprintf(" (through %s%s)", strings.Join(steps, " → "), where)
				}
				errs.Add(f.VolatilityAt.File, f.VolatilityAt.Line, f.VolatilityAt.Col,
					"function %s() is declared %s but can run %s on fenced table %s%s: PostgreSQL evaluates such a function while planning statements that never name it (index expressions and predicates, partition keys, statistics, CHECK constraints, column defaults), outside any guard; declare it VOLATILE",
					f.Name, decl, w.verb, w.table.QualifiedName(), through)
				break
			}
		}
	}
	return errs
}
