package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/internal/metrics/metricstest"
)

// providerUp reads mailbot_provider_up of each provider.
func providerUp(t *testing.T, ms *serveMetrics) map[string]float64 {
	t.Helper()
	var buf bytes.Buffer
	writeMetrics(&buf, ms.reg)
	up := map[string]float64{}
	f := metricstest.Parse(t, buf.String())["mailbot_provider_up"]
	if f == nil {
		t.Fatal("no mailbot_provider_up")
	}
	for _, m := range f.GetMetric() {
		up[metricstest.Labels(m)["provider"]] = m.GetGauge().GetValue()
	}
	return up
}

// Every provider in use has its mailbot_provider_up from the start, at
// 0; a call answered makes it 1, a refusal of the credentials 0 again,
// and the other provider's stays as it was.
func TestProviderUpPerProvider(t *testing.T) {
	t.Parallel()
	ms := newServeMetrics(apiclient.ProviderPDD, false, apiclient.ProviderPDD, apiclient.ProviderMailcow)
	if up := providerUp(t, ms); len(up) != 2 || up["pdd"] != 0 || up["mailcow"] != 0 {
		t.Fatalf("at start mailbot_provider_up = %v, want pdd and mailcow at 0", up)
	}
	sim := pddsim.New()
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	pm := ms.providers[apiclient.ProviderPDD]
	adapter, err := pdd.NewAdapter(srv.URL, sim.NewAccount(), apiclient.WithRetryHook(pm.CountRetry))
	if err != nil {
		t.Fatal(err)
	}
	p := pm.Meter(adapter)
	if _, err := p.RegisterDomain(context.Background(), "example.com"); err != nil {
		t.Fatal(err)
	}
	if up := providerUp(t, ms); up["pdd"] != 1 || up["mailcow"] != 0 {
		t.Errorf("after an answer of PDD mailbot_provider_up = %v, want pdd 1, mailcow 0", up)
	}
	sim.FailNextWith(1, pddsim.CodeBadToken)
	if _, err := p.DomainStatus(context.Background(), "example.com"); apiclient.ClassOf(err) != apiclient.ClassCredentials {
		t.Fatalf("DomainStatus with a bad token: %v", err)
	}
	if up := providerUp(t, ms); up["pdd"] != 0 {
		t.Errorf("after PDD refused the token mailbot_provider_up = %v, want pdd 0", up)
	}
}
