package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
)

// The "More" button of a list reply, and the mailboxes a list pages over.
const (
	e2eMore      = "more"
	e2eListed    = 2500
	e2eLifeOwner = "alice" // the mailbox whose life each scenario follows
)

// testE2ELifecycle is a mailbox's whole life (docs/commands.md) from the binary, for each provider over
// HTTPS: a mailbox's whole life typed by an admin (add, reset, a reset
// whose answer is lost, one never confirmed, block, unblock, a reset
// through the form), the same commands refused for a non-admin without a
// provider request, the domain's status in each state the provider knows,
// and a list of 2,500 mailboxes paged through "More" to its end. The world's checks scan
// every public text and every process's output for each password sent
// and each verification secret answered.
func testE2ELifecycle(t *testing.T, bin string) {
	for _, provider := range e2eProviders {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			lw := newLifeWorld(t, bin, provider)
			lw.serve("mailbot", lw.env(nil))
			alice := e2eLifeOwner + "@" + lw.sb.domain
			lifeAdd(t, lw, alice)
			lifeReset(t, lw)
			lifeLostAnswer(t, lw, alice)
			lifeNeverConfirmed(t, lw, alice)
			lifeBlockUnblock(t, lw, alice)
			lifeRefused(t, lw, alice)
			lifeFormReset(t, lw, alice)
			lifeStatus(t, lw)
			lifeList(t, lw)
		})
	}
}

// forcesChange reports whether the provider can require a new password
// to be changed at the next login (PDD cannot).
func (lw *lifeWorld) forcesChange() bool { return lw.sb.provider != apiclient.ProviderPDD }

// checkForced checks, for MAILBOT_FORCE_PASSWORD_CHANGE's default, that
// the sandbox stored the requirement where the provider has one and that
// the reply says which.
func (lw *lifeWorld) checkForced(what string, m e2eMsg, forced bool) {
	lw.t.Helper()
	shown := m.shown()
	switch {
	case lw.forcesChange() && (!forced || !strings.Contains(shown, "must be changed at the first login")):
		lw.t.Errorf("%s: the sandbox requires a change %v (want true), and the reply:\n%s", what, forced, shown)
	case !lw.forcesChange() && (forced || !strings.Contains(shown, "cannot require it to be changed")):
		lw.t.Errorf("%s at PDD, which cannot require a change: flag %v; the reply does not say so:\n%s", what, forced, shown)
	}
}

// lifeAdd: an admin adds the mailbox; the password the sandbox stored is
// the one delivered, to the admin alone.
func lifeAdd(t *testing.T, lw *lifeWorld, address string) {
	res := lw.ask(e2eAdmin1, "/mailbox", "add "+address+" new hire")
	m := lw.mailbox(address)
	if !strings.Contains(res.shown(), m.Password) || res.ResponseType != "ephemeral" {
		t.Errorf("add %s: the reply (%s) lacks the stored password:\n%s", address, res.ResponseType, res.shown())
	}
	lw.checkForced("add "+address, res, m.ForcePasswordChange)
	lw.seenOnlyBy("the password of the new "+address, m.Password, e2eAdmin1)
}

// lifeReset: an admin resets a mailbox that needs no change yet: one
// write, the stored password delivered to the admin alone, and the
// change now required where the provider can require it.
func lifeReset(t *testing.T, lw *lifeWorld) {
	if err := lw.sb.seed(lw.sb.domain, 1); err != nil {
		t.Fatal(err)
	}
	seeded := "user0001@" + lw.sb.domain
	before := lw.mailbox(seeded)
	if before.ForcePasswordChange {
		t.Fatalf("the seeded %s already requires a change: the reset could not show it set", seeded)
	}
	writes := lw.sb.wire.writeCount()
	res := lw.ask(e2eAdmin1, "/mailbox", "reset "+seeded+" forgot it")
	after := lw.mailbox(seeded)
	if after.Password == before.Password || !strings.Contains(res.shown(), after.Password) {
		t.Errorf("reset %s: the password changed %v; the reply lacks the stored one:\n%s", seeded, after.Password != before.Password, res.shown())
	}
	if n, sent := lw.sb.wire.writeCount()-writes, lw.sb.wire.passwordsSent(writes); n != 1 || !slices.Equal(sent, []string{after.Password}) {
		t.Errorf("reset %s: %d writes reached %s carrying %d passwords, want 1 write carrying the stored one", seeded, n, lw.sb.provider, len(sent))
	}
	lw.checkForced("reset "+seeded, res, after.ForcePasswordChange)
	lw.seenOnlyBy("the reset password of "+seeded, after.Password, e2eAdmin1)
}

