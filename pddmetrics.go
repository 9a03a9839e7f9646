package main

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/bot"
	"github.com/mailbot/mailbot/commands"
)

// meteredAPI counts and times the PDD operations. Labels are the operation
// and the outcome code; never a domain, a login or a secret.
type meteredAPI struct {
	api      commands.API
	requests *bot.CounterVec
	duration *bot.HistogramVec
}

var _ commands.API = (*pdd.Client)(nil)

// pddOps are the PDD operations mailbot calls.
var pddOps = []pdd.Op{pdd.OpRegisterDomain, pdd.OpAddMailbox}

// pddCodes are the code labels of mailbot_pdd_requests_total besides the
// PDD's own codes (see [pddErrorCodes] and [outcomeCode]).
var pddCodes = []string{"ok", "other", "response", "transport", "internal"}

// pddErrorCodes are the PDD error codes that apiclient knows, by operation:
// seed §7's list for both, and the real service's alternates for email/add.
var pddErrorCodes = map[pdd.Op][]pdd.Code{
	pdd.OpRegisterDomain: seedCodes,
	pdd.OpAddMailbox: append(slices.Clone(seedCodes), pdd.CodeNoLogin, pdd.CodeNoPassword,
		pdd.CodeBadLoginFormat, pdd.CodeLoginTooLong, pdd.CodeLoginReserved,
		pdd.CodePasswdTooShort, pdd.CodePasswdTooLong, pdd.CodeBadPasswdChars),
}

var seedCodes = []pdd.Code{pdd.CodeUnknown, pdd.CodeNoToken, pdd.CodeNoDomain, pdd.CodeNoIP,
	pdd.CodeBadDomain, pdd.CodeProhibited, pdd.CodeBadToken, pdd.CodeBadLogin, pdd.CodeBadPasswd,
	pdd.CodeNoAuth, pdd.CodeNotAllowed, pdd.CodeBlocked, pdd.CodeOccupied,
	pdd.CodeDomainLimitReached, pdd.CodeNoReply}

// pddBuckets are the bounds of mailbot_pdd_request_duration_seconds:
// 10 ms doubling to 20.48 s.
var pddBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48}

// newMeteredAPI registers the PDD metrics on reg, every operation with
// every code it can be labelled with at 0, and wraps api to count into
// them.
func newMeteredAPI(api commands.API, reg *bot.Registry) *meteredAPI {
	m := &meteredAPI{
		api: api,
		requests: reg.NewCounterVec("mailbot_pdd_requests_total",
			"PDD API operations (retries included), by operation and outcome code (ok, a PDD error code, other, transport, response, internal).",
			"op", "code"),
		duration: reg.NewHistogramVec("mailbot_pdd_request_duration_seconds", "Time of PDD API operations, retries included.",
			pddBuckets, "op"),
	}
	for _, op := range pddOps {
		m.duration.WithLabelValues(string(op))
		for _, c := range pddCodes {
			m.requests.WithLabelValues(string(op), c)
		}
		for _, c := range pddErrorCodes[op] {
			m.requests.WithLabelValues(string(op), string(c))
		}
	}
	return m
}

// newRetryCounter registers mailbot_pdd_retries_total and returns the
// apiclient retry hook that counts into it. Every operation and reason
// starts at 0, so the series exist before the first retry.
func newRetryCounter(reg *bot.Registry) func(pdd.Op, pdd.RetryReason) {
	retries := reg.NewCounterVec("mailbot_pdd_retries_total",
		"PDD API attempts repeated, by operation and reason (unknown, not_sent, timeout, transport, http_5xx, http_429).", "op", "reason")
	for _, op := range pddOps {
		for _, r := range pdd.RetryReasons() {
			retries.WithLabelValues(string(op), string(r))
		}
	}
	return func(op pdd.Op, r pdd.RetryReason) { retries.WithLabelValues(string(op), string(r)).Inc() }
}

func (m *meteredAPI) observe(op pdd.Op, start time.Time, err error) {
	m.duration.WithLabelValues(string(op)).Observe(time.Since(start).Seconds())
	m.requests.WithLabelValues(string(op), outcomeCode(err)).Inc()
}

// outcomeCode is the metric label of an operation's outcome. A PDD code
// that mailbot does not know becomes "other", so that a misbehaving API
// cannot grow the label set without bound.
func outcomeCode(err error) string {
	var apiErr *pdd.Error
	var respErr *pdd.ResponseError
	var trErr *pdd.TransportError
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

func (m *meteredAPI) RegisterDomain(ctx context.Context, domain string) (*pdd.Domain, error) {
	start := time.Now()
	d, err := m.api.RegisterDomain(ctx, domain)
	m.observe(pdd.OpRegisterDomain, start, err)
	return d, err
}

func (m *meteredAPI) AddMailbox(ctx context.Context, domain, login, password string) (*pdd.Mailbox, error) {
	start := time.Now()
	mb, err := m.api.AddMailbox(ctx, domain, login, password)
	m.observe(pdd.OpAddMailbox, start, err)
	return mb, err
}
