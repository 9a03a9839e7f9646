package bot

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the bot's Prometheus metrics. No label carries a user ID, a
// domain or a secret: labels are commands, outcomes and decisions.
type Metrics struct {
	commands      *prometheus.CounterVec
	approvals     *prometheus.CounterVec
	notifications *prometheus.CounterVec
	homes         *prometheus.CounterVec
	groupRefresh  *prometheus.CounterVec
	undelivered   prometheus.Counter
	redelivered   prometheus.Counter
	reminders     prometheus.Counter
	connected     prometheus.Gauge
	reconnects    prometheus.Counter
	inFlight      prometheus.Gauge
	ackLatency    prometheus.Histogram
}

// NewMetrics registers the bot's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	}
	vec := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	m := &Metrics{
		commands:      vec("mailbot_commands_total", "Slash commands and forms handled, by command and outcome.", "command", "outcome"),
		approvals:     vec("mailbot_approvals_total", "Clicks on mailbot's buttons and expiries, by outcome.", "decision"),
		notifications: vec("mailbot_notifications_total", "Messages to the ops channel, by outcome (ok, failed).", "outcome"),
		homes:         vec("mailbot_home_views_total", "Home tabs published, by outcome (ok, failed).", "outcome"),
		groupRefresh:  vec("mailbot_usergroup_refresh_total", "Readings of admin user groups after start, by outcome (ok, failed).", "outcome"),
		undelivered:   counter("mailbot_undelivered_total", "Private answers that no route could deliver."),
		redelivered:   counter("mailbot_envelopes_redelivered_total", "Envelopes Slack sent again, acknowledged and not run again."),
		reminders:     counter("mailbot_reminders_total", "Reminders posted for requests waiting for a decision."),
		connected: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mailbot_socket_connected",
			Help: "1 while the Socket Mode connection is up.",
		}),
		reconnects: counter("mailbot_socket_reconnects_total", "Socket Mode connections after the first."),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mailbot_work_in_flight",
			Help: "Work accepted and not yet finished (running or waiting for a worker).",
		}),
		ackLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "mailbot_ack_latency_seconds",
			Help:    "Time from receiving an envelope to handing its acknowledgement to the socket.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 3},
		}),
	}
	reg.MustRegister(m.commands, m.approvals, m.notifications, m.homes, m.groupRefresh, m.undelivered, m.redelivered,
		m.reminders, m.connected, m.reconnects, m.inFlight, m.ackLatency)
	return m
}