// lifeLostAnswer: the answer to a reset's write is lost (the sandbox did
// it, then closed the connection): mailbot sends the same password again,
// and the requester gets the one the sandbox stored.
func lifeLostAnswer(t *testing.T, lw *lifeWorld, address string) {
	from := lw.sb.wire.writeCount()
	lw.sb.wire.dropWrites.Store(1)
	res := lw.ask(e2eAdmin1, "/mailbox", "reset "+address)
	if lw.sb.wire.dropWrites.Load() != 0 {
		t.Fatalf("the reset of %s wrote nothing: the lost answer never happened; the reply:\n%s", address, res.shown())
	}
	m := lw.mailbox(address)
	sent := lw.sb.wire.passwordsSent(from)
	if len(sent) < 2 || slices.ContainsFunc(sent, func(pw string) bool { return pw != m.Password }) {
		t.Errorf("after a lost answer mailbot sent %d passwords (want the same one at least twice, the stored one)", len(sent))
	}
	if !strings.Contains(res.shown(), m.Password) {
		t.Errorf("after a lost answer, the reply lacks the password the sandbox stored:\n%s", res.shown())
	}
	lw.seenOnlyBy("the password of "+address+" set despite a lost answer", m.Password, e2eAdmin1)
}

// lifeNeverConfirmed: every attempt of a reset is carried out and its
// answer lost: after at least 3 attempts, all with the same password,
// the requester still gets that password, the one the sandbox stored,
// with the warning that it may not be set.
func lifeNeverConfirmed(t *testing.T, lw *lifeWorld, address string) {
	from := lw.sb.wire.writeCount()
	lw.sb.wire.dropWrites.Store(1000)
	res := lw.ask(e2eAdmin1, "/mailbox", "reset "+address)
	lw.sb.wire.dropWrites.Store(0)
	m := lw.mailbox(address)
	sent := lw.sb.wire.passwordsSent(from)
	if len(sent) < 3 || slices.ContainsFunc(sent, func(pw string) bool { return pw != m.Password }) {
		t.Errorf("a reset never confirmed: %d attempts carried a password, want at least 3, all the one stored", len(sent))
	}
	if !strings.Contains(res.shown(), m.Password) || !strings.Contains(res.shown(), "may not be set") {
		t.Errorf("a reset never confirmed: the reply lacks the stored password or the warning:\n%s", res.shown())
	}
	lw.seenOnlyBy("the password of a reset never confirmed", m.Password, e2eAdmin1)
}

// lifeBlockUnblock: block stops logins (mailcow keeps accepting mail:
// active 2, and the reply says so) and keeps the password; unblock lets
// the mailbox log in again.
func lifeBlockUnblock(t *testing.T, lw *lifeWorld, address string) {
	pw := lw.mailbox(address).Password
	res := lw.ask(e2eAdmin1, "/mailbox", "block "+address+" left the company")
	m := lw.mailbox(address)
	if m.State != "blocked" || m.Password != pw || !strings.Contains(res.shown(), "blocked") {
		t.Errorf("block %s: the sandbox's state %q (want blocked), password kept %v; the reply:\n%s", address, m.State, m.Password == pw, res.shown())
	}
	keeps := strings.Contains(res.shown(), "keeps accepting mail for it")
	// mailcow's active 2 and Microsoft 365's disabled account keep receiving mail.
	if keeps != (lw.sb.provider == apiclient.ProviderMailcow || lw.sb.provider == apiclient.ProviderM365) {
		t.Errorf("block %s at %s: the reply says mail is still accepted: %v, want %v:\n%s", address, lw.sb.provider, keeps, !keeps, res.shown())
	}
	res = lw.ask(e2eAdmin1, "/mailbox", "unblock "+address+" came back")
	if m := lw.mailbox(address); m.State != "active" || !strings.Contains(res.shown(), "active") {
		t.Errorf("unblock %s: the sandbox's state %q, want active; the reply:\n%s", address, m.State, res.shown())
	}
}

