// Package migrations finds where a migration file's down migration
// starts, as the migration tools sqlc supports read their files.
package migrations

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
)

// ternDivider is tern's separator of the up and down migrations: tern
// splits the file at its first occurrence, anywhere, in this case only
// (jackc/tern, migrate.go).
const ternDivider = "---- create above / drop below ----"

// dbmateDown is dbmate's down-block directive (amacneil/dbmate,
// pkg/dbmate/migration.go): case-sensitive, "--", white space, and
// "migrate:down" ending the line or followed by white space and options.
var dbmateDown = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^--\s*migrate:down(\s*$|\s+\S+)`) })

// DownStart is the offset in src of the first line (or, for tern's
// divider, the first byte) from which a migration tool or sqlc v1.31.1
// leaves the file unapplied, or -1 when both read all of it. A file is
// cut where either cuts: sqlc's markers keep sqlc's reading of a file
// the tool reads otherwise, and the tools' own spellings keep what the
// database holds where sqlc misses them.
//
//   - sqlc (internal/migrations): a line which, lowered, starts with
//     "-- +goose down", "-- +migrate down", "-- migrate:down" or
//     "---- create above / drop below ----";
//   - goose v3 (internal/sqlparser): a line starting with "--" and
//     holding "+goose", without leading blanks, that is "Down" in any
//     case once every "--" and the first "+goose" are removed and white
//     space trimmed ("---- +goose Down", "-- +gooseDown");
//   - sql-migrate (sqlparse): a line starting "-- +migrate " whose first
//     field after it is "Down";
//   - dbmate: dbmateDown;
//   - tern: ternDivider, anywhere.
//
// Lines end at "\n", with a "\r" before it dropped, as bufio.ScanLines
// splits them.
func DownStart(src []byte) int {
	cut := -1
	if i := bytes.Index(src, []byte(ternDivider)); i >= 0 {
		cut = i
	}
	if bytes.Contains(src, []byte("migrate:down")) {
		if loc := dbmateDown().FindIndex(src); loc != nil && (cut < 0 || loc[0] < cut) {
			cut = loc[0]
		}
	}
	// Every line marker holds one of these words, in some case (sqlc
	// lowers with strings.ToLower, which maps only U+212A and U+0130
	// outside ASCII to ASCII letters, k and i, in none of the words).
	if !containsFold(src, "goose") && !containsFold(src, "grate") && !containsFold(src, "drop below") {
		return cut
	}
	for off := 0; off < len(src) && (cut < 0 || off < cut); {
		end := bytes.IndexByte(src[off:], '\n')
		next := len(src)
		if end < 0 {
			end = len(src)
		} else {
			end += off
			next = end + 1
		}
		line := string(bytes.TrimSuffix(src[off:end], []byte("\r")))
		if sqlcDown(line) || gooseDown(line) || sqlMigrateDown(line) {
			return off
		}
		off = next
	}
	return cut
}

// sqlcDown reports whether sqlc v1.31.1 stops reading a file at line.
func sqlcDown(line string) bool {
	if !strings.Contains(line, "--") {
		return false
	}
	l := strings.ToLower(line)
	for _, p := range []string{"-- +goose down", "-- +migrate down", "---- create above / drop below ----", "-- migrate:down"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// gooseDown reports whether goose v3 reads line as its Down annotation.
// A line with leading blanks or two "+goose" is an error to goose, which
// then applies nothing.
func gooseDown(line string) bool {
	if !strings.HasPrefix(strings.TrimSpace(line), "--") || !strings.Contains(line, "+goose") {
		return false
	}
	if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
		return false
	}
	cmd := strings.Replace(strings.ReplaceAll(line, "--", ""), "+goose", "", 1)
	if strings.Contains(cmd, "+goose") {
		return false
	}
	return strings.EqualFold(strings.TrimSpace(cmd), "Down")
}

// sqlMigrateDown reports whether sql-migrate reads line as its Down
// command.
func sqlMigrateDown(line string) bool {
	rest, ok := strings.CutPrefix(line, "-- +migrate ")
	if !ok {
		return false
	}
	f := strings.Fields(rest)
	return len(f) > 0 && f[0] == "Down"
}

// containsFold reports whether s holds word (lower case ASCII) with its
// ASCII letters in either case.
func containsFold(s []byte, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		j := 0
		for ; j < len(word); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != word[j] {
				break
			}
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// TernMidLine is the offset in src of tern's divider where DownStart
// cuts src at it while sqlc v1.31.1 does not: the divider does not
// start its line (tern splits the file at it anywhere; sqlc stops only
// at a line that starts with it) and text other than white space
// follows it, which sqlc reads and tern does not apply. It is -1
// otherwise.
func TernMidLine(src []byte) int {
	i := bytes.Index(src, []byte(ternDivider))
	if i <= 0 || src[i-1] == '\n' || DownStart(src) != i {
		return -1
	}
	if len(bytes.TrimSpace(src[i+len(ternDivider):])) == 0 {
		return -1
	}
	return i
}
