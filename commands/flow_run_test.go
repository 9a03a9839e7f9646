package commands_test

import (
	"context"
	"encoding/base64"
	"strings"
	"sync"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/dnscheck"
)

// field returns the value of the reply's field label.
func field(t *testing.T, r commands.Reply, label string) string {
	t.Helper()
	for _, f := range r.Fields {
		if f.Label == label {
			return f.Value
		}
	}
	t.Fatalf("reply %q has no field %q", r.Title, label)
	return ""
}

// TestDirectRun runs an admin's add and register on the sandbox over
// HTTP: the result goes to the admin alone, the ops channel gets one
// notice per operation, and no secret appears anywhere else.
func TestDirectRun(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	e := newEnv(t, sb.client, commands.Config{}, nil)
	if _, label := e.typed(admin1, "/mailbox add Alice@Example.com new hire"); label != commands.LabelOK {
		t.Fatalf("add label = %q, want ok", label)
	}
	add := e.msgr.lastTo(admin1)
	password := field(t, add, "Password")
	if got, ok := sb.sim.Mailbox("alice@example.com"); !ok || got != password {
		t.Errorf("the sandbox holds alice@example.com: %v, with the password shown: %v", ok, got == password)
	}
	if _, label := e.typed(admin1, "/maildomain register example.net launch"); label != commands.LabelOK {
		t.Fatalf("register label = %q, want ok", label)
	}
	reg := e.msgr.lastTo(admin1)
	content := field(t, reg, "Secret content")
	if sb.adds() != 1 || len(e.msgr.of("post")) != 0 || len(e.msgr.of("update")) != 0 {
		t.Errorf("adds %d, posts %d, updates %d: want 1 add and no approval request", sb.adds(), len(e.msgr.of("post")), len(e.msgr.of("update")))
	}
	for _, d := range e.msgr.of("deliver") {
		if d.Route.User != admin1 || d.Route.Channel != "C1" {
			t.Errorf("delivered to %+v, want the admin in C1 only", d.Route)
		}
	}
	notices := e.msgr.of("notify")
	if len(notices) != 2 || !strings.Contains(notices[0].Text, "<@UADMIN1> added mailbox alice@example.com: uid 11300000") ||
		!strings.Contains(notices[1].Text, "<@UADMIN1> registered domain example.net: domain-activate; reason: launch") {
		t.Errorf("ops notices = %+v, want one per operation with who, what and the outcome", notices)
	}
	e.noSecrets(admin1, password, content)
	commands.Golden(t, "flow/direct-run", e.msgr.transcript(nil, password, content, field(t, reg, "Secret name")))
}

// TestUndeliverableResult checks that when no route reaches the person
// who asked, the ops channel is told that the result of that operation
// could not be delivered, with the target and without the secret: for a
// direct run and for an approved request.
func TestUndeliverableResult(t *testing.T) {
	t.Parallel()
	api := &fakeProvider{}
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	e.msgr.failDeliver = map[string]bool{admin1: true, user1: true}
	e.typed(admin1, "/mailbox add alice@example.com")
	p, ref := e.request(user1, "/maildomain register example.org")
	if label := e.click(commands.ButtonApprove, p, admin2, ref); label != commands.LabelOK {
		t.Fatalf("approve label = %q, want ok", label)
	}
	var undelivered []string
	for _, n := range e.msgr.of("notify") {
		if strings.Contains(n.Text, "could not be delivered") {
			undelivered = append(undelivered, n.Text)
		}
	}
	if len(undelivered) != 2 ||
		!strings.Contains(undelivered[0], "add mailbox alice@example.com") || !strings.Contains(undelivered[0], "<@UADMIN1>") ||
		!strings.Contains(undelivered[1], "register domain example.org") || !strings.Contains(undelivered[1], "<@UUSER1>") {
		t.Errorf("undelivered notices = %q, want one per operation naming the target and the person", undelivered)
	}
	e.noSecretsFor([]string{admin1, user1}, append(api.passwords(), secretContent)...)
}

// fakeDNS is a DNSChecker that records what it was asked.
type fakeDNS struct {
	mu    sync.Mutex
	asked [][2]string
}

