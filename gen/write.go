package gen

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// Write writes every file of o under dir, creating directories as needed.
// Files whose contents on disk already match are left alone (their
// modification times do not change). Each file is written to a temporary
// file in its directory and renamed into place, so an interrupted run
// never leaves a truncated file. Files are written with mode 0644. Write
// never removes files.
//
// Write checks every path before writing anything: a path that is not
// local to dir (absolute, or escaping it with "..") is an error.
func (o *Output) Write(dir string) error {
	names, err := o.names()
	if err != nil {
		return err
	}
	// Phase 1: every changed file goes to a temporary file beside its
	// target. If any of them fails, nothing on disk has changed.
	type pending struct{ tmp, dst string }
	var todo []pending
	renamed := 0
	defer func() {
		// On an error, the temporary files not yet renamed into place.
		for _, p := range todo[renamed:] {
			os.Remove(p.tmp)
		}
	}()
	for _, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		data := o.Files[name]
		old, err := os.ReadFile(p)
		if err == nil && bytes.Equal(old, data) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		tmp, err := writeTemp(p, data)
		if err != nil {
			return err
		}
		todo = append(todo, pending{tmp, p})
	}
	// Phase 2: rename them into place.
	for _, p := range todo {
		if err := os.Rename(p.tmp, p.dst); err != nil {
			return err
		}
		renamed++
	}
	return nil
}

// writeTemp writes data to a new temporary file in p's directory, synced
// and with mode 0644, and returns its name.
func writeTemp(p string, data []byte) (name string, err error) {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp*")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return "", err
	}
	if err := f.Chmod(0o644); err != nil {
		return "", err
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return f.Name(), nil
}

// Check compares every file of o with the file at the same path under
// dir. It returns a unified diff, from the disk (a/) to o (b/), of every
// file that differs or is missing (shown as /dev/null), or "" when all
// match. Names in the diff are o's slash-separated paths, relative to
// dir. Files on disk that o does not hold are not reported.
func (o *Output) Check(dir string) (diff string, err error) {
	names, err := o.names()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, name := range names {
		data := o.Files[name]
		old, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		missing := errors.Is(err, fs.ErrNotExist)
		if err != nil && !missing {
			return "", err
		}
		if !missing && bytes.Equal(old, data) {
			continue
		}
		ud := difflib.UnifiedDiff{
			A:        splitLines(old),
			B:        splitLines(data),
			FromFile: "a/" + name,
			ToFile:   "b/" + name,
			Context:  3,
		}
		if missing {
			ud.FromFile = "/dev/null"
		}
		text, err := difflib.GetUnifiedDiffString(ud)
		if err != nil {
			return "", err
		}
		if text == "" { // cannot happen with splitLines, but never report clean
			text = fmt.Sprintf("--- %s\n+++ %s\nfiles differ\n", ud.FromFile, ud.ToFile)
		}
		b.WriteString(text)
	}
	return b.String(), nil
}

// names returns o's file names sorted, after checking each is a local
// slash-separated path.
func (o *Output) names() ([]string, error) {
	names := make([]string, 0, len(o.Files))
	for name := range o.Files {
		if !filepath.IsLocal(filepath.FromSlash(name)) || strings.Contains(name, `\`) {
			return nil, fmt.Errorf("gen: output path %q is not a local slash-separated path", name)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

// splitLines splits s into lines that keep their "\n". A last line without
// one gets git's marker, so that a change in the final newline shows in
// the diff.
func splitLines(s []byte) []string {
	if len(s) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(s), "\n")
	if last := lines[len(lines)-1]; last == "" {
		lines = lines[:len(lines)-1]
	} else {
		lines[len(lines)-1] = last + "\n\\ No newline at end of file\n"
	}
	return lines
}
