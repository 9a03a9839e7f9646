package manifests_test

// The manifests, the Dockerfile and the code each state some of the same
// facts: probe paths and port, variable names, slash commands, scopes,
// events, build flags. These tests read every manifest (offline), decode it
// strictly into the types of the programs that read it (Kubernetes' own API
// types, kustomize's, slack-go's), so that a misspelt or miscased field
// fails, and fail where the manifests and the code disagree.
//
// This file holds the strict decoding and the walk over every file;
// manifests_kube_test.go the kustomize builds, manifests_slack_test.go the
// Slack app manifest and manifests_docker_test.go the image and CI.

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"github.com/slack-go/slack"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
	kusttypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	"github.com/mailbot/mailbot/config"
)

// The tests run in this directory, manifests/. The files outside it are
// named from the repository's root, as the messages and the files that
// name them (workflows, runbook links) do, and read through fromRoot.
const (
	root          = ".."
	manifestsDir  = "."
	kubernetesDir = "kubernetes"      // applies the base
	baseDir       = "kubernetes/base" // the base's files
	haDir         = "kubernetes/ha"
	slackAppPath  = "slack-app.yaml"
	dockerfile    = "Dockerfile"
	ciScript      = ".ci/run"

	// distrolessNonrootUID is the user nonroot of the distroless images.
	distrolessNonrootUID = 65532
	// databaseURLVar is the variable that moves state into PostgreSQL.
	databaseURLVar = "MAILBOT_DATABASE_URL"
)

// fromRoot is the path of name, a file named from the repository's root.
func fromRoot(name string) string { return filepath.Join(root, name) }

// runtimeEnv are variables the Deployment may set that are not mailbot's
// configuration but the Go runtime's.
var runtimeEnv = map[string]bool{"GOMEMLIMIT": true}

// kubeTypes are the Go types of the kinds the Kubernetes manifests may hold,
// by apiVersion and kind. A kind missing here fails the walk: add its type.
var kubeTypes = map[string]func() any{
	"apps/v1 Deployment":            func() any { return new(appsv1.Deployment) },
	"v1 ConfigMap":                  func() any { return new(corev1.ConfigMap) },
	"v1 Secret":                     func() any { return new(corev1.Secret) },
	"policy/v1 PodDisruptionBudget": func() any { return new(policyv1.PodDisruptionBudget) },
	"kustomize.config.k8s.io/v1beta1 Kustomization":            func() any { return new(kusttypes.Kustomization) },
	"monitoring.coreos.com/v1 PodMonitor":                      func() any { return new(monitoringv1.PodMonitor) },
	"monitoring.coreos.com/v1 PrometheusRule":                  func() any { return new(monitoringv1.PrometheusRule) },
	"builtin ReplacementTransformer":                           func() any { return new(replacementTransformer) },
	kusttypes.ComponentVersion + " " + kusttypes.ComponentKind: func() any { return new(kusttypes.Kustomization) },
}

// replacementTransformer is the configuration of kustomize's builtin
// ReplacementTransformer, as a kustomization's transformers: read it.
type replacementTransformer struct {
	metav1.TypeMeta `json:",inline"`
	ObjectMeta      metav1.ObjectMeta            `json:"metadata"`
	Replacements    []kusttypes.ReplacementField `json:"replacements"`
}

func (r *replacementTransformer) GetNamespace() string { return r.ObjectMeta.Namespace }

// decodeJSONStrict decodes data into v as Kubernetes' API server does in
// strict mode: field names match case-sensitively, and an unknown or
// duplicate field is an error.
func decodeJSONStrict(data []byte, v any) error {
	strict, err := kjson.UnmarshalStrict(data, v, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}

// decodeYAMLStrict converts one YAML document to JSON (rejecting duplicate
// keys) and decodes it strictly into v. sigs.k8s.io/yaml's own strict mode
// would match field names regardless of case, hence the two steps.
func decodeYAMLStrict(data []byte, v any) error {
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return err
	}
	return decodeJSONStrict(j, v)
}

