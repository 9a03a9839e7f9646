package manifests_test

// The monitoring assets beside the manifests: the PodMonitor against the
// pods it must scrape, and the PrometheusRule's alerts checked against the
// metrics table of docs/metrics.md (read by metrics_test.go's
// documentedMetrics) and run by Prometheus' own promtool on synthetic
// series.

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mailbot/mailbot/internal/health"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/yaml"
)

const (
	monitoringDir  = "kubernetes/monitoring"
	alertTestsPath = "testdata/monitoring/alerts_test.yaml"
	operationsDoc  = "docs/operations.md"
	// runbookBase is where each alert's runbook_url points, before the
	// section's anchor.
	runbookBase = "https://github.com/mailbot/mailbot/blob/main/" + operationsDoc + "#"
)

// wantAlerts are the alerts an operator needs, each kept by a test case in
// alertTestsPath.
var wantAlerts = []string{
	"MailbotDatabaseUnavailable",
	"MailbotDown",
	"MailbotProviderCredentialsRefused",
	"MailbotProviderErrorsRising",
	"MailbotResultsUndelivered",
	"MailbotSocketDisconnected",
}

// scrapeLabels are the labels Prometheus gives every series it scrapes
// through the PodMonitor, besides the series' own (the Prometheus
// Operator's relabelling of a PodMonitor's targets): they are not in
// metricsDoc's table, which lists what mailbot writes.
var scrapeLabels = []string{"job", "instance", "namespace", "pod", "container", "endpoint"}

// scrapeSeries are the series Prometheus writes itself for every target it
// scrapes, with scrapeLabels alone. The alerts may read them too.
var scrapeSeries = []string{"up"}

// TestManifestMonitoringBuilds builds the monitoring kustomization and
// checks that it holds the PodMonitor and the PrometheusRule, with the
// recommended labels.
func TestManifestMonitoringBuilds(t *testing.T) {
	t.Parallel()
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(manifestsFS(t), monitoringDir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", monitoringDir, err)
	}
	var kinds []string
	for _, r := range res.Resources() {
		kinds = append(kinds, r.GetKind())
		for _, k := range []string{"name", "instance", "part-of"} {
			if got := r.GetLabels()["app.kubernetes.io/"+k]; got != "mailbot" {
				t.Errorf("%s: label app.kubernetes.io/%s = %q, want mailbot", r.CurId(), k, got)
			}
		}
	}
	slices.Sort(kinds)
	if diff := cmp.Diff([]string{"PodMonitor", "PrometheusRule"}, kinds); diff != "" {
		t.Errorf("%s builds (-want +got):\n%s", monitoringDir, diff)
	}
}

// TestManifestPodMonitor checks that the PodMonitor scrapes the pods of both
// kustomizations, on their http port and the server's metrics path.
func TestManifestPodMonitor(t *testing.T) {
	t.Parallel()
	var pm monitoringv1.PodMonitor
	readYAMLStrict(t, filepath.Join(monitoringDir, "podmonitor.yaml"), &pm)
	sel, err := metav1.LabelSelectorAsSelector(&pm.Spec.Selector)
	if err != nil || sel.Empty() {
		t.Fatalf("PodMonitor selector %v: want a non-empty selector (%v)", pm.Spec.Selector, err)
	}
	if len(pm.Spec.PodMetricsEndpoints) != 1 {
		t.Fatalf("PodMonitor has %d endpoints, want 1", len(pm.Spec.PodMetricsEndpoints))
	}
	if _, ok := podMonitorJob(pm); !ok {
		t.Errorf("PodMonitor jobLabel %q is not a label of its selector %v: the job of its series would depend on the namespace and the object's name, which MailbotDown cannot know",
			pm.Spec.JobLabel, pm.Spec.Selector.MatchLabels)
	}
	ep := pm.Spec.PodMetricsEndpoints[0]
	forEachVariant(t, func(t *testing.T, b kubeBuild) {
		if !sel.Matches(labels.Set(b.deploy.Spec.Template.Labels)) {
			t.Errorf("PodMonitor selector %v does not select the pods %v", sel, b.deploy.Spec.Template.Labels)
		}
		named := slices.ContainsFunc(b.container.Ports, func(p corev1.ContainerPort) bool { return ep.Port != nil && p.Name == *ep.Port })
		if !named {
			t.Errorf("PodMonitor port %s is not a port of the container: %+v", ptrString(ep.Port), b.container.Ports)
		}
	})
	if ep.Path != health.MetricsPath {
		t.Errorf("PodMonitor path %q, want %q", ep.Path, health.MetricsPath)
	}
}

