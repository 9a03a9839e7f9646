package providers

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/config"
)

// ShellRouter is the shell's providers: every provider in use (MAILBOT_PROVIDER and those
// MAILBOT_ROUTES names), each real with its credentials or its embedded
// sandbox without them, routed by domain; stop shuts the sandboxes down.
func ShellRouter(cfg *config.Config, stdout io.Writer) (_ *commands.Router, stop func(), _ error) {
	var stops []func()
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	byName := map[string]commands.Provider{}
	for _, name := range cfg.Selected() {
		api, s, err := shellAPI(As(cfg, name), stdout)
		if err != nil {
			stop()
			return nil, nil, err
		}
		stops = append(stops, s)
		byName[name] = api
	}
	r, err := Router(cfg, byName)
	if err != nil {
		stop()
		return nil, nil, err
	}
	return r, stop, nil
}

// shellAPI is the provider of the selected provider's credentials, or
// that provider's embedded sandbox without them; stop shuts the sandbox
// down.
func shellAPI(cfg *config.Config, stdout io.Writer) (commands.Provider, func(), error) {
	if cfg.ProviderCredentialsSet() {
		api, err := shellRealAPI(cfg, stdout)
		return api, func() {}, err
	}
	return shellSandboxAPI(cfg, stdout)
}

// shellRealAPI is the real provider of the selected provider's
// credentials, checked as serve checks it; it says so on stdout.
func shellRealAPI(cfg *config.Config, stdout io.Writer) (commands.Provider, error) {
	api, err := New(cfg, apiclient.WithTimeout(cfg.ProviderTimeout), apiclient.WithUserAgent("mailbot-shell"))
	if err == nil {
		// As serve does: proves the credentials, and chooses Yandex
		// 360's organisation when Y360_ORG_ID is empty.
		err = Check(context.Background(), cfg, api, zap.NewNop())
	}
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "Driving the real %s at %s with %s: operations change real domains and mailboxes. "+
		"Type help for help.\n", strings.TrimPrefix(api.Capabilities().Title, "the "), URL(cfg), cfg.CredentialsOf())
	return api, nil
}

// shellSandboxAPI starts the selected provider's embedded sandbox on
// loopback and is the provider that drives it; stop shuts the sandbox
// down.
func shellSandboxAPI(cfg *config.Config, stdout io.Writer) (_ commands.Provider, stop func(), _ error) {
	sb, err := NewSandbox(cfg.Provider)
	if err != nil {
		return nil, nil, err
	}
	base, stop, err := startSandbox(sb.Handler)
	if err != nil {
		return nil, nil, err
	}
	sbCfg := *cfg
	if err := sb.Use(&sbCfg, base); err != nil {
		stop()
		return nil, nil, err
	}
	api, err := New(&sbCfg, apiclient.WithUserAgent("mailbot-shell"))
	if err == nil {
		err = Check(context.Background(), &sbCfg, api, zap.NewNop())
	}
	if err != nil {
		stop()
		return nil, nil, err
	}
	fmt.Fprintf(stdout, "No %s: using an embedded sandbox of %s at %s (in memory, gone at exit). Type help for help.\n",
		cfg.CredentialsOf(), Title(cfg.Provider), base)
	return api, stop, nil
}

// startSandbox serves h over HTTP on a loopback port and returns its base
// URL; stop closes the server and waits for it.
func startSandbox(h http.Handler) (base string, stop func(), _ error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("sandbox: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln) // returns http.ErrServerClosed on stop
	}()
	stop = func() {
		_ = srv.Close()
		<-done
	}
	return "http://" + ln.Addr().String(), stop, nil
}