// lifeRefused: a non-admin (approvals off) is refused every lifecycle
// command and every read, and the provider hears nothing of it.
func lifeRefused(t *testing.T, lw *lifeWorld, address string) {
	before, m := lw.sb.requests(), lw.mailbox(address)
	for _, verb := range []string{"reset", "block", "unblock"} {
		if ack := lw.refused("/mailbox", verb+" "+address); !strings.Contains(ack.shown(), verb) {
			t.Errorf("the refusal of /mailbox %s does not say that %s is for admins:\n%s", verb, verb, ack.shown())
		}
	}
	lw.refused("/mailbox", "list "+lw.sb.domain)
	lw.refused("/maildomain", "status "+lw.sb.domain)
	if n := lw.sb.requests() - before; n != 0 {
		t.Errorf("a non-admin's refused commands made %d %s requests, want none", n, lw.sb.provider)
	}
	if after := lw.mailbox(address); after != m {
		t.Errorf("a non-admin's refused commands changed %s", address)
	}
}

// refused checks that a non-admin typing cmd text is told, at once, that
// it is not allowed.
func (lw *lifeWorld) refused(cmd, text string) e2eMsg {
	lw.t.Helper()
	_, ack := lw.command(lw.fake.Via(0), e2eUser, cmd, text)
	if !strings.Contains(ack.shown(), "Not allowed") {
		lw.t.Errorf("%s %s by a non-admin was answered:\n%s", cmd, text, ack.shown())
	}
	return ack
}

// lifeFormReset: a bare /mailbox reset opens a form whose submission
// resets the password, delivered to the submitter alone.
func lifeFormReset(t *testing.T, lw *lifeWorld, address string) {
	lw.command(lw.fake.Via(0), e2eAdmin1, "/mailbox", "reset")
	modal, err := lw.fake.WaitModal(e2eAdmin1, e2eWait)
	if err != nil {
		t.Fatal(err)
	}
	old := lw.mailbox(address).Password
	id, err := lw.fake.SubmitView(e2eAdmin1, slackfake.Submission{ViewID: modal.ID, Values: []slackfake.Value{
		slackfake.Text(e2eFormUser, e2eFormValue, e2eLifeOwner), slackfake.Text(e2eFormDomain, e2eFormValue, lw.sb.domain)}})
	if err != nil {
		t.Fatal(err)
	}
	if ack, err := lw.fake.Socket.WaitAck(id, e2eWait); err != nil || jsonField(ack.Payload, "response_action") != "clear" {
		t.Fatalf("the reset form: ack %s (%v), want response_action clear", ack.Payload, err)
	}
	var pw string
	if err := lw.fake.Wait(e2eWait, "the reset form's result", func() bool {
		m, _ := lw.sb.inspect(address)
		pw = m.Password
		return pw != old && lw.deliveredTo(e2eAdmin1, pw) > 0
	}); err != nil {
		t.Fatal(err)
	}
	lw.seenOnlyBy("the password reset through the form", pw, e2eAdmin1)
}

// domainState is a state a test puts a domain in, and the words its
// status shows for it.
type domainState struct {
	set     func()
	want    []string
	secrets bool // the status shows verification secrets or codes
}