// TestManifestAlerts checks every alert's summary and runbook, and that its
// expression reads only series, labels and label values that metricsDoc's
// table (or the scrape) provides, then has promtool check the rules and run
// the tests in alertTestsPath, which must fire each alert and keep it quiet
// at least once.
func TestManifestAlerts(t *testing.T) {
	t.Parallel()
	var pr monitoringv1.PrometheusRule
	readYAMLStrict(t, filepath.Join(monitoringDir, "prometheusrule.yaml"), &pr)
	alerts := checkAlertAnnotations(t, pr)
	var pm monitoringv1.PodMonitor
	readYAMLStrict(t, filepath.Join(monitoringDir, "podmonitor.yaml"), &pm)
	job, _ := podMonitorJob(pm) // TestManifestPodMonitor fails without one
	vocab := alertVocabulary(documentedMetrics(t), job)
	for _, g := range pr.Spec.Groups {
		for _, r := range g.Rules {
			for _, p := range exprProblems(r.Expr.String(), vocab) {
				t.Errorf("alert %s: %s", r.Alert, p)
			}
		}
	}
	if diff := cmp.Diff(wantAlerts, alerts); diff != "" {
		t.Errorf("alerts differ from those an operator needs (-want +got):\n%s", diff)
	}
	checkAlertTestsCover(t, alerts)

	promtool := promtoolPath(t)
	dir := t.TempDir()
	rules, err := yaml.Marshal(struct {
		Groups []monitoringv1.RuleGroup `json:"groups"`
	}{pr.Spec.Groups})
	if err != nil {
		t.Fatal(err)
	}
	tests, err := os.ReadFile(alertTestsPath)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "rules.yaml"), rules)
	writeFile(t, filepath.Join(dir, "alerts_test.yaml"), tests)
	runPromtool(t, dir, promtool, "check", "rules", "rules.yaml")
	runPromtool(t, dir, promtool, "test", "rules", "alerts_test.yaml")
}

// checkAlertAnnotations checks that each alert has a summary and a runbook
// that leads to its section of the operations guide, and returns the
// alerts' names, sorted.
func checkAlertAnnotations(t *testing.T, pr monitoringv1.PrometheusRule) []string {
	t.Helper()
	doc, err := os.ReadFile(fromRoot(operationsDoc))
	if err != nil {
		t.Fatal(err)
	}
	var alerts []string
	for _, g := range pr.Spec.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			alerts = append(alerts, r.Alert)
			if r.Annotations["summary"] == "" {
				t.Errorf("alert %s has no summary", r.Alert)
			}
			if got, want := r.Annotations["runbook_url"], runbookBase+strings.ToLower(r.Alert); got != want {
				t.Errorf("alert %s: runbook_url %q, want %q", r.Alert, got, want)
			}
			if !regexp.MustCompile(`(?m)^#+ ` + regexp.QuoteMeta(r.Alert) + `\s*$`).Match(doc) {
				t.Errorf("%s has no section headed %s, which its runbook_url names", operationsDoc, r.Alert)
			}
			if r.Labels["severity"] == "" {
				t.Errorf("alert %s has no severity label", r.Alert)
			}
		}
	}
	slices.Sort(alerts)
	return alerts
}

