package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// proseShingle is the length of the word runs of prose TestDocsDoNotRepeat
// compares: twelve consecutive words is a clause, longer than the stock
// phrases ("the fencing token of the lease") that pages share by design.
// codeShingle is the length for code blocks, whose boilerplate (an sqlc
// configuration's "version 2 sql engine postgresql schema ...") is longer.
const (
	proseShingle = 12
	codeShingle  = 20
)

// docWord is one normalised word of a page and the line it is on; code is
// true inside a fenced code block. An empty w is a break (the end of a
// paragraph, a table cell or a code block) that no run of words crosses.
type docWord struct {
	w    string
	line int
	code bool
}

// docWords returns the words of a Markdown page but its headings,
// lower-cased, with link targets and punctuation dropped (a link's text
// stays), so that a passage copied with other links or emphasis still
// matches. Paragraphs, table cells and code blocks end in a break: the
// cells of a table of results ("build OK, vet OK") are data, not a passage.
func docWords(doc string) []docWord {
	var words []docWord
	inCode := false
	for i, line := range strings.Split(doc, "\n") {
		brk := docWord{"", i + 1, inCode}
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			words = append(words, brk)
			continue
		}
		if !inCode && (strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "") {
			words = append(words, brk)
			continue
		}
		if !inCode {
			line = linkTarget.ReplaceAllString(line, "]")
		}
		cells := []string{line}
		table := !inCode && strings.HasPrefix(strings.TrimSpace(line), "|")
		if table {
			cells = strings.Split(line, "|")
		}
		for _, cell := range cells {
			for _, f := range strings.FieldsFunc(strings.ToLower(cell), func(r rune) bool {
				return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '\''
			}) {
				if f = strings.Trim(f, "'"); f != "" {
					words = append(words, docWord{f, i + 1, inCode})
				}
			}
			if table {
				words = append(words, brk)
			}
		}
	}
	return words
}

// docPage is a page's name (slash-separated, from the repository's root)
// and its text.
type docPage struct{ name, text string }

// codeQuote is a passage of code blocks that two pages may both show
// because a test keeps each equal to what a program prints.
type codeQuote struct {
	pages [2]string // the two pages, in the order docRepeats reads them
	start string    // the passage's first words, normalised by docWords
	test  string    // the test that checks both
}

// quotedOutputs are the passages of code blocks exempt from
// TestDocsDoNotRepeat: outputs a test compares with a real run.
var quotedOutputs = []codeQuote{
	{[2]string{"README.md", "docs/demo.md"}, "no key no outbox payout 42 paid out 2 times", "examples/payouts TestDoublePaymentWithoutKeyOrOutbox"},
}

// docRepeats returns one line per passage found twice: a run of
// proseShingle words of prose on two pages or twice on one, or a run of
// codeShingle words of code blocks on two pages (a page's own code blocks
// may repeat: the outputs of two runs share lines), unless quotes exempts
// it. used reports which entries of quotes exempted a passage. The first
// place of a passage is the earlier in pages.
func docRepeats(pages []docPage, quotes []codeQuote) (repeats []string, used []bool) {
	type place struct {
		page int
		word int
	}
	words := make([][]docWord, len(pages))
	seen := map[string]place{}
	var found [][2]place
	for pi, pg := range pages {
		ws := docWords(pg.text)
		words[pi] = ws
		for i := range ws {
			n := proseShingle
			if ws[i].code {
				n = codeShingle
			}
			if i+n > len(ws) {
				continue
			}
			var b strings.Builder
			for _, w := range ws[i : i+n] {
				if w.w == "" {
					b.Reset()
					break
				}
				b.WriteString(w.w)
				b.WriteByte(' ')
			}
			key := b.String()
			if key == "" {
				continue
			}
			if ws[i].code {
				key = "code: " + key
			}
			first, ok := seen[key]
			if !ok {
				seen[key] = place{pi, i}
				continue
			}
			if !ws[i].code || first.page != pi {
				found = append(found, [2]place{first, {pi, i}})
			}
		}
	}
	used = make([]bool, len(quotes))
	// Merge the runs that continue one another (both places advance by
	// one word), so that a repeated paragraph is one line.
	for i := 0; i < len(found); {
		j := i + 1
		for j < len(found) && found[j][1].page == found[i][1].page && found[j][1].word == found[j-1][1].word+1 &&
			found[j][0].page == found[i][0].page && found[j][0].word == found[j-1][0].word+1 {
			j++
		}
		a, b := found[i][0], found[i][1]
		aw, bw := words[a.page], words[b.page]
		n := j - i + proseShingle - 1
		if bw[b.word].code {
			n = j - i + codeShingle - 1
		}
		var text []string
		for _, w := range bw[b.word : b.word+n] {
			text = append(text, w.w)
		}
		passage := strings.Join(text, " ")
		i = j
		exempt := false
		for q, quote := range quotes {
			if bw[b.word].code && quote.pages == [2]string{pages[a.page].name, pages[b.page].name} && strings.HasPrefix(passage, quote.start) {
				used[q], exempt = true, true
			}
		}
		if !exempt {
			repeats = append(repeats, fmt.Sprintf("%s:%d repeats %s:%d (%d words): %s",
				pages[b.page].name, bw[b.word].line, pages[a.page].name, aw[a.word].line, n, passage))
		}
	}
	return repeats, used
}

