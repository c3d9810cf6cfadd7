//go:build !race

package writeoracle

// raceEnabled reports whether the tests were built with -race.
const raceEnabled = false
