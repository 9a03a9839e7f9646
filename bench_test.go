package main

import (
	"cmp"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/google/googlesim"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/apiclient/yandex360/y360sim"
	"github.com/mailbot/mailbot/bot/slackfake"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
	"github.com/mailbot/mailbot/internal/health"
	"github.com/mailbot/mailbot/providers"
)

// The release benchmark's workload (docs/performance.md, per provider since release
// 19): a burst of burstSize `/maildomain register` at burstRate per
// second, the provider's sandbox answering each request in sandboxLatency
// over HTTPS.
const (
	burstSize      = 500
	burstRate      = 500
	sandboxLatency = 20 * time.Millisecond
	benchWait      = time.Minute // bounds every wait of one run
)

// buildRelease builds mailbot with the Dockerfile's flags.
// With MAILBOT_BENCH_PROFILE set, it builds with -tags pprof
// (pprof.go: /debug/pprof/ on the health listener) and each run writes its
// profiles there: see [writeProfiles].
func buildRelease(tb testing.TB) string {
	tb.Helper()
	if os.Getenv(profileDirVar) != "" {
		return buildStripped(tb, ".", "pprof")
	}
	return buildStripped(tb, ".")
}

// buildStripped builds the main package pkg as the Dockerfile builds
// mailbot (static, -trimpath, stripped), with the build tags given.
func buildStripped(tb testing.TB, pkg string, tags ...string) string {
	tb.Helper()
	name := filepath.Base(pkg)
	if pkg == "." {
		name = "mailbot"
	}
	bin, ldflags := filepath.Join(tb.TempDir(), name), "-s -w"
	if dir := os.Getenv(symbolsVar); dir != "" {
		bin, ldflags = filepath.Join(dir, name), ""
	}
	args := []string{"build", "-trimpath", "-ldflags", ldflags, "-o", bin}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// symbolsVar, when it names a directory, has the benchmarks build their
// binaries there with the symbol table and DWARF kept, for `perf record -a
// -g` beside them and `perf report` after (perf reads no Go symbols from a
// stripped binary); the binary-MB figure then counts them too.
const symbolsVar = "MAILBOT_BENCH_SYMBOLS"

// procKB reads a field such as VmRSS or VmHWM of /proc/<pid>/status, in kB.
func procKB(pid int, field string) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return n
		}
	}
	return 0
}

// procCPU is the user and system CPU time of process pid so far, from
// /proc/<pid>/stat (in clock ticks of 10 ms).
func procCPU(pid int) (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	_, rest, ok := strings.Cut(string(raw), ") ") // the command name may hold spaces
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, raw)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // fields 14 and 15 of stat(5)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

// burstResult is what one run of the release binary measured.
type burstResult struct {
	acks           []time.Duration // per command, as the fake Slack sees it
	last           time.Duration   // from the first command to the last result
	cpu            time.Duration   // the process's CPU time during the burst
	idleKB, peakKB float64         // VmRSS once connected, VmHWM after the burst
	tlsConns       int64           // connections the sandbox accepted during the burst
	requests       int64           // API requests the sandbox received during the burst
	tokens         int64           // OAuth token requests, start-up included
	startup        time.Duration   // from exec to ready
	allocBytes     float64         // bytes allocated during the burst
	gcs            float64         // garbage collections during the burst
	counted        bool            // allocBytes and gcs were read: a Go binary, with its /metrics
}

