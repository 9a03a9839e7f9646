package dnscheck

import (
	"strings"
	"testing"

	"github.com/miekg/dns"
	"golang.org/x/net/dns/dnsmessage"

	"github.com/mailbot/mailbot/internal/dnsname"
)

func TestIsSPF(t *testing.T) {
	t.Parallel()
	for txt, want := range map[string]bool{
		"v=spf1":                          true,
		"v=spf1 -all":                     true,
		"V=SpF1 include:_spf.yandex.net":  true,
		"v=spf10 include:_spf.yandex.net": false,
		"v=spf1-all":                      false,
		" v=spf1 -all":                    false,
		"v=spf":                           false,
		"":                                false,
		"google-site-verification=abc":    false,
	} {
		if got := isSPF(txt); got != want {
			t.Errorf("isSPF(%q) = %v, want %v", txt, got, want)
		}
	}
}

// yandexSPF is the SPF rule of PDD and Yandex 360.
var yandexSPF = spfRule{target: "_spf.yandex.net", domain: "example.com"}

// mailcowSPF is the SPF rule of a mailcow server at mail.example.net.
var mailcowSPF = spfRule{target: "mail.example.net", host: true, domain: "example.com"}

func TestSPFAuthorises(t *testing.T) {
	t.Parallel()
	wantEach(t, "verdict", yandexSPF.verdict, map[string]spfVerdict{
		"v=spf1 redirect=_spf.yandex.net":                     spfYes,
		"v=spf1 redirect=_SPF.Yandex.Net.":                    spfYes,
		"v=spf1 include:_spf.yandex.net ~all":                 spfYes,
		"v=spf1 ip4:192.0.2.1 +include:_spf.yandex.net -all":  spfYes,
		"v=spf1  mx   include:_spf.yandex.net.   ?all":        spfYes,
		"v=spf1 -all include:_spf.yandex.net":                 spfNo, // never reached
		"v=spf1 ~include:_spf.yandex.net -all":                spfNo, // soft-fails the service
		"v=spf1 -include:_spf.yandex.net":                     spfNo,
		"v=spf1 redirect=_spf.yandex.net -all":                spfNo, // "all" voids the redirect
		"v=spf1 redirect=_spf.yandex.net.example.com":         spfNo,
		"v=spf1 include:_spf.yandex.net.evil.example":         spfNo,
		"v=spf1 include:x._spf.yandex.net":                    spfNo,
		"v=spf1 exists:_spf.yandex.net":                       spfNo,
		"v=spf1 mx a ~all":                                    spfNo,
		"v=spf1":                                              spfNo,
		"v=spf1 a:include:_spf.yandex.net redirect=other.net": spfNo,
		"v=spf1 mx\u00a0include:_spf.yandex.net":              spfNo, // one odd term
		"v=spf1 mx\tinclude:_spf.yandex.net":                  spfNo,
		"v=spf1 a:_spf.yandex.net -all":                       spfNo, // neither a: nor mx counts
		"v=spf1 mx -all":                                      spfNo,
	})
}

// wantEach checks that f gives each input its wanted result; what names f.
func wantEach[T comparable](t *testing.T, what string, f func(string) T, want map[string]T) {
	t.Helper()
	for in, w := range want {
		if got := f(in); got != w {
			t.Errorf("%s(%q) = %v, want %v", what, in, got, w)
		}
	}
}

func TestFixSPF(t *testing.T) {
	t.Parallel()
	wantEach(t, "fix", yandexSPF.fix, map[string]string{
		"v=spf1":                                "v=spf1 include:_spf.yandex.net",
		"v=spf1 mx -all":                        "v=spf1 include:_spf.yandex.net mx -all",
		"V=SPF1 mx  a\t~all":                    "v=spf1 include:_spf.yandex.net mx a\t~all",
		"v=spf1 -all include:_spf.yandex.net":   "v=spf1 include:_spf.yandex.net -all",
		"v=spf1 ~Include:_spf.yandex.net. -all": "v=spf1 include:_spf.yandex.net -all",
		"v=spf1 redirect=_spf.yandex.net ~all":  "v=spf1 include:_spf.yandex.net ~all",
		"v=spf1 ip4:192.0.2.1 redirect=x.net":   "v=spf1 include:_spf.yandex.net ip4:192.0.2.1 redirect=x.net",
	})
}

