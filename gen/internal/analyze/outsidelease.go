package analyze

// Rows created outside a lease: an INSERT into a fenced table that gives
// the token column DEFAULT, so that the row stores the column's default
// (0 by convention, below every token a lease mints) and the query takes
// no token.

import (
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// createdOutsideLease reports whether INSERT n into fenced table t creates
// rows outside a lease: every row of its VALUES list gives the token
// column c (the i-th column of the list, named at loc) the DEFAULT keyword,
// and it has no ON CONFLICT ... DO UPDATE, which would write an existing
// row without a token. Such an INSERT is generated as sqlc generates it,
// without a token: a new row cannot hold a newer holder's write, and every
// lease's token beats the default the row stores. It reports, at loc, a
// DEFAULT of a token column that has no default (the column is NOT NULL,
// so the INSERT would fail every time) and a DEFAULT in an upsert; false
// when the column's values are not all DEFAULT (the caller's error: the
// token set by hand).
func (a *analyzer) createdOutsideLease(n *sqlparse.Insert, t *catalog.Table, c *catalog.Column, i int, loc int) bool {
	if n.Select == nil || len(n.Select.Values) == 0 {
		return false
	}
	for _, row := range n.Select.Values {
		if i >= len(row) {
			return false
		}
		if _, ok := row[i].(*sqlparse.Default); !ok {
			return false
		}
	}
	if n.OnConflict != nil && n.OnConflict.DoUpdate && a.opts.MySQL {
		a.errorf(loc, "INSERT gives fencing token column %s.%s DEFAULT and has ON DUPLICATE KEY UPDATE, which would write an existing row without a token; an INSERT creates rows outside a lease only without ON DUPLICATE KEY UPDATE: drop the column (the upsert then takes a token and is guarded)", t.QualifiedName(), c.Name)
		return true
	}
	if n.OnConflict != nil && n.OnConflict.DoUpdate {
		a.errorf(loc, "INSERT gives fencing token column %s.%s DEFAULT and has ON CONFLICT DO UPDATE, which would write an existing row without a token; an INSERT creates rows outside a lease only without DO UPDATE: drop the column (the upsert then takes a token), or use ON CONFLICT DO NOTHING", t.QualifiedName(), c.Name)
		return true
	}
	if !c.HasDefault {
		a.errorf(loc, "INSERT gives fencing token column %s.%s DEFAULT, and the column has no default, so every row would store NULL into a NOT NULL column; declare it DEFAULT 0 in the schema", t.QualifiedName(), c.Name)
		return true
	}
	return true
}
