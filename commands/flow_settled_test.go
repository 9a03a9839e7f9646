package commands_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/commands"
)

// worldAPI is a hand-written fake of a Provider that keeps its domains
// and mailboxes, and counts the calls that read and those that write.
type worldAPI struct {
	mu        sync.Mutex
	name      string
	caps      apiclient.Capabilities
	domains   map[string]string                 // domain → status
	mailboxes map[string]apiclient.MailboxState // address → state
	reads     int
	writes    int
}

var _ commands.Provider = (*worldAPI)(nil)

// newWorld is a PDD-shaped provider whose account has example.com, with
// the mailboxes given (address → state).
func newWorld(boxes map[string]apiclient.MailboxState) *worldAPI {
	w := &worldAPI{name: apiclient.ProviderPDD, caps: apiclient.Capabilities{UIDs: true, Paged: true, VerifiesOwnership: true},
		domains: map[string]string{"example.com": pdd.StatusAdded}, mailboxes: map[string]apiclient.MailboxState{}}
	for a, s := range boxes {
		w.mailboxes[a] = s
	}
	return w
}

func (w *worldAPI) count(write bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if write {
		w.writes++
	} else {
		w.reads++
	}
}

// calls returns how many reads and writes reached the fake.
func (w *worldAPI) calls() (reads, writes int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reads, w.writes
}

func (w *worldAPI) Name() string                         { return w.name }
func (w *worldAPI) Capabilities() apiclient.Capabilities { return w.caps }

func (w *worldAPI) refused(op apiclient.Op, r apiclient.Reason, code string) error {
	return &apiclient.Error{Provider: w.name, Op: op, Class: apiclient.ClassRefused, Reason: r, Code: code, Attempts: 1}
}

func (w *worldAPI) RegisterDomain(_ context.Context, domain string) (*apiclient.Domain, error) {
	w.count(true)
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.domains[domain]; ok {
		return nil, w.refused(apiclient.OpRegister, apiclient.ReasonExists, "occupied")
	}
	w.domains[domain] = pdd.StatusDomainActivate
	return &apiclient.Domain{Name: domain, Status: pdd.StatusDomainActivate, Secrets: pdd.SecretsOf(domain, secretName, secretContent)}, nil
}

func (w *worldAPI) DomainStatus(_ context.Context, domain string) (*apiclient.Domain, error) {
	w.count(false)
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.domains[domain]
	if !ok {
		return nil, w.refused(apiclient.OpDomainStatus, apiclient.ReasonNotFound, "not_found")
	}
	return &apiclient.Domain{Name: domain, Status: s, Verified: s == pdd.StatusAdded}, nil
}

func (w *worldAPI) MailHosts() apiclient.MailDNS {
	return pdd.Hosts()
}

func (w *worldAPI) MailDNS(context.Context, string) (*apiclient.MailDNS, error) {
	m := w.MailHosts()
	return &m, nil
}

func (w *worldAPI) AddMailbox(_ context.Context, domain, login, _ string, _ bool) (*apiclient.Mailbox, error) {
	w.count(true)
	w.mu.Lock()
	defer w.mu.Unlock()
	a := login + "@" + domain
	if _, ok := w.mailboxes[a]; ok {
		return nil, w.refused(apiclient.OpAdd, apiclient.ReasonExists, "occupied")
	}
	w.mailboxes[a] = apiclient.StateActive
	return &apiclient.Mailbox{Address: a, UID: "42", State: apiclient.StateActive}, nil
}

func (w *worldAPI) SetPassword(_ context.Context, domain, login, _ string, _ bool) (*apiclient.Mailbox, error) {
	w.count(true)
	return w.mailbox(apiclient.OpReset, login+"@"+domain)
}

func (w *worldAPI) SetLoginEnabled(_ context.Context, domain, login string, enabled bool) (*apiclient.Mailbox, error) {
	w.count(true)
	w.mu.Lock()
	a := login + "@" + domain
	if _, ok := w.mailboxes[a]; ok {
		w.mailboxes[a] = map[bool]apiclient.MailboxState{true: apiclient.StateActive, false: apiclient.StateBlocked}[enabled]
	}
	w.mu.Unlock()
	return w.mailbox(apiclient.OpBlock, a)
}

