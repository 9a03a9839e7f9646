package main

import (
	"cmp"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
	"github.com/mailbot/mailbot/internal/testkit"
)

// The providers through the binary: the same commands against each provider's
// sandbox over HTTPS (e2e_provider_world_test.go), with the faults the
// providers' contract names.

// testE2EProviderFlow is, for each provider, /maildomain register and
// /mailbox add from the binary over the fake Slack: the requester alone
// sees the password the sandbox stored, the ops notices carry no secret,
// and /metrics counts the calls under the provider's label.
func testE2EProviderFlow(t *testing.T, bin string) {
	forEachProvider(t, bin, e2eProviders, func(t *testing.T, pw *providerWorld) {
		p := pw.serve("mailbot", pw.env(nil))
		registerAndAdd(t, pw, "fresh-domain.com", "alice@"+e2eOwnDomain)
		checkProviderCalls(t, p, pw.provider)
	})
}

// forEachProvider runs fn in a parallel subtest for each of providers,
// in a world of its own.
func forEachProvider(t *testing.T, bin string, providers []string, fn func(t *testing.T, pw *providerWorld)) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			fn(t, newProviderWorld(t, bin, provider))
		})
	}
}

// registerAndAdd runs /maildomain register domain and /mailbox add
// address as an admin, and checks both results and their ops notices.
func registerAndAdd(t *testing.T, pw *providerWorld, domain, address string) {
	t.Helper()
	id, _ := pw.command(pw.fake.Via(0), e2eAdmin1, "/maildomain", "register "+domain)
	if res := pw.result(id); !strings.Contains(res.shown(), domain+" registered") {
		t.Errorf("%s: register answered:\n%s", pw.provider, res.shown())
	}
	pw.waitOpsNotice(domain)
	id, _ = pw.command(pw.fake.Via(0), e2eAdmin1, "/mailbox", "add "+address)
	pw.checkAdded(pw.result(id), address, e2eAdmin1)
}

// checkProviderCalls checks that p's /metrics counted one register and
// one add under provider's label, the start-up check where the provider
// has one (not PDD), and no call that failed.
func checkProviderCalls(t *testing.T, p *proc, provider string) {
	t.Helper()
	want := map[string]float64{"register": 1, "add": 1, "check": 1}
	if provider == "pdd" {
		want["check"] = 0
	}
	for op, n := range want {
		if got := metric(p, "mailbot_provider_requests_total", `provider="`+provider+`"`, `op="`+op+`"`, `outcome="ok"`); got != n {
			t.Errorf("mailbot_provider_requests_total{provider=%q,op=%q,outcome=\"ok\"} = %v, want %v", provider, op, got, n)
		}
	}
	all, ok := metric(p, "mailbot_provider_requests_total", `provider="`+provider+`"`), metric(p, "mailbot_provider_requests_total", `provider="`+provider+`"`, `outcome="ok"`)
	if provider == "pdd" {
		// PDD answers a repeated register as a first one: the register
		// reads the domain's status first, which finds no such domain.
		if got := metric(p, "mailbot_provider_requests_total", `provider="pdd"`, `op="status"`, `outcome="refused"`); got != 1 {
			t.Errorf(`mailbot_provider_requests_total{provider="pdd",op="status",outcome="refused"} = %v, want 1 (the read before the register)`, got)
		}
		ok++
	}
	if all != ok {
		t.Errorf("mailbot_provider_requests_total{provider=%q}: %v calls, only %v of them ok", provider, all, ok)
	}
}

// testE2EProviderFaults is, for each provider, the faults of the
// contract on one running bot, each armed on the very request it hits:
//   - 429 (Retry-After: 1) to an add: retried after the gap, and done;
//   - 502 to a register (faultRegister502);
//   - 502 to an add: uncertain, so the mailbox is looked up before the
//     add is sent again (not found: created as usual);
//   - 502 to the change of a reset: temporary, retried, and done;
//   - a reset after the add was performed: looked up and found, the add
//     sent once, and the requester gets the password the sandbox stored.
func testE2EProviderFaults(t *testing.T, bin string) {
	forEachProvider(t, bin, e2eProviders, func(t *testing.T, pw *providerWorld) {
		p := pw.serve("mailbot", pw.env(nil))
		faultRetryAfter(t, pw, p)
		faultRegister502(t, pw)
		faultAdd502(t, pw, p)
		faultReset502(t, pw)
		faultAddReset(t, pw, p)
	})
}

