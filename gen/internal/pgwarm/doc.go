// Package pgwarm starts protobuf's first-use set-up of pg_query's parse
// tree messages at program start-up (pgwarm.go, built with cgo as pg_query
// is). It is a package of its own, imported by sqlparse only, because its
// imports are pg_query's and protobuf's alone: the linker initialises it
// as soon as pg_query is (the lexically first ready package first,
// cmd/link's inittask.go), before TiDB's parser packages, on which
// sqlparse depends (a statement of a MySQL configuration holds TiDB's
// tree) and whose initialisation is about 2 ms of a run's start-up: the
// warm-up runs beside it instead of after it.
package pgwarm
