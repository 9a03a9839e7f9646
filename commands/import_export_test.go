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

// SetProgressTicks makes an import's progress wake-ups come from ticks
// instead of a ticker, for a test; it returns the function that restores
// them.
func SetProgressTicks(ticks <-chan time.Time) (restore func()) {
	old := progressTicks
	progressTicks = func(time.Duration) (<-chan time.Time, func()) { return ticks, func() {} }
	return func() { progressTicks = old }
}