// addAfterFault arms kind on the next add request, runs /mailbox add
// address, checks its result and returns the API requests it made.
func addAfterFault(t *testing.T, pw *providerWorld, kind, address string) []wireCall {
	t.Helper()
	pw.arm(e2eAddOp, kind)
	mark := pw.mark()
	id, _ := pw.command(pw.fake.Via(0), e2eAdmin1, "/mailbox", "add "+address)
	pw.checkAdded(pw.result(id), address, e2eAdmin1)
	return pw.since(mark)
}

func faultRetryAfter(t *testing.T, pw *providerWorld, p *proc) {
	adds := ofOp(addAfterFault(t, pw, "429", "limited@"+e2eOwnDomain), e2eAddOp)
	if len(adds) != 2 {
		t.Fatalf("%s: a 429 to an add: %d adds sent, want 2 (the 429, then the retry)", pw.provider, len(adds))
	}
	gap := adds[1].at.Sub(adds[0].at)
	if gap < time.Second {
		t.Errorf("%s: the add was retried %s after a 429 with Retry-After: 1", pw.provider, gap)
	}
	t.Logf("%s: the add retried %s after a 429 with Retry-After: 1", pw.provider, gap.Round(time.Millisecond))
	if n := metric(p, "mailbot_provider_retries_total", `provider="`+pw.provider+`"`, `op="add"`, `reason="temporary"`); n != 1 {
		t.Errorf("%s: mailbot_provider_retries_total{op=\"add\",reason=\"temporary\"} = %v after one 429, want 1", pw.provider, n)
	}
}

// faultRegister502: PDD's register answered 5xx certainly did nothing,
// so it is retried; Yandex 360's and mailcow's register creates the
// domain, and a 5xx to a create may have created it: uncertain, not
// re-sent, and the reply says to check.
func faultRegister502(t *testing.T, pw *providerWorld) {
	const domain = "bad-gateway-domain.com"
	pw.arm(e2eRegOp, "502")
	mark := pw.mark()
	id, _ := pw.command(pw.fake.Via(0), e2eAdmin1, "/maildomain", "register "+domain)
	res := pw.result(id)
	sent := len(ofOp(pw.since(mark), e2eRegOp))
	if pw.provider == e2ePDD {
		if strings.Contains(res.shown(), "Could not") || sent != 2 {
			t.Errorf("%s: a 502 to a register: %d sent (want 2: the 502, then the retry); answered:\n%s", pw.provider, sent, res.shown())
		}
		return
	}
	if !strings.Contains(res.shown(), "Check before you try again") || sent != 1 {
		t.Errorf("%s: a 502 to a register: %d sent (want 1: a create is not re-sent blindly); answered, without the advice to check:\n%s",
			pw.provider, sent, res.shown())
	}
}

// faultReset502: a 502 to the change of a reset (it sets a state) is
// temporary: retried, and the requester gets the password stored.
func faultReset502(t *testing.T, pw *providerWorld) {
	const address = "gateway@" + e2eOwnDomain // faultAdd502's
	pw.arm(e2eOtherOp, "502")
	mark := pw.mark()
	id, _ := pw.command(pw.fake.Via(0), e2eAdmin1, "/mailbox", "reset "+address)
	res := pw.result(id)
	stored, ok := pw.sim.stored(address)
	if got := shownPassword(res); !ok || got != stored {
		t.Errorf("%s: a reset after a 502 shows password %q, the sandbox stored %q:\n%s", pw.provider, got, stored, res.shown())
	}
	if n := len(ofOp(pw.since(mark), e2eOtherOp)); n != 2 {
		t.Errorf("%s: a 502 to a reset: %d changes sent, want 2 (the 502, then the retry)", pw.provider, n)
	}
}

func faultAdd502(t *testing.T, pw *providerWorld, p *proc) {
	const address = "gateway@" + e2eOwnDomain
	calls := addAfterFault(t, pw, "502", address)
	ops := strings.Join(opsOf(calls), " ")
	if !regexp.MustCompile(`^(read )*add (read )+add( other)?$`).MatchString(ops) { // Microsoft 365's licence follows the add
		t.Errorf("%s: a 502 to an add made the requests %q, want the add, the look-up's reads, the add again", pw.provider, ops)
	}
	if lostAddFound(p, address) {
		t.Errorf("%s: after a 502 that did nothing, mailbot says it found %s", pw.provider, address)
	}
}