// podMonitorJob is the job label of the series pm scrapes, when pm sets it
// from a pod label its selector requires (jobLabel), so that every pod it
// scrapes carries it. Otherwise the operator names the job
// "<namespace>/<pm's name>", which the manifests cannot know.
func podMonitorJob(pm monitoringv1.PodMonitor) (string, bool) {
	job, ok := pm.Spec.Selector.MatchLabels[pm.Spec.JobLabel]
	return job, ok && pm.Spec.JobLabel != ""
}

// alertVocabulary is what an alert's expression may read, by series name:
// each series' label names and, by label, the values it takes (nil: any).
// mailbot's series, and their labels and values, come from metricsDoc's
// table (a histogram as its _bucket, with le, _sum and _count series), each
// with scrapeLabels too; scrapeSeries have scrapeLabels alone. job is the
// PodMonitor's job, the one value the job label takes ("": any).
func alertVocabulary(doc map[string]docFamily, job string) map[string]map[string][]string {
	scrape := make(map[string][]string)
	for _, l := range scrapeLabels {
		scrape[l] = nil
	}
	if job != "" {
		scrape["job"] = []string{job}
	}
	vocab := make(map[string]map[string][]string)
	add := func(name string, own map[string][]string, extra ...string) {
		labels := maps.Clone(scrape)
		maps.Copy(labels, own)
		for _, l := range extra {
			labels[l] = nil
		}
		vocab[name] = labels
	}
	for name, f := range doc {
		if f.Kind == "histogram" {
			add(name+"_bucket", f.Labels, "le")
			add(name+"_sum", f.Labels)
			add(name+"_count", f.Labels)
			continue
		}
		add(name, f.Labels)
	}
	for _, name := range scrapeSeries {
		add(name, nil)
	}
	return vocab
}

// promqlToken splits a PromQL expression into tokens: comments, strings,
// names (metrics, labels, functions, keywords), numbers and durations, and
// operators. Enough to find the selectors and the label lists in it, not a
// parser: the promtool run checks the syntax.
var promqlToken = regexp.MustCompile(`#[^\n]*|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`" +
	`|[A-Za-z_:][\w:]*|[0-9.][\w.]*|=~|!~|!=|==|<=|>=|\S`)

// promqlLabelLists are the keywords followed by a list of label names.
var promqlLabelLists = map[string]bool{"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true}

// promqlKeywords are the other names that are neither series nor functions.
var promqlKeywords = map[string]bool{"and": true, "or": true, "unless": true, "bool": true, "offset": true, "atan2": true, "inf": true, "nan": true}

var promqlName = regexp.MustCompile(`^[A-Za-z_:][\w:]*$`)

// exprProblems reads expr's selectors and label lists and returns what in
// them vocab does not have: a series, a label name matched on a series or
// listed after by, without, on, ignoring, group_left or group_right (which
// must be a label of a series the expression reads), and a label value
// matched with = or != (for =~ and !~, each alternative of a regular
// expression that is a list of values, or else at least one value the
// expression matches) where the label takes only listed values.
func exprProblems(expr string, vocab map[string]map[string][]string) []string {
	var toks []string
	for _, tok := range promqlToken.FindAllString(expr, -1) {
		if !strings.HasPrefix(tok, "#") {
			toks = append(toks, tok)
		}
	}
	next := func(i int) string {
		if i+1 < len(toks) {
			return toks[i+1]
		}
		return ""
	}
	var problems, grouped []string
	read := make(map[string]bool) // the label names of the series read
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		switch {
		case tok == "[": // a range or a subquery: durations only
			for i < len(toks) && toks[i] != "]" {
				i++
			}
		case tok == "{":
			problems = append(problems, fmt.Sprintf("a selector without a series name: %s", expr))
			i = skipTo(toks, i, "}")
		case promqlName.MatchString(tok):
			lower := strings.ToLower(tok)
			switch {
			case promqlLabelLists[lower] && next(i) == "(":
				end := skipTo(toks, i+1, ")")
				for _, l := range toks[i+2 : end] {
					if l != "," {
						grouped = append(grouped, l)
					}
				}
				i = end
			case promqlLabelLists[lower] || promqlKeywords[lower] || next(i) == "(" ||
				strings.EqualFold(next(i), "by") || strings.EqualFold(next(i), "without"): // a function or an aggregation
			default:
				labels, ok := vocab[tok]
				if !ok {
					problems = append(problems, fmt.Sprintf("reads %s, which neither %s's table lists nor Prometheus writes for a scrape", tok, metricsDoc))
				}
				for l := range labels {
					read[l] = true
				}
				if next(i) == "{" {
					end := skipTo(toks, i+1, "}")
					if ok {
						problems = append(problems, matcherProblems(tok, toks[i+2:end], labels)...)
					}
					i = end
				}
			}
		}
	}
	for _, l := range grouped {
		if !read[l] {
			problems = append(problems, fmt.Sprintf("groups or matches on %s, which no series it reads has (%s's table and the scrape's labels)", l, metricsDoc))
		}
	}
	return problems
}