// BenchmarkRelease runs the release binary (built as the Dockerfile builds
// it) against the fake Slack and each provider's sandbox served over HTTPS
// on loopback with 20 ms latency (the sandbox's own latency control), sends
// 500 `/maildomain register` at 500/s, and reports the ack latency (p50,
// p99), the time to the last of the 500 results, the CPU time of the
// mailbot process during the burst, its idle and peak RSS, the new TLS
// connections to the sandbox and its API requests per command during the
// burst, and the binary's size; and, from its /metrics, the bytes it
// allocated per command and its garbage collections during the burst. Each run is a fresh process, so the burst
// meets empty connection pools.
// Sub-benchmarks: per provider (each of benchProviders), the default
// concurrency (8), 32, and the default with PostgreSQL
// (MAILBOT_DATABASE_URL); for PDD also the default with a second provider
// routed (MAILBOT_ROUTES, routeSecond). Every result and every ops notification must
// arrive, or the benchmark fails.
//
//	go test -run XXX -bench Release -benchtime 1x .
func BenchmarkRelease(b *testing.B) {
	bin := buildRelease(b)
	for _, p := range benchProviders {
		for _, tc := range []struct {
			name        string
			concurrency string // MAILBOT_CONCURRENCY; empty: the default
			db          bool
			routes      bool // a second provider (mailcow) routed a domain the burst never names
		}{
			{"concurrency=8", "", false, false},
			{"concurrency=32", "32", false, false},
			{"concurrency=8,db", "", true, false},
			{"concurrency=8,routes", "", false, true},
		} {
			if tc.routes && p.name != apiclient.ProviderPDD {
				continue
			}
			b.Run(p.name+"/"+tc.name, func(b *testing.B) {
				benchBursts(b, bin, p, func() map[string]string {
					env := map[string]string{}
					if tc.concurrency != "" {
						env["MAILBOT_CONCURRENCY"] = tc.concurrency
					}
					if tc.db {
						env["MAILBOT_DATABASE_URL"] = pgtest.NewDatabase(b)
					}
					if tc.routes {
						routeSecond(b, env)
					}
					return env
				})
			})
		}
	}
}

// benchProvider is one provider's burst: the sandbox that answers it and
// what shows in a result that registered a domain.
type benchProvider struct {
	name       string // MAILBOT_PROVIDER, and newSandbox's provider
	domains    int    // the distinct domains the burst's registers cycle through
	registered string // in the result of every register that worked, beside the domain
}

// benchProviders are the providers of BenchmarkRelease. PDD's sandbox
// allows an account pddsim.DomainLimit domains, and registering one's own
// domain again succeeds, so its burst registers those again and again; the
// other sandboxes have no limit, and mailcow refuses a domain it has
// (domain_exists), so theirs registers 500 new domains. The first is the
// floor's provider.
var benchProviders = []benchProvider{
	{apiclient.ProviderPDD, pddsim.DomainLimit, string(pddsim.StatusDomainActivate)},
	{apiclient.ProviderYandex360, burstSize, y360sim.StatusNeedValidation},
	{apiclient.ProviderMailcow, burstSize, "does not verify who owns a domain"},
	{apiclient.ProviderGoogle, burstSize, "not verified"},
	{apiclient.ProviderM365, burstSize, "not verified"},
}

// BenchmarkFloor runs the same burst, measured the same way, against the
// yardstick of docs/performance.md: testdata/floor, the leanest Socket Mode bot for
// the job (ack, register at the PDD sandbox over HTTPS, post the answer to response_url and a
// line to the ops channel), built as mailbot is. "slack-go" links only
// slack-go and the standard library; "slack-go+libs" also links and uses
// zap, envconfig, go-password (the design card's required libraries) and
// pgx's pool (pgxpool). mailbot's figures less these are what mailbot itself costs.
//
//	go test -run XXX -bench Floor -benchtime 1x .
func BenchmarkFloor(b *testing.B) {
	for _, tc := range []struct {
		name string
		tags []string
	}{
		{"slack-go", nil},
		{"slack-go+libs", []string{"libs"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			bin := buildStripped(b, "./testdata/floor", tc.tags...)
			benchBursts(b, bin, benchProviders[0], func() map[string]string { return map[string]string{} })
		})
	}
}

