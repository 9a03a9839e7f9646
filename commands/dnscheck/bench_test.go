package dnscheck_test

import (
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands/dnscheck/dnstest"
)

// BenchmarkCheck runs whole checks, verification included (MX, TXT, and
// A, AAAA and CNAME for the verification name), against a DNS server on
// loopback over UDP.
func BenchmarkCheck(b *testing.B) {
	srv := dnstest.NewServer(b, goodMX+goodSPF+goodVerify)
	c := newChecker(b, srv, 5*time.Second)
	b.ReportAllocs()
	for b.Loop() {
		if got := c.Check(b.Context(), "example.com", pdd(secretName)); !got.OK() {
			b.Fatalf("Check() = %v, want all in place", states(got))
		}
	}
}

// BenchmarkCheckMailcow runs whole checks of a mailcow domain (MX, TXT at
// the apex, and the DKIM key's TXT in two strings) on loopback over UDP.
func BenchmarkCheckMailcow(b *testing.B) {
	srv := dnstest.NewServer(b, mailcowGood)
	c := newChecker(b, srv, 5*time.Second)
	want := *mailcow()
	b.ReportAllocs()
	for b.Loop() {
		if got := c.Check(b.Context(), "example.com", want); !got.OK() {
			b.Fatalf("Check() = %v, want all in place", states(got))
		}
	}
}

// BenchmarkText renders a checklist with every kind of line.
func BenchmarkText(b *testing.B) {
	srv := dnstest.NewServer(b, goodMX+"example.com. MX 20 mx.other.net.\nexample.com. TXT \"v=spf1 mx -all\"\n")
	list := newChecker(b, srv, 5*time.Second).Check(b.Context(), "example.com", pdd(secretName))
	b.ReportAllocs()
	for b.Loop() {
		_ = list.Text()
	}
}
