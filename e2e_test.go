package main

// The end-to-end tests build the release binary once (TestE2E) and run it
// as operators do: real processes with a real environment, against the fake
// Slack (bot/slackfake) on loopback, the PDD sandbox (apiclient/pddsim)
// over HTTP on loopback, a fake DNS server (commands/dnscheck/dnstest) and
// a throwaway PostgreSQL cluster (commands/pgstore/pgtest), stopped with
// real signals. They wait on the fake's records, the processes' output and
// /readyz, each with a deadline; never on a sleep.
//
// Every world (one fake Slack, one sandbox, the processes of one subtest)
// checks when its subtest ends that Slack refused nothing, and that no
// password or verification secret that went through the sandbox shows in
// anything public or in any process's output, nor a token.
//
// The files: e2e_test.go (processes, the world), e2e_pdd_test.go (what
// went through the sandbox), e2e_slack_test.go (reading what the bot
// sent), e2e_serve_test.go, e2e_restart_test.go and e2e_forms_test.go
// (serve without a database), e2e_shell_test.go, e2e_db_test.go and e2e_audit_test.go
// (serve and audit on PostgreSQL).

import (
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/bot/slackfake"
)

// e2eWait bounds each wait of the end-to-end tests: far above what anything
// takes, even under -race on two busy cores.
const e2eWait = 20 * time.Second

// The users and channels of the end-to-end tests.
const (
	e2eAdmin1  = "UADMIN1"
	e2eAdmin2  = "UADMIN2"
	e2eUser    = "USTRANGER"
	e2eGeneral = "CGENERAL"
	e2eOps     = "COPS"
)

// TestE2E builds the release binary once and runs every end-to-end
// scenario against it, in parallel. The PostgreSQL scenarios share one
// throwaway cluster, a database each (see testE2EDatabase).
func TestE2E(t *testing.T) {
	t.Parallel()
	bin := buildRelease(t) // bench_test.go: the Dockerfile's flags, into t's temporary directory
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, bin string)
	}{
		{"Shell", testE2EShell},
		{"Backlog", testE2EBacklog},
		{"RestartWithoutDatabase", testE2ERestartWithoutDatabase},
		{"RefusedUpdateThenRestart", testE2ERefusedUpdateThenRestart},
		{"KillThenRestart", testE2EKillThenRestart},
		{"ExpiryWithoutDatabase", testE2EExpiryWithoutDatabase},
		{"MovedValue", testE2EMovedValue},
		{"FormsHomeCancel", testE2EFormsHome},
		{"FormChoice", testE2EFormChoice},
		{"AdminGroups", testE2EAdminGroups},
		{"DNSCheck", testE2EDNSCheck},
		{"DatabaseUnreachable", testE2EDatabaseUnreachable},
		{"MetricsWhileSlackDown", testE2EMetricsWhileSlackDown},
		{"AuditWithoutDatabase", testE2EAuditWithoutDatabase},
		{"Database", testE2EDatabase},
		{"ProviderFlow", testE2EProviderFlow},
		{"ProviderFaults", testE2EProviderFaults},
		{"ProviderCredentials", testE2EProviderCredentials},
		{"ProviderShell", testE2EProviderShell},
		{"ProviderSim", testE2EProviderSim},
		{"GoogleVerify", testE2EGoogleVerify},
		{"GoogleRefused", testE2EGoogleRefused},
		{"GoogleLostAdd", testE2EGoogleLostAdd},
		{"M365", testE2EM365},
		{"M365Refused", testE2EM365Refused},
		{"Lifecycle", testE2ELifecycle},
		{"Handover", testE2EHandover},
		{"Aliases", testE2EAliases},
		{"Resolve", testE2EResolve},
		{"ImportKill", testE2EImportKill},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, bin)
		})
	}
}

// proc is one mailbot process.
type proc struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout lockedBuffer
	stderr lockedBuffer
	done   chan struct{}
	code   int    // the exit status, once done is closed (-1: killed by a signal)
	http   string // http://MAILBOT_HTTP_ADDR, "" without one
	conn   int    // its connection's id on the fake Slack (serve only)
}