func faultAddReset(t *testing.T, pw *providerWorld, p *proc) {
	const address = "dropped@" + e2eOwnDomain
	calls := addAfterFault(t, pw, "reset", address)
	ops := strings.Join(opsOf(calls), " ")
	if !regexp.MustCompile(`^(read )*add( read)+$`).MatchString(ops) {
		t.Errorf("%s: an add whose answer was lost made the requests %q, want the add once, then the look-up's reads", pw.provider, ops)
	}
	// The log line reaches p's stderr through a pipe that the reply over
	// Slack may overtake: wait for it.
	if !testkit.Until(e2eWait, nil, func() bool { return lostAddFound(p, address) }) {
		t.Errorf("%s: an add whose answer was lost: mailbot never logged that it found %s", pw.provider, address)
	}
}

// lostAddFound reports whether p logged that the mailbox of a lost add
// exists.
func lostAddFound(p *proc, address string) bool {
	for line := range strings.SplitSeq(p.stderr.String(), "\n") {
		if strings.Contains(line, "a lost add's mailbox exists") && strings.Contains(line, address) {
			return true
		}
	}
	return false
}

// testE2EProviderCredentials is refused credentials on each provider:
// PDD's token can only be refused by an operation (an error reply naming
// PDD_TOKEN, and the bot keeps running); Yandex 360's token and mailcow's
// key are checked at start, which stops with one line naming the
// variable the operator set (mailcow's key comes from a file here:
// MAILCOW_API_KEY_FILE), after one request (mailcow's server bans an address that
// keeps sending a wrong key). And Y360_ORG_ID empty: the one organisation
// the token sees is used; several stop start-up, listing their IDs.
func testE2EProviderCredentials(t *testing.T, bin string) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, bin string)
	}{
		{"pdd", badPDDToken},
		{"yandex360", func(t *testing.T, bin string) {
			refusedAtStart(t, bin, e2eY360, "Y360_TOKEN", "y0_NotIssuedByTheSandbox0123456789abcdef", false)
		}},
		{"mailcow", func(t *testing.T, bin string) {
			refusedAtStart(t, bin, e2eMailcow, "MAILCOW_API_KEY", "0BAD00-0BAD00-0BAD00-0BAD00-0BAD00", true)
		}},
		{"yandex360-org", y360OrgChoice},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, bin)
		})
	}
}

func badPDDToken(t *testing.T, bin string) {
	pw := newProviderWorld(t, bin, e2ePDD)
	const bad = "NOTATOKENTHESANDBOXISSUED0123456789ABCDEFGHIJKLMNOPQ"
	pw.extra = append(pw.extra, bad)
	p := pw.serve("mailbot", pw.env(map[string]string{"PDD_TOKEN": bad}))
	const address = "refused@" + e2eOwnDomain
	for i, cmd := range [][2]string{{"/mailbox", "add " + address}, {"/maildomain", "register refused-domain.com"}} {
		mark := pw.mark()
		id, _ := pw.command(pw.fake.Via(0), e2eAdmin1, cmd[0], cmd[1])
		res := pw.result(id)
		if !strings.Contains(res.shown(), "PDD_TOKEN") || !strings.Contains(res.shown(), "bad_token") {
			t.Errorf("command %d with a refused PDD token answered, without naming PDD_TOKEN:\n%s", i+1, res.shown())
		}
		if n := len(pw.since(mark)); n != 1 {
			t.Errorf("command %d with a refused PDD token sent %d requests, want 1 (credentials refused are never retried)", i+1, n)
		}
	}
	if _, ok := pw.sim.stored(address); ok {
		t.Errorf("%s exists after its add was refused", address)
	}
	pw.waitOpsNotice(address)
	if !p.running() || httpStatus(p.http+"/readyz") != http.StatusOK {
		t.Errorf("serve stopped, or is not ready, after a refused PDD token")
	}
}

