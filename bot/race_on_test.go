//go:build race

package bot

// raceOn: the race detector drops a sync.Pool's items at random, so what
// is read into a pooled buffer allocates a new one now and then.
const raceOn = true
