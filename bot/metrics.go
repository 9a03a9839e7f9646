package bot

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the bot's Prometheus metrics. No label carries a user ID, a
// domain or a secret: labels are commands, outcomes and decisions.
type Metrics struct {
	commands      *prometheus.CounterVec
	approvals     *prometheus.CounterVec
	notifications *prometheus.CounterVec
	connected     prometheus.Gauge
	reconnects    prometheus.Counter
	inFlight      prometheus.Gauge
	ackLatency    prometheus.Histogram
}

// NewMetrics registers the bot's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		commands: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mailbot_commands_total",
			Help: "Slash commands handled, by command and outcome.",
		}, []string{"command", "outcome"}),
		approvals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mailbot_approvals_total",
			Help: "Approval requests and decisions, by decision.",
		}, []string{"decision"}),
		notifications: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mailbot_notifications_total",
			Help: "Messages to the ops channel, by outcome (ok, failed).",
		}, []string{"outcome"}),
		connected: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mailbot_socket_connected",
			Help: "1 while the Socket Mode connection is up.",
		}),
		reconnects: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mailbot_socket_reconnects_total",
			Help: "Socket Mode connections after the first.",
		}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mailbot_work_in_flight",
			Help: "Operations accepted and not yet finished (running or waiting for a worker).",
		}),
		ackLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "mailbot_ack_latency_seconds",
			Help:    "Time from receiving an envelope to handing its acknowledgement to the socket.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 3},
		}),
	}
	reg.MustRegister(m.commands, m.approvals, m.notifications, m.connected, m.reconnects, m.inFlight, m.ackLatency)
	return m
}
