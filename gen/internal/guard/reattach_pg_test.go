package guard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// partSchema is a fenced partitioned table with a partition, and a
// table of the same columns that is no partition.
const partSchema = `CREATE TABLE parts (id bigint, region int, tok bigint NOT NULL DEFAULT 0, PRIMARY KEY (id, region)) PARTITION BY LIST (region);
CREATE TABLE parts_1 PARTITION OF parts FOR VALUES IN (1);
COMMENT ON COLUMN parts.tok IS 'fencegen:token';
`

// migrationsDir is a golang-migrate migrations directory for the tests
// of attach and detach: schema.sql (the first migration), then the
// up files added, each applied and replayed as the tool would.
type migrationsDir struct {
	t     *testing.T
	dir   string
	files []string
}

func newMigrationsDir(t *testing.T, schema string) *migrationsDir {
	dir := t.TempDir()
	writeFile(t, dir, "schema.sql", schema)
	return &migrationsDir{t: t, dir: dir, files: []string{filepath.Join(dir, "schema.sql")}}
}

// add writes the up file name (in m/) and returns its path.
func (m *migrationsDir) add(name, text string) string {
	p := writeFile(m.t, m.dir, "m/"+name, text)
	m.files = append(m.files, p)
	return p
}

// guard is the guard of the schema the files leave, reading other files
// as gen does.
func (m *migrationsDir) guard() *DatabaseGuard {
	src, err := os.ReadFile(m.files[0])
	if err != nil {
		m.t.Fatal(err)
	}
	g := guardOf(m.t, m.dir, string(src), m.files[1:]...)
	g.parse = func(name string) (*sqlparse.File, error) { return parseFiles(m.t, name)[0], nil }
	return g
}

// findings replays every file.
func (m *migrationsDir) findings(g *DatabaseGuard) []Finding {
	return g.compare(replayGuard(parseFiles(m.t, m.files...)), nil)
}

// apply runs each file's statements on a new database, in order, and
// after each the check of that step (by index in files), if any.
func (m *migrationsDir) apply(checks map[int]func(run func(string) error)) {
	pool := testenv.Database(m.t)
	defer pool.Close()
	run := func(sql string) error {
		_, err := pool.Exec(context.Background(), sql)
		return err
	}
	for i, f := range m.files {
		src, err := os.ReadFile(f)
		if err != nil {
			m.t.Fatal(err)
		}
		if err := run(string(src)); err != nil {
			m.t.Fatalf("%s: %v", filepath.Base(f), err)
		}
		if c := checks[i]; c != nil {
			c(run)
		}
	}
}

// staleRefused checks that PostgreSQL refuses (or, guarded false, lets
// through) an UPDATE of table lowering a token of 5 to 1.
func staleRefused(t *testing.T, run func(string) error, step, table string, guarded bool) {
	t.Helper()
	err := run("UPDATE " + table + " SET tok = 5 WHERE id = 1")
	if err == nil {
		err = run("UPDATE " + table + " SET tok = 1 WHERE id = 1")
	}
	var pgErr *pgconn.PgError
	if refused := errors.As(err, &pgErr) && pgErr.Code == fenceimpl.SQLState; refused != guarded {
		t.Errorf("after %s, a stale UPDATE of %s: %v; want it refused: %v", step, table, err, guarded)
	}
	if err == nil {
		// Let the next step's check start from 5 again.
		if err := run("UPDATE " + table + " SET tok = 0 WHERE id = 1"); err != nil && guarded {
			t.Error(err)
		}
	}
}

