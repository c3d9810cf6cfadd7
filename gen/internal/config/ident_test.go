package config

import (
	"slices"
	"testing"
)

func TestSplitName(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  bool
	}{
		{in: "Accounts", want: []string{"accounts"}},
		{in: `"Accounts"`, want: []string{"Accounts"}},
		{in: `App."Job Runs"`, want: []string{"app", "Job Runs"}},
		{in: `"a""b".c`, want: []string{`a"b`, "c"}},
		{in: `"x.y"`, want: []string{"x.y"}},
		{in: `"Jobs`, err: true},
		{in: `""`, err: true},
		{in: `a..b`, err: true},
		{in: `a.`, err: true},
		{in: `"A"b`, err: true},
		{in: `a"b"`, err: true},
		{in: ` a`, err: true},
	} {
		got, err := SplitName(c.in)
		if (err != nil) != c.err || !c.err && !slices.Equal(got, c.want) {
			t.Errorf("SplitName(%q) = %q, %v; want %q (error %v)", c.in, got, err, c.want, c.err)
		}
	}
}

func TestQuoteName(t *testing.T) {
	for in, want := range map[string]string{"jobs": "jobs", "Jobs": `"Jobs"`, "job runs": `"job runs"`, "1a": `"1a"`, `a"b`: `"a""b"`, "a1_$": "a1_$"} {
		if got := QuoteName(in); got != want {
			t.Errorf("QuoteName(%q) = %s, want %s", in, got, want)
		}
		if parts, err := SplitName(QuoteName(in)); err != nil || len(parts) != 1 || parts[0] != in {
			t.Errorf("SplitName(QuoteName(%q)) = %q, %v", in, parts, err)
		}
	}
}
