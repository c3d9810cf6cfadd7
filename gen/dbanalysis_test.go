package gen_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestDatabaseAnalysisAsSqlc (issue 23, trial sw4 F2): an entry with
// sqlc's database key (database: {uri: ...}), which sqlc v1.31.1
// analyses with the database, generates sqlc's files. Each case creates
// a scratch database holding the schema, runs sqlc generate against it
// and fencegen's Generate, and compares every file below the header.
// Without sqlc or PostgreSQL the test skips with one line, and fails
// under CI=true.
func TestDatabaseAnalysisAsSqlc(t *testing.T) {
	sqlc := testenv.SqlcBinary()
	if sqlc == "" {
		testenv.UnavailableAt(t, "sqlc v1.31.1 (go install github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1)", "SQLC", "", errors.New("not in $SQLC, GOPATH/bin or PATH"))
	}
	const schema = `CREATE TABLE t (a int NOT NULL, b text NOT NULL, c int NOT NULL);
CREATE TABLE u (id int NOT NULL, t_a int NOT NULL, note text NOT NULL);
`
	for _, tt := range []struct {
		name, schema, query string
		notes               []string // parts of the vet notes, one each
		// differs is set where sqlc's database typing gives another API
		// than fencegen's (which types against the schema files): the
		// query's note says so, and q.sql.go must differ (so that this
		// case is updated when fencegen asks the database too).
		differs bool
	}{
		{name: "mixed parameters fill the gaps", schema: schema, query: `-- name: Ins :exec
INSERT INTO t (a, b, c) VALUES ($1, @b, $3);

-- name: Upd :execrows
UPDATE t SET b = @b WHERE a = $2 AND c = @c;

-- name: Sel :many
SELECT a, b FROM t WHERE c = $3 AND a = @a AND b = $1;
`},
		{name: "a parameter sqlc types only with the database", schema: schema, query: `-- name: Find :many
SELECT a FROM t WHERE b = $1 OR @q = '';
`, differs: true, notes: []string{"q.sql:1:1: note: query Find: sqlc, analysing with the database (database: uri), types parameter q from PostgreSQL's answer"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			uri := testenv.NewDatabase(t)
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, uri)
			if err != nil {
				t.Fatal(err)
			}
			_, err = conn.Exec(ctx, tt.schema)
			conn.Close(ctx)
			if err != nil {
				t.Fatalf("schema: %v", err)
			}
			dir := t.TempDir()
			files := map[string]string{
				"schema.sql": tt.schema,
				"q.sql":      tt.query,
				"sqlc.yaml":  "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, database: {uri: \"" + uri + "\"}, gen: {go: {package: x, out: out, sql_package: pgx/v5}}}\n",
			}
			for n, s := range files {
				if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(sqlc, "generate")
			cmd.Dir = dir
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("sqlc generate: %v\n%s", err, b)
			}
			cfg, err := gen.LoadConfig(filepath.Join(dir, "sqlc.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			out, err := gen.Generate(ctx, cfg)
			if err != nil {
				t.Fatalf("refused what sqlc generates: %v", err)
			}
			body := func(src []byte) string {
				_, rest, _ := strings.Cut(string(src), "\npackage ")
				return rest
			}
			var names []string
			for n := range out.Files {
				names = append(names, n)
			}
			sort.Strings(names)
			if len(names) != 3 {
				t.Errorf("files %v, want db.go, models.go, q.sql.go", names)
			}
			for _, n := range names {
				want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n)))
				if err != nil {
					t.Errorf("%s: sqlc wrote no such file: %v", n, err)
					continue
				}
				if g, w := body(out.Files[n]), body(want); tt.differs && n == "out/q.sql.go" {
					if g == w {
						t.Errorf("%s is sqlc's: clear differs and the note", n)
					}
				} else if g != w {
					t.Errorf("%s differs from sqlc's below the header:\n--- fencegen\n%s\n--- sqlc\n%s", n, g, w)
				}
			}
			var vets []string
			for _, v := range out.Vet {
				// fencegen's own option, which the typing notes name.
				if !strings.Contains(v, "postgresql_types") {
					vets = append(vets, v)
				}
			}
			vet := strings.Join(vets, "\n")
			if len(vets) != len(tt.notes) {
				t.Errorf("%d vet notes, want %d:\n%s", len(vets), len(tt.notes), vet)
			}
			for _, n := range tt.notes {
				if !strings.Contains(vet, n) {
					t.Errorf("vet has no note %q:\n%s", n, vet)
				}
			}
		})
	}
}
