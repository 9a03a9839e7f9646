package dnscheck

import "slices"

// Expect is what a domain's DNS must publish for mail hosted at one
// provider; the caller builds it from what the provider says. A zero
// field with its kind in Unread is a line that could not be checked.
type Expect struct {
	// MX is the one host the domain's MX records must name:
	// "mx.yandex.net", or a mailcow server's host name.
	MX string
	// SPFInclude is a domain that an include: or redirect= of the SPF
	// record must name ("_spf.yandex.net"); "" when SPFHost applies.
	SPFInclude string
	// SPFHost is a host the SPF record must authorise: by a:<host>, by an
	// include: or redirect= naming it, or by mx while the MX names it.
	SPFHost string
	// DKIM is the key the domain must publish; nil for no DKIM line.
	DKIM *DKIM
	// SecretName is the name (never the content) of the verification
	// secret, for the ownership CNAME yamail-<name>.<domain> ->
	// VerifyCNAME; "" leaves that line out.
	SecretName  string
	VerifyCNAME string
	// MXSets, where set, are the MX record sets the domain may publish:
	// exactly one of them whole, and no other MX record (Google's single
	// smtp.google.com, or its five ASPMX records). MX is then ignored.
	MXSets [][]MX
	// VerifyTXT is a TXT record the apex must carry to prove ownership
	// ("google-site-verification=…"); "" leaves that line out. A secret:
	// a checklist that holds it goes to the person who asked alone.
	VerifyTXT string
	// DKIMSelector, where DKIM is nil, names a DKIM record whose presence
	// alone is checked, at <selector>._domainkey.<domain>: the provider
	// gives no key to compare with. Its absence is advice, which does not
	// count against the checklist's verdict.
	DKIMSelector string
	// Methods are the ways the provider verifies ownership, with their
	// codes, shown as a line of their own (they are not DNS records the
	// checklist can judge). Codes are secrets: a checklist that holds
	// them goes to the person who asked alone.
	Methods []Method
	// Unread lists the DKIM and verification lines whose expectation the
	// provider could not give (an empty MX, or SPF with neither field, is
	// such a line too), and UnreadReason says why, as a sentence:
	// "mailcow did not answer usefully: try again later."
	Unread       []Kind
	UnreadReason string
}

// DKIM is a DKIM key: its TXT record lives at
// <Selector>._domainkey.<domain> and carries PublicKey as its p= tag.
type DKIM struct {
	Selector  string
	PublicKey string // base64, whitespace ignored
}

// MX is one MX record: a preference and a host.
type MX struct {
	Pref uint16
	Host string
}

// Method is one way to prove ownership of a domain, as the provider
// names it, and its code.
type Method struct {
	Name string
	Code string
}

// unread reports whether the expectation of kind could not be read.
func (e Expect) unread(kind Kind) bool { return slices.Contains(e.Unread, kind) }

// unreadItem is the line of a record whose expectation could not be read.
func (e Expect) unreadItem(kind Kind, name string) Item {
	reason := unreadWhat[kind]
	if e.UnreadReason != "" {
		reason += ". " + e.UnreadReason
	}
	return Item{Kind: kind, Name: name, State: StateError, Reason: reason}
}

// unreadWhat says, per record, what the provider did not give.
var unreadWhat = map[Kind]string{
	KindMX:           "the provider did not say which host the MX must name",
	KindSPF:          "the provider did not say what the SPF record must authorise",
	KindDKIM:         "the provider did not give the domain's DKIM key",
	KindVerification: "the provider did not give the ways to verify the domain",
}
