package golang

import (
	"github.com/dave/jennifer/jen"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/guard"
)

// batchPreamble emits what every batch file shares.
func (e *emitter) batchPreamble(f *jen.File) {
	f.Var().Defs(
		jen.Id("ErrBatchAlreadyClosed").Op("=").Qual("errors", "New").Call(jen.Lit("batch already closed")),
	)
	f.Line()
}

// batch emits a :batchexec, :batchmany or :batchone query: the method queues
// one statement per argument on a pgx.Batch and sends them together; the
// returned <Name>BatchResults reads each result in order (pgx's SendBatch).
func (e *emitter) batch(f *jen.File, q *analyze.Query) {
	sig := e.signature(q)
	e.sqlConst(f, q)
	results := q.Name + "BatchResults"
	fenced := fencedBatch(q)
	fields := []jen.Code{
		jen.Id("br").Qual(e.types.pgxPath(), "BatchResults"),
		jen.Id("tot").Int(),
		jen.Id("closed").Bool(),
	}
	if fenced {
		// One token per batch call: every item is written under one lease.
		fields = append(fields, jen.Id("token").Qual(fencePkg, "Token"))
	}
	if q.Fence != nil {
		// The refusal of an invalid token (batchTokenCheck).
		fields = append(fields, jen.Id("tokenErr").Error())
	}
	f.Type().Id(results).Struct(fields...)
	f.Line()
	e.structs(f, q, sig)
	var vals []jen.Code
	if e.useParamsStruct(q) {
		for _, n := range e.paramFields(q) {
			vals = append(vals, jen.Id("a").Dot(n))
		}
	} else if sig.rowArg != "" {
		vals = []jen.Code{jen.Id("a")}
	}
	if q.Fence != nil {
		vals = append(vals, jen.Int64().Call(jen.Id("token")))
	}
	e.doc(f, q)
	total := func() jen.Code { return jen.Lit(1) }
	if sig.rowArg != "" {
		total = func() jen.Code { return jen.Len(jen.Id(sig.rowArg)) }
	}
	var body []jen.Code
	if q.Fence != nil {
		body = append(body, batchTokenCheck(q, results, total()))
	}
	body = append(body, jen.Id("batch").Op(":=").Op("&").Qual(e.types.pgxPath(), "Batch").Values())
	if sig.rowArg != "" {
		body = append(body, jen.For(jen.List(jen.Id("_"), jen.Id("a")).Op(":=").Range().Id(sig.rowArg)).Block(
			jen.Id("vals").Op(":=").Index().Interface().Add(multiValues(vals...)),
			jen.Id("batch").Dot("Queue").Call(jen.Id(e.sqlConstName(q)), jen.Id("vals").Op("...")),
		))
	} else {
		body = append(body, jen.Id("batch").Dot("Queue").Call(append([]jen.Code{jen.Id(e.sqlConstName(q))}, vals...)...))
	}
	body = append(body,
		jen.Id("br").Op(":=").Add(e.dbExpr()).Dot("SendBatch").Call(jen.Id("ctx"), jen.Id("batch")),
	)
	resultsVals := []jen.Code{jen.Id("br"), total(), jen.False()}
	if fenced {
		resultsVals = append(resultsVals, jen.Id("token"))
	}
	if q.Fence != nil {
		resultsVals = append(resultsVals, jen.Nil())
	}
	body = append(body, jen.Return(jen.Op("&").Id(results).Values(resultsVals...)))
	f.Func().Params(jen.Id("q").Op("*").Id("Queries")).Id(q.Name).Params(sig.params...).Params(sig.results...).Block(body...)
	f.Line()

	var item []jen.Code
	if fenced {
		item = e.fencedBatchItem(q, sig)
	} else {
		item = e.batchItem(q, sig)
	}
	recv := jen.Id("b").Op("*").Id(results)
	batchReader(f, q, sig, recv, e.batchTokenRefused(q, sig), item...)
	f.Line()
	closeBody := []jen.Code{jen.Id("b").Dot("closed").Op("=").True()}
	if q.Fence != nil {
		// Nothing was sent: Close returns the refusal, as pgx's Close
		// returns the first error of the batch.
		closeBody = append(closeBody, jen.If(jen.Id("b").Dot("tokenErr").Op("!=").Nil()).Block(jen.Return(jen.Id("b").Dot("tokenErr"))))
	}
	closeBody = append(closeBody, jen.Return(jen.Id("b").Dot("br").Dot("Close").Call()))
	f.Func().Params(recv).Id("Close").Params().Error().Block(closeBody...)
	f.Line()
}

