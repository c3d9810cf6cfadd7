package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// shingleWords is the length of the word runs TestDocsDoNotRepeat compares:
// twelve consecutive words is a clause, longer than the stock phrases
// ("the fencing token of the lease") that pages share by design.
const shingleWords = 12

// docWord is one normalised word of a page's prose and the line it is on;
// an empty w is a break (a paragraph's or a table cell's end) that no run
// of words crosses.
type docWord struct {
	w    string
	line int
}

// proseWords returns the words of a Markdown page outside fenced code
// blocks and headings, lower-cased, with link targets and punctuation
// dropped (a link's text stays), so that a passage copied with different
// links or emphasis still matches. Paragraphs and table cells end in a
// break: the cells of a table of results ("build OK, vet OK") are data,
// not a passage.
func proseWords(doc string) []docWord {
	var words []docWord
	inCode := false
	for i, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			continue
		}
		if inCode || strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			words = append(words, docWord{"", i + 1})
			continue
		}
		line = linkTarget.ReplaceAllString(line, "]")
		for _, cell := range strings.Split(line, "|") {
			for _, f := range strings.FieldsFunc(strings.ToLower(cell), func(r rune) bool {
				return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '\''
			}) {
				if f = strings.Trim(f, "'"); f != "" {
					words = append(words, docWord{f, i + 1})
				}
			}
			if strings.HasPrefix(strings.TrimSpace(line), "|") {
				words = append(words, docWord{"", i + 1})
			}
		}
	}
	return words
}

// TestDocsDoNotRepeat keeps every passage in one place (issue 25: "no
// page repeats another"): it fails when a run of shingleWords consecutive
// words of prose (outside code blocks, normalised by proseWords) appears on
// two pages of the README, go.generate.md and docs/, or twice on one page,
// and prints both places. Code blocks are not prose: the README's are
// quotes of examples/ kept equal to them by TestReadmeQuotesExamples, and
// docs/' by the doc tests of gen and examples/payouts.
func TestDocsDoNotRepeat(t *testing.T) {
	root := filepath.Join("..", "..")
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join(root, "README.md"), filepath.Join(root, "go.generate.md")}, pages...)
	type place struct {
		page string
		word int
	}
	seen := map[string]place{}
	words := map[string][]docWord{}
	// repeats maps a first place to the later places of its passage,
	// merged so that a repeated paragraph is reported once.
	type repeat struct{ a, b place }
	var found []repeat
	for _, page := range pages {
		ws := proseWords(readDoc(t, page))
		words[page] = ws
		for i := 0; i+shingleWords <= len(ws); i++ {
			var b strings.Builder
			for _, w := range ws[i : i+shingleWords] {
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
			if first, ok := seen[key]; ok {
				found = append(found, repeat{first, place{page, i}})
				continue
			}
			seen[key] = place{page, i}
		}
	}
	if len(seen) < 1000 {
		t.Fatalf("read %d distinct runs of %d words in %d pages; the docs have more", len(seen), shingleWords, len(pages))
	}
	// Merge runs that continue one another (a and b both advance by one).
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].b.page != found[j].b.page {
			return found[i].b.page < found[j].b.page
		}
		return found[i].b.word < found[j].b.word
	})
	for i := 0; i < len(found); {
		j := i + 1
		for j < len(found) && found[j].b.page == found[i].b.page && found[j].b.word == found[j-1].b.word+1 &&
			found[j].a.page == found[i].a.page && found[j].a.word == found[j-1].a.word+1 {
			j++
		}
		a, b := found[i].a, found[i].b
		n := j - i + shingleWords - 1
		aw, bw := words[a.page], words[b.page]
		var text []string
		for _, w := range bw[b.word : b.word+n] {
			text = append(text, w.w)
		}
		t.Errorf("%s:%d repeats %s:%d (%d words): %s", rel(root, b.page), bw[b.word].line, rel(root, a.page), aw[a.word].line, n, strings.Join(text, " "))
		i = j
	}
}

func rel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return fmt.Sprint(filepath.ToSlash(r))
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
