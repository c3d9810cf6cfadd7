package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	out := &Output{Files: map[string][]byte{
		"db.go":             []byte("package db\n"),
		"sub/deep/q.sql.go": []byte("package deep\n"),
	}}
	if err := out.Write(dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range out.Files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		got, err := os.ReadFile(p)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s mode = %v, %v; want 0644", name, fi.Mode(), err)
		}
	}

	// An unchanged file is not rewritten; a changed one is; others stay.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	db := filepath.Join(dir, "db.go")
	q := filepath.Join(dir, "sub", "deep", "q.sql.go")
	for _, p := range []string{db, q} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	keep := filepath.Join(dir, "keep.go")
	if err := os.WriteFile(keep, []byte("hand written\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Files["db.go"] = []byte("package db // changed\n")
	if err := out.Write(dir); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(q); !fi.ModTime().Equal(old) {
		t.Errorf("unchanged file rewritten: mtime %v, want %v", fi.ModTime(), old)
	}
	if got, _ := os.ReadFile(db); string(got) != "package db // changed\n" {
		t.Errorf("db.go = %q after rewrite", got)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("Write removed a file it does not own: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestWriteRejectsNonLocalPaths(t *testing.T) {
	for _, name := range []string{"../x.go", "/abs.go", "a/../../x.go", ""} {
		dir := t.TempDir()
		out := &Output{Files: map[string][]byte{"ok.go": []byte("x"), name: []byte("x")}}
		if err := out.Write(dir); err == nil {
			t.Errorf("Write(%q) succeeded, want error", name)
		}
		if _, err := os.Stat(filepath.Join(dir, "ok.go")); err == nil {
			t.Errorf("Write(%q) wrote ok.go before failing", name)
		}
		if _, err := out.Check(dir); err == nil {
			t.Errorf("Check(%q) succeeded, want error", name)
		}
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	out := &Output{Files: map[string][]byte{
		"a.go":     []byte("package a\n\nvar X = 1\n"),
		"b/b.go":   []byte("package b\n"),
		"noeol.go": []byte("package c\n"),
	}}
	diff, err := out.Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"--- /dev/null\n+++ b/a.go\n@@ -0,0 +1,3 @@\n+package a\n+\n+var X = 1\n",
		"--- /dev/null\n+++ b/b/b.go\n",
	} {
		if !strings.Contains(diff, want) {
			t.Errorf("diff of missing files lacks %q:\n%s", want, diff)
		}
	}
	if strings.Contains(diff, dir) {
		t.Errorf("diff mentions the absolute directory:\n%s", diff)
	}

	if err := out.Write(dir); err != nil {
		t.Fatal(err)
	}
	if diff, err := out.Check(dir); err != nil || diff != "" {
		t.Fatalf("Check after Write = %q, %v; want clean", diff, err)
	}

	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nvar X = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "noeol.go"), []byte("package c"), 0o644); err != nil {
		t.Fatal(err)
	}
	diff, err = out.Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := `--- a/a.go
+++ b/a.go
@@ -1,3 +1,3 @@
 package a
 
-var X = 2
+var X = 1
--- a/noeol.go
+++ b/noeol.go
@@ -1 +1 @@
-package c
\ No newline at end of file
+package c
`
	if diff != want {
		t.Errorf("diff:\n%s\nwant:\n%s", diff, want)
	}
}
