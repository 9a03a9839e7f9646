//go:build !race

// Built without the race detector, whose sync.Pool drops pooled values
// at random: allocation counts under it are not the service's.

package commands_test

import (
	"testing"

	"github.com/mailbot/mailbot/commands"
)

// TestRegisterBurstAllocations bounds the allocations of a command of
// the burst, the fake provider's and the mention's included (89 before
// the core's register path was trimmed).
func TestRegisterBurstAllocations(t *testing.T) {
	run := burstCore(t)
	for i := range 20 {
		run(i)
	}
	i := 0
	n := testing.AllocsPerRun(200, func() {
		if label := run(i); label != commands.LabelOK {
			t.Fatal(label)
		}
		i++
	})
	if n > 43 {
		t.Errorf("a command of the burst allocates %.0f times; want at most 43", n)
	}
}