// benchBursts runs b.N bursts against bin and p's sandbox, a fresh process
// each with env() added to its configuration, and reports their figures
// and bin's size.
func benchBursts(b *testing.B, bin string, p benchProvider, env func() map[string]string) {
	b.Helper()
	st, err := os.Stat(bin)
	if err != nil {
		b.Fatal(err)
	}
	var all burstResult
	for range b.N {
		r := runBurst(b, bin, p, env())
		all.acks = append(all.acks, r.acks...)
		all.last += r.last
		all.cpu += r.cpu
		all.idleKB += r.idleKB
		all.peakKB += r.peakKB
		all.tlsConns += r.tlsConns
		all.requests += r.requests
		all.tokens += r.tokens
		all.startup += r.startup
		all.allocBytes += r.allocBytes
		all.gcs += r.gcs
		all.counted = r.counted
	}
	n := float64(b.N)
	slices.Sort(all.acks)
	b.ReportMetric(float64(all.acks[len(all.acks)/2].Microseconds())/1000, "ack-p50-ms")
	b.ReportMetric(float64(all.acks[len(all.acks)*99/100].Microseconds())/1000, "ack-p99-ms")
	b.ReportMetric(all.last.Seconds()/n, "last-result-s")
	b.ReportMetric(all.cpu.Seconds()/n, "cpu-s")
	b.ReportMetric(all.idleKB/1024/n, "idle-RSS-MiB")
	b.ReportMetric(all.peakKB/1024/n, "peak-RSS-MiB")
	b.ReportMetric(float64(all.tlsConns)/n, "tls-conns")
	b.ReportMetric(float64(all.requests)/burstSize/n, "provider-reqs/cmd")
	b.ReportMetric(float64(all.tokens)/n, "token-reqs/run")
	b.ReportMetric(float64(all.startup.Microseconds())/1000/n, "startup-ms")
	if all.counted {
		b.ReportMetric(all.allocBytes/1024/burstSize/n, "alloc-KiB/cmd")
		b.ReportMetric(all.gcs/n, "GCs")
		b.ReportMetric(float64(st.Size())/1e6, "binary-MB")
	}
}

// runBurst runs bin once against a new fake Slack and a new sandbox of p
// with env added to its configuration: it measures the idle process, sends
// the burst, waits for every acknowledgement, result and ops notification,
// measures again and stops the process.
func runBurst(b *testing.B, bin string, p benchProvider, env map[string]string) burstResult {
	b.Helper()
	fake := slackfake.New()
	defer fake.Close()
	sim := tlsSandbox(b, p.name)
	defer sim.close()
	for _, kv := range sim.vars {
		env[kv[0]] = kv[1]
	}
	ca := sim.caFile
	if extra, ok := env["SSL_CERT_FILE"]; ok { // a second provider's authority (routeSecond)
		ca = joinPEM(b, sim.caFile, extra)
	}
	env["SSL_CERT_FILE"], env["MAILBOT_PROVIDER"] = ca, p.name
	pid, base, startup, stop := startRelease(b, bin, fake, env)
	defer stop()
	var r burstResult
	r.startup = startup
	r.idleKB = idleRSS(pid)
	saveSmaps(b, pid, base)
	cpu0, err := procCPU(pid)
	if err != nil {
		b.Fatal(err)
	}
	alloc0, gc0, counted := runtimeCounters(b, base)
	cpuProfile := writeProfiles(b, base)
	sim.conns.Store(0)
	sim.requests.Store(0)
	start := time.Now()
	ids := sendBurst(b, fake, p.domains)
	for j, id := range ids {
		ack, err := fake.Socket.WaitAck(id, benchWait)
		if err != nil {
			b.Fatal(err)
		}
		r.acks = append(r.acks, ack.At.Sub(ack.Sent))
		posts, err := fake.WaitPosts(id, 1, benchWait)
		if err != nil {
			b.Fatal(err)
		}
		if domain := burstDomain(j, p.domains); !strings.Contains(posts[0].Raw, domain) || !strings.Contains(posts[0].Raw, p.registered) {
			b.Fatalf("command %s: the result is not %s registered (%q):\n%s", id, domain, p.registered, posts[0].Raw)
		}
		r.last = max(r.last, posts[0].At.Sub(start))
	}
	if _, err := fake.WaitCalls("chat.postMessage", len(ids), benchWait); err != nil {
		b.Fatalf("ops notifications: %v", err)
	}
	cpu1, err := procCPU(pid)
	if err != nil {
		b.Fatal(err)
	}
	r.cpu, r.peakKB = cpu1-cpu0, procKB(pid, "VmHWM")
	r.tlsConns, r.requests, r.tokens = sim.conns.Load(), sim.requests.Load(), sim.tokens.Load()
	alloc1, gc1, _ := runtimeCounters(b, base)
	r.allocBytes, r.gcs, r.counted = alloc1-alloc0, gc1-gc0, counted
	cpuProfile()
	return r
}

