package dnscheck_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands/dnscheck"
	"github.com/mailbot/mailbot/commands/dnscheck/dnstest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with the current output")

// textCase is one golden checklist: a zone served over DNS, checked
// against expect (nil: PDD's, with secret's verification record).
type textCase struct {
	name   string
	zone   string
	domain string
	secret string
	expect *dnscheck.Expect
	knobs  func(*dnstest.Server)
}

// TestChecklistText checks the wording of whole checklists, from a zone
// served over DNS to the text, against testdata/<name>.golden.
func TestChecklistText(t *testing.T) {
	t.Parallel()
	manyMX := goodMX
	for i := range 12 {
		manyMX += "example.com. MX 20 mx" + string(rune('a'+i)) + ".other.net.\n"
	}
	tests := []textCase{
		{name: "all_in_place", zone: goodMX + goodSPF + goodVerify, secret: secretName},
		{name: "all_in_place_no_secret", zone: goodMX + goodSPF},
		{name: "nothing_published", zone: "www.example.com. A 192.0.2.1\n", secret: secretName},
		{name: "mx_elsewhere_too", zone: goodSPF + goodMX + "example.com. MX 20 mx.other.net.\n"},
		{name: "mx_elsewhere_only", zone: goodSPF + "example.com. MX 10 mx.other.net.\nexample.com. MX 20 mx2.other.net.\n"},
		{name: "mx_many", zone: goodSPF + manyMX},
		{name: "mx_malformed", zone: goodSPF + goodMX + "example.com. MX 20 bad\\ host.example.net.\n"},
		{name: "mx_null", zone: goodSPF + "example.com. MX 0 .\n"},
		{name: "spf_without_include", zone: goodMX + "example.com. TXT \"v=spf1 ip4:192.0.2.0/24 mx ~all\"\n"},
		{name: "spf_duplicated", zone: goodMX + goodSPF + "example.com. TXT \"v=spf1 mx -all\"\n"},
		{name: "spf_duplicated_none_right", zone: goodMX + "example.com. TXT \"v=spf1 mx -all\"\nexample.com. TXT \"v=spf1 a -all\"\n"},
		{name: "spf_odd_characters", zone: goodMX + "example.com. TXT \"v=spf1 \\\"quoted\\\" back\\\\slash \\007bell <!channel> ~all\"\n"},
		{name: "spf_long", zone: goodMX + "example.com. TXT \"v=spf1 " + strings.Repeat("ip4:192.0.2.1 ", 20) + "\" \"" + strings.Repeat("ip4:198.51.100.1 ", 10) + "~all\"\n"},
		{name: "verification_wrong", zone: goodMX + goodSPF + "yamail-abc123.example.com. CNAME mail.example.net.\n", secret: secretName},
		{name: "verification_bad_secret_name", zone: goodMX + goodSPF, secret: "not a label"},
		{name: "nxdomain", zone: goodMX, secret: secretName, knobs: func(s *dnstest.Server) { s.NXDomain("example.com") }},
		{name: "servfail", zone: goodMX, secret: secretName, knobs: func(s *dnstest.Server) { s.ServFail("example.com", "yamail-abc123.example.com") }},
		{name: "mixed", zone: goodMX + "example.com. MX 20 mx.other.net.\n", secret: secretName, knobs: func(s *dnstest.Server) { s.Drop("yamail-abc123.example.com") }},
		{name: "no_answer", zone: goodMX, secret: secretName, knobs: func(s *dnstest.Server) { s.DropAll() }},
		{name: "invalid_domain", zone: goodMX, domain: "<!channel>", secret: secretName},
		{name: "unread_verification", zone: goodMX + goodSPF, expect: &dnscheck.Expect{Records: yandex().Records,
			Unread: []dnscheck.Kind{dnscheck.KindVerification}, UnreadReason: "Yandex 360 did not answer usefully: try again later."}},
		{name: "unread_everything", zone: goodMX + goodSPF, expect: &dnscheck.Expect{
			Unread: []dnscheck.Kind{dnscheck.KindDKIM}, UnreadReason: "Mailcow did not answer usefully: try again later."}},
		{name: "y360_methods", zone: goodMX + goodSPF, expect: ptr(yandex(shown("dns", "a1b2c3"), shown("web page", "\"<!here>\"")))},
		{name: "y360_methods_nothing_published", zone: "www.example.com. A 192.0.2.1\n", expect: ptr(yandex(shown("dns", "a1b2c3")))},
	}
	tests = append(tests, mailcowCases...)
	pair := cnamePair()
	tests = append(tests, textCase{name: "cname_pair_one_wrong", zone: pairMX + pairSPF + pairSel1 + "selector2._domainkey.example.com. CNAME old.example.net.\n", expect: &pair})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := dnstest.NewServer(t, tc.zone)
			if tc.knobs != nil {
				tc.knobs(srv)
			}
			domain := tc.domain
			if domain == "" {
				domain = "example.com"
			}
			expect := pdd(tc.secret)
			if tc.expect != nil {
				expect = *tc.expect
			}
			got := newChecker(t, srv, 300*time.Millisecond).Check(t.Context(), domain, expect).Text()
			golden(t, filepath.Join("testdata", tc.name+".golden"), got)
		})
	}
}

// golden compares got with the file at path, or rewrites the file with -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("text mismatch with %s (-want +got):\n%s", path, diff)
	}
}

func TestChecklistOK(t *testing.T) {
	t.Parallel()
	ok := dnscheck.Item{State: dnscheck.StateOK}
	tests := []struct {
		name string
		list dnscheck.Checklist
		want bool
	}{
		{"all in place", dnscheck.Checklist{Items: []dnscheck.Item{ok, ok}}, true},
		{"one missing", dnscheck.Checklist{Items: []dnscheck.Item{ok, {State: dnscheck.StateMissing}}}, false},
		{"one unknown", dnscheck.Checklist{Items: []dnscheck.Item{{State: dnscheck.StateError}, ok}}, false},
		{"nothing checked", dnscheck.Checklist{}, false},
		{"in place, with a line that is no record", dnscheck.Checklist{Items: []dnscheck.Item{ok, {State: dnscheck.StateInfo}}}, true},
		{"in place, with advice", dnscheck.Checklist{Items: []dnscheck.Item{ok, {State: dnscheck.StateAdvice}}}, true},
		{"invalid domain", dnscheck.Checklist{Err: dnscheck.ErrInvalidDomain}, false},
	}
	for _, tc := range tests {
		if got := tc.list.OK(); got != tc.want {
			t.Errorf("%s: OK() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestStateWords(t *testing.T) {
	t.Parallel()
	want := map[dnscheck.State][2]string{
		dnscheck.StateOK:      {"in place", "✅"},
		dnscheck.StateMissing: {"missing", "❌"},
		dnscheck.StateWrong:   {"wrong", "❌"},
		dnscheck.StateError:   {"could not check", "⚠️"},
		dnscheck.StateInfo:    {"not checked here", "ℹ️"},
		dnscheck.StateAdvice:  {"advice", "💡"},
		dnscheck.State(9):     {"state 9", "⚠️"},
	}
	for s, w := range want {
		if got := [2]string{s.String(), s.Mark()}; got != w {
			t.Errorf("State(%d) = %q, want %q", int(s), got, w)
		}
	}
}

// shown is a way of proof the provider checks itself, with its code.
func shown(label, code string) apiclient.Record {
	return apiclient.Record{Purpose: apiclient.PurposeVerification, Label: label, Value: code, Match: apiclient.MatchShown, Secret: true}
}

func ptr[T any](v T) *T { return &v }