// TestGuardReattach is trial t24h F_reattach: a partition detached from
// its fenced table and attached again (ATTACH PARTITION) gets
// PostgreSQL's clone of the guard trigger back. In the same migration no
// applied state leaves it unguarded, and nothing is reported; in a later
// one, it is unguarded between the two: the finding says so, names no
// -into or -unfence (-into refuses; the fix is to move the ATTACH), and
// -applied writes a new guard migration, after which nothing is reported.
// -unfence of a detached partition writes no DROP TRIGGER of it (the
// clone went with the DETACH, and PostgreSQL refuses to drop a clone:
// 2BP01). PostgreSQL applies each directory and shows each state.
func TestGuardReattach(t *testing.T) {
	const rows = "INSERT INTO parts VALUES (1, 1, 5);\n"
	t.Run("same migration", func(t *testing.T) {
		m := newMigrationsDir(t, partSchema+rows)
		gm, err := m.guard().Migration("golang-migrate", "2")
		if err != nil {
			t.Fatal(err)
		}
		m.add("2_fencegen_guard.up.sql", string(gm["2_fencegen_guard.up.sql"]))
		m.add("3_reattach.up.sql", "ALTER TABLE parts DETACH PARTITION parts_1;\nALTER TABLE parts ATTACH PARTITION parts_1 FOR VALUES IN (1);\nINSERT INTO parts (id, region) VALUES (2, 1);\n")
		g := m.guard()
		if found := m.findings(g); len(found) != 0 {
			t.Errorf("findings %v, want none", found)
		}
		g.Unfence([]string{"parts_1"})
		if _, out, err := g.NextMigration(m.files, nil, "golang-migrate", "4"); len(out) != 0 {
			t.Errorf("fencegen guard -unfence parts_1 wrote %v (%v), want nothing", out, err)
		}
		m.apply(map[int]func(func(string) error){
			1: func(run func(string) error) { staleRefused(t, run, "the guard", "parts_1", true) },
			2: func(run func(string) error) { staleRefused(t, run, "the re-attach", "parts_1", true) },
		})
	})
	t.Run("later migration", func(t *testing.T) {
		m := newMigrationsDir(t, partSchema+rows)
		gm, err := m.guard().Migration("golang-migrate", "2")
		if err != nil {
			t.Fatal(err)
		}
		m.add("2_fencegen_guard.up.sql", string(gm["2_fencegen_guard.up.sql"]))
		detach := m.add("3_detach.up.sql", "ALTER TABLE parts DETACH PARTITION parts_1;\n")
		m.add("4_attach.up.sql", "ALTER TABLE parts ATTACH PARTITION parts_1 FOR VALUES IN (1);\n")
		g := m.guard()
		found := m.findings(g)
		if len(found) != 1 || found[0].File != detach || found[0].Move != "parts_1" || found[0].Into != detach || found[0].Unfence != "" ||
			!strings.Contains(found[0].Msg, "4_attach.up.sql:1:1 attaches table parts_1 as a partition of parts again") {
			t.Fatalf("findings %+v; want one at %s, Move parts_1", found, detach)
		}
		if _, err := g.Inline(m.files, detach, nil, "golang-migrate"); err == nil || !strings.Contains(err.Error(), "move that ATTACH into") {
			t.Errorf("fencegen guard -into %s: %v, want an error naming the ATTACH", detach, err)
		}
		var ie *IntoError
		if _, _, err := g.NextMigration(m.files, nil, "golang-migrate", "5"); !errors.As(err, &ie) || !strings.Contains(err.Error(), "move the ATTACH into it") {
			t.Errorf("fencegen guard: %v, want an IntoError saying to move the ATTACH", err)
		}
		g.Applied([]string{detach})
		_, out, err := g.NextMigration(m.files, nil, "golang-migrate", "5")
		if err != nil {
			t.Fatal(err)
		}
		m.add("5_fencegen_guard.up.sql", string(out["5_fencegen_guard.up.sql"]))
		if found := m.findings(m.guard()); len(found) != 0 {
			t.Errorf("after the new guard migration: %v, want none", found)
		}
		m.apply(map[int]func(func(string) error){
			1: func(run func(string) error) { staleRefused(t, run, "the guard", "parts_1", true) },
			2: func(run func(string) error) { staleRefused(t, run, "the detach", "parts_1", false) },
			3: func(run func(string) error) { staleRefused(t, run, "the attach", "parts_1", true) },
			4: func(run func(string) error) { staleRefused(t, run, "the new guard", "parts_1", true) },
		})
	})
	t.Run("unfence detached", func(t *testing.T) {
		m := newMigrationsDir(t, partSchema+rows)
		gm, err := m.guard().Migration("golang-migrate", "2")
		if err != nil {
			t.Fatal(err)
		}
		m.add("2_fencegen_guard.up.sql", string(gm["2_fencegen_guard.up.sql"]))
		m.add("3_detach.up.sql", "ALTER TABLE parts DETACH PARTITION parts_1;\n")
		g := m.guard()
		if found := m.findings(g); len(found) != 1 || found[0].Unfence != "parts_1" {
			t.Fatalf("findings %+v, want one with -unfence parts_1", found)
		}
		g.Unfence([]string{"parts_1"})
		_, out, err := g.NextMigration(m.files, nil, "golang-migrate", "4")
		if err != nil {
			t.Fatal(err)
		}
		up := string(out["4_fencegen_guard.up.sql"])
		if !strings.Contains(up, "-- parts_1 is no longer fenced: its guard is removed.") || strings.Contains(up, "ON public.parts_1") {
			t.Errorf("-unfence parts_1 wrote\n%s\nwant the decision and no DROP TRIGGER of parts_1", up)
		}
		m.add("4_fencegen_guard.up.sql", up)
		if found := m.findings(m.guard()); len(found) != 0 {
			t.Errorf("after -unfence: %v, want none", found)
		}
		m.apply(map[int]func(func(string) error){3: func(run func(string) error) { staleRefused(t, run, "-unfence", "parts_1", false) }})
	})
	t.Run("own trigger", func(t *testing.T) {
		// A fenced table with a guard trigger of its own attached to a
		// fenced partitioned table: PostgreSQL refuses the ATTACH (a
		// trigger of the clone's name exists); dropped first, the clone
		// guards it.
		const solo = "CREATE TABLE solo (id bigint, region int, tok bigint NOT NULL DEFAULT 0, PRIMARY KEY (id, region));\nCOMMENT ON COLUMN solo.tok IS 'fencegen:token';\nINSERT INTO solo VALUES (1, 2, 5);\n"
		m := newMigrationsDir(t, partSchema+solo)
		gm, err := m.guard().Migration("golang-migrate", "2")
		if err != nil {
			t.Fatal(err)
		}
		m.add("2_fencegen_guard.up.sql", string(gm["2_fencegen_guard.up.sql"]))
		attach := m.add("3_attach.up.sql", "ALTER TABLE parts ATTACH PARTITION solo FOR VALUES IN (2);\n")
		found := m.findings(m.guard())
		if len(found) != 1 || found[0].File != attach || !found[0].Refused || !strings.Contains(found[0].Msg, "PostgreSQL refuses it") {
			t.Fatalf("findings %+v, want PostgreSQL's refusal at %s", found, attach)
		}
		pool := testenv.Database(t, partSchema+solo, string(gm["2_fencegen_guard.up.sql"]))
		defer pool.Close()
		if _, err := pool.Exec(context.Background(), "ALTER TABLE parts ATTACH PARTITION solo FOR VALUES IN (2)"); err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Errorf("the ATTACH as written: %v, want PostgreSQL to refuse it", err)
		}
		m.files = m.files[:len(m.files)-1]
		m.add("3_attach.up.sql", "DROP TRIGGER fencegen_guard ON solo;\nALTER TABLE parts ATTACH PARTITION solo FOR VALUES IN (2);\n")
		if found := m.findings(m.guard()); len(found) != 0 {
			t.Errorf("with the trigger dropped first: %v, want none", found)
		}
		m.apply(map[int]func(func(string) error){2: func(run func(string) error) { staleRefused(t, run, "the attach", "solo", true) }})
	})
	for _, mode := range []string{"", " required"} {
		t.Run("parent marked"+mode, func(t *testing.T) {
			// A fenced table with its own guard trigger is a partition
			// of a table that a later migration marks: the guard -into
			// writes drops its trigger before it creates its parent's,
			// which PostgreSQL clones onto it under the same name.
			schema := "CREATE TABLE q (id bigint, region int, tok bigint NOT NULL DEFAULT 0, PRIMARY KEY (id, region)) PARTITION BY LIST (region);\n" +
				"CREATE TABLE q1 (id bigint, region int, tok bigint NOT NULL DEFAULT 0, PRIMARY KEY (id, region));\n" +
				"COMMENT ON COLUMN q1.tok IS 'fencegen:token" + mode + "';\n" +
				"ALTER TABLE q ATTACH PARTITION q1 FOR VALUES IN (1);\nINSERT INTO q VALUES (1, 1, 5);\n"
			m := newMigrationsDir(t, schema)
			gm, err := m.guard().Migration("golang-migrate", "2")
			if err != nil {
				t.Fatal(err)
			}
			m.add("2_fencegen_guard.up.sql", string(gm["2_fencegen_guard.up.sql"]))
			mark := m.add("3_mark.up.sql", "COMMENT ON COLUMN q.tok IS 'fencegen:token"+mode+"';\n")
			g := m.guard()
			text, err := g.Inline(m.files, mark, nil, "golang-migrate")
			if err != nil {
				t.Fatal(err)
			}
			up := string(text)
			if d, c := strings.Index(up, "DROP TRIGGER IF EXISTS fencegen_guard ON public.q1;"), strings.Index(up, "CREATE TRIGGER fencegen_guard BEFORE UPDATE"); d < 0 || c < 0 || d > c {
				t.Errorf("-into %s:\n%s\nwant q1's trigger dropped before q's is created", mark, up)
			}
			m.files = m.files[:len(m.files)-1]
			m.add("3_mark.up.sql", up)
			if found := m.findings(m.guard()); len(found) != 0 {
				t.Errorf("after -into: %v, want none", found)
			}
			m.apply(map[int]func(func(string) error){
				1: func(run func(string) error) { staleRefused(t, run, "the guard", "q1", true) },
				2: func(run func(string) error) { staleRefused(t, run, "the mark", "q1", true) },
			})
		})
	}
}

