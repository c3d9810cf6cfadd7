package mysqlwrites

import (
	"slices"
	"strings"
	"testing"
)

// TestTriggerDrops: DROP TRIGGER read as the server reads it, comments
// dropped and version comments read both run and skipped; what may drop
// a trigger but is not that one statement is unread.
func TestTriggerDrops(t *testing.T) {
	for _, tc := range []struct {
		text   string
		names  []string
		unread string
	}{
		{"DROP TRIGGER fencegen_bu_jobs;", []string{"fencegen_bu_jobs"}, ""},
		{"drop trigger IF EXISTS db.`Fencegen_BU_jobs`", []string{"fencegen_bu_jobs"}, ""},
		{"DROP TRIGGER /* note */ fencegen_bu_jobs;", []string{"fencegen_bu_jobs"}, ""},
		{"DROP TRIGGER /*!40000 IF EXISTS */ fencegen_bu_jobs;", []string{"fencegen_bu_jobs"}, ""},
		{"DROP /*!40000 TRIGGER */ fencegen_bu_jobs;", []string{"fencegen_bu_jobs"}, ""},
		{"/*M!100400 DROP TRIGGER fencegen_bu_jobs */;", []string{"fencegen_bu_jobs"}, ""},
		{"-- DROP TRIGGER fencegen_bu_jobs\nDROP TABLE notes;", nil, ""},
		{"DROP TABLE notes /* DROP TRIGGER x */;", nil, ""},
		{"GRANT DROP, TRIGGER ON test.* TO app;", nil, ""},
		{"DROP TRIGGER a, b;", nil, "DROP TRIGGER fencegen cannot read"},
		{"CREATE PROCEDURE p() DROP TRIGGER fencegen_bu_jobs;", nil, "not a statement of its own"},
		{"PREPARE s FROM 'DROP TRIGGER fencegen_bu_jobs';", nil, "in a string"},
	} {
		names, _, unread := TriggerDrops(tc.text)
		if !slices.Equal(names, tc.names) || (tc.unread == "") != (unread == "") || !strings.Contains(unread, tc.unread) {
			t.Errorf("TriggerDrops(%q) = %v, %q; want %v, %q", tc.text, names, unread, tc.names, tc.unread)
		}
	}
}