// lifeStatus: /maildomain status of a domain the admin registered,
// through each state the provider knows; verification secrets and codes
// reach the asker alone, and only while the domain is not verified.
func lifeStatus(t *testing.T, lw *lifeWorld) {
	const domain = "status.example"
	lw.ask(e2eAdmin1, "/maildomain", "register "+domain)
	var states []domainState
	switch lw.sb.provider {
	case apiclient.ProviderPDD:
		states = []domainState{
			{func() {}, []string{"domain-activate (", "owner-check"}, true},
			{func() { must(t, lw.sb.pdd.SetStatus(domain, pddsim.StatusMXActivate)) }, []string{"mx-activate ("}, false},
			{func() { must(t, lw.sb.pdd.SetStatus(domain, pddsim.StatusAdded)) }, []string{"added ("}, false},
		}
	case apiclient.ProviderYandex360:
		states = []domainState{
			{func() {}, []string{"Verified", "not yet", "need-validation", "webmaster.dns"}, true},
			{func() { must(t, lw.sb.y360.Verify(domain)) }, []string{"Verified", "yes"}, false},
		}
	case apiclient.ProviderMailcow:
		off := "off.example"
		states = []domainState{
			{func() {}, []string{"State", "active", "0 of "}, false},
			{func() {
				if out := lw.sb.api(t, "POST", "/api/v1/add/domain", map[string]any{"domain": off, "active": 0}); !strings.Contains(out, "domain_added") {
					t.Fatalf("adding the inactive %s: %s", off, out)
				}
			}, []string{"State", "inactive"}, false},
		}
	}
	for i, st := range states {
		st.set()
		target := domain
		if lw.sb.provider == apiclient.ProviderMailcow && i == 1 {
			target = "off.example"
		}
		res := lw.ask(e2eAdmin1, "/maildomain", "status "+target)
		for _, want := range st.want {
			if !strings.Contains(res.shown(), want) {
				t.Errorf("status %s (state %d) lacks %q:\n%s", target, i+1, want, res.shown())
			}
		}
		if _, ok := res.Button(e2eReplyBlock, e2eCheckDNS); !ok || res.ResponseType != "ephemeral" {
			t.Errorf("status %s: response_type %q and a Check DNS button %v, want ephemeral and one", target, res.ResponseType, ok)
		}
		lifeStatusSecrets(t, lw, res, st.secrets)
	}
}

// lifeStatusSecrets checks that a status reply shows the domain's
// verification secrets exactly while it should, to the asker alone.
func lifeStatusSecrets(t *testing.T, lw *lifeWorld, res e2eMsg, want bool) {
	t.Helper()
	var shown []string
	for _, s := range lw.rec.secrets() {
		if s.kind == "verification secret" && strings.Contains(res.shown(), s.value) {
			shown = append(shown, s.value)
		}
	}
	if want != (len(shown) > 0) {
		t.Errorf("a status reply shows %d of the verification secrets the sandbox answered, want some: %v:\n%s", len(shown), want, res.shown())
	}
	for _, s := range shown {
		lw.seenOnlyBy("a verification secret", s, e2eAdmin1)
	}
}

// lifeList seeds 2,500 more mailboxes in the domain, blocks one (and,
// at mailcow, makes one inactive: active 0), and pages through /mailbox
// list with "More" until no More is offered: every mailbox the sandbox
// has is listed exactly once with its state, nothing else, and every
// page is within Block Kit's limits.
func lifeList(t *testing.T, lw *lifeWorld) {
	if err := lw.sb.seed(lw.sb.domain, e2eListed); err != nil {
		t.Fatal(err)
	}
	want := lifeListStates(t, lw)
	start := time.Now()
	seen := map[string]int{}
	states := map[string]string{}
	page := lw.ask(e2eAdmin1, "/mailbox", "list "+lw.sb.domain)
	pages := 1
	for ; ; pages++ {
		if problems := blockKitProblems(page.Raw); len(problems) > 0 {
			t.Errorf("list page %d breaks Block Kit's limits: %q", pages, problems)
		}
		shown := map[string]string{}
		for _, m := range e2eListLine.FindAllStringSubmatch(page.shown(), -1) {
			shown[m[1]] = m[2]
		}
		for a, state := range shown {
			seen[a]++
			states[a] = state
		}
		value, ok := page.Button(e2eReplyBlock, e2eMore)
		if !ok {
			break
		}
		if pages > 2*e2eListed/10 {
			t.Fatalf("still a More button after %d pages", pages)
		}
		id, err := lw.fake.Click(e2eAdmin1, e2eGeneral, "", e2eReplyBlock, e2eMore, value)
		if err != nil {
			t.Fatal(err)
		}
		page = lw.result(id)
	}
	t.Logf("%s: %d mailboxes listed in %d pages in %s", lw.sb.provider, len(seen), pages, time.Since(start).Round(time.Millisecond))
	for a, n := range seen {
		if n != 1 || want[a] == "" {
			t.Errorf("%s listed %d times (a mailbox of the sandbox: %v)", a, n, want[a] != "")
		}
	}
	for a, state := range want {
		if seen[a] == 0 {
			t.Errorf("%s is never listed", a)
		} else if states[a] != state {
			t.Errorf("%s is listed %q, want %q", a, states[a], state)
		}
	}
}