// TestGuardUnmarkStates is trial t24h F_unmark_required: a migration
// removes the mark of a fenced table, whose guard trigger stays until a
// new guard migration removes it. The finding at the COMMENT says what
// PostgreSQL then refuses, which depends on the trigger's mode: in mode
// required (FN002) and strict (FN001) every UPDATE without a token,
// every one the generated code sends once the table is unfenced; in mode
// non-strict only an UPDATE that lowers the token. PostgreSQL shows each
// state, and after the removal every write passes.
func TestGuardUnmarkStates(t *testing.T) {
	for _, tc := range []struct {
		mode, says, noToken string // noToken: the SQLSTATE of an UPDATE without a token, "" when it passes
	}{
		{"", "that lowers tok until a new guard migration removes it", ""},
		{" strict", "(mode strict) until a new guard migration removes it: it refuses every UPDATE of jobs that does not raise tok (a write without a token among them) with SQLSTATE " + fenceimpl.SQLState + ", so every UPDATE that the generated code, generated for jobs unfenced, sends without a token fails", fenceimpl.SQLState},
		{" required", "(mode required) until a new guard migration removes them: they refuse every UPDATE of jobs that does not set tok (a write without a token) with SQLSTATE " + fenceimpl.MissingTokenSQLState + ", so every UPDATE that the generated code, generated for jobs unfenced, sends without a token fails", fenceimpl.MissingTokenSQLState},
	} {
		t.Run("mode"+strings.ReplaceAll(tc.mode, " ", "-"), func(t *testing.T) {
			m := newMigrationsDir(t, "CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT 'q', tok bigint NOT NULL DEFAULT 0);\n"+
				"COMMENT ON COLUMN jobs.tok IS 'fencegen:token"+tc.mode+"';\nINSERT INTO jobs (id, tok) VALUES (1, 5);\n")
			gm, err := m.guard().Migration("golang-migrate", "2")
			if err != nil {
				t.Fatal(err)
			}
			m.add("2_fencegen_guard.up.sql", string(gm["2_fencegen_guard.up.sql"]))
			unmark := m.add("3_unmark.up.sql", "COMMENT ON COLUMN jobs.tok IS NULL;\n")
			g := m.guard()
			found := m.findings(g)
			if len(found) != 1 || found[0].File != unmark || !found[0].Cause || !strings.Contains(found[0].Msg, tc.says) {
				t.Errorf("findings %v; want one at %s saying ...%s", found, unmark, tc.says)
			}
			_, out, err := g.NextMigration(m.files, nil, "golang-migrate", "4")
			if err != nil {
				t.Fatal(err)
			}
			m.add("4_fencegen_guard.up.sql", string(out["4_fencegen_guard.up.sql"]))
			if found := m.findings(m.guard()); len(found) != 0 {
				t.Errorf("after the removal: %v, want none", found)
			}
			code := func(err error) string {
				var pgErr *pgconn.PgError
				if errors.As(err, &pgErr) {
					return pgErr.Code
				}
				if err != nil {
					return err.Error()
				}
				return ""
			}
			m.apply(map[int]func(func(string) error){
				2: func(run func(string) error) {
					if got := code(run("UPDATE jobs SET status = 'x' WHERE id = 1")); got != tc.noToken {
						t.Errorf("after the unmark, an UPDATE without a token: %q, want %q", got, tc.noToken)
					}
					if got := code(run("UPDATE jobs SET tok = 1 WHERE id = 1")); got != fenceimpl.SQLState {
						t.Errorf("after the unmark, an UPDATE lowering the token: %q, want %s", got, fenceimpl.SQLState)
					}
				},
				3: func(run func(string) error) {
					for _, sql := range []string{"UPDATE jobs SET status = 'y' WHERE id = 1", "UPDATE jobs SET tok = 1 WHERE id = 1"} {
						if err := run(sql); err != nil {
							t.Errorf("after the removal, %s: %v", sql, err)
						}
					}
				},
			})
		})
	}
}

