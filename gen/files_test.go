package gen

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/config"
)

func TestMigrationOrder(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"golang-migrate", []string{"10_b.up.sql", "2_a.up.sql", "1_init.up.sql"}, []string{"1_init.up.sql", "2_a.up.sql", "10_b.up.sql"}},
		{"goose", []string{"00010_x.sql", "9_y.sql", "00001_z.sql"}, []string{"00001_z.sql", "9_y.sql", "00010_x.sql"}},
		{"dbmate timestamps", []string{"20240102000000_b.sql", "20231231235959_a.sql", "9_old.sql"}, []string{"9_old.sql", "20231231235959_a.sql", "20240102000000_b.sql"}},
		{"sql-migrate, no separator", []string{"10-b.sql", "9-a.sql"}, []string{"9-a.sql", "10-b.sql"}},
		{"version ties by name", []string{"1_b.sql", "01_a.sql", "1_a.sql"}, []string{"01_a.sql", "1_a.sql", "1_b.sql"}},
		{"a name without version: lexical", []string{"10_b.sql", "9_a.sql", "schema.sql"}, []string{"10_b.sql", "9_a.sql", "schema.sql"}},
		{"longer than int64", []string{"123456789012345678901234567890_b.sql", "99999999999999999999_a.sql"}, []string{"99999999999999999999_a.sql", "123456789012345678901234567890_b.sql"}},
	}
	for _, tt := range tests {
		if got := migrationOrder(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: migrationOrder(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

// writeTree writes files (slash-separated name → contents) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for n, s := range files {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGenerateMigrationDirectories generates from migration directories
// whose lexical order is not the order they are applied in: a later
// migration alters what an earlier one creates.
func TestGenerateMigrationDirectories(t *testing.T) {
	query := "-- name: Get :one\nSELECT id, note FROM t WHERE id = $1;\n"
	for name, files := range map[string]map[string]string{
		"golang-migrate": {
			"m/9_create.up.sql":    "CREATE TABLE t (id bigint PRIMARY KEY);",
			"m/9_create.down.sql":  "DROP TABLE t;",
			"m/10_note.up.sql":     "ALTER TABLE t ADD COLUMN note text;",
			"m/10_note.down.sql":   "ALTER TABLE t DROP COLUMN note;",
			"m/.hidden_broken.sql": "this is not SQL",
		},
		"goose": {
			"m/9_create.sql": "-- +goose Up\nCREATE TABLE t (id bigint PRIMARY KEY);\n-- +goose Down\nDROP TABLE t;\n",
			"m/10_note.sql":  "-- +goose Up\nALTER TABLE t ADD COLUMN note text;\n-- +goose down\nALTER TABLE t DROP COLUMN note;\n",
		},
		"dbmate": {
			"m/9_create.sql":            "-- migrate:up\nCREATE TABLE t (id bigint PRIMARY KEY);\n-- migrate:down\nDROP TABLE t;\n",
			"m/20240101120000_note.sql": "-- migrate:up\nALTER TABLE t ADD COLUMN note text;\n-- migrate:down\nALTER TABLE t DROP COLUMN note;\n",
		},
		"sql-migrate": {
			"m/9_create.sql": "-- +migrate Up\nCREATE TABLE t (id bigint PRIMARY KEY);\n-- +migrate Down\nDROP TABLE t;\n",
			"m/10_note.sql":  "-- +migrate Up\nALTER TABLE t ADD COLUMN note text;\n-- +migrate Down\nALTER TABLE t DROP COLUMN note;\n",
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			files["q.sql"] = query
			files["sqlc.yaml"] = "version: \"2\"\nsql:\n  - {engine: postgresql, schema: m, queries: q.sql, gen: {go: {package: db, out: db, sql_package: pgx/v5}}}\n"
			writeTree(t, dir, files)
			cfg, err := LoadConfig(filepath.Join(dir, "sqlc.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			out, err := Generate(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if m := string(out.Files["db/models.go"]); !strings.Contains(m, "Note ") {
				t.Errorf("models.go has no Note field:\n%s", m)
			}
		})
	}
}

// TestGenerateByteOrderMarks reads a configuration, a schema and queries
// saved with a UTF-8 byte order mark, and an entry without schema.
func TestGenerateByteOrderMarks(t *testing.T) {
	dir := t.TempDir()
	const bom = "\ufeff"
	writeTree(t, dir, map[string]string{
		"sqlc.yaml": bom + "version: \"2\"\nsql:\n" +
			"  - {engine: postgresql, schema: s.sql, queries: q.sql, gen: {go: {package: db, out: db}}}\n" +
			"  - {engine: postgresql, queries: sys.sql, gen: {go: {package: sys, out: sys}}}\n",
		"s.sql":   bom + "CREATE TABLE t (id bigint PRIMARY KEY);\n",
		"q.sql":   bom + "-- name: Get :one\nSELECT id FROM t WHERE id = $1;\n",
		"sys.sql": bom + "-- name: Now :one\nSELECT now()::timestamptz AS now;\n",
	})
	cfg, err := LoadConfig(filepath.Join(dir, "sqlc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"db/q.sql.go", "sys/sys.sql.go"} {
		if _, ok := out.Files[f]; !ok {
			t.Errorf("no %s in %d files", f, len(out.Files))
		}
	}
}

// TestExpandPatterns reads what sqlc reads of a pattern's matches: SQL
// files only, without down migrations and hidden files; a pattern that
// matches nothing adds nothing.
func TestExpandPatterns(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"m/README.md":       "# migrations",
		"m/2_b.up.sql":      "",
		"m/2_b.down.sql":    "",
		"m/.1_hidden.sql":   "",
		"m/10_c.up.sql":     "",
		"m/sub/1_a.up.sql":  "",
		"explicit.down.sql": "",
	})
	cfg := &Config{Path: filepath.Join(dir, "sqlc.yaml"), Dir: dir}
	got, errs := expand(cfg, []string{"m/*", "none/*.sql", "explicit.down.sql"}, config.Position{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var rel []string
	for _, g := range got {
		r, _ := filepath.Rel(dir, g)
		rel = append(rel, filepath.ToSlash(r))
	}
	// m/* matches the directory m/sub too, read as a directory.
	// The directory makes the matches lexical; without it they are in
	// version order.
	// explicit.down.sql is not read although named, as in sqlc.
	want := []string{"m/10_c.up.sql", "m/2_b.up.sql", "m/sub/1_a.up.sql"}
	if !reflect.DeepEqual(rel, want) {
		t.Errorf("expand = %q, want %q", rel, want)
	}
	got, errs = expand(cfg, []string{"m/*.up.sql"}, config.Position{})
	if len(errs) > 0 || len(got) != 2 || filepath.Base(got[0]) != "2_b.up.sql" {
		t.Errorf("expand(m/*.up.sql) = %q, %v; want 2_b.up.sql first", got, errs)
	}
}
