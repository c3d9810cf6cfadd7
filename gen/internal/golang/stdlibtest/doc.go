// Package stdlibtest runs fencegen's database/sql output against real
// PostgreSQL through both database/sql drivers sqlc users have,
// github.com/lib/pq and pgx's github.com/jackc/pgx/v5/stdlib, and its
// pgx/v4 output through github.com/jackc/pgx/v4, and checks
// that every fenced write shape behaves as its pgx/v5 twin: the same
// results, the same *fence.StaleError and *fence.NotFoundError, the same
// rows written. schema.sql and queries.sql are generated four times
// (fencegen.yaml): pgxdb (pgx/v5), pgx4db (pgx/v4, run on a
// github.com/jackc/pgx/v4 connection), sqldb (database/sql) and sqlprepdb
// (database/sql with emit_prepared_queries); slices.sql, IN (sqlc.slice)
// lists, only for the last two, each fenced form beside its
// = ANY(sqlc.slice) twin; pgx4.sql (a fenced :copyfrom and :batch* items)
// for pgx4db only; arrays_schema.sql and arrays.sql, array columns
// under slice overrides of every form, as arraydb (database/sql).
// The generated code is checked
// in; TestGeneratedCodeIsCurrent fails when it is stale. Regenerate it with
// go generate.
package stdlibtest

//go:generate go tool fencegen generate
