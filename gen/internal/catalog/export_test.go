package catalog

import (
	"fmt"
	"strings"
)

// ConstraintLines describes t's PRIMARY KEY, UNIQUE and FOREIGN KEY
// constraints, one line each, in the form the PostgreSQL comparison test
// builds from pg_constraint: "name p (a, b)", "name u (a)", "name f (a)
// -> schema.parent (id) del=c upd=a".
func (t *Table) ConstraintLines() []string {
	var out []string
	for name, k := range t.keys {
		kind := "u"
		if k.primary {
			kind = "p"
		}
		out = append(out, fmt.Sprintf("%s %s (%s)", name, kind, strings.Join(k.columns, ", ")))
	}
	for _, fk := range t.foreignKeys {
		parent := "?" + fk.parentName.String()
		if fk.parent != nil {
			parent = fk.parent.Schema + "." + fk.parent.Name
		}
		out = append(out, fmt.Sprintf("%s f (%s) -> %s (%s) del=%c upd=%c", fk.name, strings.Join(fk.columns, ", "),
			parent, strings.Join(fk.refs, ", "), fk.onDelete, fk.onUpdate))
	}
	return out
}

// ConstraintColumnSets returns the columns of each of t's keys and
// foreign keys (the referring side).
func (t *Table) ConstraintColumnSets() [][]string {
	var out [][]string
	for _, k := range t.keys {
		out = append(out, k.columns)
	}
	for _, fk := range t.foreignKeys {
		out = append(out, fk.columns)
	}
	return out
}
