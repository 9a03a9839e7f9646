package dnscheck

import (
	"cmp"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// notFoundReason says that the domain itself does not exist.
func notFoundReason(domain string) string {
	return domain + " does not exist in DNS (NXDOMAIN)"
}

// unknown fills it as a record that could not be checked, and reports
// whether it did so: the lookup failed, or the domain does not exist.
func unknown(it *Item, domain string, o outcome, reason string) bool {
	switch o {
	case nxDomain:
		it.State, it.Reason = StateError, notFoundReason(domain)
	case failed:
		it.State, it.Reason = StateError, reason
	default:
		return false
	}
	return true
}

// below is a record at a name below the domain (or at its apex) that one
// line checks: the name, fully qualified, and whether it is valid (a name
// that is not was not looked up).
type below struct {
	domain   string
	kind     Kind
	name     string
	valid    bool
	domainNX bool // the whole domain does not exist
}

// item starts the line of b's record: it reports false, with the item
// already stating why, when nothing can be said of the record: the name
// is not valid, the whole domain does not exist, or the lookup failed. A
// name below the domain that does not exist is a missing record, not an
// unknown one.
func (b below) item(o outcome, reason string) (Item, bool) {
	it := Item{Kind: b.kind, Name: b.name}
	switch {
	case !b.valid:
		it.Name, it.State = "", StateError
		it.Reason = "the " + kindWords(b.kind) + " record's name is not a valid DNS name, so nothing was looked up"
	case b.domainNX:
		it.State, it.Reason = StateError, notFoundReason(b.domain)
	case o == failed:
		it.State, it.Reason = StateError, reason
	default:
		return it, true
	}
	return it, false
}

// mxItem checks the MX records: exactly want's host, at any priority.
func mxItem(domain string, want apiclient.MXRecord, l lookup[[]*net.MX]) Item {
	it := Item{Kind: KindMX, Type: apiclient.TypeMX, Name: domain + "."}
	host := hostName(want.Host)
	publish := domain + ". MX " + strconv.Itoa(int(want.Pref)) + " " + host + "."
	if unknown(&it, domain, l.outcome, l.reason) {
		return it
	}
	ours := mxSorted(&it, host, l.records)
	var reasons []string
	switch {
	case len(it.Remove) > 0 && ours:
		reasons = append(reasons, host+" is in place, but other hosts are listed too")
	case len(it.Remove) > 0:
		reasons = append(reasons, "mail goes to other hosts")
	}
	if l.malformed {
		reasons = append(reasons, "some MX records name no valid host: remove them")
	}
	switch {
	case len(reasons) > 0:
		it.State, it.Reason = StateWrong, strings.Join(reasons, "; ")
		if !ours {
			it.Publish = publish
		}
	case ours:
		it.State = StateOK
	default:
		it.State, it.Publish = StateMissing, publish
	}
	return it
}

// mxSorted lists the hosts of records in it.Found, by priority then name,
// and every host other than host in it.Remove. It reports whether host is
// among them.
func mxSorted(it *Item, host string, records []*net.MX) (ours bool) {
	// The resolver shuffles records of equal priority; the checklist lists
	// them in one order.
	mxs := slices.Clone(records)
	slices.SortFunc(mxs, func(a, b *net.MX) int {
		return cmp.Or(cmp.Compare(a.Pref, b.Pref), strings.Compare(hostName(a.Host), hostName(b.Host)))
	})
	for _, mx := range mxs {
		name := hostName(mx.Host)
		it.Found = append(it.Found, name)
		if name == host {
			ours = true
		} else {
			it.Remove = append(it.Remove, name)
		}
	}
	return ours
}

// spfItem checks the SPF policy: one v=spf1 TXT record that authorises
// rule's target. A record that authorises it by mx rests on mx, the MX
// line: it is in place while the MX records name the target.
func spfItem(domain string, rule spfRule, l lookup[[]string], mx Item) Item {
	it := Item{Kind: KindSPF, Type: apiclient.TypeTXT, Name: domain + "."}
	if unknown(&it, domain, l.outcome, l.reason) {
		return it
	}
	for _, txt := range l.records {
		if isSPF(txt) {
			it.Found = append(it.Found, txt)
		}
	}
	mxNames := slices.Contains(mx.Found, rule.target)
	authorised := func(rec string) bool {
		v := rule.verdict(rec)
		return v == spfYes || v == spfByMX && mxNames
	}
	publish := func(rec string) string { return domain + ". TXT " + quoteTXT(rec) }
	switch n := len(it.Found); {
	case n == 0:
		it.State, it.Publish = StateMissing, publish(rule.recommended())
	case n == 1 && authorised(it.Found[0]):
		it.State = StateOK
	case n == 1 && rule.verdict(it.Found[0]) == spfByMX && mx.State == StateError:
		it.State, it.Reason = StateError, "the v=spf1 record authorises the domain's MX hosts (mx), which could not be checked"
	case n == 1 && rule.verdict(it.Found[0]) == spfByMX:
		it.State, it.Reason = StateWrong, "the v=spf1 record authorises the domain's MX hosts (mx), which do not include "+rule.target+": correct the MX records"
	case n == 1:
		it.State, it.Reason = StateWrong, "the v=spf1 record does not authorise "+rule.target
		it.Remove, it.Publish = it.Found, publish(rule.fix(it.Found[0]))
	default:
		it.State, it.Reason = StateWrong, strconv.Itoa(n)+" v=spf1 records, but a domain may have only one"
		keep := slices.IndexFunc(it.Found, authorised)
		it.Remove = without(it.Found, keep)
		if keep < 0 {
			it.Publish = publish(rule.fix(it.Found[0]))
		}
	}
	return it
}

// without is values without the one at index keep (all of them when keep
// is negative).
func without(values []string, keep int) []string {
	var out []string
	for i, v := range values {
		if i != keep {
			out = append(out, v)
		}
	}
	return out
}

// dkimItem checks the DKIM key record of b: one TXT record whose p= tag
// carries the key that record (a DKIM record) carries.
func dkimItem(b below, record string, l lookup[[]string]) Item {
	it, known := b.item(l.outcome, l.reason)
	if !known {
		return it
	}
	want, _ := dkimKey(record)
	it.Found = l.records
	keep := slices.IndexFunc(it.Found, func(txt string) bool {
		got, ok := dkimKey(txt)
		return ok && got == want
	})
	publish := b.name + " TXT " + quoteTXT(record)
	switch n := len(it.Found); {
	case n == 0:
		it.State, it.Publish = StateMissing, publish
	case keep >= 0 && n == 1:
		it.State = StateOK
	case keep >= 0:
		it.State, it.Reason = StateWrong, strconv.Itoa(n)+" TXT records at "+hostName(b.name)+", but it may hold only the server's key"
		it.Remove = without(it.Found, keep)
	default:
		it.State, it.Reason = StateWrong, hostName(b.name)+" does not carry the server's key"
		it.Remove, it.Publish = it.Found, publish
	}
	return it
}

// cnameItem checks b's CNAME: it points to target, or anywhere where
// target is "" (present only: the provider names the target elsewhere).
// A name that does not exist is a missing record, unless the whole domain
// does not exist.
func cnameItem(b below, target string, l lookup[string]) Item {
	it, known := b.item(l.outcome, l.reason)
	if !known {
		return it
	}
	publish := b.name + " CNAME " + target + "."
	got := hostName(l.records)
	switch {
	case (l.outcome != found || got == hostName(b.name)) && target == "":
		it.State, it.Reason = StateMissing, "no CNAME at "+hostName(b.name)+": the provider's admin console names its target"
	case l.outcome != found || got == hostName(b.name):
		// No such name, or a name with address records (a wildcard,
		// perhaps) but no CNAME.
		it.State, it.Publish = StateMissing, publish
	case got == target || target == "":
		it.State, it.Found = StateOK, []string{got}
	default:
		it.State, it.Found, it.Remove, it.Publish = StateWrong, []string{got}, []string{got}, publish
		it.Reason = hostName(b.name) + " points to " + got + ", not " + target
	}
	return it
}

// shownItem shows the provider's ways to verify ownership (the records
// of MatchShown) and their codes, quoted: they are not DNS records the
// checklist can judge.
func shownItem(records []apiclient.Record) Item {
	var shown []string
	kind := KindVerification
	for _, r := range records {
		if r.Match == apiclient.MatchShown {
			kind = Kind(r.Purpose)
			shown = append(shown, quoteTXT(r.Label)+" with code "+quoteTXT(r.Value))
		}
	}
	return Item{Kind: kind, State: StateInfo,
		Reason: "the provider checks ownership itself, by one of these methods: " + strings.Join(shown, ", ")}
}

// hostName is a host name as the checklist shows it: lower case, without
// the trailing dot ("." stays, for a null MX).
func hostName(h string) string {
	h = strings.ToLower(h)
	if len(h) > 1 {
		h = strings.TrimSuffix(h, ".")
	}
	return h
}

// kindWords is kind inside a sentence: an acronym as it is ("DKIM"), a
// word in lower case ("verification").
func kindWords(k Kind) string {
	if strings.ToUpper(string(k)) == string(k) {
		return string(k)
	}
	return strings.ToLower(string(k))
}
