package catalog_test

import (
	"testing"

	"github.com/fencegen/fencegen/gen/internal/catalog"
)

// Near misses of the mark without its colon are errors, so that a typo can
// never leave a table unfenced; ordinary prose about fencing tokens is not.
func TestNearMarks(t *testing.T) {
	for _, c := range []string{"fencegen token", "fencegen_token", "fence:token", "Fencegen Token"} {
		if _, _, err := catalog.ParseFenceComment(c); err == nil {
			t.Errorf("%q accepted", c)
		}
	}
	for _, c := range []string{"the fencing token of the row", "token bucket", "fence post", "fencing token column", "the fence token", "copied from fence_token"} {
		if m, _, err := catalog.ParseFenceComment(c); m || err != nil {
			t.Errorf("%q: %v %v", c, m, err)
		}
	}
}
