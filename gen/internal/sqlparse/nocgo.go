//go:build !cgo

package sqlparse

import _ "embed"

// fencegen parses SQL with pg_query_go, PostgreSQL's own parser in C,
// which needs cgo. Without it (CGO_ENABLED=0, or no C compiler so that
// the go command turns cgo off) pg_query_go's parser is left out and
// every use of it here is undefined. This pattern matches no file on
// purpose: the go command then stops before compiling, when it loads the
// package, and prints this one sentence instead of the undefined names.
//
//go:embed "fencegen needs cgo and a C compiler (its SQL parser, pg_query_go, is PostgreSQL's parser in C): build with CGO_ENABLED=1 and gcc or clang on PATH"
var cgoRequired string
