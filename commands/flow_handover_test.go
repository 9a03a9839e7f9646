package commands_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
)

// The people of the hand-over tests.
const (
	newHire = "UADA"
	ghost   = "UGONE"
	robot   = "UROBOT"
	visitor = "UOTHER"
)

// fakePeople is a directory of people; anyone not in it is a full member
// with no confirmed e-mail.
type fakePeople struct {
	mu     sync.Mutex
	people map[string]commands.Person
	reads  int
}

func (p *fakePeople) Person(_ context.Context, id string) (commands.Person, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reads++
	return p.people[id], nil
}

func directory() *fakePeople {
	return &fakePeople{people: map[string]commands.Person{
		newHire: {Email: "Ada@Example.com", EmailConfirmed: true},
		ghost:   {Deleted: true},
		robot:   {Bot: true},
		visitor: {OtherWorkspace: true, Email: "visitor@example.com", EmailConfirmed: true},
		user1:   {Email: "user1@example.com", EmailConfirmed: false},
		user2:   {Email: "user2@example.com", EmailConfirmed: true, Guest: true},
	}}
}

// resetAPI is fakeProvider whose SetPassword works: it records each password
// set, and fails as setErr says (by the call's number, from 1).
type resetAPI struct {
	fakeProvider
	mu     sync.Mutex
	set    []string
	setErr func(n int) error
}

func (f *resetAPI) SetPassword(_ context.Context, domain, login, pw string, force bool) (*apiclient.Mailbox, error) {
	f.mu.Lock()
	f.set = append(f.set, pw)
	n := len(f.set)
	hook := f.setErr
	f.mu.Unlock()
	if hook != nil {
		if err := hook(n); err != nil {
			return nil, err
		}
	}
	return &apiclient.Mailbox{Address: login + "@" + domain, State: apiclient.StateActive, PasswordChangeRequired: force}, nil
}

func (f *resetAPI) sets() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.set...)
}

// handoverEnv is an env with the directory and a provider that resets.
func handoverEnv(t *testing.T, cfg commands.Config) (*env, *resetAPI) {
	t.Helper()
	api := &resetAPI{}
	if cfg.People == nil {
		cfg.People = directory()
	}
	cfg.ForcePasswordChange = true
	return newEnv(t, api, cfg, nil), api
}

// offered returns the last hand-over offered, failing when there is none.
func offered(t *testing.T, e *env) handoverCall {
	t.Helper()
	offers := e.msgr.handoverCalls("offer")
	if len(offers) == 0 {
		t.Fatal("no hand-over was offered")
	}
	return offers[len(offers)-1]
}

// show has user click the Show button of offer.
func (e *env) show(offer handoverCall, user string) string {
	return e.core.Click(e.t.Context(), commands.Click{Kind: commands.ButtonShow, Value: offer.View.Value, User: user,
		Route: commands.Route{User: user, Channel: offer.Ref.Channel, Handle: "https://hooks.example/" + user}, Message: offer.Ref})
}

// secretOf returns the secret field of r, or "".
func secretOf(r commands.Reply) string {
	for _, f := range r.Fields {
		if f.Secret {
			return f.Value
		}
	}
	return ""
}

