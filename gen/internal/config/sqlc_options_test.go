package config

import (
	"reflect"
	"testing"
)

// TestLoadSqlcOptions loads options sqlc v1.31.1 accepts that fencegen
// once refused or dropped.
func TestLoadSqlcOptions(t *testing.T) {
	cfg := mustParse(t, "\ufeff"+`version: "2"
sql:
  - engine: postgresql
    queries: q.sql
    strict_function_checks: true
    strict_order_by: false
    database: {uri: "postgres://localhost/x"}
    rules: [sqlc/db-prepare]
    gen:
      go:
        out: ../internal/db
        wrap_errors: true
        emit_sql_as_comment: true
        inflection_exclude_table_names: [news]
        overrides:
          - {postgres_type: uuid, go_type: string}
          - {db_type: int4, unsigned: true, go_type: uint32}
          - {column: t.c, go_type: {import: example.com/x, package: y, type: T, slice: true}, go_struct_tag: 'a:"b"'}
        sqlc_untyped_params: true
`)
	p := cfg.Packages[0]
	if len(p.Schema) != 0 || !p.StrictFunctionChecks || p.StrictOrderBy == nil || *p.StrictOrderBy {
		t.Errorf("schema, strict = %v, %v, %v", p.Schema, p.StrictFunctionChecks, p.StrictOrderBy)
	}
	g := p.Go
	if !g.WrapErrors || !g.SqlcUntypedParams || !g.EmitSQLAsComment || !reflect.DeepEqual(g.InflectionExcludeTableNames, []string{"news"}) {
		t.Errorf("Go = %+v", g)
	}
	if g.Out != "../internal/db" || g.Package != "db" {
		t.Errorf("Out, Package = %q, %q", g.Out, g.Package)
	}
	want := []Override{
		{DBType: "uuid", GoType: GoType{Spec: "string"}, Pos: Position{16, 13}},
		{Column: "t.c", GoType: GoType{Import: "example.com/x", Package: "y", Type: "T", Slice: true}, GoStructTag: `a:"b"`, Pos: Position{18, 13}},
	}
	if !reflect.DeepEqual(g.Overrides, want) {
		t.Errorf("overrides:\n%+v\nwant\n%+v", g.Overrides, want)
	}
	// The entry's rules, which fencegen vet does not run (sqlc vet runs
	// sqlc/db-prepare). The database is sqlc's database-backed analysis,
	// which fencegen does as sqlc does: no note, the key kept.
	var at []Position
	for _, n := range cfg.Notes {
		at = append(at, n.Pos)
	}
	if !reflect.DeepEqual(at, []Position{{8, 12}}) || cfg.Notes[0].Msg != "rules are sqlc vet's: fencegen vet does not run them (keep sqlc vet for them)" {
		t.Errorf("notes = %+v, want the rules note at 8:12", cfg.Notes)
	}
	if d := p.Database; d == nil || d.URI != "postgres://localhost/x" || d.Managed || d.Pos != (Position{7, 15}) {
		t.Errorf("Database = %+v, want the uri at 7:15", d)
	}

	// A database the analyzer does not use is no note.
	cfg = mustParse(t, `
version: "1"
packages:
  - {path: db, queries: q.sql, database: {managed: true}, analyzer: {database: false}}
`)
	if len(cfg.Notes) != 0 || cfg.Packages[0].Database != nil {
		t.Errorf("notes = %+v, Database = %+v, want none", cfg.Notes, cfg.Packages[0].Database)
	}
}

func TestLoadCodegenPlugins(t *testing.T) {
	cfg := mustParse(t, `
version: "2"
sql:
  - engine: postgresql
    schema: s.sql
    queries: q.sql
    codegen:
      - plugin: golang
        out: db
        options: {package: db, sql_package: pgx/v5, emit_json_tags: true}
      - {plugin: py, out: py}
plugins:
  - name: golang
    wasm:
      url: https://downloads.sqlc.dev/plugin/sqlc-gen-go_1.3.0.wasm
      sha256: abc
  - name: py
    process: {cmd: sqlc-gen-python}
`)
	if len(cfg.Packages) != 1 {
		t.Fatalf("packages = %+v", cfg.Packages)
	}
	p := cfg.Packages[0]
	if p.Go.Out != "db" || p.Go.Package != "db" || !p.Go.EmitJSONTags || p.Go.SQLPackage != "pgx/v5" ||
		!reflect.DeepEqual(p.Schema, []string{"s.sql"}) || p.Pos != (Position{7, 9}) {
		t.Errorf("package = %+v", p)
	}
	if len(cfg.Notes) != 1 || cfg.Notes[0].Pos != (Position{10, 18}) {
		t.Errorf("notes = %+v, want one at 10:18", cfg.Notes)
	}

	_, err := parse(t, `
version: "2"
sql:
  - {engine: postgresql, schema: s.sql, queries: q.sql, codegen: [{plugin: py, out: py}, {plugin: nope, out: x}]}
plugins: [{name: py, process: {cmd: sqlc-gen-python}}]
`)
	want := `dir/fencegen.yaml:3:76: codegen plugin "py" not supported: fencegen runs no plugins; it generates Go from gen.go (or from the sqlc-gen-go plugin's options)
dir/fencegen.yaml:3:99: codegen: plugin "nope" is not defined in plugins`
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}
