package diag

// Distance is the Levenshtein edit distance between a and b, counted in
// bytes (insertions, deletions and substitutions of one byte each). The
// "did you mean" suggestions of the configuration and of the query
// annotations use it to tell a misspelling from another word.
func Distance(a, b string) int {
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