func TestHandoverAddShownOnceToItsOwner(t *testing.T) {
	t.Parallel()
	e, api := handoverEnv(t, commands.Config{})
	d, label := e.typed(admin1, "/mailbox add ada@example.com for <@UADA|ada> starts Monday")
	if d.Op.For != newHire || label != commands.LabelOK {
		t.Fatalf("add for @ada: op %+v, label %q; want a run for UADA", d.Op, label)
	}
	created := api.passwords()
	if len(created) != 1 {
		t.Fatalf("AddMailbox calls: %d, want 1", len(created))
	}
	reply := e.msgr.lastTo(admin1)
	if secretOf(reply) != "" || !strings.Contains(renderReply(reply), "<@UADA>") {
		t.Errorf("the requester's reply shows a secret or not whom the credentials went to:\n%s", renderReply(reply))
	}
	offer := offered(t, e)
	if offer.View.Handover.Owner != newHire || !offer.View.Button() || !strings.Contains(offer.View.Text, "<@UADMIN1>") {
		t.Fatalf("offer = %+v; want UADA's, with the button, naming who asked", offer.View)
	}
	if n, ok := e.msgr.last("notify"); !ok || !strings.Contains(n.Text, "credentials to <@UADA>") {
		t.Errorf("ops notice = %q; want it to say whom the credentials went to", n.Text)
	}
	for _, who := range []string{admin1, user1, admin2} {
		if got := e.show(offer, who); got != commands.LabelRefused {
			t.Errorf("%s clicked Show: %q, want refused", who, got)
		}
	}
	if len(api.sets()) != 0 {
		t.Fatalf("someone else's click reached the provider: %d resets", len(api.sets()))
	}
	if got := e.show(offer, newHire); got != commands.LabelShown {
		t.Fatalf("the owner's click: %q, want %q", got, commands.LabelShown)
	}
	sets := api.sets()
	shown := secretOf(e.msgr.lastTo(newHire))
	if len(sets) != 1 || shown != sets[0] || shown == created[0] {
		t.Fatalf("owner was shown %q; provider was set %q, creation sent %q: want the one set at the click, unlike the creation's", shown, sets, created)
	}
	if v := e.msgr.message(offer.Ref); v.Button() || v.State != commands.HandoverStateShown {
		t.Errorf("direct message after the click: %+v; want shown, no button", v)
	}
	if got := e.show(offer, newHire); got != commands.LabelDecided || len(api.sets()) != 1 {
		t.Errorf("second click: %q with %d resets; want already used, still 1", got, len(api.sets()))
	}
	e.noSecretsFor([]string{newHire}, created[0], shown)
	checkAudit(t, e.audit(), []commands.Event{commands.EventRun, commands.EventHandoverShown})
}

// checkAudit checks the events of entries, and that each names UADA.
func checkAudit(t *testing.T, entries []commands.AuditEntry, want []commands.Event) {
	t.Helper()
	if len(entries) != len(want) {
		t.Fatalf("audit: %d entries %+v, want events %v", len(entries), entries, want)
	}
	for i, en := range entries {
		if en.Event != want[i] || en.HandedTo != newHire {
			t.Errorf("audit entry %d: event %q handed to %q; want %q to UADA", i, en.Event, en.HandedTo, want[i])
		}
	}
}

func TestHandoverRefusedBeforeTheProvider(t *testing.T) {
	t.Parallel()
	for _, who := range []string{ghost, robot, visitor, "UNOBODY1"} {
		e, api := handoverEnv(t, commands.Config{})
		if who == "UNOBODY1" {
			e.cfg.People.(*fakePeople).people[who] = commands.Person{Unknown: true}
		}
		_, label := e.typed(admin1, "/mailbox add bob@example.com for <@"+who+">")
		if label == commands.LabelOK || api.calls.Load() != 0 || len(e.msgr.handoverCalls("offer")) != 0 {
			t.Errorf("add for %s: label %q, %d provider calls; want a refusal before the provider", who, label, api.calls.Load())
		}
	}
}

func TestHandoverReset(t *testing.T) {
	t.Parallel()
	e, api := handoverEnv(t, commands.Config{})
	if _, label := e.typed(admin1, "/mailbox reset ada@example.com for <@UADA>"); label != commands.LabelOK {
		t.Fatalf("reset for: %q", label)
	}
	if sets := api.sets(); len(sets) != 1 || secretOf(e.msgr.lastTo(admin1)) != "" {
		t.Fatalf("reset for: %d resets, reply %s; want one unseen password", len(sets), renderReply(e.msgr.lastTo(admin1)))
	}
	offer := offered(t, e)
	if got := e.show(offer, newHire); got != commands.LabelShown || len(api.sets()) != 2 || secretOf(e.msgr.lastTo(newHire)) != api.sets()[1] {
		t.Fatalf("click: %q, sets %q; want the second password shown", got, api.sets())
	}
	e.noSecretsFor([]string{newHire}, api.sets()...)
}

