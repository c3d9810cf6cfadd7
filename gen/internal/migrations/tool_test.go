package migrations

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestDetect: a directory's tool comes from its names (golang-migrate's
// down files, atlas.sum) and its .sql files' up markers; Applies lists
// the files that tool applies going up, Extra those of them sqlc does
// not read.
func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   map[string]string
		tool    Tool
		applies []string
		extra   []string
	}{
		{name: "golang-migrate", files: map[string]string{
			"000001_init.up.sql": "CREATE TABLE t (id int);\n-- +goose Down\n", "000001_init.down.sql": "",
			"000002_x.sql": "", "000003_y.up.psql": "", "000003_y.down.psql": "", "README.md": "", "schema.sql": "",
		}, tool: GolangMigrate, applies: []string{"000001_init.up.sql", "000003_y.up.psql"}, extra: []string{"000003_y.up.psql"}},
		{name: "golang-migrate, up files only", files: map[string]string{
			"1_a.up.sql": "-- migrate:down is golang-migrate's text\n", "2_b.up.sql": "",
		}, tool: GolangMigrate, applies: []string{"1_a.up.sql", "2_b.up.sql"}},
		{name: "goose names its files as golang-migrate's", files: map[string]string{
			"00001_a.up.sql": "-- +goose Up\nCREATE TABLE t (id int);\n",
		}, tool: Goose, applies: []string{"00001_a.up.sql"}},
		{name: "goose", files: map[string]string{
			"00001_init.sql": "-- +goose Up\nCREATE TABLE t (id int);\n", "00002_b.sql": "--+goose UP\n",
			"seed.sql": "", "0_zero.sql": "", "x_1.sql": "", "00003_go.go": "",
		}, tool: Goose, applies: []string{"00001_init.sql", "00002_b.sql"}},
		{name: "goose, indented marker is none", files: map[string]string{
			"00001_init.sql": " -- +goose Up\n",
		}, tool: Unknown, applies: []string{"00001_init.sql"}},
		{name: "dbmate", files: map[string]string{
			"20240101000000_a.sql": "-- migrate:up\n", "readme.sql": "", "2x.sql": "",
		}, tool: Dbmate, applies: []string{"20240101000000_a.sql", "2x.sql"}},
		{name: "sql-migrate", files: map[string]string{
			"1_a.sql": "-- +migrate Up\n", "b.sql": "",
		}, tool: SQLMigrate, applies: []string{"1_a.sql", "b.sql"}},
		{name: "atlas", files: map[string]string{
			"20240101000000_a.sql": "CREATE TABLE t (id int);\n-- migrate:down\n", "atlas.sum": "",
		}, tool: Atlas, applies: []string{"20240101000000_a.sql"}},
		{name: "tern", files: map[string]string{
			"001_a.sql": "CREATE TABLE t (id int);\n---- create above / drop below ----\n", "shared.sql": "",
		}, tool: Tern, applies: []string{"001_a.sql"}},
		{name: "several tools' markers", files: map[string]string{
			"001_a.sql": "CREATE TABLE t (id int);\n---- create above / drop below ----\n", "002_b.sql": "CREATE TABLE u (id int);\n-- +goose Down\n",
		}, tool: Unknown, applies: []string{"001_a.sql", "002_b.sql"}},
		{name: "none", files: map[string]string{
			"schema.sql": "CREATE TABLE t (id int);\n", "queries.sql": "", "x.down.sql": "",
		}, tool: Unknown, applies: []string{"queries.sql", "schema.sql"}},
	} {
		dir := t.TempDir()
		for name, text := range tc.files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		d := NewDirs().Of(dir)
		if d.Tool != tc.tool {
			t.Errorf("%s: tool %q, want %q", tc.name, d.Tool, tc.tool)
		}
		var applies []string
		for name := range tc.files {
			if d.Applies(name) {
				applies = append(applies, name)
			}
		}
		slices.Sort(applies)
		if !slices.Equal(applies, tc.applies) {
			t.Errorf("%s: applies %q, want %q", tc.name, applies, tc.applies)
		}
		if got := d.Extra(); !slices.Equal(got, tc.extra) {
			t.Errorf("%s: extra %q, want %q", tc.name, got, tc.extra)
		}
	}
}

