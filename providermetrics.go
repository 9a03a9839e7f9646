package main

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/internal/metrics"
)

// The outcome labels of mailbot_provider_requests_total: the classes every
// provider's answers fall into.
const (
	outcomeOK          = "ok"
	outcomeRefused     = "refused"     // a definite no: invalid input, exists, not allowed; not retried
	outcomeTemporary   = "temporary"   // nothing was done, and a later attempt may succeed
	outcomeCredentials = "credentials" // the provider refused mailbot's credentials
	outcomeUncertain   = "uncertain"   // the operation may or may not have happened
	outcomeInternal    = "internal"    // no answer class: a failure inside mailbot
)

var providerOutcomes = []string{outcomeOK, outcomeRefused, outcomeTemporary, outcomeCredentials, outcomeUncertain, outcomeInternal}

// pddOps are the PDD operations mailbot calls, by their op label.
var pddOps = map[apiclient.Op]commands.Action{
	apiclient.OpRegisterDomain: commands.ActionRegisterDomain,
	apiclient.OpAddMailbox:     commands.ActionAddMailbox,
}

// providerBuckets are the bounds of mailbot_provider_request_duration_seconds:
// 10 ms doubling to 20.48 s.
var providerBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48}

// providerMetrics are the series the provider's calls feed. Labels are the
// provider, the operation and an answer class or retry reason; never a
// domain, a login or a secret.
type providerMetrics struct {
	requests *metrics.CounterVec
	duration *metrics.HistogramVec
	retries  *metrics.CounterVec
}

// newProviderMetrics registers the provider series on reg, every
// operation of the PDD API with every outcome and retry reason at 0.
func newProviderMetrics(reg *metrics.Registry) *providerMetrics {
	m := &providerMetrics{
		requests: reg.NewCounterVec("mailbot_provider_requests_total",
			"Mail provider operations (retries included), by provider, operation and outcome (ok, refused, temporary, credentials, uncertain, internal).",
			"provider", "op", "outcome"),
		duration: reg.NewHistogramVec("mailbot_provider_request_duration_seconds",
			"Time of mail provider operations, retries included.", providerBuckets, "provider", "op"),
		retries: reg.NewCounterVec("mailbot_provider_retries_total",
			"Mail provider attempts repeated, by provider, operation and reason (unknown, not_sent, timeout, transport, http_5xx).",
			"provider", "op", "reason"),
	}
	for _, op := range pddOps {
		m.duration.WithLabelValues(providerPDD, string(op))
		for _, o := range providerOutcomes {
			m.requests.WithLabelValues(providerPDD, string(op), o)
		}
		for _, r := range apiclient.RetryReasons() {
			m.retries.WithLabelValues(providerPDD, string(op), string(r))
		}
	}
	return m
}

// countRetry is the apiclient retry hook: it counts a repeated attempt.
func (m *providerMetrics) countRetry(op apiclient.Op, r apiclient.RetryReason) {
	m.retries.WithLabelValues(providerPDD, string(pddOps[op]), string(r)).Inc()
}

// pdd wraps api to count and time its operations.
func (m *providerMetrics) pdd(api commands.API) commands.API { return &meteredAPI{api: api, m: m} }

// meteredAPI counts and times the PDD operations.
type meteredAPI struct {
	api commands.API
	m   *providerMetrics
}

var _ commands.API = (*apiclient.Client)(nil)

func (a *meteredAPI) observe(op apiclient.Op, start time.Time, err error) {
	a.m.duration.WithLabelValues(providerPDD, string(pddOps[op])).Observe(time.Since(start).Seconds())
	a.m.requests.WithLabelValues(providerPDD, string(pddOps[op]), pddOutcome(err)).Inc()
}

// pddCredentialCodes are the PDD codes that refuse mailbot's token.
var pddCredentialCodes = map[apiclient.Code]bool{
	apiclient.CodeBadToken: true, apiclient.CodeNoAuth: true, apiclient.CodeBadLogin: true, apiclient.CodeBadPasswd: true,
}

// pddOutcome is the answer class of a PDD operation's error.
func pddOutcome(err error) string {
	var apiErr *apiclient.Error
	var respErr *apiclient.ResponseError
	switch {
	case err == nil:
		return outcomeOK
	case apiclient.MayHaveHappened(err):
		return outcomeUncertain
	case apiclient.NothingDone(err):
		return outcomeTemporary
	case errors.As(err, &apiErr) && pddCredentialCodes[apiErr.Code],
		errors.As(err, &respErr) && (respErr.StatusCode == http.StatusUnauthorized || respErr.StatusCode == http.StatusForbidden):
		return outcomeCredentials
	case errors.As(err, &apiErr), errors.As(err, &respErr):
		return outcomeRefused
	}
	return outcomeInternal
}

func (a *meteredAPI) RegisterDomain(ctx context.Context, domain string) (*apiclient.Domain, error) {
	start := time.Now()
	d, err := a.api.RegisterDomain(ctx, domain)
	a.observe(apiclient.OpRegisterDomain, start, err)
	return d, err
}

func (a *meteredAPI) AddMailbox(ctx context.Context, domain, login, password string) (*apiclient.Mailbox, error) {
	start := time.Now()
	mb, err := a.api.AddMailbox(ctx, domain, login, password)
	a.observe(apiclient.OpAddMailbox, start, err)
	return mb, err
}
