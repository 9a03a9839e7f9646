package commands

import "testing"

// Golden lets the external tests (package commands_test) share the golden
// files and the -update flag of this package's tests.
func Golden(t *testing.T, name, got string) {
	t.Helper()
	golden(t, name, got)
}