// skipTo is the index of the first tok from i on, or len(toks).
func skipTo(toks []string, i int, tok string) int {
	for i < len(toks) && toks[i] != tok {
		i++
	}
	return i
}

// matcherProblems checks the label matchers of a selector of series (the
// tokens between its braces) against its labels.
func matcherProblems(series string, toks []string, labels map[string][]string) []string {
	var problems []string
	for m := range slices.Chunk(slices.DeleteFunc(slices.Clone(toks), func(s string) bool { return s == "," }), 3) {
		if len(m) != 3 {
			problems = append(problems, fmt.Sprintf("%s{%s}: cannot read the matchers", series, strings.Join(toks, "")))
			break
		}
		label, op, value := m[0], m[1], m[2]
		values, ok := labels[label]
		if !ok {
			problems = append(problems, fmt.Sprintf("matches %s on %s, a label it does not have (%s's table, the scrape's labels)", series, label, metricsDoc))
			continue
		}
		v, err := strconv.Unquote(value)
		if err != nil && len(value) >= 2 && value[0] == '\'' {
			v, err = value[1:len(value)-1], nil
		}
		if err != nil || values == nil {
			continue
		}
		var unknown []string
		switch op {
		case "=", "!=":
			if !slices.Contains(values, v) {
				unknown = []string{v}
			}
		case "=~", "!~":
			if regexp.QuoteMeta(strings.ReplaceAll(v, "|", "")) == strings.ReplaceAll(v, "|", "") {
				for _, alt := range strings.Split(v, "|") {
					if !slices.Contains(values, alt) {
						unknown = append(unknown, alt)
					}
				}
				break
			}
			re, err := regexp.Compile("^(?:" + v + ")$")
			if err == nil && !slices.ContainsFunc(values, re.MatchString) {
				unknown = []string{v}
			}
		}
		if len(unknown) > 0 {
			problems = append(problems, fmt.Sprintf("matches %s{%s%s%s}: %q is not among the values of %s (%s)",
				series, label, op, value, unknown, label, strings.Join(values, ", ")))
		}
	}
	return problems
}

