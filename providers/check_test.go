package providers_test

import (
	"errors"
	"net"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/mailcow"
	"github.com/mailbot/mailbot/config"
	"github.com/mailbot/mailbot/internal/metrics"
	"github.com/mailbot/mailbot/providers"
)

// TestCheckProviderUnreachable: a mailcow server that cannot be reached
// at start stops start-up with one line naming MAILCOW_URL that says it
// could not be reached, not that it refused the key.
func TestCheckProviderUnreachable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	_ = ln.Close() // a loopback port nobody listens on: connection refused
	cfg := &config.Config{Provider: apiclient.ProviderMailcow, Mailcow: config.Mailcow{MailcowURL: url, MailcowAPIKey: "key-not-shown", MailcowMX: "mail.example.com"}}
	p, err := mailcow.New(cfg.MailcowURL, cfg.MailcowAPIKey.Reveal(), cfg.MailcowMX, apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	err = providers.Check(t.Context(), cfg, providers.NewMetrics(metrics.NewRegistry(), apiclient.ProviderMailcow).Meter(p), zap.NewNop())
	var ce *config.Error
	if !errors.As(err, &ce) || ce.Var != "MAILCOW_URL" || !strings.Contains(ce.Reason, "could not be reached at start") ||
		strings.Contains(ce.Reason, "refused it") || strings.Contains(err.Error(), "key-not-shown") {
		t.Errorf("checkProvider = %v; want MAILCOW_URL could not be reached, without the key", err)
	}
}