// refusedAtStart starts serve on provider with variable set to a wrong
// credential, or, fromFile, variable_FILE naming a file that holds it:
// exit 1, one line naming the variable set (and the file), one request
// sent.
func refusedAtStart(t *testing.T, bin, provider, variable, wrong string, fromFile bool) {
	pw := newProviderWorld(t, bin, provider)
	pw.extra = append(pw.extra, wrong)
	vars, named := map[string]string{variable: wrong}, []string{variable}
	if fromFile {
		path := filepath.Join(t.TempDir(), "credential")
		if err := os.WriteFile(path, []byte(wrong+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		vars = map[string]string{variable: "", variable + "_FILE": path}
		named = []string{variable + "_FILE", path}
	}
	p := pw.start("mailbot", pw.env(vars), "serve")
	if code := p.wait(e2eWait); code != 1 {
		t.Errorf("%s refused at start: exit status %d, want 1", variable, code)
	}
	lines := p.reasonLines()
	if len(lines) != 1 {
		t.Errorf("%s refused at start: reason %q, want one line", variable, lines)
	}
	for _, name := range named {
		if len(lines) > 0 && !strings.Contains(lines[0], name) {
			t.Errorf("%s refused at start: reason %q does not name %s", variable, lines, name)
		}
	}
	if n := pw.sim.Requests(); n != 1 {
		t.Errorf("%s refused at start: %d requests reached the sandbox, want 1", variable, n)
	}
	if pw.mailcow != nil && pw.mailcow.AuthFailures() != 1 {
		t.Errorf("mailcow counted %d authentication failures, want 1", pw.mailcow.AuthFailures())
	}
	if pw.fake.Socket.Connects() != 0 {
		t.Errorf("serve connected to Slack with a refused %s", variable)
	}
}

func y360OrgChoice(t *testing.T, bin string) {
	pw := newProviderWorld(t, bin, e2eY360)
	env := pw.env(map[string]string{"Y360_ORG_ID": ""})
	p := pw.serve("mailbot", env)
	org := strconv.FormatInt(pw.y360Cred.OrgID, 10)
	if !strings.Contains(p.stderr.String(), `"org_id":`+org) {
		t.Errorf("Y360_ORG_ID empty: serve never logged the organisation %s it chose", org)
	}
	const address = "chosen@" + e2eOwnDomain
	id, _ := pw.command(pw.fake.Via(0), e2eAdmin1, "/mailbox", "add "+address)
	pw.checkAdded(pw.result(id), address, e2eAdmin1)

	second, err := pw.y360.NewOrganization("Second", "second-org.com")
	if err == nil {
		err = pw.y360.Grant(pw.y360Cred.Token, second.OrgID)
	}
	if err != nil {
		t.Fatal(err)
	}
	pw.rec.keep(pddSecret{value: second.Token, kind: "token", target: "the second organisation"})
	q := pw.start("several", env, "serve")
	if code := q.wait(e2eWait); code != 1 {
		t.Errorf("a token that sees two organisations, Y360_ORG_ID empty: exit status %d, want 1", code)
	}
	both := strconv.FormatInt(second.OrgID, 10)
	if lines := q.reasonLines(); len(lines) != 1 || !strings.Contains(lines[0], "Y360_ORG_ID") ||
		!strings.Contains(lines[0], org) || !strings.Contains(lines[0], both) {
		t.Errorf("two organisations: reason %q, want one line naming Y360_ORG_ID and listing %s and %s", lines, org, both)
	}
}

// testE2EProviderShell is the newcomer's one command on an empty
// environment: `MAILBOT_PROVIDER=P mailbot shell` says which embedded
// sandbox it drives, registers a domain and adds a mailbox there (the
// password shown is the one the sandbox, asked over its /sim/ controls,
// stored), and exits 0 at the end of its input.
func testE2EProviderShell(t *testing.T, bin string) {
	// Microsoft 365's users are in verified domains only, as Google's.
	// Yandex 360 gives a new user its own address at the organisation's
	// default domain (the embedded sandbox's is example.org).
	for _, tc := range []struct {
		provider, banner, shown string
		verify                  bool // the domain's owner proves it (over the sandbox's /sim/domain) before the add
	}{
		{e2eMailcow, `No MAILCOW_URL and MAILCOW_API_KEY: using an embedded sandbox of mailcow at (http://\S+) `, "bob@newco-domain.com", false},
		{e2eY360, `No Y360_TOKEN: using an embedded sandbox of Yandex 360 at (http://\S+) `, "bob@example.org", false},
		{e2eGoogle, `No GOOGLE_CREDENTIALS and GOOGLE_ADMIN: using an embedded sandbox of Google Workspace at (http://\S+) `, "bob@newco-domain.com", true},
		{e2eM365, `No M365_TENANT_ID and M365_CLIENT_ID and M365_CLIENT_SECRET and M365_LICENSE: using an embedded sandbox of Microsoft 365 at (http://\S+) `, "bob@newco-domain.com", true},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			t.Parallel()
			p := startProc(t, bin, "shell", map[string]string{"MAILBOT_PROVIDER": tc.provider}, "shell")
			base, off := waitOutput(t, p, regexp.MustCompile(tc.banner), 0)
			const domain, address = "newco-domain.com", "bob@newco-domain.com"
			if _, err := io.WriteString(p.stdin, "/maildomain register "+domain+"\n"); err != nil {
				t.Fatal(err)
			}
			_, off = waitOutput(t, p, regexp.MustCompile(`\[ops\] USHELL registered domain `+domain), off)
			if tc.verify {
				simControl(t, http.DefaultClient, base[1]+"/sim/domain?name="+domain)
			}
			if _, err := io.WriteString(p.stdin, "/mailbox add "+address+"\n"); err != nil {
				t.Fatal(err)
			}
			m, _ := waitOutput(t, p, regexp.MustCompile(`(?s)Mailbox `+regexp.QuoteMeta(tc.shown)+` created\n.*?  Password: (\S+)\n`), off)
			if stored := simPassword(t, http.DefaultClient, base[1], tc.shown); m[1] != stored {
				t.Errorf("the shell showed password %q, its sandbox stored %q", m[1], stored)
			}
			if err := p.stdin.Close(); err != nil {
				t.Fatal(err)
			}
			if code := p.wait(e2eWait); code != 0 {
				t.Errorf("the shell at the end of its input: exit status %d, want 0", code)
			}
		})
	}
}

