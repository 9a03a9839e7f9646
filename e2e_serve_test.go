package main

import (
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands/dnscheck/dnstest"
)

// testE2EBacklog is the shutdown of docs/delivery.md without a database: 20 acknowledged adds
// behind MAILBOT_CONCURRENCY=2 and a slow PDD API, then SIGTERM with a
// short MAILBOT_SHUTDOWN_TIMEOUT. Every command gets one final answer (its
// result, "not run … repeat it" or "may or may not have happened"), a new
// command hears that mailbot is restarting, the ops channel hears of every
// add that reached the API, and mailbot exits 0.
func testE2EBacklog(t *testing.T, bin string) {
	w := newWorld(t, bin)
	w.ownDomain("example.com")
	p := w.serve("mailbot", w.env(map[string]string{"MAILBOT_CONCURRENCY": "2", "MAILBOT_SHUTDOWN_TIMEOUT": "1s"}))
	w.sim.SetLatency(4 * time.Second)
	const n = 20
	ids := make([]string, n)
	for i := range n {
		var ack e2eMsg
		ids[i], ack = w.command(w.fake.Via(0), e2eAdmin1, "/mailbox", fmt.Sprintf("add user%02d@example.com", i))
		if !strings.Contains(ack.shown(), "Working on it") {
			t.Fatalf("command %d: ack %s, want the interim answer", i, ack.Raw)
		}
	}
	p.term()
	// The backlog (20 adds of 4 s, 2 at a time, 1 s to finish) keeps
	// mailbot draining for a second after SIGTERM: it is still running.
	if err := w.fake.Wait(e2eWait, "/readyz 503 while draining", func() bool {
		return httpStatus(p.http+"/readyz") == http.StatusServiceUnavailable || !p.running()
	}); err != nil {
		t.Fatal(err)
	}
	if !p.running() {
		t.Fatal("mailbot exited before a command after SIGTERM could be sent: the backlog did not keep it draining")
	}
	_, ack := w.command(w.fake.Via(0), e2eAdmin1, "/mailbox", "add late@example.com")
	if !strings.Contains(ack.shown(), "mailbot is restarting") {
		t.Errorf("a command after SIGTERM got %s, want \"mailbot is restarting\"", ack.Raw)
	}
	if code := p.wait(e2eWait); code != 0 {
		t.Errorf("exit status %d after SIGTERM, want 0", code)
	}

	reached := w.rec.addsReached()
	if got := w.sim.Requests(pddsim.OpAddMailbox); got != len(reached) {
		t.Errorf("the sandbox counted %d adds, the recorder %d", got, len(reached))
	}
	var ops []string
	for _, c := range w.fake.Calls("chat.postMessage") {
		if c.Form.Get("channel") == e2eOps {
			ops = append(ops, callMsg(c).shown())
		}
	}
	count := map[string]int{}
	for i, id := range ids {
		mailbox := fmt.Sprintf("user%02d@example.com", i)
		class := backlogAnswer(w.fake.Posts(id))
		count[class]++
		wasSent := slices.Contains(reached, mailbox)
		switch {
		case class == "none" || class == "several":
			t.Errorf("%s: %s final answers, want one", mailbox, class)
		case class == "not run" && wasSent:
			t.Errorf("%s: answered \"not run\", but its add reached the PDD API", mailbox)
		case class != "not run" && !wasSent:
			t.Errorf("%s: answered %q, but its add never reached the PDD API", mailbox, class)
		}
		if wasSent && !slices.ContainsFunc(ops, func(s string) bool { return strings.Contains(s, mailbox) }) {
			t.Errorf("%s reached the PDD API, but the ops channel never heard of it", mailbox)
		}
	}
	t.Logf("answers: %v; adds that reached the API: %d", count, len(reached))
	if len(reached) == 0 || count["not run"] == 0 {
		t.Errorf("the scenario did not cut work in flight and leave work queued: %v", count)
	}
}

// backlogAnswer classifies the final answers of one command.
func backlogAnswer(posts []slackfake.Post) string {
	if len(posts) == 0 {
		return "none"
	}
	if len(posts) > 1 {
		return "several"
	}
	s := decodeMsg(posts[0].Raw).shown()
	switch {
	case strings.Contains(s, "you can repeat it"):
		return "not run"
	case strings.Contains(s, "may or may not have happened"):
		return "may or may not"
	case strings.Contains(s, "created") && strings.Contains(s, "Password"):
		return "result"
	}
	return "other: " + s
}

