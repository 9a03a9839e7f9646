package commands

import (
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

// TestWordingJoins: a provider's message that ends its own sentence gets
// no second full stop, and counts take the noun in their number.
func TestWordingJoins(t *testing.T) {
	for _, msg := range []string{"Entity already exists.", "The necessary verification token could not be found on your site.", "Busy!", "no stop"} {
		for _, code := range []string{"", "duplicate"} {
			got := answerText("Google Workspace", &apiclient.Error{Code: code, Message: msg})
			if strings.Contains(got, "..") || strings.Contains(got, "!.") || !strings.HasSuffix(got, ".") && !strings.HasSuffix(got, "!") {
				t.Errorf("answerText(%q, %q) = %q", code, msg, got)
			}
		}
	}
	one := Import{ID: "i1", Rows: []ImportRow{{Domain: "example.com", Login: "a"}}}
	for _, s := range []string{ImportChecked(Decision{Import: &one}), ImportChecked(Decision{Import: &one, Step: StepApproval}),
		(Operation{Action: ActionImport, Rows: 1, Domain: "example.com"}).String()} {
		if strings.Contains(s, "1 mailboxes") {
			t.Errorf("%q: want 1 mailbox", s)
		}
	}
}
