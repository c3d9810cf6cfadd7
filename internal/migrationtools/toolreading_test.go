package migrationtools

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/golang-migrate/migrate/v4"
	"github.com/pressly/goose/v3"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestToolReadingPostgres is trial t24h F_gm_ignored and F_goose_envsub:
// fencegen reads a migrations directory as its tool applies it. Each
// case is a project whose migrations golang-migrate or goose applies for
// real; PostgreSQL then says whether a trigger on notes writes the
// fenced table jobs (an UPDATE of notes changes jobs.status), and fencegen
// must refuse the plain UPDATE of notes exactly when it does: a file the
// tool skips is not read as applied, a file or the lines it applies that
// sqlc does not read are, and goose's ENVSUB text, which fencegen cannot
// know, is refused.
func TestToolReadingPostgres(t *testing.T) {
	const init = "CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT 'new', tok bigint NOT NULL DEFAULT 0);\n" +
		"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\nCREATE TABLE notes (id bigint PRIMARY KEY, body text);\n"
	const fn = "CREATE FUNCTION w_jobs() RETURNS trigger LANGUAGE plpgsql AS $$\n" +
		"BEGIN UPDATE jobs SET status = 'from-notes-trigger' WHERE id = NEW.id; RETURN NULL; END $$;\n"
	const trig = "CREATE TRIGGER notes_w AFTER UPDATE ON notes FOR EACH ROW EXECUTE FUNCTION w_jobs();\n"
	const drop = "DROP TRIGGER notes_w ON notes;\nDROP FUNCTION w_jobs();\n"
	for _, tc := range []struct {
		name, tool string
		files      map[string]string
		env        map[string]string
		// written is whether PostgreSQL's trigger writes jobs after the
		// tool's up; refusal is fencegen vet's error for the query
		// (file:line of the trigger it names, or the ENVSUB one); note is
		// a vet note it must print ("" for none).
		written       bool
		refusal, note string
		// toolFails is set where the tool's up fails, PostgreSQL
		// refusing what it sends: there is no trigger to look for.
		toolFails bool
	}{
		{name: "golang-migrate skips a file without .up", tool: "golang-migrate", written: true,
			files: map[string]string{
				"000001_init.up.sql": init + fn + trig, "000001_init.down.sql": "DROP TABLE notes, jobs;\n",
				"000002_drop_notes_trigger.sql": drop,
			},
			refusal: "fires trigger notes_w (migrations/000001_init.up.sql:6)",
			note:    "migrations/000002_drop_notes_trigger.sql:1:1: note: golang-migrate does not apply this file, so fencegen does not read it"},
		{name: "golang-migrate skips a trigger without .up", tool: "golang-migrate", written: false,
			files: map[string]string{
				"000001_init.up.sql": init, "000001_init.down.sql": "DROP TABLE notes, jobs;\n",
				"000002_notes_trigger.sql": fn + trig,
			},
			note: "migrations/000002_notes_trigger.sql:1:1: note: golang-migrate does not apply this file"},
		{name: "golang-migrate applies .up.psql", tool: "golang-migrate", written: true,
			files: map[string]string{
				"000001_init.up.sql": init, "000001_init.down.sql": "DROP TABLE notes, jobs;\n",
				"000002_notes_trigger.up.psql": fn + trig, "000002_notes_trigger.down.psql": drop,
			},
			refusal: "fires trigger notes_w (migrations/000002_notes_trigger.up.psql:3)",
			note:    "migrations/000002_notes_trigger.up.psql:1:1: note: golang-migrate applies this file"},
		{name: "golang-migrate applies past -- migrate:down", tool: "golang-migrate", written: true,
			files: map[string]string{
				"000001_init.up.sql": init, "000001_init.down.sql": "DROP TABLE notes, jobs;\n",
				"000002_notes_audit.up.sql":   "-- migrate:up (ported from dbmate)\n" + fn + "-- migrate:down was here; it lives in the .down.sql file now\n" + trig,
				"000002_notes_audit.down.sql": drop,
			},
			refusal: "fires trigger notes_w (migrations/000002_notes_audit.up.sql:5)"},
		{name: "golang-migrate applies past -- +goose Down", tool: "golang-migrate", written: true,
			files: map[string]string{
				"000001_init.up.sql": init, "000001_init.down.sql": "DROP TABLE notes, jobs;\n",
				"000002_notes_audit.up.sql":   fn + "-- +goose Down is not golang-migrate's\n" + trig,
				"000002_notes_audit.down.sql": drop,
			},
			refusal: "fires trigger notes_w (migrations/000002_notes_audit.up.sql:4)"},
		{name: "goose applies past -- +migrate Down", tool: "goose", written: true,
			files: map[string]string{
				"00001_init.sql": "-- +goose Up\n" + init + "-- +goose Down\nDROP TABLE notes, jobs;\n",
				"00002_notes_trigger.sql": "-- +goose Up\n-- +goose StatementBegin\n" + fn + "-- +goose StatementEnd\n" +
					"-- +migrate Down-compatible: nothing to undo by hand (ported from sql-migrate)\n" + trig + "\n-- +goose Down\n" + drop,
			},
			refusal: "fires trigger notes_w (migrations/00002_notes_trigger.sql:7)"},
		{name: "goose skips a file without a version", tool: "goose", written: true,
			files: map[string]string{
				"00001_init.sql":         "-- +goose Up\n-- +goose StatementBegin\n" + init + fn + trig + "-- +goose StatementEnd\n-- +goose Down\nDROP TABLE notes, jobs;\n",
				"drop_notes_trigger.sql": "-- +goose Up\n" + drop + "-- +goose Down\n",
			},
			refusal: "fires trigger notes_w (migrations/00001_init.sql:",
			note:    "migrations/drop_notes_trigger.sql:1:1: note: goose does not apply this file"},
		{name: "goose ENVSUB names the fenced table", tool: "goose", written: true, env: map[string]string{"AUDIT_TABLE": "jobs"},
			files: map[string]string{
				"00001_init.sql": "-- +goose Up\n" + init + "-- +goose Down\nDROP TABLE notes, jobs;\n",
				"00002_notes_trigger.sql": "-- +goose Up\n-- +goose ENVSUB ON\n" +
					"CREATE FUNCTION w_jobs() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN UPDATE \"${AUDIT_TABLE}\" SET status = ''from-notes-trigger'' WHERE id = NEW.id; RETURN NULL; END';\n" +
					trig + "-- +goose Down\n" + drop,
			},
			refusal: "migrations/00002_notes_trigger.sql:3:77: goose substitutes environment variables in this statement (-- +goose ENVSUB ON at line 2): fencegen cannot know what ${AUDIT_TABLE} becomes"},
		{name: "goose ENVSUB of a role's password", tool: "goose", written: false, env: map[string]string{"APP_PASSWORD": "s3cret"},
			files: map[string]string{
				"00001_init.sql": "-- +goose Up\n" + init + "-- +goose Down\nDROP TABLE notes, jobs;\n",
				"00002_role.sql": "-- +goose Up\n-- +goose ENVSUB ON\nALTER ROLE fencegen_toolreading PASSWORD '${APP_PASSWORD}';\n-- +goose Down\n",
			}},
		{name: "goose ENVSUB of a dollar-quoted body", tool: "goose", toolFails: true,
			files: map[string]string{
				"00001_init.sql": "-- +goose Up\n" + init + "-- +goose Down\nDROP TABLE notes, jobs;\n",
				"00002_body.sql": "-- +goose Up\n-- +goose ENVSUB ON\nDO $$ BEGIN NULL; END $$;\n-- +goose Down\n",
			},
			refusal: "migrations/00002_body.sql:3:4: goose substitutes environment variables in this statement (-- +goose ENVSUB ON at line 2) and turns $$ into $"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newLifeProject(t, tc.tool)
			p.write("fencegen.yaml", "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: migrations\n    queries: queries.sql\n"+
				"    gen: {go: {package: db, out: db, sql_package: pgx/v5}}\n")
			p.write("queries.sql", "-- name: SetNote :exec\nUPDATE notes SET body = @body WHERE id = @id;\n")
			for name, text := range tc.files {
				p.write("migrations/"+name, text)
			}
			url := testenv.NewDatabase(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if tc.env != nil {
				db, err := sql.Open("pgx", url)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := db.Exec("DO $$ BEGIN CREATE ROLE fencegen_toolreading; EXCEPTION WHEN duplicate_object THEN NULL; END $$"); err != nil {
					t.Fatal(err)
				}
				db.Close()
			}
			applyAll(t, tc.tool, url, filepath.Join(p.dir, "migrations"), tc.toolFails)
			if got := !tc.toolFails && notesWritesJobs(t, url); !tc.toolFails && got != tc.written {
				t.Fatalf("after %s up, an UPDATE of notes writes jobs: %v, the case says %v", tc.tool, got, tc.written)
			}
			want := 0
			if tc.refusal != "" {
				want = 1
			}
			out := p.vetOutput(want)
			if tc.refusal != "" && !strings.Contains(out, tc.refusal) {
				t.Errorf("fencegen vet:\n%s\nwant the refusal: %s", out, tc.refusal)
			}
			if tc.note != "" && want == 0 && !strings.Contains(out, tc.note) {
				t.Errorf("fencegen vet:\n%s\nwant the note: %s", out, tc.note)
			}
		})
	}
}

