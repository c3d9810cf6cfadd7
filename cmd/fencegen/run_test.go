package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// TestRunExitCodes checks the exit status of usage errors and of the
// commands that need no generator run (testscript only sees success or
// failure).
func TestRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("bad.yaml", []byte("version: \"2\"\nfoo: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args   []string
		code   int
		stdout string // substring
		stderr string // substring
	}{
		{nil, exitUsage, "", "usage: fencegen"},
		{[]string{"frobnicate"}, exitUsage, "", `unknown command "frobnicate"` + "\n"},
		{[]string{"gen"}, exitUsage, "", `unknown command "gen" (did you mean generate?)`},
		{[]string{"generate", "-nope"}, exitUsage, "", "flag provided but not defined: -nope"},
		{[]string{"check", "extra"}, exitUsage, "", `unexpected argument "extra"`},
		{[]string{"-check", "-x"}, exitUsage, "", "-x"},
		{[]string{"version", "x"}, exitUsage, "", ""},
		{[]string{"help", "nope"}, exitUsage, "", `unknown help topic "nope"`},
		{[]string{"help"}, exitOK, "usage: fencegen", ""},
		{[]string{"help", "check"}, exitOK, "usage: fencegen check [-f path]", ""},
		{[]string{"generate", "-h"}, exitOK, "", "usage: fencegen generate"},
		{[]string{"version"}, exitOK, "fencegen ", ""},
		{[]string{"generate"}, exitError, "", "fencegen: no configuration file found in . (looked for fencegen.yaml"},
		{[]string{"vet", "-f", "bad.yaml"}, exitError, "", "bad.yaml:2:1: unknown key \"foo\"\n"},
		{[]string{"-config", "bad.yaml"}, exitError, "", "bad.yaml:2:1: unknown key \"foo\"\n"},
		{[]string{"check", "-config", filepath.Join(dir, "bad.yaml")}, exitError, "", "bad.yaml:2:1: unknown key \"foo\"\n"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
		if code != tt.code || !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
			t.Errorf("run(%q) = %d\nstdout: %s\nstderr: %s\nwant %d, stdout containing %q, stderr containing %q",
				tt.args, code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
		}
		if strings.Contains(stderr.String(), dir) {
			t.Errorf("run(%q): stderr shows an absolute path:\n%s", tt.args, stderr.String())
		}
	}
}

func TestDefaultPackages(t *testing.T) {
	t.Chdir(t.TempDir())
	const src = `version: "2"
sql:
  - {engine: postgresql, schema: s.sql, queries: q.sql, gen: {go: {out: .}}}
  - {engine: postgresql, schema: s.sql, queries: q.sql, gen: {go: {out: sub}}}
  - {engine: postgresql, schema: s.sql, queries: q.sql, gen: {go: {out: ., package: named}}}
`
	if err := os.WriteFile("fencegen.yaml", []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := gen.LoadConfig("fencegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defaultPackages(cfg, "accounts")
	var got []string
	for _, p := range cfg.Packages {
		got = append(got, p.Go.Package)
	}
	if want := "accounts sub named"; strings.Join(got, " ") != want {
		t.Errorf("packages = %q, want %q", got, want)
	}

	// Outside go generate: the package clause of the directory's Go files
	// (tests aside), as go generate would have set $GOPACKAGE.
	for name, src := range map[string]string{"generate.go": "//go:generate fencegen\npackage accountsdb\n", "x_test.go": "package accountsdb_test\n"} {
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if cfg, err = gen.LoadConfig("fencegen.yaml"); err != nil {
		t.Fatal(err)
	}
	defaultPackages(cfg, "")
	if got := cfg.Packages[0].Go.Package; got != "accountsdb" {
		t.Errorf("package outside go generate = %q, want accountsdb (the package clause)", got)
	}
	if err := os.WriteFile("other.go", []byte("package other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if cfg, err = gen.LoadConfig("fencegen.yaml"); err != nil {
		t.Fatal(err)
	}
	defaultPackages(cfg, "")
	if got := cfg.Packages[0].Go.Package; got != "" {
		t.Errorf("package with two package clauses = %q, want it left to the default", got)
	}
}

// TestBuildWithoutCgo builds fencegen with CGO_ENABLED=0, as on a machine
// without a C compiler: the build must fail with the one sentence of
// gen/internal/sqlparse/nocgo.go, not with pg_query_go's undefined names.
func TestBuildWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds fencegen's dependencies without cgo")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	cmd := exec.Command(goBin, "build", "-o", os.DevNull, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("go build with CGO_ENABLED=0 succeeded; want the cgo message")
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "fencegen needs cgo and a C compiler") || strings.Contains(lines[0], "undefined") {
		t.Errorf("go build with CGO_ENABLED=0 printed:\n%s\nwant one line saying fencegen needs cgo and a C compiler", out)
	}
	// go.generate.md shows the line as a build from the repository's root prints it.
	msg := lines[0][strings.Index(lines[0], "gen/internal/sqlparse/nocgo.go"):]
	if doc, err := os.ReadFile(filepath.Join("..", "..", "go.generate.md")); err != nil || !strings.Contains(string(doc), "\n"+msg+"\n") {
		t.Errorf("go.generate.md does not show the line (%v):\n%s", err, msg)
	}
}
