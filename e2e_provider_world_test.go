package main

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/google/googlesim"
	"github.com/mailbot/mailbot/apiclient/m365/m365sim"
	"github.com/mailbot/mailbot/apiclient/mailcow/mailcowsim"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/apiclient/yandex360/y360sim"
)

// The provider scenarios (e2e_providers_test.go) run the binary against
// one provider's sandbox, in this process, served over HTTPS on loopback
// with a certificate of its own authority (as `mailbot sim --tls` serves
// it; SSL_CERT_FILE names the authority). In front of the sandbox a
// recorder notes each API request's operation and arrival time, reads the
// passwords and verification codes that go through (for the world's
// checks that none shows in public or in a process's output), and
// injects a fault into the very request of an operation when a scenario
// arms one.

// The providers, as MAILBOT_PROVIDER names them.
const (
	e2ePDD       = "pdd"
	e2eY360      = "yandex360"
	e2eMailcow   = "mailcow"
	e2eGoogle    = "google"
	e2eM365      = "m365"
	e2eAddOp     = "add"
	e2eRegOp     = "register"
	e2eReadOp    = "read"
	e2eOtherOp   = "other"
	e2eOwnDomain = "example.com" // the domain each provider's account owns
)

// e2eProviders are the providers every scenario runs on.
var e2eProviders = []string{e2ePDD, e2eY360, e2eMailcow, e2eGoogle, e2eM365}

// e2eSandbox is what the scenarios use of any provider's sandbox: the
// shared sandbox API's faults and request count, the stored password of a
// mailbox, and a domain the account owns.
type e2eSandbox struct {
	faulter
	stored    func(address string) (string, bool)
	ownDomain func(name string) error
}

type faulter interface {
	http.Handler
	InjectFault(kind string, n int) error
	Requests() int
}

// wireCall is one API request as the recorder saw it arrive.
type wireCall struct {
	op string // e2eAddOp, e2eRegOp, e2eReadOp or e2eOtherOp
	at time.Time
}

// providerWorld is a world whose bot drives one provider's sandbox.
type providerWorld struct {
	*world
	provider string
	sim      e2eSandbox
	vars     map[string]string // the provider's variables and SSL_CERT_FILE
	mailcow  *mailcowsim.Server
	y360     *y360sim.Server
	y360Cred y360sim.Credentials
	google   *googlesim.Server
	gAcct    googlesim.Account
	m365     *m365sim.Server
	mAcct    m365sim.Account

	mu    sync.Mutex
	calls []wireCall
	armed map[string][]string // operation → faults for its next requests
}

