package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/fencegen/fencegen/internal/genheader"
)

// fileDiff is the comparison of one generated file.
type fileDiff struct {
	Name           string // relative to the example module, slash-separated
	Removed, Added int    // sqlc's lines not in fencegen's, and the reverse
	Unified        string // "" when the texts are the same
}

// lines splits a file's text after its header (genheader.Strip) into
// lines, each with its newline.
func lines(text string) []string {
	out := strings.SplitAfter(string(genheader.Strip([]byte(text))), "\n")
	if n := len(out); n > 0 && out[n-1] == "" {
		out = out[:n-1]
	}
	return out
}

// diffOutputs compares the files sqlc generated in sqlcDir with the ones
// fencegen generated in fgDir (both an entry's output folder); name is the
// folder's path for the diff's file names.
func diffOutputs(sqlcDir, fgDir, name string) ([]fileDiff, error) {
	sqlcFiles, err := generatedFiles(sqlcDir, "sqlc")
	if err != nil {
		return nil, err
	}
	fgFiles, err := generatedFiles(fgDir, "fencegen")
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	all := map[string]bool{}
	for _, f := range sqlcFiles {
		all[f] = true
	}
	for _, f := range fgFiles {
		all[f] = true
	}
	in := func(list []string, f string) bool {
		for _, x := range list {
			if x == f {
				return true
			}
		}
		return false
	}
	var diffs []fileDiff
	for _, f := range sortedKeys(all) {
		var a, b string
		if in(sqlcFiles, f) {
			x, err := os.ReadFile(filepath.Join(sqlcDir, f))
			if err != nil {
				return nil, err
			}
			a = string(x)
		}
		if in(fgFiles, f) {
			x, err := os.ReadFile(filepath.Join(fgDir, f))
			if err != nil {
				return nil, err
			}
			b = string(x)
		}
		diffs = append(diffs, diffText(name+"/"+f, a, b))
	}
	return diffs, nil
}

// diffText compares sqlc's text a with fencegen's b of the file name,
// version headers aside ("" is a file the tool did not write).
func diffText(name, a, b string) fileDiff {
	al, bl := lines(a), lines(b)
	d := fileDiff{Name: name}
	ud := difflib.UnifiedDiff{A: al, B: bl, FromFile: "sqlc/" + name, ToFile: "fencegen/" + name, Context: 3}
	if a == "" {
		ud.FromFile = "/dev/null"
	}
	if b == "" {
		ud.ToFile = "/dev/null"
	}
	text, _ := difflib.GetUnifiedDiffString(ud)
	if text == "" {
		return d
	}
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "---") || strings.HasPrefix(l, "+++"):
		case strings.HasPrefix(l, "-"):
			d.Removed++
		case strings.HasPrefix(l, "+"):
			d.Added++
		}
	}
	// A last line without its newline would run into the next header.
	if !strings.HasSuffix(text, "\n") {
		text += "\n\\ No newline at end of file\n"
	}
	d.Unified = text
	return d
}

// report is the whole comparison.
type report struct {
	entries []*entry
}

// sqlcPassed counts the tests that pass on sqlc's output.
func (r *report) sqlcPassed() int {
	n := 0
	for _, e := range r.entries {
		if e.sqlc != nil {
			n += e.sqlc.count("pass")
		}
	}
	return n
}

// regressions lists e's tests that pass on sqlc's output and not on
// fencegen's, with fencegen's result.
func (e *entry) regressions() []string {
	if e.sqlc == nil {
		return nil
	}
	var out []string
	for _, t := range sortedKeys(e.sqlc.tests) {
		if e.sqlc.tests[t] != "pass" {
			continue
		}
		got := "not run"
		if e.fg != nil {
			if a, ok := e.fg.tests[t]; ok {
				got = a
			}
		}
		if got != "pass" {
			out = append(out, fmt.Sprintf("%s: %s passes on sqlc's output, %s on fencegen's", e.label(), t, got))
		}
	}
	return out
}

// changedLines is the number of differing lines (removed plus added).
func (e *entry) changedLines() (removed, added int) {
	for _, d := range e.diffs {
		removed += d.Removed
		added += d.Added
	}
	return removed, added
}

// failures lists what makes the run fail (see the package comment).
func (r *report) failures(strictText bool) []string {
	var out []string
	for _, e := range r.entries {
		if !generatedEngine(e.Engine) {
			continue
		}
		if e.gen != nil && e.gen.err != "" {
			out = append(out, fmt.Sprintf("%s: fencegen generate failed: %s", e.label(), e.gen.err))
			continue
		}
		if e.sqlc.ok(e.sqlc.build) && e.fg != nil && !e.fg.ok(e.fg.build) {
			out = append(out, fmt.Sprintf("%s: fencegen's output does not build where sqlc's does", e.label()))
		}
		if e.sqlc.ok(e.sqlc.vet) && e.fg != nil && !e.fg.ok(e.fg.vet) {
			out = append(out, fmt.Sprintf("%s: go vet fails on fencegen's output where sqlc's passes", e.label()))
		}
		out = append(out, e.regressions()...)
		if removed, added := e.changedLines(); strictText && !e.fenced && removed+added > 0 {
			out = append(out, fmt.Sprintf("%s: -strict-text: %d generated lines differ from sqlc's (-%d +%d) and no table is fenced", e.label(), removed+added, removed, added))
		}
	}
	return out
}

func cell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}

