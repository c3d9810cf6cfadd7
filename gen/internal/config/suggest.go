package config

// suggest returns the key in fs closest to key, if it is a likely typo.
func suggest(key string, fs fields) string {
	best, bestD := "", 3
	for k := range fs {
		if k == "*" {
			continue
		}
		if d := distance(key, k); d < bestD || d == bestD && k < best {
			best, bestD = k, d
		}
	}
	if bestD >= 3 {
		return ""
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
