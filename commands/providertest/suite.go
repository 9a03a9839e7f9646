package providertest

import (
	"crypto/rand"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
)

// The suite's client settings: a timeout that a loaded machine meets, a
// shorter one for the slow answer, and fast retries.
const (
	callTimeout = 10 * time.Second
	slowTimeout = time.Second
	slowExtra   = 10 * time.Second // how late a "slow" fault answers
)

var fastRetry = apiclient.RetryPolicy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}

// Run runs the conformance suite against the adapter and sandbox h makes:
// each test on a fresh sandbox, in parallel.
func Run(t *testing.T, h Harness) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s *suite)
	}{
		{"RegisterDomain", testRegisterDomain},
		{"DomainStatus", testDomainStatus},
		{"MailDNS", testMailDNS},
		{"MailDNSFixed", testMailDNSFixed},
		{"AddMailbox", testAddMailbox},
		{"AddMailboxRefused", testAddMailboxRefused},
		{"SetPassword", testSetPassword},
		{"SetLoginEnabled", testSetLoginEnabled},
		{"LookupMailbox", testLookupMailbox},
		{"UnknownMailbox", testUnknownMailbox},
		{"ResolvePlain", testResolvePlain},
		{"ListMailboxes", testListMailboxes},
		{"CredentialsRefused", testCredentialsRefused},
		{"TooManyRequests", testTooManyRequests},
		{"BadGateway", testBadGateway},
		{"ResetAfterProcessing", testResetAfterProcessing},
		{"SlowAnswer", testSlowAnswer},
		{"Counts", testCounts},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, start(t, h))
		})
	}
}

// suite is one test's sandbox, served over HTTPS, and an adapter of it.
type suite struct {
	env  Env
	sb   Sandbox
	url  string
	hc   *http.Client
	p    commands.Provider
	caps apiclient.Capabilities

	tr *traffic

	mu       sync.Mutex
	secrets  []string // the credentials and every password sent
	arrivals int      // the sandbox's OnRequest calls
}

func start(t *testing.T, h Harness) *suite {
	env := h.New(t)
	tr := &traffic{next: env.Sandbox}
	ts := httptest.NewTLSServer(tr)
	t.Cleanup(ts.Close)
	env.Sandbox.AddDomain(Domain)
	s := &suite{env: env, sb: env.Sandbox, url: ts.URL, hc: ts.Client(), tr: tr, secrets: env.Secrets}
	env.Sandbox.OnRequest(s.arrive)
	s.p = s.connect(t, true, callTimeout)
	s.caps = s.p.Capabilities()
	return s
}

func (s *suite) arrive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.arrivals++
}

// counted returns how many requests the sandbox counted (Requests) and
// announced (OnRequest).
func (s *suite) counted() (requests, arrivals int) {
	requests = s.sb.Requests()
	s.mu.Lock()
	defer s.mu.Unlock()
	return requests, s.arrivals
}

func (s *suite) connect(t *testing.T, valid bool, timeout time.Duration) commands.Provider {
	t.Helper()
	p, err := s.env.Connect(s.url, valid, apiclient.WithHTTPClient(s.hc), apiclient.WithTimeout(timeout), apiclient.WithRetry(fastRetry))
	if err != nil {
		t.Fatalf("Connect(valid %v): %v", valid, err)
	}
	return p
}

// password returns a new password that every provider accepts, and
// remembers it as a secret no error may show.
func (s *suite) password() string {
	pw := "Pw-" + rand.Text()[:13]
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secrets = append(s.secrets, pw)
	return pw
}

// address is login@Domain.
func address(login string) string { return login + "@" + Domain }

// mailbox returns the sandbox's record of login@Domain, failing the test
// when there is none.
func (s *suite) mailbox(t *testing.T, login string) MailboxInfo {
	t.Helper()
	m, ok := s.sb.Mailbox(address(login))
	if !ok {
		t.Fatalf("the sandbox has no mailbox %s", address(login))
	}
	return m
}

// add creates login@Domain with a new password, which it returns.
func (s *suite) add(t *testing.T, login string) string {
	t.Helper()
	pw := s.password()
	if _, err := s.p.AddMailbox(t.Context(), Domain, login, pw, false); err != nil {
		t.Fatalf("AddMailbox(%s): %v", login, err)
	}
	return pw
}

// ok fails the test on err, and checks that no text of it holds a secret.
func (s *suite) ok(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		s.noSecret(t, err)
		t.Fatalf("%s: %v", what, err)
	}
}

// fail checks that err is an *apiclient.Error of the provider, the
// operation and the class (and the reason, if not ""), and that it shows
// no secret.
func (s *suite) fail(t *testing.T, what string, err error, op apiclient.Op, class apiclient.Class, reason apiclient.Reason) {
	t.Helper()
	_ = s.classed(t, what, err, op, class, reason) // checked; the error itself is not needed here
}

// classed checks err as [suite.fail] does and returns it.
func (s *suite) classed(t *testing.T, what string, err error, op apiclient.Op, class apiclient.Class, reason apiclient.Reason) *apiclient.Error {
	t.Helper()
	var e *apiclient.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %v (%T), want an *apiclient.Error of class %s", what, err, err, class)
	}
	s.noSecret(t, err)
	if e.Provider != s.p.Name() || e.Op != op {
		t.Errorf("%s: provider %q, op %q; want %q, %q", what, e.Provider, e.Op, s.p.Name(), op)
	}
	if e.Class != class || reason != "" && e.Reason != reason {
		t.Fatalf("%s: %v: class %s, reason %q; want %s, %q", what, err, e.Class, e.Reason, class, reason)
	}
	return e
}

// noSecret fails the test if any text of err holds a credential or a
// password the suite sent.
func (s *suite) noSecret(t *testing.T, err error) {
	t.Helper()
	texts := []string{err.Error()}
	var e *apiclient.Error
	if errors.As(err, &e) {
		texts = append(texts, e.Code, e.Message)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, secret := range s.secrets {
		for _, text := range texts {
			if strings.Contains(text, secret) {
				t.Errorf("an error shows a secret: %q", text)
			}
		}
	}
}

// requests runs fn and returns the API requests that reached the sandbox
// meanwhile.
func (s *suite) requests(fn func()) calls { return s.tr.during(fn) }

// fault makes the next request that changes something, and the n-1
// requests after it, meet the fault kind.
func (s *suite) fault(t *testing.T, kind string, n int) { s.tr.aimAtWrite(t, kind, n) }
