package config

import "github.com/fencegen/fencegen/gen/internal/diag"

// suggest returns the key in fs closest to key, if it is a likely typo.
func suggest(key string, fs fields) string {
	best, bestD := "", 3
	for k := range fs {
		if k == "*" {
			continue
		}
		if d := diag.Distance(key, k); d < bestD || d == bestD && k < best {
			best, bestD = k, d
		}
	}
	if bestD >= 3 {
		return ""
	}
	return best
}