// e2eListLine is a mailbox's line in a list: its address and the first
// word of its state.
var e2eListLine = regexp.MustCompile(`(?m)^\*([^*\s]+@[^*\s]+):\* (\S+)`)

// lifeListStates blocks one seeded mailbox through mailbot and, at
// mailcow, makes another inactive through its API, and returns the state
// of every mailbox the sandbox has in the domain, by address.
func lifeListStates(t *testing.T, lw *lifeWorld) map[string]string {
	t.Helper()
	want := map[string]string{}
	for i := 1; i <= e2eListed+10; i++ { // a sandbox may number on after the mailboxes it has
		if a := fmt.Sprintf("user%04d@%s", i, lw.sb.domain); lw.has(a) {
			want[a] = "active"
		}
	}
	want[e2eLifeOwner+"@"+lw.sb.domain] = "active"
	if len(want) < e2eListed+1 {
		t.Fatalf("the sandbox holds %d mailboxes, want at least %d", len(want), e2eListed+1)
	}
	blocked := "user0100@" + lw.sb.domain
	lw.ask(e2eAdmin1, "/mailbox", "block "+blocked)
	want[blocked] = "blocked"
	if lw.sb.provider == apiclient.ProviderMailcow {
		off := "user0200@" + lw.sb.domain
		lw.sb.api(t, "POST", "/api/v1/edit/mailbox", map[string]any{"items": []string{off}, "attr": map[string]any{"active": 0}})
		want[off] = "inactive"
	}
	for a, state := range want {
		if m := lw.mailbox(a); m.State != state {
			t.Fatalf("the sandbox holds %s as %q, want %q before the list", a, m.State, state)
		}
	}
	return want
}

// has reports whether the sandbox has the mailbox address.
func (lw *lifeWorld) has(address string) bool {
	_, ok := lw.sb.inspect(address)
	return ok
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// lifeAuditLine is a line of `mailbot audit --json` with its provider.
type lifeAuditLine struct {
	auditJSONLine
	Provider string `json:"provider"`
	Source   string `json:"source"`
}

// testE2ELifecycleAudit is the lifecycle commands' approvals and trail, for each
// provider with PostgreSQL: a non-admin's reset approved by two admins
// (one of them clicking twice, the last clicks at once) runs once and
// only the requester sees the password, the one the sandbox stored; a
// non-admin's reads are refused without a request; an admin blocks and
// unblocks; `mailbot audit --json` shows each run with its provider, and
// no table holds a password or a token.
func testE2ELifecycleAudit(t *testing.T, bin string, cluster *pgtest.Cluster) {
	for _, provider := range e2eProviders {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			dsn := cluster.NewDatabase(t)
			lw := newLifeWorld(t, bin, provider)
			lw.serve("mailbot", lw.env(map[string]string{"MAILBOT_DATABASE_URL": dsn,
				"MAILBOT_APPROVALS": "requests", "MAILBOT_APPROVALS_REQUIRED": "2"}))
			must(t, lw.sb.seed(lw.sb.domain, 1))
			address := "user0001@" + lw.sb.domain
			lifeApprovedReset(t, lw, address)
			lifeReadsRefused(t, lw)
			lw.ask(e2eAdmin1, "/mailbox", "block "+address+" audit me")
			lw.ask(e2eAdmin1, "/mailbox", "unblock "+address+" audit me too")
			if m := lw.mailbox(address); m.State != "active" {
				t.Errorf("after block and unblock, %s is %q", address, m.State)
			}
			lifeAuditTrail(t, lw, dsn, address)
			scanDatabase(t, dsn, lw.world)
		})
	}
}