// profileDirVar names the directory where BenchmarkRelease writes each
// run's profiles; unset, it writes none and builds the release binary.
const profileDirVar = "MAILBOT_BENCH_PROFILE"

// profileSeconds is the CPU profile's window from the burst's first command.
const profileSeconds = 4

// writeProfiles, when profileDirVar is set, writes the idle process's heap
// profile (<benchmark>-heap.pprof) and starts a CPU profile of the next
// profileSeconds (<benchmark>-cpu.pprof); wait waits for the latter and
// writes the heap profile after the burst (<benchmark>-heap-after.pprof:
// with -diff_base the idle one, its alloc_space is what the burst
// allocated).
// Read them with `go tool pprof -top <file>`.
func writeProfiles(b *testing.B, base string) (wait func()) {
	b.Helper()
	dir := os.Getenv(profileDirVar)
	if dir == "" {
		return func() {}
	}
	name := filepath.Join(dir, strings.NewReplacer("/", "_", "=", "").Replace(b.Name()))
	saveProfile(b, base+"/debug/pprof/heap", name+"-heap.pprof")
	done := make(chan struct{})
	go func() {
		defer close(done)
		saveProfile(b, base+"/debug/pprof/profile?seconds="+strconv.Itoa(profileSeconds), name+"-cpu.pprof")
	}()
	return func() {
		<-done
		saveProfile(b, base+"/debug/pprof/heap", name+"-heap-after.pprof")
	}
}

// saveProfile writes the body of GET url to file.
func saveProfile(b *testing.B, url, file string) {
	resp, err := http.Get(url)
	if err != nil {
		b.Error(err)
		return
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if err == nil {
		err = os.WriteFile(file, raw, 0o644)
	}
	if err != nil {
		b.Error(err)
	}
}

// runtimeCounters scrapes the process's /metrics for the bytes allocated
// and the garbage collections so far; ok is false for a process that
// serves no /metrics (404: the Bolt yardstick, which has no Go runtime).
func runtimeCounters(b *testing.B, base string) (allocBytes, gcs float64, ok bool) {
	b.Helper()
	status, _, body := fetch(b, http.MethodGet, base+health.MetricsPath)
	if status == http.StatusNotFound {
		return 0, 0, false
	}
	values := make(map[string]float64)
	for line := range strings.SplitSeq(body, "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			values[f[0]], _ = strconv.ParseFloat(f[1], 64)
		}
	}
	allocBytes, ok1 := values["go_memstats_alloc_bytes_total"]
	gcs, ok2 := values["go_gc_duration_seconds_count"]
	if !ok1 || !ok2 {
		b.Fatalf("/metrics lacks go_memstats_alloc_bytes_total or go_gc_duration_seconds_count")
	}
	return allocBytes, gcs, true
}

// sendBurst sends burstSize registers at burstRate per second, of the
// first domains names of burstDomain, round and round.
func sendBurst(b *testing.B, fake *slackfake.Server, domains int) []string {
	b.Helper()
	ids := make([]string, 0, burstSize)
	tick := time.NewTicker(time.Second / burstRate)
	defer tick.Stop()
	for j := range burstSize {
		id, err := fake.SlashCommand("UADMIN1", "CGENERAL", "/maildomain", "register "+burstDomain(j, domains))
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, id)
		<-tick.C
	}
	return ids
}

