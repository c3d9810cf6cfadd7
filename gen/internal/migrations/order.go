package migrations

import (
	"path/filepath"
	"strings"
)

// Version is the version of the migration file name (a path or a base
// name): the digits its base name starts with, leading zeros dropped
// ("00012_add.sql" is "12", "0_init.sql" ""), and whether it has any.
// It is the key golang-migrate, goose, dbmate and sql-migrate order a
// directory's migrations by; CompareVersions compares two.
func Version(name string) (string, bool) {
	base := filepath.Base(name)
	i := 0
	for i < len(base) && base[i] >= '0' && base[i] <= '9' {
		i++
	}
	if i == 0 {
		return "", false
	}
	return strings.TrimLeft(base[:i], "0"), true
}

// CompareVersions compares two versions of Version as numbers, of any
// width (9 before 10; dbmate's YYYYMMDDHHMMSS timestamps likewise):
// -1, 0 or +1.
func CompareVersions(a, b string) int {
	switch {
	case len(a) != len(b):
		if len(a) < len(b) {
			return -1
		}
		return 1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Interleave merges two lists of migration files, each in the order its
// migration tool applies it, into the one order the tool applies them
// all: by version (CompareVersions), base names breaking ties, and a
// file of first before a file of second with the same base name.
// sqlc's schema files of an engine mysql entry and the files only
// fencegen reads (stored programs sqlc cannot parse, the guard
// migrations among them) are one series of migrations, which the
// database gets in version order: a guard migration applied before a
// migration that re-creates its table leaves that table unguarded.
// Each list keeps its own order (a list given in another order than
// its versions is merged as given). It returns false, and nil, when a
// file's base name does not start with a version: the order of such a
// file among the others is not known.
func Interleave(first, second []string) ([]string, bool) {
	version := func(names []string) ([]string, bool) {
		vs := make([]string, len(names))
		for i, n := range names {
			v, ok := Version(n)
			if !ok {
				return nil, false
			}
			vs[i] = v
		}
		return vs, true
	}
	fv, ok1 := version(first)
	sv, ok2 := version(second)
	if !ok1 || !ok2 {
		return nil, false
	}
	// before reports whether second[j] is applied before first[i].
	before := func(j, i int) bool {
		if c := CompareVersions(sv[j], fv[i]); c != 0 {
			return c < 0
		}
		return filepath.Base(second[j]) < filepath.Base(first[i])
	}
	out := make([]string, 0, len(first)+len(second))
	j := 0
	for i := range first {
		for j < len(second) && before(j, i) {
			out = append(out, second[j])
			j++
		}
		out = append(out, first[i])
	}
	return append(out, second[j:]...), true
}
