package commands

import (
	"testing"

	"github.com/mailbot/mailbot/apiclient/pdd"
)

// TestMailStepAllocations: the step that points a domain's mail at PDD,
// first or after others, is one string, and nothing is allocated to find
// the records in.
func TestMailStepAllocations(t *testing.T) {
	hosts := pdd.Hosts()
	words := " an MX record for example.com: mx.yandex.net with priority 10, so that mail flows. " +
		"Add an SPF record, a TXT record that includes _spf.yandex.net, such as: v=spf1 include:_spf.yandex.net ~all"
	for then, want := range map[bool]string{false: "Add" + words, true: "Then add" + words} {
		if got := mailStep(then, "example.com", &hosts); got != want {
			t.Fatalf("mailStep(%v) = %q, want %q", then, got, want)
		}
		if n := testing.AllocsPerRun(200, func() { mailStep(then, "example.com", &hosts) }); n > 1 {
			t.Errorf("mailStep(%v) allocates %.1f times; want at most 1", then, n)
		}
	}
}
