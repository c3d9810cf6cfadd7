//go:build cgo

package sqlparse

// The warm-up of protobuf's handling of pg_query's parse trees starts at
// start-up, in a package of its own so that it starts early.
import _ "github.com/fencegen/fencegen/gen/internal/pgwarm"
