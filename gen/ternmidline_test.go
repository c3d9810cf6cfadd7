package gen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// TestTernDividerMidLineNoted (issue 23): tern's divider in the middle
// of a line cuts the file for tern, and so for fencegen (the database
// holds the up section only), while sqlc v1.31.1, which stops only at a
// line that starts with it, reads the rest: here it drops column c,
// which fencegen's model keeps. vet notes the divider there, and only
// there: not at a divider that starts its line, nor at one with nothing
// after it. Without sqlc the test skips with one line, and fails under
// CI=true.
func TestTernDividerMidLineNoted(t *testing.T) {
	r := sqlcAndFencegen(t, map[string]string{
		"sqlc.yaml":          gen.SqlcYAML,
		"schema/001_mid.sql": "CREATE TABLE mid (id int, c int); -- tern ---- create above / drop below ----\nALTER TABLE mid DROP COLUMN c;\n",
		"schema/002_top.sql": "CREATE TABLE top (id int, c int);\n---- create above / drop below ----\nALTER TABLE top DROP COLUMN c;\n",
		"schema/003_end.sql": "CREATE TABLE tail (id int, c int); -- ---- create above / drop below ----\n\n",
		"q.sql":              "-- name: GetMid :many\nSELECT id FROM mid;\n\n-- name: GetTop :many\nSELECT c FROM top;\n\n-- name: GetTail :many\nSELECT c FROM tail;\n",
	}, "sqlc.yaml")
	r.mustBoth(t)
	models, err := os.ReadFile(filepath.Join(r.dir, "db", "models.go"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(models), "\tC "); n != 2 {
		t.Fatalf("sqlc's models have column c %d times, want 2 (dropped from mid: the test's premise):\n%s", n, models)
	}
	out := r.out
	if n := strings.Count(string(out.Files["db/models.go"]), "\tC "); n != 3 {
		t.Errorf("fencegen's models have column c %d times, want 3 (tern applies no drop):\n%s", n, out.Files["db/models.go"])
	}
	var notes []string
	for _, v := range out.Vet {
		if strings.Contains(v, "tern's divider") {
			notes = append(notes, v)
		}
	}
	want := filepath.Join("schema", "001_mid.sql") + ":1:43: note: tern's divider in the middle of a line"
	if len(notes) != 1 || !strings.HasSuffix(notes[0], "put the divider at the start of its line") || !strings.Contains(notes[0], want) {
		t.Errorf("tern notes %q, want one starting %q", notes, want)
	}
}
