package main

// The monitoring assets beside the manifests: the PodMonitor against the
// pods it must scrape, and the PrometheusRule's alerts checked and run by
// Prometheus' own promtool on synthetic series.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/yaml"
)

const (
	monitoringDir  = "manifests/kubernetes/monitoring"
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

// exportedMetrics are mailbot's own metric names of this release.
var exportedMetrics = map[string]bool{
	"mailbot_build_info": true, "mailbot_commands_total": true, "mailbot_approvals_total": true,
	"mailbot_notifications_total": true, "mailbot_home_views_total": true, "mailbot_usergroup_refresh_total": true,
	"mailbot_undelivered_total": true, "mailbot_envelopes_redelivered_total": true, "mailbot_reminders_total": true,
	"mailbot_socket_connected": true, "mailbot_socket_reconnects_total": true, "mailbot_work_in_flight": true,
	"mailbot_ack_latency_seconds": true, "mailbot_provider_requests_total": true,
	"mailbot_provider_request_duration_seconds": true, "mailbot_provider_retries_total": true,
	"mailbot_database_up": true,
}

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
	if ep.Path != metricsPath {
		t.Errorf("PodMonitor path %q, want %q", ep.Path, metricsPath)
	}
}

// TestManifestAlerts checks every alert's summary and runbook, then has
// promtool check the rules and run the tests in alertTestsPath, which must
// fire each alert and keep it quiet at least once.
func TestManifestAlerts(t *testing.T) {
	t.Parallel()
	var pr monitoringv1.PrometheusRule
	readYAMLStrict(t, filepath.Join(monitoringDir, "prometheusrule.yaml"), &pr)
	alerts := checkAlertAnnotations(t, pr)
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
	doc, err := os.ReadFile(operationsDoc)
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
			for _, m := range regexp.MustCompile(`\bmailbot_\w+`).FindAllString(r.Expr.String(), -1) {
				if !exportedMetrics[m] {
					t.Errorf("alert %s reads %s, which mailbot does not export", r.Alert, m)
				}
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
