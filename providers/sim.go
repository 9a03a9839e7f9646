package providers

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mailbot/mailbot/apiclient"

	"go.uber.org/zap"
)

// simShutdownTimeout bounds the wait for requests in flight at a signal.
const simShutdownTimeout = 5 * time.Second

// SimOptions are mailbot sim's flags.
type SimOptions struct {
	Providers string // --provider: one name, or several separated by commas
	Addr      string // --addr: where the first sandbox listens
	TLS       bool   // --tls
	Named     bool   // --provider was given: the first line selects it
}

// Sim serves the sandbox of each provider of o.Providers (one name, or
// several separated by commas, for a deployment with MAILBOT_ROUTES) until
// ctx ends (see docs/providers.md). The first is served on o.Addr, each
// further one on the same host at a free port. Its first lines on stdout
// are the variables that point mailbot at them (PDD_BASE_URL=<url> and
// PDD_TOKEN=<token> for PDD), after MAILBOT_PROVIDER=<the first name> when
// --provider named it; with --tls a last one, SSL_CERT_FILE=<path>, names
// a PEM file of the certificate authority that signed the servers'
// certificate, removed again when the sandboxes stop.
func Sim(ctx context.Context, o SimOptions, logger *zap.Logger, stdout io.Writer) error {
	names := simProviders(o.Providers)
	sims, closeAll, err := listenSims(names, o.Addr)
	defer closeAll()
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	extra := ""
	if o.TLS {
		caFile, removeCA, err := simServeTLS(sims, logger)
		if err != nil {
			return fmt.Errorf("sim: %w", err)
		}
		defer removeCA()
		extra = "SSL_CERT_FILE=" + caFile + "\n"
	}
	var lines strings.Builder
	if o.Named {
		lines.WriteString("MAILBOT_PROVIDER=" + names[0] + "\n")
	}
	for _, s := range sims {
		warnReach(s.url, s.ln, logger)
		vars, removeFiles, err := simVarLines(s.sb, s.url, logger)
		defer removeFiles()
		if err != nil {
			return fmt.Errorf("sim: %w", err)
		}
		lines.WriteString(vars)
	}
	if _, err := fmt.Fprint(stdout, lines.String()+extra); err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	return serveSims(ctx, sims, logger)
}

// simProviders is --provider's list: one name, or several separated by
// commas.
func simProviders(prov string) []string {
	var names []string
	for _, name := range strings.Split(prov, ",") {
		names = append(names, strings.TrimSpace(name))
	}
	return names
}

// CheckSimProviders refuses an unknown provider, and one named twice.
func CheckSimProviders(prov string) error {
	names := simProviders(prov)
	for i, name := range names {
		if _, err := NewSandbox(name); err != nil {
			return err
		}
		if slices.Contains(names[:i], name) {
			return fmt.Errorf("provider %q is named twice", name)
		}
	}
	return nil
}

// simServer is one provider's sandbox and its listener.
type simServer struct {
	provider string
	sb       *Sandbox
	ln       net.Listener
	url      string
}

// listenSims makes each provider's sandbox and listens for it: the first
// on addr, the others on addr's host at a free port. closeAll closes the
// listeners not yet served (serving closes them itself), also after an
// error.
func listenSims(names []string, addr string) (sims []*simServer, closeAll func(), _ error) {
	closeAll = func() {
		for _, s := range sims {
			_ = s.ln.Close() // a second close's error means nothing
		}
	}
	for i, name := range names {
		sb, err := NewSandbox(name)
		if err != nil {
			return sims, closeAll, err
		}
		if i > 0 {
			host, _, _ := net.SplitHostPort(addr)
			addr = net.JoinHostPort(host, "0")
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return sims, closeAll, err
		}
		sims = append(sims, &simServer{provider: name, sb: sb, ln: ln, url: "http://" + urlHost(ln.Addr().(*net.TCPAddr))})
	}
	return sims, closeAll, nil
}

// simServeTLS makes every sandbox's listener serve TLS with one server
// certificate that a new certificate authority signs; caFile is the
// authority's PEM file, which removeCA removes.
func simServeTLS(sims []*simServer, logger *zap.Logger) (caFile string, removeCA func(), _ error) {
	caFile, tlsCfg, err := SimTLS(urlHost(sims[0].ln.Addr().(*net.TCPAddr)))
	if err != nil {
		return "", nil, err
	}
	removeCA = func() {
		if err := os.Remove(caFile); err != nil {
			logger.Warn("the certificate authority's PEM file was not removed", zap.Error(err))
		}
	}
	for _, s := range sims {
		s.ln, s.url = tls.NewListener(s.ln, tlsCfg), "https"+strings.TrimPrefix(s.url, "http")
	}
	return caFile, removeCA, nil
}