// burstDomain is the domain the burst's command j registers, of the first
// domains names.
func burstDomain(j, domains int) string { return fmt.Sprintf("b%03d.example.com", j%domains) }

// smapsDirVar names a directory where each run of BenchmarkRelease and
// BenchmarkFloor saves the idle process's /proc/<pid>/smaps
// (<benchmark>-smaps.txt: which mappings the idle RSS is made of), its
// resident pages of the executable (<benchmark>-present.txt, savePresent)
// and its /metrics (<benchmark>-metrics.txt: the runtime's memory).
const smapsDirVar = "MAILBOT_BENCH_SMAPS"

// saveSmaps copies pid's smaps to the directory of smapsDirVar, if set.
func saveSmaps(b *testing.B, pid int, base string) {
	dir := os.Getenv(smapsDirVar)
	if dir == "" {
		return
	}
	name := filepath.Join(dir, strings.NewReplacer("/", "_", "=", "").Replace(b.Name()))
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err == nil {
		err = os.WriteFile(name+"-smaps.txt", raw, 0o644)
	}
	if err == nil {
		err = savePresent(pid, name+"-present.txt")
	}
	if err == nil {
		_, _, body := fetch(b, http.MethodGet, base+health.MetricsPath)
		err = os.WriteFile(name+"-metrics.txt", []byte(body), 0o644)
	}
	if err != nil {
		b.Error(err)
	}
}

// savePresent writes to file the address of every page of pid's
// executable that is resident (bit 63 of /proc/<pid>/pagemap), one a line
// in hex: with `go tool nm -size` of the same build unstripped, which
// packages' code and tables the idle RSS holds.
func savePresent(pid int, file string) error {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return err
	}
	pm, err := os.Open(fmt.Sprintf("/proc/%d/pagemap", pid))
	if err != nil {
		return err
	}
	defer func() { _ = pm.Close() }()
	var out strings.Builder
	for line := range strings.SplitSeq(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || !strings.HasSuffix(f[5], "mailbot") && !strings.HasSuffix(f[5], "floor") {
			continue
		}
		lo, hi, _ := strings.Cut(f[0], "-")
		a, _ := strconv.ParseUint(lo, 16, 64)
		z, _ := strconv.ParseUint(hi, 16, 64)
		buf := make([]byte, (z-a)/4096*8)
		if _, err := pm.ReadAt(buf, int64(a/4096*8)); err != nil {
			return err
		}
		for i := 0; i < len(buf); i += 8 {
			if buf[i+7]&0x80 != 0 {
				fmt.Fprintf(&out, "%x\n", a+uint64(i/8)*4096)
			}
		}
	}
	return os.WriteFile(file, []byte(out.String()), 0o644)
}

// idleRSS is the process's VmRSS, in kB, once it has been ready and idle
// for half a second.
func idleRSS(pid int) float64 {
	<-time.After(500 * time.Millisecond) // a measurement window, not a synchronisation
	return procKB(pid, "VmRSS")
}

// benchSandbox is a provider's sandbox served for one burst.
type benchSandbox struct {
	vars     [][2]string  // the variables that point mailbot at it
	caFile   string       // the PEM file of its certificate's authority, for SSL_CERT_FILE
	conns    atomic.Int64 // connections it accepted
	requests atomic.Int64 // API requests it received (its /sim/ controls aside)
	tokens   atomic.Int64 // OAuth token requests it received (Google's, Microsoft 365's), start-up included
	handler  http.Handler // the sandbox itself, for its /sim/ controls
	close    func()
}

