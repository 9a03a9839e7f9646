package pdd

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
)

// FuzzScanDomainAnswer checks the domain answer's scanner against
// encoding/json: what it reads, encoding/json reads the same; what it
// refuses, it leaves zero.
func FuzzScanDomainAnswer(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzScanDomainAnswer.
	f.Fuzz(func(t *testing.T, body []byte) {
		var got, want domainAnswer
		ok := got.scan(body)
		err := json.Unmarshal(body, &want)
		switch {
		case ok && err != nil:
			t.Fatalf("scan read %q, which encoding/json refuses: %v", body, err)
		case ok && !reflect.DeepEqual(got, want):
			t.Fatalf("scan read %q as %+v (secrets %+v), encoding/json as %+v (secrets %+v)", body, got, got.Secrets, want, want.Secrets)
		case !ok && !reflect.DeepEqual(got, domainAnswer{}):
			t.Fatalf("scan refused %q and left %+v", body, got)
		}
	})
}

// TestScanReadsTheSandboxAnswers: the sandbox's answers to a register
// and to status reads, of a new domain, of a verified one and of one the
// account does not hold, are read without encoding/json.
func TestScanReadsTheSandboxAnswers(t *testing.T) {
	t.Parallel()
	sim := pddsim.New()
	token := sim.NewAccount()
	sim.AddDomain("verified.example")
	for _, c := range []struct {
		op     Op
		domain string
	}{{OpRegisterDomain, "new.example"}, {OpRegistrationStatus, "new.example"},
		{OpRegistrationStatus, "verified.example"}, {OpRegistrationStatus, "unknown.example"}} {
		form := url.Values{"domain": {c.domain}}.Encode()
		req := httptest.NewRequest(http.MethodGet, "/"+c.op.path()+"?"+form, nil)
		if c.op == OpRegisterDomain {
			req = httptest.NewRequest(http.MethodPost, "/"+c.op.path(), strings.NewReader(form))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		req.Header.Set("PddToken", token)
		rec := httptest.NewRecorder()
		sim.ServeHTTP(rec, req)
		var d domainAnswer
		if body := rec.Body.Bytes(); !d.scan(body) || d.Success == "" || d.Domain != c.domain {
			t.Errorf("%s %s: scan refused the sandbox's answer %s", c.op, c.domain, body)
		}
	}
}
