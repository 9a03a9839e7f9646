package providers

import (
	"context"
	"slices"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/internal/metrics"
)

// The outcome labels of mailbot_provider_requests_total: ok, or the class
// of the failure (apiclient.Class), the same for every provider.
const outcomeOK = "ok"

// providerOutcomes are every outcome label: ok, the classes, and
// "internal" for a failure that is no provider answer (a bug).
var providerOutcomes = []string{outcomeOK, apiclient.ClassRefused.String(), apiclient.ClassTemporary.String(),
	apiclient.ClassCredentials.String(), apiclient.ClassUncertain.String(), apiclient.Class(0).String()}

// RetryReasons are the reasons of mailbot_provider_retries_total: the
// class of the failure retried.
func RetryReasons() []string {
	return []string{apiclient.ClassTemporary.String(), apiclient.ClassUncertain.String()}
}

// providerBuckets are the bounds of mailbot_provider_request_duration_seconds:
// 10 ms doubling to 20.48 s.
var providerBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48}

// Metrics are the series a provider's calls feed. Labels are the
// provider, the operation and an answer class or retry reason; never a
// domain, a login or a secret.
type Metrics struct {
	provider string
	*providerFamilies
	upGauge *metrics.Gauge
	ops     map[apiclient.Op]*opSeries // every operation's, resolved once
}

// opSeries are one operation's series of the provider.
type opSeries struct {
	duration *metrics.Histogram
	requests []*metrics.Counter // by outcome, in the order of providerOutcomes
	retries  []*metrics.Counter // by reason, in the order of RetryReasons
}

// providerFamilies are the provider series of every provider in use.
type providerFamilies struct {
	requests *metrics.CounterVec
	duration *metrics.HistogramVec
	retries  *metrics.CounterVec
	up       *metrics.GaugeVec
}

// NewMetrics registers the provider series on reg, every
// operation of provider with every outcome and retry reason at 0.
func NewMetrics(reg *metrics.Registry, provider string) *Metrics {
	f := &providerFamilies{
		requests: reg.NewCounterVec("mailbot_provider_requests_total",
			"Mail provider operations (retries included), by provider, operation and outcome (ok, refused, temporary, credentials, uncertain, internal).",
			"provider", "op", "outcome"),
		duration: reg.NewHistogramVec("mailbot_provider_request_duration_seconds",
			"Time of mail provider operations, retries included.", providerBuckets, "provider", "op"),
		retries: reg.NewCounterVec("mailbot_provider_retries_total",
			"Mail provider attempts repeated, by provider, operation and reason (the class of the failure retried: temporary, uncertain).",
			"provider", "op", "reason"),
		up: reg.NewGaugeVec("mailbot_provider_up",
			"1 while the provider passed its start-up check and its last call got an answer with mailbot's credentials accepted; 0 before the check and after a failure.",
			"provider"),
	}
	return f.Also(provider)
}

// Also is the series of another provider in use, every operation with
// every outcome and retry reason at 0, in the same families.
func (f *providerFamilies) Also(provider string) *Metrics {
	m := &Metrics{provider: provider, providerFamilies: f, upGauge: f.up.WithLabelValues(provider),
		ops: make(map[apiclient.Op]*opSeries)}
	m.upGauge.Set(0)
	for _, op := range apiclient.Ops() {
		m.ops[op] = m.resolve(op)
	}
	return m
}

// resolve is op's series, created at 0 where they are new.
func (m *Metrics) resolve(op apiclient.Op) *opSeries {
	s := &opSeries{duration: m.duration.WithLabelValues(m.provider, string(op))}
	for _, o := range providerOutcomes {
		s.requests = append(s.requests, m.requests.WithLabelValues(m.provider, string(op), o))
	}
	for _, r := range RetryReasons() {
		s.retries = append(s.retries, m.retries.WithLabelValues(m.provider, string(op), r))
	}
	return s
}

// series is op's series: resolved at the start for every operation of
// apiclient.Ops, else now.
func (m *Metrics) series(op apiclient.Op) *opSeries {
	if s, ok := m.ops[op]; ok {
		return s
	}
	return m.resolve(op)
}

// CountRetry is the apiclient retry hook: it counts a repeated attempt.
func (m *Metrics) CountRetry(op apiclient.Op, reason string) {
	if i := slices.Index(RetryReasons(), reason); i >= 0 {
		m.series(op).retries[i].Inc()
		return
	}
	m.retries.WithLabelValues(m.provider, string(op), reason).Inc()
}

// Up sets mailbot_provider_up to 1: the provider passed its start-up
// check.
func (m *Metrics) Up() { m.upGauge.Set(1) }

// Meter wraps p to count and time its operations.
func (m *Metrics) Meter(p commands.Provider) commands.Provider {
	return &meteredProvider{Provider: p, m: m}
}

// meteredProvider counts and times a provider's operations. Name and
// Capabilities pass through.
type meteredProvider struct {
	commands.Provider
	m *Metrics
}

func (p *meteredProvider) observe(op apiclient.Op, start time.Time, err error) {
	s := p.m.series(op)
	s.duration.Observe(time.Since(start).Seconds())
	var class apiclient.Class
	outcome := outcomeOK
	if err != nil {
		class = apiclient.ClassOf(err)
		outcome = class.String()
	}
	s.requests[slices.Index(providerOutcomes, outcome)].Inc()
	if err != nil && (class == apiclient.ClassCredentials || class == apiclient.ClassTemporary) {
		p.m.upGauge.Set(0)
	} else if op != apiclient.OpCheck || err == nil {
		p.m.upGauge.Set(1)
	}
}

