package sqlparse

import (
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// TestOffReading: the reading of standard_conforming_strings off, spelt
// for the reading on, every token at its offset, or the offset of the
// constant the two read otherwise (issue 24, trial x23 F2).
func TestOffReading(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		at       int
	}{
		{`select 1`, `select 1`, -1},
		{`select 'a\.b', x ~ '^\d+\s$' from t`, `select 'a.b' , x ~ '^d+s$'   from t`, -1},
		{`select 'a\'`, "", 7},
		{"select 'a\\.'\n'b'", "", 7},
		{`select '\1\x41\101\n''q\\'`, "select '\x01AA\n''q\\'         ", -1},
		{`select '\x27'`, `select ''''  `, -1},
		{`select 1 from f($q$ select 'a\.' $q$)`, `select 1 from f($q$ select 'a.'  $q$)`, -1},
		{`select N'a\.'`, `select N'a.' `, -1},
		{`select '\u0041'`, "", 7},
		{`select '\000'`, "", 7},
		{`select '\xff'`, "", 7},
		{`select E'a\\', 'b'`, `select E'a\\', 'b'`, -1},
	} {
		got, at := OffReading(tc.in)
		if got != tc.want || at != tc.at {
			t.Errorf("OffReading(%q) = %q, %d; want %q, %d", tc.in, got, at, tc.want, tc.at)
		}
	}
}

// FuzzOffReading: a text OffReading spells keeps its length, and
// PostgreSQL's scanner finds its tokens where it finds the input's, of the
// same kinds.
func FuzzOffReading(f *testing.F) {
	for _, s := range []string{`select 'a\.b', x ~ '^\d+'`, `select 'a\'`, `do $$ begin perform '\t'; end $$`, `select '\x27\''`, "select 'a\\n'\n'b'", `select N'\\' || U&'\0041'`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, at := OffReading(s)
		if at >= 0 {
			if out != "" || at > len(s) {
				t.Fatalf("OffReading(%q) = %q, %d", s, out, at)
			}
			return
		}
		if len(out) != len(s) {
			t.Fatalf("OffReading(%q) = %q: length changed", s, out)
		}
		if !strings.Contains(s, `\`) {
			if out != s {
				t.Fatalf("OffReading(%q) = %q without a backslash", s, out)
			}
			return
		}
		a, errA := pg.Scan(s)
		b, errB := pg.Scan(out)
		if errA != nil || errB != nil {
			t.Fatalf("OffReading(%q) = %q: scan %v, %v", s, out, errA, errB)
		}
		if len(a.Tokens) != len(b.Tokens) {
			t.Fatalf("OffReading(%q) = %q: %d tokens, %d", s, out, len(a.Tokens), len(b.Tokens))
		}
		for i := range a.Tokens {
			x, y := a.Tokens[i], b.Tokens[i]
			if x.Token != y.Token || x.Start != y.Start {
				t.Fatalf("OffReading(%q) = %q: token %d at %d (%v), %d (%v)", s, out, i, x.Start, x.Token, y.Start, y.Token)
			}
		}
	})
}