// TestDocsDoNotRepeat keeps every passage in one place (issue 25: "no
// page repeats another"): it fails when docRepeats finds a passage twice
// in the README, go.generate.md and docs/ (BENCHMARKS.md, a record of
// measurements, aside), and prints both places. Code blocks count as well,
// across pages, but for the outputs in quotedOutputs, which a test keeps
// equal to a real run on both pages.
func TestDocsDoNotRepeat(t *testing.T) {
	root := filepath.Join("..", "..")
	names, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	names = append([]string{filepath.Join(root, "README.md"), filepath.Join(root, "go.generate.md")}, names...)
	var pages []docPage
	words := 0
	for _, name := range names {
		text := readDoc(t, name)
		words += len(strings.Fields(text))
		pages = append(pages, docPage{rel(root, name), text})
	}
	if len(pages) < 8 || words < 10000 {
		t.Fatalf("read %d pages, %d words; the docs have more", len(pages), words)
	}
	repeats, used := docRepeats(pages, quotedOutputs)
	for _, r := range repeats {
		t.Error(r)
	}
	for i, u := range used {
		if !u {
			t.Errorf("quotedOutputs[%d] (%s, %q) matches no repeated passage: remove it", i, quotedOutputs[i].pages, quotedOutputs[i].start)
		}
	}
}

// TestDocRepeatsFindsCopies runs docRepeats on pages made up here: a
// sentence copied onto a second page with other links and emphasis, a
// sentence said twice on one page and a code block copied onto a second
// page are found, with both places; a table of short results, a page's
// own repeated output lines and an exempt quote are not.
func TestDocRepeatsFindsCopies(t *testing.T) {
	sentence := "a fenced write whose WHERE clause matches no row returns a NotFoundError where sqlc returns nil"
	code := "```go\nerr := locker.Do(ctx, \"payout:42\", ttl, func(ctx context.Context, l *lease.Lease) error {\n\treturn q.MarkPaid(ctx, 42, l.Token())\n})\n```\n"
	output := "```\nworker 1 acquired lease payout:42, fencing token 1, and wrote the row while it still held the lease on the payout\n```\n"
	table := "| a | b |\n| --- | --- |\n| build OK, vet OK, 1 passed | build OK, vet OK, 1 passed |\n| build OK, vet OK, 1 passed | build OK, vet OK, 1 passed |\n"
	pages := []docPage{
		{"one.md", "# One\n\n" + sentence + ".\n\n" + code + "\n" + table + "\n" + output + output},
		{"two.md", "Intro.\n\nA *fenced* write whose [WHERE clause](x.md#where) matches\nno row returns a `NotFoundError` where sqlc returns `nil`.\n\n" +
			"Other text that is long enough to be a run, said here once and then said here once again.\n\n" +
			"Other text that is long enough to be a run, said here once and then said here once again.\n\n" + code + output},
	}
	quotes := []codeQuote{{[2]string{"one.md", "two.md"}, "worker 1 acquired lease", "none"}}
	repeats, used := docRepeats(pages, quotes)
	want := []string{
		"two.md:3 repeats one.md:3 (16 words): " + strings.Join(strings.Fields(strings.ToLower(strings.NewReplacer("WHERE", "where").Replace(sentence))), " "),
		"two.md:8 repeats two.md:6 (19 words): other text that is long enough to be a run said here once and then said here once again",
	}
	if len(repeats) != 3 || repeats[0] != want[0] || repeats[1] != want[1] || repeats[2] != "two.md:11 repeats one.md:6 (22 words): err locker do ctx payout 42 ttl func ctx context context l lease lease error return q markpaid ctx 42 l token" {
		t.Errorf("docRepeats found:\n%s\nwant:\n%s\nand the code block two.md:11 of one.md:6", strings.Join(repeats, "\n"), strings.Join(want, "\n"))
	}
	if !used[0] {
		t.Errorf("the quote of the output exempted nothing")
	}
}

func rel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// linkTarget matches the target of a Markdown link, "](...)", which is
// not prose.
var linkTarget = regexp.MustCompile(`\]\([^)]*\)`)

// TestDocsIndexEverySection keeps docs/README.md the one index of the
// reference (issue 25): it links every page of docs/, go.generate.md and
// BENCHMARKS.md, and every second-level heading ("## ...") of those pages
// but BENCHMARKS.md, whose sections are figures, not subjects to look up.
// TestDocLinksResolve checks that each link lands.
func TestDocsIndexEverySection(t *testing.T) {
	root := filepath.Join("..", "..")
	index := stripCode(readDoc(t, filepath.Join(root, "docs", "README.md")))
	linked := map[string]bool{}
	for _, m := range regexp.MustCompile(`\]\(([^)\s]+)\)`).FindAllStringSubmatch(index, -1) {
		file, frag, _ := strings.Cut(m[1], "#")
		if file == "" || strings.Contains(file, "://") {
			continue
		}
		p := filepath.ToSlash(filepath.Clean(filepath.Join("docs", filepath.FromSlash(file))))
		linked[p] = true
		if frag != "" {
			linked[p+"#"+frag] = true
		}
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "go.generate.md"), filepath.Join(root, "BENCHMARKS.md"))
	sections := 0
	for _, page := range pages {
		name := rel(root, page)
		if name == "docs/README.md" {
			continue
		}
		if !linked[name] {
			t.Errorf("docs/README.md does not link %s", name)
		}
		if name == "BENCHMARKS.md" {
			continue
		}
		for _, line := range strings.Split(stripCode(readDoc(t, page)), "\n") {
			if !strings.HasPrefix(line, "## ") {
				continue
			}
			sections++
			slug := headingSlugs(line)[0]
			if !linked[name+"#"+slug] {
				t.Errorf("docs/README.md does not link the section %q of %s (%s#%s)", strings.TrimPrefix(line, "## "), name, name, slug)
			}
		}
	}
	if sections < 20 {
		t.Errorf("found %d sections in %d pages; the reference has more", sections, len(pages))
	}
}
