package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func parse(t *testing.T, src string) (*Config, error) {
	t.Helper()
	return Parse("dir/fencegen.yaml", []byte(strings.TrimLeft(src, "\n")))
}

func mustParse(t *testing.T, src string) *Config {
	t.Helper()
	cfg, err := parse(t, src)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return cfg
}

func TestLoadFencegenYAML(t *testing.T) {
	cfg := mustParse(t, `
version: "2"
sql:
  - engine: postgresql
    schema: schema.sql
    queries: [queries/a.sql, queries/b.sql]
    gen:
      go: {package: accounts, out: ., query_parameter_limit: 2}
    fence:
      tables:
        - {table: account_balances, column: last_fencing_token, mode: strict}
        - table: public.leases
          column: token
`)
	if cfg.Path != "dir/fencegen.yaml" || cfg.Dir != "dir" || cfg.Version != "2" {
		t.Errorf("Path, Dir, Version = %q, %q, %q", cfg.Path, cfg.Dir, cfg.Version)
	}
	if len(cfg.Packages) != 1 {
		t.Fatalf("got %d packages, want 1", len(cfg.Packages))
	}
	p := cfg.Packages[0]
	if p.Engine != "postgresql" || !reflect.DeepEqual(p.Schema, []string{"schema.sql"}) ||
		!reflect.DeepEqual(p.Queries, []string{"queries/a.sql", "queries/b.sql"}) {
		t.Errorf("entry = %+v", p)
	}
	if p.Pos != (Position{Line: 3, Col: 5}) {
		t.Errorf("Pos = %+v, want 3:5", p.Pos)
	}
	// No sql_package is database/sql, as in sqlc.
	if p.Go.Package != "accounts" || p.Go.Out != "." || p.Go.SQLPackage != "database/sql" {
		t.Errorf("Go = %+v", p.Go)
	}
	if p.Go.QueryParameterLimit == nil || *p.Go.QueryParameterLimit != 2 {
		t.Errorf("QueryParameterLimit = %v, want 2", p.Go.QueryParameterLimit)
	}
	want := []FenceTable{
		{Table: "account_balances", Column: "last_fencing_token", Mode: "strict", Pos: Position{10, 11},
			TableName: "account_balances", ColumnName: "last_fencing_token", TablePos: Position{10, 19}, ColumnPos: Position{10, 45}},
		{Table: "public.leases", Column: "token", Pos: Position{11, 11},
			TableSchema: "public", TableName: "leases", ColumnName: "token", TablePos: Position{11, 18}, ColumnPos: Position{12, 19}},
	}
	if !reflect.DeepEqual(p.Fence, want) {
		t.Errorf("Fence = %+v\nwant %+v", p.Fence, want)
	}
}

func TestLoadJSONVersion1(t *testing.T) {
	cfg := mustParse(t, `
{
  "version": "1",
  "packages": [
    {
      "path": "db",
      "schema": ["schema.sql"],
      "queries": "query.sql",
      "sql_package": "pgx/v5",
      "emit_json_tags": true,
      "overrides": [{"column": "t.id", "go_type": {"import": "github.com/google/uuid", "type": "UUID", "pointer": true}}]
    },
    {"name": "other", "path": "x/y", "engine": "postgresql", "schema": "s.sql", "queries": "q.sql"},
    {"name": "v4", "path": "v4", "schema": "s.sql", "queries": "q.sql", "sql_package": "pgx/v4"}
  ],
  "overrides": [{"db_type": "uuid", "go_type": "github.com/google/uuid.UUID"}],
  "rename": {"ids": "IDs"}
}`)
	if len(cfg.Packages) != 3 {
		t.Fatalf("got %d packages, want 3", len(cfg.Packages))
	}
	p := cfg.Packages[0]
	if p.Engine != "postgresql" || p.Go.Package != "db" || p.Go.Out != "db" || !p.Go.EmitJSONTags {
		t.Errorf("package 0 = %+v", p)
	}
	if len(p.Go.Overrides) != 2 || p.Go.Overrides[0].DBType != "uuid" ||
		p.Go.Overrides[0].GoType.Spec != "github.com/google/uuid.UUID" ||
		p.Go.Overrides[1].Column != "t.id" || !p.Go.Overrides[1].GoType.Pointer ||
		p.Go.Overrides[1].GoType.Import != "github.com/google/uuid" {
		t.Errorf("overrides = %+v", p.Go.Overrides)
	}
	if p.Go.Rename["ids"] != "IDs" {
		t.Errorf("rename = %v", p.Go.Rename)
	}
	if q := cfg.Packages[1]; q.Name != "other" || q.Go.Package != "other" || q.Go.Out != "x/y" || q.Go.SQLPackage != "database/sql" {
		t.Errorf("package 1 = %+v", q)
	}
	if q := cfg.Packages[2]; q.Go.SQLPackage != SQLPackagePgxV4 {
		t.Errorf("package 2: sql_package %q, want pgx/v4", q.Go.SQLPackage)
	}
}