func (w *worldAPI) LookupMailbox(_ context.Context, domain, login string) (*apiclient.Mailbox, error) {
	w.count(false)
	return w.mailbox(apiclient.OpLookup, login+"@"+domain)
}

func (w *worldAPI) mailbox(op apiclient.Op, a string) (*apiclient.Mailbox, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.mailboxes[a]
	if !ok {
		return nil, w.refused(op, apiclient.ReasonNotFound, "no_login")
	}
	return &apiclient.Mailbox{Address: a, UID: "42", State: s}, nil
}

func (w *worldAPI) ListMailboxes(_ context.Context, domain, _ string, _ int) (*apiclient.Page, error) {
	w.count(false)
	w.mu.Lock()
	defer w.mu.Unlock()
	p := &apiclient.Page{Total: 0}
	for a, s := range w.mailboxes {
		if strings.HasSuffix(a, "@"+domain) {
			p.Mailboxes = append(p.Mailboxes, apiclient.Mailbox{Address: a, State: s})
			p.Total++
		}
	}
	return p, nil
}

// TestReadsHonourTheAllowList: list, status and a More button of a domain
// outside MAILBOT_DOMAINS are refused in words, with no provider call.
func TestReadsHonourTheAllowList(t *testing.T) {
	t.Parallel()
	api := newWorld(map[string]apiclient.MailboxState{"alice@other.com": apiclient.StateActive})
	api.domains["other.com"] = pdd.StatusAdded
	for i := range 60 {
		api.mailboxes[strings.Repeat("u", i+1)+"@other.com"] = apiclient.StateActive
	}
	open := newEnv(t, api, commands.Config{}, nil)
	open.typed(admin1, "/mailbox list other.com")
	more := open.msgr.lastTo(admin1).Buttons
	if len(more) != 1 || more[0].Kind != commands.ButtonMore {
		t.Fatalf("the list of 61 mailboxes offers no More button: %+v", more)
	}
	e := newEnv(t, api, commands.Config{Domains: []string{"example.com"}}, nil)
	reads, _ := api.calls()
	for _, line := range []string{"/mailbox list other.com", "/maildomain status other.com"} {
		e.typed(admin1, line)
		if r := e.msgr.lastTo(admin1); !r.Error || !strings.Contains(r.Text, "not in the list of allowed domains") {
			t.Errorf("%s: answered %+v, want a refusal naming the allow-list", line, r)
		}
	}
	e.clickValue(commands.ButtonMore, more[0].Value, admin1, commands.MessageRef{})
	if r := e.msgr.lastTo(admin1); !r.Error || !strings.Contains(r.Text, "not in the list of allowed domains") {
		t.Errorf("More of other.com: answered %+v, want a refusal naming the allow-list", r)
	}
	if now, _ := api.calls(); now != reads {
		t.Errorf("%d provider calls for reads outside the allow-list, want none", now-reads)
	}
}

// TestListUsesTheDefaultDomain: /mailbox list without a domain lists
// MAILBOT_DEFAULT_DOMAIN when it is set, and answers the usage when not.
func TestListUsesTheDefaultDomain(t *testing.T) {
	t.Parallel()
	api := newWorld(map[string]apiclient.MailboxState{"alice@example.com": apiclient.StateActive})
	e := newEnv(t, api, commands.Config{DefaultDomain: "example.com"}, nil)
	e.typed(admin1, "/mailbox list")
	if r := e.msgr.lastTo(admin1); r.Error || !strings.Contains(r.Title, "example.com") || len(r.Fields) != 1 || r.Fields[0].Label != "alice@example.com" {
		t.Errorf("/mailbox list with a default domain answered %+v", r)
	}
	e = newEnv(t, api, commands.Config{}, nil)
	e.typed(admin1, "/mailbox list")
	if r := e.msgr.lastTo(admin1); !r.Error {
		t.Errorf("/mailbox list without a default domain answered %+v, want the usage", r)
	}
}

