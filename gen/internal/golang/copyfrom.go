package golang

import (
	"github.com/dave/jennifer/jen"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
)

// copyfromStructs emits a :copyfrom query's Params struct in its query
// file, where sqlc declares it.
func (e *emitter) copyfromStructs(qf *jen.File, q *analyze.Query) {
	if e.types.mysql() {
		// sqlc declares the INSERT's text too on MySQL.
		e.sqlConst(qf, q)
	}
	e.structs(qf, q, e.signature(q))
}

// copyfrom emits a :copyfrom query in the copyfrom file: an iterator implementing
// pgx.CopyFromSource over the rows, and a method that sends them with
// COPY FROM STDIN in one round trip (pgx's CopyFrom, PostgreSQL docs, COPY).
// Into a fenced table the method takes a fence.Token and stores it in every
// row: the rows are new, so there is nothing to guard.
func (e *emitter) copyfrom(cf *jen.File, q *analyze.Query) {
	sig := e.signature(q)
	iter := "iteratorFor" + q.Name
	structured := e.useParamsStruct(q)
	rowType := sig.rowType
	cf.Comment(iter + " implements pgx.CopyFromSource.")
	fields := []jen.Code{
		jen.Id("rows").Index().Add(rowType),
		jen.Id("skippedFirstNextCall").Bool(),
	}
	if q.Fence != nil {
		fields = append(fields, jen.Id("token").Qual(fencePkg, "Token"))
	}
	cf.Type().Id(iter).Struct(fields...)
	cf.Line()
	cf.Func().Params(jen.Id("r").Op("*").Id(iter)).Id("Next").Params().Bool().Block(
		jen.If(jen.Len(jen.Id("r").Dot("rows")).Op("==").Lit(0)).Block(jen.Return(jen.False())),
		jen.If(jen.Op("!").Id("r").Dot("skippedFirstNextCall")).Block(
			jen.Id("r").Dot("skippedFirstNextCall").Op("=").True(),
			jen.Return(jen.True()),
		),
		jen.Id("r").Dot("rows").Op("=").Id("r").Dot("rows").Index(jen.Lit(1), jen.Empty()),
		jen.Return(jen.Len(jen.Id("r").Dot("rows")).Op(">").Lit(0)),
	)
	cf.Line()
	var vals []jen.Code
	if structured {
		for _, n := range e.paramFields(q) {
			vals = append(vals, jen.Id("r").Dot("rows").Index(jen.Lit(0)).Dot(n))
		}
	} else {
		vals = append(vals, jen.Id("r").Dot("rows").Index(jen.Lit(0)))
	}
	if q.Fence != nil {
		vals = append(vals, jen.Int64().Call(jen.Id("r").Dot("token")))
	}
	cf.Func().Params(jen.Id("r").Id(iter)).Id("Values").Params().Params(jen.Index().Interface(), jen.Error()).Block(
		jen.Return(jen.Index().Interface().Add(multiValues(vals...)), jen.Nil()),
	)
	cf.Line()
	cf.Func().Params(jen.Id("r").Id(iter)).Id("Err").Params().Error().Block(jen.Return(jen.Nil()))
	cf.Line()

	table := []jen.Code{}
	t := q.InsertTable
	if sc := modelSchema(t); sc != "" && sc != catalog.DefaultSchema {
		table = append(table, jen.Lit(sc))
	}
	table = append(table, jen.Lit(t.Name))
	var cols []jen.Code
	for _, c := range q.InsertColumns {
		cols = append(cols, jen.Lit(c))
	}
	itValues := jen.Dict{jen.Id("rows"): jen.Id(sig.rowArg)}
	if q.Fence != nil {
		cols = append(cols, jen.Lit(q.Fence.Column))
		itValues[jen.Id("token")] = jen.Id("token")
	}
	e.doc(cf, q)
	copyFrom := e.dbExpr().Dot("CopyFrom").Call(
		jen.Id("ctx"),
		jen.Index().String().Values(table...),
		jen.Index().String().Values(cols...),
		jen.Op("&").Id(iter).Values(itValues),
	)
	body := []jen.Code{jen.Return(copyFrom)}
	if len(triggerTables(q)) > 0 {
		// Into a fenced table: the database-side guard's SQLSTATE is a
		// *fence.StaleError, as for every write to a fenced table.
		body = []jen.Code{
			jen.List(jen.Id("result"), jen.Err()).Op(":=").Add(copyFrom),
			jen.Return(jen.Id("result"), triggerErr(q)(jen.Err())),
		}
	}
	body = append(e.tokenCheck(q, sig), body...)
	cf.Func().Params(jen.Id("q").Op("*").Id("Queries")).Id(q.Name).Params(sig.params...).Params(sig.results...).Block(body...)
	cf.Line()
}
