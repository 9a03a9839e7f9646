package dnscheck

import (
	"cmp"
	"net"
	"slices"
	"strconv"
	"strings"
)

// The record formats the checklist asks for; the register reply's steps
// name the same.
const (
	// MXPriority is the priority of the MX record a provider's host takes.
	MXPriority   = 10
	verifyPrefix = "yamail-"
)

// VerifyRecordName is the name of domain's ownership CNAME for PDD's
// secret name: "yamail-<secret name>.<domain>".
func VerifyRecordName(secretName, domain string) string {
	return verifyPrefix + strings.ToLower(secretName) + "." + domain
}

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

// unknownBelow fills it as a record at a name below the domain that could
// not be checked, and reports whether it did so: the name is not valid
// (invalid says why, and nothing was looked up), the whole domain does not
// exist (domainNX), or the lookup failed. A name below the domain that
// does not exist is a missing record, not an unknown one.
func unknownBelow(it *Item, domain, invalid string, domainNX bool, o outcome, reason string) bool {
	switch {
	case invalid != "":
		it.State, it.Reason = StateError, invalid
	case domainNX:
		it.State, it.Reason = StateError, notFoundReason(domain)
	case o == failed:
		it.State, it.Reason = StateError, reason
	default:
		return false
	}
	return true
}

// mxItem checks the MX records: exactly host, at any priority.
func mxItem(domain, host string, l lookup[[]*net.MX]) Item {
	it := Item{Kind: KindMX, Name: domain + "."}
	publish := domain + ". MX " + strconv.Itoa(MXPriority) + " " + host + "."
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
	it := Item{Kind: KindSPF, Name: domain + "."}
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

// dkimLooked starts the DKIM item at name: it reports false, with the item
// already stating why, when nothing can be said of the record (the
// selector is not a valid name, the domain does not exist, or the lookup
// failed).
func dkimLooked(domain, name string, valid bool, l lookup[[]string], domainNX bool) (Item, bool) {
	it := Item{Kind: KindDKIM, Name: name}
	invalid := ""
	if !valid {
		invalid = "the DKIM selector is not a valid DNS name, so nothing was looked up"
	}
	if unknownBelow(&it, domain, invalid, domainNX, l.outcome, l.reason) {
		return it, false
	}
	return it, true
}

// dkimItem checks the DKIM key record at name: one TXT record whose p=
// tag carries key. valid is false when name could not be made (nothing
// was looked up).
func dkimItem(domain, name string, valid bool, key string, l lookup[[]string], domainNX bool) Item {
	it, known := dkimLooked(domain, name, valid, l, domainNX)
	if !known {
		return it
	}
	want := stripWSP(key)
	it.Found = l.records
	keep := slices.IndexFunc(it.Found, func(txt string) bool {
		got, ok := dkimKey(txt)
		return ok && got == want
	})
	publish := name + " TXT " + quoteTXT(dkimRecord(want))
	switch n := len(it.Found); {
	case n == 0:
		it.State, it.Publish = StateMissing, publish
	case keep >= 0 && n == 1:
		it.State = StateOK
	case keep >= 0:
		it.State, it.Reason = StateWrong, strconv.Itoa(n)+" TXT records at "+hostName(name)+", but it may hold only the server's key"
		it.Remove = without(it.Found, keep)
	default:
		it.State, it.Reason = StateWrong, hostName(name)+" does not carry the server's key"
		it.Remove, it.Publish = it.Found, publish
	}
	return it
}

// verificationName is the name of domain's ownership CNAME,
// "yamail-<secret name>.<domain>.", and whether it is a valid name to look
// up (the secret name makes one DNS label).
func verificationName(domain, secretName string) (string, bool) {
	if secretName == "" || !validSecretName(secretName) {
		return "", false
	}
	return VerifyRecordName(secretName, domain) + ".", true
}

// verificationItem checks the ownership CNAME name -> target, looked up
// when valid. A name that does not exist is a missing record, unless the
// whole domain does not exist (domainNX).
func verificationItem(domain, name string, valid bool, target string, l lookup[string], domainNX bool) Item {
	it := Item{Kind: KindVerification, Name: name}
	publish := name + " CNAME " + target + "."
	invalid := ""
	if !valid {
		invalid = "the secret name is not a valid DNS label, so nothing was looked up"
	}
	if unknownBelow(&it, domain, invalid, domainNX, l.outcome, l.reason) {
		return it
	}
	got := hostName(l.records)
	switch {
	case l.outcome != found || got == hostName(name):
		// No such name, or a name with address records (a wildcard,
		// perhaps) but no CNAME.
		it.State, it.Publish = StateMissing, publish
	case got == target:
		it.State, it.Found = StateOK, []string{got}
	default:
		it.State, it.Found, it.Remove, it.Publish = StateWrong, []string{got}, []string{got}, publish
		it.Reason = hostName(name) + " points to " + got + ", not " + target
	}
	return it
}

// methodsItem shows the provider's ways to verify ownership and their
// codes, quoted: they are not DNS records the checklist can judge.
func methodsItem(ms []Method) Item {
	shown := make([]string, len(ms))
	for i, m := range ms {
		shown[i] = quoteTXT(m.Name) + " with code " + quoteTXT(m.Code)
	}
	return Item{Kind: KindVerification, State: StateInfo,
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