// TestInlineOutsideTransaction: fencegen guard -into refuses a migration
// its tool runs outside a transaction (goose's NO TRANSACTION, dbmate's
// transaction:false, Atlas's txmode none, or a COMMIT among its
// statements), whose statements commit one by one: between the change
// and the guard, and between the guard's DROP TRIGGER and CREATE
// TRIGGER, writers would see the table unguarded, and a failing
// statement would leave it so. The same migration in a transaction takes
// the guard.
func TestInlineOutsideTransaction(t *testing.T) {
	const table = "CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL DEFAULT 0);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n"
	const recreate = "DROP TABLE jobs;\n" + table
	for _, tc := range []struct {
		format, text, says string
	}{
		{"goose", "-- +goose NO TRANSACTION\n-- +goose Up\n" + recreate + "-- +goose Down\nSELECT 1;\n", "goose runs it outside a transaction (line 1: -- +goose NO TRANSACTION)"},
		{"goose", "-- +goose Up\n" + recreate + "-- +goose Down\n--+goose no transaction\nSELECT 1;\n", "goose runs it outside a transaction (line 6: --+goose no transaction)"},
		{"dbmate", "-- migrate:up transaction:false\n" + recreate + "-- migrate:down\nSELECT 1;\n", "dbmate runs its up section outside a transaction (line 1"},
		{"atlas", "-- atlas:txmode none\n\n" + recreate, "Atlas runs it outside a transaction (line 1"},
		{"golang-migrate", "DROP TABLE jobs;\nCOMMIT;\n" + table, "its statement at line 2 ends the transaction the tool runs it in"},
		{"goose", "-- +goose Up\n" + recreate + "-- +goose Down\nSELECT 1;\n", ""},
		{"goose", "-- +goose Up\n  -- +goose NO TRANSACTION\n" + recreate + "-- +goose Down\nSELECT 1;\n", ""},
		{"dbmate", "-- migrate:up transaction:true\n" + recreate + "-- migrate:down\nSELECT 1;\n", ""},
	} {
		dir := t.TempDir()
		g := guardOf(t, dir, table)
		g.parse = func(name string) (*sqlparse.File, error) { return parseFiles(t, name)[0], nil }
		gm, err := g.Migration(tc.format, "2")
		if err != nil {
			t.Fatal(err)
		}
		name := "2_fencegen_guard.sql"
		if tc.format == "golang-migrate" {
			name = "2_fencegen_guard.up.sql"
		}
		into := "3_recreate.sql"
		if tc.format == "golang-migrate" {
			into = "3_recreate.up.sql"
		}
		files := []string{filepath.Join(dir, "schema.sql"), writeFile(t, dir, "m/"+name, string(gm[name])), writeFile(t, dir, "m/"+into, tc.text)}
		text, err := g.Inline(files, files[2], nil, tc.format)
		switch {
		case tc.says == "" && (err != nil || text == nil):
			t.Errorf("%s %q: %v, want the guard added", tc.format, tc.text, err)
		case tc.says != "" && (err == nil || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "writers see each state between its statements")):
			t.Errorf("%s %q: %v, want an error saying %s", tc.format, tc.text, err, tc.says)
		}
	}
}
