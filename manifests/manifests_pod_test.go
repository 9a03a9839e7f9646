package manifests_test

// The pod that each kustomization runs, against the code: probes against
// the HTTP server, variables against the config struct, the shutdown budget,
// memory and the security context.

import (
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/internal/health"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestManifestProbesMatchTheServer checks the probes, the port and the
// Prometheus annotations against the paths the listener serves
// (internal/health, whose values the listener's own tests in the root
// package, health_test.go, check it answers: /healthz 200 whether ready or
// not, /readyz 503 until ready and 200 then, /metrics 200) and against
// MAILBOT_HTTP_ADDR.
func TestManifestProbesMatchTheServer(t *testing.T) {
	t.Parallel()
	forEachVariant(t, func(t *testing.T, b kubeBuild) {
		c, port := b.container, defaultHTTPPort(t)
		if addr := b.configMap.Data["MAILBOT_HTTP_ADDR"]; addr != "" {
			if p := addrPort(t, addr); p != port {
				t.Errorf("ConfigMap MAILBOT_HTTP_ADDR port %d, want the default %d that the probes use", p, port)
			}
		}
		var httpPort int32
		for _, p := range c.Ports {
			if p.Name == "http" {
				httpPort = p.ContainerPort
			}
		}
		if int(httpPort) != port {
			t.Errorf("container port named http = %d, want %d (MAILBOT_HTTP_ADDR default)", httpPort, port)
		}

		for _, p := range []struct {
			name  string
			probe *corev1.Probe
			path  string
		}{
			{"livenessProbe", c.LivenessProbe, health.HealthzPath},
			{"readinessProbe", c.ReadinessProbe, health.ReadyzPath},
		} {
			if p.probe == nil || p.probe.HTTPGet == nil {
				t.Errorf("%s: want an httpGet probe", p.name)
				continue
			}
			hg := p.probe.HTTPGet
			if hg.Port != intstr.FromString("http") && hg.Port != intstr.FromInt(port) {
				t.Errorf("%s port = %v, want http (%d)", p.name, hg.Port.String(), port)
			}
			if hg.Path != p.path {
				t.Errorf("%s path = %q, want %q", p.name, hg.Path, p.path)
			}
		}

		ann := b.deploy.Spec.Template.Annotations
		if ann["prometheus.io/scrape"] != "true" || ann["prometheus.io/port"] != strconv.Itoa(port) {
			t.Errorf("prometheus.io annotations = %v, want scrape \"true\" on port %d", ann, port)
		}
		if path := ann["prometheus.io/path"]; path != health.MetricsPath {
			t.Errorf("prometheus.io/path = %q, want %q, which the server answers", path, health.MetricsPath)
		}
	})
}

// TestManifestDeploymentRuntime checks the selector, the shutdown budget,
// the arguments and the resources, GOMEMLIMIT included.
func TestManifestDeploymentRuntime(t *testing.T) {
	t.Parallel()
	forEachVariant(t, func(t *testing.T, b kubeBuild) {
		spec := b.deploy.Spec
		if spec.Selector == nil || len(spec.Selector.MatchLabels) == 0 {
			t.Fatal("the Deployment has no selector")
		}
		for k, v := range spec.Selector.MatchLabels {
			if spec.Template.Labels[k] != v {
				t.Errorf("selector %s=%s does not match the pod template's labels", k, v)
			}
		}
		shutdown := b.configMap.Data["MAILBOT_SHUTDOWN_TIMEOUT"]
		if shutdown == "" {
			shutdown = configDefault(t, "MAILBOT_SHUTDOWN_TIMEOUT")
		}
		budget, err := time.ParseDuration(shutdown)
		if err != nil {
			t.Fatalf("MAILBOT_SHUTDOWN_TIMEOUT %q: %v", shutdown, err)
		}
		// SIGKILL must not cut the drain of work in flight, nor the
		// listener's graceful stop after it.
		grace := spec.Template.Spec.TerminationGracePeriodSeconds
		if grace == nil || time.Duration(*grace)*time.Second <= budget+health.ShutdownTimeout {
			t.Errorf("terminationGracePeriodSeconds = %s, want above %v + %v", ptrString(grace), budget, health.ShutdownTimeout)
		}
		if a := spec.Template.Spec.AutomountServiceAccountToken; a == nil || *a {
			t.Error("automountServiceAccountToken is not false: mailbot never calls the Kubernetes API")
		}
		if !slices.Equal(b.container.Args, []string{"serve"}) {
			t.Errorf("args = %q, want [serve]", b.container.Args)
		}
		checkResources(t, b.container)
	})
}

// goMemLimit reads GOMEMLIMIT as the Go runtime does: bytes, with an
// optional B, KiB, MiB, GiB or TiB suffix.
var goMemLimit = regexp.MustCompile(`^(\d+)(B|KiB|MiB|GiB|TiB)?$`)

// checkResources checks requests and limits, and that GOMEMLIMIT leaves the
// garbage collector headroom below the memory limit.
func checkResources(t *testing.T, c *corev1.Container) {
	t.Helper()
	r := c.Resources
	req, lim := r.Requests.Memory(), r.Limits.Memory()
	if r.Requests.Cpu().IsZero() || req.IsZero() || lim.IsZero() {
		t.Fatalf("resources = %v: want requests.cpu, requests.memory and limits.memory", r)
	}
	if req.Cmp(*lim) > 0 {
		t.Errorf("memory request %s above the limit %s", req, lim)
	}
	env := envVar(c, "GOMEMLIMIT")
	if env == nil || env.ValueFrom != nil {
		t.Fatalf("GOMEMLIMIT = %+v, want a literal value below limits.memory", env)
	}
	m := goMemLimit.FindStringSubmatch(env.Value)
	if m == nil {
		t.Fatalf("GOMEMLIMIT %q: want bytes with an optional B, KiB, MiB, GiB or TiB suffix", env.Value)
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	n *= map[string]int64{"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}[m[2]]
	ratio := float64(n) / float64(lim.Value())
	if ratio < 0.8 || ratio > 0.95 {
		t.Errorf("GOMEMLIMIT %s is %.0f%% of limits.memory %s, want 80%% to 95%%: headroom below the limit, but near it", env.Value, 100*ratio, lim)
	}
}

func TestManifestDeploymentSecurity(t *testing.T) {
	t.Parallel()
	forEachVariant(t, func(t *testing.T, b kubeBuild) {
		pod, ctr := b.deploy.Spec.Template.Spec.SecurityContext, b.container.SecurityContext
		if pod == nil || ctr == nil {
			t.Fatalf("security contexts: pod %v, container %v: want both", pod, ctr)
		}
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
		if seccomp == nil || seccomp.Type != corev1.SeccompProfileTypeRuntimeDefault {
			t.Errorf("seccompProfile = %+v, want RuntimeDefault", seccomp)
		}
	})
}

// TestManifestEnvMatchesConfig checks every variable the manifests set
// against the config struct, and loads the configuration a pod would see.
func TestManifestEnvMatchesConfig(t *testing.T) {
	t.Parallel()
	// What any Secret example holds is a secret: never in the ConfigMap.
	inSecret := make(map[string]bool)
	for _, b := range builtVariants(t) {
		for k := range b.secret.StringData {
			inSecret[k] = true
		}
	}
	forEachVariant(t, func(t *testing.T, b kubeBuild) {
		vars := configVars(t)
		for name, v := range b.configMap.Data {
			f, ok := vars[name]
			switch {
			case !ok:
				t.Errorf("ConfigMap sets %s, which is not a variable of config", name)
			case !readByServe(f):
				t.Errorf("ConfigMap sets %s, which serve does not read", name)
			case isSecretVar(f) || inSecret[name]:
				t.Errorf("ConfigMap sets %s, a secret: it belongs in the Secret", name)
			case strings.HasPrefix(v, `"`) || strings.Contains(v, " #"):
				t.Errorf("ConfigMap %s = %q: kustomize keeps quotes and trailing comments of an env file in the value", name, v)
			}
		}
		fromSecret := checkEnv(t, b, vars, inSecret)
		if refs := configMapRefs(b.container); len(refs) != 1 || refs[0] != b.configMap.Name {
			t.Errorf("the container reads ConfigMaps %q through envFrom, want [%s]", refs, b.configMap.Name)
		}
		for _, ef := range b.container.EnvFrom {
			if ef.SecretRef != nil {
				t.Errorf("envFrom secretRef %q: name each secret with a secretKeyRef instead", ef.SecretRef.Name)
			}
		}
		for name, f := range vars {
			_, inConfigMap := b.configMap.Data[name]
			if readByServe(f) && !isSecretVar(f) && !inConfigMap && !inSecret[name] {
				t.Errorf("the ConfigMap lacks %s (give its default, or an example)", name)
			}
		}
		for k, v := range b.secret.StringData {
			if _, ok := vars[k]; !ok {
				t.Errorf("the Secret example holds %s, which is not a variable of config", k)
			}
			if !fromSecret[k] {
				t.Errorf("the Secret example holds %s, which the Deployment does not read", k)
			}
			if !strings.Contains(v, "REPLACE-ME") {
				t.Errorf("the Secret example's %s is not a REPLACE-ME placeholder", k)
			}
		}
		if len(b.secret.Data) > 0 {
			t.Error("the Secret example has base64 data: keep placeholders in stringData")
		}
		loadPodConfig(t, b)
	})
}

// checkEnv checks the container's env entries and returns the Secret's keys
// they read.
func checkEnv(t *testing.T, b kubeBuild, vars map[string]reflect.StructField, inSecret map[string]bool) map[string]bool {
	t.Helper()
	fromSecret := make(map[string]bool)
	for _, e := range b.container.Env {
		var ref *corev1.SecretKeySelector
		if e.ValueFrom != nil {
			ref = e.ValueFrom.SecretKeyRef
		}
		if ref != nil {
			fromSecret[ref.Key] = true
		}
		f, ok := vars[e.Name]
		if !ok && !runtimeEnv[e.Name] {
			t.Errorf("the Deployment sets %s, which is not a variable of config", e.Name)
			continue
		}
		if ref == nil {
			if ok && (isSecretVar(f) || inSecret[e.Name]) {
				t.Errorf("the Deployment sets the secret %s other than through a secretKeyRef", e.Name)
			}
			continue
		}
		if ref.Name != b.secret.Name {
			t.Errorf("%s: secretKeyRef names Secret %q, want %q", e.Name, ref.Name, b.secret.Name)
		}
		if _, ok := b.secret.StringData[ref.Key]; !ok || ref.Key != e.Name {
			t.Errorf("%s: secretKeyRef key %q: want the key %s of the Secret example", e.Name, ref.Key, e.Name)
		}
	}
	return fromSecret
}

// loadPodConfig loads the configuration a pod sees, the Secret example's
// placeholders standing for the secrets, as serve loads it: every variable
// that serve needs is there, and every value is valid.
func loadPodConfig(t *testing.T, b kubeBuild) {
	t.Helper()
	env := make(map[string]string)
	for k, v := range b.configMap.Data {
		env[k] = v
	}
	for _, e := range b.container.Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			env[e.Name] = b.secret.StringData[e.ValueFrom.SecretKeyRef.Key]
		} else if e.ValueFrom == nil {
			env[e.Name] = e.Value
		}
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	// The admins are the operator's to set: left empty, start-up stops
	// with one line naming MAILBOT_ADMINS, and nothing else is wrong.
	_, err := loadConfig(lookup, "serve")
	if err == nil || strings.Count(strings.TrimSpace(err.Error()), "\n") != 0 || !strings.Contains(err.Error(), "MAILBOT_ADMINS") {
		t.Errorf("the manifests' configuration as shipped: %v; want one line naming MAILBOT_ADMINS", err)
	}
	env["MAILBOT_ADMINS"] = "U0OPERATOR"
	if _, err := loadConfig(lookup, "serve"); err != nil {
		t.Errorf("the manifests' configuration with MAILBOT_ADMINS set does not load for serve: %v", err)
	}
}
