package writes

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// TriggerRow is what a PL/pgSQL trigger function does to the row a BEFORE
// row trigger hands back, read from PostgreSQL's PL/pgSQL parse tree: the
// guard stores the token in NEW, so a function that assigns the token
// column (or all of NEW) or returns another row replaces it.
type TriggerRow struct {
	// AssignsColumn is set when the body may assign NEW.<column> or all
	// of NEW: every PL/pgSQL statement kind is read for the variables it
	// assigns (plNodes: an assignment, := or =; an INTO target of
	// SELECT, EXECUTE, FETCH or RETURNING; a GET [STACKED] DIAGNOSTICS
	// target; a FOR or FOREACH loop's variable; an argument of a CALL,
	// which an OUT or INOUT parameter assigns), and a statement kind or
	// field that pg_query writes and plNodes does not classify counts as
	// assigning NEW.
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
	// OldOnUpdate is set when a RETURN OLD is reachable when TG_OP is
	// UPDATE, NewOnDelete when a RETURN NEW is when it is DELETE: a
	// branch under IF TG_OP = 'DELETE' (or 'INSERT', or TG_OP <>
	// 'UPDATE'), and what follows such an IF whose branch ends in
	// RETURN, is not (trial r24 N7). Any other condition leaves both
	// events reachable.
	OldOnUpdate, NewOnDelete bool
}

