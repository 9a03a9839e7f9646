package main

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
)

// meteredAPI counts and times the PDD operations. Labels are the operation
// and the outcome code; never a domain, a login or a secret.
type meteredAPI struct {
	api      commands.API
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

var _ commands.API = (*apiclient.Client)(nil)

func newMeteredAPI(api commands.API, reg prometheus.Registerer) *meteredAPI {
	m := &meteredAPI{
		api: api,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mailbot_pdd_requests_total",
			Help: "PDD API operations (retries included), by operation and outcome code (ok, a PDD error code, transport, response).",
		}, []string{"op", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mailbot_pdd_request_duration_seconds",
			Help:    "Time of PDD API operations, retries included.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 12),
		}, []string{"op"}),
	}
	reg.MustRegister(m.requests, m.duration)
	return m
}

// newRetryCounter registers mailbot_pdd_retries_total and returns the
// apiclient retry hook that counts into it. Every operation and reason
// starts at 0, so the series exist before the first retry.
func newRetryCounter(reg prometheus.Registerer) func(apiclient.Op, apiclient.RetryReason) {
	retries := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mailbot_pdd_retries_total",
		Help: "PDD API attempts repeated, by operation and reason (unknown, not_sent, timeout, transport, http_5xx).",
	}, []string{"op", "reason"})
	reg.MustRegister(retries)
	for _, op := range []apiclient.Op{apiclient.OpRegisterDomain, apiclient.OpAddMailbox} {
		for _, r := range apiclient.RetryReasons() {
			retries.WithLabelValues(string(op), string(r))
		}
	}
	return func(op apiclient.Op, r apiclient.RetryReason) { retries.WithLabelValues(string(op), string(r)).Inc() }
}

func (m *meteredAPI) observe(op apiclient.Op, start time.Time, err error) {
	m.duration.WithLabelValues(string(op)).Observe(time.Since(start).Seconds())
	m.requests.WithLabelValues(string(op), outcomeCode(err)).Inc()
}

// outcomeCode is the metric label of an operation's outcome. A PDD code
// that mailbot does not know becomes "other", so that a misbehaving API
// cannot grow the label set without bound.
func outcomeCode(err error) string {
	var apiErr *apiclient.Error
	var respErr *apiclient.ResponseError
	var trErr *apiclient.TransportError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &apiErr) && apiErr.Code.Known():
		return string(apiErr.Code)
	case errors.As(err, &apiErr):
		return "other"
	case errors.As(err, &respErr):
		return "response"
	case errors.As(err, &trErr):
		return "transport"
	}
	return "internal"
}

func (m *meteredAPI) RegisterDomain(ctx context.Context, domain string) (*apiclient.Domain, error) {
	start := time.Now()
	d, err := m.api.RegisterDomain(ctx, domain)
	m.observe(apiclient.OpRegisterDomain, start, err)
	return d, err
}

func (m *meteredAPI) AddMailbox(ctx context.Context, domain, login, password string) (*apiclient.Mailbox, error) {
	start := time.Now()
	mb, err := m.api.AddMailbox(ctx, domain, login, password)
	m.observe(apiclient.OpAddMailbox, start, err)
	return mb, err
}
