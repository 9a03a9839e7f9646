package bot

import (
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/internal/metrics"
)

// Metrics are the series the bot feeds. No label carries a user ID, a
// domain or a secret: labels are commands, outcomes and decisions, and
// every series of a known label value exists (at 0) from the start.
type Metrics struct {
	commands      *metrics.CounterVec
	approvals     *metrics.CounterVec
	notifications *metrics.CounterVec
	homes         *metrics.CounterVec
	groupRefresh  *metrics.CounterVec
	undelivered   *metrics.Counter
	redelivered   *metrics.Counter
	reminders     *metrics.Counter
	connected     *metrics.Gauge
	reconnects    *metrics.Counter
	inFlight      *metrics.Gauge
	ackLatency    *metrics.Histogram
	handovers     *metrics.CounterVec
}

// ackBuckets are the bounds of mailbot_ack_latency_seconds, in seconds.
var ackBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 3}

// NewMetrics registers the bot's series on reg, each labelled series at 0
// for every label value the bot and the core can give it.
func NewMetrics(reg *metrics.Registry) *Metrics {
	m := &Metrics{
		commands:      reg.NewCounterVec("mailbot_commands_total", "Slash commands and forms handled, by command and outcome.", "command", "outcome"),
		approvals:     reg.NewCounterVec("mailbot_approvals_total", "Clicks on mailbot's buttons, requests posted and expiries, by decision.", "decision"),
		notifications: reg.NewCounterVec("mailbot_notifications_total", "Messages to the ops channel, by outcome (ok, failed).", "outcome"),
		homes:         reg.NewCounterVec("mailbot_home_views_total", "Home tabs published, by outcome (ok, failed).", "outcome"),
		groupRefresh:  reg.NewCounterVec("mailbot_usergroup_refresh_total", "Readings of admin user groups after start, by outcome (ok, failed).", "outcome"),
		undelivered:   reg.NewCounter("mailbot_undelivered_total", "Private answers that no route could deliver."),
		redelivered:   reg.NewCounter("mailbot_envelopes_redelivered_total", "Envelopes Slack sent again, acknowledged and not run again."),
		reminders:     reg.NewCounter("mailbot_reminders_total", "Reminders posted for requests waiting for a decision."),
		connected:     reg.NewGauge("mailbot_socket_connected", "1 while the Socket Mode connection is up."),
		reconnects:    reg.NewCounter("mailbot_socket_reconnects_total", "Socket Mode connections after the first."),
		inFlight:      reg.NewGauge("mailbot_work_in_flight", "Work accepted and not yet finished (running or waiting for a worker)."),
		ackLatency: reg.NewHistogram("mailbot_ack_latency_seconds",
			"Time from receiving an envelope to handing its acknowledgement to the socket.", ackBuckets),
	}
	m.handovers = reg.NewCounterVec("mailbot_handovers_total", "Hand-overs of credentials to their owner, by event (offered, shown, expired, refused click).", "event")
	for _, ev := range commands.HandoverEvents() {
		m.handovers.WithLabelValues(string(ev))
	}
	for _, c := range SlashCommands() {
		for _, o := range commands.CommandOutcomes() {
			m.commands.WithLabelValues(c, o)
		}
	}
	m.commands.WithLabelValues("form", commands.LabelInvalid)
	for _, d := range commands.ClickDecisions() {
		m.approvals.WithLabelValues(d)
	}
	for _, o := range []string{"ok", "failed"} {
		m.notifications.WithLabelValues(o)
		m.homes.WithLabelValues(o)
		m.groupRefresh.WithLabelValues(o)
	}
	return m
}

// Handover counts a hand-over event (commands.Config.OnHandover).
func (m *Metrics) Handover(ev commands.HandoverEvent) { m.handovers.WithLabelValues(string(ev)).Inc() }
