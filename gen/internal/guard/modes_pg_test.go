package guard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// The database-side guard's three modes, against PostgreSQL: which
// hand-written UPDATEs each refuses, row by row, with the guard as
// fencegen_guard.sql installs it. Each case runs in its own transaction,
// rolled back, on a row that stores token 5.
const modesSchema = `
CREATE TABLE loose (id bigint PRIMARY KEY, status text NOT NULL, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN loose.tok IS 'fencegen:token';
CREATE TABLE tight (id bigint PRIMARY KEY, status text NOT NULL, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN tight.tok IS 'fencegen:token strict';
CREATE TABLE payouts (id bigint PRIMARY KEY, status text NOT NULL, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN payouts.tok IS 'fencegen:token required';
`

func TestGuardModesRefuse(t *testing.T) {
	g := guardOf(t, t.TempDir(), modesSchema)
	sql, err := g.SQL()
	if err != nil {
		t.Fatal(err)
	}
	pool := testenv.Database(t, modesSchema, string(sql),
		`INSERT INTO loose VALUES (1, 'new', 5); INSERT INTO tight VALUES (1, 'new', 5); INSERT INTO payouts VALUES (1, 'new', 5)`)
	ctx := context.Background()
	// The writes, on table %[1]s; "" is accepted, else the SQLSTATE.
	cases := []struct {
		name  string
		sql   []string
		want  map[string]string // table -> outcome of the last statement
		token int64             // the row's token after an accepted write
	}{
		{"no token", []string{`UPDATE %[1]s SET status = 'paid' WHERE id = 1`},
			map[string]string{"loose": "", "tight": fenceimpl.SQLState, "payouts": fenceimpl.MissingTokenSQLState}, 5},
		{"equal token", []string{`UPDATE %[1]s SET status = 'paid', tok = 5 WHERE id = 1`},
			map[string]string{"loose": "", "tight": fenceimpl.SQLState, "payouts": ""}, 5},
		{"higher token", []string{`UPDATE %[1]s SET status = 'paid', tok = 6 WHERE id = 1`},
			map[string]string{"loose": "", "tight": "", "payouts": ""}, 6},
		{"lower token", []string{`UPDATE %[1]s SET status = 'paid', tok = 4 WHERE id = 1`},
			map[string]string{"loose": fenceimpl.SQLState, "tight": fenceimpl.SQLState, "payouts": fenceimpl.SQLState}, 0},
		{"second write under one lease", []string{`UPDATE %[1]s SET status = 'a', tok = 7 WHERE id = 1`, `UPDATE %[1]s SET status = 'b', tok = 7 WHERE id = 1`},
			map[string]string{"loose": "", "tight": fenceimpl.SQLState, "payouts": ""}, 7},
		// The form of fencegen's guarded writes: the token assigned with
		// the other columns, in an UPDATE and in an upsert's DO UPDATE.
		{"upsert with token", []string{`INSERT INTO %[1]s VALUES (1, 'x', 8) ON CONFLICT (id) DO UPDATE SET status = excluded.status, tok = 8`},
			map[string]string{"loose": "", "tight": "", "payouts": ""}, 8},
		{"upsert without token", []string{`INSERT INTO %[1]s VALUES (1, 'x', 8) ON CONFLICT (id) DO UPDATE SET status = excluded.status`},
			map[string]string{"loose": "", "tight": fenceimpl.SQLState, "payouts": fenceimpl.MissingTokenSQLState}, 5},
		{"token below 1", []string{`UPDATE %[1]s SET tok = 0, status = 'x' WHERE id = 1`},
			map[string]string{"loose": fenceimpl.SQLState, "tight": fenceimpl.SQLState, "payouts": fenceimpl.SQLState}, 0},
	}
	for _, tc := range cases {
		for _, table := range []string{"loose", "tight", "payouts"} {
			t.Run(tc.name+"/"+table, func(t *testing.T) {
				tx, err := pool.Begin(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer tx.Rollback(ctx)
				var last error
				for i, s := range tc.sql {
					_, last = tx.Exec(ctx, fmt.Sprintf(s, table))
					if last != nil && i < len(tc.sql)-1 {
						t.Fatalf("statement %d: %v", i+1, last)
					}
				}
				want := tc.want[table]
				var pe *pgconn.PgError
				switch {
				case want == "" && last != nil:
					t.Fatalf("refused: %v; want it accepted", last)
				case want != "" && (!errors.As(last, &pe) || pe.Code != want):
					t.Fatalf("got %v; want SQLSTATE %s", last, want)
				case want != "":
					if pe.TableName != table || pe.ColumnName != "tok" {
						t.Fatalf("refusal names %s.%s", pe.TableName, pe.ColumnName)
					}
					return
				}
				var tok int64
				if err := tx.QueryRow(ctx, "SELECT tok FROM "+table+" WHERE id = 1").Scan(&tok); err != nil {
					t.Fatal(err)
				}
				if tok != tc.token {
					t.Fatalf("row stores token %d after the write; want %d", tok, tc.token)
				}
			})
		}
	}
}

// The required guard's migrations apply, up and down, over each other:
// goose's up installs both triggers; its down (the first guard migration's)
// removes them and the function; a later migration that makes the table
// non-strict replaces the function, after which an UPDATE without a token
// passes and the left second trigger does no harm; its down section brings
// the required guard back.
func TestRequiredGuardMigrations(t *testing.T) {
	dir := t.TempDir()
	g := guardOf(t, dir, modesSchema)
	files, err := g.Migration("goose", "1")
	if err != nil {
		t.Fatal(err)
	}
	// A goose section runs as one script: its annotations are comments.
	up, down, ok := strings.Cut(string(files["1_fencegen_guard.sql"]), "-- +goose Down")
	if !ok {
		t.Fatal("no down section")
	}
	pool := testenv.Database(t, modesSchema, up, `INSERT INTO payouts VALUES (1, 'new', 5)`)
	ctx := context.Background()
	noToken := func() error {
		_, err := pool.Exec(ctx, `UPDATE payouts SET status = 'x' WHERE id = 1`)
		return err
	}
	code := func(err error) string {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return pe.Code
		}
		return fmt.Sprint(err)
	}
	if c := code(noToken()); c != fenceimpl.MissingTokenSQLState {
		t.Fatalf("after the up migration, an UPDATE without a token: %s", c)
	}
	if _, err := pool.Exec(ctx, down); err != nil {
		t.Fatalf("down: %v", err)
	}
	if err := noToken(); err != nil {
		t.Fatalf("after the down migration: %v", err)
	}
	// Apply the required guard again, then a migration for the schema
	// where payouts is non-strict.
	if _, err := pool.Exec(ctx, up); err != nil {
		t.Fatal(err)
	}
	mig := filepath.Join(dir, "m", "1_fencegen_guard.sql")
	if err := os.WriteFile(mig, files["1_fencegen_guard.sql"], 0o644); err != nil {
		t.Fatal(err)
	}
	loose := guardOf(t, dir, strings.ReplaceAll(modesSchema, "'fencegen:token required'", "'fencegen:token'"), mig)
	if found := loose.GuardMigrations(nil); len(found) == 0 || !strings.Contains(fmt.Sprint(found), "required") {
		t.Fatalf("check of the required guard against a non-strict schema: %v; want a finding naming the modes", found)
	}
	_, next, err := loose.NextMigration([]string{mig}, nil, "goose", "2")
	if err != nil {
		t.Fatal(err)
	}
	up2, down2, _ := strings.Cut(string(next["2_fencegen_guard.sql"]), "-- +goose Down")
	if _, err := pool.Exec(ctx, up2); err != nil {
		t.Fatalf("second up: %v\n%s", err, up2)
	}
	if err := noToken(); err != nil {
		t.Fatalf("non-strict after the second migration: %v", err)
	}
	var tok int64
	if err := pool.QueryRow(ctx, `UPDATE payouts SET tok = 9 WHERE id = 1 RETURNING tok`).Scan(&tok); err != nil || tok != 9 {
		t.Fatalf("a token through the left trigger: %d, %v", tok, err)
	}
	if _, err := pool.Exec(ctx, down2); err != nil {
		t.Fatalf("second down: %v\n%s", err, down2)
	}
	if c := code(noToken()); c != fenceimpl.MissingTokenSQLState {
		t.Fatalf("after the second down migration, an UPDATE without a token: %s", c)
	}
	if err := pool.QueryRow(ctx, `UPDATE payouts SET tok = 10 WHERE id = 1 RETURNING tok`).Scan(&tok); err != nil || tok != 10 {
		t.Fatalf("a token after the second down migration: %d, %v", tok, err)
	}
}

// A row that stores a negative token (written by hand: no lease mints one)
// is not taken for the required guard's mark: an UPDATE that does not set
// the token is refused, and the stored token keeps its sign.
func TestRequiredGuardNegativeStoredToken(t *testing.T) {
	g := guardOf(t, t.TempDir(), modesSchema)
	sql, err := g.SQL()
	if err != nil {
		t.Fatal(err)
	}
	pool := testenv.Database(t, modesSchema, string(sql), `INSERT INTO payouts VALUES (1, 'new', -5)`)
	ctx := context.Background()
	_, err = pool.Exec(ctx, `UPDATE payouts SET status = 'x' WHERE id = 1`)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != fenceimpl.MissingTokenSQLState {
		t.Fatalf("UPDATE without a token of a row storing -5: %v; want SQLSTATE %s", err, fenceimpl.MissingTokenSQLState)
	}
	var tok int64
	if err := pool.QueryRow(ctx, `UPDATE payouts SET tok = 6 WHERE id = 1 RETURNING tok`).Scan(&tok); err != nil || tok != 6 {
		t.Fatalf("UPDATE with token 6: %d, %v", tok, err)
	}
}
