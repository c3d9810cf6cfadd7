package analyze

import (
	"strings"
	"testing"
)

// TestWritingCastRefusedOnce: a writing cast PostgreSQL may apply to any
// value (here an assignment cast, which an INSERT into a column of its
// target type applies) is refused once per query, naming the cast, and
// not a second time as if the table's defaults, CHECKs or generated
// columns ran it (issue 24; TestSoundAgainstPostgreSQL shows that
// PostgreSQL writes jobs there).
func TestWritingCastRefusedOnce(t *testing.T) {
	_, msgs := analyzeSrc(t, pgJobs+pgCastMood, "-- name: Q :exec\ninsert into moods (id, m) values (1, 5);\n")
	if len(msgs) != 1 {
		t.Fatalf("%d refusals, want 1: %q", len(msgs), msgs)
	}
	if !strings.Contains(msgs[0], "a cast (schema.sql:") || !strings.Contains(msgs[0], "int2mood()") || strings.Contains(msgs[0], "defaults, CHECKs") {
		t.Errorf("refusal %q, want one naming the cast and int2mood(), not moods' defaults", msgs[0])
	}
}
