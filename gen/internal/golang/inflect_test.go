package golang

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jinzhu/inflection"
)

// inflectWords are words each of jinzhu/inflection's singular rules
// applies to, in the cases it distinguishes (upper, title, lower, mixed),
// words near them that it must leave alone, and words outside ASCII.
var inflectWords = []string{
	"", "s", "S", "ss", "accounts", "Accounts", "ACCOUNTS", "aCCounts", "account", "users", "news", "NEWS", "News",
	"data", "media", "criteria", "analyses", "Analyses", "ANALYSES", "analysis", "bases", "diagnoses", "parentheses",
	"prognoses", "synopses", "theses", "paralyses", "wives", "knives", "hives", "archives", "natives", "halves", "wolves",
	"scarves", "queries", "Queries", "QUERIES", "categories", "series", "Series", "movies", "cookies", "boxes", "matches",
	"classes", "dishes", "mice", "lice", "Mice", "buses", "bus", "heroes", "potatoes", "shoes", "crises", "testes", "axes",
	"Axes", "AXES", "axis", "octopi", "viri", "octopus", "virus", "aliases", "statuses", "alias", "status", "oxen", "Oxen",
	"OXEN", "oxenfree", "ox", "vertices", "indices", "matrices", "quizzes", "databases", "Databases", "DATABASES",
	"people", "People", "PEOPLE", "salespeople", "men", "Men", "MEN", "women", "children", "Children", "sexes", "moves",
	"Moves", "mombies", "person", "equipment", "EQUIPMENT", "Information", "rice", "money", "species", "fish", "sheep",
	"jeans", "police", "Police", "price", "campus", "meta", "metadata", "calories", "waves", "my_meta", "user_roles",
	"audit_log_entries", "schema_migrations", "s2_news_items", "addresses", "process", "processes", "access",
	"business", "businesses", "statistics", "status_updates", "ſ", "newſ", "ACCOUNTſ", "K", "kiss", "café", "cafés",
	"naïve_users", "ünits", "日本s", "x", "xes", "a", "ta", "ia", "es", "is", "us", "i", "ies", "ves", "oes",
}

// TestInflectSingular compares inflectSingular with jinzhu/inflection's
// Singular on inflectWords and on every table name of ../shared/corpus
// (when present), also upper-cased and title-cased.
func TestInflectSingular(t *testing.T) {
	words := append([]string(nil), inflectWords...)
	words = append(words, corpusTableNames(t)...)
	n := 0
	for _, w := range words {
		for _, v := range []string{w, strings.ToUpper(w), strings.ToUpper(w[:min(1, len(w))]) + w[min(1, len(w)):]} {
			n++
			if got, want := inflectSingular(v), inflection.Singular(v); got != want {
				t.Errorf("inflectSingular(%q) = %q, jinzhu/inflection gives %q", v, got, want)
			}
		}
	}
	if n < 3*len(inflectWords) {
		t.Fatalf("compared %d words", n)
	}
}

// FuzzInflectSingular compares inflectSingular with jinzhu/inflection's
// Singular on any string. Seeds: inflectWords and the table names of
// ../shared/corpus.
func FuzzInflectSingular(f *testing.F) {
	for _, w := range inflectWords {
		f.Add(w)
	}
	for _, w := range corpusTableNames(f) {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, w string) {
		if got, want := inflectSingular(w), inflection.Singular(w); got != want {
			t.Errorf("inflectSingular(%q) = %q, jinzhu/inflection gives %q", w, got, want)
		}
	})
}

// tableNameRE finds the name a CREATE TABLE statement gives (its last
// dotted part, unquoted).
var tableNameRE = regexp.MustCompile(`(?i)create\s+table\s+(?:if\s+not\s+exists\s+)?(?:"?\w+"?\.)?"?(\w+)"?`)

// corpusTableNames are the table names the .sql files of ../shared/corpus
// create, sorted and without repeats; none when the corpus is absent.
func corpusTableNames(tb testing.TB) []string {
	tb.Helper()
	seen := map[string]bool{}
	_ = filepath.WalkDir(filepath.Join("..", "..", "..", "..", "shared", "corpus"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".sql" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		for _, m := range tableNameRE.FindAllStringSubmatch(string(b), -1) {
			seen[m[1]] = true
		}
		return nil
	})
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
