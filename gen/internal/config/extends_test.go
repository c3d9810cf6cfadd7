package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExtends loads a fencegen.yaml that extends an sqlc configuration in
// another directory: the entries, paths and notes are the sqlc file's,
// with the fence tables added to every entry and located in fencegen.yaml.
func TestExtends(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sqlc := write("db/sqlc.yaml", "version: \"2\"\nsql:\n"+
		"  - {engine: postgresql, database: {uri: x}, rules: [sqlc/db-prepare], schema: s.sql, queries: q.sql, gen: {go: {package: a, out: a}}}\n"+
		"  - {engine: postgresql, schema: s.sql, queries: r.sql, gen: {go: {package: b, out: b}}}\n")
	fg := write("fencegen.yaml", "version: \"2\"\nextends: db/sqlc.yaml\nfence:\n  tables:\n    - {table: jobs, column: tok, mode: strict}\n")
	cfg, err := Load(fg)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Path != sqlc || cfg.Dir != filepath.Dir(sqlc) || cfg.Extension != fg {
		t.Errorf("Path %s, Dir %s, Extension %s; want the sqlc file's, extended by %s", cfg.Path, cfg.Dir, cfg.Extension, fg)
	}
	if len(cfg.Packages) != 2 {
		t.Fatalf("%d packages, want 2", len(cfg.Packages))
	}
	for _, p := range cfg.Packages {
		want := FenceTable{Table: "jobs", Column: "tok", Mode: ModeStrict, Pos: Position{5, 7}, File: fg, AnyEntry: true,
			TableName: "jobs", ColumnName: "tok", TablePos: Position{5, 15}, ColumnPos: Position{5, 29}}
		if len(p.Fence) != 1 || p.Fence[0] != want {
			t.Errorf("entry %s: Fence = %+v, want [%+v]", p.Go.Out, p.Fence, want)
		}
	}
	if len(cfg.Notes) != 1 || cfg.Notes[0].Pos.Line != 3 {
		t.Errorf("Notes = %+v, want sqlc.yaml's rules note at line 3", cfg.Notes)
	}
	if d := cfg.Packages[0].Database; d == nil || d.URI != "x" || cfg.Packages[1].Database != nil {
		t.Errorf("Database = %+v, %+v; want the first entry's uri x", d, cfg.Packages[1].Database)
	}

	for _, tt := range []struct{ src, want string }{
		{"extends: db/sqlc.yaml\n", "fencegen.yaml:1:1: fence: a configuration with extends adds fenced tables"},
		{"extends: db/sqlc.yaml\nversion: \"1\"\nfence: {tables: [{table: jobs, column: tok}]}\n", `fencegen.yaml:2:10: version "1" not supported`},
		{"extends: db/sqlc.yaml\nsql: []\nfence: {tables: [{table: jobs, column: tok}]}\n", `fencegen.yaml:2:1: unknown key "sql"`},
		{"extends: fencegen.yaml\nfence: {tables: [{table: jobs, column: tok}]}\n", "fencegen.yaml:1:10: extends: fencegen.yaml is this file"},
		{"extends: other.yaml\nfence: {tables: [{table: jobs, column: tok}]}\n", "fencegen.yaml:1:10: extends other.yaml, which extends"},
		// A missing file at its value, with the closest file (trial tnew
		// F11); a misspelled extends key is named, not taken for a file
		// without version.
		{"extends: db/nope.yaml\nfence: {tables: [{table: jobs, column: tok}]}\n", "fencegen.yaml:1:10: extends: db/nope.yaml does not exist"},
		{"extends: db/sqlc.yml\nfence: {tables: [{table: jobs, column: tok}]}\n", "fencegen.yaml:1:10: extends: db/sqlc.yml does not exist (did you mean db/sqlc.yaml?)"},
		{"extend: db/sqlc.yaml\nfence: {tables: [{table: jobs, column: tok}]}\n", `fencegen.yaml:1:1: unknown key "extend" (did you mean "extends"?)`},
		{"version: \"2\"\nextend: db/sqlc.yaml\nfence: {tables: [{table: jobs, column: tok}]}\n", `fencegen.yaml:2:1: unknown key "extend" (did you mean "extends"?)`},
	} {
		write("other.yaml", "extends: db/sqlc.yaml\nfence: {tables: [{table: jobs, column: tok}]}\n")
		_, err := Parse(filepath.Join(dir, "fencegen.yaml"), []byte(tt.src))
		if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""), tt.want) {
			t.Errorf("Parse(%q) = %v, want %q", tt.src, err, tt.want)
		}
	}
}

// TestExtendsSchema (trial t27g): an extending configuration's schema
// key lists files only fencegen reads, relative to its own directory and
// located in it, and adds them to every engine mysql entry (none to a
// PostgreSQL entry, whose stored programs sqlc parses); it may stand
// without fence, and with no MySQL entry it is an error at the key.
func TestExtendsSchema(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("db/sqlc.yaml", "version: \"2\"\nsql:\n"+
		"  - {engine: mysql, schema: s.sql, queries: q.sql, gen: {go: {package: a, out: a}}}\n"+
		"  - {engine: postgresql, schema: p.sql, queries: r.sql, gen: {go: {package: b, out: b}}}\n"+
		"  - {engine: mysql, schema: t.sql, queries: q.sql, gen: {go: {package: c, out: c}}}\n")
	fg := write("fencegen.yaml", "extends: db/sqlc.yaml\nschema: [triggers/a.sql, \"triggers/*.sql\"]\n")
	cfg, err := Load(fg)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range cfg.Packages {
		want := "[triggers/a.sql triggers/*.sql] [{2 10} {2 26}]"
		if p.Engine == EnginePostgreSQL {
			want = "[] []"
		}
		if got := fmt.Sprint(p.FencegenSchema, " ", p.FencegenSchemaPos); got != want {
			t.Errorf("entry %d (%s): FencegenSchema, Pos = %s, want %s", i, p.Engine, got, want)
		}
	}
	write("pg/sqlc.yaml", "version: \"2\"\nsql:\n  - {engine: postgresql, schema: p.sql, queries: r.sql, gen: {go: {package: b, out: b}}}\n")
	_, err = Parse(filepath.Join(dir, "fencegen.yaml"), []byte("extends: pg/sqlc.yaml\nschema: triggers.sql\n"))
	if want := `fencegen.yaml:2:9: schema adds files to engine "mysql" entries`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("schema over a PostgreSQL configuration: %v, want %q", err, want)
	}
}
