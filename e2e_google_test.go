package main

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient/google/googlesim"
	"github.com/mailbot/mailbot/commands/dnscheck/dnstest"
)

// newGoogleSandbox makes the Google Workspace sandbox with an account and
// returns its admin's variable; the key file, which names the served
// sandbox's token endpoint, is set by newProviderWorld. The private key
// joins the secrets that must never show.
func (pw *providerWorld) newGoogleSandbox() map[string]string {
	sim := googlesim.New()
	pw.google, pw.gAcct = sim, sim.NewAccount()
	keepKey(pw.world, pw.gAcct.PrivateKeyPEM(), "GOOGLE_CREDENTIALS")
	pw.sim = e2eSandbox{faulter: sim, ownDomain: func(n string) error { sim.AddDomain(n); return nil },
		stored: func(a string) (string, bool) {
			m, ok := sim.Mailbox(a)
			return m.Password, ok
		}}
	return map[string]string{"GOOGLE_ADMIN": pw.gAcct.Admin}
}

// keepKey keeps a PEM private key's base64 lines as secrets of w.
func keepKey(w *world, pemKey, target string) {
	for line := range strings.SplitSeq(pemKey, "\n") {
		if len(line) >= 16 && !strings.HasPrefix(line, "-----") {
			w.rec.keep(pddSecret{value: line, kind: "private key", target: target})
		}
	}
}

// keepTokens keeps the access token of a token endpoint's answer and the
// verification token of Site Verification's.
func (pw *providerWorld) keepTokens(path string, body []byte) {
	var t struct {
		Access string `json:"access_token"`
		Token  string `json:"token"`
	}
	if json.Unmarshal(body, &t) != nil {
		return
	}
	if t.Access != "" {
		pw.rec.keep(pddSecret{value: t.Access, kind: "access token", target: path})
	}
	if t.Token != "" {
		pw.rec.keep(pddSecret{value: t.Token, kind: "verification code", target: path})
	}
}

// testE2EGoogleVerify is Google's ownership proof from the binary over the
// fake Slack: register gives the requester alone the TXT record to
// publish; status, while DNS lacks it, only shows it; once DNS (a DNS
// server of the test's own) carries it, status asks Site Verification to
// verify, says the domain is verified, and the audit trail records the
// verification; a mailbox can then be added in the domain, and blocking it
// says that it receives no new mail.
func testE2EGoogleVerify(t *testing.T, bin string) {
	pw := newProviderWorld(t, bin, e2eGoogle)
	dns := dnstest.NewServer(t, "www.example.com. A 192.0.2.1\n")
	pw.serve("mailbot", pw.env(map[string]string{"MAILBOT_DNS_RESOLVER": dns.Addr()}))
	const domain = "proven-domain.com"
	id, _ := pw.command(pw.fake.Via(0), e2eAdmin1, "/maildomain", "register "+domain)
	res := pw.result(id)
	token := pw.google.VerificationToken(domain, pw.gAcct.Admin)
	if token == "" || !strings.Contains(res.shown(), domain+`. TXT "`+token+`"`) {
		t.Fatalf("register did not give the requester the TXT record %q to publish:\n%s", token, res.shown())
	}
	if notice := pw.waitOpsNotice(domain); strings.Contains(notice, token) {
		t.Errorf("the ops notice shows the verification token: %s", notice)
	}
	id, _ = pw.command(pw.fake.Via(0), e2eAdmin1, "/maildomain", "status "+domain)
	if res := pw.result(id); !strings.Contains(res.shown(), "not yet") || !strings.Contains(res.shown(), token) {
		t.Errorf("status before the record is in DNS:\n%s", res.shown())
	}
	if _, verified := pw.google.DomainVerified(domain); verified {
		t.Fatal("the domain is verified before its record was published")
	}
	dns.Add(t, domain+`. TXT "`+token+`"`+"\n")
	pw.google.PublishTXT(domain)
	id, _ = pw.command(pw.fake.Via(0), e2eAdmin1, "/maildomain", "status "+domain)
	res = pw.result(id)
	if _, verified := pw.google.DomainVerified(domain); !verified || !strings.Contains(res.shown(), "verified now") {
		t.Fatalf("status once the record is in DNS: the sandbox says verified %v; answered:\n%s", verified, res.shown())
	}
	address := "first@" + domain
	id, _ = pw.command(pw.fake.Via(0), e2eAdmin1, "/mailbox", "add "+address)
	pw.checkAdded(pw.result(id), address, e2eAdmin1)
	id, _ = pw.command(pw.fake.Via(0), e2eAdmin1, "/mailbox", "block "+address)
	if res := pw.result(id); !regexp.MustCompile(`receives no new mail`).MatchString(res.shown()) {
		t.Errorf("block on Google does not say that a suspended user receives no new mail:\n%s", res.shown())
	}
}

