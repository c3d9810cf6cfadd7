package golang

import (
	"github.com/dave/jennifer/jen"

	"github.com/fencegen/fencegen/gen/internal/analyze"
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
	e.structs(f, q, sig)
	results := q.Name + "BatchResults"
	fenced := fencedBatch(q)
	fields := []jen.Code{
		jen.Id("br").Qual(pgxPkg, "BatchResults"),
		jen.Id("tot").Int(),
		jen.Id("closed").Bool(),
	}
	if fenced {
		// One token per batch call: every item is written under one lease.
		fields = append(fields, jen.Id("token").Qual(fencePkg, "Token"))
	}
	f.Type().Id(results).Struct(fields...)
	f.Line()
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
	body := []jen.Code{jen.Id("batch").Op(":=").Op("&").Qual(pgxPkg, "Batch").Values()}
	total := jen.Lit(1)
	if sig.rowArg != "" {
		total = jen.Len(jen.Id(sig.rowArg))
		body = append(body, jen.For(jen.List(jen.Id("_"), jen.Id("a")).Op(":=").Range().Id(sig.rowArg)).Block(
			jen.Id("vals").Op(":=").Index().Interface().Values(vals...),
			jen.Id("batch").Dot("Queue").Call(jen.Id(e.sqlConstName(q)), jen.Id("vals").Op("...")),
		))
	} else {
		body = append(body, jen.Id("batch").Dot("Queue").Call(append([]jen.Code{jen.Id(e.sqlConstName(q))}, vals...)...))
	}
	body = append(body,
		jen.Id("br").Op(":=").Add(e.dbExpr()).Dot("SendBatch").Call(jen.Id("ctx"), jen.Id("batch")),
	)
	if fenced {
		body = append(body, jen.Return(jen.Op("&").Id(results).Values(jen.Id("br"), total, jen.False(), jen.Id("token"))))
	} else {
		body = append(body, jen.Return(jen.Op("&").Id(results).Values(jen.Id("br"), total, jen.False())))
	}
	f.Func().Params(jen.Id("q").Op("*").Id("Queries")).Id(q.Name).Params(sig.params...).Params(sig.results...).Block(body...)
	f.Line()

	b := jen.Id("b")
	closed := func(zero ...jen.Code) jen.Code {
		args := append([]jen.Code{jen.Id("t")}, zero...)
		args = append(args, jen.Id("ErrBatchAlreadyClosed"))
		return jen.If(b.Clone().Dot("closed")).Block(
			jen.If(jen.Id("f").Op("!=").Nil()).Block(jen.Id("f").Call(args...)),
			jen.Continue(),
		)
	}
	recv := jen.Id("b").Op("*").Id(results)
	if fenced {
		e.fencedBatchResults(f, q, sig, recv, closed)
		f.Line()
		f.Func().Params(recv).Id("Close").Params().Error().Block(
			jen.Id("b").Dot("closed").Op("=").True(),
			jen.Return(jen.Id("b").Dot("br").Dot("Close").Call()),
		)
		f.Line()
		return
	}
	// An item that writes a fenced table (a fenced INSERT, an opted-out
	// write) reports the database-side guard's SQLSTATE as a
	// *fence.StaleError.
	mapErr := jen.Null()
	if len(triggerTables(q)) > 0 {
		mapErr = jen.Err().Op("=").Add(triggerErr(q)(jen.Err()))
	}
	switch q.Cmd {
	case ":batchexec":
		f.Func().Params(recv).Id("Exec").Params(jen.Id("f").Func().Params(jen.Int(), jen.Error())).Block(
			jen.Defer().Id("b").Dot("br").Dot("Close").Call(),
			jen.For(jen.Id("t").Op(":=").Lit(0), jen.Id("t").Op("<").Id("b").Dot("tot"), jen.Id("t").Op("++")).Block(
				closed(),
				jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("b").Dot("br").Dot("Exec").Call(),
				mapErr,
				jen.If(jen.Id("f").Op("!=").Nil()).Block(jen.Id("f").Call(jen.Id("t"), jen.Err())),
			),
		)
	case ":batchmany":
		items := jen.Var().Id("items").Index().Add(sig.result)
		if e.opts.EmitEmptySlices {
			items = jen.Id("items").Op(":=").Index().Add(sig.result).Values()
		}
		f.Func().Params(recv).Id("Query").Params(jen.Id("f").Func().Params(jen.Int(), jen.Index().Add(sig.result), jen.Error())).Block(
			jen.Defer().Id("b").Dot("br").Dot("Close").Call(),
			jen.For(jen.Id("t").Op(":=").Lit(0), jen.Id("t").Op("<").Id("b").Dot("tot"), jen.Id("t").Op("++")).Block(
				items,
				closed(jen.Nil()),
				jen.Err().Op(":=").Func().Params().Error().Block(
					jen.List(jen.Id("rows"), jen.Err()).Op(":=").Id("b").Dot("br").Dot("Query").Call(),
					jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
					jen.Defer().Id("rows").Dot("Close").Call(),
					jen.For(jen.Id("rows").Dot("Next").Call()).Block(
						e.newItem(sig),
						jen.If(jen.Err().Op(":=").Id("rows").Dot("Scan").Call(scanDests(sig)...), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
						jen.Id("items").Op("=").Append(jen.Id("items"), jen.Id("i")),
					),
					jen.Return(jen.Id("rows").Dot("Err").Call()),
				).Call(),
				mapErr,
				jen.If(jen.Id("f").Op("!=").Nil()).Block(jen.Id("f").Call(jen.Id("t"), jen.Id("items"), jen.Err())),
			),
		)
	case ":batchone":
		var zero jen.Code = jen.Id("zero")
		f.Func().Params(recv).Id("QueryRow").Params(jen.Id("f").Func().Params(jen.Int(), sig.result, jen.Error())).Block(
			jen.Defer().Id("b").Dot("br").Dot("Close").Call(),
			jen.For(jen.Id("t").Op(":=").Lit(0), jen.Id("t").Op("<").Id("b").Dot("tot"), jen.Id("t").Op("++")).Block(
				e.newItem(sig),
				jen.If(b.Clone().Dot("closed")).Block(
					jen.If(jen.Id("f").Op("!=").Nil()).Block(jen.Id("f").Call(jen.Id("t"), jen.Id("i"), jen.Id("ErrBatchAlreadyClosed"))),
					jen.Continue(),
				),
				jen.Id("row").Op(":=").Id("b").Dot("br").Dot("QueryRow").Call(),
				jen.Err().Op(":=").Id("row").Dot("Scan").Call(scanDests(sig)...),
				mapErr,
				jen.If(jen.Id("f").Op("!=").Nil()).Block(jen.Id("f").Call(jen.Id("t"), jen.Id("i"), jen.Err())),
			),
		)
		_ = zero
	}
	f.Line()
	f.Func().Params(recv).Id("Close").Params().Error().Block(
		jen.Id("b").Dot("closed").Op("=").True(),
		jen.Return(jen.Id("b").Dot("br").Dot("Close").Call()),
	)
	f.Line()
}

// fencedBatch reports whether q is a batch whose items are guarded writes
// read by fence.WriteResult (a fenced INSERT only stores the token and
// runs as a plain batch).
func fencedBatch(q *analyze.Query) bool {
	return q.Fence != nil && (q.Fence.Kind == "update" || q.Fence.Kind == "delete" || q.Fence.Kind == "upsert")
}

// fencedBatchResults emits the result readers of a fenced :batchexec,
// :batchone or :batchmany. Each item runs the guarded statement (see
// fencedBody) and reports its own outcome through fence.WriteResult: nil
// (or its rows), a *fence.StaleError, a *fence.NotFoundError, or a
// *fence.ConcurrentChangeError; a batch is sent once, so nothing is retried.
// When the fenced write is a WITH entry, each item is read by
// fence.WriteInCTEResult instead, the reader of the non-batch method
// (fence.WriteInCTE): its own rows, none included, or a *fence.StaleError;
// a :batchone item without a row gets pgx.ErrNoRows, as the :one method.
func (e *emitter) fencedBatchResults(f *jen.File, q *analyze.Query, sig signature, recv jen.Code, closed func(zero ...jen.Code) jen.Code) {
	mode := jen.Qual(fencePkg, "NonStrict")
	if q.Fence.Strict {
		mode = jen.Qual(fencePkg, "Strict")
	}
	// A fenced write in WITH: each item is read as the statement alone is
	// (fence.WriteInCTE), by the same reader.
	reader := "WriteResult"
	if q.Fence.CTE != "" {
		reader = "WriteInCTEResult"
	}
	result := func(scan jen.Code) *jen.Statement {
		return jen.Qual(fencePkg, reader).Call(
			jen.Lit(q.Name), jen.Lit(q.Fence.Table.QualifiedName()), mode, jen.Id("b").Dot("token"),
			jen.Lit(len(q.Columns)), jen.Id("rows"), jen.Err(), scan,
		)
	}
	query := jen.List(jen.Id("rows"), jen.Err()).Op(":=").Id("b").Dot("br").Dot("Query").Call()
	loop := func(stmts ...jen.Code) jen.Code {
		return jen.For(jen.Id("t").Op(":=").Lit(0), jen.Id("t").Op("<").Id("b").Dot("tot"), jen.Id("t").Op("++")).Block(stmts...)
	}
	dests := append([]jen.Code{jen.Nil(), jen.Nil()}, scanDests(sig)...)
	switch q.Cmd {
	case ":batchexec":
		f.Func().Params(recv).Id("Exec").Params(jen.Id("f").Func().Params(jen.Int(), jen.Error())).Block(
			jen.Defer().Id("b").Dot("br").Dot("Close").Call(),
			loop(
				closed(),
				query,
				jen.List(jen.Id("_"), jen.Err()).Op("=").Add(result(jen.Nil())),
				jen.If(jen.Id("f").Op("!=").Nil()).Block(jen.Id("f").Call(jen.Id("t"), jen.Err())),
			),
		)
	case ":batchmany":
		items := jen.Var().Id("items").Index().Add(sig.result)
		if e.opts.EmitEmptySlices {
			items = jen.Id("items").Op(":=").Index().Add(sig.result).Values()
		}
		scan := jen.Func().Params(jen.Id("rows").Qual(fencePkg, "Rows")).Error().Block(
			e.newItem(sig),
			jen.If(jen.Err().Op(":=").Id("rows").Dot("Scan").Call(dests...), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.Id("items").Op("=").Append(jen.Id("items"), jen.Id("i")),
			jen.Return(jen.Nil()),
		)
		f.Func().Params(recv).Id("Query").Params(jen.Id("f").Func().Params(jen.Int(), jen.Index().Add(sig.result), jen.Error())).Block(
			jen.Defer().Id("b").Dot("br").Dot("Close").Call(),
			loop(
				items,
				closed(jen.Nil()),
				query,
				jen.If(jen.List(jen.Id("_"), jen.Err()).Op("=").Add(result(scan)), jen.Err().Op("!=").Nil()).Block(
					jen.Id("items").Op("=").Nil(),
				),
				jen.If(jen.Id("f").Op("!=").Nil()).Block(jen.Id("f").Call(jen.Id("t"), jen.Id("items"), jen.Err())),
			),
		)
	case ":batchone":
		scan := jen.Func().Params(jen.Id("rows").Qual(fencePkg, "Rows")).Error().Block(
			jen.If(jen.Id("found")).Block(jen.Return(jen.Nil())),
			jen.Id("found").Op("=").True(),
			jen.Return(jen.Id("rows").Dot("Scan").Call(dests...)),
		)
		f.Func().Params(recv).Id("QueryRow").Params(jen.Id("f").Func().Params(jen.Int(), sig.result, jen.Error())).Block(
			jen.Defer().Id("b").Dot("br").Dot("Close").Call(),
			loop(
				e.newItem(sig),
				jen.If(jen.Id("b").Dot("closed")).Block(
					jen.If(jen.Id("f").Op("!=").Nil()).Block(jen.Id("f").Call(jen.Id("t"), jen.Id("i"), jen.Id("ErrBatchAlreadyClosed"))),
					jen.Continue(),
				),
				jen.Id("found").Op(":=").False(),
				query,
				jen.List(jen.Id("_"), jen.Err()).Op("=").Add(result(scan)),
				e.cteNoRow(q),
				jen.If(jen.Id("f").Op("!=").Nil()).Block(jen.Id("f").Call(jen.Id("t"), jen.Id("i"), jen.Err())),
			),
		)
	}
}
