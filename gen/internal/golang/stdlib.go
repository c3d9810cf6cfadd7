package golang

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/config"
)

// Refusal returns why a query cannot be generated for the entry's
// sql_package, or "" when it can: like sqlc, database/sql output has no
// :copyfrom and no :batch* commands (they are pgx's CopyFrom and
// SendBatch).
func Refusal(opts config.GoOptions, q *analyze.Query) string {
	if opts.SQLPackage != config.SQLPackageStdlib {
		return ""
	}
	switch q.Cmd {
	case ":copyfrom":
		if opts.Engine == config.EngineMySQL {
			return mysqlCopyFromRefusal(opts, q)
		}
		return "query " + q.Name + ": :copyfrom is only supported by pgx (sql_package: database/sql has no COPY FROM; set sql_package: pgx/v5)"
	case ":batchexec", ":batchmany", ":batchone":
		return "query " + q.Name + ": :batch* commands are only supported by pgx (sql_package: database/sql has no batches; set sql_package: pgx/v5)"
	}
	return ""
}

// Skipped returns why q has no method for the entry's sql_package, as a
// note, or "": like sqlc, pgx/v5 and pgx/v4 output has no method for
// :execlastid (sqlc writes one for database/sql only), only the SQL
// constant and params struct (constOnly).
func Skipped(opts config.GoOptions, q *analyze.Query) string {
	if opts.SQLPackage == config.SQLPackageStdlib || q.Cmd != analyze.CmdExecLastID {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d: note: query %s has no method, only its SQL constant: :execlastid has no %s method, as in sqlc (PostgreSQL has no last-insert-id); use RETURNING with :one", q.File, q.Line, q.Col, q.Name, opts.SQLPackage)
}

// RepeatedArgNotes returns a note for each MySQL named parameter that q
// uses more than once when its parameters are the method's arguments
// (query_parameter_limit at least the number of placeholders): sqlc
// v1.31.1 counts the parameter once per placeholder and declares one
// argument per use, of one name (iD int32, iD int32), which does not
// compile; fencegen declares it once and sends it for each use.
func RepeatedArgNotes(opts config.GoOptions, q *analyze.Query) []string {
	limit := 1
	if opts.QueryParameterLimit != nil {
		limit = *opts.QueryParameterLimit
	}
	n := max(len(q.Params), len(q.Placeholders))
	if limit == 0 || n > limit || isBulk(q.Cmd) && len(q.Params) > 1 {
		return nil // a Params struct, whose field sqlc merges as well
	}
	uses := make([]int, len(q.Params)+1)
	for _, n := range q.Placeholders {
		if n > 0 && n < len(uses) {
			uses[n]++
		}
	}
	var notes []string
	for i, p := range q.Params {
		if uses[i+1] < 2 {
			continue
		}
		line, col := p.UseLine, p.UseCol
		if line == 0 {
			line, col = q.Line, q.Col
		}
		notes = append(notes, fmt.Sprintf("%s:%d:%d: note: query %s: named parameter %s is used %d times; sqlc declares one argument %s per use, which does not compile; fencegen declares it once and sends it for each use",
			q.File, line, col, q.Name, p.Name, uses[i+1], lowerFirst(namerFor(opts).structName(p.Name))))
	}
	return notes
}

// SliceNotes returns, for a database/sql entry on PostgreSQL, a note
// per sqlc.slice(name) parameter of q, at the query, where fencegen's
// method sends it otherwise than sqlc v1.31.1's, on purpose so that it
// runs: sqlc's appends each element as an argument of its own and
// leaves the SQL text as PostgreSQL's other drivers would need it
// ($n), so its call fails when run. A list of IN (...) is expanded into
// one $n per element (sqlc's sends $n with all the elements: other
// than one element fails); one compared with = ANY(...) or <> ALL(...)
// is sent as one array, pq.Array (sqlc's fails for any number of
// elements: one is not an array, more or none do not match the
// statement's one parameter). The signatures are sqlc's.
func SliceNotes(opts config.GoOptions, q *analyze.Query) []string {
	if opts.SQLPackage != config.SQLPackageStdlib || opts.Engine == config.EngineMySQL {
		return nil
	}
	var notes []string
	for _, p := range q.Params {
		switch {
		case !p.SqlcSlice:
			// sqlc's method sends a sqlc.slice it reads as one value
			// (a cast's argument) as fencegen's does: pq.Array.
		case p.InList:
			notes = append(notes, fmt.Sprintf("%s:%d:%d: note: query %s: fencegen's method expands IN (sqlc.slice(%s)) into one $n per element when it runs; sqlc's sends $%d with all the elements and fails when run for other than one element",
				q.File, q.Line, q.Col, q.Name, p.Name, p.Number))
		default:
			notes = append(notes, fmt.Sprintf("%s:%d:%d: note: query %s: fencegen's method sends sqlc.slice(%s) as one array (pq.Array), which = ANY(...) and <> ALL(...) compare with; sqlc's sends each element as an argument of its own and fails when run for any number of elements (one is not an array; more or none do not match the statement's one parameter $%d)",
				q.File, q.Line, q.Col, q.Name, p.Name, p.Number))
		}
	}
	return notes
}

// InSliceRefusal returns why q's IN (sqlc.slice(name)) list s cannot be
// generated for the entry's sql_package, or "" when it can. pgx sends
// sqlc.slice as one array parameter, which IN (...) would compare as one
// value (sqlc generates that, and it fails when run). database/sql output
// expands the list into one parameter per element, except in a fenced
// write whose stored token is read by key in a second statement, which
// would have to repeat the expansion.
func InSliceRefusal(opts config.GoOptions, q *analyze.Query, s analyze.InSlice) string {
	if opts.SQLPackage != config.SQLPackageStdlib {
		return fmt.Sprintf("IN (sqlc.slice(%s)): with PostgreSQL sqlc.slice is one array parameter, and IN (...) would compare with the array as a single value; write = ANY(sqlc.slice(%s)) (or <> ALL for NOT IN)", s.Name, s.Name)
	}
	if q.Fence != nil && q.Fence.StoredSQL != "" {
		return fmt.Sprintf("query %s: IN (sqlc.slice(%s)) in a fenced write that reads the stored token by key is not supported; write = ANY(sqlc.slice(%s)) (or <> ALL for NOT IN)", q.Name, s.Name, s.Name)
	}
	return ""
}

// stmtField is the *sql.Stmt field of Queries that holds q prepared
// (emit_prepared_queries), as sqlc names it.
func stmtField(q *analyze.Query) string { return lowerFirst(q.Name) + "Stmt" }

// stdlibDBFile emits DBTX, New, Queries and WithTx for database/sql, as
// sqlc's stdlib dbCode template does; with emit_prepared_queries also
// Prepare, Close and the exec, query and queryRow helpers that run a
// prepared statement (in the transaction of WithTx, if any).
func (e *emitter) stdlibDBFile(f *jen.File, queries []*analyze.Query) {
	ctx := jen.Qual("context", "Context")
	f.Type().Id("DBTX").Interface(
		jen.Id("ExecContext").Params(ctx, jen.String(), jen.Op("...").Interface()).Params(jen.Qual(sqlPkg, "Result"), jen.Error()),
		jen.Id("PrepareContext").Params(ctx, jen.String()).Params(jen.Op("*").Qual(sqlPkg, "Stmt"), jen.Error()),
		jen.Id("QueryContext").Params(ctx, jen.String(), jen.Op("...").Interface()).Params(jen.Op("*").Qual(sqlPkg, "Rows"), jen.Error()),
		jen.Id("QueryRowContext").Params(ctx, jen.String(), jen.Op("...").Interface()).Op("*").Qual(sqlPkg, "Row"),
	)
	f.Line()
	if e.newFunc(f) {
		return
	}
	prepared := e.opts.EmitPreparedQueries
	sorted := append([]*analyze.Query(nil), queries...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	if prepared {
		e.stdlibPrepare(f, sorted)
	}
	fields := []jen.Code{jen.Id("db").Id("DBTX")}
	withTx := []jen.Code{jen.Id("db").Op(":").Id("tx")}
	if prepared {
		fields = append(fields, jen.Id("tx").Op("*").Qual(sqlPkg, "Tx"))
		withTx = append(withTx, jen.Id("tx").Op(":").Id("tx"))
		for _, q := range sorted {
			fields = append(fields, jen.Id(stmtField(q)).Op("*").Qual(sqlPkg, "Stmt"))
			withTx = append(withTx, jen.Id(stmtField(q)).Op(":").Id("q").Dot(stmtField(q)))
		}
	}
	f.Type().Id("Queries").Struct(fields...)
	f.Line()
	f.Func().Params(jen.Id("q").Op("*").Id("Queries")).Id("WithTx").Params(jen.Id("tx").Op("*").Qual(sqlPkg, "Tx")).Op("*").Id("Queries").Block(
		jen.Return(jen.Op("&").Id("Queries").Add(multiValues(withTx...))),
	)
}

// stdlibPrepare emits Prepare, Close and the statement helpers of
// emit_prepared_queries (queries sorted by name).
func (e *emitter) stdlibPrepare(f *jen.File, queries []*analyze.Query) {
	ctx := jen.Qual("context", "Context")
	body := []jen.Code{jen.Id("q").Op(":=").Id("Queries").Values(jen.Dict{jen.Id("db"): jen.Id("db")}), jen.Var().Err().Error()}
	var toPrepare []*analyze.Query
	for _, q := range queries {
		// A query whose text is complete only when run
		// (inSliceExpansion) has nothing to prepare; its method passes
		// no statement. On MySQL, where its text (IN (/*SLICE:x*/?)) is
		// a statement with one ?, sqlc prepares it anyway, and so does
		// this (its file text); on PostgreSQL the ? would fail Prepare.
		if !e.expandsInSlices(q) || e.types.mysql() {
			toPrepare = append(toPrepare, q)
		}
	}
	if len(toPrepare) == 0 {
		body = append(body, jen.Id("_").Op("=").Err())
	}
	for _, q := range toPrepare {
		body = append(body, jen.If(
			jen.List(jen.Id("q").Dot(stmtField(q)), jen.Err()).Op("=").Id("db").Dot("PrepareContext").Call(jen.Id("ctx"), jen.Id(e.sqlConstName(q))),
			jen.Err().Op("!=").Nil(),
		).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("error preparing query "+q.Name+": %w"), jen.Err()))))
	}
	body = append(body, jen.Return(jen.Op("&").Id("q"), jen.Nil()))
	f.Func().Id("Prepare").Params(jen.Id("ctx").Add(ctx), jen.Id("db").Id("DBTX")).Params(jen.Op("*").Id("Queries"), jen.Error()).Block(body...)
	f.Line()
	closeBody := []jen.Code{jen.Var().Err().Error()}
	for _, q := range queries {
		fld := jen.Id("q").Dot(stmtField(q))
		closeBody = append(closeBody, jen.If(fld.Clone().Op("!=").Nil()).Block(
			jen.If(jen.Id("cerr").Op(":=").Add(fld.Clone()).Dot("Close").Call(), jen.Id("cerr").Op("!=").Nil()).Block(
				jen.Err().Op("=").Qual("fmt", "Errorf").Call(jen.Lit("error closing "+stmtField(q)+": %w"), jen.Id("cerr")),
			),
		))
	}
	closeBody = append(closeBody, jen.Return(jen.Err()))
	f.Func().Params(jen.Id("q").Op("*").Id("Queries")).Id("Close").Params().Error().Block(closeBody...)
	f.Line()
	for _, h := range []struct {
		name, method string
		result       []jen.Code
	}{
		{"exec", "ExecContext", []jen.Code{jen.Qual(sqlPkg, "Result"), jen.Error()}},
		{"query", "QueryContext", []jen.Code{jen.Op("*").Qual(sqlPkg, "Rows"), jen.Error()}},
		{"queryRow", "QueryRowContext", []jen.Code{jen.Op("*").Qual(sqlPkg, "Row")}},
	} {
		f.Func().Params(jen.Id("q").Op("*").Id("Queries")).Id(h.name).Params(
			jen.Id("ctx").Add(ctx), jen.Id("stmt").Op("*").Qual(sqlPkg, "Stmt"), jen.Id("query").String(), jen.Id("args").Op("...").Interface(),
		).Params(h.result...).Block(
			jen.Switch().Block(
				jen.Case(jen.Id("stmt").Op("!=").Nil().Op("&&").Id("q").Dot("tx").Op("!=").Nil()).Block(
					jen.Return(jen.Id("q").Dot("tx").Dot("StmtContext").Call(jen.Id("ctx"), jen.Id("stmt")).Dot(h.method).Call(jen.Id("ctx"), jen.Id("args").Op("...")))),
				jen.Case(jen.Id("stmt").Op("!=").Nil()).Block(
					jen.Return(jen.Id("stmt").Dot(h.method).Call(jen.Id("ctx"), jen.Id("args").Op("...")))),
				jen.Default().Block(
					jen.Return(jen.Id("q").Dot("db").Dot(h.method).Call(jen.Id("ctx"), jen.Id("query"), jen.Id("args").Op("...")))),
			),
		)
		f.Line()
	}
}

