package commands

import "time"

// SetProgressEvery sets how often an import's progress message may be
// updated, for a test; it returns the function that restores it.
func SetProgressEvery(d time.Duration) (restore func()) {
	old := progressEvery
	progressEvery = d
	return func() { progressEvery = old }
}
