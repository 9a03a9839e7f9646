package dnscheck_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands/dnscheck"
	"github.com/mailbot/mailbot/commands/dnscheck/dnstest"
)

// googleToken is a Site Verification token, as the API gives it.
const googleToken = "google-site-verification=rXOxyZounnZasA8Z7oaD3c14JdjS9aKSWvsR1EbUSIQ"

// The records of a Workspace domain, one line each.
var (
	googleMX     = "example.com. MX 1 smtp.google.com.\n"
	googleASPMX  = "example.com. MX 1 aspmx.l.google.com.\nexample.com. MX 5 alt1.aspmx.l.google.com.\nexample.com. MX 5 alt2.aspmx.l.google.com.\nexample.com. MX 10 alt3.aspmx.l.google.com.\nexample.com. MX 10 alt4.aspmx.l.google.com.\n"
	googleSPF    = "example.com. TXT \"v=spf1 include:_spf.google.com ~all\"\n"
	googleVerify = "example.com. TXT \"" + googleToken + "\"\n"
	googleDKIM   = "google._domainkey.example.com. TXT \"v=DKIM1; k=rsa; p=" + dkimKey[:200] + "\" \"" + dkimKey[200:] + "\"\n"
	googleGood   = googleMX + googleSPF + googleVerify + googleDKIM
)

// google is what Google Workspace expects of a domain, with the
// verification record when token is not "".
func google(token string) *dnscheck.Expect {
	e := &dnscheck.Expect{Records: []apiclient.Record{
		apiclient.MXSet(apiclient.MXRecord{Pref: 1, Host: "smtp.google.com"}),
		apiclient.MXSet(apiclient.MXRecord{Pref: 1, Host: "aspmx.l.google.com"}, apiclient.MXRecord{Pref: 5, Host: "alt1.aspmx.l.google.com"},
			apiclient.MXRecord{Pref: 5, Host: "alt2.aspmx.l.google.com"}, apiclient.MXRecord{Pref: 10, Host: "alt3.aspmx.l.google.com"},
			apiclient.MXRecord{Pref: 10, Host: "alt4.aspmx.l.google.com"}),
		apiclient.SPFInclude("_spf.google.com"),
		{Purpose: apiclient.PurposeDKIM, Type: apiclient.TypeTXT, Name: "google._domainkey", Match: apiclient.MatchPresent, Advice: true},
	}}
	if token != "" {
		e.Records = append(e.Records, apiclient.VerifyTXT(token))
	}
	return e
}

func TestGoogleChecklist(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		zone   string
		expect *dnscheck.Expect
		ok     bool
	}{
		{"google_all_in_place", googleGood, google(googleToken), true},
		{"google_aspmx_set", googleASPMX + googleSPF + googleVerify + googleDKIM, google(googleToken), true},
		{"google_mx_mix", googleMX + "example.com. MX 5 alt1.aspmx.l.google.com.\n" + googleSPF + googleVerify + googleDKIM, google(googleToken), false},
		{"google_aspmx_partial", strings.Join(strings.SplitAfter(googleASPMX, "\n")[:3], "") + googleSPF + googleVerify + googleDKIM, google(googleToken), false},
		{"google_mx_elsewhere", "example.com. MX 10 mx.other.net.\n" + googleSPF + googleDKIM, google(""), false},
		{"google_nothing_published", "www.example.com. A 192.0.2.1\n", google(googleToken), false},
		{"google_dkim_advice", googleMX + googleSPF + googleVerify, google(googleToken), true},
		{"google_verification_missing", googleMX + googleSPF + googleDKIM + "example.com. TXT \"google-site-verification=someone-elses\"\n", google(googleToken), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := dnstest.NewServer(t, tc.zone)
			cl := newChecker(t, srv, 300*time.Millisecond).Check(t.Context(), "example.com", *tc.expect)
			if cl.OK() != tc.ok {
				t.Errorf("OK() = %v, want %v:\n%s", cl.OK(), tc.ok, cl.Text())
			}
			got := cl.Text()
			if strings.Contains(strings.Join(cl.Lines()[:2], "\n"), googleToken) {
				t.Errorf("the MX or SPF line shows the verification token:\n%s", got)
			}
			golden(t, filepath.Join("testdata", tc.name+".golden"), got)
		})
	}
}