// tlsSandbox serves provider's sandbox, as `mailbot sim --tls` does, set
// to answer in sandboxLatency by its /sim/latency control, over HTTPS on
// loopback with a certificate of its own authority.
func tlsSandbox(b *testing.B, provider string) *benchSandbox {
	b.Helper()
	sb, err := providers.NewSandbox(provider)
	if err != nil {
		b.Fatal(err)
	}
	set := httptest.NewRecorder()
	sb.Handler.ServeHTTP(set, httptest.NewRequest(http.MethodPost, "/sim/latency?d="+sandboxLatency.String(), nil))
	if set.Code != http.StatusOK {
		b.Fatalf("%s sandbox: POST /sim/latency: %d %s", provider, set.Code, set.Body)
	}
	bs := &benchSandbox{handler: sb.Handler}
	var tlsCfg *tls.Config
	bs.caFile, tlsCfg, err = simTLS("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/sim/") {
			bs.requests.Add(1)
		}
		if r.URL.Path == googlesim.TokenPath || strings.HasSuffix(r.URL.Path, "/oauth2/v2.0/token") {
			bs.tokens.Add(1)
		}
		sb.Handler.ServeHTTP(w, r)
	}))
	srv.TLS = tlsCfg
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			bs.conns.Add(1)
		}
	}
	srv.StartTLS()
	bs.vars = sb.Vars(srv.URL)
	bs.close = func() {
		srv.Close()
		_ = os.Remove(bs.caFile)
	}
	return bs
}

// routeSecond adds a second provider to env: the mailcow sandbox, over
// HTTPS with 20 ms latency like the first, routed a domain the burst never
// names (MAILBOT_ROUTES), so that the burst measures what configuring a
// second provider costs the first one's commands. Its authority goes in
// SSL_CERT_FILE, which runBurst joins to the first's.
func routeSecond(b *testing.B, env map[string]string) {
	b.Helper()
	other := tlsSandbox(b, apiclient.ProviderMailcow)
	b.Cleanup(other.close)
	for _, kv := range other.vars {
		env[kv[0]] = kv[1]
	}
	env["MAILBOT_ROUTES"] = "old.example=" + apiclient.ProviderMailcow
	env["SSL_CERT_FILE"] = other.caFile
}

// joinPEM writes the PEM files into one, for SSL_CERT_FILE.
func joinPEM(b *testing.B, files ...string) string {
	b.Helper()
	var all []byte
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, raw...)
	}
	path := filepath.Join(b.TempDir(), "ca.pem")
	if err := os.WriteFile(path, all, 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

// startRelease starts bin as `mailbot serve` against fake with env added
// to the configuration, and waits until /readyz answers 200 on base, the
// URL of its health and metrics listener. stop sends SIGTERM and fails b
// unless the process exits 0.
func startRelease(b *testing.B, bin string, fake *slackfake.Server, env map[string]string) (pid int, base string, startup time.Duration, stop func()) {
	b.Helper()
	httpAddr := cmp.Or(env["MAILBOT_HTTP_ADDR"], freeAddr(b))
	cmd := exec.Command(bin, "serve")
	cmd.Env = []string{"SLACK_APP_TOKEN=" + slackfake.AppToken, "SLACK_BOT_TOKEN=" + slackfake.BotToken,
		"SLACK_API_URL=" + fake.URL, "MAILBOT_ADMINS=UADMIN1", "MAILBOT_OPS_CHANNEL=COPS", "MAILBOT_HTTP_ADDR=" + httpAddr}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop = func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				b.Errorf("mailbot after SIGTERM: %v; log tail:\n%s", err, logTail(stderr.String()))
			}
		case <-time.After(benchWait):
			_ = cmd.Process.Kill()
			b.Errorf("mailbot did not exit after SIGTERM")
		}
	}
	base = "http://" + httpAddr
	ready := func() bool { return httpStatus(base+health.ReadyzPath) == http.StatusOK }
	if err := fake.Wait(benchWait, "mailbot ready", ready); err != nil {
		stop()
		b.Fatalf("%v; log tail:\n%s", err, logTail(stderr.String()))
	}
	return cmd.Process.Pid, base, time.Since(begin), stop
}

// logTail is the end of a process's log.
func logTail(s string) string { return s[max(0, len(s)-2000):] }