// TestBlockNeverLoosens: block of a mailbox that is blocked or inactive,
// and unblock of an active one, change nothing: no write, a reply that
// says it already was, and an ops notice and audit entry that say
// nothing changed.
func TestBlockNeverLoosens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line, address string
		state         apiclient.MailboxState
	}{
		{"/mailbox block bob@example.com", "bob@example.com", apiclient.StateBlocked},
		{"/mailbox block carol@example.com", "carol@example.com", apiclient.StateInactive},
		{"/mailbox unblock alice@example.com", "alice@example.com", apiclient.StateActive},
	} {
		api := newWorld(map[string]apiclient.MailboxState{tc.address: tc.state})
		e := newEnv(t, api, commands.Config{}, nil)
		e.typed(admin1, tc.line)
		if _, writes := api.calls(); writes != 0 {
			t.Errorf("%s: %d write calls, want none", tc.line, writes)
		}
		if got := api.mailboxes[tc.address]; got != tc.state {
			t.Errorf("%s: the mailbox is %s, want it left %s", tc.line, got, tc.state)
		}
		r := e.msgr.lastTo(admin1)
		if r.Error || !strings.Contains(r.Title, "already") {
			t.Errorf("%s: answered %q (error %v), want that it already was", tc.line, r.Title, r.Error)
		}
		notices := e.msgr.of("notify")
		if len(notices) != 1 || !strings.Contains(notices[0].Text, "nothing changed") {
			t.Errorf("%s: ops notices %+v, want one that says nothing changed", tc.line, notices)
		}
		if a := e.audit(); len(a) != 1 || a[0].Outcome != commands.OutcomeOK || a[0].Code != commands.CodeUnchanged {
			t.Errorf("%s: audit %+v, want one entry ok and unchanged", tc.line, a)
		}
	}
}

// TestSecondPendingRequestRefused: while one request to reset a mailbox's
// password waits, a second one, by anyone, is refused naming the first:
// no second request message, and nobody's password is replaced.
func TestSecondPendingRequestRefused(t *testing.T) {
	t.Parallel()
	api := newWorld(map[string]apiclient.MailboxState{"alice@example.com": apiclient.StateActive})
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	first, _ := e.request(user1, "/mailbox reset alice@example.com")
	posts := len(e.msgr.of("post"))
	_, label := e.typed(user2, "/mailbox reset alice@example.com")
	r := e.msgr.lastTo(user2)
	if label != commands.LabelRefused || !r.Error || !strings.Contains(r.Text, first.ID) {
		t.Errorf("a second reset request: label %q, reply %+v; want a refusal naming %s", label, r, first.ID)
	}
	if n := len(e.msgr.of("post")); n != posts {
		t.Errorf("%d request messages posted for the second request, want none", n-posts)
	}
	e.request(user2, "/mailbox block alice@example.com") // another action is its own request
}

// TestRegisterAgainSaysItAlreadyWas: a register of a domain the account
// already has, which the provider refuses as existing, says so, with its
// status (read from the provider); the ops notice and the audit entry say
// nothing changed.
func TestRegisterAgainSaysItAlreadyWas(t *testing.T) {
	t.Parallel()
	api := newWorld(nil)
	e := newEnv(t, api, commands.Config{}, nil)
	e.typed(admin1, "/maildomain register example.com")
	r := e.msgr.lastTo(admin1)
	if r.Error || !strings.Contains(r.Title, "already") || !strings.Contains(r.PlainText(), pdd.StatusAdded) {
		t.Errorf("answered %+v, want that it already was, with its status", r)
	}
	notices := e.msgr.of("notify")
	if len(notices) != 1 || !strings.Contains(notices[0].Text, "nothing changed") {
		t.Errorf("ops notices %+v, want one that says nothing changed", notices)
	}
	if a := e.audit(); len(a) != 1 || a[0].Outcome != commands.OutcomeOK || a[0].Code != commands.CodeUnchanged {
		t.Errorf("audit %+v, want one entry ok and unchanged", a)
	}
}

