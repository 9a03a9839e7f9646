//go:build !race

package bot

// raceOn: see race_on_test.go.
const raceOn = false
