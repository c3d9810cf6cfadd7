package gen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/golang"
)

// Write writes every file of o under dir, creating directories as needed.
// Files whose contents on disk already match are left alone (their
// modification times do not change); a file that differs only in having
// CRLF line endings, as a Windows checkout with git's core.autocrlf
// writes it, matches. Each file is written to a temporary file in its
// directory and renamed into place, so an interrupted run never leaves a
// truncated file. Files are written with mode 0644.
//
// After that, Write removes the files fencegen generated earlier that o
// no longer holds (a query file emptied or removed from the
// configuration, the last :copyfrom or :batch query deleted): only in
// o.Dirs, only regular .go and .sql files that start with fencegen's
// generated header, never any other file or directory.
//
// Write checks every path before writing anything: a path that is not
// local to dir (absolute, or escaping it with "..") is an error, and so
// is a fencegen_guard.sql (GuardFile) on disk that differs and does not
// start with fencegen's header (a file of the team's at fencegen's own
// name); a file at one of sqlc's names is written over, as sqlc does.
// Write(dir) is o.Changes(dir) followed by Apply, except that a file
// Write cannot read is written over rather than reported.
func (o *Output) Write(dir string) error {
	c, err := o.changes(dir, false)
	if err != nil {
		return err
	}
	return c.Apply()
}

// Changes is what Write would do to a directory, as Output.Changes found
// it: the names of the files to write (missing or different on disk) and
// of those to remove (see Write), each sorted and slash-separated relative
// to the directory like the names of Output.Files.
type Changes struct {
	Write, Remove []string

	out *Output
	dir string
}

// Changes returns what Write(dir) would do now. It writes nothing; an
// output file that exists but cannot be read is an error. Apply on the
// result does it without comparing the disk again.
func (o *Output) Changes(dir string) (*Changes, error) {
	return o.changes(dir, true)
}

// changes is Changes; with strict false, an output file that cannot be
// read is taken to differ (Write's behaviour) instead of being an error.
func (o *Output) changes(dir string, strict bool) (*Changes, error) {
	names, err := o.names()
	if err != nil {
		return nil, err
	}
	c := &Changes{out: o, dir: dir}
	var foreign diag.List
	for _, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		old, err := os.ReadFile(p)
		if strict && err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if err != nil || !sameContent(old, o.Files[name]) {
			c.Write = append(c.Write, name)
		}
		if err == nil && path.Base(name) == GuardFile && !sameContent(old, o.Files[name]) {
			// fencegen's own file name, which no sqlc user had to
			// reserve: one fencegen did not write is a file of the
			// team's (their own trigger, say), not replaced without a
			// word (trial tnew F8). sqlc's names (db.go, models.go, ...)
			// are written over, as sqlc does.
			if ok, gerr := generated(p); gerr == nil && !ok {
				foreign = append(foreign, &diag.Error{File: p, Msg: fmt.Sprintf("exists and was not written by fencegen (its first line is not %q), and fencegen writes the database guard under this name: move or rename it; nothing was written", "-- "+golang.Header)})
			}
		}
	}
	if err := foreign.Err(); err != nil {
		return nil, err
	}
	if c.Remove, err = o.stale(dir); err != nil {
		return nil, err
	}
	return c, nil
}

// Apply writes the files in c.Write and removes those in c.Remove, as
// Write does (temporary files renamed into place, nothing renamed unless
// every temporary file was written), without reading the disk again: a
// file changed on disk since Changes is not looked at.
func (c *Changes) Apply() error {
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
	for _, name := range c.Write {
		p := filepath.Join(c.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		tmp, err := writeTemp(p, c.out.Files[name])
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
	// Phase 3: remove what fencegen generated earlier and no longer
	// writes.
	for _, name := range c.Remove {
		if err := os.Remove(filepath.Join(c.dir, filepath.FromSlash(name))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// sameContent reports whether the file on disk, old, holds data, allowing
// CRLF line endings in old where data has LF.
func sameContent(old, data []byte) bool {
	if bytes.Equal(old, data) {
		return true
	}
	return bytes.Contains(old, []byte("\r\n")) && bytes.Equal(bytes.ReplaceAll(old, []byte("\r\n"), []byte("\n")), data)
}

// stale returns the slash-separated names, relative to dir and sorted, of
// the files in o.Dirs that fencegen generated (see generated) and o does
// not hold.
func (o *Output) stale(dir string) ([]string, error) {
	var out []string
	for _, d := range o.Dirs {
		if d != "." && (!filepath.IsLocal(filepath.FromSlash(d)) || strings.Contains(d, `\`)) {
			return nil, fmt.Errorf("gen: output directory %q is not a local slash-separated path", d)
		}
		ents, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(d)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, de := range ents {
			n := de.Name()
			name := path.Join(d, n)
			if !de.Type().IsRegular() || (!strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, ".sql")) {
				continue
			}
			if _, ok := o.Files[name]; ok {
				continue
			}
			ok, err := generated(filepath.Join(dir, filepath.FromSlash(name)))
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// generated reports whether the file at p starts as the files fencegen
// writes do: a .go file with the line "// Code generated by fencegen. DO
// NOT EDIT." among the comment lines above its package clause (after
// build constraints, as with sqlc's build_tags), or a .sql file whose
// first line is "-- Code generated by fencegen. DO NOT EDIT.". Another
// generator's header (sqlc's "// Code generated by sqlc. DO NOT EDIT.")
// does not count: those files are not fencegen's to remove.
func generated(p string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	head := strings.TrimPrefix(string(buf[:n]), "\ufeff")
	if strings.HasSuffix(p, ".sql") {
		first, _, _ := strings.Cut(head, "\n")
		return strings.TrimSuffix(first, "\r") == "-- "+golang.Header, nil
	}
	for _, line := range strings.Split(head, "\n") {
		line = strings.TrimSuffix(line, "\r")
		switch {
		case line == "// "+golang.Header:
			return true, nil
		case line == "" || strings.HasPrefix(line, "//"):
			continue
		}
		return false, nil // the package clause, or anything else
	}
	return false, nil
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
// file that differs or is missing (shown as /dev/null), and of every file
// that Write would remove (shown as a deletion, to /dev/null), or "" when
// all match. As in Write, CRLF line endings on disk match LF. Names in
// the diff are slash-separated paths relative to dir. Other files on disk
// that o does not hold are not reported.
func (o *Output) Check(dir string) (diff string, err error) {
	names, err := o.names()
	if err != nil {
		return "", err
	}
	stale, err := o.stale(dir)
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
		if !missing && sameContent(old, data) {
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
	for _, name := range stale {
		old, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return "", err
		}
		text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: splitLines(old), FromFile: "a/" + name, ToFile: "/dev/null", Context: 3,
		})
		if err != nil {
			return "", err
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
