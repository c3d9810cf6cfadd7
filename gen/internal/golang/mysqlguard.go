package golang

import (
	"fmt"
	"slices"

	"github.com/dave/jennifer/jen"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/guard/mysqlguard"
)

// The guarded methods of engine mysql (package mysqlguard): the guarded
// statement binds its `?` parameters in the order Guarded.Params gives,
// the token among them, and is read by fenceimpl.MySQLByKey (UPDATE and
// DELETE by key) or fenceimpl.MySQLUpsert; an INSERT that stores the
// token runs as sqlc's method does, its error through
// fenceimpl.TriggerError.

// mysqlGuarded returns q's guarded MySQL write, or nil.
func mysqlGuarded(q *analyze.Query) *mysqlguard.Guarded {
	if q.Fence == nil {
		return nil
	}
	return q.Fence.MySQL
}

// mysqlArgs returns sig with its args in the order of the guarded
// statement's `?` (g.Params; sig.args are the query's parameters in
// order, then the token).
func mysqlArgs(sig signature, params []int) signature {
	args := make([]jen.Code, 0, len(params))
	for _, p := range params {
		args = append(args, sig.args[p-1])
	}
	sig.args = args
	return sig
}

// mysqlDriverResult is the driver's sql.Result a guarded MySQL
// :execresult hands fenceimpl.MySQLResult for its LastInsertId: an
// upsert's, whose guard leaves the last-insert id alone; nil for a write
// by key, whose guard carries tokens in it.
func mysqlDriverResult(g *mysqlguard.Guarded) jen.Code {
	if g.Form == mysqlguard.Upsert {
		return jen.Id("result")
	}
	return jen.Nil()
}

// mysqlStoredConst emits the read of the stored token of a guarded MySQL
// write (Guarded.Stored), sent only when its result does not tell.
func (e *emitter) mysqlStoredConst(f *jen.File, q *analyze.Query, g *mysqlguard.Guarded) {
	if g.Stored == "" {
		return
	}
	what := "stored token, sent only when the write's result does not tell"
	if g.Form == mysqlguard.All {
		what = "rows matched, sent only when the write is refused or its result does not tell"
	}
	sqlText(f, storedConstName(q), "-- name: "+q.Name+" "+q.Cmd+" ("+what+")\n"+g.Stored+"\n")
}

// mysqlFencedBody is the body of a guarded MySQL write after the token
// check; sig's args are the guarded statement's (mysqlArgs), all is sig
// before reordering (for the stored-token read's parameters).
func (e *emitter) mysqlFencedBody(q *analyze.Query, g *mysqlguard.Guarded, sig, all signature, db *jen.Statement) []jen.Code {
	name, table := jen.Lit(q.Name), jen.Lit(q.Fence.Table.QualifiedName())
	mode := fenceMode(q)
	exec := func() *jen.Statement { return e.call(db, "Exec", q, true, e.callArgs(q, sig)) }
	var pre []jen.Code
	var read *jen.Statement
	stored := jen.Nil()
	if g.Stored != "" {
		var body []jen.Code
		args := []jen.Code{jen.Id("ctx"), jen.Id(storedConstName(q))}
		if e.expandsInSlices(q) {
			body = e.mysqlSliceExpansion(q, all, g.StoredParams, storedConstName(q), "storedQuery", "storedParams")
			args = []jen.Code{jen.Id("ctx"), jen.Id("storedQuery"), jen.Id("storedParams").Op("...")}
		} else {
			for _, p := range g.StoredParams {
				args = append(args, all.args[p-1])
			}
		}
		stored = jen.Func().Params(jen.Id("ctx").Qual("context", "Context")).Params(jen.Op("*").Qual(sqlPkg, "Rows"), jen.Error()).Block(
			append(body, jen.Return(e.call(db, "Query", q, false, args)))...,
		)
	}
	switch g.Form {
	case mysqlguard.ByKey, mysqlguard.All:
		run := jen.Func().Params().Params(jen.Qual(sqlPkg, "Result"), jen.Error()).Block(jen.Return(exec()))
		read = jen.Qual(fenceImplPkg, g.Form.Reader()).Call(jen.Id("ctx"), name, table, mode, jen.Id("token"), run, stored)
		if q.Fence.Sweep {
			read = jen.Qual(fenceImplPkg, "Swept").Call(read)
		}
	case mysqlguard.Upsert:
		pre = []jen.Code{jen.List(jen.Id("result"), jen.Id("execErr")).Op(":=").Add(exec())}
		if g.Rows > 1 {
			read = jen.Qual(fenceImplPkg, "MySQLUpsertRows").Call(jen.Id("ctx"), name, table, mode, jen.Id("token"), jen.Lit(g.Rows), jen.Id("result"), jen.Id("execErr"), stored)
			break
		}
		read = jen.Qual(fenceImplPkg, g.Form.Reader()).Call(jen.Id("ctx"), name, table, mode, jen.Id("token"), jen.Id("result"), jen.Id("execErr"), stored)
	default:
		return []jen.Code{jen.Panic(jen.Lit("fencegen: unsupported MySQL guard form " + g.Form.String()))}
	}
	switch q.Cmd {
	case ":exec":
		return append(pre, jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(read), jen.Return(jen.Err()))
	case ":execrows":
		return append(pre, jen.Return(read))
	case ":execresult":
		return append(pre,
			jen.List(jen.Id("n"), jen.Err()).Op(":=").Add(read),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Qual(fenceImplPkg, "MySQLResult").Call(jen.Id("n"), mysqlDriverResult(g)), jen.Nil()),
		)
	}
	return []jen.Code{jen.Panic(jen.Lit("fencegen: unsupported command " + q.Cmd + " for a guarded MySQL write"))}
}

