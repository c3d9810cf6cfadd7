package golang

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// signature is a method's parameter and result lists.
type signature struct {
	params  []jen.Code
	results []jen.Code
	// args are the expressions passed to pgx, in $n order.
	args []jen.Code
	// result is the Go type of one result row, if any.
	result     jen.Code
	resultName string
	scalar     bool
	cols       []resultField
}

type resultField struct {
	name string
	typ  goType
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func (e *emitter) paramLimit() int {
	if e.opts.QueryParameterLimit != nil {
		return *e.opts.QueryParameterLimit
	}
	return 1
}

func (e *emitter) paramType(p *analyze.Param) goType {
	isToken := false
	if p.Column != nil && p.Column.Table != nil && p.Column.Table.Fence != nil && p.Column.Table.Fence.Column == p.Column.Name {
		isToken = true
	}
	if !p.Known {
		return goType{name: "interface{}"}
	}
	return e.types.goTypeOf(p.Type, p.NotNull, isToken)
}

// uniqueFieldNames gives every field a distinct Go name, suffixing _2, _3
// to repeats as sqlc does.
func uniqueNames(names []string) []string {
	seen := map[string]int{}
	out := make([]string, len(names))
	for i, n := range names {
		seen[n]++
		if seen[n] > 1 {
			out[i] = fmt.Sprintf("%s_%d", n, seen[n])
		} else {
			out[i] = n
		}
	}
	return out
}

func (e *emitter) signature(q *analyze.Query) signature {
	var s signature
	s.params = []jen.Code{jen.Id("ctx").Qual("context", "Context")}
	if e.opts.EmitMethodsWithDBArgument {
		s.params = append(s.params, jen.Id("db").Id("DBTX"))
	}
	limit := e.paramLimit()
	useStruct := len(q.Params) > limit || (limit == 0 && len(q.Params) > 0)
	if useStruct {
		var names []string
		for _, p := range q.Params {
			names = append(names, e.names.structName(p.Name))
		}
		names = uniqueNames(names)
		typ := jen.Id(q.Name + "Params")
		if e.opts.EmitParamsStructPointers {
			typ = jen.Op("*").Id(q.Name + "Params")
		}
		s.params = append(s.params, jen.Id("arg").Add(typ))
		for _, n := range names {
			s.args = append(s.args, jen.Id("arg").Dot(n))
		}
	} else {
		var names []string
		for _, p := range q.Params {
			names = append(names, e.names.paramName(p.Name))
		}
		names = uniqueNames(names)
		for i, p := range q.Params {
			s.params = append(s.params, jen.Id(names[i]).Add(e.paramType(p).code()))
			s.args = append(s.args, jen.Id(names[i]))
		}
	}
	if q.Fence != nil {
		s.params = append(s.params, jen.Id("token").Qual(fencePkg, "Token"))
		s.args = append(s.args, jen.Int64().Call(jen.Id("token")))
	}
	// Results.
	if len(q.Columns) == 1 {
		c := q.Columns[0]
		gt := e.types.goTypeOf(c.Type, c.NotNull, c.IsToken)
		s.result, s.scalar = gt.code(), true
		s.cols = []resultField{{name: c.Name, typ: gt}}
	} else if len(q.Columns) > 1 {
		if t := e.matchModel(q); t != "" {
			s.resultName = t
		} else {
			s.resultName = q.Name + "Row"
		}
		var names []string
		for _, c := range q.Columns {
			names = append(names, e.names.structName(c.Name))
		}
		names = uniqueNames(names)
		for i, c := range q.Columns {
			s.cols = append(s.cols, resultField{name: names[i], typ: e.types.goTypeOf(c.Type, c.NotNull, c.IsToken)})
		}
		s.result = jen.Id(s.resultName)
		if e.opts.EmitResultStructPointers {
			s.result = jen.Op("*").Id(s.resultName)
		}
	}
	switch q.Cmd {
	case ":one":
		s.results = []jen.Code{s.result, jen.Error()}
	case ":many":
		s.results = []jen.Code{jen.Index().Add(s.result), jen.Error()}
	case ":exec":
		s.results = []jen.Code{jen.Error()}
	case ":execrows":
		s.results = []jen.Code{jen.Int64(), jen.Error()}
	case ":execresult":
		s.results = []jen.Code{jen.Qual(pgconnPkg, "CommandTag"), jen.Error()}
	}
	return s
}

// matchModel returns the model struct name when the result columns are
// exactly one table's columns, in order (sqlc reuses the model then).
func (e *emitter) matchModel(q *analyze.Query) string {
	var table = q.Columns[0].Column
	if table == nil || table.Table == nil {
		return ""
	}
	t := table.Table
	if len(t.Columns) != len(q.Columns) {
		return ""
	}
	for i, c := range q.Columns {
		if c.Column != t.Columns[i] || c.Name != t.Columns[i].Name || c.NotNull != t.Columns[i].NotNull {
			return ""
		}
	}
	return e.models[t]
}

func sqlConstName(q *analyze.Query) string { return lowerFirst(q.Name) }

func (e *emitter) query(f *jen.File, q *analyze.Query) {
	sig := e.signature(q)
	text := "-- name: " + q.Name + " " + q.Cmd + "\n" + q.SQL + "\n"
	if strings.Contains(text, "`") {
		f.Const().Id(sqlConstName(q)).Op("=").Lit(text)
	} else {
		f.Const().Id(sqlConstName(q)).Op("=").Id("`" + text + "`")
	}
	f.Line()
	limit := e.paramLimit()
	if len(q.Params) > limit || (limit == 0 && len(q.Params) > 0) {
		var names []string
		for _, p := range q.Params {
			names = append(names, e.names.structName(p.Name))
		}
		names = uniqueNames(names)
		var fields []jen.Code
		for i, p := range q.Params {
			tagName := p.Name
			fields = append(fields, jen.Id(names[i]).Add(e.paramType(p).code()).Tag(e.tags(tagName)))
		}
		f.Type().Id(q.Name + "Params").Struct(fields...)
		f.Line()
	}
	if sig.resultName == q.Name+"Row" {
		var fields []jen.Code
		for i, c := range sig.cols {
			fields = append(fields, jen.Id(c.name).Add(c.typ.code()).Tag(e.tags(q.Columns[i].Name)))
		}
		f.Type().Id(sig.resultName).Struct(fields...)
		f.Line()
	}
	for _, d := range q.Doc {
		f.Comment(d)
	}
	if q.Fence != nil {
		if len(q.Doc) > 0 {
			f.Comment("")
		}
		for _, l := range strings.Split(fenceDoc(q), "\n") {
			f.Comment(l)
		}
	}
	recv := jen.Id("q").Op("*").Id("Queries")
	db := jen.Id("q").Dot("db")
	if e.opts.EmitMethodsWithDBArgument {
		db = jen.Id("db")
	}
	var body []jen.Code
	if q.Fence != nil && q.Fence.Kind != "insert" {
		body = e.fencedBody(q, sig, db)
	} else {
		body = e.plainBody(q, sig, db)
	}
	f.Func().Params(recv).Id(q.Name).Params(sig.params...).Params(sig.results...).Block(body...)
	f.Line()
}

func fenceDoc(q *analyze.Query) string {
	mode := "a row whose stored\nfencing token is greater than token"
	if q.Fence.Strict {
		mode = "a row whose stored\nfencing token is not lower than token (strict)"
	}
	switch q.Fence.Kind {
	case "insert":
		return fmt.Sprintf("%s stores token in %s.%s.", q.Name, q.Fence.Table.QualifiedName(), q.Fence.Column)
	case "delete":
		return fmt.Sprintf("%s is fenced on %s.%s: it never deletes %s.\n"+
			"It returns a *fence.StaleError (errors.Is fence.ErrStaleToken) when the rows\n"+
			"it matched hold a newer token, and a *fence.NotFoundError (errors.Is\n"+
			"fence.ErrNotFound) when it matched no row. One round trip.",
			q.Name, q.Fence.Table.QualifiedName(), q.Fence.Column, mode)
	}
	return fmt.Sprintf("%s is fenced on %s.%s: it never overwrites %s,\n"+
		"and stores token in the rows it writes. It returns a *fence.StaleError\n"+
		"(errors.Is fence.ErrStaleToken) when the rows it matched hold a newer token,\n"+
		"and a *fence.NotFoundError (errors.Is fence.ErrNotFound) when it matched no\n"+
		"row. One round trip.",
		q.Name, q.Fence.Table.QualifiedName(), q.Fence.Column, mode)
}

func callArgs(q *analyze.Query, sig signature) []jen.Code {
	return append([]jen.Code{jen.Id("ctx"), jen.Id(sqlConstName(q))}, sig.args...)
}

// scanDests returns &i.Field for each result column (or &i for a scalar).
func scanDests(sig signature) []jen.Code {
	if sig.scalar {
		return []jen.Code{jen.Op("&").Id("i")}
	}
	var out []jen.Code
	for _, c := range sig.cols {
		out = append(out, jen.Op("&").Id("i").Dot(c.name))
	}
	return out
}

func (e *emitter) newItem(sig signature) jen.Code {
	if e.opts.EmitResultStructPointers && !sig.scalar {
		return jen.Id("i").Op(":=").Op("&").Id(sig.resultName).Values()
	}
	return jen.Var().Id("i").Add(sig.result)
}

func (e *emitter) plainBody(q *analyze.Query, sig signature, db *jen.Statement) []jen.Code {
	call := callArgs(q, sig)
	switch q.Cmd {
	case ":exec":
		return []jen.Code{
			jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(db).Dot("Exec").Call(call...),
			jen.Return(jen.Err()),
		}
	case ":execrows":
		return []jen.Code{
			jen.List(jen.Id("result"), jen.Err()).Op(":=").Add(db).Dot("Exec").Call(call...),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Lit(0), jen.Err())),
			jen.Return(jen.Id("result").Dot("RowsAffected").Call(), jen.Nil()),
		}
	case ":execresult":
		return []jen.Code{jen.Return(jen.Add(db).Dot("Exec").Call(call...))}
	case ":one":
		return []jen.Code{
			jen.Id("row").Op(":=").Add(db).Dot("QueryRow").Call(call...),
			e.newItem(sig),
			jen.Err().Op(":=").Id("row").Dot("Scan").Call(scanDests(sig)...),
			jen.Return(jen.Id("i"), jen.Err()),
		}
	case ":many":
		items := jen.Var().Id("items").Index().Add(sig.result)
		if e.opts.EmitEmptySlices {
			items = jen.Id("items").Op(":=").Index().Add(sig.result).Values()
		}
		return []jen.Code{
			jen.List(jen.Id("rows"), jen.Err()).Op(":=").Add(db).Dot("Query").Call(call...),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Defer().Id("rows").Dot("Close").Call(),
			items,
			jen.For(jen.Id("rows").Dot("Next").Call()).Block(
				e.newItem(sig),
				jen.If(jen.Err().Op(":=").Id("rows").Dot("Scan").Call(scanDests(sig)...), jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.Nil(), jen.Err()),
				),
				jen.Id("items").Op("=").Append(jen.Id("items"), jen.Id("i")),
			),
			jen.If(jen.Err().Op(":=").Id("rows").Dot("Err").Call(), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Err()),
			),
			jen.Return(jen.Id("items"), jen.Nil()),
		}
	}
	return []jen.Code{jen.Panic(jen.Lit("fencegen: unsupported command " + q.Cmd))}
}