// lifeApprovedReset: a non-admin asks for a reset; the request says the
// password goes to the requester; one admin's two approvals count once;
// the second admin's (clicked at once with the first's again) runs the
// reset once; only the requester sees the stored password.
func lifeApprovedReset(t *testing.T, lw *lifeWorld, address string) {
	writes := lw.sb.wire.writeCount()
	lw.command(lw.fake.Via(0), e2eUser, "/mailbox", "reset "+address+" locked out")
	req := lw.waitRequest(1)
	if !strings.Contains(req.msg.shown(), "requester") {
		t.Errorf("the reset request does not say that the password goes to the requester:\n%s", req.msg.shown())
	}
	lw.result(lw.click(lw.fake.Via(0), e2eAdmin1, req, e2eApprove))
	lw.waitUpdate(req.ts, "1 of 2 approvals")
	lw.result(lw.click(lw.fake.Via(0), e2eAdmin1, req, e2eApprove))
	if n := lw.sb.wire.writeCount() - writes; n != 0 {
		t.Fatalf("one admin approving twice ran the reset (%d writes)", n)
	}
	ids, errs := make([]string, 2), make([]error, 2)
	concurrently(
		func() {
			ids[0], errs[0] = lw.fake.Click(e2eAdmin2, e2eOps, req.ts, e2eApprovalBlock, e2eApprove, req.value)
		},
		func() {
			ids[1], errs[1] = lw.fake.Click(e2eAdmin1, e2eOps, req.ts, e2eApprovalBlock, e2eApprove, req.value)
		})
	for i, id := range ids {
		must(t, errs[i])
		lw.result(id) // every click is answered
	}
	if upd := lw.waitUpdate(req.ts, "Approved by"); upd.HasButtons() {
		t.Errorf("the approved request still offers buttons")
	}
	var pw string
	if err := lw.fake.Wait(e2eWait, "the requester's password", func() bool {
		pw = lw.mailbox(address).Password
		return lw.deliveredTo(e2eUser, pw) > 0
	}); err != nil {
		t.Fatal(err)
	}
	if n := lw.sb.wire.writeCount() - writes; n != 1 {
		t.Errorf("an approved reset made %d writes, want 1", n)
	}
	lw.seenOnlyBy("the approved reset's password", pw, e2eUser)
}

// lifeReadsRefused: with approvals on, a non-admin's list and status are
// refused, not turned into requests, and reach no provider.
func lifeReadsRefused(t *testing.T, lw *lifeWorld) {
	before, reqs := lw.sb.requests(), len(lw.requests())
	for _, c := range [][2]string{{"/mailbox", "list " + lw.sb.domain}, {"/maildomain", "status " + lw.sb.domain}} {
		lw.refused(c[0], c[1])
	}
	if n, r := lw.sb.requests()-before, len(lw.requests())-reqs; n != 0 || r != 0 {
		t.Errorf("a non-admin's reads made %d provider requests and %d approval requests, want none", n, r)
	}
}

// lifeAuditTrail: `mailbot audit --json` shows the approvals and each
// run with the provider, in order, and the table names the provider.
func lifeAuditTrail(t *testing.T, lw *lifeWorld, dsn, address string) {
	out := auditCLI(t, lw.world, dsn, "--json")
	var got []string
	for line := range strings.SplitSeq(strings.TrimSuffix(out, "\n"), "\n") {
		var e lifeAuditLine
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("mailbot audit --json: line %q: %v", line, err)
		}
		if e.Mailbox != address {
			continue
		}
		s := fmt.Sprintf("%s %s by %s, %d deciders", e.Event, e.Action, e.Actor, len(e.Deciders))
		if e.Event == "run" {
			s += ": " + e.Outcome
		}
		s += fmt.Sprintf(" at %s from %s", e.Provider, e.Source)
		got = append(got, s)
	}
	p := lw.sb.provider
	want := []string{
		"approval reset by " + e2eUser + ", 1 deciders at " + p + " from slack", // the first admin's, counted once
		"approved reset by " + e2eUser + ", 2 deciders at " + p + " from slack",
		"run reset by " + e2eUser + ", 2 deciders: ok at " + p + " from slack",
		"run block by " + e2eAdmin1 + ", 0 deciders: ok at " + p + " from slack",
		"run unblock by " + e2eAdmin1 + ", 0 deciders: ok at " + p + " from slack",
	}
	if !slices.Equal(got, want) {
		t.Errorf("mailbot audit --json about %s:\n%s\nwant:\n%s", address, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if table := auditCLI(t, lw.world, dsn); strings.Count(table, "provider="+p) < 3 {
		t.Errorf("mailbot audit's table names provider=%s fewer than 3 times:\n%s", p, table)
	}
}