func TestLoadGlobalOverrides(t *testing.T) {
	cfg := mustParse(t, `
version: "2"
overrides:
  go:
    rename: {id: Identifier, url: URL}
    overrides:
      - {db_type: uuid, go_type: string}
      - {db_type: text, go_type: string, engine: mysql}
  kotlin: {anything: goes}
sql:
  - engine: postgresql
    schema: s.sql
    queries: q.sql
    gen:
      go:
        out: internal/db
        rename: {id: ID, ttl: TTL}
        overrides: [{column: a.b, go_type: int}]
`)
	g := cfg.Packages[0].Go
	if g.Package != "db" {
		t.Errorf("Package = %q, want default db", g.Package)
	}
	var got []string
	for _, o := range g.Overrides {
		got = append(got, o.DBType+o.Column+"="+o.GoType.Spec)
	}
	if want := []string{"uuid=string", "a.b=int"}; !reflect.DeepEqual(got, want) {
		t.Errorf("overrides = %q, want %q (global first, other engines dropped)", got, want)
	}
	if want := map[string]string{"id": "Identifier", "url": "URL", "ttl": "TTL"}; !reflect.DeepEqual(g.Rename, want) {
		t.Errorf("rename = %v, want %v", g.Rename, want)
	}
}

func TestLoadSkipsOtherGenerators(t *testing.T) {
	cfg := mustParse(t, `
version: "2"
plugins:
  - name: py
    wasm: {url: https://example.com/p.wasm, sha256: abc}
sql:
  - engine: mysql
    schema: s.sql
    queries: q.sql
    codegen: [{plugin: py, out: py}]
  - engine: postgresql
    schema: s.sql
    queries: q.sql
    gen:
      json: {out: json}
  - engine: postgresql
    schema: s.sql
    queries: q.sql
    database: {uri: postgres://x}
    analyzer: {database: false}
    rules: [sqlc/db-prepare]
    strict_function_checks: true
    gen:
      json: {out: json, filename: req.json}
      go: {out: db, emit_prepared_queries: false}
`)
	if len(cfg.Packages) != 1 || cfg.Packages[0].Go.Out != "db" {
		t.Errorf("packages = %+v, want only the gen.go entry", cfg.Packages)
	}
	// sqlc writes gen.json's file for each entry; fencegen says it does
	// not, at each gen.json, with the file sqlc would write.
	var got []string
	for _, n := range cfg.Notes {
		if strings.HasPrefix(n.Msg, "gen.json") {
			got = append(got, fmt.Sprintf("%d:%d: %s", n.Pos.Line, n.Pos.Col, n.Msg))
		}
	}
	want := []string{
		"14:13: gen.json: fencegen does not write json/codegen_request.json (sqlc's codegen request as JSON); keep sqlc generate for it",
		"23:13: gen.json: fencegen does not write json/req.json (sqlc's codegen request as JSON); keep sqlc generate for it",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("gen.json notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLoadRefusesOtherGenKeys: sqlc v1.31.1's gen has go and json only
// ("field kotlin not found in type config.SQLGen", exit 1), so another
// key is an error here too rather than an entry generated by nothing.
func TestLoadRefusesOtherGenKeys(t *testing.T) {
	_, err := parse(t, `
version: "2"
sql:
  - engine: postgresql
    schema: s.sql
    queries: q.sql
    gen:
      kotlin: {out: kt}
      go: {out: db}
`)
	if err == nil || err.Error() != `dir/fencegen.yaml:7:7: unknown key "kotlin"` {
		t.Errorf("err = %v, want the unknown key kotlin at 7:7", err)
	}
}

func TestLoadAnchors(t *testing.T) {
	cfg := mustParse(t, `
version: "2"
sql:
  - &common
    engine: postgresql
    schema: s.sql
    queries: &q [a.sql, b.sql]
    gen: {go: {out: a}}
  - <<: *common
    schema: other.sql
    queries: *q
    gen: {go: {out: b}}
`)
	if len(cfg.Packages) != 2 {
		t.Fatalf("got %d packages, want 2", len(cfg.Packages))
	}
	a, b := cfg.Packages[0], cfg.Packages[1]
	if b.Engine != "postgresql" || !reflect.DeepEqual(b.Schema, []string{"other.sql"}) ||
		!reflect.DeepEqual(b.Queries, a.Queries) || b.Go.Out != "b" || b.Go.EmitJSONTags {
		t.Errorf("merged entry = %+v", b)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"unknown keys", `
version: "2"
foo: 1
sql:
  - engine: postgresql
    schema: s.sql
    queries: q.sql
    fence: {tables: [{table: t, column: c, mood: strict}]}
    gen:
      go:
        out: db
        sql_pakage: pgx/v5
`, `dir/fencegen.yaml:2:1: unknown key "foo"
dir/fencegen.yaml:7:44: unknown key "mood" (did you mean "mode"?)
dir/fencegen.yaml:11:9: unknown key "sql_pakage" (did you mean "sql_package"?)`},
		{"fence under gen.go", `
version: "2"
sql:
  - engine: postgresql
    schema: s.sql
    queries: q.sql
    gen:
      go: {out: db, fence: {tables: [{table: t, column: c}]}}
`, `dir/fencegen.yaml:7:21: unknown key "fence" here: a fence key goes in an sql entry (beside schema and queries) or at the top level of the file, for every entry`},
		{"fence key twice for a table", `
version: "2"
sql:
  - {engine: postgresql, schema: s.sql, queries: q.sql, gen: {go: {out: a}}, fence: {tables: [{table: t, column: c}]}}
  - {engine: postgresql, schema: s.sql, queries: q.sql, gen: {go: {out: b}}, fence: {tables: [{table: public.t, column: d}]}}
`, `dir/fencegen.yaml:4:95: table "public.t" is fenced by column "d" here but by column "c" at line 3, in sql entry a: a database has one guard per table, so every sql entry must fence it alike`},
		{"unknown sql_package", `
version: "2"
sql:
  - {engine: postgresql, schema: s.sql, queries: q.sql, gen: {go: {out: db, sql_package: database/sq}}}
`, `dir/fencegen.yaml:3:90: unknown SQL package: database/sq (sql_package is pgx/v5, pgx/v4 or database/sql)`},
		{"unknown sql_driver", `
version: "2"
sql:
  - {engine: postgresql, schema: s.sql, queries: q.sql, gen: {go: {out: db, sql_driver: github.com/unknown/driver}}}
`, `dir/fencegen.yaml:3:89: invalid options: unknown SQL driver: github.com/unknown/driver`},
		{"engine", `
version: "2"
sql:
  - engine: sqlite
    schema: s.sql
    queries: q.sql
    gen: {go: {out: db}}
`, `dir/fencegen.yaml:3:13: engine "sqlite" not supported: fencegen generates code for postgresql and mysql only`},
		{"missing keys", `
version: "2"
sql:
  - gen: {go: {package: x}}
`, `dir/fencegen.yaml:3:5: missing key "engine": want "postgresql"
dir/fencegen.yaml:3:5: missing key "queries"
dir/fencegen.yaml:3:15: gen.go: missing key "out"`},
		{"fence", `
version: "2"
sql:
  - engine: postgresql
    schema: s.sql
    queries: q.sql
    gen: {go: {out: db}}
    fence:
      tables:
        - {table: t, column: c, mode: loose}
        - {column: c}
        - {table: u, column: c}
        - {table: U, column: d}
        - {table: '"V', column: c}
        - {table: a.b.c, column: c}
        - {table: v, column: t.c}
`, `dir/fencegen.yaml:9:39: fence mode "loose": want "strict", "non-strict" or "required"
dir/fencegen.yaml:10:11: fence table: missing key "table"
dir/fencegen.yaml:12:11: table "U" is fenced twice (also at line 11)
dir/fencegen.yaml:13:19: fence table: unterminated quoted identifier in "\"V"
dir/fencegen.yaml:14:19: fence table "a.b.c": want table or schema.table
dir/fencegen.yaml:15:30: fence column "t.c": want a column name (the table goes in table)`},
		{"types", `
version: "2"
sql:
  - engine: postgresql
    schema: {a: b}
    queries: q.sql
    gen:
      go:
        out: db
        package: my-pkg
        emit_interface: "yes"
        query_parameter_limit: -1
        overrides:
          - {db_type: uuid, column: t.c, go_type: string}
          - {go_type: {import: x}}
`, `dir/fencegen.yaml:4:13: schema: want a string, found a mapping
dir/fencegen.yaml:9:18: package name "my-pkg" is not a Go identifier
dir/fencegen.yaml:10:25: emit_interface: want true or false, found a string
dir/fencegen.yaml:11:32: query_parameter_limit must not be negative
dir/fencegen.yaml:13:13: override: set only one of "db_type" and "column"
dir/fencegen.yaml:14:13: override: missing key "db_type" or "column"
dir/fencegen.yaml:14:23: go_type: missing key "type"`},
		// A misspelled key is read as its suggestion: the "missing key"
		// that would follow is not reported before its cause (trial tnew
		// F2), and a wrong value under it is still found.
		{"misspelled keys", `
version: "2"
sql:
  - engine: postgresql
    schema: s.sql
    queries: q.sql
    gen:
      go:
        out: db
        overrides:
          - {db_typ: uuid, go_type: string}
fence:
  tables:
    - {table: t, colum: tok, mode: stirct}
`, `dir/fencegen.yaml:10:14: unknown key "db_typ" (did you mean "db_type"?)
dir/fencegen.yaml:13:18: unknown key "colum" (did you mean "column"?)
dir/fencegen.yaml:13:36: fence mode "stirct": want "strict", "non-strict" or "required"`},
		{"no version", "sql: []\n", `dir/fencegen.yaml:1:1: missing key "version": want "1" or "2"`},
		{"bad version", "version: \"3\"\n", `dir/fencegen.yaml:1:10: version "3" not supported: want "1" or "2"`},
		{"nothing to generate", "version: \"2\"\nsql: []\n", `dir/fencegen.yaml:1:1: no sql entry has gen.go: nothing to generate`},
		{"empty", "# nothing\n", `dir/fencegen.yaml:1:1: empty configuration file`},
		{"empty file", "", `dir/fencegen.yaml:1:1: empty configuration file`},
		{"duplicate key", "version: \"2\"\nversion: \"2\"\n", ""},
		{"syntax", "version: \"2\"\nsql:\n  - engine: [postgresql\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, tt.src)
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			if tt.want == "" {
				if !strings.HasPrefix(err.Error(), "dir/fencegen.yaml:") {
					t.Errorf("error %q is not located", err)
				}
				return
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Load error = %v, want fs.ErrNotExist", err)
	}
	if !strings.Contains(err.Error(), "nope.yaml: cannot read configuration file: ") {
		t.Errorf("error = %q", err)
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	if _, err := Find(dir); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Find in empty dir: %v, want ErrNotFound", err)
	}
	for _, name := range []string{"sqlc.json", "sqlc.yml", "sqlc.yaml", "fencegen.yml", "fencegen.yaml"} {
		if name == "sqlc.yml" {
			// sqlc.yaml or sqlc.yml beside sqlc.json: sqlc refuses both.
			if err := os.Remove(filepath.Join(dir, "sqlc.json")); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Find(dir)
		if err != nil || got != filepath.Join(dir, name) {
			t.Errorf("Find = %q, %v; want %s", got, err, name)
		}
	}
}

// TestFindRefusesSqlcJSONBesideYAML: with sqlc.json beside sqlc.yaml or
// sqlc.yml, and no fencegen configuration, sqlc exits 1 with "both
// sqlc.json and sqlc.(yaml|yml) files present" rather than choose, and
// Find refuses too (issue 23); a fencegen.yaml, which sqlc never reads,
// is still found first.
func TestFindRefusesSqlcJSONBesideYAML(t *testing.T) {
	for _, names := range [][]string{
		{"sqlc.json", "sqlc.yaml"},
		{"sqlc.json", "sqlc.yml"},
		{"sqlc.json", "sqlc.yaml", "sqlc.yml"},
	} {
		dir := t.TempDir()
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := Find(dir)
		if !errors.Is(err, ErrBothConfigs) || !strings.Contains(err.Error(), "both sqlc.json and sqlc.(yaml|yml) files present") {
			t.Errorf("%v: Find = %q, %v; want ErrBothConfigs", names, got, err)
		}
		if err := os.WriteFile(filepath.Join(dir, "fencegen.yaml"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := Find(dir); err != nil || got != filepath.Join(dir, "fencegen.yaml") {
			t.Errorf("%v + fencegen.yaml: Find = %q, %v", names, got, err)
		}
	}
	// sqlc.yaml beside sqlc.yml without sqlc.json: sqlc reads sqlc.yaml.
	dir := t.TempDir()
	for _, n := range []string{"sqlc.yaml", "sqlc.yml"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := Find(dir); err != nil || got != filepath.Join(dir, "sqlc.yaml") {
		t.Errorf("sqlc.yaml + sqlc.yml: Find = %q, %v", got, err)
	}
}

// corpusRefusals are the refusals a corpus configuration may meet: engine
// mysql or sqlite, which fencegen does not generate (a configuration with
// a PostgreSQL entry beside them loads, and skips them; one with none is
// refused, as corpus/sqlc-mysql's are); the others are sqlc cases that
// must fail (a negative query_parameter_limit, an unknown sql_driver).
var corpusRefusals = []string{
	`not supported: fencegen generates code for postgresql and mysql only`,
	`invalid options: unknown SQL driver`,
	`query_parameter_limit must not be negative`,
}

// corpusConfigs returns every configuration file in the shared corpus,
// relative to root, or nil when the corpus is absent.
func corpusConfigs(t testing.TB) (root string, rels []string) {
	root = filepath.Join("..", "..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(root); err != nil {
		return root, nil
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch d.Name() {
		case "fencegen.yaml", "fencegen.yml", "sqlc.yaml", "sqlc.yml", "sqlc.json":
			rel, _ := filepath.Rel(root, p)
			rels = append(rels, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return root, rels
}

// TestLoadCorpus loads every configuration in the shared corpus of real
// sqlc configurations, when it is present: each loads, or is refused for
// one of corpusRefusals only.
func TestLoadCorpus(t *testing.T) {
	root, rels := corpusConfigs(t)
	if rels == nil {
		t.Skipf("no corpus at %s", root)
	}
	refused := 0
	for _, rel := range rels {
		_, err := Load(filepath.Join(root, rel))
		if err == nil {
			continue
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			ok := false
			for _, r := range corpusRefusals {
				ok = ok || strings.Contains(line, r)
			}
			if !ok {
				t.Errorf("%s: %s", filepath.ToSlash(rel), line)
			}
		}
		refused++
	}
	t.Logf("loaded %d configurations, %d refused for their sql_package or engine", len(rels)-refused, refused)
}

// FuzzParse checks that Parse never panics and that every error it
// returns is located in the file. Seeds: the tests' configurations and
// every configuration of the shared corpus, when present.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"version: \"2\"\nsql:\n  - {engine: postgresql, schema: s.sql, queries: q.sql, gen: {go: {out: db}}}\n",
		"version: \"1\"\npackages: [{path: db, queries: q.sql}]\noverrides: [{db_type: uuid, go_type: {import: x/y, type: T, pointer: true}}]\n",
		"\ufeffversion: '2'\nplugins: [{name: go, wasm: {url: sqlc-gen-go.wasm}}]\nsql: [{engine: postgresql, queries: q.sql, codegen: [{plugin: go, out: db}]}]\n",
		"x: &a {b: *a}\n",
		"",
	} {
		f.Add([]byte(s))
	}
	root, rels := corpusConfigs(f)
	for _, rel := range rels {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		_, err := Parse("c/sqlc.yaml", src)
		if err == nil {
			return
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			if !strings.HasPrefix(line, "c/sqlc.yaml:") {
				t.Errorf("error not located: %q", line)
			}
		}
	})
}

func TestLoadSkipsOtherEngines(t *testing.T) {
	cfg := mustParse(t, `
version: "2"
sql:
  - name: pg
    engine: postgresql
    schema: s.sql
    queries: q.sql
    gen: {go: {package: authors, out: postgresql, sql_package: pgx/v5}}
  - name: my
    engine: mysql
    schema: s.sql
    queries: q.sql
    gen: {go: {package: authors, out: mysql, sql_package: database/sql}}
  - name: lite
    engine: sqlite
    schema: s.sql
    queries: q.sql
    gen: {go: {package: authors, out: sqlite}}
`)
	if len(cfg.Packages) != 2 || cfg.Packages[0].Name != "pg" || cfg.Packages[1].Name != "my" || cfg.Packages[1].Go.Engine != EngineMySQL {
		t.Errorf("packages = %+v, want pg and my (engine mysql)", cfg.Packages)
	}
	want := []Skipped{
		{Name: "lite", Engine: "sqlite", Out: "sqlite", Pos: Position{Line: 14, Col: 13}},
	}
	if !reflect.DeepEqual(cfg.Skipped, want) {
		t.Errorf("skipped = %+v, want %+v", cfg.Skipped, want)
	}

	// A fence on another engine's entry is an error, as is a misspelt
	// engine next to a good entry.
	_, err := parse(t, `
version: "2"
sql:
  - engine: postgresql
    schema: s.sql
    queries: q.sql
    gen: {go: {out: db}}
  - engine: sqlite
    schema: s.sql
    queries: q.sql
    gen: {go: {out: my}}
    fence: {tables: [{table: t, column: c}]}
  - engine: postgres
    schema: s.sql
    queries: q.sql
    gen: {go: {out: pg}}
`)
	wantErr := `dir/fencegen.yaml:7:13: engine "sqlite": fence needs a postgresql or mysql entry (fencegen generates code for postgresql and mysql only)
dir/fencegen.yaml:12:13: engine "postgres" not supported: fencegen generates code for postgresql and mysql only`
	if err == nil || err.Error() != wantErr {
		t.Errorf("error:\n%v\nwant:\n%s", err, wantErr)
	}
}

func TestLoadOverrideNullSynonym(t *testing.T) {
	cfg := mustParse(t, `
version: "1"
packages:
  - {path: db, schema: s.sql, queries: q.sql}
overrides:
  - {db_type: text, go_type: string, "null": true}
  - {db_type: jsonb, go_type: string, nullable: true}
  - {db_type: uuid, go_type: string}
`)
	var got []bool
	for _, o := range cfg.Packages[0].Go.Overrides {
		got = append(got, o.Nullable)
	}
	if want := []bool{true, true, false}; !reflect.DeepEqual(got, want) {
		t.Errorf("nullable = %v, want %v", got, want)
	}
}

// TestLoadFenceEveryEntry: a top-level fence key (version 1 or 2) and an
// entry's fence key both fence their tables in every entry, the copies
// marked AnyEntry (no error where a schema lacks the table) and, for an
// entry's, From naming it; an empty fence key is a note.
func TestLoadFenceEveryEntry(t *testing.T) {
	cfg := mustParse(t, `
version: "1"
fence:
  tables: [{table: app.jobs, column: tok}]
packages:
  - {path: a, schema: s.sql, queries: q.sql, fence: {tables: [{table: inventory, column: lease_token, mode: strict}]}}
  - {path: b, schema: s.sql, queries: q.sql}
  - {path: c, schema: s.sql, queries: q.sql, fence: {tables: []}}
`)
	type mark struct {
		Table, Mode, From string
		AnyEntry          bool
	}
	var got [][]mark
	for _, p := range cfg.Packages {
		var ms []mark
		for _, ft := range p.Fence {
			ms = append(ms, mark{ft.Table, ft.Mode, ft.From, ft.AnyEntry})
		}
		got = append(got, ms)
	}
	want := [][]mark{
		{{"inventory", "strict", "", false}, {"app.jobs", "", "", true}},
		{{"inventory", "strict", "sql entry a", true}, {"app.jobs", "", "", true}},
		{{"inventory", "strict", "sql entry a", true}, {"app.jobs", "", "", true}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fence tables:\n got %v\nwant %v", got, want)
	}
	if len(cfg.Notes) != 1 || !strings.Contains(cfg.Notes[0].Msg, "no tables are listed") || cfg.Notes[0].Pos.Line != 7 {
		t.Errorf("notes = %+v, want one at line 7 saying the fence key lists no tables", cfg.Notes)
	}
}