// simPassword asks the sandbox at base, over its /sim/mailbox control,
// for the password it stored for address.
func simPassword(t *testing.T, client *http.Client, base, address string) string {
	t.Helper()
	res, err := client.Get(base + "/sim/mailbox?address=" + url.QueryEscape(address))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	pw := cmp.Or(jsonField(body, "password"), jsonField(body, "mailbox", "password")) // PDD and Yandex 360, mailcow
	if res.StatusCode != http.StatusOK || pw == "" {
		t.Fatalf("/sim/mailbox of %s: HTTP %d %s", address, res.StatusCode, body)
	}
	return pw
}

// testE2EProviderAudit is the provider in the audit trail and in the
// metrics, with a database: after a register and an add on Yandex 360,
// on mailcow and on Google Workspace, every line of `mailbot audit --json` names the
// provider, /metrics counts each call under its label, and no table
// holds a password, a verification code or the credentials.
func testE2EProviderAudit(t *testing.T, bin string, cluster *pgtest.Cluster) {
	forEachProvider(t, bin, []string{e2eY360, e2eMailcow, e2eGoogle}, func(t *testing.T, pw *providerWorld) {
		dsn := cluster.NewDatabase(t)
		p := pw.serve("mailbot", pw.env(map[string]string{"MAILBOT_DATABASE_URL": dsn}))
		const domain, address = "audited-domain.com", "audited@" + e2eOwnDomain
		registerAndAdd(t, pw, domain, address)
		checkProviderCalls(t, p, pw.provider)
		out := strings.TrimSpace(auditCLI(t, pw.world, dsn, "--json"))
		lines := strings.Split(out, "\n")
		if len(lines) != 2 || !strings.Contains(out, `"mailbox":"`+address+`"`) || !strings.Contains(out, `"domain":"`+domain+`"`) {
			t.Errorf("mailbot audit --json, want the register and the add:\n%s", out)
		}
		for _, line := range lines {
			if !strings.Contains(line, `"provider":"`+pw.provider+`"`) {
				t.Errorf("an audit line does not name the provider %s: %s", pw.provider, line)
			}
			if !strings.Contains(line, `"source":"slack"`) {
				t.Errorf("an audit line of serve does not say it came from Slack: %s", line)
			}
		}
		if pw.provider == e2eGoogle && !googleUID.MatchString(out) {
			t.Errorf("mailbot audit --json does not show the new Google user's 21-digit ID whole:\n%s", out)
		}
		scanDatabase(t, dsn, pw.world)
	})
}

// googleUID is a Google user's ID in an audit line: 21 digits, whole.
var googleUID = regexp.MustCompile(`"uid":"[0-9]{21}"`)

