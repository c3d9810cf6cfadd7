package golang

import (
	"fmt"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
)

// PgxV4Notes lists, for fencegen vet, the places of a sql_package: pgx/v4
// entry whose Go type pgx/v4 can neither scan into nor send: an interval
// that sqlc v1.31.1 declares int64 (*int64 with
// emit_pointers_for_null_types, sql.NullInt64 when nullable, []int64 for
// an array), where pgx/v4's github.com/jackc/pgtype converts an interval
// to and from time.Duration only (its Interval.AssignTo), so every call
// that reads or writes such a value fails with "unable to assign to
// *int64" or "cannot convert ... to Interval". The API is sqlc's; the
// note names the fix: a db_type: pg_catalog.interval override to
// time.Duration, or to *time.Duration with nullable: true for a nullable
// value (the spelling with pg_catalog is the one sqlc v1.31.1 matches).
// A query's parameters and result columns are placed at its annotation, a
// model's columns at the table's CREATE statement, as in APINotes. It
// returns nil for other sql_packages.
func PgxV4Notes(in Input) []string {
	names := namerFor(in.Options)
	e := &emitter{in: in, opts: in.Options, names: names, types: newTypeMapper(in, names, in.Options.PGTypes())}
	if !e.types.pgxV4() {
		return nil
	}
	var notes []string
	note := func(file string, line, col int, what string, t catalog.Type, g goType) {
		if !intervalAsInt64(t, g) {
			return
		}
		fix := "{db_type: pg_catalog.interval, go_type: time.Duration}"
		if g.pointer || g.pkg == sqlPkg {
			fix = "{db_type: pg_catalog.interval, nullable: true, go_type: {import: time, type: Duration, pointer: true}}"
		}
		notes = append(notes, fmt.Sprintf("%s:%d:%d: note: %s is an interval declared %s, as sqlc declares it for pgx/v4, which pgx/v4 can neither scan into nor send (its pgtype converts an interval to time.Duration only); the override %s works",
			file, line, col, what, g.spelling(), fix))
	}
	for _, t := range modelTables(in.Catalog) {
		for _, c := range t.Columns {
			typ := c.Type
			if c.Sqlc != nil && !e.types.pgTypes {
				typ = c.Sqlc.Type
			}
			note(t.File, t.Line, t.Col, fmt.Sprintf("column %s.%s", t.QualifiedName(), c.Name), typ, e.types.modelType(c))
		}
	}
	for _, f := range in.Files {
		for _, q := range f.Queries {
			for _, p := range q.Params {
				name := p.Name
				if name == "" || p.Unnamed {
					name = fmt.Sprintf("$%d", p.Number)
				}
				note(q.File, q.Line, q.Col, fmt.Sprintf("query %s: parameter %s", q.Name, name), paramSQLType(e, p), e.paramType(p))
			}
			for _, c := range q.Columns {
				if c.Embed != nil {
					continue
				}
				_, t, _ := declared(e.types.pgTypes, c)
				note(q.File, q.Line, q.Col, fmt.Sprintf("query %s: result column %s", q.Name, c.Name), t, e.resultType(c))
			}
		}
	}
	return notes
}

// paramSQLType is the PostgreSQL type paramType maps p from.
func paramSQLType(e *emitter, p *analyze.Param) catalog.Type {
	if p.Known && p.Sqlc != nil && !e.types.pgTypes && !p.Sqlc.Any {
		return p.Sqlc.Type
	}
	return p.Type
}

// intervalAsInt64 reports whether g is sqlc's pgx/v4 mapping of an
// interval (t, or its element): int64, *int64 or sql.NullInt64, with one
// slice per array dimension. An override's type is anything else.
func intervalAsInt64(t catalog.Type, g goType) bool {
	if t.Name != "interval" || (t.Schema != "pg_catalog" && t.Schema != "") || g.slices != t.ArrayDims {
		return false
	}
	return g.pkg == "" && g.name == "int64" || g.pkg == sqlPkg && g.name == "NullInt64"
}
