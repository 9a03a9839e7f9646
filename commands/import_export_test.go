package commands

import "time"

// SetProgressEvery sets how often an import's progress message may be
// updated, for a test; it returns the function that restores it.
func SetProgressEvery(d time.Duration) (restore func()) {
	old := progressEvery
	progressEvery = d
	return func() { progressEvery = old }
}

// SetRowPause sets the first shared pause after a temporary failure, for
// a test; it returns the function that restores it.
func SetRowPause(d time.Duration) (restore func()) {
	old := rowPause
	rowPause = d
	return func() { rowPause = old }
}
