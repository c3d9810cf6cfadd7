package catalog

import (
	"encoding/json"
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/diag"
)

// tokenCheckNotes notes, at the statement, each CHECK constraint of
// fenced table t that names its token column, other than one that only
// keeps the token at or above a constant at or below 0 (tok >= 0): such
// a CHECK (tok = 0, tok < 1000) makes PostgreSQL refuse a guarded write
// that stores a valid token, so every call of the method would fail
// (trial t24 F2). A note, as fencegen cannot tell which tokens a CHECK
// admits, nor whether a later statement dropped it.
func (c *Catalog) tokenCheckNotes(t *Table) {
	col := t.Fence.Column
	for _, h := range t.Hooks {
		if h.Kind == "table" && checkNames(h.Text, col) {
			c.notes.AddErr(&diag.Error{File: h.File, Line: h.Line, Col: 1, Err: ErrFence,
				Msg: fmt.Sprintf("note: a CHECK constraint of fenced table %s names its fencing token column %s: PostgreSQL refuses a guarded write whose token the CHECK does not admit, so such a call of every guarded method of the table fails; keep CHECKs off the token column (tokens are the lease's, from 1 up; a row no fenced write has touched stores 0)", t.QualifiedName(), col)})
		}
	}
	// The CHECKs of the domains the column is declared of, outermost
	// first (CREATE DOMAIN tokd AS bigint CHECK (VALUE < 1000), ALTER
	// DOMAIN ... ADD CHECK): PostgreSQL checks every value stored into
	// the column against each, as a table's CHECK (trial t24h c12).
	column := t.Column(col)
	if column == nil {
		return
	}
	for _, d := range column.domains {
		name := strings.ToLower(d.Name)
		for _, h := range c.Hooks {
			if h.Kind == "domain" && h.Name == name && checkNames(h.Text, "value") {
				c.notes.AddErr(&diag.Error{File: h.File, Line: h.Line, Col: 1, Err: ErrFence,
					Msg: fmt.Sprintf("note: a CHECK constraint of domain %s, the type of fenced table %s's fencing token column %s, limits the token: PostgreSQL refuses a guarded write whose token the CHECK does not admit, so such a call of every guarded method of the table fails; keep CHECKs off the token column's type (tokens are the lease's, from 1 up; a row no fenced write has touched stores 0)", d, t.QualifiedName(), col)})
			}
		}
	}
}

// checkNames reports whether the statement text holds a CHECK
// constraint that names column col (VALUE, "value", for a domain's) and
// does not only keep it at or above a constant at or below 0
// (atLeastZero).
func checkNames(text, col string) bool {
	js, err := pg.ParseToJSON(text)
	if err != nil {
		return false
	}
	var tree any
	if json.Unmarshal([]byte(js), &tree) != nil {
		return false
	}
	found := false
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				visit(e)
			}
		case map[string]any:
			if con, ok := x["Constraint"].(map[string]any); ok && con["contype"] == "CONSTR_CHECK" {
				if names(con["raw_expr"], col) && !atLeastZero(con["raw_expr"], col) {
					found = true
				}
			}
			for _, e := range x {
				visit(e)
			}
		}
	}
	visit(tree)
	return found
}

// names reports whether the JSON parse tree v has a column reference
// whose last name is col.
func names(v any, col string) bool {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if names(e, col) {
				return true
			}
		}
	case map[string]any:
		if cr, ok := x["ColumnRef"].(map[string]any); ok {
			if f, ok := cr["fields"].([]any); ok && len(f) > 0 {
				if s, ok := f[len(f)-1].(map[string]any)["String"].(map[string]any); ok && s["sval"] == col {
					return true
				}
			}
		}
		for _, e := range x {
			if names(e, col) {
				return true
			}
		}
	}
	return false
}

// atLeastZero reports whether the JSON parse tree v is col >= k or
// col > k (k <= k' >= col spelt the other way) for an integer constant k
// at or below 0: a CHECK every token admits.
func atLeastZero(v any, col string) bool {
	m, _ := v.(map[string]any)
	e, _ := m["A_Expr"].(map[string]any)
	if e == nil || e["kind"] != "AEXPR_OP" {
		return false
	}
	ops, _ := e["name"].([]any)
	if len(ops) != 1 {
		return false
	}
	op, _ := ops[0].(map[string]any)["String"].(map[string]any)
	l, r := e["lexpr"], e["rexpr"]
	switch op["sval"] {
	case ">=", ">":
	case "<=", "<":
		l, r = r, l
	default:
		return false
	}
	lm, _ := l.(map[string]any)
	if _, ok := lm["ColumnRef"]; !ok || !names(l, col) {
		return false
	}
	rm, _ := r.(map[string]any)
	k, ok := rm["A_Const"].(map[string]any)
	if !ok {
		return false
	}
	iv, ok := k["ival"].(map[string]any)
	if !ok {
		return false
	}
	n, _ := iv["ival"].(float64) // absent: 0
	return n <= 0
}
