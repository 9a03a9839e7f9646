package main

import (
	"context"
	"net/http/httptest"
	"testing"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/providers"
)

// A start-up check that made a request returns the memory it left behind
// to the system (Google's reads the domain list); one that made none
// (PDD's) costs no collection.
func TestStartupCheckReleasesMemoryOnlyAfterARequest(t *testing.T) {
	released := 0
	saved := releaseCheckMemory
	releaseCheckMemory = func() { released++ }
	t.Cleanup(func() { releaseCheckMemory = saved })
	for _, tc := range []struct {
		provider string
		want     int
	}{{apiclient.ProviderPDD, 0}, {apiclient.ProviderGoogle, 1}} {
		released = 0
		sb, err := providers.NewSandbox(tc.provider)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(sb.Handler)
		env := map[string]string{"SLACK_APP_TOKEN": "xapp-1", "SLACK_BOT_TOKEN": "xoxb-1", "MAILBOT_PROVIDER": tc.provider, "MAILBOT_ADMINS": "UADMIN1"}
		for _, kv := range sb.Vars(srv.URL) {
			env[kv[0]] = kv[1]
		}
		cfg, err := loadConfig(envFrom(env), "serve")
		if err != nil {
			t.Fatal(err)
		}
		ms := newServeMetrics(cfg.Provider, false, cfg.Selected()...)
		if _, err := serveRouter(context.Background(), cfg, ms, zap.NewNop()); err != nil {
			t.Fatalf("%s: %v", tc.provider, err)
		}
		srv.Close()
		if released != tc.want {
			t.Errorf("%s: memory released %d times after the start-up check, want %d", tc.provider, released, tc.want)
		}
	}
}
