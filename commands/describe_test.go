package commands

import (
	"testing"

	"github.com/mailbot/mailbot/apiclient/pdd"
)

// TestMailStepAllocations: the step that points a domain's mail at PDD
// allocates its words and nothing to find the records in.
func TestMailStepAllocations(t *testing.T) {
	hosts := pdd.Hosts()
	want := "Add an MX record for example.com: mx.yandex.net with priority 10, so that mail flows. " +
		"Add an SPF record, a TXT record that includes _spf.yandex.net, such as: v=spf1 include:_spf.yandex.net ~all"
	if got := mailStep("example.com", &hosts); got != want {
		t.Fatalf("mailStep = %q, want %q", got, want)
	}
	if n := testing.AllocsPerRun(200, func() { mailStep("example.com", &hosts) }); n > 2 {
		t.Errorf("mailStep allocates %.1f times; want at most 2", n)
	}
}