// fencedBody runs the guarded statement built by sqlparse.FenceWrite and
// tells apart rows written, rows refused (stale token) and no row matched.
func (e *emitter) fencedBody(q *analyze.Query, sig signature, db *jen.Statement) []jen.Code {
	zero := func() []jen.Code {
		switch q.Cmd {
		case ":one":
			return []jen.Code{jen.Id("zero")}
		case ":many":
			return []jen.Code{jen.Nil()}
		case ":execrows":
			return []jen.Code{jen.Lit(0)}
		}
		return nil
	}
	ret := func(err jen.Code) jen.Code { return jen.Return(append(zero(), err)...) }
	mode := jen.Qual(fencePkg, "NonStrict")
	if q.Fence.Strict {
		mode = jen.Qual(fencePkg, "Strict")
	}
	table := q.Fence.Table.QualifiedName()
	// Scan destinations on a refused row: the two fence columns, then nil
	// for each of the query's own columns.
	refusedDests := []jen.Code{jen.Op("&").Id("stored"), jen.Op("&").Id("refused")}
	writtenDests := []jen.Code{jen.Nil(), jen.Nil()}
	for range q.Columns {
		refusedDests = append(refusedDests, jen.Nil())
	}
	writtenDests = append(writtenDests, scanDests(sig)...)

	var pre []jen.Code
	var onWritten []jen.Code
	var success jen.Code
	switch q.Cmd {
	case ":one":
		pre = append(pre, jen.Var().Id("zero").Add(sig.result))
		if e.opts.EmitResultStructPointers && !sig.scalar {
			pre = []jen.Code{jen.Var().Id("zero").Add(sig.result)}
		}
		onWritten = []jen.Code{
			jen.If(jen.Id("written").Op(">").Lit(0)).Block(jen.Continue()),
			e.newItem(sig),
			jen.If(jen.Err().Op(":=").Id("rows").Dot("Scan").Call(writtenDests...), jen.Err().Op("!=").Nil()).Block(
				jen.Id("rows").Dot("Close").Call(), ret(jen.Err()),
			),
			jen.Id("result").Op("=").Id("i"),
		}
		pre = append(pre, jen.Var().Id("result").Add(sig.result))
		success = jen.Return(jen.Id("result"), jen.Nil())
	case ":many":
		onWritten = []jen.Code{
			e.newItem(sig),
			jen.If(jen.Err().Op(":=").Id("rows").Dot("Scan").Call(writtenDests...), jen.Err().Op("!=").Nil()).Block(
				jen.Id("rows").Dot("Close").Call(), ret(jen.Err()),
			),
			jen.Id("items").Op("=").Append(jen.Id("items"), jen.Id("i")),
		}
		success = jen.Return(jen.Id("items"), jen.Nil())
	case ":execrows":
		success = jen.Return(jen.Id("written"), jen.Nil())
	default:
		success = jen.Return(jen.Nil())
	}
	loop := []jen.Code{
		jen.List(jen.Id("rows"), jen.Err()).Op(":=").Add(db).Dot("Query").Call(callArgs(q, sig)...),
		jen.If(jen.Err().Op("!=").Nil()).Block(ret(jen.Err())),
		jen.Var().Defs(
			jen.Id("written").Int64(),
			jen.Id("stored").Op(",").Id("refused").Op("*").Int64(),
		),
	}
	if q.Cmd == ":many" {
		if e.opts.EmitEmptySlices {
			loop = append(loop, jen.Id("items").Op(":=").Index().Add(sig.result).Values())
		} else {
			loop = append(loop, jen.Var().Id("items").Index().Add(sig.result))
		}
	}
	next := []jen.Code{
		jen.If(jen.Id("rows").Dot("RawValues").Call().Index(jen.Lit(0)).Op("!=").Nil()).Block(
			jen.If(jen.Err().Op(":=").Id("rows").Dot("Scan").Call(refusedDests...), jen.Err().Op("!=").Nil()).Block(
				jen.Id("rows").Dot("Close").Call(), ret(jen.Err()),
			),
			jen.Continue(),
		),
	}
	next = append(next, onWritten...)
	next = append(next, jen.Id("written").Op("++"))
	loop = append(loop,
		jen.For(jen.Id("rows").Dot("Next").Call()).Block(next...),
		jen.Id("rows").Dot("Close").Call(),
		jen.If(jen.Err().Op(":=").Id("rows").Dot("Err").Call(), jen.Err().Op("!=").Nil()).Block(ret(jen.Err())),
		jen.If(jen.Id("stored").Op("==").Nil()).Block(
			jen.If(jen.Id("written").Op("==").Lit(0)).Block(
				ret(jen.Op("&").Qual(fencePkg, "NotFoundError").Values(jen.Dict{
					jen.Id("Query"): jen.Lit(q.Name), jen.Id("Table"): jen.Lit(table),
				})),
			),
			success,
		),
		jen.List(jen.Id("retry"), jen.Err()).Op(":=").Qual(fencePkg, "Refusal").Call(
			jen.Lit(q.Name), jen.Lit(table), mode, jen.Id("token"),
			jen.Qual(fencePkg, "Token").Call(jen.Op("*").Id("stored")), jen.Op("*").Id("refused"), jen.Id("attempt"),
		),
		jen.If(jen.Op("!").Id("retry")).Block(ret(jen.Err())),
	)
	if q.Cmd == ":one" {
		// result is per attempt
		loop = append([]jen.Code{jen.Id("result").Op("=").Id("zero")}, loop...)
	}
	body := append(pre, jen.For(jen.Id("attempt").Op(":=").Lit(0), jen.Empty(), jen.Id("attempt").Op("++")).Block(loop...))
	_ = sqlparse.StoredColumn
	return body
}
