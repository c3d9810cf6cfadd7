package golang

import (
	"fmt"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/config"
)

// APINotes lists, for fencegen vet, every place where the API declared
// with in.Options differs from the one postgresql_types (mysql_types on a
// MySQL entry) would declare:
// the options' own setting against the other. Each note is
// "file:line:col: note: ..." and names the Go type with and without the
// option; a query's parameters and result columns are placed at its
// annotation, a model's columns at the table's CREATE statement. It
// returns nil when that option is on, whose API is the engine's:
// then sqlc's is the other, and fencegen vet does not list it.
func APINotes(in Input) []string {
	if in.Options.Types() {
		return nil
	}
	opt := in.Options.TypesOption() // mysql_types on a MySQL entry
	names := namerFor(in.Options)
	sqlc := &emitter{in: in, opts: in.Options, names: names, types: newTypeMapper(in, names, false)}
	pg := &emitter{in: in, opts: in.Options, names: names, types: newTypeMapper(in, names, true)}
	var notes []string
	note := func(file string, line, col int, what string, a, b goType) {
		as, bs := a.spelling(), b.spelling()
		if as == bs {
			return
		}
		notes = append(notes, fmt.Sprintf("%s:%d:%d: note: %s is %s, as sqlc declares it; %s: true declares %s", file, line, col, what, as, opt, bs))
	}
	for _, t := range modelTables(in.Catalog) {
		for _, c := range t.Columns {
			note(t.File, t.Line, t.Col, fmt.Sprintf("column %s.%s", t.QualifiedName(), c.Name),
				sqlc.types.modelType(c), pg.types.modelType(c))
		}
		if fs := sqlc.embeddedFields(t); len(fs) > 0 {
			// sqlc's model declares the unnamed expressions (?column?).
			for _, u := range t.Unnamed {
				notes = append(notes, fmt.Sprintf("%s:%d:%d: note: the model of %s has an embedded field %s for the unnamed column %d of its query, as sqlc declares it; %s: true leaves it out", t.File, t.Line, t.Col, t.QualifiedName(), sqlc.types.modelType(u.Column).spelling(), u.At+1, opt))
			}
		}
	}
	for _, f := range in.Files {
		for _, q := range f.Queries {
			if q.Refused != "" {
				// PostgreSQL refuses the query (its note says so): it
				// declares no type for it.
				continue
			}
			for _, p := range q.Params {
				name := p.Name
				if name == "" || p.Unnamed {
					name = fmt.Sprintf("$%d", p.Number)
				}
				note(q.File, q.Line, q.Col, fmt.Sprintf("query %s: parameter %s", q.Name, name), sqlc.paramType(p), pg.paramType(p))
			}
			if q.Alt != nil {
				// sqlc's reading of a function in FROM, a VALUES list
				// or a USING join gives other columns than PostgreSQL's
				// (analyze.Query.Alt).
				as, bs := sqlc.columnsSpelling(q.Columns), pg.columnsSpelling(q.Alt.Columns)
				if as == bs {
					continue // the two readings give the same API
				}
				notes = append(notes, fmt.Sprintf("%s:%d:%d: note: query %s: result columns are %s, as sqlc reads the query; %s: true returns %s", q.File, q.Line, q.Col, q.Name, as, opt, bs))
				continue
			}
			for _, c := range q.Columns {
				if c.Embed != nil {
					continue
				}
				note(q.File, q.Line, q.Col, fmt.Sprintf("query %s: result column %s", q.Name, c.Name), sqlc.resultType(c), pg.resultType(c))
			}
		}
	}
	return notes
}