// tgOpRE matches a PL/pgSQL condition comparing TG_OP with an event as
// PostgreSQL spells it (upper case: 'update' never matches).
var tgOpRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i:^\(?\s*tg_op\s*(=|<>|!=)\s*)'(INSERT|UPDATE|DELETE|TRUNCATE)'\s*\)?$`)
})

// ReadTrigger reads the PL/pgSQL trigger function source (the whole CREATE
// FUNCTION statement) for what it does to NEW's column (its name as
// PostgreSQL stores it). Every assignment target is a variable number of
// the parse tree, so NEW.column is found however it is spelt (quoted, in
// a list of INTO targets, across lines) and a comment or string that
// spells it is none. An error means the body was not read.
//
// A body whose ordinary string constants hold a backslash is read under
// both settings of standard_conforming_strings (offReading), each flag set
// when either reading sets it; one the two read as other tokens is
// ErrOffStrings (the caller scans the text).
func ReadTrigger(source, column string) (TriggerRow, error) {
	off, err := offReading(source)
	if err != nil {
		return TriggerRow{}, err
	}
	out, err := readTrigger(source, column)
	if err != nil || off == "" {
		return out, err
	}
	o, err := readTrigger(off, column)
	if err != nil {
		return TriggerRow{}, err
	}
	out.AssignsColumn = out.AssignsColumn || o.AssignsColumn
	out.ReturnsOther = out.ReturnsOther || o.ReturnsOther
	out.ReturnsOld = out.ReturnsOld || o.ReturnsOld
	out.ReturnsNull = out.ReturnsNull || o.ReturnsNull
	out.ReturnsNew = out.ReturnsNew || o.ReturnsNew
	out.OldOnUpdate = out.OldOnUpdate || o.OldOnUpdate
	out.NewOnDelete = out.NewOnDelete || o.NewOnDelete
	return out, nil
}

func readTrigger(source, column string) (TriggerRow, error) {
	var out TriggerRow
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
	// A variable the body declares as tg_op: no narrowing by TG_OP.
	narrow := true
	for _, d := range datums {
		m, _ := d.(map[string]any)
		for _, v := range m {
			if vm, _ := v.(map[string]any); vm != nil && strings.EqualFold(fmt.Sprint(vm["refname"]), "tg_op") {
				narrow = false
			}
		}
	}
	// tgOp reads an IF condition: the event and whether the branch runs
	// only on it (=) or only on the others (<>, !=).
	tgOp := func(cond any) (ev string, eq, ok bool) {
		m, _ := cond.(map[string]any)
		pe, _ := m["PLpgSQL_expr"].(map[string]any)
		q, _ := pe["query"].(string)
		sm := tgOpRE().FindStringSubmatch(strings.TrimSpace(q))
		if !narrow || sm == nil {
			return "", false, false
		}
		return sm[2], sm[1] == "=", true
	}
	// The events for which a path is unreachable: only UPDATE and DELETE
	// matter here.
	type excl struct{ update, del bool }
	only := func(x excl, ev string) excl { // reachable only on ev
		return excl{update: x.update || ev != "UPDATE", del: x.del || ev != "DELETE"}
	}
	not := func(x excl, ev string) excl { // reachable on all but ev
		return excl{update: x.update || ev == "UPDATE", del: x.del || ev == "DELETE"}
	}
	endsInReturn := func(body any) bool {
		l, _ := body.([]any)
		if len(l) == 0 {
			return false
		}
		m, _ := l[len(l)-1].(map[string]any)
		_, ok := m["PLpgSQL_stmt_return"]
		// An EXIT or CONTINUE before it may leave the branch elsewhere.
		js, _ := json.Marshal(l)
		return ok && !strings.Contains(string(js), "PLpgSQL_stmt_exit")
	}
	var visit func(key string, v any, ex excl)
	visit = func(key string, v any, ex excl) {
		switch x := v.(type) {
		case []any:
			cur := ex
			for _, e := range x {
				visit(key, e, cur)
				// IF TG_OP = 'X' THEN ... RETURN ...; END IF: what
				// follows does not run on X.
				if m, _ := e.(map[string]any); m != nil {
					if st, _ := m["PLpgSQL_stmt_if"].(map[string]any); st != nil && endsInReturn(st["then_body"]) {
						if ev, eq, ok := tgOp(st["cond"]); ok && eq {
							cur = not(cur, ev)
						}
					}
				}
			}
		case map[string]any:
			if st, ok := x["PLpgSQL_stmt_if"].(map[string]any); ok {
				if ev, eq, ok := tgOp(st["cond"]); ok {
					then, rest := only(ex, ev), not(ex, ev)
					if !eq {
						then, rest = rest, then
					}
					visit("then_body", st["then_body"], then)
					elsif := rest
					for _, e := range func() []any { l, _ := st["elsif_list"].([]any); return l }() {
						em, _ := e.(map[string]any)
						ei, _ := em["PLpgSQL_if_elsif"].(map[string]any)
						visit("cond", ei["cond"], elsif)
						if ev2, eq2, ok2 := tgOp(ei["cond"]); ok2 {
							t2, r2 := only(elsif, ev2), not(elsif, ev2)
							if !eq2 {
								t2, r2 = r2, t2
							}
							visit("stmts", ei["stmts"], t2)
							elsif = r2
						} else {
							visit("stmts", ei["stmts"], elsif)
						}
					}
					visit("else_body", st["else_body"], elsif)
					visit("cond", st["cond"], ex)
					return
				}
			}
			if r, ok := x["PLpgSQL_stmt_return"].(map[string]any); ok {
				if rv, ok := num(r["retvarno"]); ok {
					old, _ := num(fn["old_varno"])
					out.ReturnsOther = out.ReturnsOther || rv != newNo && rv != old
					out.ReturnsNew = out.ReturnsNew || rv == newNo
					out.ReturnsOld = out.ReturnsOld || rv == old
					out.NewOnDelete = out.NewOnDelete || rv == newNo && !ex.del
					out.OldOnUpdate = out.OldOnUpdate || rv == old && !ex.update
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
						out.NewOnDelete = out.NewOnDelete || !ex.del
					case "old":
						out.ReturnsOld = true
						out.OldOnUpdate = out.OldOnUpdate || !ex.update
					case "":
					default:
						out.ReturnsOther = true
					}
				}
			}
			for k, e := range x {
				visit(k, e, ex)
			}
		}
	}
	visit("", fn["action"], excl{})
	// What the statements may assign, each statement kind read by what
	// it assigns (plNodes): a kind or field not classified may assign
	// NEW.
	as := plTargets(fn["action"])
	out.AssignsColumn = as.unknown != ""
	for d := range as.datums {
		out.AssignsColumn = out.AssignsColumn || token[d]
	}
	aliases := aliasNames(source)
	for _, q := range as.calls {
		out.AssignsColumn = out.AssignsColumn || callTargets(q, column, aliases)
	}
	return out, nil
}