// startProc starts bin args... with exactly env as its environment. The
// process is killed when t ends if it still runs.
func startProc(t *testing.T, bin, name string, env map[string]string, args ...string) *proc {
	t.Helper()
	p := &proc{t: t, name: name, done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	for _, k := range slices.Sorted(maps.Keys(env)) {
		p.cmd.Env = append(p.cmd.Env, k+"="+env[k])
	}
	if addr := env["MAILBOT_HTTP_ADDR"]; addr != "" {
		p.http = "http://" + addr
	}
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdin = in
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		err := p.cmd.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee):
			p.code = ee.ExitCode()
		default:
			p.code = -1
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		if p.running() {
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() && p.stderr.String() != "" {
			t.Logf("%s: stderr (the last 6000 bytes):\n%s", name, tail(p.stderr.String(), 6000))
		}
	})
	return p
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// running reports whether the process has not exited yet.
func (p *proc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// wait waits for the process to exit and returns its status; it fails the
// test (and kills the process) after timeout.
func (p *proc) wait(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		p.t.Fatalf("%s still ran %s after it was expected to exit; stderr:\n%s", p.name, timeout, tail(p.stderr.String(), 4000))
		return 0
	}
}

// term sends SIGTERM, as Kubernetes does.
func (p *proc) term() {
	p.t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		p.t.Fatalf("SIGTERM to %s: %v", p.name, err)
	}
}

// reasonLines returns the lines of stderr that state why mailbot stopped
// ("mailbot: …"), apart from the log lines.
func (p *proc) reasonLines() []string {
	var out []string
	for line := range strings.SplitSeq(p.stderr.String(), "\n") {
		if strings.HasPrefix(line, "mailbot: ") {
			out = append(out, line)
		}
	}
	return out
}

// world is one scenario's surroundings: a fake Slack, a sandbox behind a
// recorder, and the mailbot processes started in it.
type world struct {
	t      *testing.T
	bin    string
	fake   *slackfake.Server
	sim    *pddsim.Server
	simURL string
	token  string // the bot's PDD token
	rec    *pddRecorder
	extra  []string // more strings that must never show in public or in output

	mu    sync.Mutex
	procs []*proc
}

// newWorld starts a fake Slack and a sandbox for t.
func newWorld(t *testing.T, bin string) *world {
	t.Helper()
	w := &world{t: t, bin: bin, fake: slackfake.New(), sim: pddsim.New(), rec: &pddRecorder{}}
	t.Cleanup(w.fake.Close)
	srv := httptest.NewServer(w.rec.wrap(w.sim))
	t.Cleanup(srv.Close)
	w.simURL = srv.URL
	w.token = w.sim.NewAccount()
	t.Cleanup(w.check) // runs before the fake and the sandbox stop, after every process
	return w
}

// env is a complete serve configuration in the world, with extra on top.
func (w *world) env(extra map[string]string) map[string]string {
	env := map[string]string{
		"SLACK_APP_TOKEN":     slackfake.AppToken,
		"SLACK_BOT_TOKEN":     slackfake.BotToken,
		"SLACK_API_URL":       strings.TrimSuffix(w.fake.URL, "/"),
		"PDD_TOKEN":           w.token,
		"PDD_BASE_URL":        w.simURL,
		"MAILBOT_ADMINS":      e2eAdmin1 + "," + e2eAdmin2,
		"MAILBOT_OPS_CHANNEL": e2eOps,
		"MAILBOT_LOG_LEVEL":   "debug",
		"MAILBOT_HTTP_ADDR":   "",
	}
	maps.Copy(env, extra)
	return env
}

// start starts a process in the world, for the checks at the end.
func (w *world) start(name string, env map[string]string, args ...string) *proc {
	w.t.Helper()
	p := startProc(w.t, w.bin, name, env, args...)
	w.mu.Lock()
	w.procs = append(w.procs, p)
	w.mu.Unlock()
	return p
}

