package dnscheck

import (
	"cmp"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// mxSetsItem checks the MX records against sets: exactly one set, whole,
// and nothing else (at any preference: the records are published with the
// set's own). A record of another set counts as one to remove, so that a
// mix is wrong.
func mxSetsItem(domain string, sets []apiclient.Record, l lookup[[]*net.MX]) Item {
	it := Item{Kind: KindMX, Type: apiclient.TypeMX, Name: domain + "."}
	if unknown(&it, domain, l.outcome, l.reason) {
		return it
	}
	found := map[string]bool{}
	for _, mx := range l.records {
		name := hostName(mx.Host)
		if !found[name] {
			it.Found = append(it.Found, name)
		}
		found[name] = true
	}
	slices.Sort(it.Found)
	best := bestSet(sets, found)
	inBest := map[string]bool{}
	var missing []apiclient.MXRecord
	for _, r := range sets[best].MX {
		h := hostName(r.Host)
		inBest[h] = true
		if !found[h] {
			missing = append(missing, r)
		}
	}
	for _, h := range it.Found {
		if !inBest[h] {
			it.Remove = append(it.Remove, h)
		}
	}
	switch {
	case len(it.Found) == 0:
		it.State, it.Publish = StateMissing, mxRecords(domain, sets[0].MX)
	case len(it.Remove) == 0 && len(missing) == 0 && !l.malformed:
		it.State = StateOK
	default:
		it.State, it.Reason = StateWrong, mxSetsReason(sets, it.Remove, missing, l.malformed)
		it.Publish = mxRecords(domain, missing)
	}
	return it
}

// bestSet is the index of the set that has the most hosts found (the
// first one on a tie).
func bestSet(sets []apiclient.Record, found map[string]bool) int {
	best, most := 0, -1
	for i, set := range sets {
		n := 0
		for _, r := range set.MX {
			if found[hostName(r.Host)] {
				n++
			}
		}
		if n > most {
			best, most = i, n
		}
	}
	return best
}

// mxSetsReason says what is wrong with MX records judged against sets.
func mxSetsReason(sets []apiclient.Record, remove []string, missing []apiclient.MXRecord, malformed bool) string {
	var reasons []string
	ofSets := map[string]bool{}
	for _, set := range sets {
		for _, r := range set.MX {
			ofSets[hostName(r.Host)] = true
		}
	}
	switch {
	case slices.ContainsFunc(remove, func(h string) bool { return ofSets[h] }):
		reasons = append(reasons, "a mix of the provider's MX sets: publish one set whole, and only it")
	case len(remove) > 0:
		reasons = append(reasons, "mail goes to other hosts too")
	}
	if len(missing) > 0 {
		reasons = append(reasons, count(len(missing), "record", "records")+" of the set missing")
	}
	if malformed {
		reasons = append(reasons, "some MX records name no valid host: remove them")
	}
	return strings.Join(reasons, "; ")
}

// mxRecords is the zone lines of records, by preference.
func mxRecords(domain string, records []apiclient.MXRecord) string {
	rs := slices.Clone(records)
	slices.SortStableFunc(rs, func(a, b apiclient.MXRecord) int { return cmp.Compare(a.Pref, b.Pref) })
	lines := make([]string, len(rs))
	for i, r := range rs {
		lines[i] = domain + ". MX " + strconv.Itoa(int(r.Pref)) + " " + hostName(r.Host) + "."
	}
	return strings.Join(lines, ", ")
}

// txtItem checks that b's name carries the TXT record want among its TXT
// records (others may stay: a verification record beside other
// owners'). The record is a secret: what is found is not listed, and only
// the line that says what to publish holds it.
func txtItem(b below, want string, l lookup[[]string]) Item {
	it, known := b.item(l.outcome, l.reason)
	if !known {
		return it
	}
	if slices.Contains(l.records, want) {
		where := hostName(b.name)
		if b.name == b.domain+"." {
			where = "the apex"
		}
		it.State, it.Reason = StateOK, where+" carries the "+kindWords(b.kind)+" record"
		return it
	}
	it.State, it.Publish = StateMissing, b.name+" TXT "+quoteTXT(want)
	return it
}

// dkimPresenceItem checks that a DKIM key record exists at b's name,
// whatever its key.
func dkimPresenceItem(b below, l lookup[[]string]) Item {
	it, known := b.item(l.outcome, l.reason)
	if !known {
		return it
	}
	if slices.ContainsFunc(l.records, func(txt string) bool { _, ok := dkimKey(txt); return ok }) {
		it.State, it.Reason = StateOK, "a DKIM key is published at "+hostName(b.name)+"; its content is not compared"
		return it
	}
	it.Found = l.records
	it.State, it.Reason = StateMissing, "no DKIM key at "+hostName(b.name)+
		": generate one in the provider's admin console and publish it there; mail flows without it, but is more often taken for spam"
	return it
}