// testE2EExpiryWithoutDatabase is the expiry sweep on one replica
// without a database: a request denied in time gets no reminder; one that
// nobody decides gets one reminder, then expires without a click: one
// update without buttons and one message to the requester. A third
// request's reminder, which comes after, fences the counts.
func testE2EExpiryWithoutDatabase(t *testing.T, bin string) {
	w := newWorld(t, bin)
	w.serve("mailbot", w.env(map[string]string{"MAILBOT_APPROVALS": "requests", "MAILBOT_APPROVAL_TTL": "4s", "MAILBOT_APPROVAL_REMIND": "1s"}))
	w.command(w.fake.Via(0), "UDENIED", "/mailbox", "add denied@example.com why not")
	denied := w.waitRequest(1)
	w.result(w.click(w.fake.Via(0), e2eAdmin1, denied, e2eDeny))
	w.waitUpdate(denied.ts, "Denied by")
	id, _ := w.command(w.fake.Via(0), "ULATE", "/mailbox", "add late@example.com nobody looks")
	late := w.waitRequest(2)
	w.waitUpdate(late.ts, "Expired")
	if err := w.fake.Wait(e2eWait, "the expiry told to the requester", func() bool { return w.deliveredTo("ULATE", e2eExpiredText, id) > 0 }); err != nil {
		t.Error(err)
	}
	w.command(w.fake.Via(0), "ULATER", "/mailbox", "add later@example.com the fence")
	fence := w.waitRequest(3)
	if err := w.fake.Wait(e2eWait, "the fence's reminder", func() bool { return len(w.fake.Replies(e2eOps, fence.ts)) > 0 }); err != nil {
		t.Fatal(err)
	}
	if n := len(w.fake.Replies(e2eOps, denied.ts)); n != 0 {
		t.Errorf("a request denied in time got %d reminders, want none", n)
	}
	if n := len(w.fake.Replies(e2eOps, late.ts)); n != 1 {
		t.Errorf("a forgotten request got %d reminders, want 1", n)
	}
	if ups := w.updates(late.ts); len(ups) != 1 || ups[0].HasButtons() {
		t.Errorf("the expired request message was updated %d times (want once, without buttons)", len(ups))
	}
	if n := w.deliveredTo("ULATE", e2eExpiredText, id); n != 1 {
		t.Errorf("the requester was told %d times that the request expired, want once", n)
	}
	if n := w.sim.Requests(""); n != 0 {
		t.Errorf("%d PDD requests, want none", n)
	}
}