// TestMonitoringAlertExprCheck checks exprProblems itself, on a table of
// two families: what it lets through and what it finds.
func TestMonitoringAlertExprCheck(t *testing.T) {
	t.Parallel()
	vocab := alertVocabulary(map[string]docFamily{
		"mailbot_x_total":   {Kind: "counter", Labels: map[string][]string{"outcome": {"ok", "failed"}}},
		"mailbot_y_seconds": {Kind: "histogram", Labels: map[string][]string{"op": nil}},
	}, "mailbot")
	for _, tc := range []struct {
		expr string
		want []string // a substring of each problem, in order
	}{
		{expr: `sum by (namespace, outcome) (increase(mailbot_x_total{outcome=~"ok|failed"}[15m])) > 0`},
		{expr: `sum(increase(mailbot_x_total{outcome!='failed'}[15m:1m] offset 5m)) without (pod) >= 1e3`},
		{expr: `histogram_quantile(0.99, sum by (le, op) (rate(mailbot_y_seconds_bucket[5m]))) > 1`},
		{expr: "avg_over_time(up{job=\"mailbot\"}[5m]) < 0.5\nor\nabsent(up{job=`mailbot`})"},
		{expr: `mailbot_x_total / on (namespace, pod) group_left mailbot_y_seconds_count`},
		{expr: `label_replace(mailbot_x_total, "dst", "$1", "outcome", "(.*)") # by (nothing)`},
		{expr: `mailbot_x_total{outcome=~"f.*"}`},
		{expr: `mailbot_z_total > 0`, want: []string{"reads mailbot_z_total"}},
		{expr: `rate(mailbot_y_seconds[5m])`, want: []string{"reads mailbot_y_seconds,"}},
		{expr: `sum by (namespace, provider) (mailbot_x_total)`, want: []string{"on provider"}},
		{expr: `sum by (le) (rate(mailbot_y_seconds_sum[5m]))`, want: []string{"on le"}},
		{expr: `mailbot_x_total * on (namespace) group_left (provider) up`, want: []string{"on provider"}},
		{expr: `mailbot_x_total{reason="x"}`, want: []string{"matches mailbot_x_total on reason"}},
		{expr: `up{outcome="ok"}`, want: []string{"matches up on outcome"}},
		{expr: `mailbot_x_total{outcome="fail"}`, want: []string{`["fail"] is not among`}},
		{expr: `mailbot_x_total{namespace="ops",outcome=~"ok|fail|oops"}`, want: []string{`["fail" "oops"] is not among`}},
		{expr: `mailbot_x_total{outcome=~"x.*"}`, want: []string{`["x.*"] is not among`}},
		{expr: `up{job="ops/mailbot"} == 0`, want: []string{`["ops/mailbot"] is not among`}},
		{expr: `{__name__="mailbot_x_total"}`, want: []string{"without a series name"}},
	} {
		got := exprProblems(tc.expr, vocab)
		ok := len(got) == len(tc.want)
		for i := 0; ok && i < len(got); i++ {
			ok = strings.Contains(got[i], tc.want[i])
		}
		if !ok {
			t.Errorf("exprProblems(%q) = %q, want one problem with each of %q", tc.expr, got, tc.want)
		}
	}
}

// checkAlertTestsCover checks that alertTestsPath fires every alert at least
// once and keeps each quiet at least once.
func checkAlertTestsCover(t *testing.T, alerts []string) {
	t.Helper()
	var file struct {
		Tests []struct {
			AlertRuleTest []struct {
				Alertname string `json:"alertname"`
				ExpAlerts []any  `json:"exp_alerts"`
			} `json:"alert_rule_test"`
		} `json:"tests"`
	}
	b, err := os.ReadFile(alertTestsPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &file); err != nil {
		t.Fatalf("%s: %v", alertTestsPath, err)
	}
	fired, quiet := map[string]bool{}, map[string]bool{}
	for _, tc := range file.Tests {
		for _, a := range tc.AlertRuleTest {
			fired[a.Alertname] = fired[a.Alertname] || len(a.ExpAlerts) > 0
			quiet[a.Alertname] = quiet[a.Alertname] || len(a.ExpAlerts) == 0
		}
	}
	for _, a := range alerts {
		if !fired[a] || !quiet[a] {
			t.Errorf("%s: alert %s fires in a case: %v, stays quiet in one: %v; want both", alertTestsPath, a, fired[a], quiet[a])
		}
	}
}

// promtoolPath finds Prometheus' promtool. CI (CI set, as .ci/run and
// GitHub Actions set it) installs it, so there a missing promtool fails;
// elsewhere the test skips and says how to get it.
func promtoolPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("promtool is not on the PATH (.ci/run installs Debian's prometheus package): %v", err)
	}
	t.Skip("promtool is not on the PATH: install Prometheus (Debian: apt-get install prometheus) to run the alerts' tests")
	return ""
}

// runPromtool runs promtool with args in dir and fails with its output.
func runPromtool(t *testing.T, dir, promtool string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), promtool, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
