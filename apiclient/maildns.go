package apiclient

import (
	"strings"
	"time"
)

// MailDNSTimeout bounds the read a MailDNS makes (mailcow's DKIM key,
// Yandex 360's verification status), retries included, whatever the
// caller's deadline: the DNS checklist answers within about 5 s. When the
// read fails or runs out of time, MailDNS still returns what is fixed (the
// MX host, the SPF rule) beside the error.
const MailDNSTimeout = 3 * time.Second

// MailDNS is what a domain's DNS must publish for mail to flow through
// the provider: one list of records, in the order the DNS checklist and a
// register reply show them. The adapter fills it; nothing else knows a
// provider's records.
type MailDNS struct {
	Records []Record
}

// What a record is for: the DNS checklist names its line so. A provider
// may name another purpose ("Autodiscover").
const (
	PurposeMX           = "MX"           // where the domain's mail goes
	PurposeSPF          = "SPF"          // who may send the domain's mail
	PurposeDKIM         = "DKIM"         // the key that signs the domain's mail
	PurposeVerification = "Verification" // the proof that the domain is the account's
)

// The DNS types of records.
const (
	TypeMX    = "MX"
	TypeTXT   = "TXT"
	TypeCNAME = "CNAME"
)

// Match says how the DNS checklist judges a record.
type Match int

// The ways a record is judged.
const (
	// MatchExact: the records of the type at the name are exactly the
	// record's (an MX set whole, and no other MX host, at any
	// preference; a CNAME's target). Several MX records of one list are
	// alternatives: the domain publishes one of them, whole.
	MatchExact Match = iota
	// MatchContains: one TXT record at the name is Value; others may stay
	// (a verification record beside other owners').
	MatchContains
	// MatchSPFInclude: the one v=spf1 record at the name includes or
	// redirects to Value.
	MatchSPFInclude
	// MatchSPFHost: the one v=spf1 record at the name authorises the host
	// Value: by a:, by an include:/redirect= naming it, or by mx while the
	// MX names it.
	MatchSPFHost
	// MatchKey: a TXT record at the name carries the DKIM key (p=) that
	// Value, a DKIM record, carries.
	MatchKey
	// MatchPresent: a DKIM key record exists at the name, whatever its
	// key (the provider gives none to compare with).
	MatchPresent
	// MatchShown: not looked up: the checklist shows the record (Label
	// and Value) as the provider's own way to check, as advice.
	MatchShown
)

// Record is one DNS record a domain must publish.
type Record struct {
	Purpose string // PurposeMX, …: what it is for
	Type    string // TypeMX, …; "" for a way of proof that is no record (MatchShown)
	// Name is where it lives, below the domain: "" for the apex,
	// "google._domainkey", "selector1._domainkey".
	Name string
	// MX is an MX record set (Type MX).
	MX []MXRecord
	// Value is a TXT record's text, a CNAME's target, the domain or host
	// an SPF record names, or a code shown as it is.
	Value string
	Match Match
	// Secret: the record proves ownership; it goes only to the person
	// who asked.
	Secret bool
	// Advice: a record missing or wrong does not count against the
	// checklist's verdict (mail flows without it).
	Advice bool
	// Label is how the provider names a way of proof (MatchShown).
	Label string
}

// MXRecord is one MX record: a preference and a host.
type MXRecord struct {
	Pref uint16
	Host string
}

// DKIMKey is a domain's DKIM public key as the provider holds it.
type DKIMKey struct {
	Selector  string // the TXT record lives at <Selector>._domainkey.<domain>
	PublicKey string // the p= value, base64
}

// MXSet is the record of one set of MX hosts, all of which the domain
// must publish and no other.
func MXSet(mx ...MXRecord) Record {
	return Record{Purpose: PurposeMX, Type: TypeMX, MX: mx}
}

// SPFInclude is the SPF record that must include (or redirect to) domain.
func SPFInclude(domain string) Record {
	return Record{Purpose: PurposeSPF, Type: TypeTXT, Value: domain, Match: MatchSPFInclude}
}

// SPFHost is the SPF record that must authorise host.
func SPFHost(host string) Record {
	return Record{Purpose: PurposeSPF, Type: TypeTXT, Value: host, Match: MatchSPFHost}
}

// DKIMRecord is the TXT record that publishes key.
func DKIMRecord(key DKIMKey) Record {
	return Record{Purpose: PurposeDKIM, Type: TypeTXT, Name: key.Selector + "._domainkey",
		Value: "v=DKIM1; k=rsa; p=" + strings.Join(strings.Fields(key.PublicKey), ""), Match: MatchKey}
}

// VerifyTXT is the TXT record at the apex that proves the domain's owner.
func VerifyTXT(txt string) Record {
	return Record{Purpose: PurposeVerification, Type: TypeTXT, Value: txt, Match: MatchContains, Secret: true}
}

// Of is the records of d that serve purpose.
func (d *MailDNS) Of(purpose string) []Record {
	var out []Record
	if d == nil {
		return nil
	}
	for _, r := range d.Records {
		if r.Purpose == purpose {
			out = append(out, r)
		}
	}
	return out
}