// metered runs call, one operation op of the provider, and observes it.
func metered[T any](p *meteredProvider, op apiclient.Op, call func() (T, error)) (T, error) {
	start := time.Now()
	v, err := call()
	p.observe(op, start, err)
	return v, err
}

// Check proves the credentials at start where the adapter can, counted
// as the op "check"; a provider without a check passes (PDD).
func (p *meteredProvider) Check(ctx context.Context) error {
	c, ok := p.Provider.(Checker)
	if !ok {
		return nil
	}
	_, err := metered(p, apiclient.OpCheck, func() (struct{}, error) { return struct{}{}, c.Check(ctx) })
	return err
}

// Unwrap returns the provider it meters.
func (p *meteredProvider) Unwrap() commands.Provider { return p.Provider }

// VerifyDomain forwards to a provider that verifies domains on request
// (commands.DomainVerifier); another answers commands.ErrNoVerify.
func (p *meteredProvider) VerifyDomain(ctx context.Context, domain string) (*apiclient.Domain, error) {
	v, ok := p.Provider.(commands.DomainVerifier)
	if !ok {
		return nil, commands.ErrNoVerify
	}
	return metered(p, apiclient.OpVerify, func() (*apiclient.Domain, error) { return v.VerifyDomain(ctx, domain) })
}

func (p *meteredProvider) RegisterDomain(ctx context.Context, domain string) (*apiclient.Domain, error) {
	return metered(p, apiclient.OpRegister, func() (*apiclient.Domain, error) { return p.Provider.RegisterDomain(ctx, domain) })
}

func (p *meteredProvider) DomainStatus(ctx context.Context, domain string) (*apiclient.Domain, error) {
	return metered(p, apiclient.OpDomainStatus, func() (*apiclient.Domain, error) { return p.Provider.DomainStatus(ctx, domain) })
}

// MailHosts sends no request: nothing to count.
func (p *meteredProvider) MailHosts() apiclient.MailDNS { return p.Provider.MailHosts() }

func (p *meteredProvider) MailDNS(ctx context.Context, domain string) (*apiclient.MailDNS, error) {
	return metered(p, apiclient.OpDNS, func() (*apiclient.MailDNS, error) { return p.Provider.MailDNS(ctx, domain) })
}

func (p *meteredProvider) AddMailbox(ctx context.Context, domain, login, password string, force bool) (*apiclient.Mailbox, error) {
	return metered(p, apiclient.OpAdd, func() (*apiclient.Mailbox, error) {
		return p.Provider.AddMailbox(ctx, domain, login, password, force)
	})
}

// AddNamedMailbox is AddMailbox with the person's name, for a provider
// that keeps names; others get AddMailbox. Counted as the op "add".
func (p *meteredProvider) AddNamedMailbox(ctx context.Context, domain, login string, name apiclient.PersonName, password string, force bool) (*apiclient.Mailbox, error) {
	na, ok := p.Provider.(commands.NamedAdder)
	if !ok {
		return p.AddMailbox(ctx, domain, login, password, force)
	}
	return metered(p, apiclient.OpAdd, func() (*apiclient.Mailbox, error) {
		return na.AddNamedMailbox(ctx, domain, login, name, password, force)
	})
}

// NewAddress is the address a new mailbox gets, for a provider that
// chooses it; others keep the one asked for. Counted as the op "lookup".
func (p *meteredProvider) NewAddress(ctx context.Context, domain, login string) (string, error) {
	ac, ok := p.Provider.(commands.AddressChooser)
	if !ok {
		return login + "@" + domain, nil
	}
	return metered(p, apiclient.OpLookup, func() (string, error) { return ac.NewAddress(ctx, domain, login) })
}

func (p *meteredProvider) SetPassword(ctx context.Context, domain, login, password string, force bool) (*apiclient.Mailbox, error) {
	return metered(p, apiclient.OpReset, func() (*apiclient.Mailbox, error) {
		return p.Provider.SetPassword(ctx, domain, login, password, force)
	})
}

func (p *meteredProvider) SetLoginEnabled(ctx context.Context, domain, login string, enabled bool) (*apiclient.Mailbox, error) {
	op := apiclient.OpBlock
	if enabled {
		op = apiclient.OpUnblock
	}
	return metered(p, op, func() (*apiclient.Mailbox, error) { return p.Provider.SetLoginEnabled(ctx, domain, login, enabled) })
}

func (p *meteredProvider) LookupMailbox(ctx context.Context, domain, login string) (*apiclient.Mailbox, error) {
	return metered(p, apiclient.OpLookup, func() (*apiclient.Mailbox, error) { return p.Provider.LookupMailbox(ctx, domain, login) })
}

func (p *meteredProvider) ListMailboxes(ctx context.Context, domain, cursor string, limit int) (*apiclient.Page, error) {
	return metered(p, apiclient.OpList, func() (*apiclient.Page, error) { return p.Provider.ListMailboxes(ctx, domain, cursor, limit) })
}

func (p *meteredProvider) ResolveMailbox(ctx context.Context, domain, login string) (*apiclient.Resolved, error) {
	return metered(p, apiclient.OpResolve, func() (*apiclient.Resolved, error) { return p.Provider.ResolveMailbox(ctx, domain, login) })
}