// write prints the Markdown report.
func (r *report) write(w io.Writer, o options) {
	fmt.Fprintln(w, "| example | engine | sql_package | sqlc's output: build, vet, tests | fencegen's output: build, vet, tests | generated lines differing (header aside) |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- |")
	var pgEntries, regressions, tests, fgPassed, mysql, diffLines, unfencedDiff int
	for _, e := range r.entries {
		if !generatedEngine(e.Engine) {
			mysql++
			fmt.Fprintf(w, "| %s | %s | %s | — | not generated (engine %s) | — |\n", e.label(), e.Engine, e.SQLPackage, e.Engine)
			continue
		}
		pgEntries++
		fg := e.fg.summary()
		if e.gen.err != "" {
			fg = "generate failed"
		}
		removed, added := e.changedLines()
		diffLines += removed + added
		if !e.fenced {
			unfencedDiff += removed + added
		}
		changed := fmt.Sprintf("none in %d files", len(e.diffs))
		if removed+added > 0 {
			changed = fmt.Sprintf("%d (-%d +%d) in %d of %d files", removed+added, removed, added, changedFiles(e.diffs), len(e.diffs))
		}
		if e.fenced {
			changed += ", fenced"
		}
		regressions += len(e.regressions())
		tests += e.sqlc.count("pass")
		if e.fg != nil {
			fgPassed += e.fg.count("pass")
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", e.label(), e.Engine, e.SQLPackage, e.sqlc.summary(), fg, changed)
	}
	fmt.Fprintf(w, "\n%d PostgreSQL and MySQL entries: %d tests pass on sqlc's output, %d on fencegen's, %d regressions; %d generated lines differ (%d in entries without a fenced table); %d entries of other engines not generated.\n",
		pgEntries, tests, fgPassed, regressions, diffLines, unfencedDiff, mysql)

	fmt.Fprintln(w, "\n### Tests")
	fmt.Fprintln(w, "\n| example | test | on sqlc's output | on fencegen's output |")
	fmt.Fprintln(w, "| --- | --- | --- | --- |")
	for _, e := range r.entries {
		if !generatedEngine(e.Engine) {
			continue
		}
		names := map[string]bool{}
		for t := range e.sqlc.tests {
			names[t] = true
		}
		if e.fg != nil {
			for t := range e.fg.tests {
				names[t] = true
			}
		}
		if len(names) == 0 {
			fmt.Fprintf(w, "| %s | (no tests) | — | — |\n", e.label())
		}
		for _, t := range sortedKeys(names) {
			a, b := e.sqlc.tests[t], "not run"
			if a == "" {
				a = "not run"
			}
			if e.fg != nil && e.fg.tests[t] != "" {
				b = e.fg.tests[t]
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", e.label(), cell(t), a, b)
		}
	}

	// Failures' details: build, vet and test output on either side.
	var details strings.Builder
	for _, e := range r.entries {
		if !generatedEngine(e.Engine) {
			continue
		}
		if e.gen.err != "" {
			fmt.Fprintf(&details, "\nfencegen generate (%s/%s): %s\n%s\n", e.Example, e.Config, e.gen.err, e.gen.output)
		}
		for _, side := range []struct {
			name string
			r    *pkgResult
		}{{"sqlc's", e.sqlc}, {"fencegen's", e.fg}} {
			if side.r == nil {
				continue
			}
			if !side.r.ok(side.r.build) {
				fmt.Fprintf(&details, "\n%s, go build on %s output:\n%s\n", e.label(), side.name, side.r.build)
			}
			if !side.r.ok(side.r.vet) {
				fmt.Fprintf(&details, "\n%s, go vet on %s output:\n%s\n", e.label(), side.name, side.r.vet)
			}
			if side.r.testErr != "" {
				fmt.Fprintf(&details, "\n%s, go test on %s output:\n%s\n", e.label(), side.name, side.r.testErr)
			}
			for _, t := range sortedKeys(side.r.tests) {
				if side.r.tests[t] == "fail" {
					fmt.Fprintf(&details, "\n%s, %s on %s output:\n%s", e.label(), t, side.name, side.r.testOut[t])
				}
			}
		}
	}
	if details.Len() > 0 {
		fmt.Fprintln(w, "\n### Failures\n\n```")
		fmt.Fprint(w, strings.TrimLeft(details.String(), "\n"))
		fmt.Fprintln(w, "```")
	}

	var notes []string
	seen := map[*genResult]bool{}
	for _, e := range r.entries {
		if e.gen == nil || seen[e.gen] || e.gen.err != "" {
			continue
		}
		seen[e.gen] = true
		for _, n := range e.gen.notes() {
			notes = append(notes, fmt.Sprintf("examples/%s: %s", e.Example, n))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\n### fencegen generate's output\n\n```")
		for _, n := range notes {
			fmt.Fprintln(w, n)
		}
		fmt.Fprintln(w, "```")
	}

	if o.diff && diffLines > 0 {
		fmt.Fprintln(w, "\n### Generated files: sqlc's and fencegen's, version header aside\n\n```diff")
		for _, e := range r.entries {
			for _, d := range e.diffs {
				fmt.Fprint(w, d.Unified)
			}
		}
		fmt.Fprintln(w, "```")
	}
}

func changedFiles(ds []fileDiff) int {
	n := 0
	for _, d := range ds {
		if d.Unified != "" {
			n++
		}
	}
	return n
}