// loginRuled is worldAPI with a provider's own user-name rule.
type loginRuled struct {
	*worldAPI
	rule func(string) error
}

func (l loginRuled) CheckLogin(login string) error { return l.rule(login) }

// TestOneUserNameRulePerProvider: add refuses what block and reset
// refuse ("bad..name"), with no provider call; a provider's own rule
// (mailcow's: "_", digits first, up to 64) is the rule for every command.
func TestOneUserNameRulePerProvider(t *testing.T) {
	t.Parallel()
	api := newWorld(nil)
	e := newEnv(t, api, commands.Config{}, nil)
	for _, line := range []string{"/mailbox add bad..name@example.com", "/mailbox block bad..name@example.com", "/mailbox reset bad..name@example.com"} {
		if d, _ := e.typed(admin1, line); d.Step != commands.StepReply || !d.Reply.Error {
			t.Errorf("%s: verdict %v, want a refusal", line, d.Step)
		}
	}
	long := strings.Repeat("a", 64)
	for _, name := range []string{"john_doe", "123", long} {
		if d, _ := e.typed(admin1, "/mailbox add "+name+"@example.com"); d.Step != commands.StepReply {
			t.Errorf("add %s with a provider without a rule of its own: verdict %v, want a refusal by the default rule", name, d.Step)
		}
	}
	if r, w := api.calls(); r+w != 0 {
		t.Errorf("%d provider calls for names that were refused", r+w)
	}
	mailcowish := loginRuled{worldAPI: newWorld(map[string]apiclient.MailboxState{"john_doe@example.com": apiclient.StateActive}), rule: func(s string) error {
		if len(s) > 64 || strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789._-") != "" {
			return errors.New("not a mailcow local part")
		}
		return nil
	}}
	m := newEnv(t, mailcowish, commands.Config{}, nil)
	for _, line := range []string{"/mailbox add 123@example.com", "/mailbox add " + long + "@example.com", "/mailbox block john_doe@example.com"} {
		if d, _ := m.typed(admin1, line); d.Step != commands.StepRun {
			t.Errorf("%s on a provider whose rule takes it: verdict %v (%s), want a run", line, d.Step, d.Reply.Text)
		}
	}
	for _, line := range []string{"/mailbox add a+b@example.com", "/mailbox block a+b@example.com"} {
		if d, _ := m.typed(admin1, line); d.Step != commands.StepReply {
			t.Errorf("%s on a provider whose rule refuses it: verdict %v, want a refusal", line, d.Step)
		}
	}
}

// takenElsewhere is worldAPI where a register of taken.example is refused
// as existing and its status cannot be read: the provider has it, the
// account does not.
type takenElsewhere struct{ *worldAPI }

func (t takenElsewhere) RegisterDomain(_ context.Context, domain string) (*apiclient.Domain, error) {
	return nil, &apiclient.Error{Provider: apiclient.ProviderMailcow, Op: apiclient.OpRegister, Class: apiclient.ClassRefused,
		Reason: apiclient.ReasonExists, Code: "domain_exists", Message: "the domain is already on the mailcow server", Attempts: 1}
}

// TestRegisterExistsWording: a register refused as existing never claims
// that another account has the domain (a self-hosted server has no other
// accounts): it says what the provider said, and how to see more.
func TestRegisterExistsWording(t *testing.T) {
	t.Parallel()
	api := takenElsewhere{newWorld(nil)}
	api.name = apiclient.ProviderMailcow
	e := newEnv(t, api, commands.Config{}, nil)
	e.typed(admin1, "/maildomain register taken.example")
	r := e.msgr.lastTo(admin1)
	if !r.Error || strings.Contains(r.PlainText(), "account") && strings.Contains(r.PlainText(), "Another") ||
		!strings.Contains(r.PlainText(), "already on the mailcow server") || !strings.Contains(r.PlainText(), "/maildomain status taken.example") {
		t.Errorf("answered:\n%s", r.PlainText())
	}
}