// pqArrayType reports whether database/sql output passes a value of Go
// type t through pq.Array: sqlc's rule, on the type as written, is a
// leading "[]" other than []byte exactly, whatever the type came from (a
// column or db_type override's string or object form, slice: true, an
// object form's type: "[]int64", or an array column's default mapping).
func pqArrayType(t goType) bool {
	s := t.String()
	return strings.HasPrefix(s, "[]") && s != "[]byte"
}

// arrayArg wraps a parameter (or a scan destination, &field) of Go
// type t in pq.Array for database/sql when pqArrayType(t), as sqlc's
// stdlib output does.
func (e *emitter) arrayArg(expr jen.Code, t goType) jen.Code {
	if !e.types.stdlib() || !pqArrayType(t) {
		return expr
	}
	return jen.Qual(pqPkg, "Array").Call(expr)
}

// call is a DBTX call of the plain (unprepared) form: Exec, Query or
// QueryRow for pgx, ExecContext, QueryContext or QueryRowContext for
// database/sql, where emit_prepared_queries runs q's prepared statement
// (stmt true) through the Queries helpers.
func (e *emitter) call(db *jen.Statement, method string, q *analyze.Query, stmt bool, args []jen.Code) *jen.Statement {
	if !e.types.stdlib() {
		return jen.Add(db).Dot(method).Call(args...)
	}
	if e.opts.EmitPreparedQueries {
		helper := map[string]string{"Exec": "exec", "Query": "query", "QueryRow": "queryRow"}[method]
		st := jen.Nil()
		if stmt && !e.expandsInSlices(q) {
			st = jen.Id("q").Dot(stmtField(q))
		}
		return jen.Id("q").Dot(helper).Call(append([]jen.Code{args[0], st}, args[1:]...)...)
	}
	return jen.Add(db).Dot(method + "Context").Call(args...)
}
