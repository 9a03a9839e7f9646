package pdd_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
)

// fastRetry keeps the retries of the tests short.
var fastRetry = apiclient.RetryPolicy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond}

// env is a sandbox behind a real HTTP(S) server, mounted under /pdd/ so that
// a path resolved against the root fails loudly, and an adapter of one of its
// accounts, which owns example.com (domain-activate).
type env struct {
	sim   *pddsim.Server
	url   string // the base URL, ".../pdd"
	token string
	c     *pdd.Adapter
	hc    *http.Client // the HTTP client of the server, for more clients
}

// transports are the two ways the tests reach the sandbox.
var transports = []struct {
	name string
	tls  bool
}{{"http", false}, {"https", true}}

func setup(t testing.TB, useTLS bool, opts ...apiclient.Option) *env {
	t.Helper()
	sim := pddsim.New(pddsim.WithProhibited("forbidden.example"), pddsim.WithBlocked("spam.example"))
	mux := http.NewServeMux()
	mux.Handle("/pdd/", http.StripPrefix("/pdd", sim))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request outside the base URL: %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	})
	var ts *httptest.Server
	if useTLS {
		ts = httptest.NewTLSServer(mux)
	} else {
		ts = httptest.NewServer(mux)
	}
	t.Cleanup(ts.Close)
	e := &env{sim: sim, url: ts.URL + "/pdd", token: sim.NewAccount()}
	if useTLS {
		e.hc = ts.Client()
	}
	e.c = e.client(t, e.token, opts...)
	if _, err := e.c.RegisterDomain(t.Context(), "example.com"); err != nil {
		t.Fatalf("RegisterDomain(example.com) = %v", err)
	}
	return e
}

// client returns an adapter of the sandbox for token, with fast retries
// and the server's TLS trust when it is HTTPS.
func (e *env) client(t testing.TB, token string, opts ...apiclient.Option) *pdd.Adapter {
	t.Helper()
	all := []apiclient.Option{apiclient.WithRetry(fastRetry)}
	if e.hc != nil {
		all = append(all, apiclient.WithHTTPClient(e.hc))
	}
	c, err := pdd.NewAdapter(e.url, token, append(all, opts...)...)
	if err != nil {
		t.Fatalf("NewAdapter(%q) = %v", e.url, err)
	}
	return c
}

// checkNoSecrets fails if the error's text holds a secret, as it is or
// encoded as a form would.
func checkNoSecrets(t *testing.T, err error, secrets ...string) {
	t.Helper()
	if err == nil {
		return
	}
	for _, text := range []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err)} {
		for _, s := range secrets {
			if strings.Contains(text, s) || strings.Contains(text, url.QueryEscape(s)) {
				t.Errorf("error %q holds the secret %q", text, s)
			}
		}
	}
}

func TestNewAdapter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		base    string
		token   string
		opts    []apiclient.Option
		wantErr string // "" for no error
	}{
		{"production", pdd.DefaultBaseURL, "T", nil, ""},
		{"https with a path", "https://pdd.example/prefix", "T", nil, ""},
		{"http to 127.0.0.1", "http://127.0.0.1:8081", "T", nil, ""},
		{"http to localhost", "http://LOCALHOST:8081/", "T", nil, ""},
		{"http to ::1", "http://[::1]:8081", "T", nil, ""},
		{"http to 127.1.2.3", "http://127.1.2.3", "T", nil, ""},
		{"http elsewhere", "http://pddimp.yandex.ru", "T", nil, "scheme must be https"},
		{"http to a name ending in localhost", "http://evil-localhost.example", "T", nil, "scheme must be https"},
		{"ftp", "ftp://127.0.0.1", "T", nil, "scheme must be https"},
		{"no scheme", "pddimp.yandex.ru", "T", nil, "not an absolute URL"},
		{"empty", "", "T", nil, "not an absolute URL"},
		{"not a URL", "https://%zz", "T", nil, "not a URL"},
		{"user information", "https://user:hunter2@pdd.example", "T", nil, "no user information"},
		{"query", "https://pdd.example/?token=hunter2", "T", nil, "no query"},
		{"fragment", "https://pdd.example/#hunter2", "T", nil, "no query or fragment"},
		{"empty token", pdd.DefaultBaseURL, "", nil, "empty PDD token"},
		{"nil http client", pdd.DefaultBaseURL, "T", []apiclient.Option{apiclient.WithHTTPClient(nil)}, "nil http client"},
		{"zero timeout", pdd.DefaultBaseURL, "T", []apiclient.Option{apiclient.WithTimeout(0)}, "not positive"},
		{"no attempts", pdd.DefaultBaseURL, "T", []apiclient.Option{apiclient.WithRetry(apiclient.RetryPolicy{})}, "invalid retry policy"},
		{"max below base", pdd.DefaultBaseURL, "T", []apiclient.Option{apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 2, BaseDelay: time.Second, MaxDelay: time.Millisecond})}, "invalid retry policy"},
		{"every option", pdd.DefaultBaseURL, "T", []apiclient.Option{apiclient.WithHTTPClient(&http.Client{}), apiclient.WithTimeout(time.Second),
			apiclient.WithUserAgent("x"), apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 1})}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := pdd.NewAdapter(tc.base, tc.token, tc.opts...)
			switch {
			case tc.wantErr == "" && (err != nil || c == nil):
				t.Errorf("NewAdapter(%q) = %v, %v; want an adapter", tc.base, c, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("NewAdapter(%q) = %v, %v; want an error containing %q", tc.base, c, err, tc.wantErr)
			}
			checkNoSecrets(t, err, "hunter2")
		})
	}
}