// testE2EAdminGroups is the admin user groups: a member of the S… group
// of MAILBOT_ADMINS runs an add; after subteam_members_changed removes
// them (and mailbot re-read the group) they no longer can; a group that
// cannot be read stops start-up with one line naming MAILBOT_ADMINS.
func testE2EAdminGroups(t *testing.T, bin string) {
	w := newWorld(t, bin)
	w.ownDomain("example.com")
	const member, other = "UGROUPIE", "UOTHER"
	w.fake.SetGroup(slackfake.Group{ID: "SMAILADM", Handle: "mail-admins", Name: "Mail admins", Members: []string{member}})
	p := w.serve("mailbot", w.env(map[string]string{"MAILBOT_ADMINS": "SMAILADM"}))

	if _, ack := w.command(w.fake.Via(0), other, "/mailbox", "add o1@example.com"); !strings.Contains(ack.shown(), "Only mailbot admins") {
		t.Errorf("a user outside the group got %s, want a refusal", ack.Raw)
	}
	id, _ := w.command(w.fake.Via(0), member, "/mailbox", "add g1@example.com")
	res := w.result(id)
	pw, ok := w.sim.Mailbox("g1@example.com")
	if !ok || !strings.Contains(res.shown(), pw) {
		t.Fatalf("a group member's add: exists %v; reply:\n%s", ok, res.shown())
	}
	before := metric(p, "mailbot_usergroup_refresh_total", `outcome="ok"`)
	ev, err := w.fake.SubteamMembersChanged("SMAILADM", nil, []string{member})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.fake.Socket.WaitAck(ev, e2eWait); err != nil {
		t.Fatal(err)
	}
	if err := w.fake.Wait(e2eWait, "the group re-read", func() bool {
		return metric(p, "mailbot_usergroup_refresh_total", `outcome="ok"`) > before
	}); err != nil {
		t.Fatal(err)
	}
	if _, ack := w.command(w.fake.Via(0), member, "/mailbox", "add g2@example.com"); !strings.Contains(ack.shown(), "Only mailbot admins") {
		t.Errorf("a user removed from the group got %s, want a refusal", ack.Raw)
	}
	if n := w.sim.Requests(pddsim.OpAddMailbox); n != 1 {
		t.Errorf("%d adds reached the PDD API, want 1 (the member's)", n)
	}

	w.fake.SetGroupError("SNOPLAN", "plan_upgrade_required")
	q := w.start("unreadable", w.env(map[string]string{"MAILBOT_ADMINS": "SNOPLAN," + e2eAdmin1}), "serve")
	if code := q.wait(e2eWait); code != 1 {
		t.Errorf("an unreadable admin group: exit status %d, want 1", code)
	}
	if lines := q.reasonLines(); len(lines) != 1 || !strings.Contains(lines[0], "MAILBOT_ADMINS") || !strings.Contains(lines[0], "plan_upgrade_required") {
		t.Errorf("an unreadable admin group: reason %q, want one line naming MAILBOT_ADMINS and plan_upgrade_required", lines)
	}
}

// testE2EDNSCheck is the DNS checklist: /maildomain check against a fake DNS server
// answers the checklist to a non-admin without a PDD call (records in
// place, wrong, a domain that does not exist, a server that does not
// answer: reported as such, never as missing records); the register
// reply's "Check DNS" button answers the verification line and never the
// secret's content.
func testE2EDNSCheck(t *testing.T, bin string) {
	w := newWorld(t, bin)
	dns := dnstest.NewServer(t, `
example.com.          MX  10 mx.yandex.net.
example.com.          TXT "v=spf1 redirect=_spf.yandex.net"
elsewhere-domain.com. MX  10 mx.yandex.net.
elsewhere-domain.com. MX  20 mx.other.net.
elsewhere-domain.com. TXT "v=spf1 include:_spf.yandex.net ~all"
elsewhere-domain.com. TXT "v=spf1 mx -all"
`)
	w.serve("mailbot", w.env(map[string]string{"MAILBOT_DNS_RESOLVER": dns.Addr()}))

	dns.Drop("silent-domain.com")
	for _, tc := range []struct {
		domain string
		want   []string
		not    string
	}{
		{"example.com", []string{"DNS records of example.com", "✅ MX: in place (mx.yandex.net)", `✅ SPF: in place ("v=spf1 redirect=_spf.yandex.net")`}, "Verification"},
		{"Elsewhere-Domain.COM.", []string{"❌ MX: wrong", "remove this: mx.other.net", "❌ SPF: wrong: 2 v=spf1 records"}, "✅"},
		{"nowhere-domain.com", []string{"NXDOMAIN"}, "missing"},
		{"silent-domain.com", []string{"did not answer within 5s"}, "missing"},
	} {
		id, _ := w.command(w.fake.Via(0), e2eUser, "/maildomain", "check "+tc.domain)
		res := w.result(id)
		for _, want := range tc.want {
			if !strings.Contains(res.shown(), want) {
				t.Errorf("the checklist of %s lacks %q:\n%s", tc.domain, want, res.shown())
			}
		}
		if res.ResponseType != "ephemeral" || strings.Contains(res.shown(), tc.not) {
			t.Errorf("the checklist of %s: response_type %q, want ephemeral and no %q:\n%s", tc.domain, res.ResponseType, tc.not, res.shown())
		}
	}
	if n := w.sim.Requests(""); n != 0 {
		t.Errorf("/maildomain check made %d PDD requests, want none", n)
	}

	const domain = "fresh-domain.com"
	id, _ := w.command(w.fake.Via(0), e2eAdmin1, "/maildomain", "register "+domain)
	reply := w.result(id)
	value, ok := reply.Button(e2eReplyBlock, e2eCheckDNS)
	name, content := w.rec.secret("secret name", domain), w.rec.secret("secret content", domain)
	if !ok || name == "" || content == "" {
		t.Fatalf("the register reply offers no Check DNS button (%v) or the sandbox gave no secrets:\n%s", ok, reply.shown())
	}
	if strings.Contains(value, content) {
		t.Errorf("the Check DNS button's value holds the secret's content")
	}
	dns.Add(t, fmt.Sprintf("yamail-%s.%s. CNAME mail.yandex.ru.", name, domain))
	cid, err := w.fake.Click(e2eAdmin1, e2eGeneral, "", e2eReplyBlock, e2eCheckDNS, value)
	if err != nil {
		t.Fatal(err)
	}
	answer := w.result(cid)
	want := fmt.Sprintf("Verification: in place (yamail-%s.%s points to mail.yandex.ru)", name, domain)
	if !strings.Contains(answer.shown(), want) || answer.ResponseType != "ephemeral" {
		t.Errorf("Check DNS answered (%s):\n%s\nwant, ephemerally, %q", answer.ResponseType, answer.shown(), want)
	}
	if strings.Contains(answer.shown(), content) {
		t.Errorf("Check DNS shows the verification secret's content")
	}
	w.seenOnlyBy("the secret's content", content, e2eAdmin1) // in the register reply alone
	if n := w.sim.Requests(""); n != 2 {
		t.Errorf("%d PDD requests, want 2 (the register and the status read before it; checks call none)", n)
	}
}

