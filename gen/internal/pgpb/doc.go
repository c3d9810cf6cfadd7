// Package pgpb parses SQL with pg_query as pg_query_go's Parse and Scan
// do, and returns the same trees, but reads pg_query's protobuf output
// with a decoder generated for its messages (decode_gen.go, go generate)
// instead of protobuf's reflection-driven one. Protobuf's decoder sets
// itself up for each message type at its first use, building the whole
// pg_query.proto descriptor and the coders of Node's 252 oneof fields
// first: about a fifth of the CPU time of a small project's run
// (BENCHMARKS.md, issue 23), which a run pays again in every process.
//
// The trees are pg_query_go's own message types, as proto.Unmarshal
// fills them: protobuf's reflection works on them as on any other.
// Output the generated decoder does not read as it expects (a field it
// does not know, a wire type other than the field's, a message field
// given twice, a string that is not UTF-8, messages nested deeper than
// protobuf's recursion limit) is decoded again by
// proto.Unmarshal, so the result and any error are protobuf's. Its
// files need cgo, as pg_query_go does.
package pgpb
