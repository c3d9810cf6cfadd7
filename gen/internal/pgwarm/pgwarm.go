//go:build cgo

package pgwarm

import (
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
)

// init starts, on a goroutine of its own, what protobuf does at the
// first unmarshal of a pg_query parse tree: build pg_query's file
// descriptor and the coders of the ParseResult, RawStmt and Node messages
// (Node is a oneof of some 250 message types), about a seventh of a small
// project's run (BENCHMARKS.md). On a machine with a core to spare it is
// done beside the rest of the start-up; a parse that comes first waits for
// it (protobuf's own sync.Once). Nothing is parsed here: pg_query's parser
// state is per thread, and a warm-up parse on another thread would be work
// the run does not need.
func init() {
	go proto.Size(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: &pg.Node{}}}})
}
