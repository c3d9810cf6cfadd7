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
// Where sqlc reads a value as an interval that PostgreSQL gives another
// type (date_trunc('day', ts), a timestamp), the note says that type and
// that an interval override does not reach it.
// A query's parameters and result columns are placed at its annotation, a
// model's columns at the table's CREATE statement, as in APINotes. It
// returns nil for other sql_packages.
func PgxV4Notes(in Input) []string {
	names := namerFor(in.Options)
	e := &emitter{in: in, opts: in.Options, names: names, types: newTypeMapper(in, names, in.Options.Types())}
	if !e.types.pgxV4() {
		return nil
	}
	pg := &emitter{in: in, opts: in.Options, names: names, types: newTypeMapper(in, names, true)}
	var notes []string
	// t is the type sqlc declares the value with, real the one
	// PostgreSQL gives it, pgGo its Go type under postgresql_types.
	note := func(file string, line, col int, what string, t, real catalog.Type, g, pgGo goType) {
		if isInterval(t) && real.Name != "" && !isInterval(real) {
			// sqlc takes the value for an interval (date_trunc('day',
			// ts): the first of its overloads), PostgreSQL gives another
			// type, which int64 cannot hold, and time.Duration neither.
			if g.spelling() == pgGo.spelling() {
				return
			}
			notes = append(notes, fmt.Sprintf("%s:%d:%d: note: %s is declared %s, as sqlc declares it for pgx/v4, reading it as an interval, but PostgreSQL returns %s, which pgx/v4 cannot convert to or from %s (an interval override does not fix it): postgresql_types: true declares %s; or cast it in the query (::%s), which sqlc reads",
				file, line, col, what, g.spelling(), real, g.spelling(), pgGo.spelling(), real))
			return
		}
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
			note(t.File, t.Line, t.Col, fmt.Sprintf("column %s.%s", t.QualifiedName(), c.Name), typ, c.Type, e.types.modelType(c), pg.types.modelType(c))
		}
	}
	for _, f := range in.Files {
		for _, q := range f.Queries {
			for _, p := range q.Params {
				name := p.Name
				if name == "" || p.Unnamed {
					name = fmt.Sprintf("$%d", p.Number)
				}
				var real catalog.Type
				if p.Known {
					real = p.Type
				}
				note(q.File, q.Line, q.Col, fmt.Sprintf("query %s: parameter %s", q.Name, name), paramSQLType(e, p), real, e.paramType(p), pg.paramType(p))
			}
			for _, c := range q.Columns {
				if c.Embed != nil {
					continue
				}
				_, t, _ := declared(e.types.pgTypes, c)
				note(q.File, q.Line, q.Col, fmt.Sprintf("query %s: result column %s", q.Name, c.Name), t, c.Type, e.resultType(c), pg.resultType(c))
			}
		}
	}
	return notes
}

// paramSQLType is the PostgreSQL type paramType maps p from.
func paramSQLType(e *emitter, p *analyze.Param) catalog.Type {
	if p.Known && p.Sqlc != nil && !e.types.pgTypes && !p.Sqlc.Any {
		t := p.Sqlc.Type
		if p.Sqlc.Slice {
			t.ArrayDims++
		}
		return t
	}
	return p.Type
}

// isInterval reports whether t is PostgreSQL's interval or an array of it.
func isInterval(t catalog.Type) bool {
	return t.Name == "interval" && (t.Schema == "pg_catalog" || t.Schema == "")
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
