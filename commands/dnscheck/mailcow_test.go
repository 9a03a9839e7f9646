package dnscheck_test

import (
	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands/dnscheck"
	"github.com/mailbot/mailbot/commands/dnscheck/dnstest"
)

// A mailcow server's DKIM public key (2048-bit RSA, as get/dkim gives
// it), and another one.
const (
	dkimKey      = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAnvL8inuDLpXXLb1tZj7KmIvg0kDYDrl+EJDCdE9NQ1jBK0wH8b6I4Ych+5gcu6h65ZTKCOy0FwkVkkz2HDWXNQsVjRugpQCrAlA1fIkaNTEFGTSHcWzbiLK5QmUT2sRJaJnWqN7qA8IKoFGHfxLvTl8uxyrfC0Pfzlx8ccIRSEco4XtabanLjy/NKadf8k1ZR+ISeW7tlSbCKDzGx1A5VvygeGfqM/i5lX2u926UiSlgmUh2/AlADxz4hvJEJGIM73hCEb5uX2r1VTnAADymTuQnDx4QoeQkoMApVnkhthFTS66F2r1mVUOA/ifxx9LrEGWjZxXlfisMGNuNkN8KWwIDAQAB"
	otherDKIMKey = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAlOLh4ZJJeYbTz7XOijua9rKyvfJPQnNHgGzVuWXxM3dJsVD8MHFcuDSbusxkokA++DU9sott78K1FlIKPXeoSOiA1sNSKM1NI5G6Ld/WyLfF6kFD1x4/rEdEc7hZVgLy8ELkciYAk6n+/mlV6KGGUsUZR7ARrQztZM07TXhC1HKoFHdIXqjmxEIkXClIRKelyLkoLs6TvA+/c/SiPFl4BZzxQdF1txNHQFAOpkk/Ly5nfvvw5eJRbT/TC51pSUsybhYb90PviNBaEE0dI2KuAWh2uX4YOLBShbK69AJ9TeO1k/C9rBoBv4iLPPSr+gfomUeUxQdAtCRdcT7zM8pT4wIDAQAB"
)

// The records of a domain at a mailcow server mail.example.net, one line
// each; the DKIM key in two strings.
var (
	mailcowMX    = "example.com. MX 10 mail.example.net.\n"
	mailcowSPF   = "example.com. TXT \"v=spf1 mx a -all\"\n"
	mailcowDKIM  = "dkim._domainkey.example.com. TXT \"v=DKIM1;k=rsa;t=s;s=email;p=" + dkimKey[:200] + "\" \"" + dkimKey[200:] + "\"\n"
	mailcowGood  = mailcowMX + mailcowSPF + mailcowDKIM
	mailcowOther = "dkim._domainkey.example.com. TXT \"v=DKIM1; k=rsa; p=" + otherDKIMKey[:200] + "\" \"" + otherDKIMKey[200:] + "\"\n"
)

// mailcow is what a mailcow server at mail.example.net expects of a
// domain whose DKIM key it holds under selector "dkim".
func mailcow() *dnscheck.Expect {
	return mailcowWith(&apiclient.DKIMKey{Selector: "dkim", PublicKey: dkimKey})
}

// mailcowWith is mailcow's expectation with the DKIM key set to key
// (nil: the server has none).
func mailcowWith(key *apiclient.DKIMKey) *dnscheck.Expect {
	e := &dnscheck.Expect{Records: []apiclient.Record{
		apiclient.MXSet(apiclient.MXRecord{Pref: 10, Host: "mail.example.net"}), apiclient.SPFHost("mail.example.net")}}
	if key != nil {
		e.Records = append(e.Records, apiclient.DKIMRecord(*key))
	}
	return e
}

// spfLine is the domain's SPF record holding terms.
func spfLine(terms string) string { return "example.com. TXT \"v=spf1 " + terms + "\"\n" }

// mailcowCases are the golden checklists of a mailcow domain.
var mailcowCases = []textCase{
	{name: "mailcow_all_in_place", zone: mailcowGood, expect: mailcow()},
	{name: "mailcow_mx_wrong", zone: "example.com. MX 10 mx.other.net.\n" + spfLine("a:mail.example.net -all") + mailcowDKIM, expect: mailcow()},
	{name: "mailcow_mx_elsewhere_too", zone: mailcowGood + "example.com. MX 20 mx.other.net.\n", expect: mailcow()},
	{name: "mailcow_spf_a", zone: mailcowMX + spfLine("a:mail.example.net -all") + mailcowDKIM, expect: mailcow()},
	{name: "mailcow_spf_include", zone: mailcowMX + spfLine("include:mail.example.net ~all") + mailcowDKIM, expect: mailcow()},
	{name: "mailcow_spf_redirect", zone: mailcowMX + spfLine("redirect=mail.example.net") + mailcowDKIM, expect: mailcow()},
	{name: "mailcow_spf_mx", zone: mailcowMX + spfLine("mx -all") + mailcowDKIM, expect: mailcow()},
	{name: "mailcow_spf_mx_without_the_mx", zone: "example.com. MX 10 mx.other.net.\n" + spfLine("mx -all") + mailcowDKIM, expect: mailcow()},
	{name: "mailcow_spf_missing", zone: mailcowMX + mailcowDKIM, expect: mailcow()},
	{name: "mailcow_spf_wrong", zone: mailcowMX + spfLine("include:_spf.yandex.net ~all") + mailcowDKIM, expect: mailcow()},
	{name: "mailcow_dkim_wrong_key", zone: mailcowMX + mailcowSPF + mailcowOther, expect: mailcow()},
	{name: "mailcow_dkim_missing", zone: mailcowMX + mailcowSPF, expect: mailcow()},
	{name: "mailcow_dkim_folded", zone: mailcowMX + mailcowSPF +
		"dkim._domainkey.example.com. TXT \"v=DKIM1; k=rsa;\" \" p=" + dkimKey[:100] + " \" \"\\009" + dkimKey[100:300] + "\\013\\010 " + dkimKey[300:] + " ;\"\n", expect: mailcow()},
	{name: "mailcow_dkim_duplicated", zone: mailcowGood + mailcowOther, expect: mailcow()},
	{name: "mailcow_dkim_no_key_tag", zone: mailcowMX + mailcowSPF + "dkim._domainkey.example.com. TXT \"v=DKIM1; k=rsa\"\n", expect: mailcow()},
	{name: "mailcow_dkim_bad_selector", zone: mailcowGood, expect: mailcowWith(&apiclient.DKIMKey{Selector: "dk im", PublicKey: dkimKey})},
	{name: "mailcow_dkim_servfail", zone: mailcowGood, expect: mailcow(),
		knobs: func(s *dnstest.Server) { s.ServFail("dkim._domainkey.example.com") }},
	{name: "mailcow_no_key_at_the_server", zone: mailcowMX + mailcowSPF, expect: mailcowWith(nil)},
	{name: "mailcow_nxdomain", zone: mailcowGood, expect: mailcow(),
		knobs: func(s *dnstest.Server) { s.NXDomain("example.com", "dkim._domainkey.example.com") }},
}