func (f *fakeDNS) Check(_ context.Context, domain string, want dnscheck.Expect) dnscheck.Checklist {
	f.mu.Lock()
	defer f.mu.Unlock()
	name := ""
	for _, r := range want.Records {
		if r.Purpose == apiclient.PurposeVerification {
			name = r.Name
		}
	}
	f.asked = append(f.asked, [2]string{domain, name})
	items := []dnscheck.Item{{Kind: dnscheck.KindMX, Name: domain + ".", State: dnscheck.StateOK, Found: []string{"mx.yandex.net"}}}
	if name != "" {
		items = append(items, dnscheck.Item{Kind: dnscheck.KindVerification, Name: name + "." + domain + ".",
			State: dnscheck.StateMissing, Publish: name + "." + domain + ". CNAME mail.yandex.ru."})
	}
	return dnscheck.Checklist{Domain: domain, Items: items}
}

// TestCheckDNSButton checks the "Check DNS" button of a register reply:
// its value never holds the verification secret's content, a click runs
// the checklist with the secret's name for the clicker alone, and a
// forged value is refused without a lookup.
func TestCheckDNSButton(t *testing.T) {
	t.Parallel()
	api, dns := &fakeProvider{}, &fakeDNS{}
	e := newEnv(t, api, commands.Config{DNS: dns}, nil)
	e.typed(admin1, "/maildomain register example.com")
	reply := e.msgr.lastTo(admin1)
	if len(reply.Buttons) != 1 || reply.Buttons[0].Kind != commands.ButtonCheckDNS {
		t.Fatalf("register reply buttons = %+v, want one Check DNS", reply.Buttons)
	}
	value := reply.Buttons[0].Value
	for _, part := range strings.Split(value, ".") {
		raw, _ := base64.RawURLEncoding.DecodeString(part)
		if strings.Contains(part, secretContent) || strings.Contains(string(raw), secretContent) {
			t.Errorf("Check DNS value %q holds the secret content", value)
		}
	}
	calls := api.calls.Load()
	if label := e.clickValue(commands.ButtonCheckDNS, value, user2, commands.MessageRef{}); label != commands.LabelAnswered {
		t.Errorf("Check DNS label = %q, want answered", label)
	}
	got := e.msgr.lastTo(user2)
	if !strings.Contains(got.PlainText(), "yamail-"+secretName+".example.com") || strings.Contains(got.PlainText(), secretContent) {
		t.Errorf("checklist = %q, want the verification record and never the secret content", got.PlainText())
	}
	forged := []string{
		value[:len(value)-3] + "AAA",
		value[:strings.LastIndexByte(value, '.')],
		e.core.EncodePending(commands.Pending{ID: "abcdefghij", Requester: user1, Op: commands.Operation{Action: commands.ActionRegisterDomain, Domain: "example.com"}}),
		"",
	}
	for _, v := range forged {
		if label := e.clickValue(commands.ButtonCheckDNS, v, user2, commands.MessageRef{}); label != commands.LabelInvalid {
			t.Errorf("Check DNS with %q = %q, want invalid", v, label)
		}
		if r := e.msgr.lastTo(user2); !r.Error || !strings.Contains(r.Title, "not valid") {
			t.Errorf("Check DNS with a forged value answered %+v, want a refusal", r)
		}
	}
	// Typed, the checklist has no verification line.
	e.typed(user2, "/maildomain check example.com")
	if diff := [][2]string{{"example.com", "yamail-" + secretName}, {"example.com", ""}}; len(dns.asked) != 2 || dns.asked[0] != diff[0] || dns.asked[1] != diff[1] {
		t.Errorf("DNS asked %v, want %v", dns.asked, diff)
	}
	if api.calls.Load() != calls {
		t.Errorf("the checklist called the PDD API")
	}
	e.noSecrets(admin1, secretContent)
	// Without a resolver the checklist is not available, and says so.
	bare := newEnv(t, &fakeProvider{}, commands.Config{}, nil)
	if _, label := bare.typed(user2, "/maildomain check example.com"); label != commands.LabelAnswered {
		t.Errorf("check without a resolver = %q, want answered", label)
	}
	if r := bare.msgr.lastTo(user2); !r.Error || !strings.Contains(r.Title, "not available") {
		t.Errorf("check without a resolver answered %+v, want that it is not available", r)
	}
}