// TestRequest checks what goes over the wire: method, path, headers, and a
// form body that carries the password intact and nothing in the URL.
func TestRequest(t *testing.T) {
	t.Parallel()
	const password = "a&b+c%d;e=f?g#h"
	type seen struct {
		Method, Path, RawQuery         string
		Token, ContentType, Accept, UA string
		Form                           url.Values
	}
	got := make(chan seen, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		form, err := url.ParseQuery(string(body))
		if err != nil {
			t.Errorf("body %q is not a form: %v", body, err)
		}
		got <- seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("PddToken"), r.Header.Get("Content-Type"),
			r.Header.Get("Accept"), r.Header.Get("User-Agent"), form}
		fmt.Fprint(w, `{"domain":"example.com","login":"u@example.com","uid":1130000000000001,"success":"ok"}`)
	}))
	t.Cleanup(ts.Close)
	c, err := pdd.NewAdapter(ts.URL+"/base", "TOKEN", apiclient.WithUserAgent("mailbot-test/1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddMailbox(t.Context(), "example.com", "u", password, false); err != nil {
		t.Fatalf("AddMailbox = %v", err)
	}
	want := seen{"POST", "/base/api2/admin/email/add", "", "TOKEN", "application/x-www-form-urlencoded",
		"application/json", "mailbot-test/1", url.Values{"domain": {"example.com"}, "login": {"u"}, "password": {password}}}
	if diff := cmp.Diff(want, <-got); diff != "" {
		t.Errorf("request mismatch (-want +got):\n%s", diff)
	}
}

// TestRedirectNotFollowed checks that a redirect is an error and that the
// token never reaches the host it names.
func TestRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the redirect was followed: %s %s with PddToken %q", r.Method, r.URL, r.Header.Get("PddToken"))
	}))
	t.Cleanup(elsewhere.Close)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(ts.Close)
	for _, opts := range [][]apiclient.Option{nil, {apiclient.WithHTTPClient(&http.Client{})}} {
		c, err := pdd.NewAdapter(ts.URL, "TOKEN", append(opts, apiclient.WithRetry(fastRetry))...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.RegisterDomain(t.Context(), "example.com")
		var e *apiclient.Error
		if !errors.As(err, &e) || e.HTTPStatus != http.StatusTemporaryRedirect || e.Class != apiclient.ClassRefused {
			t.Errorf("RegisterDomain against a redirect = %v, want a refusal with HTTP 307", err)
		}
	}
}

func TestCodes(t *testing.T) {
	t.Parallel()
	known := []pdd.Code{
		pdd.CodeUnknown, pdd.CodeNoToken, pdd.CodeNoDomain, pdd.CodeNoIP,
		pdd.CodeBadDomain, pdd.CodeProhibited, pdd.CodeBadToken, pdd.CodeBadLogin,
		pdd.CodeBadPasswd, pdd.CodeNoAuth, pdd.CodeNotAllowed, pdd.CodeBlocked,
		pdd.CodeOccupied, pdd.CodeDomainLimitReached, pdd.CodeNoReply,
		pdd.CodeNoLogin, pdd.CodeNoPassword, pdd.CodeBadLoginFormat, pdd.CodeLoginTooLong,
		pdd.CodeLoginReserved, pdd.CodePasswdTooShort, pdd.CodePasswdTooLong, pdd.CodeBadPasswdChars,
	}
	meanings := map[string]pdd.Code{}
	for _, c := range known {
		m := c.Meaning()
		if !c.Known() || m == "" || strings.Contains(m, "does not know") {
			t.Errorf("Code(%q): Known() = %t, Meaning() = %q; want a known code with its meaning", c, c.Known(), m)
		}
		if other, dup := meanings[m]; dup {
			t.Errorf("codes %q and %q share the meaning %q", other, c, m)
		}
		meanings[m] = c
	}
	if c := pdd.Code("new_code"); c.Known() || !strings.Contains(c.Meaning(), "does not know") {
		t.Errorf("Code(new_code): Known() = %t, Meaning() = %q; want unknown", c.Known(), c.Meaning())
	}
}

func TestCheckURLNormalises(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ base, wantPath string }{
		{"http://127.0.0.1:1", "/api2/admin/domain/register"},
		{"http://127.0.0.1:1/", "/api2/admin/domain/register"},
		{"http://127.0.0.1:1/pdd", "/pdd/api2/admin/domain/register"},
		{"http://127.0.0.1:1/pdd/", "/pdd/api2/admin/domain/register"},
	} {
		got := make(chan string, 1)
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got <- r.URL.Path
			fmt.Fprint(w, `{"domain":"example.com","status":"added","stage":"added","success":"ok"}`)
		}))
		base := strings.Replace(tc.base, "127.0.0.1:1", strings.TrimPrefix(ts.URL, "http://"), 1)
		c, err := pdd.NewAdapter(base, "T")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.RegisterDomain(t.Context(), "example.com"); err != nil {
			t.Errorf("RegisterDomain via %q = %v", base, err)
		} else if p := <-got; p != tc.wantPath {
			t.Errorf("base %q: path = %q, want %q", tc.base, p, tc.wantPath)
		}
		ts.Close()
	}
}
