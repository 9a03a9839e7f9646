package dnscheck_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands/dnscheck"
	"github.com/mailbot/mailbot/commands/dnscheck/dnstest"
)

// A provider that signs with two DKIM keys it rotates itself asks for a
// pair of CNAMEs (Microsoft 365: selector1 and selector2 under
// _domainkey, pointing into the tenant's onmicrosoft.com domain), as
// advice: mail flows without them.
const (
	pairMX   = "example.com. MX 0 example-com.mail.protection.outlook.com.\n"
	pairSPF  = "example.com. TXT \"v=spf1 include:spf.protection.outlook.com -all\"\n"
	pairSel1 = "selector1._domainkey.example.com. CNAME selector1-example-com._domainkey.contoso.onmicrosoft.com.\n"
	pairSel2 = "selector2._domainkey.example.com. CNAME selector2-example-com._domainkey.contoso.onmicrosoft.com.\n"
)

// cnamePair is what such a provider expects of example.com.
func cnamePair() dnscheck.Expect {
	dkim := func(sel string) apiclient.Record {
		return apiclient.Record{Purpose: apiclient.PurposeDKIM, Type: apiclient.TypeCNAME, Name: sel + "._domainkey",
			Value: sel + "-example-com._domainkey.contoso.onmicrosoft.com", Advice: true}
	}
	return dnscheck.Expect{Records: []apiclient.Record{
		apiclient.MXSet(apiclient.MXRecord{Pref: 0, Host: "example-com.mail.protection.outlook.com"}),
		apiclient.SPFInclude("spf.protection.outlook.com"), dkim("selector1"), dkim("selector2")}}
}

func TestCNAMEPair(t *testing.T) {
	t.Parallel()
	sel := func(n string) string { return n + "._domainkey.example.com." }
	target := func(n string) string { return n + "-example-com._domainkey.contoso.onmicrosoft.com" }
	publish := func(n string) string { return sel(n) + " CNAME " + target(n) + "." }
	tests := []struct {
		name   string
		zone   string
		want   []dnscheck.Item
		wantOK bool
	}{{
		name: "both in place",
		zone: pairMX + pairSPF + pairSel1 + pairSel2,
		want: []dnscheck.Item{
			{Kind: dnscheck.KindDKIM, Type: "CNAME", Name: sel("selector1"), State: dnscheck.StateOK, Found: []string{target("selector1")}},
			{Kind: dnscheck.KindDKIM, Type: "CNAME", Name: sel("selector2"), State: dnscheck.StateOK, Found: []string{target("selector2")}},
		},
		wantOK: true,
	}, {
		name: "one missing is advice",
		zone: pairMX + pairSPF + pairSel1,
		want: []dnscheck.Item{
			{Kind: dnscheck.KindDKIM, Type: "CNAME", Name: sel("selector1"), State: dnscheck.StateOK, Found: []string{target("selector1")}},
			{Kind: dnscheck.KindDKIM, Type: "CNAME", Name: sel("selector2"), State: dnscheck.StateAdvice, Publish: publish("selector2"),
				Reason: "not published; mail flows without it"},
		},
		wantOK: true,
	}, {
		name: "one pointing elsewhere is advice, with what to remove",
		zone: pairMX + pairSPF + pairSel1 + "selector2._domainkey.example.com. CNAME old.example.net.\n",
		want: []dnscheck.Item{
			{Kind: dnscheck.KindDKIM, Type: "CNAME", Name: sel("selector1"), State: dnscheck.StateOK, Found: []string{target("selector1")}},
			{Kind: dnscheck.KindDKIM, Type: "CNAME", Name: sel("selector2"), State: dnscheck.StateAdvice,
				Found: []string{"old.example.net"}, Remove: []string{"old.example.net"}, Publish: publish("selector2"),
				Reason: "selector2._domainkey.example.com points to old.example.net, not " + target("selector2")},
		},
		wantOK: true,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := dnstest.NewServer(t, tc.zone)
			got := newChecker(t, srv, 2*time.Second).Check(t.Context(), "example.com", cnamePair())
			if len(got.Items) != 4 || got.Items[0].State != dnscheck.StateOK || got.Items[1].State != dnscheck.StateOK {
				t.Fatalf("Check() = %+v; want MX and SPF in place, then the two CNAMEs", got)
			}
			if diff := cmp.Diff(tc.want, got.Items[2:]); diff != "" {
				t.Errorf("CNAME lines mismatch (-want +got):\n%s", diff)
			}
			if got.OK() != tc.wantOK {
				t.Errorf("OK() = %v, want %v: advice does not count against the verdict", got.OK(), tc.wantOK)
			}
		})
	}
}

// TestCNAMEPresentOnly: a CNAME whose target the provider does not give
// is checked for presence: any target is in place, none is advice.
func TestCNAMEPresentOnly(t *testing.T) {
	t.Parallel()
	want := dnscheck.Expect{Records: []apiclient.Record{{Purpose: apiclient.PurposeDKIM, Type: apiclient.TypeCNAME,
		Name: "selector1._domainkey", Match: apiclient.MatchPresent, Advice: true}}}
	for zone, wantItem := range map[string]dnscheck.Item{
		pairSel1: {Kind: dnscheck.KindDKIM, Type: "CNAME", Name: "selector1._domainkey.example.com.", State: dnscheck.StateOK,
			Found: []string{"selector1-example-com._domainkey.contoso.onmicrosoft.com"}},
		pairMX: {Kind: dnscheck.KindDKIM, Type: "CNAME", Name: "selector1._domainkey.example.com.", State: dnscheck.StateAdvice,
			Reason: "no CNAME at selector1._domainkey.example.com: the provider's admin console names its target"},
	} {
		srv := dnstest.NewServer(t, zone)
		got := newChecker(t, srv, 2*time.Second).Check(t.Context(), "example.com", want)
		if len(got.Items) != 3 {
			t.Fatalf("Check() = %+v; want MX, SPF and the CNAME's line", got)
		}
		if diff := cmp.Diff(wantItem, got.Items[2]); diff != "" {
			t.Errorf("zone %q: CNAME line mismatch (-want +got):\n%s", zone, diff)
		}
	}
}