// TestCut: each tool stops at its own down marker only (the "|"); a
// marker of another tool's spelling is text it applies. A file of no
// known tool is cut where any tool or sqlc cuts (DownStart).
func TestCut(t *testing.T) {
	for _, tc := range []struct {
		tool Tool
		src  string
	}{
		{GolangMigrate, "CREATE TABLE t (id int);\n-- migrate:down\n-- +goose Down\n-- +migrate Down\n---- create above / drop below ----\nCREATE TRIGGER x;\n"},
		{Atlas, "CREATE TABLE t (id int);\n-- migrate:down\nCREATE TRIGGER x;\n"},
		{Goose, "-- +goose Up\n-- +migrate Down-compatible\n-- migrate:down\nCREATE TRIGGER x;\n|-- +goose Down\nDROP TRIGGER x;\n"},
		{Goose, "-- +goose Up\nCREATE TRIGGER x;\n|--+goose  DOWN\n"},
		{Dbmate, "-- migrate:up\n-- +goose Down\n-- +migrate Down\nCREATE TRIGGER x;\n|-- migrate:down\n"},
		{SQLMigrate, "-- +migrate Up\n-- migrate:down\n-- +goose Down\nCREATE TRIGGER x;\n|-- +migrate Down\n"},
		{Tern, "CREATE TRIGGER x; -- +goose Down\n-- migrate:down\n|---- create above / drop below ----\n"},
		{Unknown, "CREATE TABLE t (id int);\n|-- migrate:down\nCREATE TRIGGER x;\n"},
	} {
		want := strings.Index(tc.src, "|")
		src := strings.Replace(tc.src, "|", "", 1)
		if got := Cut(tc.tool, []byte(src)); got != want {
			t.Errorf("Cut(%s, %q) = %d, want %d", tc.tool, src, got, want)
		}
	}
	if got := SqlcCut([]byte("CREATE TABLE t (id int);\n-- +MIGRATE DOWN-compatible\n")); got != len("CREATE TABLE t (id int);\n") {
		t.Errorf("SqlcCut = %d, want sqlc's line", got)
	}
	for src, want := range map[string]Tool{"-- +goose Up\n": Goose, "-- migrate:up\n": Dbmate, "-- +migrate Up\n": SQLMigrate, "CREATE TABLE t (id int);\n": Unknown, "-- +goose Down\n": Unknown} {
		if got := FileTool([]byte(src)); got != want {
			t.Errorf("FileTool(%q) = %q, want %q", src, got, want)
		}
	}
}

// TestEnvsub: goose substitutes the lines between ENVSUB ON and OFF
// (annotations as goose reads them); Substituted finds what
// mfridman/interpolate changes there, and EnvsubHarmless the statements
// whose text cannot change a fenced table's writes.
func TestEnvsub(t *testing.T) {
	src := "-- +goose Up\nA;\n-- +goose ENVSUB ON\nB;\nC;\n--+goose envsub off\nD;\n-- +goose ENVSUB ON\nE;\n"
	spans := EnvsubSpans([]byte(src))
	var got []string
	for _, sp := range spans {
		got = append(got, src[sp.From:sp.To])
	}
	if want := []string{"B;\nC;\n", "E;\n"}; !slices.Equal(got, want) {
		t.Errorf("EnvsubSpans: %q, want %q", got, want)
	}
	if len(spans) != 2 || src[spans[0].On:spans[0].From] != "-- +goose ENVSUB ON\n" {
		t.Errorf("EnvsubSpans: On of %v", spans)
	}
	if len(EnvsubSpans([]byte("-- +goose Up\n -- +goose ENVSUB ON\nB;\n"))) != 0 {
		t.Error("an indented ENVSUB ON is none (goose refuses the file)")
	}
	for text, want := range map[string]string{
		`UPDATE "${T}" SET a = 1`: "expansion 8", "SELECT $x": "expansion 7", "SELECT $_x": "expansion 7",
		"AS $$ BEGIN $$": "escape 3", `SELECT '\$'`: "escape 8", `SELECT '\\$1'`: "", "SELECT $1, $ 2, $(": "", "SELECT 1": "",
	} {
		i, what := Substituted(text)
		g := ""
		if i >= 0 {
			g = what + " " + strconv.Itoa(i)
		}
		if g != want {
			t.Errorf("Substituted(%q) = %d %s, want %s", text, i, what, want)
		}
	}
	for text, want := range map[string]bool{
		"GRANT SELECT ON t TO app": true, "revoke all on t from app": true, "CREATE ROLE app PASSWORD '${P}'": true,
		"ALTER USER app PASSWORD '${P}'": true, "DROP ROLE IF EXISTS app": true,
		"ALTER ROLE app SET session_replication_role = '${R}'": false, "CREATE FUNCTION f() ...": false,
		"UPDATE t SET a = '${A}'": false, "DO $$ BEGIN END $$": false, "COMMENT ON COLUMN t.tok IS '${M}'": false, "": false,
	} {
		if got := EnvsubHarmless(text); got != want {
			t.Errorf("EnvsubHarmless(%q) = %v, want %v", text, got, want)
		}
	}
}
