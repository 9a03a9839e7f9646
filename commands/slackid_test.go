package commands

import (
	"regexp"
	"testing"
)

// FuzzSlackID checks the shapes of Slack IDs (IsUserID, IsChannelID,
// IsGroupID), written out by hand, against the regular expressions that
// say them.
func FuzzSlackID(f *testing.F) {
	for _, s := range []string{"U012AB3CD", "W1", "WAB", "S012AB3CD", "C0PS", "GAB", "D12", "Dx1", "u012", "U", "", "UÀB", "U01\n", "CAB3-"} {
		f.Add(s)
	}
	user := regexp.MustCompile(`^[UW][A-Z0-9]{2,}$`)
	channel := regexp.MustCompile(`^[CGD][A-Z0-9]{2,}$`)
	group := regexp.MustCompile(`^S[A-Z0-9]{2,}$`)
	f.Fuzz(func(t *testing.T, id string) {
		if got, want := IsUserID(id), user.MatchString(id); got != want {
			t.Errorf("IsUserID(%q) = %v, want %v", id, got, want)
		}
		if got, want := IsChannelID(id), channel.MatchString(id); got != want {
			t.Errorf("IsChannelID(%q) = %v, want %v", id, got, want)
		}
		if got, want := IsGroupID(id), group.MatchString(id); got != want {
			t.Errorf("IsGroupID(%q) = %v, want %v", id, got, want)
		}
	})
}