// batchReader emits the method of q's <Name>BatchResults that reads the
// items' results in order and hands each to the callback f: Exec,
// Query or QueryRow for :batchexec, :batchmany or :batchone. The loop
// runs item for the item t, after refused (batchTokenRefused).
func batchReader(f *jen.File, q *analyze.Query, sig signature, recv jen.Code, refused jen.Code, item ...jen.Code) {
	name, params := "Exec", []jen.Code{jen.Int(), jen.Error()}
	switch q.Cmd {
	case ":batchmany":
		name, params = "Query", []jen.Code{jen.Int(), jen.Index().Add(sig.result), jen.Error()}
	case ":batchone":
		name, params = "QueryRow", []jen.Code{jen.Int(), sig.result, jen.Error()}
	}
	f.Func().Params(recv).Id(name).Params(jen.Id("f").Func().Params(params...)).Block(
		refused,
		jen.Defer().Id("b").Dot("br").Dot("Close").Call(),
		jen.For(jen.Id("t").Op(":=").Lit(0), jen.Id("t").Op("<").Id("b").Dot("tot"), jen.Id("t").Op("++")).Block(item...),
	)
}

// batchClosed skips an item read after Close, reporting
// ErrBatchAlreadyClosed to the callback along with zero, its other
// results.
func batchClosed(zero ...jen.Code) jen.Code {
	args := append([]jen.Code{jen.Id("t")}, zero...)
	args = append(args, jen.Id("ErrBatchAlreadyClosed"))
	return jen.If(jen.Id("b").Dot("closed")).Block(
		jen.If(jen.Id("f").Op("!=").Nil()).Block(jen.Id("f").Call(args...)),
		jen.Continue(),
	)
}

// batchReport hands the item t's results, then err, to the callback.
func batchReport(results ...jen.Code) jen.Code {
	args := append([]jen.Code{jen.Id("t")}, results...)
	args = append(args, jen.Err())
	return jen.If(jen.Id("f").Op("!=").Nil()).Block(jen.Id("f").Call(args...))
}

