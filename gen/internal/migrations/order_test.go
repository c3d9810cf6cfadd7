package migrations

import (
	"slices"
	"testing"
)

// TestInterleave merges sqlc's schema files and the files only fencegen
// reads into the order the migration tool applies them (issue 27, trial
// t27h F2: a guard migration 002 among sqlc's 001 and 003, which
// re-creates the fenced table, had been read after 003).
func TestInterleave(t *testing.T) {
	for _, tc := range []struct {
		first, second, want []string
		ok                  bool
	}{
		{[]string{"schema/001_init.sql", "schema/003_recreate.sql"}, []string{"triggers/002_fencegen_guard.sql"},
			[]string{"schema/001_init.sql", "triggers/002_fencegen_guard.sql", "schema/003_recreate.sql"}, true},
		// As numbers, whatever their width; ties by base name, the first list's file first.
		{[]string{"m/9_a.sql", "m/10_b.sql"}, []string{"t/09_z.sql", "t/011_c.sql"},
			[]string{"t/09_z.sql", "m/9_a.sql", "m/10_b.sql", "t/011_c.sql"}, true},
		{[]string{"m/1_b.sql"}, []string{"t/1_a.sql", "t/1_b.sql"}, []string{"t/1_a.sql", "m/1_b.sql", "t/1_b.sql"}, true},
		{[]string{"m/20260101000000_a.sql"}, []string{"t/3_x.sql"}, []string{"t/3_x.sql", "m/20260101000000_a.sql"}, true},
		{nil, []string{"t/1_x.sql"}, []string{"t/1_x.sql"}, true},
		// A file without a version: no order known.
		{[]string{"schema.sql"}, []string{"t/001_relay.sql"}, nil, false},
		{[]string{"m/001_a.sql"}, []string{"t/triggers.sql"}, nil, false},
	} {
		got, ok := Interleave(tc.first, tc.second)
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("Interleave(%q, %q) = %q, %v; want %q, %v", tc.first, tc.second, got, ok, tc.want, tc.ok)
		}
	}
}