// mysqlFenceDoc is the documentation of q's guarded MySQL write g (before
// sweepDoc and invalidTokenDoc): what each form returns, as
// fenceimpl.MySQLByKey, fenceimpl.MySQLUpsert and fenceimpl.TriggerError
// read it. col is the token column, rule the guard's rule.
func mysqlFenceDoc(q *analyze.Query, g *mysqlguard.Guarded, col, rule string) string {
	result := ""
	if q.Cmd == ":execresult" {
		result = " Its sql.Result counts the rows written (1)"
	}
	switch g.Form {
	case mysqlguard.Store:
		returns := "result"
		if q.Cmd == ":execlastid" {
			returns = "last-insert id (LastInsertId)"
		}
		return fmt.Sprintf("%s stores token in %s. It returns the driver's %s and error, as the statement unfenced would: "+
			"the rows an INSERT writes are new, with no stored token to beat. One round trip.", q.Name, col, returns)
	case mysqlguard.Upsert:
		if result != "" {
			result += "; LastInsertId is the driver's."
		}
		if g.Rows > 1 {
			if result != "" {
				result = fmt.Sprintf(" Its sql.Result counts the rows given (%d); LastInsertId is the driver's.", g.Rows)
			}
			return fmt.Sprintf("%s stores token in %s. On a duplicate key, its ON DUPLICATE KEY UPDATE %s, and stores token. "+
				"All or nothing: it returns a *fence.StaleError (errors.Is fence.ErrStaleToken) when any existing row it meets holds a newer token; then nothing is written. "+
				"One round trip.%s", q.Name, col, rule, result)
		}
		return fmt.Sprintf("%s stores token in %s. On a duplicate key, its ON DUPLICATE KEY UPDATE %s, and stores token. "+
			"It returns a *fence.StaleError (errors.Is fence.ErrStaleToken) when the existing row holds a newer token; then nothing is written. "+
			"One round trip; a second, only then, reads the stored token for the error.%s", q.Name, col, rule, result)
	}
	stores := ", and stores token in the row it writes"
	if q.Fence.Kind == "delete" {
		stores = ""
	}
	if result != "" {
		result += "; LastInsertId returns an error (the guard uses the statement's last-insert id)."
	}
	if g.Form == mysqlguard.All {
		if result != "" {
			result = " Its sql.Result counts the rows as the return value does; LastInsertId returns an error (the guard uses the statement's last-insert id)."
		}
		return fmt.Sprintf("%s is fenced on %s: it %s%s. "+
			"All or nothing: it returns a *fence.StaleError (errors.Is fence.ErrStaleToken) when any row it matches holds a newer token; then nothing is written. "+
			"It returns a *fence.NotFoundError (errors.Is fence.ErrNotFound) when it matched no row, "+
			"and a *fence.ConcurrentChangeError (errors.Is fence.ErrConcurrentChange) when its reply did not say whether it matched and rows appeared at each of its runs. "+
			"Its row count is MySQL's: the rows changed (with clientFoundRows=true in the DSN, the rows matched); rows matched that already held the values count 0. "+
			"One round trip when it writes; a locked read of the matched rows follows when it is refused, or when the reply does not say whether it matched.%s", q.Name, col, rule, stores, result)
	}
	return fmt.Sprintf("%s is fenced on %s: it %s%s. "+
		"It returns a *fence.StaleError (errors.Is fence.ErrStaleToken) when the row it matched holds a newer token, "+
		"a *fence.NotFoundError (errors.Is fence.ErrNotFound) when it matched no row, "+
		"and a *fence.ConcurrentChangeError (errors.Is fence.ErrConcurrentChange) when concurrent transactions changed the row at each of its runs (nothing written). "+
		"One round trip when it writes; when the reply does not say why it wrote nothing, a locked read of the stored token follows, "+
		"and the statement runs again (at most fenceimpl.MaxAttempts times) when that token is accepted.%s", q.Name, col, rule, stores, result)
}

