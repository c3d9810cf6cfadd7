package golang

// SetQueryBatch sets how many queries queryFileSource renders at once
// and returns the previous setting.
func SetQueryBatch(n int) int {
	prev := queryBatch
	queryBatch = n
	return prev
}