// newProviderWorld starts a fake Slack and provider's sandbox, served
// over HTTPS, whose account owns e2eOwnDomain.
func newProviderWorld(t *testing.T, bin, provider string) *providerWorld {
	t.Helper()
	w := newWorld(t, bin)
	pw := &providerWorld{world: w, provider: provider, armed: map[string][]string{}}
	vars := pw.newSandbox()
	if err := pw.sim.ownDomain(e2eOwnDomain); err != nil {
		t.Fatal(err)
	}
	caFile, tlsCfg, err := simTLS("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(pw.wrap(pw.sim))
	srv.TLS = tlsCfg
	srv.StartTLS()
	t.Cleanup(func() {
		srv.Close()
		_ = os.Remove(caFile)
	})
	vars[urlVariable(provider)] = srv.URL
	vars["SSL_CERT_FILE"] = caFile
	if pw.m365 != nil { // the token endpoint is the sandbox's too
		vars["M365_LOGIN_URL"] = srv.URL
	}
	if pw.google != nil { // the key file's token_uri is the sandbox's, known once it is served
		vars["GOOGLE_CREDENTIALS"] = string(pw.gAcct.KeyFile(srv.URL))
	}
	pw.vars = vars
	return pw
}

// newSandbox makes the provider's sandbox, with an account, and returns
// its credentials' variables; they join the secrets that must never show.
func (pw *providerWorld) newSandbox() map[string]string {
	switch pw.provider {
	case e2eY360:
		// The account's own domain is the organisation's default one, so
		// that users' own addresses (nickname@default domain) are at it.
		sim := y360sim.New(y360sim.WithDefaultDomain(e2eOwnDomain))
		pw.y360, pw.y360Cred = sim, sim.NewAccount()
		pw.rec.keep(pddSecret{value: pw.y360Cred.Token, kind: "token", target: "Y360_TOKEN"})
		ownDomain := func(n string) error {
			if n == e2eOwnDomain {
				return nil
			}
			return sim.AddDomain(n)
		}
		pw.sim = e2eSandbox{faulter: sim, ownDomain: ownDomain, stored: func(a string) (string, bool) {
			m, ok := sim.Mailbox(a)
			return m.Password, ok
		}}
		return map[string]string{"Y360_TOKEN": pw.y360Cred.Token, "Y360_ORG_ID": strconv.FormatInt(pw.y360Cred.OrgID, 10)}
	case e2eGoogle:
		return pw.newGoogleSandbox()
	case e2eM365:
		return pw.newM365Sandbox()
	case e2eMailcow:
		sim := mailcowsim.New()
		key := sim.NewAccount()
		pw.mailcow = sim
		pw.rec.keep(pddSecret{value: key, kind: "API key", target: "MAILCOW_API_KEY"})
		pw.sim = e2eSandbox{faulter: sim, ownDomain: func(n string) error { sim.AddDomain(n); return nil },
			stored: func(a string) (string, bool) {
				m, ok := sim.Mailbox(a)
				return m.Password, ok
			}}
		return map[string]string{"MAILCOW_API_KEY": key, "MAILCOW_MX": sim.Hostname()}
	}
	sim := pddsim.New()
	token := sim.NewAccount()
	pw.rec.keep(pddSecret{value: token, kind: "token", target: "PDD_TOKEN"})
	shared := sim.Shared()
	pw.sim = e2eSandbox{faulter: pddFaulter{Shared: shared, rec: pw.rec}, ownDomain: func(n string) error { shared.AddDomain(n); return nil },
		stored: func(a string) (string, bool) {
			m, ok := shared.Mailbox(a)
			return m.Password, ok
		}}
	return map[string]string{"PDD_TOKEN": token}
}

// pddFaulter is the PDD sandbox behind the recorder that reads its
// verification secrets.
type pddFaulter struct {
	pddsim.Shared
	rec *pddRecorder
}

func (p pddFaulter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.rec.wrap(p.Shared).ServeHTTP(w, r)
}

// urlVariable is the variable of provider's base URL.
func urlVariable(provider string) string {
	switch provider {
	case e2eY360:
		return "Y360_BASE_URL"
	case e2eMailcow:
		return "MAILCOW_URL"
	case e2eGoogle:
		return "GOOGLE_BASE_URL"
	case e2eM365:
		return "M365_BASE_URL"
	}
	return "PDD_BASE_URL"
}

// env is a complete serve configuration driving the world's provider,
// with extra on top.
func (pw *providerWorld) env(extra map[string]string) map[string]string {
	env := pw.world.env(map[string]string{"MAILBOT_PROVIDER": pw.provider})
	if pw.provider != e2ePDD {
		delete(env, "PDD_TOKEN")
		delete(env, "PDD_BASE_URL")
	}
	maps.Copy(env, pw.vars)
	maps.Copy(env, extra)
	return env
}

// e2eCredentials are the variables that hold a provider's credentials.
var e2eCredentials = []string{"PDD_TOKEN", "Y360_TOKEN", "MAILCOW_API_KEY", "GOOGLE_CREDENTIALS", "M365_CLIENT_SECRET"}

// wrap records each API request in front of the sandbox (the controls
// under /sim/ are not API requests).
func (pw *providerWorld) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/sim/") {
			next.ServeHTTP(w, r)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(raw))
		pw.arrive(wireOp(r.Method, r.URL.Path))
		if p := sentPassword(raw); p != "" {
			pw.rec.keep(pddSecret{value: p, kind: "password", target: "a mailbox (" + r.URL.Path + ")"})
		}
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/status") {
			tw := &teeWriter{ResponseWriter: w}
			w = tw
			defer pw.keepCodes(r.URL.Path, tw.body.Bytes())
		}
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/token") { // Google's access and verification tokens
			tw := &teeWriter{ResponseWriter: w}
			w = tw
			defer pw.keepTokens(r.URL.Path, tw.body.Bytes())
		}
		next.ServeHTTP(w, r)
	})
}

// arrive records a request of op and injects the fault armed for it.
func (pw *providerWorld) arrive(op string) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	pw.calls = append(pw.calls, wireCall{op: op, at: time.Now()})
	if kinds := pw.armed[op]; len(kinds) > 0 {
		pw.armed[op] = kinds[1:]
		if err := pw.sim.InjectFault(kinds[0], 1); err != nil {
			pw.t.Errorf("injecting %s: %v", kinds[0], err)
		}
	}
}

// arm makes the next requests of op meet the faults kinds, one each.
func (pw *providerWorld) arm(op string, kinds ...string) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	pw.armed[op] = append(pw.armed[op], kinds...)
}

