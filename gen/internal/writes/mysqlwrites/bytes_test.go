package mysqlwrites

import "testing"

// TestMultibyteTrailByCharset: a delimiter after a run of non-ASCII
// bytes is refused (at the "|") exactly when gbk, big5 or sjis reads the
// run's last byte as a lead byte that takes it, as worked out by hand
// from each character set's lead and trail ranges; sqlc reads all of
// these as written.
func TestMultibyteTrailByCharset(t *testing.T) {
	for _, text := range []string{
		"SELECT 1 AS `café`",     // C3 A9: one character in each
		"SELECT 1 AS `naïve`",    // C3 AF: the same
		"SELECT 'café\\\\' AS x", // a backslash after é
		"SELECT 1 AS `中a`",       // a letter ends the run
		"SELECT 1 AS `中|`",       // E4 B8 AD: gbk pairs E4 B8, AD takes the backquote
		"SELECT 1 AS `あ|`",       // E3 81 82: gbk and sjis pair E3 81, 82 takes it
		"SELECT 1 AS `€|`",       // E2 82 AC: gbk pairs E2 82, AC takes it
		"SELECT 1 AS `éé`",       // C3 A9 C3 A9: two characters in each
		"SELECT 1 AS `\u00a0é`",  // C2 A0 C3 A9: gbk C2 A0, C3 A9; big5 C2, A0, C3 A9; sjis one byte each
	} {
		want := -1
		for i := 0; i < len(text); i++ {
			if text[i] == '|' {
				want = i
			}
		}
		src := text
		if want >= 0 {
			src = text[:want] + "`" + text[want+1:]
		}
		if got := MultibyteTrail(src); got != want {
			t.Errorf("MultibyteTrail(%q) = %d, want %d", src, got, want)
		}
	}
}
