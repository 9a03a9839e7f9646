package main

// Each provider's sandbox for the end-to-end tests, served as an operator
// would reach a real provider: over HTTPS on loopback, with a certificate
// of its own authority in SSL_CERT_FILE (as `mailbot sim --tls` serves
// it), behind a recorder that reads the wire. The recorder keeps every
// password mailbot sends and every verification secret or code the
// sandbox answers in the world's recorder, so that the world's checks
// (public texts, every process's output) and scanDatabase look for them
// whatever the provider.

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/google/googlesim"
	"github.com/mailbot/mailbot/apiclient/m365/m365sim"
	"github.com/mailbot/mailbot/apiclient/mailcow/mailcowsim"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/apiclient/yandex360/y360sim"
	"github.com/mailbot/mailbot/commands/providertest"
)

// lifeSandbox is one provider's sandbox in a world, and the Go controls
// the tests use, alike for every provider.
type lifeSandbox struct {
	provider string
	env      map[string]string // MAILBOT_PROVIDER, the provider's variables and SSL_CERT_FILE
	url      string
	cred     string // the token or API key mailbot uses
	domain   string // a domain of the account, ready for mailboxes
	wire     *wireRecorder

	requests func() int                     // API requests so far, refused ones included
	fault    func(kind string, n int) error // "429", "502", "reset", "slow"
	inspect  func(address string) (providertest.MailboxInfo, bool)
	seed     func(domain string, n int) error // adds user0001@domain, user0002@domain, …

	pdd     *pddsim.Server // the one of provider's sandboxes in use
	y360    *y360sim.Server
	mailcow *mailcowsim.Server
	google  *googlesim.Server
	gAcct   googlesim.Account
	m365    *m365sim.Server
}

// newLifeSandbox starts provider's sandbox for w: an account, and a domain
// ready for mailboxes (Yandex 360: the organisation's default domain).
func newLifeSandbox(w *world, provider string) *lifeSandbox {
	w.t.Helper()
	sb := &lifeSandbox{provider: provider}
	var h http.Handler
	vars := map[string]string{}
	switch provider {
	case apiclient.ProviderPDD:
		sim := pddsim.New()
		sb.pdd, h, sb.cred, sb.domain = sim, sim, sim.NewAccount(), "life.example"
		sim.AddDomain(sb.domain)
		shared := sim.Shared()
		sb.requests, sb.fault = shared.Requests, shared.InjectFault
		sb.inspect = func(a string) (providertest.MailboxInfo, bool) {
			m, ok := shared.Mailbox(a)
			return providertest.MailboxInfo(m), ok
		}
		sb.seed = func(d string, n int) error { sim.AddMailboxes(d, n); return nil }
		vars["PDD_TOKEN"] = sb.cred
	case apiclient.ProviderYandex360:
		sim := y360sim.New()
		creds := sim.NewAccount()
		sb.y360, h, sb.cred, sb.domain = sim, sim, creds.Token, "example.org"
		sb.requests, sb.fault, sb.seed = sim.Requests, sim.InjectFault, sim.AddMailboxes
		sb.inspect = func(a string) (providertest.MailboxInfo, bool) {
			m, ok := sim.Mailbox(a)
			return providertest.MailboxInfo(m), ok
		}
		vars["Y360_TOKEN"], vars["Y360_ORG_ID"] = sb.cred, strconv.FormatInt(creds.OrgID, 10)
	case apiclient.ProviderMailcow:
		sim := mailcowsim.New()
		sb.mailcow, h, sb.cred, sb.domain = sim, sim, sim.NewAccount(), "life.example"
		sim.AddDomain(sb.domain)
		sb.requests, sb.fault = sim.Requests, sim.InjectFault
		sb.inspect = func(a string) (providertest.MailboxInfo, bool) {
			m, ok := sim.Mailbox(a)
			return providertest.MailboxInfo(m), ok
		}
		sb.seed = func(d string, n int) error { sim.AddMailboxes(d, n); return nil }
		vars["MAILCOW_API_KEY"], vars["MAILCOW_MX"] = sb.cred, sim.Hostname()
	case apiclient.ProviderGoogle:
		sim := googlesim.New()
		sb.google, sb.gAcct, h, sb.domain = sim, sim.NewAccount(), sim, "life.example"
		sim.AddDomain(sb.domain)
		sb.cred = sb.gAcct.PrivateKeyPEM()
		keepKey(w, sb.cred, "GOOGLE_CREDENTIALS")
		sb.requests, sb.fault = sim.Requests, sim.InjectFault
		sb.inspect = func(a string) (providertest.MailboxInfo, bool) {
			m, ok := sim.Mailbox(a)
			return providertest.MailboxInfo{Password: m.Password, State: m.State, ForcePasswordChange: m.ForcePasswordChange, UID: m.UID}, ok
		}
		sb.seed = func(d string, n int) error { sim.AddMailboxes(d, n); return nil }
		vars["GOOGLE_ADMIN"] = sb.gAcct.Admin
	case apiclient.ProviderM365:
		sim := m365sim.New()
		acct := sim.NewAccount()
		sb.m365, h, sb.cred, sb.domain = sim, sim, acct.ClientSecret, "life.example"
		sim.AddDomain(sb.domain)
		sb.requests, sb.fault = sim.Requests, sim.InjectFault
		sb.inspect = func(a string) (providertest.MailboxInfo, bool) {
			m, ok := sim.Mailbox(a)
			return providertest.MailboxInfo{Password: m.Password, State: m.State, ForcePasswordChange: m.ForcePasswordChange, UID: m.UID}, ok
		}
		sb.seed = func(d string, n int) error { sim.AddMailboxes(d, n); return nil }
		vars["M365_TENANT_ID"], vars["M365_CLIENT_ID"], vars["M365_CLIENT_SECRET"], vars["M365_LICENSE"] =
			acct.TenantID, acct.ClientID, acct.ClientSecret, acct.License
	default:
		w.t.Fatalf("no sandbox of provider %q", provider)
	}
	sb.wire = &wireRecorder{rec: w.rec, fault: sb.fault}
	sb.url, vars["SSL_CERT_FILE"] = serveTLS(w.t, sb.wire.wrap(h))
	vars[map[string]string{apiclient.ProviderPDD: "PDD_BASE_URL", apiclient.ProviderYandex360: "Y360_BASE_URL", apiclient.ProviderMailcow: "MAILCOW_URL",
		apiclient.ProviderGoogle: "GOOGLE_BASE_URL", apiclient.ProviderM365: "M365_BASE_URL"}[provider]] = sb.url
	if sb.m365 != nil { // the token endpoint is the sandbox's too
		vars["M365_LOGIN_URL"] = sb.url
	}
	if sb.google != nil { // the key file names the served sandbox's token endpoint
		vars["GOOGLE_CREDENTIALS"] = string(sb.gAcct.KeyFile(sb.url))
	}
	vars["MAILBOT_PROVIDER"] = provider
	sb.env = vars
	w.extra = append(w.extra, sb.cred)
	return sb
}