// mark is the number of API requests so far, for since.
func (pw *providerWorld) mark() int {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	return len(pw.calls)
}

// since returns the API requests after mark, in order of arrival.
func (pw *providerWorld) since(mark int) []wireCall {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	return append([]wireCall(nil), pw.calls[mark:]...)
}

// opsOf lists the operations of calls, in order.
func opsOf(calls []wireCall) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.op
	}
	return out
}

// ofOp returns the calls of op.
func ofOp(calls []wireCall, op string) []wireCall {
	var out []wireCall
	for _, c := range calls {
		if c.op == op {
			out = append(out, c)
		}
	}
	return out
}

// wireOp names the operation of an API request of any provider: the
// create of a mailbox (PDD email/add, a Yandex 360 user, mailcow
// add/mailbox), of a domain, a read, or something else.
func wireOp(method, path string) string {
	switch {
	case method == http.MethodGet:
		return e2eReadOp
	case method != http.MethodPost:
		return e2eOtherOp
	case strings.HasSuffix(path, "/email/add"), strings.HasSuffix(path, "/users"), strings.HasSuffix(path, "/add/mailbox"):
		return e2eAddOp
	case strings.HasSuffix(path, "/domain/register"), strings.HasSuffix(path, "/domains"), strings.HasSuffix(path, "/add/domain"):
		return e2eRegOp
	}
	return e2eOtherOp
}

// sentPassword is the password a request body carries: a form's or a
// JSON object's "password", or mailcow's edit's "attr.password".
func sentPassword(raw []byte) string {
	if p := jsonField(raw, "password"); p != "" {
		return p
	}
	if p := jsonField(raw, "attr", "password"); p != "" {
		return p
	}
	form, _ := url.ParseQuery(string(raw))
	return form.Get("password")
}

// keepCodes keeps the verification codes of a Yandex 360 domain status.
func (pw *providerWorld) keepCodes(path string, body []byte) {
	var st struct {
		Methods []struct {
			Code string `json:"code"`
		} `json:"methods"`
	}
	if json.Unmarshal(body, &st) != nil {
		return
	}
	for _, m := range st.Methods {
		if m.Code != "" {
			pw.rec.keep(pddSecret{value: m.Code, kind: "verification code", target: path})
		}
	}
}

// opsNotices returns the texts mailbot posted in the ops channel that
// mention target.
func (pw *providerWorld) opsNotices(target string) []string {
	var out []string
	for _, c := range pw.fake.Calls("") {
		if (c.Method == "chat.postMessage" || c.Method == "chat.update") && c.Form.Get("channel") == e2eOps {
			if s := callMsg(c).shown(); strings.Contains(s, target) {
				out = append(out, s)
			}
		}
	}
	return out
}

// waitOpsNotice waits for an ops notice that mentions target.
func (pw *providerWorld) waitOpsNotice(target string) string {
	pw.t.Helper()
	var found []string
	if err := pw.fake.Wait(e2eWait, "an ops notice of "+target, func() bool {
		found = pw.opsNotices(target)
		return len(found) > 0
	}); err != nil {
		pw.t.Fatal(err)
	}
	return found[0]
}

// checkAdded checks the result of an add of address: the requester alone
// saw the password the sandbox stored, and the ops notice names the
// mailbox without it. It returns the password.
func (pw *providerWorld) checkAdded(res e2eMsg, address, user string) string {
	pw.t.Helper()
	stored, ok := pw.sim.stored(address)
	if !ok {
		pw.t.Fatalf("%s: %s does not exist in the sandbox; the reply:\n%s", pw.provider, address, res.shown())
	}
	if got := shownPassword(res); got != stored {
		pw.t.Errorf("%s: the reply to the add of %s shows password %q, the sandbox stored %q:\n%s", pw.provider, address, got, stored, res.shown())
	}
	pw.seenOnlyBy("the password of "+address, stored, user)
	if notice := pw.waitOpsNotice(address); strings.Contains(notice, stored) {
		pw.t.Errorf("%s: the ops notice of %s holds its password", pw.provider, address)
	}
	return stored
}

// shownPassword is the value of the Password field of a reply, "" if
// none.
func shownPassword(m e2eMsg) string {
	if f := passwordField.FindStringSubmatch(m.shown()); f != nil {
		return strings.Trim(f[1], "`")
	}
	return ""
}

// passwordField is a reply's Password field, as text or as a block.
var passwordField = regexp.MustCompile(`(?m)^\*?Password:\*? (\S+)$`)