// batchItem is the loop body of batchReader for a batch of plain
// statements.
func (e *emitter) batchItem(q *analyze.Query, sig signature) []jen.Code {
	// An item that writes a fenced table (a fenced INSERT, an opted-out
	// write) reports the database-side guard's SQLSTATE as a
	// *fence.StaleError.
	mapErr := jen.Null()
	if len(triggerTables(q)) > 0 {
		mapErr = jen.Err().Op("=").Add(triggerErr(q)(jen.Err()))
	}
	switch q.Cmd {
	case ":batchmany":
		return []jen.Code{
			e.itemsDecl(sig),
			batchClosed(jen.Id("items")),
			jen.Err().Op(":=").Func().Params().Error().Block(
				jen.List(jen.Id("rows"), jen.Err()).Op(":=").Id("b").Dot("br").Dot("Query").Call(),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
				jen.Defer().Id("rows").Dot("Close").Call(),
				jen.For(jen.Id("rows").Dot("Next").Call()).Block(
					e.newItem(sig),
					jen.If(jen.Err().Op(":=").Id("rows").Dot("Scan").Call(sqlcList(nil, e.scanDests(sig))...), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
					jen.Id("items").Op("=").Append(jen.Id("items"), e.retValue(sig)),
				),
				jen.Return(jen.Id("rows").Dot("Err").Call()),
			).Call(),
			mapErr,
			batchReport(jen.Id("items")),
		}
	case ":batchone":
		return []jen.Code{
			e.newItem(sig),
			batchClosed(e.retZero(sig)),
			jen.Id("row").Op(":=").Id("b").Dot("br").Dot("QueryRow").Call(),
			jen.Err().Op(":=").Id("row").Dot("Scan").Call(sqlcList(nil, e.scanDests(sig))...),
			mapErr,
			batchReport(e.retValue(sig)),
		}
	}
	return []jen.Code{
		batchClosed(),
		jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("b").Dot("br").Dot("Exec").Call(),
		mapErr,
		batchReport(),
	}
}

// fencedBatch reports whether q is a batch whose items are guarded writes
// read by fenceimpl.WriteResult (a fenced INSERT only stores the token and
// runs as a plain batch).
func fencedBatch(q *analyze.Query) bool {
	return q.Fence != nil && q.Fence.Form != guard.Store
}

// fencedBatchItem is the loop body of batchReader for a fenced batch.
// Each item runs the guarded statement (see fencedBody) and reports its
// own outcome through fenceimpl.WriteResult: nil (or its rows), a
// *fence.StaleError, a *fence.NotFoundError, or a
// *fence.ConcurrentChangeError; a batch is sent once, so nothing is retried.
// When the fenced write is a WITH entry, each item is read by
// fenceimpl.WriteInCTEResult instead, the reader of the non-batch method
// (fenceimpl.WriteInCTE): its own rows, none included, or a *fence.StaleError;
// a :batchone item without a row gets pgx.ErrNoRows, as the :one method.
func (e *emitter) fencedBatchItem(q *analyze.Query, sig signature) []jen.Code {
	// A fenced write in WITH: each item is read as the statement alone is
	// (fenceimpl.WriteInCTE), by the same reader.
	reader := q.Fence.Form.BatchReader()
	result := func(scan jen.Code) *jen.Statement {
		r := jen.Qual(fenceImplPkg, reader).Call(
			jen.Lit(q.Name), jen.Lit(q.Fence.Table.QualifiedName()), fenceMode(q), jen.Id("b").Dot("token"),
			jen.Lit(len(q.Columns)), jen.Id("rows"), jen.Err(), scan,
		)
		if q.Fence.Sweep {
			// A sweep: no row matched is 0 rows, not an error.
			return jen.Qual(fenceImplPkg, "Swept").Call(r)
		}
		return r
	}
	query := jen.List(jen.Id("rows"), jen.Err()).Op(":=").Id("b").Dot("br").Dot("Query").Call()
	var dests []jen.Code
	for range q.Fence.Form.Leading() {
		dests = append(dests, jen.Nil())
	}
	dests = append(dests, e.scanDests(sig)...)
	switch q.Cmd {
	case ":batchmany":
		return []jen.Code{
			e.itemsDecl(sig),
			batchClosed(jen.Nil()),
			query,
			jen.If(jen.List(jen.Id("_"), jen.Err()).Op("=").Add(result(e.scanAppend(sig, dests, len(e.scanDests(sig))))), jen.Err().Op("!=").Nil()).Block(
				jen.Id("items").Op("=").Nil(),
			),
			batchReport(jen.Id("items")),
		}
	case ":batchone":
		return []jen.Code{
			e.newItem(sig),
			batchClosed(e.retZero(sig)),
			jen.Id("found").Op(":=").False(),
			query,
			jen.List(jen.Id("_"), jen.Err()).Op("=").Add(result(scanFirst(dests, len(e.scanDests(sig))))),
			e.cteNoRow(q),
			batchReport(e.retValue(sig)),
		}
	}
	return []jen.Code{
		batchClosed(),
		query,
		jen.List(jen.Id("_"), jen.Err()).Op("=").Add(result(jen.Nil())),
		batchReport(),
	}
}