// mysqlSliceExpansion builds, for a guarded MySQL write with
// IN (sqlc.slice(name)) lists, the text and parameters of one of its
// statements (the write, or its read: constName, binding params as
// Guarded.Params does): text := constName, and params, the parameters in
// the order of its `?`, a list's elements in its place at each copy of
// its marker (the guard repeats the WHERE clause). Then every copy of
// each list's marker, /*SLICE:name*/?, becomes one ? per element, or
// NULL for an empty list, as sqlc's expansion (mysqlInSlices) does for
// the one copy its text holds. all is the method's signature: the
// query's parameters in order, then the token.
func (e *emitter) mysqlSliceExpansion(q *analyze.Query, all signature, params []int, constName, text, args string) []jen.Code {
	body := []jen.Code{
		jen.Id(text).Op(":=").Id(constName),
		jen.Var().Id(args).Index().Interface(),
	}
	list := func(p int) bool { return p-1 < len(q.Params) && q.Params[p-1].InList }
	var run []jen.Code
	flush := func() {
		if len(run) > 0 {
			body = append(body, jen.Id(args).Op("=").Append(append([]jen.Code{jen.Id(args)}, run...)...))
			run = nil
		}
	}
	var lists []int
	for _, p := range params {
		if !list(p) {
			run = append(run, all.args[p-1])
			continue
		}
		flush()
		if !slices.Contains(lists, p) {
			lists = append(lists, p)
		}
		body = append(body, jen.For(jen.List(jen.Id("_"), jen.Id("v")).Op(":=").Range().Add(all.args[p-1])).Block(
			jen.Id(args).Op("=").Append(jen.Id(args), jen.Id("v")),
		))
	}
	flush()
	for _, p := range lists {
		a, marker := all.args[p-1], jen.Lit(analyze.SliceMarker(q.Params[p-1].Name))
		body = append(body, jen.If(jen.Len(jen.Add(a)).Op(">").Lit(0)).Block(
			jen.Id(text).Op("=").Qual("strings", "ReplaceAll").Call(jen.Id(text), marker,
				jen.Qual("strings", "Repeat").Call(jen.Lit(",?"), jen.Len(jen.Add(a))).Index(jen.Lit(1), jen.Empty())),
		).Else().Block(
			jen.Id(text).Op("=").Qual("strings", "ReplaceAll").Call(jen.Id(text), marker, jen.Lit("NULL")),
		))
	}
	return body
}