// readYAMLStrict reads one single-document YAML file strictly into v.
func readYAMLStrict(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	// The YAML to JSON conversion reads the first document only: a second
	// one would be silently ignored, so the files hold one each.
	if regexp.MustCompile(`(?m)^---`).Match(b) {
		t.Fatalf("%s: more than one YAML document; keep one per file", path)
	}
	if err := decodeYAMLStrict(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// typeMeta reads a manifest's apiVersion and kind, ignoring the rest.
type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// decodeKube decodes a Kubernetes or kustomize manifest strictly into the
// type of its kind.
func decodeKube(data []byte) (any, error) {
	var tm typeMeta
	if err := yaml.Unmarshal(data, &tm); err != nil {
		return nil, err
	}
	newObj, ok := kubeTypes[tm.APIVersion+" "+tm.Kind]
	if !ok {
		return nil, fmt.Errorf("apiVersion %q kind %q: no Go type to check it against (add one to kubeTypes)", tm.APIVersion, tm.Kind)
	}
	obj := newObj()
	if err := decodeYAMLStrict(data, obj); err != nil {
		return nil, fmt.Errorf("%s: %w", tm.Kind, err)
	}
	return obj, nil
}

// TestManifestFilesStrict decodes every file under manifests/ strictly into
// the type of the program that reads it, and checks that the Kubernetes
// ones name no namespace.
func TestManifestFilesStrict(t *testing.T) {
	t.Parallel()
	var kube, envFiles []string
	err := filepath.WalkDir(manifestsDir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path == "testdata":
			return filepath.SkipDir // these tests' own data
		case d.IsDir() || filepath.Ext(path) == ".go":
			return nil // these tests and the package's doc
		}
		switch ext := filepath.Ext(path); {
		case path == filepath.Clean(slackAppPath):
			var m slack.Manifest
			readYAMLStrict(t, path, &m)
		case ext == ".env" && strings.HasPrefix(path, filepath.Clean(kubernetesDir)):
			envFiles = append(envFiles, path)
		case ext == ".yaml" && strings.HasPrefix(path, filepath.Clean(kubernetesDir)):
			kube = append(kube, path)
			checkKubeFile(t, path)
		default:
			t.Errorf("%s: the manifests test reads no such file: decode it strictly here", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The kustomization that applies the base and its Secret example; the
	// base's kustomization and Deployment; the overlay's kustomization,
	// patch, PodDisruptionBudget and Secret example.
	if len(kube) < 8 {
		t.Errorf("read %d Kubernetes manifests %q, want at least 8", len(kube), kube)
	}
	// An env file is read only through a configMapGenerator, whose output
	// the kustomize tests decode and check variable by variable.
	for _, path := range envFiles {
		var k kusttypes.Kustomization
		readYAMLStrict(t, filepath.Join(filepath.Dir(path), "kustomization.yaml"), &k)
		used := false
		for _, g := range k.ConfigMapGenerator {
			used = used || slices.Contains(g.EnvSources, filepath.Base(path))
		}
		if !used {
			t.Errorf("%s: no configMapGenerator beside it reads it", path)
		}
	}
}

// checkKubeFile decodes one Kubernetes manifest strictly and checks that it
// names no namespace.
func checkKubeFile(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if regexp.MustCompile(`(?m)^---`).Match(b) {
		t.Errorf("%s: more than one YAML document; keep one per file", path)
		return
	}
	obj, err := decodeKube(b)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	ns := ""
	switch o := obj.(type) {
	case *kusttypes.Kustomization:
		ns = o.Namespace
	case interface{ GetNamespace() string }:
		ns = o.GetNamespace()
	}
	if ns != "" {
		t.Errorf("%s: sets namespace %q; the layout is namespace-agnostic", path, ns)
	}
}

// configVars maps every variable of the config struct to its field:
// every exported field is one (the unexported ones are what loadConfig
// learnt, such as which secrets came from files).
func configVars(t *testing.T) map[string]reflect.StructField {
	t.Helper()
	vars := make(map[string]reflect.StructField)
	addConfigVars(t, reflect.TypeFor[config.Config](), vars)
	return vars
}

// addConfigVars adds the variables of the struct typ to vars: a field
// without an envconfig tag that is a struct (a provider's section of
// Config) holds variables of its own.
func addConfigVars(t *testing.T, typ reflect.Type, vars map[string]reflect.StructField) {
	t.Helper()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Tag.Get("envconfig")
		switch {
		case name == "" && f.Type.Kind() == reflect.Struct:
			addConfigVars(t, f.Type, vars)
		case name == "":
			t.Fatalf("config.%s has no envconfig tag", f.Name)
		default:
			vars[name] = f
		}
	}
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

func isSecretVar(f reflect.StructField) bool { return f.Type == reflect.TypeFor[config.Secret]() }

// readByServe reports whether serve reads the variable: the field's scope
// tag lists the subcommands that read it, all of them when it has none.
func readByServe(f reflect.StructField) bool {
	if _, deprecated := f.Tag.Lookup("deprecated"); deprecated {
		return false // read for old deployments, never set in new ones
	}
	scope, ok := f.Tag.Lookup("scope")
	return !ok || slices.Contains(strings.Split(scope, ","), "serve")
}

// defaultHTTPPort is the port of MAILBOT_HTTP_ADDR's default (":8080").
func defaultHTTPPort(t *testing.T) int {
	t.Helper()
	return addrPort(t, configDefault(t, "MAILBOT_HTTP_ADDR"))
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

// ptrString prints *p, or "unset".
func ptrString[T any](p *T) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}