// TestRegisterReplyWording: an IDN domain is shown in Unicode first, its
// punycode beside it; the register reply's next steps name the records
// the DNS checklist then checks (SPF included); and where the provider
// says what a verification method publishes (Yandex 360's DNS method: a
// TXT record), the reply says where and what.
func TestRegisterReplyWording(t *testing.T) {
	t.Parallel()
	api := newWorld(nil)
	e := newEnv(t, api, commands.Config{}, nil)
	e.typed(admin1, "/maildomain register пример.рф")
	r := e.msgr.lastTo(admin1).PlainText()
	if !strings.Contains(r, "пример.рф (xn--e1afmkfd.xn--p1ai)") || strings.Contains(r, "xn--e1afmkfd.xn--p1ai (пример.рф)") {
		t.Errorf("an IDN domain is not shown Unicode first:\n%s", r)
	}
	if !strings.Contains(r, "SPF") || !strings.Contains(r, "include:_spf.yandex.net") {
		t.Errorf("the register reply's steps lack the SPF record the checklist checks:\n%s", r)
	}
	y := verifying{newWorld(nil)}
	y.name, y.caps = apiclient.ProviderYandex360, apiclient.Capabilities{VerifiesOwnership: true, OwnAddresses: true}
	e = newEnv(t, y, commands.Config{}, nil)
	e.typed(admin1, "/maildomain register new.example")
	r = e.msgr.lastTo(admin1).PlainText()
	for _, want := range []string{"TXT record at new.example", "yandex-verification: c0de", "include:_spf.yandex.net"} {
		if !strings.Contains(r, want) {
			t.Errorf("the Yandex 360 register reply lacks %q:\n%s", want, r)
		}
	}
}

// verifying is worldAPI whose register answers as Yandex 360's adapter
// does: not verified, with its verification methods.
type verifying struct{ *worldAPI }

func (v verifying) RegisterDomain(_ context.Context, domain string) (*apiclient.Domain, error) {
	return &apiclient.Domain{Name: domain, Status: "need-validation", Methods: []apiclient.VerifyMethod{
		{Method: "webmaster.dns", Code: "c0de", Record: "a TXT record at " + domain + " with the value yandex-verification: c0de"},
		{Method: "webmaster.file", Code: "c0de"}}}, nil
}

// named is worldAPI that takes a person's name for a new mailbox.
type named struct {
	*worldAPI
	got *string
}

func (n named) AddNamedMailbox(ctx context.Context, domain, login string, name apiclient.PersonName, password string, force bool) (*apiclient.Mailbox, error) {
	*n.got = name.Full()
	return n.AddMailbox(ctx, domain, login, password, force)
}

// TestAddFormName: the add form's optional name reaches a provider that
// takes one, also through an approval (it travels in the signed request),
// as plain text; without a name, nothing is sent for it.
func TestAddFormName(t *testing.T) {
	t.Parallel()
	var got string
	api := named{newWorld(nil), &got}
	e := newEnv(t, api, commands.Config{}, nil)
	d, _ := e.typed(admin1, "/mailbox add")
	if d.Step != commands.StepForm {
		t.Fatalf("/mailbox add: verdict %v, want a form", d.Step)
	}
	sub, _, errs := e.core.SubmitForm(admin1, d.Form.Metadata, commands.FormValues{Domain: "example.com", User: "ada", Name: "  Ada   King Lovelace <@U1> ", Reason: "r"})
	if len(errs) > 0 || sub.Op.Name != "Ada King Lovelace @U1" {
		t.Fatalf("SubmitForm: %+v, %v; want the name as plain text", sub.Op, errs)
	}
	e.core.Execute(t.Context(), commands.Route{User: admin1}, sub)
	if got != "Ada King Lovelace @U1" {
		t.Errorf("the provider got the name %q", got)
	}
	p := commands.Pending{ID: "n1", Requester: user1, Op: sub.Op, Created: start, Expires: start.Add(time.Hour)}
	back, err := e.core.DecodePending(e.core.EncodePending(p))
	if err != nil || back.Op.Name != sub.Op.Name {
		t.Errorf("the name did not travel in the signed request: %+v, %v", back.Op, err)
	}
}

// wrapped is a Provider that wraps another, as main's metrics do.
type wrapped struct{ commands.Provider }