// serveTLS serves h over HTTPS on loopback with a certificate of a new
// authority, as `mailbot sim --tls` does; it returns the URL and the
// authority's PEM file, for SSL_CERT_FILE. Both go when t ends.
func serveTLS(t *testing.T, h http.Handler) (baseURL, caFile string) {
	t.Helper()
	caFile, tlsCfg, err := simTLS("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = tlsCfg
	srv.StartTLS()
	t.Cleanup(func() {
		srv.Close()
		_ = os.Remove(caFile)
	})
	return srv.URL, caFile
}

// api calls the sandbox's API as an operator's script would, with the
// provider's credential, and returns the answer's body.
func (sb *lifeSandbox) api(t *testing.T, method, path string, body any) string {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, sb.url+path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", sb.cred)
	res, err := sb.client(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return string(out)
}

// client trusts the sandbox's authority.
func (sb *lifeSandbox) client(t *testing.T) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(sb.env["SSL_CERT_FILE"])
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("%s holds no certificate", sb.env["SSL_CERT_FILE"])
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: tr}
}

// wireRecorder reads every request to a sandbox and every answer. It
// counts the writes (anything but a read) and the passwords they carry,
// and can make the next writes lose their answers (the sandbox's "reset"
// fault: done, then the connection closed unanswered).
type wireRecorder struct {
	rec   *pddRecorder
	fault func(kind string, n int) error

	dropWrites atomic.Int64 // how many of the next writes lose their answers
	mu         sync.Mutex
	writes     []string // the password each write carried, "" for none, in order
}

func (r *wireRecorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		raw, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(raw))
		if isAPIWrite(req) {
			pw := passwordIn(raw)
			r.wrote(pw, req.URL.Path)
			if r.takeDrop() {
				if err := r.fault("reset", 1); err != nil {
					panic(err)
				}
			}
		}
		tw := &teeWriter{ResponseWriter: w}
		next.ServeHTTP(tw, req)
		var answer any
		if json.Unmarshal(tw.body.Bytes(), &answer) == nil {
			for _, s := range answeredSecrets(answer, "") {
				r.rec.keep(pddSecret{value: s, kind: "verification secret", target: "the answer to " + req.URL.Path})
			}
		}
	})
}

