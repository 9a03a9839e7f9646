package dnscheck

import (
	"cmp"
	"net"
	"slices"
	"strconv"
	"strings"
)

// Where the service wants a domain's mail and ownership proof to point
// (the same values as the register reply's steps).
const (
	mxHost       = "mx.yandex.net"
	mxPriority   = 10
	verifyPrefix = "yamail-"
	verifyTarget = "mail.yandex.ru"
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

// mxItem checks the MX records: exactly mx.yandex.net, at any priority.
func mxItem(domain string, l lookup[[]*net.MX]) Item {
	it := Item{Kind: KindMX, Name: domain + "."}
	publish := domain + ". MX " + strconv.Itoa(mxPriority) + " " + mxHost + "."
	if unknown(&it, domain, l.outcome, l.reason) {
		return it
	}
	// The resolver shuffles records of equal priority; the checklist lists
	// them in one order.
	mxs := slices.Clone(l.records)
	slices.SortFunc(mxs, func(a, b *net.MX) int {
		return cmp.Or(cmp.Compare(a.Pref, b.Pref), strings.Compare(hostName(a.Host), hostName(b.Host)))
	})
	ours := false
	for _, mx := range mxs {
		host := hostName(mx.Host)
		it.Found = append(it.Found, host)
		if host == mxHost {
			ours = true
		} else {
			it.Remove = append(it.Remove, host)
		}
	}
	var reasons []string
	switch {
	case len(it.Remove) > 0 && ours:
		reasons = append(reasons, mxHost+" is in place, but other hosts are listed too")
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

// spfItem checks the SPF policy: one v=spf1 TXT record that lets
// _spf.yandex.net send.
func spfItem(domain string, l lookup[[]string]) Item {
	it := Item{Kind: KindSPF, Name: domain + "."}
	if unknown(&it, domain, l.outcome, l.reason) {
		return it
	}
	for _, txt := range l.records {
		if isSPF(txt) {
			it.Found = append(it.Found, txt)
		}
	}
	publish := func(rec string) string { return domain + ". TXT " + quoteTXT(rec) }
	switch n := len(it.Found); {
	case n == 0:
		it.State, it.Publish = StateMissing, publish(spfRecommended)
	case n == 1 && spfAuthorises(it.Found[0]):
		it.State = StateOK
	case n == 1:
		it.State, it.Reason = StateWrong, "the v=spf1 record does not authorise "+spfTarget
		it.Remove, it.Publish = it.Found, publish(fixSPF(it.Found[0]))
	default:
		it.State, it.Reason = StateWrong, strconv.Itoa(n)+" v=spf1 records, but a domain may have only one"
		keep := -1
		for i, rec := range it.Found {
			if spfAuthorises(rec) {
				keep = i
				break
			}
		}
		for i, rec := range it.Found {
			if i != keep {
				it.Remove = append(it.Remove, rec)
			}
		}
		if keep < 0 {
			it.Publish = publish(fixSPF(it.Found[0]))
		}
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
	return verifyPrefix + strings.ToLower(secretName) + "." + domain + ".", true
}

// verificationItem checks the ownership CNAME name -> mail.yandex.ru,
// looked up when valid. A name that does not exist is a missing record,
// unless the whole domain does not exist (domainNX).
func verificationItem(domain, name string, valid bool, l lookup[string], domainNX bool) Item {
	it := Item{Kind: KindVerification, Name: name}
	publish := name + " CNAME " + verifyTarget + "."
	if !valid {
		it.State, it.Reason = StateError, "the secret name is not a valid DNS label, so nothing was looked up"
		return it
	}
	if domainNX {
		it.State, it.Reason = StateError, notFoundReason(domain)
		return it
	}
	if l.outcome == failed {
		it.State, it.Reason = StateError, l.reason
		return it
	}
	target := hostName(l.records)
	switch {
	case l.outcome != found || target == hostName(name):
		// No such name, or a name with address records (a wildcard,
		// perhaps) but no CNAME.
		it.State, it.Publish = StateMissing, publish
	case target == verifyTarget:
		it.State, it.Found = StateOK, []string{target}
	default:
		it.State, it.Found, it.Remove, it.Publish = StateWrong, []string{target}, []string{target}, publish
		it.Reason = hostName(name) + " points to " + target + ", not " + verifyTarget
	}
	return it
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
