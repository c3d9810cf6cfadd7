package writeoracle

import (
	"io/fs"
	"path/filepath"
	"sort"
)

// configNames are the configuration files fencegen reads, in FindConfig's
// order of preference.
var configNames = []string{"fencegen.yaml", "fencegen.yml", "sqlc.yaml", "sqlc.yml", "sqlc.json"}

// FindConfigs returns the configuration files under root, one per
// directory (the one gen.FindConfig would pick), sorted.
func FindConfigs(root string) []string {
	byDir := map[string]string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "node_modules" || n == ".git") {
				return filepath.SkipDir
			}
			return nil
		}
		dir, name := filepath.Split(p)
		for i, c := range configNames {
			if name != c {
				continue
			}
			if have, ok := byDir[dir]; ok && rank(filepath.Base(have)) <= i {
				break
			}
			byDir[dir] = p
		}
		return nil
	})
	out := make([]string, 0, len(byDir))
	for _, p := range byDir {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func rank(name string) int {
	for i, c := range configNames {
		if c == name {
			return i
		}
	}
	return len(configNames)
}