// DatabaseNotes lists, for an entry sqlc analyses with a database
// (config.Package.Database), one note per query whose API may differ
// from sqlc's: sqlc types each parameter and result column from
// PostgreSQL's answer to PREPARE where it has one (names and
// nullability stay its own reading's), and fencegen types them against
// the schema files as sqlc does without a database. The queries named
// are those where the two typings fencegen knows (sqlc's without a
// database, PostgreSQL's: see APINotes) declare different Go types,
// or fencegen's declares interface{} (PostgreSQL types every parameter
// of a statement it prepares, and most columns); key names the entry's database key ("database: uri").
func DatabaseNotes(in Input, key string) []string {
	names := namerFor(in.Options)
	sqlc := &emitter{in: in, opts: in.Options, names: names, types: newTypeMapper(in, names, false)}
	pg := &emitter{in: in, opts: in.Options, names: names, types: newTypeMapper(in, names, true)}
	var notes []string
	for _, f := range in.Files {
		for _, q := range f.Queries {
			var what []string
			for _, p := range q.Params {
				// PostgreSQL types every parameter of a query it
				// prepares: where fencegen's reading has none
				// (interface{}), sqlc's database typing has one.
				if g := sqlc.paramType(p).spelling(); g != pg.paramType(p).spelling() || g == "interface{}" {
					name := p.Name
					if name == "" || p.Unnamed {
						name = fmt.Sprintf("$%d", p.Number)
					}
					what = append(what, "parameter "+name)
				}
			}
			if q.Alt != nil {
				what = append(what, "its result columns")
			} else {
				for _, c := range q.Columns {
					if g := sqlc.resultType(c).spelling(); c.Embed == nil && (g != pg.resultType(c).spelling() || g == "interface{}") {
						what = append(what, "result column "+c.Name)
					}
				}
			}
			if len(what) > 0 {
				notes = append(notes, fmt.Sprintf("%s:%d:%d: note: query %s: sqlc, analysing with the database (%s), types %s from PostgreSQL's answer, which may declare other Go types than fencegen's (sqlc's reading without a database)", q.File, q.Line, q.Col, q.Name, key, strings.Join(what, ", ")))
			}
		}
	}
	return notes
}

// columnsSpelling is cols as fencegen vet names them: "(name type, ...)",
// "()" for none.
func (e *emitter) columnsSpelling(cols []*analyze.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + " " + e.resultType(c).spelling()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// modelTables are the tables and views that get a model, in catalog
// order: all but sequences (as in sqlc).
func modelTables(cat *catalog.Catalog) []*catalog.Table {
	var out []*catalog.Table
	for _, s := range cat.Schemas {
		for _, t := range s.Tables {
			if !t.IsSequence {
				out = append(out, t)
			}
		}
	}
	return out
}

// spelling is t as Go source spells it: []pgtype.Text, *string,
// pgtype.Range[pgtype.Int4]; a package is named by the last element of
// its import path.
func (t goType) spelling() string {
	var b strings.Builder
	b.WriteString(strings.Repeat("[]", t.slices))
	if t.pointer {
		b.WriteByte('*')
	}
	b.WriteString(t.inner)
	if t.pkg != "" {
		if _, alias, ok := strings.Cut(t.pkg, aliasSep); ok {
			b.WriteString(alias)
		} else {
			b.WriteString(packageName(t.pkg))
		}
		b.WriteByte('.')
	}
	b.WriteString(t.name)
	if len(t.args) > 0 {
		b.WriteByte('[')
		for i, a := range t.args {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(a.spelling())
		}
		b.WriteByte(']')
	}
	return b.String()
}

// namerFor is the namer of opts' naming options.
func namerFor(opts config.GoOptions) *namer {
	return newNamer(opts.Initialisms, opts.Rename, opts.EmitExactTableNames, opts.InflectionExcludeTableNames)
}

// newTypeMapper is the type mapper of in with names; pg is whether it
// declares PostgreSQL's types (postgresql_types) or sqlc's.
func newTypeMapper(in Input, names *namer, pg bool) *typeMapper {
	return &typeMapper{cat: in.Catalog, names: names, opts: in.Options, enumsUsed: map[*catalog.Enum]bool{},
		overrides: newOverrides(in.Catalog, in.Options.Overrides, overridePgtypePath(in.Options.SQLPackage)), imports: map[string]string{}, pgTypes: pg}
}

// UnknownTypeGo returns the Go types of a value of type t, which the
// schema names and PostgreSQL does not know, as in's options declare it
// (sqlc's mapping by name, overrides by db_type): the NOT NULL type, then
// the nullable one. A type no mapping knows is interface{} for both.
func UnknownTypeGo(in Input, t catalog.Type) (notNull, nullable string) {
	m := newTypeMapper(in, namerFor(in.Options), in.Options.Types())
	return m.goTypeOf(nil, t, true).String(), m.goTypeOf(nil, t, false).String()
}