func TestSPFVerdictOfAHost(t *testing.T) {
	t.Parallel()
	wantEach(t, "verdict", mailcowSPF.verdict, map[string]spfVerdict{
		"v=spf1 a:mail.example.net -all":                      spfYes,
		"v=spf1 +A:Mail.Example.NET. ~all":                    spfYes,
		"v=spf1 a:mail.example.net/24 -all":                   spfYes,
		"v=spf1 include:mail.example.net -all":                spfYes,
		"v=spf1 redirect=mail.example.net":                    spfYes,
		"v=spf1 mx -all":                                      spfByMX,
		"v=spf1 mx/24 ~all":                                   spfByMX,
		"v=spf1 mx:example.com -all":                          spfByMX,
		"v=spf1 mx redirect=mail.example.net":                 spfYes, // the redirect stands alone
		"v=spf1 mx a:mail.example.net -all":                   spfYes,
		"v=spf1 mx:other.example -all":                        spfNo,
		"v=spf1 -mx a -all":                                   spfNo,
		"v=spf1 -all mx":                                      spfNo,
		"v=spf1 ~a:mail.example.net -all":                     spfNo,
		"v=spf1 a:mail.example.net.evil.example -all":         spfNo,
		"v=spf1 a -all":                                       spfNo,
		"v=spf1 redirect=mail.example.net -all":               spfNo,
		"v=spf1 include:_spf.yandex.net -all":                 spfNo,
		"v=spf1 ip4:192.0.2.1 exists:mail.example.net -all":   spfNo,
		"v=spf1 mx include:mail.example.net.example.org -all": spfByMX,
	})
}

func TestFixSPFOfAHost(t *testing.T) {
	t.Parallel()
	wantEach(t, "fix", mailcowSPF.fix, map[string]string{
		"v=spf1":                                      "v=spf1 a:mail.example.net",
		"v=spf1 mx -all":                              "v=spf1 a:mail.example.net mx -all",
		"v=spf1 -all a:mail.example.net":              "v=spf1 a:mail.example.net -all",
		"v=spf1 ~a:Mail.Example.Net/24 -all":          "v=spf1 a:mail.example.net -all",
		"v=spf1 -include:mail.example.net ~all":       "v=spf1 a:mail.example.net ~all",
		"v=spf1 redirect=mail.example.net -all":       "v=spf1 a:mail.example.net -all",
		"v=spf1 include:_spf.yandex.net ~all":         "v=spf1 a:mail.example.net include:_spf.yandex.net ~all",
		"v=spf1 ip4:192.0.2.1 redirect=other.example": "v=spf1 a:mail.example.net ip4:192.0.2.1 redirect=other.example",
	})
}

func TestQuoteTXT(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]string{
		"":                       `""`,
		"v=spf1 -all":            `"v=spf1 -all"`,
		`say "hi" \ bye`:         `"say \"hi\" \\ bye"`,
		"tab\there\x00\x7f":      `"tab\009here\000\127"`,
		"é":                      `"\195\169"`,
		strings.Repeat("a", 256): `"` + strings.Repeat("a", 255) + `" "a"`,
	} {
		if got := quoteTXT(s); got != want {
			t.Errorf("quoteTXT(%q) = %s, want %s", s, got, want)
		}
	}
}

// FuzzSPF checks the Yandex SPF rule on any TXT record (see checkSPFRule).
func FuzzSPF(f *testing.F) {
	f.Fuzz(func(t *testing.T, txt string) { checkSPFRule(t, yandexSPF, txt) })
}

