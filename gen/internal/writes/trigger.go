package writes

import (
	"encoding/json"
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// TriggerRow is what a PL/pgSQL trigger function does to the row a BEFORE
// row trigger hands back, read from PostgreSQL's PL/pgSQL parse tree: the
// guard stores the token in NEW, so a function that assigns the token
// column (or all of NEW) or returns another row replaces it.
type TriggerRow struct {
	// AssignsColumn is set when the body assigns NEW.<column> or all of
	// NEW: an assignment (:=, =), an INTO target of SELECT, EXECUTE,
	// FETCH or RETURNING, a GET DIAGNOSTICS target, a FOR loop's
	// variable.
	AssignsColumn bool
	// ReturnsOther is set when a RETURN gives a row other than NEW, OLD
	// or NULL. ReturnsOld is set when one gives OLD: in a BEFORE UPDATE
	// trigger PostgreSQL then writes the old row, its stored token with
	// it, in place of the guarded one (in a BEFORE INSERT trigger OLD is
	// NULL, so it skips the row; in a BEFORE DELETE one it goes ahead).
	ReturnsOther, ReturnsOld bool
	// ReturnsNull is set when a RETURN gives NULL: a BEFORE row trigger
	// then skips the row. ReturnsNew is set when one gives NEW, which is
	// NULL in a BEFORE DELETE trigger (so it skips the delete).
	ReturnsNull, ReturnsNew bool
}

// ReadTrigger reads the PL/pgSQL trigger function source (the whole CREATE
// FUNCTION statement) for what it does to NEW's column (its name as
// PostgreSQL stores it). Every assignment target is a variable number of
// the parse tree, so NEW.column is found however it is spelt (quoted, in
// a list of INTO targets, across lines) and a comment or string that
// spells it is none. An error means the body was not read.
func ReadTrigger(source, column string) (TriggerRow, error) {
	var out TriggerRow
	if at := sqlparse.OffValue(source, true); at >= 0 {
		// Read otherwise with standard_conforming_strings off: the
		// caller scans the text.
		return out, ErrOffStrings
	}
	js, err := pg.ParsePlPgSqlToJSON(source)
	if err != nil {
		return out, err
	}
	var fns []map[string]any
	if err := json.Unmarshal([]byte(js), &fns); err != nil {
		return out, err
	}
	if len(fns) != 1 {
		return out, fmt.Errorf("not one function")
	}
	fn, _ := fns[0]["PLpgSQL_function"].(map[string]any)
	if fn == nil {
		return out, fmt.Errorf("no PL/pgSQL function")
	}
	num := func(v any) (int, bool) {
		f, ok := v.(float64)
		return int(f), ok
	}
	newNo, ok := num(fn["new_varno"])
	if !ok {
		return out, fmt.Errorf("not a trigger function (no NEW)")
	}
	// The datums that stand for NEW itself or NEW.column: a variable
	// number naming one of them as a target assigns the token.
	token := map[int]bool{newNo: true}
	datums, _ := fn["datums"].([]any)
	for i, d := range datums {
		m, _ := d.(map[string]any)
		rf, _ := m["PLpgSQL_recfield"].(map[string]any)
		if rf == nil {
			continue
		}
		if p, ok := num(rf["recparentno"]); ok && p == newNo && rf["fieldname"] == column {
			token[i] = true
		}
	}
	var visit func(key string, v any)
	visit = func(key string, v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				visit(key, e)
			}
		case map[string]any:
			if r, ok := x["PLpgSQL_stmt_return"].(map[string]any); ok {
				if rv, ok := num(r["retvarno"]); ok {
					old, _ := num(fn["old_varno"])
					out.ReturnsOther = out.ReturnsOther || rv != newNo && rv != old
					out.ReturnsNew = out.ReturnsNew || rv == newNo
					out.ReturnsOld = out.ReturnsOld || rv == old
				} else if e, ok := r["expr"].(map[string]any); ok {
					pe, _ := e["PLpgSQL_expr"].(map[string]any)
					q, _ := pe["query"].(string)
					q = strings.TrimSpace(q)
					for strings.HasPrefix(q, "(") && strings.HasSuffix(q, ")") {
						q = strings.TrimSpace(q[1 : len(q)-1])
					}
					q = strings.ToLower(strings.Trim(q, `"`))
					switch q {
					case "null":
						out.ReturnsNull = true
					case "new":
						out.ReturnsNew = true
					case "old":
						out.ReturnsOld = true
					case "":
					default:
						out.ReturnsOther = true
					}
				}
			}
			for k, e := range x {
				if k == "varno" || k == "dno" {
					if n, ok := num(e); ok && token[n] {
						out.AssignsColumn = true
					}
				}
				visit(k, e)
			}
		}
	}
	visit("", fn["action"])
	return out, nil
}