// serveSims serves every sandbox until ctx ends; the first that fails
// stops them all.
func serveSims(ctx context.Context, sims []*simServer, logger *zap.Logger) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, len(sims))
	for _, s := range sims {
		logger.Info("sandbox listening", zap.String("provider", s.provider), zap.String("url", s.url))
		go func() {
			err := serveSim(ctx, s.ln, logRequests(s.sb.Handler, logger), logger)
			cancel()
			errc <- err
		}()
	}
	var first error
	for range sims {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// warnReach warns when mailbot would refuse baseURL, and when the sandbox
// listens beyond loopback.
func warnReach(baseURL string, ln net.Listener, logger *zap.Logger) {
	if _, err := apiclient.CheckURL(baseURL); err != nil {
		logger.Warn("mailbot will refuse this base URL: listen on a loopback address, or use --tls", zap.String("url", baseURL))
	}
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		logger.Warn("the sandbox listens beyond loopback, and its /sim/ controls need no token", zap.String("addr", ln.Addr().String()))
	}
}

// simVarLines is the NAME=value lines of the sandbox's variables at
// baseURL; a secret it keeps in a file is written to one and printed as
// NAME_FILE=path. removeFiles removes the files written, the last first,
// also after an error.
func simVarLines(sb *Sandbox, baseURL string, logger *zap.Logger) (_ string, removeFiles func(), _ error) {
	var lines strings.Builder
	var removes []func() error
	removeFiles = func() {
		for _, remove := range slices.Backward(removes) {
			if err := remove(); err != nil {
				logger.Warn("the sandbox's key file was not removed", zap.Error(err))
			}
		}
	}
	for _, kv := range sb.Vars(baseURL) {
		if !sb.FileVars[kv[0]] {
			lines.WriteString(kv[0] + "=" + kv[1] + "\n")
			continue
		}
		path, remove, err := writeSandboxFile(kv[0], kv[1])
		if err != nil {
			return "", removeFiles, err
		}
		removes = append(removes, remove)
		lines.WriteString(kv[0] + "_FILE=" + path + "\n")
	}
	return lines.String(), removeFiles, nil
}

// serveSim serves h on ln until ctx ends, then shuts down gracefully.
// Requests in flight see ctx end too, so that one waiting out an injected
// latency is dropped at once rather than holding up the stop.
func serveSim(ctx context.Context, ln net.Listener, h http.Handler, logger *zap.Logger) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          zap.NewStdLog(logger.Named("http")),
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("sim: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), simShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		return fmt.Errorf("sim: %w", serr)
	}
	if err != nil {
		logger.Warn("requests still in flight at the stop were cut off", zap.Error(err))
		_ = srv.Close()
	}
	logger.Info("sandbox stopped")
	return nil
}

// urlHost is the host:port of a URL that reaches addr: an unspecified
// address (all interfaces, IPv4 included even for "[::]") is reached
// through 127.0.0.1.
func urlHost(addr *net.TCPAddr) string {
	ip := addr.IP
	if ip == nil || ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return net.JoinHostPort(ip.String(), strconv.Itoa(addr.Port))
}

// logRequests logs each request at debug level: method, path and status,
// never the form (it holds passwords) or the PddToken header.
func logRequests(h http.Handler, logger *zap.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		logger.Debug("request", zap.String("method", r.Method), zap.String("path", r.URL.Path),
			zap.Int("status", sw.status), zap.Duration("took", time.Since(start)))
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// writeSandboxFile writes a sandbox's secret to a new file only its owner
// reads, for mailbot sim to print as a _FILE variable; remove deletes it.
func writeSandboxFile(name, content string) (path string, remove func() error, err error) {
	f, err := os.CreateTemp("", "mailbot-sim-"+strings.ToLower(name)+"-*.json")
	if err != nil {
		return "", nil, err
	}
	_, werr := f.WriteString(content)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(f.Name()) // the write's error is the one to report
		return "", nil, werr
	}
	return f.Name(), func() error { return os.Remove(f.Name()) }, nil
}
