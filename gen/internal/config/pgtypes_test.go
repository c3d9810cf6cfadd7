package config

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPostgreSQLTypesDefault: postgresql_types is off for a file sqlc
// reads (and a fencegen.yaml that extends one), on for fencegen's own
// file, and what the file says when it sets it.
func TestPostgreSQLTypesDefault(t *testing.T) {
	entry := func(opt string) string {
		return "version: \"2\"\nsql:\n  - {engine: postgresql, schema: s.sql, queries: q.sql, gen: {go: {package: a, out: a" + opt + "}}}\n"
	}
	for _, c := range []struct {
		file, src string
		want      bool
	}{
		{"sqlc.yaml", entry(""), false},
		{"sqlc.yml", entry(""), false},
		{"sqlc.json", entry(""), false},
		{"other.yaml", entry(""), false},
		{"fencegen.yaml", entry(""), true},
		{"fencegen.yml", entry(""), true},
		{"sqlc.yaml", entry(", postgresql_types: true"), true},
		{"fencegen.yaml", entry(", postgresql_types: false"), false},
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, c.file)
		if err := os.WriteFile(p, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(p)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if got := cfg.Packages[0].Go.PGTypes(); got != c.want {
			t.Errorf("%s %q: PGTypes %v, want %v", c.file, c.src, got, c.want)
		}
	}
	// An extension reads the sqlc file's entries: sqlc's API.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sqlc.yaml"), []byte(entry("")), 0o644); err != nil {
		t.Fatal(err)
	}
	fg := filepath.Join(dir, "fencegen.yaml")
	if err := os.WriteFile(fg, []byte("version: \"2\"\nextends: sqlc.yaml\nfence:\n  tables:\n    - {table: jobs, column: tok}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(fg)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Packages[0].Go.PGTypes() {
		t.Errorf("fencegen.yaml extending sqlc.yaml: PGTypes true, want false")
	}
}

// TestMySQLTypesDefault: mysql_types, postgresql_types' twin for engine
// mysql entries, has the same defaults, and Types and TypesOption read
// the entry's engine's option.
func TestMySQLTypesDefault(t *testing.T) {
	entry := func(opt string) string {
		return "version: \"2\"\nsql:\n  - {engine: mysql, schema: s.sql, queries: q.sql, gen: {go: {package: a, out: a" + opt + "}}}\n"
	}
	for _, c := range []struct {
		file, src string
		want      bool
	}{
		{"sqlc.yaml", entry(""), false},
		{"fencegen.yaml", entry(""), true},
		{"sqlc.yaml", entry(", mysql_types: true"), true},
		{"fencegen.yaml", entry(", mysql_types: false"), false},
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, c.file)
		if err := os.WriteFile(p, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(p)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if o := cfg.Packages[0].Go; o.Types() != c.want || o.TypesOption() != "mysql_types" {
			t.Errorf("%s %q: Types %v (%s), want %v (mysql_types)", c.file, c.src, o.Types(), o.TypesOption(), c.want)
		}
	}
}