// testE2EProviderSim is each provider's sandbox as a newcomer serves it:
// `mailbot sim --provider P --tls` in its own process prints the
// variables that point mailbot at it; serve with them registers a domain
// and, after a 429 queued over the sandbox's /sim/fault control, adds a
// mailbox whose password is the one /sim/mailbox reports; SIGTERM stops
// the sandbox with exit 0 and removes its authority's PEM file.
func testE2EProviderSim(t *testing.T, bin string) {
	for _, provider := range e2eProviders {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, bin)
			sim := startProc(t, bin, "sim", map[string]string{}, "sim", "--provider", provider, "--tls", "--addr", "127.0.0.1:0")
			vars := simVariables(t, sim)
			if first, _, _ := strings.Cut(sim.stdout.String(), "\n"); first != "MAILBOT_PROVIDER="+provider {
				t.Errorf("mailbot sim --provider %s printed %q first, want MAILBOT_PROVIDER=%s", provider, first, provider)
			}
			client := caClient(t, vars["SSL_CERT_FILE"])
			base := vars[urlVariable(provider)]
			simControl(t, client, base+"/sim/domain?name="+e2eOwnDomain)
			env := w.env(map[string]string{"PDD_TOKEN": "", "PDD_BASE_URL": ""})
			maps.Copy(env, vars) // MAILBOT_PROVIDER among them
			for _, k := range e2eCredentials {
				if v := vars[k]; v != "" {
					w.rec.keep(pddSecret{value: v, kind: "credential", target: k})
				}
			}
			keyFile := vars["GOOGLE_CREDENTIALS_FILE"]
			if provider == e2eGoogle {
				key, err := os.ReadFile(keyFile)
				if err != nil {
					t.Fatalf("mailbot sim --provider google: GOOGLE_CREDENTIALS_FILE: %v", err)
				}
				var f struct {
					PrivateKey string `json:"private_key"`
				}
				if err := json.Unmarshal(key, &f); err != nil || f.PrivateKey == "" {
					t.Fatalf("mailbot sim --provider google wrote a key file without a private key: %v", err)
				}
				keepKey(w, f.PrivateKey, "GOOGLE_CREDENTIALS_FILE")
			}
			w.serve("mailbot", env)
			id, _ := w.command(w.fake.Via(0), e2eAdmin1, "/maildomain", "register sim-domain.com")
			if res := w.result(id); !strings.Contains(res.shown(), "sim-domain.com registered") {
				t.Errorf("register through mailbot sim answered:\n%s", res.shown())
			}
			simControl(t, client, base+"/sim/fault?kind=429&n=1")
			const address = "newcomer@" + e2eOwnDomain
			id, _ = w.command(w.fake.Via(0), e2eAdmin1, "/mailbox", "add "+address)
			res := w.result(id)
			stored := simPassword(t, client, base, address)
			w.rec.keep(pddSecret{value: stored, kind: "password", target: address})
			if got := shownPassword(res); got != stored {
				t.Errorf("the add through mailbot sim shows password %q, /sim/mailbox %q:\n%s", got, stored, res.shown())
			}
			sim.term()
			if code := sim.wait(e2eWait); code != 0 {
				t.Errorf("mailbot sim after SIGTERM: exit status %d, want 0", code)
			}
			if _, err := os.Stat(vars["SSL_CERT_FILE"]); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("mailbot sim left its authority's PEM file behind (%v)", err)
			}
			if _, err := os.Stat(keyFile); keyFile != "" && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("mailbot sim left its key file behind (%v)", err)
			}
		})
	}
}

// simVariables waits for the lines `mailbot sim --tls` prints, the last
// SSL_CERT_FILE=, and returns them by name.
func simVariables(t *testing.T, sim *proc) map[string]string {
	t.Helper()
	waitOutput(t, sim, regexp.MustCompile(`(?m)^SSL_CERT_FILE=\S+\n`), 0)
	vars := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^([A-Z0-9_]+)=(\S*)$`).FindAllStringSubmatch(sim.stdout.String(), -1) {
		vars[m[1]] = m[2]
	}
	return vars
}

// caClient is an HTTP client that trusts the authority of the PEM file.
func caClient(t *testing.T, pemFile string) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(pemFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("%s holds no certificate", pemFile)
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
}

// simControl POSTs to a sandbox's /sim/ control and expects HTTP 200.
func simControl(t *testing.T, client *http.Client, u string) {
	t.Helper()
	res, err := client.Post(u, "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if body, _ := io.ReadAll(res.Body); res.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: HTTP %d %s", u, res.StatusCode, body)
	}
}