// takeDrop uses up one of the writes that lose their answers, if any is left.
func (r *wireRecorder) takeDrop() bool {
	for {
		n := r.dropWrites.Load()
		if n <= 0 {
			return false
		}
		if r.dropWrites.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

// isAPIWrite reports whether req changes something at the provider: a
// POST or PATCH to its API (not to the sandbox's /sim/ controls).
func isAPIWrite(req *http.Request) bool {
	return req.Method != http.MethodGet && !strings.HasPrefix(req.URL.Path, "/sim/")
}

func (r *wireRecorder) wrote(password, path string) {
	r.mu.Lock()
	r.writes = append(r.writes, password)
	r.mu.Unlock()
	if password != "" {
		r.rec.keep(pddSecret{value: password, kind: "password", target: "the write to " + path})
	}
}

// passwordsSent returns the passwords of the writes from the nth on.
func (r *wireRecorder) passwordsSent(from int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, pw := range r.writes[min(from, len(r.writes)):] {
		if pw != "" {
			out = append(out, pw)
		}
	}
	return out
}

// writeCount is how many writes reached the sandbox.
func (r *wireRecorder) writeCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.writes)
}

// passwordIn is the password a write carries: PDD's form field, Yandex
// 360's and Google's JSON "password", mailcow's "password" (top level or
// in "attr"), Microsoft 365's "passwordProfile"'s.
func passwordIn(raw []byte) string {
	var body map[string]any
	if json.Unmarshal(raw, &body) != nil {
		form, _ := url.ParseQuery(string(raw))
		return form.Get("password")
	}
	for _, nested := range []string{"attr", "passwordProfile"} {
		if inner, ok := body[nested].(map[string]any); ok {
			body = inner
		}
	}
	pw, _ := body["password"].(string)
	return pw
}

// answeredSecrets returns the verification secrets in a provider's
// answer: the strings of PDD's "secrets" object and the codes of Yandex
// 360's verification "methods". parent is the key v was found under.
func answeredSecrets(v any, parent string) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && s != "" && (parent == "secrets" || parent == "methods" && k == "code") {
				out = append(out, s)
			}
			out = append(out, answeredSecrets(e, k)...)
		}
	case []any:
		for _, e := range x {
			out = append(out, answeredSecrets(e, parent)...)
		}
	}
	return out
}

// keep adds a secret that went through a sandbox, once.
func (r *pddRecorder) keep(s pddSecret) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Contains(r.list, s) {
		r.list = append(r.list, s)
	}
}

// lifeWorld is a world whose mailbot drives one provider's sandbox.
type lifeWorld struct {
	*world
	sb *lifeSandbox
}

func newLifeWorld(t *testing.T, bin, provider string) *lifeWorld {
	t.Helper()
	w := newWorld(t, bin)
	return &lifeWorld{world: w, sb: newLifeSandbox(w, provider)}
}

// env is the world's serve configuration driving the sandbox, with extra
// on top.
func (lw *lifeWorld) env(extra map[string]string) map[string]string {
	env := lw.world.env(lw.sb.env)
	maps.Copy(env, extra)
	return env
}

// ask types a command as user in the general channel and returns its
// result, the first answer to its response_url.
func (lw *lifeWorld) ask(user, cmd, text string) e2eMsg {
	lw.t.Helper()
	id, _ := lw.command(lw.fake.Via(0), user, cmd, text)
	return lw.result(id)
}

// mailbox is the sandbox's record of address; the test fails without one.
func (lw *lifeWorld) mailbox(address string) providertest.MailboxInfo {
	lw.t.Helper()
	m, ok := lw.sb.inspect(address)
	if !ok {
		lw.t.Fatalf("the %s sandbox has no mailbox %s", lw.sb.provider, address)
	}
	return m
}

// blockKitProblems lists what in a message breaks Block Kit's limits:
// more than 50 blocks, a section's text over 3000 characters, more than
// 10 fields or one over 2000, a button's value over 2000.
func blockKitProblems(raw string) []string {
	var m struct {
		Blocks []struct {
			Type string `json:"type"`
			Text *struct {
				Text string `json:"text"`
			} `json:"text"`
			Fields []struct {
				Text string `json:"text"`
			} `json:"fields"`
			Elements []struct {
				Type  string `json:"type"`
				Value string `json:"value"`
			} `json:"elements"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	var out []string
	if len(m.Blocks) > 50 {
		out = append(out, fmt.Sprintf("%d blocks", len(m.Blocks)))
	}
	for i, b := range m.Blocks {
		if b.Type == "section" && b.Text != nil && utf8.RuneCountInString(b.Text.Text) > 3000 {
			out = append(out, fmt.Sprintf("block %d: a text of %d characters", i, utf8.RuneCountInString(b.Text.Text)))
		}
		if len(b.Fields) > 10 {
			out = append(out, fmt.Sprintf("block %d: %d fields", i, len(b.Fields)))
		}
		for _, f := range b.Fields {
			if utf8.RuneCountInString(f.Text) > 2000 {
				out = append(out, fmt.Sprintf("block %d: a field of %d characters", i, utf8.RuneCountInString(f.Text)))
			}
		}
		for _, e := range b.Elements {
			if e.Type == "button" && utf8.RuneCountInString(e.Value) > 2000 {
				out = append(out, fmt.Sprintf("block %d: a button value of %d characters", i, utf8.RuneCountInString(e.Value)))
			}
		}
	}
	return out
}
