package bot_test

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands/dnscheck/dnstest"
)

const dnsZone = `
example.com.   MX  10 mx.yandex.net.
example.com.   TXT "v=spf1 redirect=_spf.yandex.net"
elsewhere.com. MX  10 mx.other.net.
elsewhere.com. TXT "v=spf1 mx -all"
`

// TestDNSCheckCommand is /maildomain check: the checklist,
// answered ephemerally, for anyone (approvals off: a non-admin may not
// run operations but may check), whatever the allow-list, without a PDD
// call.
func TestDNSCheckCommand(t *testing.T) {
	t.Parallel()
	dns := dnstest.NewServer(t, dnsZone)
	h := newHarness(t, withDNS(dns), withDomains("allowed.org"))
	for _, tc := range []struct {
		domain string
		want   []string
		not    string
	}{
		{"example.com", []string{"DNS records of example.com", "MX: in place (mx.yandex.net)", "SPF: in place", "All 2 records are in place"}, "Verification"},
		{"Elsewhere.COM.", []string{"MX: wrong", "remove this: mx.other.net", "publish: elsewhere.com. MX 10 mx.yandex.net.", "SPF: wrong"}, "in place"},
		{"nowhere.example", []string{"NXDOMAIN"}, "missing"},
	} {
		id, ack := h.command(stranger, "/maildomain", "check "+tc.domain)
		wantContains(t, "ack", ackMessage(t, ack).shown(), "Looking the domain up")
		res := h.result(id)
		if res.ResponseType != "ephemeral" {
			t.Errorf("check %s: response_type %q, want ephemeral", tc.domain, res.ResponseType)
		}
		wantContains(t, "check "+tc.domain, res.shown(), tc.want...)
		if strings.Contains(res.shown(), tc.not) {
			t.Errorf("check %s shows %q:\n%s", tc.domain, tc.not, res.shown())
		}
	}
	queries := len(dns.Queries())
	_, ack := h.command(stranger, "/maildomain", "check exa_mple.com")
	wantContains(t, "an invalid domain", ackMessage(t, ack).shown(), "exa_mple.com")
	if n := len(dns.Queries()); n != queries {
		t.Errorf("%d DNS queries for an invalid domain, want 0", n-queries)
	}
	if n := h.sim.Requests("") + len(h.slack.Calls("chat.postMessage")); n != 0 {
		t.Errorf("%d PDD requests and ops messages for DNS checks, want 0", n)
	}
}

// TestCheckDNSButton is the Check DNS button: the register reply of a
// domain-activate domain offers "Check DNS"; clicked after the
// verification CNAME is published, it answers the checklist with the
// verification line to the clicker alone. The button carries the secret's
// name, never its content, and no message shows the content but the
// register reply itself.
func TestCheckDNSButton(t *testing.T) {
	t.Parallel()
	dns := dnstest.NewServer(t, dnsZone)
	h := newHarness(t, withDNS(dns))
	id, _ := h.command(admin, "/maildomain", "register example.com")
	reply := h.result(id)
	value, ok := reply.Button(replyBlock, checkDNS)
	if !ok {
		t.Fatalf("the register reply offers no Check DNS button: %+v", reply.Blocks)
	}
	name, content := h.verification("example.com")
	payload := strings.Split(value, ".")
	if len(payload) != 3 {
		t.Fatalf("button value %q, want kind.payload.signature", value)
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload[1])
	if err != nil || strings.Contains(string(raw)+value, content) || !strings.Contains(string(raw), name) {
		t.Errorf("the button carries %s (%v): want the secret's name, never its content", raw, err)
	}

	dns.Add(t, "yamail-"+name+".example.com. CNAME mail.yandex.ru.")
	click, err := h.slack.Click(admin, general, "", replyBlock, checkDNS, value)
	if err != nil {
		t.Fatal(err)
	}
	answer := h.result(click)
	if answer.ResponseType != "ephemeral" || answer.ReplaceOriginal || h.slack.Posts(click)[0].Public {
		t.Errorf("the checklist: response_type %q, replace_original %v: want ephemeral, for the clicker alone", answer.ResponseType, answer.ReplaceOriginal)
	}
	wantContains(t, "checklist", answer.shown(), "Verification: in place (yamail-"+name+".example.com points to mail.yandex.ru)", "All 3 records are in place")

	// A forged button answers an error and looks nothing up.
	queries := len(dns.Queries())
	forged, err := h.slack.Click(admin, general, "", replyBlock, checkDNS, strings.Replace(value, payload[1], payload[1][1:], 1))
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, "forged button", h.result(forged).shown(), "not valid")
	if n := len(dns.Queries()) - queries; n != 0 {
		t.Errorf("%d DNS queries for a forged button, want 0", n)
	}

	vis := h.slack.Texts()
	if n, want := countContaining(vis.All(), content), countContaining(replyTexts(h.env, id), content); n != want || want == 0 {
		t.Errorf("the secret's content shows in %d texts, want only the register reply's %d", n, want)
	}
	if h.sim.Requests(pddsim.OpRegisterDomain) != 1 {
		t.Error("the Check DNS button reached the PDD API")
	}
}

// TestNoCheckButtonOnceVerified: a domain past domain-activate has no
// secret to check, and its register reply offers no button.
func TestNoCheckButtonOnceVerified(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withDNS(dnstest.NewServer(t, dnsZone)))
	h.ownDomain("example.com")
	if err := h.sim.SetStatus("example.com", pddsim.StatusMXActivate); err != nil {
		t.Fatal(err)
	}
	id, _ := h.command(admin, "/maildomain", "register example.com")
	if reply := h.result(id); reply.HasButtons() {
		t.Errorf("the reply for an mx-activate domain offers buttons: %+v", reply.Blocks)
	}
}

// verification returns the verification secrets the sandbox gave for
// domain.
func (e *env) verification(domain string) (name, content string) {
	for _, s := range e.secrets.all() {
		switch {
		case s.target != domain:
		case s.kind == "secret name":
			name = s.value
		case s.kind == "secret content":
			content = s.value
		}
	}
	if name == "" || content == "" {
		e.t.Fatalf("the sandbox gave no secrets for %s", domain)
	}
	return name, content
}

// replyTexts returns the texts of the response_url posts and the ack of
// the envelope id, as the fake files them.
func replyTexts(e *env, id string) []string {
	var out []string
	for _, p := range e.slack.Posts(id) {
		out = append(out, slackfake.Flatten(p.Raw)...)
	}
	for _, a := range e.slack.Socket.AcksOf(id) {
		out = append(out, slackfake.Flatten(string(a.Payload))...)
	}
	return out
}

// TestDNSCheckServerSilent: a DNS server that never answers is reported
// as such, within the checker's deadline, and not as missing records.
func TestDNSCheckServerSilent(t *testing.T) {
	t.Parallel()
	dns := dnstest.NewServer(t, dnsZone)
	dns.DropAll()
	h := newHarness(t, withDNSTimeout(dns, 300*time.Millisecond))
	id, _ := h.command(stranger, "/maildomain", "check example.com")
	res := h.result(id).shown()
	wantContains(t, "checklist", res, "MX: could not check", "did not answer within 300ms")
	if strings.Contains(res, "missing") {
		t.Errorf("a silent server reported as missing records:\n%s", res)
	}
}