func TestHandoverExpires(t *testing.T) {
	t.Parallel()
	e, api := handoverEnv(t, commands.Config{HandoverTTL: time.Hour})
	e.typed(admin1, "/mailbox add ada@example.com for <@UADA>")
	offer := offered(t, e)
	e.clk.Advance(time.Hour - time.Second)
	e.core.Sweep(e.t.Context())
	if !e.msgr.message(offer.Ref).Button() {
		t.Fatal("the button went before the deadline")
	}
	e.clk.Advance(time.Second)
	e.core.Sweep(e.t.Context())
	e.core.Sweep(e.t.Context())
	if v := e.msgr.message(offer.Ref); v.Button() || v.State != commands.HandoverStateExpired {
		t.Fatalf("after the deadline: %+v; want expired, no button", v)
	}
	if n := len(e.msgr.handoverCalls("update")); n != 1 {
		t.Errorf("expiry updates: %d, want 1", n)
	}
	if got := e.show(offer, newHire); got == commands.LabelShown || len(api.sets()) != 0 {
		t.Errorf("click after the deadline: %q, %d resets; want refused, none", got, len(api.sets()))
	}
	checkAudit(t, e.audit(), []commands.Event{commands.EventRun, commands.EventHandoverExpired})
}

func TestHandoverForgedAndMovedValues(t *testing.T) {
	t.Parallel()
	e, api := handoverEnv(t, commands.Config{})
	e.typed(admin1, "/mailbox add ada@example.com for <@UADA>")
	e.typed(admin1, "/mailbox add bob@example.com for <@UADA>")
	offers := e.msgr.handoverCalls("offer")
	forged := offers[0]
	forged.View.Value = strings.Replace(forged.View.Value, "h1.", "h1.x", 1)
	moved := offers[0]
	moved.Ref = offers[1].Ref
	other := commands.Click{Kind: commands.ButtonShow, Value: e.core.EncodePending(commands.Pending{ID: "x", Requester: newHire}), User: newHire}
	if got := e.show(forged, newHire); got != commands.LabelInvalid {
		t.Errorf("forged value: %q", got)
	}
	if got := e.show(moved, newHire); got != commands.LabelInvalid {
		t.Errorf("value moved to another message: %q", got)
	}
	if got := e.core.Click(e.t.Context(), other); got != commands.LabelInvalid {
		t.Errorf("a request's value on Show: %q", got)
	}
	if len(api.sets()) != 0 {
		t.Errorf("%d resets after refused clicks", len(api.sets()))
	}
}

func TestHandoverTemporaryFailureKeepsTheButton(t *testing.T) {
	t.Parallel()
	e, api := handoverEnv(t, commands.Config{})
	api.setErr = func(n int) error {
		if n == 1 {
			return &apiclient.Error{Provider: apiclient.ProviderPDD, Op: apiclient.OpReset, Class: apiclient.ClassTemporary, Code: "unknown", Attempts: 3}
		}
		return nil
	}
	e.typed(admin1, "/mailbox add ada@example.com for <@UADA>")
	offer := offered(t, e)
	if got := e.show(offer, newHire); got != commands.LabelError || secretOf(e.msgr.lastTo(newHire)) != "" {
		t.Fatalf("click during an outage: %q, reply %s", got, renderReply(e.msgr.lastTo(newHire)))
	}
	if !e.msgr.message(offer.Ref).Button() {
		t.Fatal("the button went after a click that changed nothing")
	}
	if got := e.show(offer, newHire); got != commands.LabelShown || secretOf(e.msgr.lastTo(newHire)) != api.sets()[1] {
		t.Fatalf("click after the outage: %q", got)
	}
}

func TestHandoverUncertainResetShownWithWarning(t *testing.T) {
	t.Parallel()
	e, api := handoverEnv(t, commands.Config{})
	api.setErr = func(int) error {
		return &apiclient.Error{Provider: apiclient.ProviderPDD, Op: apiclient.OpReset, Class: apiclient.ClassUncertain, Timeout: true, Attempts: 3}
	}
	e.cfg.People.(*fakePeople).people[newHire] = commands.Person{}
	e.typed(admin1, "/mailbox add ada@example.com for <@UADA>")
	offer := offered(t, e)
	if got := e.show(offer, newHire); got != commands.LabelShown {
		t.Fatalf("uncertain click: %q", got)
	}
	r := e.msgr.lastTo(newHire)
	if secretOf(r) != api.sets()[0] || !strings.Contains(r.Title, "may not be set") {
		t.Errorf("uncertain reset reply:\n%s\nwant the password sent, with the warning", renderReply(r))
	}
}