// serve starts `mailbot serve` with env and a health listener of its own,
// and waits until its socket is connected and /readyz answers 200.
func (w *world) serve(name string, env map[string]string) *proc {
	w.t.Helper()
	env = maps.Clone(env)
	env["MAILBOT_HTTP_ADDR"] = freeAddr(w.t)
	before := w.fake.Socket.ConnIDs()
	p := w.start(name, env, "serve")
	err := w.fake.Wait(e2eWait, name+" connected and ready", func() bool {
		for _, id := range w.fake.Socket.ConnIDs() {
			if !slices.Contains(before, id) {
				p.conn = id
			}
		}
		return !p.running() || p.conn != 0 && httpStatus(p.http+"/readyz") == http.StatusOK
	})
	if err != nil || !p.running() {
		w.t.Fatalf("%s did not come up (%v, running %v); stderr:\n%s", name, err, p.running(), tail(p.stderr.String(), 4000))
	}
	return p
}

// serveTogether starts one `mailbot serve` per name at once (their
// migrations race, as replicas of a rollout do) and waits until every
// one is connected and ready. Which connection is whose is not known:
// the conns are handed out in order, which spreads work over the
// replicas all the same.
func (w *world) serveTogether(env map[string]string, names ...string) []*proc {
	w.t.Helper()
	before := w.fake.Socket.ConnIDs()
	var ps []*proc
	for _, name := range names {
		e := maps.Clone(env)
		e["MAILBOT_HTTP_ADDR"] = freeAddr(w.t)
		ps = append(ps, w.start(name, e, "serve"))
	}
	var fresh []int
	err := w.fake.Wait(e2eWait, "every replica connected and ready", func() bool {
		fresh = slices.DeleteFunc(w.fake.Socket.ConnIDs(), func(id int) bool { return slices.Contains(before, id) })
		for _, p := range ps {
			if !p.running() || httpStatus(p.http+"/readyz") != http.StatusOK {
				return !p.running()
			}
		}
		return len(fresh) == len(ps)
	})
	for i, p := range ps {
		if err != nil || !p.running() {
			w.t.Fatalf("%s did not come up (%v, running %v); stderr:\n%s", p.name, err, p.running(), tail(p.stderr.String(), 4000))
		}
		p.conn = fresh[i]
	}
	return ps
}

// ownDomain registers domain for the bot's PDD account, as an operator
// would have done before, so that mailboxes can be added to it.
func (w *world) ownDomain(domain string) {
	w.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, w.simURL+"/api2/admin/domain/register", strings.NewReader(url.Values{"domain": {domain}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("PddToken", w.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), `"success":"ok"`) {
		w.t.Fatalf("registering %s in the sandbox: %s", domain, body)
	}
}

// check runs when the scenario ends: Slack refused nothing, and no secret
// shows in public or in a process's output.
func (w *world) check() {
	t := w.t
	for _, r := range w.fake.Rejected() {
		t.Errorf("Slack would refuse a %s (%s): %q", r.Method, r.Error, r.Problems)
	}
	texts := w.fake.Texts()
	secrets := w.rec.secrets()
	for _, s := range secrets {
		if n := countContaining(texts.Public, s.value); n > 0 {
			t.Errorf("the %s of %s is in %d public texts", s.kind, s.target, n)
		}
	}
	never := append([]string{slackfake.AppToken, slackfake.BotToken, w.token}, w.extra...)
	w.mu.Lock()
	procs := slices.Clone(w.procs)
	w.mu.Unlock()
	for _, p := range procs {
		out := p.stdout.String() + p.stderr.String()
		if p.cmd.Args[len(p.cmd.Args)-1] != "shell" { // the shell prints secrets to its user
			for _, s := range secrets {
				if strings.Contains(out, s.value) {
					t.Errorf("%s's output holds the %s of %s", p.name, s.kind, s.target)
				}
			}
		}
		for _, s := range never {
			if strings.Contains(out, s) {
				t.Errorf("%s's output holds a token or a database password", p.name)
			}
		}
	}
}

// countContaining counts the texts that contain s.
func countContaining(texts []string, s string) int {
	n := 0
	for _, x := range texts {
		if strings.Contains(x, s) {
			n++
		}
	}
	return n
}