// testE2EDatabaseUnreachable (docs/state.md): a database that cannot be
// reached at start (a closed loopback port) makes serve retry, with every
// documented series on /metrics meanwhile, then exit 1 with one line
// naming MAILBOT_DATABASE_URL and without its password.
func testE2EDatabaseUnreachable(t *testing.T, bin string) {
	w := newWorld(t, bin)
	const pass = "SECRETDBPASS-e2e-unreachable"
	w.extra = append(w.extra, pass)
	dsn := "postgres://mailbot:" + pass + "@" + closedAddr(t) + "/mailbot?sslmode=disable"
	start := time.Now()
	p := w.start("mailbot", w.env(map[string]string{"MAILBOT_DATABASE_URL": dsn, "MAILBOT_HTTP_ADDR": freeAddr(t)}), "serve")
	retrying := func() bool {
		return !p.running() || strings.Contains(p.stderr.String(), "database unreachable, retrying")
	}
	if err := w.fake.Wait(e2eWait, "the database retried", retrying); err != nil || !p.running() {
		t.Fatalf("serve did not retry the database (%v, running %v)", err, p.running())
	}
	checkStartingMetrics(t, p, true)
	code := p.wait(45 * time.Second)
	t.Logf("mailbot gave up on the database after %s: %q", time.Since(start).Round(100*time.Millisecond), p.reasonLines())
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	if lines := p.reasonLines(); len(lines) != 1 || !strings.Contains(lines[0], "MAILBOT_DATABASE_URL") {
		t.Errorf("reason %q, want one line naming MAILBOT_DATABASE_URL", lines)
	}
	if w.fake.Socket.Connects() != 0 {
		t.Errorf("mailbot connected to Slack without its database")
	}
}

// closedAddr is a loopback address where nothing listens.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// testE2EAuditWithoutDatabase: `mailbot audit` without
// MAILBOT_DATABASE_URL exits non-zero with a one-line reason.
func testE2EAuditWithoutDatabase(t *testing.T, bin string) {
	p := startProc(t, bin, "audit", map[string]string{"MAILBOT_LOG_LEVEL": "debug"}, "audit")
	if code := p.wait(e2eWait); code == 0 {
		t.Errorf("audit without a database: exit status 0, want non-zero")
	}
	stderr := strings.TrimSuffix(p.stderr.String(), "\n")
	if strings.Count(stderr, "\n") != 0 || !strings.Contains(stderr, "MAILBOT_DATABASE_URL") {
		t.Errorf("audit without a database: stderr %q, want one line naming MAILBOT_DATABASE_URL", stderr)
	}
	if p.stdout.String() != "" {
		t.Errorf("audit without a database printed %q", p.stdout.String())
	}
}