func (w wrapped) Unwrap() commands.Provider { return w.Provider }

// TestLoginRuleThroughAWrapper: the provider's own user-name rule is
// found behind a wrapper (the metered provider of serve).
func TestLoginRuleThroughAWrapper(t *testing.T) {
	t.Parallel()
	inner := loginRuled{worldAPI: newWorld(nil), rule: func(string) error { return nil }}
	e := newEnv(t, wrapped{inner}, commands.Config{}, nil)
	if d, _ := e.typed(admin1, "/mailbox add 123@example.com"); d.Step != commands.StepRun {
		t.Errorf("add 123 behind a wrapper of a provider that takes it: verdict %v (%s)", d.Step, d.Reply.Text)
	}
}

func (w *worldAPI) ResolveMailbox(ctx context.Context, domain, login string) (*apiclient.Resolved, error) {
	return resolved(w.LookupMailbox(ctx, domain, login))
}

// TestHelpBlockFromCapabilities: /mailbox help says what a block does to
// incoming mail as the provider's capabilities say: mail still arrives,
// none arrives, or nothing said where the provider says neither.
func TestHelpBlockFromCapabilities(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		caps       apiclient.Capabilities
		want, deny string
	}{
		{apiclient.Capabilities{Title: "Google Workspace", NoMailWhenBlocked: true}, "no new mail arrives", "mail still arrives"},
		{apiclient.Capabilities{Title: "mailcow", KeepsMailWhenBlocked: true}, "mail still arrives", "no new mail"},
		{apiclient.Capabilities{Title: "PDD"}, "Stop the mailbox's logins.", "arrives"},
	} {
		w := newWorld(nil)
		w.caps = tc.caps
		e := newEnv(t, w, commands.Config{}, nil)
		d, _ := e.typed(admin1, "/mailbox help")
		var block string
		for _, f := range d.Reply.Fields {
			if strings.HasPrefix(f.Label, "/mailbox block") {
				block = f.Value
			}
		}
		if !strings.Contains(block, tc.want) || strings.Contains(block, tc.deny) {
			t.Errorf("%s: block's help %q, want %q and not %q", tc.caps.Title, block, tc.want, tc.deny)
		}
	}
}

// TestAliasRefusalFix: a refused alias command suggests an alias command
// as it is typed ("alias add …"), never the action's inner name.
func TestAliasRefusalFix(t *testing.T) {
	t.Parallel()
	w := newWorld(nil)
	w.caps.Aliases = true
	e := newEnv(t, w, commands.Config{}, nil)
	d, _ := e.typed(admin1, "/mailbox alias add x+y@example.com a@example.com")
	if !d.Reply.Error || strings.Contains(d.Reply.Note, "alias_add") || !strings.Contains(d.Reply.Note, "/mailbox alias add ") {
		t.Errorf("refusal %q / %q; want the alias add usage as typed", d.Reply.Text, d.Reply.Note)
	}
}

// TestHandoverOfMissingMailbox: a reset for someone of a mailbox that does
// not exist fails with the advice to check the name, and never says a
// Show my password button is on its way.
func TestHandoverOfMissingMailbox(t *testing.T) {
	t.Parallel()
	e := newEnv(t, newWorld(nil), commands.Config{People: directory()}, nil)
	e.typed(admin1, "/mailbox reset nobody@example.com for <@UADA>")
	r := e.msgr.lastTo(admin1)
	if !r.Error || strings.Contains(r.Text+r.Note, "Show my password") {
		t.Errorf("reply %q / %q; want a failure that offers no button", r.Text, r.Note)
	}
	s := newEnv(t, newWorld(nil), commands.Config{People: directory(), SelfService: commands.SelfServiceReset, Domains: []string{"example.com"}}, nil)
	s.typed(newHire, "/mailbox reset")
	r = s.msgr.lastTo(newHire)
	if !r.Error || strings.Contains(r.Text+r.Note, "Show my password") {
		t.Errorf("self-service: reply %q / %q; want a failure that offers no button", r.Text, r.Note)
	}
}