// testE2EGoogleRefused is each refusal of Google's credentials at start,
// one line naming the variable to fix: a key the sandbox does not know
// (from a file: GOOGLE_CREDENTIALS_FILE), an admin it does not know
// (GOOGLE_ADMIN), a customer it does not know (GOOGLE_CUSTOMER), and a
// MAILBOT_PASSWORD_LENGTH shorter than Google's 8.
func testE2EGoogleRefused(t *testing.T, bin string) {
	pw := newProviderWorld(t, bin, e2eGoogle)
	other := googlesim.New().NewAccount()
	keepKey(pw.world, other.PrivateKeyPEM(), "another key")
	path := t.TempDir() + "/key.json"
	if err := os.WriteFile(path, other.KeyFile(pw.vars["GOOGLE_BASE_URL"]), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		env   map[string]string
		names []string
	}{
		{"unknown key", map[string]string{"GOOGLE_CREDENTIALS": "", "GOOGLE_CREDENTIALS_FILE": path}, []string{"GOOGLE_CREDENTIALS_FILE", path, "refused the key"}},
		{"unknown admin", map[string]string{"GOOGLE_ADMIN": "nobody@" + googlesim.DefaultPrimaryDomain}, []string{"GOOGLE_ADMIN"}},
		{"short passwords", map[string]string{"MAILBOT_PASSWORD_LENGTH": "7"}, []string{"MAILBOT_PASSWORD_LENGTH", "Google Workspace", "8"}},
		{"unknown customer", map[string]string{"GOOGLE_CUSTOMER": "C0nobody"}, []string{"GOOGLE_CUSTOMER"}},
	} {
		p := pw.start(strings.ReplaceAll(tc.name, " ", "-"), pw.env(tc.env), "serve")
		if code := p.wait(e2eWait); code != 1 {
			t.Errorf("%s: exit status %d, want 1", tc.name, code)
		}
		lines := p.reasonLines()
		for _, want := range tc.names {
			if len(lines) != 1 || !strings.Contains(lines[0], want) {
				t.Errorf("%s: reason %q, want one line naming %s", tc.name, lines, want)
			}
		}
	}
	if pw.fake.Socket.Connects() != 0 {
		t.Error("serve connected to Slack with refused Google credentials")
	}
}

// testE2EGoogleLostAdd is an add whose answer is lost while Google's
// directory lags behind (the look-up after it answers 404): mailbot sends
// the insert again, and Google's 409 then means the lost insert created
// the mailbox, so the requester gets the password that insert set, with
// the warning that it may not be, and nothing is lost.
func testE2EGoogleLostAdd(t *testing.T, bin string) {
	pw := newProviderWorld(t, bin, e2eGoogle)
	pw.serve("mailbot", pw.env(nil))
	if err := pw.google.SetLag(5, http.StatusNotFound); err != nil {
		t.Fatal(err)
	}
	pw.arm(e2eAddOp, googlesim.FaultReset)
	address := "lost@" + e2eOwnDomain
	id, _ := pw.command(pw.fake.Via(0), e2eAdmin1, "/mailbox", "add "+address)
	res := pw.result(id)
	pw.checkAdded(res, address, e2eAdmin1)
	if !strings.Contains(res.shown(), "got no answer") || !strings.Contains(res.shown(), "reset the password") {
		t.Errorf("the add found by Google's 409 does not warn that the password may not be set:\n%s", res.shown())
	}
}
