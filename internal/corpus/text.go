package main

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/fencegen/fencegen/internal/genheader"
)

// TextDiff is the comparison of two sets of generated files after their
// headers.
type TextDiff struct {
	// Lines is the number of differing lines: lines only sqlc's files
	// have plus lines only fencegen's have (a file only one side wrote
	// counts whole).
	Lines int
	// Files are the names of the files that differ, sorted.
	Files []string
	// Unified is the unified diff of the files that differ, sqlc's as
	// the old side.
	Unified string
}

// CompareText compares every file sqlc generated with fencegen's of the
// same name, byte for byte after genheader.Strip.
func CompareText(sqlc, fence map[string][]byte) TextDiff {
	names := map[string]bool{}
	for n := range sqlc {
		names[n] = true
	}
	for n := range fence {
		names[n] = true
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var d TextDiff
	var u strings.Builder
	for _, n := range sorted {
		s, sok := sqlc[n]
		f, fok := fence[n]
		if sok {
			s = genheader.Strip(s)
		}
		if fok {
			f = genheader.Strip(f)
		}
		if sok && fok && bytes.Equal(s, f) {
			continue
		}
		d.Files = append(d.Files, n)
		a, b := splitLines(s), splitLines(f)
		if !sok {
			a = nil
		}
		if !fok {
			b = nil
		}
		d.Lines += changedLines(a, b)
		text, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: a, B: b, FromFile: "sqlc/" + n, ToFile: "fencegen/" + n, Context: 2})
		u.WriteString(text)
		if text != "" && !strings.HasSuffix(text, "\n") {
			u.WriteString("\n")
		}
	}
	d.Unified = u.String()
	return d
}

// splitLines splits b after each line break (a last line without one
// kept).
func splitLines(b []byte) []string {
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// changedLines is the number of lines of a not matched in b plus those
// of b not matched in a.
func changedLines(a, b []string) int {
	m := difflib.NewMatcherWithJunk(a, b, false, nil)
	same := 0
	for _, blk := range m.GetMatchingBlocks() {
		same += blk.Size
	}
	return len(a) - same + len(b) - same
}

// compareText sets c.Text, c.TextLines and c.textDiff: whether fencegen's
// files have sqlc's text after the header.
func compareText(c *Case) {
	if c.SqlcStatus != "ok" || c.files == nil {
		c.Text = "n.a."
		return
	}
	d := CompareText(c.sqlcFiles, c.files)
	c.TextLines, c.TextFiles, c.textDiff = d.Lines, d.Files, d.Unified
	if len(d.Files) == 0 {
		c.Text = "identical"
	} else {
		c.Text = fmt.Sprintf("%d lines differ", d.Lines)
	}
}
