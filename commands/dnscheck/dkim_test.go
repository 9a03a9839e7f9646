package dnscheck

import (
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

func TestDKIMKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		txt    string
		want   string
		wantOK bool
	}{
		{"v=DKIM1; k=rsa; p=MIIBabc", "MIIBabc", true},
		{"v=DKIM1;k=rsa;t=s;s=email;p=MIIBabc", "MIIBabc", true},
		{"p=MIIB abc\t de\r\n f;", "MIIBabcdef", true},
		{" v = DKIM1 ; p = MIIBabc ; ", "MIIBabc", true},
		{"v=DKIM1; p=", "", true}, // a revoked key
		{"v=DKIM1; k=rsa", "", false},
		{"v=DKIM1; p=abc; p=abc", "", false},        // a tag twice
		{"v=DKIM1; k=rsa; k=rsa; p=abc", "", false}, // a tag twice
		{"v=DKIM1; novalue; p=abc", "", false},
		{"v=DKIM1; =abc; p=abc", "", false},
		{"v=DKIM1; P=abc", "", false}, // tag names are case-sensitive
		{"v=spf1 -all", "", false},
		{"", "", false},
	}
	for _, tc := range tests {
		if got, ok := dkimKey(tc.txt); got != tc.want || ok != tc.wantOK {
			t.Errorf("dkimKey(%q) = %q, %v; want %q, %v", tc.txt, got, ok, tc.want, tc.wantOK)
		}
	}
}

// TestRecordName: a record's name below the domain is made of host name
// labels, at most 253 characters in all; the apex is "".
func TestRecordName(t *testing.T) {
	t.Parallel()
	for rel, want := range map[string]string{
		"":                                     "example.com.",
		"dkim._domainkey":                      "dkim._domainkey.example.com.",
		"S1.Mail._domainkey":                   "s1.mail._domainkey.example.com.",
		"2024-01._domainkey.":                  "2024-01._domainkey.example.com.",
		"yamail-abc123":                        "yamail-abc123.example.com.",
		"dk im._domainkey":                     "",
		"._domainkey":                          "",
		"a..b":                                 "",
		"-dkim":                                "",
		"<!channel>":                           "",
		"dkim_x":                               "",
		strings.Repeat("a", 64):                "",
		strings.Repeat("abcdefghi.", 25) + "x": "",
	} {
		got, ok := recordName("example.com", rel)
		if got != want || ok != (want != "") {
			t.Errorf("recordName(%q) = %q, %v; want %q, %v", rel, got, ok, want, want != "")
		}
	}
}

// FuzzDKIMKey checks the p= extraction on any TXT record: no panic; a key
// found holds no whitespace and no ";"; the record published for that
// key carries it back.
func FuzzDKIMKey(f *testing.F) {
	f.Fuzz(func(t *testing.T, txt string) {
		key, ok := dkimKey(txt)
		if !ok {
			if key != "" {
				t.Errorf("dkimKey(%q) = %q, false; want no key with false", txt, key)
			}
			return
		}
		if strings.ContainsAny(key, wsp+";") {
			t.Errorf("dkimKey(%q) = %q, which holds whitespace or ';'", txt, key)
		}
		rec := apiclient.DKIMRecord(apiclient.DKIMKey{Selector: "s", PublicKey: key}).Value
		if back, ok := dkimKey(rec); !ok || back != key {
			t.Errorf("dkimKey(DKIMRecord(%q)) = %q, %v; want the key back", key, back, ok)
		}
	})
}

// TestSPFByMXWhenTheMXIsUnknown: an SPF record that rests on mx cannot be
// judged when the MX lookup failed, and says so.
func TestSPFByMXWhenTheMXIsUnknown(t *testing.T) {
	t.Parallel()
	mx := Item{Kind: KindMX, State: StateError, Reason: "the DNS server failed to answer (SERVFAIL)"}
	got := spfItem("example.com", mailcowSPF, lookup[[]string]{records: []string{"v=spf1 mx -all"}}, mx)
	if got.State != StateError || got.Reason != "the v=spf1 record authorises the domain's MX hosts (mx), which could not be checked" ||
		got.Publish != "" || len(got.Remove) != 0 {
		t.Errorf("spfItem() = %+v, want that it could not be checked, with nothing to change", got)
	}
}