// vetOutput runs fencegen vet -no-database in the project, which must
// exit with code want, and returns what it printed (both streams).
func (p *lifeProject) vetOutput(want int) string {
	p.t.Helper()
	cmd := exec.Command(fencegenBin, "vet", "-no-database")
	cmd.Dir = p.dir
	out, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		p.t.Fatal(err)
	}
	if code != want {
		p.t.Fatalf("fencegen vet: exit %d, want %d\n%s", code, want, out)
	}
	return string(out)
}

// applyAll applies every up migration of dir with tool (golang-migrate
// or goose, for real); failing says whether the tool must fail.
func applyAll(t *testing.T, tool, url, dir string, failing bool) {
	t.Helper()
	ctx := context.Background()
	var err error
	if tool == "goose" {
		db, oerr := sql.Open("pgx", url)
		if oerr != nil {
			t.Fatal(oerr)
		}
		defer db.Close()
		p, perr := goose.NewProvider(goose.DialectPostgres, db, os.DirFS(dir))
		if perr != nil {
			t.Fatal(perr)
		}
		_, err = p.Up(ctx)
	} else {
		m, merr := migrate.New("file://"+filepath.ToSlash(dir), "pgx5"+strings.TrimPrefix(url, "postgres"))
		if merr != nil {
			t.Fatal(merr)
		}
		defer m.Close()
		err = m.Up()
	}
	if (err != nil) != failing {
		t.Fatalf("%s up: %v (failing: %v)", tool, err, failing)
	}
}

// notesWritesJobs reports whether, on the database at url, an UPDATE of
// notes changes a row of jobs (through a trigger).
func notesWritesJobs(t *testing.T, url string) bool {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var status string
	if err := db.QueryRow(`WITH j AS (INSERT INTO jobs (id) VALUES (1) RETURNING 1), n AS (INSERT INTO notes VALUES (1, 'n') RETURNING 1)
		SELECT count(*) FROM j, n`).Scan(new(int)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE notes SET body = 'b' WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT status FROM jobs WHERE id = 1").Scan(&status); err != nil {
		t.Fatal(err)
	}
	return status == "from-notes-trigger"
}
