package migrationtools

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// lifeProject is the project directory of a life test: a fencegen
// configuration and queries beside migrations in tool's layout
// (goose, golang-migrate, dbmate or atlas), which fencegen runs on.
type lifeProject struct {
	t    *testing.T
	dir  string
	tool string
}

func newLifeProject(t *testing.T, tool string) *lifeProject {
	return &lifeProject{t: t, dir: t.TempDir(), tool: tool}
}

// write writes text to name, a slash-separated path below the directory.
func (p *lifeProject) write(name, text string) {
	p.t.Helper()
	f := filepath.Join(p.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// fencegen runs the fencegen binary with args in the directory, fails
// the test unless it exits with code want, and returns its stderr.
func (p *lifeProject) fencegen(want int, args ...string) string {
	p.t.Helper()
	cmd := exec.Command(fencegenBin, args...)
	cmd.Dir = p.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		p.t.Fatal(err)
	}
	if code != want {
		p.t.Fatalf("fencegen %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, stderr.String())
	}
	return stderr.String()
}

// initMigration writes migration 1, up and down, in the tool's layout
// (Atlas has no down migration).
func (p *lifeProject) initMigration(up, down string) {
	p.t.Helper()
	switch p.tool {
	case "goose":
		p.write("migrations/00001_init.sql", "-- +goose Up\n"+up+"-- +goose Down\n"+down)
	case "dbmate":
		p.write("migrations/00001_init.sql", "-- migrate:up\n"+up+"-- migrate:down\n"+down)
	case "atlas":
		p.write("migrations/00001_init.sql", up)
	default:
		p.write("migrations/000001_init.up.sql", up)
		p.write("migrations/000001_init.down.sql", down)
	}
}

// changeFile is the file of migration 3, the team's change after the
// guard migration (2), in the tool's layout: its up file for
// golang-migrate.
func (p *lifeProject) changeFile() string {
	if p.tool == "golang-migrate" {
		return "migrations/000003_change.up.sql"
	}
	return "migrations/00003_change.sql"
}

// migration writes a migration of the team's, up and down, in the
// tool's layout, to file (golang-migrate's up file; its down file is
// beside it): goose's as one statement block, so that a DO block or a
// function body is one statement.
func (p *lifeProject) migration(file, up, down string) {
	p.t.Helper()
	switch p.tool {
	case "goose":
		p.write(file, "-- +goose Up\n-- +goose StatementBegin\n"+up+"-- +goose StatementEnd\n-- +goose Down\n"+down)
	case "dbmate":
		p.write(file, "-- migrate:up\n"+up+"-- migrate:down\n"+down)
	case "atlas":
		p.write(file, up)
	default:
		p.write(file, up)
		p.write(strings.Replace(file, ".up.sql", ".down.sql", 1), down)
	}
}
