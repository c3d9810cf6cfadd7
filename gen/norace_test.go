//go:build !race

package gen_test

// raceEnabled reports whether the tests were built with -race.
const raceEnabled = false
