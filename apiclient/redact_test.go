package apiclient

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// encodedRedact is redact as it was before a secret of unreserved
// characters went unencoded: every secret encoded each way, each form
// replaced. FuzzRedact holds redact to it.
func encodedRedact(s string, secrets []string) string {
	for _, sec := range secrets {
		if sec == "" {
			continue
		}
		js, _ := json.Marshal(sec)
		for _, f := range []string{sec, url.QueryEscape(sec), url.PathEscape(sec), string(js[1 : len(js)-1])} {
			s = strings.ReplaceAll(s, f, redactedMark)
		}
	}
	return s
}

// FuzzRedact checks that redact replaces what encoding every secret each
// way replaced, for any text and two secrets.
func FuzzRedact(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzRedact.
	f.Fuzz(func(t *testing.T, s, secret1, secret2 string) {
		secrets := []string{secret1, secret2}
		if got, want := redact(s, secrets), encodedRedact(s, secrets); got != want {
			t.Fatalf("redact(%q, %q) = %q, want %q", s, secrets, got, want)
		}
	})
}

// TestFailAllocations bounds the allocations of the error of a PDD
// refusal: its code and words, none of them holding the token, which is
// then not encoded (it was, three times, 15 allocations in all; now 4).
func TestFailAllocations(t *testing.T) {
	c, err := NewCaller(ProviderPDD, "https://example.com", map[string][]string{"Pddtoken": {"TOKEN2345ABCDEFGHIJ"}})
	if err != nil {
		t.Fatal(err)
	}
	n := testing.AllocsPerRun(100, func() {
		_ = c.Fail(OpDomainStatus, ClassRefused, 200, CutCode("not_allowed", c.Secrets()), "the account does not hold this domain")
	})
	if n > 6 {
		t.Errorf("Fail allocates %.0f times, want at most 6", n)
	}
	if e := c.Fail(OpAdd, ClassRefused, 200, "TOKEN2345ABCDEFGHIJ", "x TOKEN2345ABCDEFGHIJ y"); strings.Contains(e.Error(), "TOKEN") {
		t.Errorf("error %q holds the token", e)
	}
}
