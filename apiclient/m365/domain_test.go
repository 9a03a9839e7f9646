package m365_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/m365"
	"github.com/mailbot/mailbot/apiclient/m365/m365sim"
)

// A domain's status asks Graph for the one property the client reads
// ($select=isVerified), not the whole domain.
func TestDomainStatusSelects(t *testing.T) {
	sim := m365sim.New()
	sim.AddDomain("example.com")
	var mu sync.Mutex
	var selects []string
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/v1.0/domains/example.com" {
			mu.Lock()
			selects = append(selects, r.URL.Query().Get("$select"))
			mu.Unlock()
		}
		sim.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	c, err := m365.New(ts.URL, settings(sim.NewAccount(), ts.URL), apiclient.WithHTTPClient(ts.Client()), fast)
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.DomainStatus(t.Context(), "example.com")
	if err != nil || !d.Verified {
		t.Fatalf("status: %+v, %v", d, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(selects, []string{"isVerified"}) {
		t.Errorf("GET /domains/example.com with $select %q, want one with \"isVerified\"", selects)
	}
}

// The checklist takes the Email service's records of
// serviceConfigurationRecords alone: the CNAMEs Teams and Intune need
// (sip, lyncdiscover, enterpriseregistration, enterpriseenrollment),
// which Graph lists beside them, are no autodiscover record.
func TestMailDNSEmailRecordsAlone(t *testing.T) {
	w := newWorld(t)
	c := w.client(t, nil)
	dns, err := c.MailDNS(t.Context(), "example.com")
	if err != nil {
		t.Fatal(err)
	}
	var auto []string
	for _, r := range dns.Records {
		if r.Purpose == m365.PurposeAutodiscover {
			auto = append(auto, r.Name+" "+r.Value)
		}
	}
	if !slices.Equal(auto, []string{"autodiscover autodiscover.outlook.com"}) {
		t.Errorf("autodiscover records %q, want the one of autodiscover.example.com", auto)
	}
}