// FuzzSPFHost checks the SPF rule of a mailcow host on any TXT record
// (see checkSPFRule).
func FuzzSPFHost(f *testing.F) {
	f.Fuzz(func(t *testing.T, txt string) { checkSPFRule(t, mailcowSPF, txt) })
}

// checkSPFRule checks rule on txt: a record that is not SPF authorises
// nothing; a fixed record is an SPF record that authorises the target by
// itself, not through the MX, and fixing it again changes nothing.
func checkSPFRule(t *testing.T, rule spfRule, txt string) {
	t.Helper()
	if v := rule.verdict(txt); !isSPF(txt) {
		if v != spfNo {
			t.Errorf("verdict(%q) = %v for a record that is not SPF", txt, v)
		}
		return
	}
	fixed := rule.fix(txt)
	if !isSPF(fixed) || rule.verdict(fixed) != spfYes {
		t.Errorf("fix(%q) = %q, which does not authorise %s", txt, fixed, rule.target)
	}
	if again := rule.fix(fixed); again != fixed {
		t.Errorf("fix(%q) = %q, but fix(%q) = %q", txt, fixed, fixed, again)
	}
}

// FuzzQuoteTXT checks that quoteTXT's output is printable ASCII and that a
// zone-file parser (miekg/dns) reads it back into exactly the input bytes
// on the wire (decoded by x/net's dnsmessage, as Go's resolver does).
func FuzzQuoteTXT(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4000 {
			return
		}
		q := quoteTXT(s)
		for i := 0; i < len(q); i++ {
			if q[i] < ' ' || q[i] > '~' {
				t.Fatalf("quoteTXT(%q) = %q holds byte %#x", s, q, q[i])
			}
		}
		if got := wireTXT(t, q); got != s {
			t.Errorf("quoteTXT(%q) = %s, which reads back as %q", s, q, got)
		}
	})
}

// wireTXT parses a TXT record's zone-file text and returns its strings,
// joined, as they travel in a DNS message.
func wireTXT(t *testing.T, quoted string) string {
	t.Helper()
	rr, err := dns.NewRR("x. 60 IN TXT " + quoted)
	if err != nil || rr == nil {
		t.Fatalf("dns.NewRR(TXT %s): %v", quoted, err)
	}
	m := new(dns.Msg)
	m.Answer = []dns.RR{rr}
	wire, err := m.Pack()
	if err != nil {
		t.Fatalf("Pack: %v", err)
	}
	var p dnsmessage.Parser
	if _, err := p.Start(wire); err != nil {
		t.Fatal(err)
	}
	if err := p.SkipAllQuestions(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.AnswerHeader(); err != nil {
		t.Fatal(err)
	}
	txt, err := p.TXTResource()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(txt.TXT, "")
}

// FuzzNormaliseDomain checks the domain guard: what it accepts is a
// lower-case host name that miekg/dns also takes for one, and accepting it
// again changes nothing.
func FuzzNormaliseDomain(f *testing.F) {
	f.Fuzz(func(t *testing.T, domain string) {
		d, ok := normaliseDomain(domain)
		if !ok {
			if d != "" {
				t.Errorf("normaliseDomain(%q) = %q, false; want no name with false", domain, d)
			}
			return
		}
		if strings.Trim(d, "abcdefghijklmnopqrstuvwxyz0123456789.-") != "" || strings.HasSuffix(d, ".") {
			t.Errorf("normaliseDomain(%q) = %q, which holds more than letters, digits, dots and hyphens", domain, d)
		}
		if _, ok := dns.IsDomainName(d); !ok || len(d) > dnsname.MaxNameLen {
			t.Errorf("normaliseDomain(%q) = %q, which is no DNS name", domain, d)
		}
		if again, ok := normaliseDomain(d); !ok || again != d {
			t.Errorf("normaliseDomain(%q) = %q, %v; want %q, true", d, again, ok, d)
		}
	})
}
