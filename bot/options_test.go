package bot_test

import (
	"net/http"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/bot"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/dnscheck"
	"github.com/mailbot/mailbot/commands/dnscheck/dnstest"
)

// settings are what a replica is started with.
type settings struct {
	core       commands.Config
	bot        bot.Config
	ops        string
	groupEvery time.Duration
	retry      apiclient.RetryPolicy
	store      commands.Store                  // the env's by default
	simWrap    func(http.Handler) http.Handler // env-level: read by newEnv only
}

// option changes the settings of a replica (or, for withStore and
// withSimWrap, of the env).
type option func(*settings)

func withApprovals(mode commands.ApprovalMode) option {
	return func(s *settings) { s.core.Approvals = mode }
}

// withAdmins replaces the admins: user IDs and user group IDs (S…).
func withAdmins(ids ...string) option {
	return func(s *settings) { s.core.Admins = ids }
}

func withApprovalsRequired(n int) option {
	return func(s *settings) { s.core.ApprovalsRequired = n }
}

func withRemind(d time.Duration) option { return func(s *settings) { s.core.RemindAfter = d } }

func withTTL(d time.Duration) option { return func(s *settings) { s.core.ApprovalTTL = d } }

func withDomains(patterns ...string) option {
	return func(s *settings) { s.core.Domains = patterns }
}

func withDefaultDomain(d string) option { return func(s *settings) { s.core.DefaultDomain = d } }

func withClock(now func() time.Time) option { return func(s *settings) { s.core.Now = now } }

// withOps sets the ops channel; "" means none.
func withOps(channel string) option { return func(s *settings) { s.ops = channel } }

// withSweep sets how often expiries and reminders are swept (default:
// never, so that tests decide when).
func withSweep(every time.Duration) option { return func(s *settings) { s.bot.SweepEvery = every } }

// withGroupRefresh sets how often admin user groups are read again.
func withGroupRefresh(every time.Duration) option {
	return func(s *settings) { s.groupEvery = every }
}

func withBotConfig(f func(*bot.Config)) option { return func(s *settings) { f(&s.bot) } }

// withDNS makes /maildomain check and "Check DNS" ask srv, waiting for
// its answers at most 3 s.
func withDNS(srv *dnstest.Server) option { return withDNSTimeout(srv, 3*time.Second) }

// withDNSTimeout is withDNS with the checker's overall deadline.
func withDNSTimeout(srv *dnstest.Server, d time.Duration) option {
	return func(s *settings) {
		c, err := dnscheck.New(srv.Addr(), dnscheck.WithTimeout(d))
		if err != nil {
			panic(err) // a loopback address never fails
		}
		s.core.DNS = c
	}
}

// withStore keeps state in st: given to newHarness or newEnv, every
// replica's; given to start, that replica's alone (a restart without a
// database is a replica on a new memstore).
func withStore(st commands.Store) option { return func(s *settings) { s.store = st } }

// withSimWrap puts wrap in front of the sandbox (env-level): a test can
// change its answers on the wire.
func withSimWrap(wrap func(http.Handler) http.Handler) option {
	return func(s *settings) { s.simWrap = wrap }
}
