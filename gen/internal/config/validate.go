package config

import (
	"go/token"
	"path"
	"path/filepath"
	"strings"
)

// otherEngines are sqlc's other engines: their entries are left to sqlc.
var otherEngines = map[string]bool{"sqlite": true}

// add validates an entry that generates Go and appends it to the
// configuration's packages, or to Skipped when it is for another engine
// sqlc supports.
func (l *loader) add(cfg *Config, e *entry) {
	if otherEngines[e.pkg.Engine] {
		if len(e.pkg.Fence) > 0 {
			l.errorf(or(e.engine, e.pos), "engine %q: fence needs a %s or %s entry (fencegen generates code for %s and %s only)", e.pkg.Engine, EnginePostgreSQL, EngineMySQL, EnginePostgreSQL, EngineMySQL)
		}
		p := posOf(or(e.engine, e.pos))
		cfg.Skipped = append(cfg.Skipped, Skipped{Name: e.pkg.Name, Engine: e.pkg.Engine, Out: e.pkg.Go.Out, Pos: p})
		return
	}
	l.validate(e)
	e.pkg.Go.Engine = e.pkg.Engine
	// Each engine's typing option is its own: a vet note on a MySQL entry
	// names mysql_types, and postgresql_types there would change nothing.
	if e.pkg.Engine == EngineMySQL && e.pgTypes != nil {
		l.errorf(e.pgTypes, "postgresql_types applies to engine %q entries; this entry's engine is %q: use mysql_types", EnginePostgreSQL, EngineMySQL)
	}
	if e.pkg.Engine != EngineMySQL && e.myTypes != nil {
		l.errorf(e.myTypes, "mysql_types applies to engine %q entries; this entry's engine is %q: use postgresql_types", EngineMySQL, e.pkg.Engine)
	}
	if e.database != nil && (e.analyzerDB == nil || *e.analyzerDB) && e.pkg.Engine != EngineMySQL {
		// sqlc analyses the queries with the database (its PostgreSQL
		// analyzer): fencegen numbers and types them as sqlc does there
		// (docs/sqlc.md, "database:").
		e.pkg.Database = &Database{URI: e.dbURI, Managed: e.dbManaged, Pos: posOf(e.database)}
	} else if e.database != nil && (e.analyzerDB == nil || *e.analyzerDB) {
		l.notef(e.database, "database is not used: fencegen analyses the queries against the schema files, as sqlc does without a database")
	}
	e.pkg.Doubtful = l.serious() > e.errsBefore || e.pkg.Engine != EnginePostgreSQL && e.pkg.Engine != EngineMySQL
	cfg.Packages = append(cfg.Packages, e.pkg)
}

// sqlDrivers are the sql_driver values sqlc accepts.
var sqlDrivers = map[string]bool{
	"github.com/jackc/pgx/v4": true, "github.com/jackc/pgx/v5": true,
	"github.com/lib/pq": true, "github.com/go-sql-driver/mysql": true,
}

// validate checks an entry that generates Go.
func (l *loader) validate(e *entry) {
	p := &e.pkg
	if p.Engine != "" && p.Engine != EnginePostgreSQL && p.Engine != EngineMySQL {
		l.errorf(or(e.engine, e.pos), "engine %q not supported: fencegen generates code for %s and %s only", p.Engine, EnginePostgreSQL, EngineMySQL)
	}
	// No schema is not an error: sqlc then compiles the queries against
	// its built-in catalog alone (pg_catalog, information_schema).
	if len(p.Queries) == 0 && !e.badQueries {
		l.errorf(e.pos, `missing key "queries"`)
	}
	switch p.Go.SQLPackage {
	case "":
		// sqlc's default (its golang codegen's parseDriver).
		p.Go.SQLPackage = SQLPackageStdlib
	case SQLPackagePgxV5, SQLPackageStdlib, SQLPackagePgxV4:
	default:
		// sqlc's message (its golang codegen's opts.validatePackage).
		l.errorf(e.sqlPackage, "unknown SQL package: %s (sql_package is %s, %s or %s)", p.Go.SQLPackage, SQLPackagePgxV5, SQLPackagePgxV4, SQLPackageStdlib)
	}
	if d := p.Go.SQLDriver; d != "" && !sqlDrivers[d] {
		// sqlc's message (its golang codegen's opts.validateDriver).
		l.errorf(e.sqlDriver, "invalid options: unknown SQL driver: %s", d)
	}
	if e.goPackage != nil && p.Go.Package != "" && !token.IsIdentifier(p.Go.Package) {
		l.errorf(e.goPackage, "package name %q is not a Go identifier", p.Go.Package)
	}
	if q := p.Go.QueryParameterLimit; q != nil && *q < 0 {
		l.errorf(e.paramLimit, "query_parameter_limit must not be negative")
	}
	// sqlc writes a file only inside out (its generate's "invalid file
	// output path", also for any ".." left after cleaning).
	for _, f := range []struct{ key, name string }{
		{"output_db_file_name", p.Go.OutputDBFileName},
		{"output_models_file_name", p.Go.OutputModelsFileName},
		{"output_querier_file_name", p.Go.OutputQuerierFileName},
		{"output_copyfrom_file_name", p.Go.OutputCopyfromFileName},
		{"output_batch_file_name", p.Go.OutputBatchFileName},
	} {
		if f.name == "" {
			continue
		}
		if c := path.Clean(path.Join("out", filepath.ToSlash(f.name))); !strings.HasPrefix(c, "out/") || strings.Contains(c, "..") {
			l.errorf(or(e.goNode, e.pos), "%s %q: the file must be inside out (sqlc: invalid file output path)", f.key, f.name)
		}
	}
	if p.Go.EmitMethodsWithDBArgument && p.Go.EmitPreparedQueries {
		l.errorf(or(e.goNode, e.pos), "emit_methods_with_db_argument and emit_prepared_queries are mutually exclusive")
	}
}
