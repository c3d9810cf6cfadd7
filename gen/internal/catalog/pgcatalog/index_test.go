package pgcatalog

import (
	"strings"
	"sync"
	"testing"
)

// TestEveryLineIsFound looks every line of the functions, operators and
// relations tables up by its key: the lazy index finds each, parsed, and
// none twice.
func TestEveryLineIsFound(t *testing.T) {
	count := map[string]int{}
	for _, l := range lines(funcsData) {
		count[firstField(l)]++
	}
	total := 0
	for name, n := range count {
		fs := Funcs(name)
		if len(fs) != n {
			t.Errorf("Funcs(%q): %d functions, the table lists %d", name, len(fs), n)
		}
		for _, f := range fs {
			if f.Name != name {
				t.Errorf("Funcs(%q) holds %q", name, f.Name)
			}
		}
		total += len(fs)
	}
	if want := len(lines(funcsData)); total != want || total < 2000 {
		t.Errorf("%d functions found, %d listed", total, want)
	}
	ops := map[string]int{}
	for _, l := range lines(operatorsData) {
		ops[operatorName(l)]++
	}
	for _, name := range []string{"|", "||", "|/", "||/", "|>>", "+", "->>"} {
		if ops[name] == 0 {
			t.Errorf("operator %q: not in the table", name)
		}
	}
	for name, n := range ops {
		os := Operators(name)
		if len(os) != n {
			t.Errorf("Operators(%q): %d, the table lists %d", name, len(os), n)
		}
		for _, o := range os {
			if o.Name != name || o.Result == "" {
				t.Errorf("Operators(%q) holds %+v", name, o)
			}
		}
	}
	for _, l := range lines(relationsData) {
		f := strings.SplitN(l, "|", 3)
		r := LookupRelation(f[0], f[1])
		if r == nil || r.Schema != f[0] || r.Name != f[1] || len(r.Columns) == 0 {
			t.Errorf("LookupRelation(%q, %q) = %+v", f[0], f[1], r)
		}
	}
	if Funcs("no_such_function") != nil || Operators("no such") != nil || LookupRelation("pg_catalog", "no_such") != nil {
		t.Error("a missing name is found")
	}
}

// TestLookupsAreShared runs the same lookups from several goroutines (go
// test -race): each key is parsed once and every caller gets that entry.
func TestLookupsAreShared(t *testing.T) {
	const n = 8
	got := make([][3]any, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = [3]any{Funcs("now")[0], Operators("||")[0], LookupRelation("pg_catalog", "pg_class")}
		}()
	}
	wg.Wait()
	for i := 1; i < n; i++ {
		if got[i] != got[0] {
			t.Errorf("goroutine %d got other entries than goroutine 0: %v, %v", i, got[i], got[0])
		}
	}
}

// TestSortedTables: a table looked up by binary search (index.order) lists
// its lines in its order: the functions by name, the relations by line
// (the generator's slices.Sort); a table regenerated in another order (a
// server's collation in the generator's ORDER BY) fails here instead of
// losing entries.
func TestSortedTables(t *testing.T) {
	if funcs.order == nil || relations.order == nil {
		t.Fatal("the functions' or the relations' table is not looked up by binary search")
	}
	ls := lines(funcsData)
	for i := 1; i < len(ls); i++ {
		if a, b := firstField(ls[i-1]), firstField(ls[i]); a > b {
			t.Fatalf("funcsData line %d: %q after %q: not sorted by name", i+1, b, a)
		}
	}
	rs := lines(relationsData)
	for i := 1; i < len(rs); i++ {
		if a, b := rs[i-1], rs[i]; a >= b {
			t.Fatalf("relationsData line %d: %.40q after %.40q: not sorted", i+1, b, a)
		}
	}
	// The first and the last line's keys, and keys before, between and
	// after all of them.
	first, last := firstField(ls[0]), firstField(ls[len(ls)-1])
	if len(Funcs(first)) == 0 || len(Funcs(last)) == 0 {
		t.Errorf("Funcs(%q) or Funcs(%q): none found", first, last)
	}
	for _, k := range []string{"", "\x00", first[:1], "nowx", "now_", "~~~~"} {
		if fs := sortedLines(funcsData, k, byName); fs != nil {
			t.Errorf("sortedLines(%q) = %q, want none", k, fs)
		}
	}
	// A relation whose name is a prefix of another's ("pg_stat" of
	// "pg_stat_activity" sorts after it by line), and keys that are a
	// prefix of a relation's.
	for _, k := range [][2]string{
		{"pg_catalog", "pg_stat"}, {"pg_catalog", "pg_"}, {"pg_catalog", ""}, {"", "pg_catalog"},
		{"information_schema", "columns_"}, {"pg_catalog", "pg_class|r"}, {"pg_catalog|pg_class", "r"},
		{"pg_catalog", "pg_clas"}, {"pg_catalog", "pg_class_"}, {"pg_catalog", "pg_class "},
	} {
		if r := LookupRelation(k[0], k[1]); r != nil {
			t.Errorf("LookupRelation(%q, %q) = %s.%s, want none", k[0], k[1], r.Schema, r.Name)
		}
	}
	if r := LookupRelation("pg_catalog", "pg_stat_activity"); r == nil || r.Name != "pg_stat_activity" {
		t.Errorf("LookupRelation(pg_catalog, pg_stat_activity) = %+v", r)
	}
}
