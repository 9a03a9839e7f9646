package main

// The manifests, the Dockerfile and the code each state some of the same
// facts: probe paths and port, variable names, slash commands, scopes, build
// flags. These tests read every manifest (offline) and fail where the two
// sides disagree.

import (
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap/zaptest"
	"sigs.k8s.io/yaml"

	"github.com/mailbot/mailbot/bot"
)

const (
	manifestsDir  = "manifests"
	kubernetesDir = "manifests/kubernetes"
	slackAppPath  = "manifests/slack-app.yaml"
	dockerfile    = "Dockerfile"
	ciScript      = ".ci/run"

	// distrolessNonrootUID is the user nonroot of the distroless images.
	distrolessNonrootUID = 65532
)

// runtimeEnv are variables the Deployment may set that are not mailbot's
// configuration but the Go runtime's.
var runtimeEnv = map[string]bool{"GOMEMLIMIT": true}

// Only the fields the checks read; the YAML is converted to JSON, so names
// match case-insensitively and other fields are ignored.
type (
	objectMeta struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	}
	k8sDeployment struct {
		Kind     string     `json:"kind"`
		Metadata objectMeta `json:"metadata"`
		Spec     struct {
			Replicas *int `json:"replicas"`
			Strategy struct {
				Type string `json:"type"`
			} `json:"strategy"`
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			Template struct {
				Metadata objectMeta `json:"metadata"`
				Spec     k8sPodSpec `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	k8sPodSpec struct {
		AutomountServiceAccountToken  *bool          `json:"automountServiceAccountToken"`
		TerminationGracePeriodSeconds *int64         `json:"terminationGracePeriodSeconds"`
		SecurityContext               k8sSecurityCtx `json:"securityContext"`
		Containers                    []k8sContainer `json:"containers"`
	}
	k8sSecurityCtx struct {
		RunAsNonRoot             *bool  `json:"runAsNonRoot"`
		RunAsUser                *int64 `json:"runAsUser"`
		ReadOnlyRootFilesystem   *bool  `json:"readOnlyRootFilesystem"`
		AllowPrivilegeEscalation *bool  `json:"allowPrivilegeEscalation"`
		Privileged               *bool  `json:"privileged"`
		Capabilities             *struct {
			Drop []string `json:"drop"`
			Add  []string `json:"add"`
		} `json:"capabilities"`
		SeccompProfile *struct {
			Type string `json:"type"`
		} `json:"seccompProfile"`
	}
	k8sContainer struct {
		Name  string   `json:"name"`
		Image string   `json:"image"`
		Args  []string `json:"args"`
		Ports []struct {
			Name          string `json:"name"`
			ContainerPort int    `json:"containerPort"`
		} `json:"ports"`
		EnvFrom []struct {
			ConfigMapRef *struct{ Name string } `json:"configMapRef"`
			SecretRef    *struct{ Name string } `json:"secretRef"`
		} `json:"envFrom"`
		Env []struct {
			Name      string  `json:"name"`
			Value     *string `json:"value"`
			ValueFrom *struct {
				SecretKeyRef *struct {
					Name string `json:"name"`
					Key  string `json:"key"`
				} `json:"secretKeyRef"`
				ConfigMapKeyRef  any `json:"configMapKeyRef"`
				ResourceFieldRef any `json:"resourceFieldRef"`
			} `json:"valueFrom"`
		} `json:"env"`
		LivenessProbe  *k8sProbe `json:"livenessProbe"`
		ReadinessProbe *k8sProbe `json:"readinessProbe"`
		Resources      struct {
			Requests map[string]string `json:"requests"`
			Limits   map[string]string `json:"limits"`
		} `json:"resources"`
		SecurityContext k8sSecurityCtx `json:"securityContext"`
	}
	k8sProbe struct {
		HTTPGet *struct {
			Path string `json:"path"`
			Port any    `json:"port"` // a name or a number
		} `json:"httpGet"`
	}
	k8sConfigMap struct {
		Kind     string            `json:"kind"`
		Metadata objectMeta        `json:"metadata"`
		Data     map[string]string `json:"data"`
	}
	k8sSecret struct {
		Kind       string            `json:"kind"`
		Metadata   objectMeta        `json:"metadata"`
		Data       map[string]string `json:"data"`
		StringData map[string]string `json:"stringData"`
	}
	kustomization struct {
		Kind      string   `json:"kind"`
		Namespace string   `json:"namespace"`
		Resources []string `json:"resources"`
		Images    []struct {
			Name string `json:"name"`
		} `json:"images"`
	}
	slackApp struct {
		DisplayInformation struct {
			Name            string `json:"name"`
			Description     string `json:"description"`
			LongDescription string `json:"long_description"`
		} `json:"display_information"`
		Features struct {
			BotUser *struct {
				DisplayName string `json:"display_name"`
			} `json:"bot_user"`
			SlashCommands []struct {
				Command      string `json:"command"`
				Description  string `json:"description"`
				UsageHint    string `json:"usage_hint"`
				URL          string `json:"url"`
				ShouldEscape *bool  `json:"should_escape"`
			} `json:"slash_commands"`
		} `json:"features"`
		OAuthConfig struct {
			Scopes struct {
				Bot  []string `json:"bot"`
				User []string `json:"user"`
			} `json:"scopes"`
		} `json:"oauth_config"`
		Settings struct {
			SocketModeEnabled *bool `json:"socket_mode_enabled"`
			Interactivity     *struct {
				IsEnabled  bool   `json:"is_enabled"`
				RequestURL string `json:"request_url"`
			} `json:"interactivity"`
			EventSubscriptions *struct {
				RequestURL string `json:"request_url"`
			} `json:"event_subscriptions"`
		} `json:"settings"`
	}
)

// readYAML reads one single-document YAML file into v.
func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	// sigs.k8s.io/yaml reads the first document only: a second one would be
	// silently ignored, so the files hold one each.
	if regexp.MustCompile(`(?m)^---`).Match(b) {
		t.Fatalf("%s: more than one YAML document; keep one per file", path)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
}

// configVars maps every variable of the config struct to its field.
func configVars(t *testing.T) map[string]reflect.StructField {
	t.Helper()
	vars := make(map[string]reflect.StructField)
	typ := reflect.TypeFor[config]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		name := f.Tag.Get("envconfig")
		if name == "" {
			t.Fatalf("config.%s has no envconfig tag", f.Name)
		}
		vars[name] = f
	}
	return vars
}

// configDefault is the default tag of the config field read from name.
func configDefault(t *testing.T, name string) string {
	t.Helper()
	f, ok := configVars(t)[name]
	if !ok {
		t.Fatalf("config has no variable %s", name)
	}
	return f.Tag.Get("default")
}

func isSecretVar(f reflect.StructField) bool { return f.Type == reflect.TypeFor[secret]() }

// defaultHTTPPort is the port of MAILBOT_HTTP_ADDR's default (":8080").
func defaultHTTPPort(t *testing.T) int {
	t.Helper()
	addr := configDefault(t, "MAILBOT_HTTP_ADDR")
	return addrPort(t, addr)
}

func addrPort(t *testing.T, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("address %q: %v", addr, err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatalf("address %q: port: %v", addr, err)
	}
	return n
}

type kubeManifests struct {
	deploy    k8sDeployment
	container k8sContainer
	configMap k8sConfigMap
	secret    k8sSecret
}

func readKube(t *testing.T) kubeManifests {
	t.Helper()
	var m kubeManifests
	readYAML(t, filepath.Join(kubernetesDir, "deployment.yaml"), &m.deploy)
	readYAML(t, filepath.Join(kubernetesDir, "configmap.yaml"), &m.configMap)
	readYAML(t, filepath.Join(kubernetesDir, "secret.example.yaml"), &m.secret)
	for _, k := range []struct{ got, want string }{
		{m.deploy.Kind, "Deployment"}, {m.configMap.Kind, "ConfigMap"}, {m.secret.Kind, "Secret"},
	} {
		if k.got != k.want {
			t.Fatalf("kind %q, want %q", k.got, k.want)
		}
	}
	cs := m.deploy.Spec.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("the Deployment has %d containers, want 1", len(cs))
	}
	m.container = cs[0]
	return m
}

// TestManifestFilesParse reads every YAML file under manifests/ and checks
// that the Kubernetes ones name no namespace.
func TestManifestFilesParse(t *testing.T) {
	t.Parallel()
	var seen int
	err := filepath.WalkDir(manifestsDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" {
			t.Errorf("%s: not a .yaml file; the manifests test reads only YAML", path)
			return nil
		}
		seen++
		var doc map[string]any
		readYAML(t, path, &doc)
		if len(doc) == 0 {
			t.Errorf("%s: empty document", path)
		}
		if filepath.Dir(path) == filepath.Clean(kubernetesDir) {
			var obj struct {
				APIVersion string     `json:"apiVersion"`
				Kind       string     `json:"kind"`
				Metadata   objectMeta `json:"metadata"`
				Namespace  string     `json:"namespace"`
			}
			readYAML(t, path, &obj)
			if obj.APIVersion == "" || obj.Kind == "" {
				t.Errorf("%s: apiVersion %q, kind %q: want both", path, obj.APIVersion, obj.Kind)
			}
			if obj.Metadata.Namespace != "" || obj.Namespace != "" {
				t.Errorf("%s: sets a namespace; the layout is namespace-agnostic", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 5 {
		t.Errorf("read %d manifests, want at least 5 (slack-app and four under kubernetes/)", seen)
	}
}

func TestManifestKustomization(t *testing.T) {
	t.Parallel()
	var k kustomization
	readYAML(t, filepath.Join(kubernetesDir, "kustomization.yaml"), &k)
	if k.Kind != "Kustomization" {
		t.Errorf("kind = %q, want Kustomization", k.Kind)
	}
	// Every manifest but the Secret example (placeholders) is a resource.
	entries, err := os.ReadDir(kubernetesDir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range entries {
		if n := e.Name(); n != "kustomization.yaml" && n != "secret.example.yaml" {
			want = append(want, n)
		}
	}
	got := slices.Clone(k.Resources)
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kustomization resources (-want +got):\n%s", diff)
	}
	if slices.Contains(k.Resources, "secret.example.yaml") {
		t.Error("the Secret example is a resource: applying would overwrite the real tokens with placeholders")
	}
	m := readKube(t)
	image, _, _ := strings.Cut(m.container.Image, ":")
	if len(k.Images) != 1 || k.Images[0].Name != image {
		t.Errorf("kustomization images = %+v, want one entry for the Deployment's image %q", k.Images, image)
	}
}

// TestManifestProbesMatchTheServer checks the probes, the port and the
// Prometheus annotations against what newHTTPServer serves and against
// MAILBOT_HTTP_ADDR.
func TestManifestProbesMatchTheServer(t *testing.T) {
	t.Parallel()
	m := readKube(t)
	c := m.container
	port := defaultHTTPPort(t)
	if addr := m.configMap.Data["MAILBOT_HTTP_ADDR"]; addr != "" {
		if p := addrPort(t, addr); p != port {
			t.Errorf("ConfigMap MAILBOT_HTTP_ADDR port %d, want the default %d that the probes use", p, port)
		}
	}
	var httpPort int
	for _, p := range c.Ports {
		if p.Name == "http" {
			httpPort = p.ContainerPort
		}
	}
	if httpPort != port {
		t.Errorf("container port named http = %d, want %d (MAILBOT_HTTP_ADDR default %q)", httpPort, port, configDefault(t, "MAILBOT_HTTP_ADDR"))
	}

	var ready bool
	srv := newHTTPServer(":0", func() bool { return ready }, newRegistry(), zaptest.NewLogger(t))
	get := func(path string) int {
		rec := httptest.NewRecorder()
		srv.Handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code
	}
	for _, p := range []struct {
		name          string
		probe         *k8sProbe
		notReady, rdy int
	}{
		{"livenessProbe", c.LivenessProbe, http.StatusOK, http.StatusOK},
		{"readinessProbe", c.ReadinessProbe, http.StatusServiceUnavailable, http.StatusOK},
	} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("%s: want an httpGet probe", p.name)
			continue
		}
		hg := p.probe.HTTPGet
		if hg.Port != "http" && hg.Port != float64(port) {
			t.Errorf("%s port = %v, want http (%d)", p.name, hg.Port, port)
		}
		ready = false
		if got := get(hg.Path); got != p.notReady {
			t.Errorf("%s: GET %s while not ready = %d, want %d", p.name, hg.Path, got, p.notReady)
		}
		ready = true
		if got := get(hg.Path); got != p.rdy {
			t.Errorf("%s: GET %s while ready = %d, want %d", p.name, hg.Path, got, p.rdy)
		}
	}
	if c.LivenessProbe != nil && c.LivenessProbe.HTTPGet != nil && c.LivenessProbe.HTTPGet.Path != healthzPath {
		t.Errorf("livenessProbe path = %q, want %q", c.LivenessProbe.HTTPGet.Path, healthzPath)
	}
	if c.ReadinessProbe != nil && c.ReadinessProbe.HTTPGet != nil && c.ReadinessProbe.HTTPGet.Path != readyzPath {
		t.Errorf("readinessProbe path = %q, want %q", c.ReadinessProbe.HTTPGet.Path, readyzPath)
	}

	ann := m.deploy.Spec.Template.Metadata.Annotations
	if ann["prometheus.io/scrape"] != "true" || ann["prometheus.io/port"] != strconv.Itoa(port) {
		t.Errorf("prometheus.io annotations = %v, want scrape \"true\" on port %d", ann, port)
	}
	if path := ann["prometheus.io/path"]; path != metricsPath || get(path) != http.StatusOK {
		t.Errorf("prometheus.io/path = %q, want %q, which the server answers", path, metricsPath)
	}
}

func TestManifestDeploymentRuntime(t *testing.T) {
	t.Parallel()
	m := readKube(t)
	spec := m.deploy.Spec
	if spec.Replicas == nil || *spec.Replicas != 1 {
		t.Errorf("replicas = %s, want exactly 1: the guard that runs an approval once is per process", ptrString(spec.Replicas))
	}
	if spec.Strategy.Type != "Recreate" {
		t.Errorf("strategy = %q, want Recreate, so that two pods never hold a socket at once", spec.Strategy.Type)
	}
	for k, v := range spec.Selector.MatchLabels {
		if spec.Template.Metadata.Labels[k] != v {
			t.Errorf("selector %s=%s does not match the pod template's labels", k, v)
		}
	}
	if len(spec.Selector.MatchLabels) == 0 {
		t.Error("the Deployment has no selector")
	}

	shutdown := m.configMap.Data["MAILBOT_SHUTDOWN_TIMEOUT"]
	if shutdown == "" {
		shutdown = configDefault(t, "MAILBOT_SHUTDOWN_TIMEOUT")
	}
	budget, err := time.ParseDuration(shutdown)
	if err != nil {
		t.Fatalf("MAILBOT_SHUTDOWN_TIMEOUT %q: %v", shutdown, err)
	}
	grace := spec.Template.Spec.TerminationGracePeriodSeconds
	// SIGKILL must not cut the drain of work in flight, nor the listener's
	// graceful stop after it.
	if grace == nil || time.Duration(*grace)*time.Second <= budget+httpShutdownTimeout {
		t.Errorf("terminationGracePeriodSeconds = %s, want above %v + %v", ptrString(grace), budget, httpShutdownTimeout)
	}
	if a := spec.Template.Spec.AutomountServiceAccountToken; a == nil || *a {
		t.Error("automountServiceAccountToken is not false: mailbot never calls the Kubernetes API")
	}
	if len(m.container.Args) != 1 || m.container.Args[0] != "serve" {
		t.Errorf("args = %q, want [serve]", m.container.Args)
	}

	r := m.container.Resources
	for _, q := range []struct{ what, v string }{
		{"requests.cpu", r.Requests["cpu"]}, {"requests.memory", r.Requests["memory"]}, {"limits.memory", r.Limits["memory"]},
	} {
		if q.v == "" {
			t.Errorf("resources %s is not set", q.what)
		}
	}
	if req, lim := mebibytes(t, r.Requests["memory"]), mebibytes(t, r.Limits["memory"]); req > lim {
		t.Errorf("memory request %s above the limit %s", r.Requests["memory"], r.Limits["memory"])
	}
}

// ptrString prints *p, or "unset".
func ptrString[T any](p *T) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}

// mebibytes reads a memory quantity written in Mi or Gi.
func mebibytes(t *testing.T, q string) int {
	t.Helper()
	for suffix, mult := range map[string]int{"Mi": 1, "Gi": 1024} {
		if n, ok := strings.CutSuffix(q, suffix); ok {
			v, err := strconv.Atoi(n)
			if err == nil {
				return v * mult
			}
		}
	}
	t.Fatalf("memory quantity %q: want <n>Mi or <n>Gi", q)
	return 0
}

func TestManifestDeploymentSecurity(t *testing.T) {
	t.Parallel()
	m := readKube(t)
	pod, ctr := m.deploy.Spec.Template.Spec.SecurityContext, m.container.SecurityContext
	isTrue := func(b *bool) bool { return b != nil && *b }
	isFalse := func(b *bool) bool { return b != nil && !*b }

	if !isTrue(pod.RunAsNonRoot) && !isTrue(ctr.RunAsNonRoot) {
		t.Error("runAsNonRoot is not true")
	}
	for _, uid := range []*int64{pod.RunAsUser, ctr.RunAsUser} {
		if uid != nil && *uid != distrolessNonrootUID {
			t.Errorf("runAsUser = %d, want %d, the image's user nonroot", *uid, distrolessNonrootUID)
		}
	}
	if !isTrue(ctr.ReadOnlyRootFilesystem) {
		t.Error("readOnlyRootFilesystem is not true")
	}
	if !isFalse(ctr.AllowPrivilegeEscalation) {
		t.Error("allowPrivilegeEscalation is not false")
	}
	if isTrue(ctr.Privileged) {
		t.Error("the container is privileged")
	}
	if ctr.Capabilities == nil || !slices.Contains(ctr.Capabilities.Drop, "ALL") || len(ctr.Capabilities.Add) > 0 {
		t.Errorf("capabilities = %+v, want drop [ALL] and nothing added", ctr.Capabilities)
	}
	seccomp := ctr.SeccompProfile
	if seccomp == nil {
		seccomp = pod.SeccompProfile
	}
	if seccomp == nil || seccomp.Type != "RuntimeDefault" {
		t.Errorf("seccompProfile = %+v, want RuntimeDefault", seccomp)
	}
}

// TestManifestEnvMatchesConfig checks every variable the manifests set
// against the config struct, and loads the configuration a pod would see.
func TestManifestEnvMatchesConfig(t *testing.T) {
	t.Parallel()
	m := readKube(t)
	vars := configVars(t)
	secretKeys := m.secret.StringData

	for name := range m.configMap.Data {
		f, ok := vars[name]
		switch {
		case !ok:
			t.Errorf("ConfigMap sets %s, which is not a variable of config", name)
		case isSecretVar(f):
			t.Errorf("ConfigMap sets %s, a token: it belongs in the Secret", name)
		}
	}
	fromSecret := make(map[string]bool)
	for _, e := range m.container.Env {
		f, ok := vars[e.Name]
		if !ok && !runtimeEnv[e.Name] {
			t.Errorf("the Deployment sets %s, which is not a variable of config", e.Name)
			continue
		}
		var ref *struct {
			Name string `json:"name"`
			Key  string `json:"key"`
		}
		if e.ValueFrom != nil {
			ref = e.ValueFrom.SecretKeyRef
		}
		if ok && isSecretVar(f) && ref == nil {
			t.Errorf("the Deployment sets the token %s other than through a secretKeyRef", e.Name)
		}
		if ref != nil {
			fromSecret[e.Name] = true
			if ref.Name != m.secret.Metadata.Name {
				t.Errorf("%s: secretKeyRef names Secret %q, want %q", e.Name, ref.Name, m.secret.Metadata.Name)
			}
			if _, ok := secretKeys[ref.Key]; !ok {
				t.Errorf("%s: secretKeyRef key %q is not in the Secret example", e.Name, ref.Key)
			}
		}
	}
	configMapRef := false
	for _, ef := range m.container.EnvFrom {
		if ef.SecretRef != nil {
			t.Errorf("envFrom secretRef %q: name each token with a secretKeyRef instead", ef.SecretRef.Name)
		}
		if ef.ConfigMapRef != nil {
			configMapRef = ef.ConfigMapRef.Name == m.configMap.Metadata.Name
		}
	}
	if !configMapRef {
		t.Errorf("the Deployment does not read the ConfigMap %q through envFrom", m.configMap.Metadata.Name)
	}
	for name, f := range vars {
		if isSecretVar(f) && !fromSecret[name] {
			t.Errorf("the token %s does not come from the Secret", name)
		}
		if _, ok := m.configMap.Data[name]; !isSecretVar(f) && !ok {
			t.Errorf("the ConfigMap lacks %s (give its default, or an example)", name)
		}
	}
	for k, v := range secretKeys {
		if f, ok := vars[k]; !ok || !isSecretVar(f) {
			t.Errorf("the Secret example holds %s, which is not a token of config", k)
		}
		if !strings.Contains(v, "REPLACE-ME") {
			t.Errorf("the Secret example's %s is not a REPLACE-ME placeholder", k)
		}
	}
	if len(m.secret.Data) > 0 {
		t.Error("the Secret example has base64 data: keep placeholders in stringData")
	}

	// What a pod sees: the ConfigMap, with the Secret's keys on top.
	env := make(map[string]string)
	for k, v := range m.configMap.Data {
		env[k] = v
	}
	for _, e := range m.container.Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			env[e.Name] = secretKeys[e.ValueFrom.SecretKeyRef.Key]
		} else if e.Value != nil {
			env[e.Name] = *e.Value
		}
	}
	cfg, err := loadConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("the manifests' configuration does not load: %v", err)
	}
	if err := cfg.requireServe(); err != nil {
		t.Errorf("the manifests do not provide what serve needs: %v", err)
	}
}

func TestManifestSlackApp(t *testing.T) {
	t.Parallel()
	var app slackApp
	readYAML(t, slackAppPath, &app)

	s := app.Settings
	if s.SocketModeEnabled == nil || !*s.SocketModeEnabled {
		t.Error("settings.socket_mode_enabled is not true")
	}
	if s.Interactivity == nil || !s.Interactivity.IsEnabled {
		t.Error("settings.interactivity.is_enabled is not true: the approval buttons need it")
	} else if s.Interactivity.RequestURL != "" {
		t.Error("settings.interactivity has a request_url: Socket Mode needs none")
	}
	if s.EventSubscriptions != nil && s.EventSubscriptions.RequestURL != "" {
		t.Error("settings.event_subscriptions has a request_url: Socket Mode needs none")
	}

	var commands []string
	for _, c := range app.Features.SlashCommands {
		commands = append(commands, c.Command)
		if c.URL != "" {
			t.Errorf("%s has a url: Socket Mode needs none", c.Command)
		}
		if c.Description == "" || c.UsageHint == "" {
			t.Errorf("%s: description %q, usage_hint %q: want both", c.Command, c.Description, c.UsageHint)
		}
		// The choice and its reasons are in the manifest's comment.
		if c.ShouldEscape == nil || *c.ShouldEscape {
			t.Errorf("%s: should_escape is not set to false", c.Command)
		}
	}
	sort.Strings(commands)
	wantCommands := slices.Sorted(slices.Values(bot.SlashCommands()))
	if diff := cmp.Diff(wantCommands, commands); diff != "" {
		t.Errorf("slash commands differ from bot.SlashCommands() (-want +got):\n%s", diff)
	}

	want := map[string]bool{bot.CommandsScope: true}
	for _, scope := range bot.WebAPIMethods() {
		if scope != "" {
			want[scope] = true
		}
	}
	wantScopes := slices.Sorted(func(yield func(string) bool) {
		for s := range want {
			if !yield(s) {
				return
			}
		}
	})
	gotScopes := slices.Sorted(slices.Values(app.OAuthConfig.Scopes.Bot))
	if diff := cmp.Diff(wantScopes, gotScopes); diff != "" {
		t.Errorf("bot scopes differ from bot.WebAPIMethods() and bot.CommandsScope (-want +got):\n%s", diff)
	}
	if len(app.OAuthConfig.Scopes.User) > 0 {
		t.Errorf("user scopes %q: mailbot acts only as its bot", app.OAuthConfig.Scopes.User)
	}

	// Limits that Slack enforces when it imports a manifest.
	d := app.DisplayInformation
	if d.Name == "" || len([]rune(d.Name)) > 35 {
		t.Errorf("display_information.name %q: want 1 to 35 characters", d.Name)
	}
	if n := len([]rune(d.Description)); n == 0 || n > 140 {
		t.Errorf("display_information.description has %d characters, want 1 to 140", n)
	}
	if n := len([]rune(d.LongDescription)); n != 0 && (n < 175 || n > 4000) {
		t.Errorf("display_information.long_description has %d characters, want 175 to 4000", n)
	}
	if app.Features.BotUser == nil || app.Features.BotUser.DisplayName == "" {
		t.Error("features.bot_user is missing: the bot scopes need a bot user")
	}
}

// goBuild is a `go build` command line, normalised for comparison.
type goBuild struct {
	Env      map[string]string
	Flags    []string // every flag but -o and -ldflags
	LDFlags  []string // with -X values replaced by the variable name
	Output   string
	Packages []string
}

var (
	// ldflagsX matches -X main.name=value, value being a word or $(...).
	ldflagsX = regexp.MustCompile(`-X\s+(\S+?)=(\$\([^)]*\)|\S+)`)
	// buildEnvOnlyInDockerfile are the cross-compilation targets of the
	// image's build stage; CI builds for its own platform.
	buildEnvOnlyInDockerfile = []string{"GOOS", "GOARCH"}
)

// parseGoBuild finds the go build command in a shell script or Dockerfile.
func parseGoBuild(t *testing.T, path string) goBuild {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(b), "\\\n", " ")
	var line string
	for l := range strings.Lines(text) {
		if strings.Contains(l, " go build ") && !strings.HasPrefix(strings.TrimSpace(l), "#") {
			if line != "" {
				t.Fatalf("%s: more than one go build command", path)
			}
			line = strings.TrimSpace(l)
		}
	}
	if line == "" {
		t.Fatalf("%s: no go build command", path)
	}
	words := shellWords(strings.TrimPrefix(line, "RUN "))
	g := goBuild{Env: map[string]string{}}
	i := 0
	for ; i < len(words) && words[i] != "go"; i++ {
		k, v, ok := strings.Cut(words[i], "=")
		if !ok {
			t.Fatalf("%s: %q before go build is not NAME=value", path, words[i])
		}
		g.Env[k] = v
	}
	if i+1 >= len(words) || words[i+1] != "build" {
		t.Fatalf("%s: cannot read %q", path, line)
	}
	for i += 2; i < len(words); i++ {
		switch w := words[i]; {
		case w == "-o" && i+1 < len(words):
			i++
			g.Output = words[i]
		case w == "-ldflags" && i+1 < len(words):
			i++
			g.LDFlags = strings.Fields(ldflagsX.ReplaceAllString(words[i], "-X $1"))
		case strings.HasPrefix(w, "-"):
			g.Flags = append(g.Flags, w)
		default:
			g.Packages = append(g.Packages, w)
		}
	}
	return g
}

// shellWords splits a command line on blanks outside quotes and $(...),
// dropping the quotes. It is enough for the lines it reads here.
func shellWords(s string) []string {
	var (
		words []string
		cur   strings.Builder
		quote rune
		depth int
		inTok bool
	)
	for i, r := range s {
		switch {
		case quote == 0 && depth == 0 && (r == ' ' || r == '\t'):
			if inTok {
				words, inTok = append(words, cur.String()), false
				cur.Reset()
			}
			continue
		case quote == 0 && (r == '"' || r == '\''):
			quote, inTok = r, true
			continue
		case r == quote && depth == 0:
			quote = 0
			continue
		case r == '$' && strings.HasPrefix(s[i:], "$("):
			depth++
		case r == ')' && depth > 0:
			depth--
		}
		cur.WriteRune(r)
		inTok = true
	}
	if inTok {
		words = append(words, cur.String())
	}
	return words
}

// TestManifestDockerfileBuildMatchesCI checks that the image's build stage
// runs the go build that CI runs, so that CI exercises it.
func TestManifestDockerfileBuildMatchesCI(t *testing.T) {
	t.Parallel()
	ci, docker := parseGoBuild(t, ciScript), parseGoBuild(t, dockerfile)
	for _, k := range buildEnvOnlyInDockerfile {
		delete(docker.Env, k)
	}
	if docker.Output == "" || ci.Output == "" {
		t.Errorf("-o missing: Dockerfile %q, .ci/run %q", docker.Output, ci.Output)
	}
	ci.Output, docker.Output = "", ""
	if diff := cmp.Diff(ci, docker); diff != "" {
		t.Errorf("the Dockerfile's go build differs from .ci/run's (-ci +Dockerfile):\n%s", diff)
	}
	// What both must be, so that they cannot drift together either.
	want := goBuild{
		Env:      map[string]string{"CGO_ENABLED": "0"},
		Flags:    []string{"-trimpath"},
		LDFlags:  []string{"-s", "-w", "-X", "main.version", "-X", "main.commit"},
		Packages: []string{"."},
	}
	if diff := cmp.Diff(want, ci); diff != "" {
		t.Errorf(".ci/run's go build (-want +got):\n%s", diff)
	}
	// The variables that -X stamps exist (renaming one breaks this line).
	_, _ = version, commit
}

func TestManifestDockerfileImage(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(dockerfile)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(b), "\\\n", " ")
	var (
		froms                    []string
		stage                    []string // instructions of the last stage
		downloadAt, copyAllAt, n int
	)
	for l := range strings.Lines(text) {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		n++
		switch {
		case strings.HasPrefix(l, "FROM "):
			froms = append(froms, l)
			stage = nil
		case strings.Contains(l, "go mod download") && downloadAt == 0:
			downloadAt = n
		case l == "COPY . ." && copyAllAt == 0:
			copyAllAt = n
		}
		stage = append(stage, l)
	}
	if len(froms) < 2 {
		t.Fatalf("Dockerfile has %d stages, want a build stage and a final one", len(froms))
	}
	if !strings.Contains(froms[0], "golang:1.26") {
		t.Errorf("build stage %q: want golang:1.26", froms[0])
	}
	if downloadAt == 0 || copyAllAt == 0 || downloadAt > copyAllAt {
		t.Error("go mod download does not run, in its own layer, before COPY . .")
	}
	final := strings.Fields(froms[len(froms)-1])[1]
	if !regexp.MustCompile(`^gcr\.io/distroless/static-debian1\d:nonroot(@sha256:[0-9a-f]{64})?$`).MatchString(final) {
		t.Errorf("final image %q: want gcr.io/distroless/static-debian1x:nonroot", final)
	}
	build := parseGoBuild(t, dockerfile)
	for _, want := range []string{
		"COPY --from=build " + build.Output + " /mailbot",
		"USER nonroot:nonroot",
		"EXPOSE " + strconv.Itoa(defaultHTTPPort(t)),
		`ENTRYPOINT ["/mailbot"]`,
		`CMD ["serve"]`,
	} {
		if !slices.Contains(stage, want) {
			t.Errorf("final stage lacks %q", want)
		}
	}
	for _, l := range stage {
		if strings.HasPrefix(l, "RUN ") || strings.HasPrefix(l, "SHELL ") {
			t.Errorf("final stage runs %q: the distroless image has no shell", l)
		}
	}

	ignore, err := os.ReadFile(".dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for l := range strings.Lines(string(ignore)) {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			patterns = append(patterns, l)
		}
	}
	if !slices.Contains(patterns, ".git") {
		t.Error(".dockerignore does not leave out .git")
	}
	for _, p := range patterns {
		if m, _ := filepath.Match(p, "main.go"); m || p == "*" || p == "go.mod" || p == "go.sum" || p == "**" {
			t.Errorf(".dockerignore pattern %q leaves out what the build needs", p)
		}
	}
}
