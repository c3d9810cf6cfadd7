package golang

import (
	"github.com/dave/jennifer/jen"

	"github.com/fencegen/fencegen/gen/internal/analyze"
)

// The check of the fencing token that every generated method taking one
// runs first: a token below 1, which no lease mints (fence.Token.Valid),
// returns a *fence.InvalidTokenError (errors.Is fence.ErrInvalidToken)
// before anything is sent. Token 0 is what a never-written row stores, so a
// write presenting it would pass the guard of every such row, and an INSERT
// storing a negative token would let any later holder's write through.

// tokenCheckCall is fenceimpl.CheckToken(<Name>, <table>, token).
func tokenCheckCall(q *analyze.Query) *jen.Statement {
	return jen.Qual(fenceImplPkg, "CheckToken").Call(jen.Lit(q.Name), jen.Lit(q.Fence.Table.QualifiedName()), jen.Id("token"))
}

// tokenCheck is the first statement of a non-batch method of q when it
// takes a token (q.Fence is set): it returns the method's zero results and
// CheckToken's error. Nil when q takes no token.
func (e *emitter) tokenCheck(q *analyze.Query, sig signature) []jen.Code {
	if q.Fence == nil {
		return nil
	}
	var ret []jen.Code
	switch q.Cmd {
	case ":exec":
		ret = []jen.Code{jen.Return(jen.Err())}
	case ":execrows", ":execlastid", ":copyfrom":
		ret = []jen.Code{jen.Return(jen.Lit(0), jen.Err())}
	case ":execresult":
		if e.types.stdlib() {
			ret = []jen.Code{jen.Return(jen.Nil(), jen.Err())}
		} else {
			ret = []jen.Code{jen.Return(jen.Qual(e.types.pgconnPath(), "CommandTag").Values(), jen.Err())}
		}
	case ":many":
		ret = []jen.Code{jen.Return(jen.Nil(), jen.Err())}
	case ":one":
		if e.opts.EmitResultStructPointers && !sig.scalar {
			ret = []jen.Code{jen.Return(jen.Nil(), jen.Err())}
		} else {
			ret = []jen.Code{e.newItem(sig), jen.Return(jen.Id(sig.retName), jen.Err())}
		}
	default:
		return nil
	}
	return []jen.Code{jen.If(jen.Err().Op(":=").Add(tokenCheckCall(q)), jen.Err().Op("!=").Nil()).Block(ret...)}
}

// batchTokenCheck is the first statement of a batch method of q that
// takes a token: with a token CheckToken refuses, nothing is queued or
// sent, and the returned results carry the error (field tokenErr), which
// every item reports and Close returns (batchTokenRefused).
func batchTokenCheck(q *analyze.Query, results string, total jen.Code) jen.Code {
	return jen.If(jen.Err().Op(":=").Add(tokenCheckCall(q)), jen.Err().Op("!=").Nil()).Block(
		jen.Return(jen.Op("&").Id(results).Values(jen.Dict{
			jen.Id("tot"):      total,
			jen.Id("tokenErr"): jen.Err(),
		})),
	)
}

// batchTokenRefused is the first statement of a batch reader (Exec, Query,
// QueryRow) of q when q takes a token: a batch whose token was refused
// reports the error to the callback for every item, and reads nothing.
func (e *emitter) batchTokenRefused(q *analyze.Query, sig signature) jen.Code {
	if q.Fence == nil {
		return jen.Null()
	}
	args := []jen.Code{jen.Id("t")}
	var decl jen.Code = jen.Null()
	switch q.Cmd {
	case ":batchmany":
		args = append(args, jen.Nil())
	case ":batchone":
		if !e.opts.EmitResultStructPointers || sig.scalar {
			decl = e.newItem(sig)
		}
		args = append(args, e.retZero(sig))
	}
	args = append(args, jen.Id("b").Dot("tokenErr"))
	return jen.If(jen.Id("b").Dot("tokenErr").Op("!=").Nil()).Block(
		jen.For(jen.Id("t").Op(":=").Lit(0), jen.Id("t").Op("<").Id("b").Dot("tot"), jen.Id("t").Op("++")).Block(
			decl,
			jen.If(jen.Id("f").Op("!=").Nil()).Block(jen.Id("f").Call(args...)),
		),
		jen.Return(),
	)
}
