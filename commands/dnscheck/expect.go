package dnscheck

import "github.com/mailbot/mailbot/apiclient"

// Expect is what a domain's DNS must publish for mail hosted at one
// provider: the records the provider lists (apiclient.MailDNS), each with
// how it is judged. A line whose kind is in Unread and that no record
// covers could not be checked; an empty MX or SPF is such a line too.
type Expect struct {
	// Records are the records to check, in the order their lines are
	// shown (the MX line first). Several MX records are alternative sets.
	Records []apiclient.Record
	// Unread lists the lines whose records the provider could not give,
	// and UnreadReason says why, as a sentence: "mailcow did not answer
	// usefully: try again later."
	Unread       []Kind
	UnreadReason string
}

// of is the records of e that serve kind.
func (e Expect) of(kind Kind) []apiclient.Record {
	var out []apiclient.Record
	for _, r := range e.Records {
		if Kind(r.Purpose) == kind {
			out = append(out, r)
		}
	}
	return out
}

// unreadItem is the line of a record whose expectation could not be read.
func (e Expect) unreadItem(kind Kind, name string) Item {
	reason, ok := unreadWhat[kind]
	if !ok {
		reason = "the provider did not give the " + string(kind) + " record"
	}
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
