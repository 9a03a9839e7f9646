package dnscheck

import (
	"strconv"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// maxListed is how many found records a line names before "and N more".
const maxListed = 10

// maxShownTXT is how many bytes of a found TXT record a line shows.
const maxShownTXT = 255

// Line renders the item as one line of plain text, marked with its state:
//
//	✅ MX: in place (mx.yandex.net)
//	❌ MX: wrong: mail goes to other hosts; remove this: mx.other.net; publish: example.com. MX 10 mx.yandex.net.
//	⚠️ SPF: could not check: the DNS server did not answer within 5s
func (it Item) Line() string {
	var b strings.Builder
	b.WriteString(it.State.Mark())
	b.WriteByte(' ')
	b.WriteString(string(it.Kind))
	b.WriteString(": ")
	b.WriteString(it.State.String())
	switch it.State {
	case StateOK:
		b.WriteString(" (")
		b.WriteString(it.inPlace())
		b.WriteString(")")
	case StateWrong, StateError, StateInfo, StateAdvice:
		b.WriteString(": ")
		b.WriteString(it.Reason)
	}
	if len(it.Remove) > 0 {
		b.WriteString("; remove ")
		b.WriteString(thisOrThese(len(it.Remove)))
		b.WriteString(": ")
		b.WriteString(it.list(it.Remove))
	}
	if it.Publish != "" {
		b.WriteString("; publish: ")
		b.WriteString(it.Publish)
	}
	return b.String()
}

// inPlace describes what was found for a record in place: its Reason
// when the record is not to be shown (a verification secret).
func (it Item) inPlace() string {
	switch {
	case it.Reason != "":
		return it.Reason
	case it.Type == apiclient.TypeCNAME && len(it.Found) == 1:
		return strings.TrimSuffix(it.Name, ".") + " points to " + it.Found[0]
	case it.Kind == KindDKIM && it.Type == apiclient.TypeTXT:
		return hostName(it.Name) + " carries the server's key"
	}
	return it.list(it.Found)
}

// list shows values of Found or Remove, at most maxListed of them.
func (it Item) list(values []string) string {
	shown := make([]string, 0, min(len(values), maxListed)+1)
	for i, v := range values {
		if i == maxListed {
			shown = append(shown, "and "+strconv.Itoa(len(values)-maxListed)+" more")
			break
		}
		shown = append(shown, it.show(v))
	}
	return strings.Join(shown, ", ")
}

// show renders one value of Found or Remove: a host name as it is (it was
// validated by the resolver), a CNAME as its whole record, a TXT record
// (SPF, DKIM) quoted and cut to maxShownTXT bytes.
func (it Item) show(v string) string {
	switch it.Type {
	case apiclient.TypeTXT:
		if len(v) > maxShownTXT {
			return quoteTXT(v[:maxShownTXT]) + "…"
		}
		return quoteTXT(v)
	case apiclient.TypeCNAME:
		return it.Name + " CNAME " + v + "."
	case apiclient.TypeMX:
		if v == "." {
			return ". (a null MX: the domain takes no mail)"
		}
	}
	return v
}

// thisOrThese points at n things: "this" or "these".
func thisOrThese(n int) string {
	if n == 1 {
		return "this"
	}
	return "these"
}