func TestHandoverApprovedRequest(t *testing.T) {
	t.Parallel()
	e, api := handoverEnv(t, commands.Config{Approvals: commands.ApprovalsRequests})
	p, ref := e.request(user1, "/mailbox add ada@example.com for <@UADA> new hire")
	post, _ := e.msgr.last("post")
	if p.Op.For != newHire || !strings.Contains(post.View.Text, "<@UADA>") {
		t.Fatalf("request %+v, message %q: want it for UADA, saying so", p.Op, post.View.Text)
	}
	if got := e.click(commands.ButtonApprove, p, admin1, ref); got != commands.LabelOK {
		t.Fatalf("approve: %q", got)
	}
	if secretOf(e.msgr.lastTo(user1)) != "" || len(api.passwords()) != 1 {
		t.Fatalf("the requester's result: %s", renderReply(e.msgr.lastTo(user1)))
	}
	offer := offered(t, e)
	if offer.View.Handover.RequestID != p.ID || offer.View.Handover.Requester != user1 {
		t.Errorf("offer %+v: want request %s by %s", offer.View.Handover, p.ID, user1)
	}
	if got := e.show(offer, newHire); got != commands.LabelShown {
		t.Fatalf("owner's click: %q", got)
	}
	e.noSecretsFor([]string{newHire}, api.passwords()[0], api.sets()[0])
}

func TestHandoverReadBackAfterRestart(t *testing.T) {
	t.Parallel()
	e, api := handoverEnv(t, commands.Config{})
	e.typed(admin1, "/mailbox add ada@example.com for <@UADA>")
	offer := offered(t, e)
	// A restarted mailbot without a database: a new store, the same key,
	// and Slack's messages as they were.
	e2, _ := handoverEnv(t, commands.Config{})
	e2.core = restarted(t, e2, api, e.msgr)
	if got := e2.show(offer, newHire); got != commands.LabelShown {
		t.Fatalf("click after a restart: %q", got)
	}
	if len(e.msgr.handoverCalls("value")) != 1 {
		t.Errorf("the direct message was read back %d times, want 1", len(e.msgr.handoverCalls("value")))
	}
	e3, _ := handoverEnv(t, commands.Config{})
	e3.core = restarted(t, e3, api, e.msgr)
	if got := e3.show(offer, newHire); got != commands.LabelDecided || len(api.sets()) != 1 {
		t.Errorf("click after a second restart: %q, %d resets; want already used, 1", got, len(api.sets()))
	}
}

// restarted is a core on e's new store and clock, api and the messenger
// (Slack) of before.
func restarted(t *testing.T, e *env, api commands.Provider, msgr *recMessenger) *commands.Core {
	t.Helper()
	cfg := e.cfg
	c, err := commands.New(api, e.store, msgr, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.msgr = msgr
	return c
}

func TestHandoverOnTheHomeTab(t *testing.T) {
	t.Parallel()
	e, _ := handoverEnv(t, commands.Config{Approvals: commands.ApprovalsRequests})
	e.request(user1, "/mailbox add bob@example.com for <@UADA>")
	e.typed(admin1, "/mailbox add ada@example.com for <@UADA>")
	mention := func(id string) string { return "<@" + id + ">" }
	if home := e.core.Home(e.t.Context(), user1).PlainText(mention); !strings.Contains(home, "bob@example.com for <@UADA>") {
		t.Errorf("the requester's Home tab does not say whom the pending request is for:\n%s", home)
	}
	home := e.core.Home(e.t.Context(), admin1).PlainText(mention)
	if !strings.Contains(home, "ada@example.com by <@UADMIN1>: ok provider=pdd handed_to=<@UADA>") || !strings.Contains(home, "bob@example.com for <@UADA>") {
		t.Errorf("the admin's Home tab does not say whom the credentials go to:\n%s", home)
	}
}
