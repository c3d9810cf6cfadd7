//go:build !race

package mysqloracle

// raceEnabled reports whether the tests were built with -race.
const raceEnabled = false
