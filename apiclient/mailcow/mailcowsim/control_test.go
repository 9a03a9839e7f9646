package mailcowsim

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// sim sends a control request and decodes its answer.
func (f *fixture) control(t *testing.T, method, path string, form url.Values) (int, controlAnswer) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, f.url+path+"?"+form.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var a controlAnswer
	if err := json.NewDecoder(res.Body).Decode(&a); err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return res.StatusCode, a
}

func TestControlsOverHTTP(t *testing.T) {
	f := newFixture(t)
	ok := func(method, path string, form url.Values) controlAnswer {
		t.Helper()
		status, a := f.control(t, method, path, form)
		if status != http.StatusOK || !a.OK {
			t.Fatalf("%s %s %v: HTTP %d %+v", method, path, form, status, a)
		}
		return a
	}
	key := ok("POST", "/sim/account", nil).Key
	ro := ok("POST", "/sim/account", url.Values{"access": {"ro"}}).Key
	if status, _ := f.do(t, "GET", "/api/v1/get/status/version", key, nil); status != 200 {
		t.Errorf("the new key: HTTP %d", status)
	}
	if status, _ := f.do(t, "POST", "/api/v1/add/domain", ro, map[string]any{"domain": "ro.example"}); status != 403 {
		t.Errorf("the new read-only key writes: HTTP %d", status)
	}

	ok("POST", "/sim/domain", url.Values{"name": {"ctl.example"}})
	ok("POST", "/sim/mailboxes", url.Values{"domain": {"ctl.example"}, "n": {"3"}})
	m := ok("GET", "/sim/mailbox", url.Values{"address": {"user0003@ctl.example"}}).Mailbox
	if m == nil || *m != (mailboxJSON{Password: SeedPassword, State: "active"}) {
		t.Errorf("/sim/mailbox = %+v", m)
	}

	ok("POST", "/sim/fault", url.Values{"kind": {"502"}, "n": {"1"}})
	ok("POST", "/sim/fail", url.Values{"code": {"access_denied"}})
	ok("POST", "/sim/warn", url.Values{"code": {"domain_added_sogo_failed"}})
	if status, _ := f.do(t, "GET", "/api/v1/get/status/version", key, nil); status != 502 {
		t.Errorf("after /sim/fault kind=502: HTTP %d", status)
	}
	if got := f.write(t, "add/domain", map[string]any{"domain": "x.example"}); len(got) != 1 || got[0] != "danger:access_denied" {
		t.Errorf("after /sim/fail: %v", got)
	}
	if got := f.write(t, "add/domain", map[string]any{"domain": "y.example"}); len(got) != 2 || got[1] != "warning:domain_added_sogo_failed" {
		t.Errorf("after /sim/warn: %v", got)
	}
	ok("POST", "/sim/latency", url.Values{"d": {"1ms"}})

	for range DefaultBanAfter {
		f.do(t, "GET", "/api/v1/get/status/version", "wrong", nil)
	}
	counts := ok("GET", "/sim/requests", nil)
	if counts.Requests == nil || *counts.Requests != f.sim.Requests() || counts.AuthFailures == nil || *counts.AuthFailures != DefaultBanAfter {
		t.Errorf("/sim/requests = %+v, want %d requests and %d failures", counts, f.sim.Requests(), DefaultBanAfter)
	}
	ok("POST", "/sim/unban", nil)
	if status, _ := f.do(t, "GET", "/api/v1/get/status/version", key, nil); status != 200 {
		t.Errorf("after /sim/unban: HTTP %d", status)
	}
}

func TestControlsRefuseBadInput(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		method, path string
		form         url.Values
		status       int
		says         string
	}{
		{"POST", "/sim/fault", url.Values{"kind": {"teapot"}}, 400, "unknown fault"},
		{"POST", "/sim/fault", url.Values{"kind": {"502"}, "n": {"-1"}}, 400, "not a number"},
		{"POST", "/sim/fail", nil, 400, "code is missing"},
		{"POST", "/sim/latency", url.Values{"d": {"soon"}}, 400, "not a duration"},
		{"POST", "/sim/domain", url.Values{"name": {"not a domain"}}, 400, "not a domain name"},
		{"POST", "/sim/mailboxes", url.Values{"domain": {"a.example"}}, 400, "not a number"},
		{"POST", "/sim/account", url.Values{"access": {"admin"}}, 400, "neither rw nor ro"},
		{"GET", "/sim/mailbox", url.Values{"address": {"nobody@example.com"}}, 400, "no mailbox"},
		{"GET", "/sim/fault", nil, 405, "method not allowed"},
	}
	for _, c := range cases {
		status, a := f.control(t, c.method, c.path, c.form)
		if status != c.status || a.OK || !strings.Contains(a.Error, c.says) {
			t.Errorf("%s %s %v = HTTP %d %+v, want %d saying %q", c.method, c.path, c.form, status, a, c.status, c.says)
		}
	}
}
