package manifests_test

// The kustomizations, built as `kubectl apply -k` would build them, and the
// objects they generate, decoded strictly and checked: the shape of the base
// (one replica, no database) and of the ha overlay (several replicas on
// PostgreSQL), labels, image pinning and the configuration's rollout.

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// kubeBuild is what one kustomization generates, decoded strictly, with the
// Secret example that documents the Secret it reads.
type kubeBuild struct {
	deploy    *appsv1.Deployment
	container *corev1.Container
	configMap *corev1.ConfigMap
	pdbs      []*policyv1.PodDisruptionBudget
	objects   []metav1.Object
	secret    *corev1.Secret // the Secret example beside the kustomization
}

// variants are the kustomizations a user applies: the base and the overlay.
var variants = []string{kubernetesDir, haDir}

// manifestsFS copies manifests/kubernetes into an in-memory file system, at
// the same relative path.
func manifestsFS(t *testing.T) filesys.FileSystem {
	t.Helper()
	fsys := filesys.MakeFsInMemory()
	err := filepath.WalkDir(kubernetesDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return fsys.MkdirAll(p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return fsys.WriteFile(p, b)
	})
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

// kustomize builds dir on fsys, decodes every generated object strictly,
// and reads the Secret example beside the kustomization.
func kustomize(t *testing.T, fsys filesys.FileSystem, dir string) kubeBuild {
	t.Helper()
	b := kustomizeObjects(t, fsys, dir)
	b.secret = new(corev1.Secret)
	readYAMLStrict(t, filepath.Join(dir, "secret.example.yaml"), b.secret)
	return b
}

// kustomizeObjects builds dir on fsys and decodes every generated object
// strictly.
func kustomizeObjects(t *testing.T, fsys filesys.FileSystem, dir string) kubeBuild {
	t.Helper()
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fsys, dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	var b kubeBuild
	for _, r := range res.Resources() {
		j, err := r.MarshalJSON()
		if err != nil {
			t.Fatalf("%s: %s: %v", dir, r.CurId(), err)
		}
		newObj, ok := kubeTypes[r.GetApiVersion()+" "+r.GetKind()]
		if !ok {
			t.Fatalf("%s generates %s: no Go type to check it against (add one to kubeTypes)", dir, r.CurId())
		}
		obj := newObj()
		if err := decodeJSONStrict(j, obj); err != nil {
			t.Fatalf("%s generates %s: %v", dir, r.CurId(), err)
		}
		b.add(t, dir, obj)
	}
	if b.deploy == nil || b.configMap == nil {
		t.Fatalf("%s: want a Deployment and a ConfigMap, got %d objects", dir, len(b.objects))
	}
	if cs := b.deploy.Spec.Template.Spec.Containers; len(cs) != 1 {
		t.Fatalf("%s: the Deployment has %d containers, want 1", dir, len(cs))
	}
	b.container = &b.deploy.Spec.Template.Spec.Containers[0]
	return b
}

// add files one generated object of dir's build by its kind.
func (b *kubeBuild) add(t *testing.T, dir string, obj any) {
	t.Helper()
	switch o := obj.(type) {
	case *appsv1.Deployment:
		if b.deploy != nil {
			t.Fatalf("%s generates two Deployments", dir)
		}
		b.deploy = o
	case *corev1.ConfigMap:
		if b.configMap != nil {
			t.Fatalf("%s generates two ConfigMaps", dir)
		}
		b.configMap = o
	case *policyv1.PodDisruptionBudget:
		b.pdbs = append(b.pdbs, o)
	case *corev1.Secret:
		t.Fatalf("%s generates a Secret: applying it would overwrite the real tokens", dir)
	}
	b.objects = append(b.objects, obj.(metav1.Object))
}

var (
	buildsOnce sync.Once
	builds     map[string]kubeBuild
)

// builtVariants builds the base and the overlay from the files on disk,
// once for every test.
func builtVariants(t *testing.T) map[string]kubeBuild {
	t.Helper()
	buildsOnce.Do(func() {
		fsys := manifestsFS(t)
		m := make(map[string]kubeBuild)
		for _, dir := range variants {
			m[dir] = kustomize(t, fsys, dir)
		}
		builds = m
	})
	if builds == nil {
		t.Fatal("the kustomizations did not build (see the first test that built them)")
	}
	return builds
}

// forEachVariant runs check as a subtest on each kustomization's build.
func forEachVariant(t *testing.T, check func(t *testing.T, b kubeBuild)) {
	t.Helper()
	for dir, b := range builtVariants(t) {
		t.Run(path.Base(dir), func(t *testing.T) { check(t, b) })
	}
}

// versionTag is what a release's image tag looks like.
var versionTag = regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)

// imageTag splits an image reference into its repository and tag, the tag
// being what follows the last colon after the last slash (a registry's port
// is not a tag). A digest is dropped.
func imageTag(image string) (repo, tag string) {
	image, _, _ = strings.Cut(image, "@")
	slash := strings.LastIndex(image, "/")
	if colon := strings.LastIndex(image, ":"); colon > slash {
		return image[:colon], image[colon+1:]
	}
	return image, ""
}

// TestKustomizeImageAndLabels checks that the image is pinned to a release
// and that every object carries Kubernetes' recommended labels, the version
// being the image's.
func TestKustomizeImageAndLabels(t *testing.T) {
	t.Parallel()
	forEachVariant(t, func(t *testing.T, b kubeBuild) {
		repo, tag := imageTag(b.container.Image)
		if !versionTag.MatchString(tag) && tag != unreleasedTag {
			t.Errorf("image %q: want a release tag (vX.Y.Z, or %s before the first release), never latest", b.container.Image, unreleasedTag)
		}
		if repo != "ghcr.io/mailbot/mailbot" {
			t.Errorf("image %q: want the released ghcr.io/mailbot/mailbot", b.container.Image)
		}
		if b.container.ImagePullPolicy != corev1.PullIfNotPresent {
			t.Errorf("imagePullPolicy = %q, want IfNotPresent with a pinned image", b.container.ImagePullPolicy)
		}
		checkRecommendedLabels(t, b, tag)
	})
}

// checkRecommendedLabels checks Kubernetes' recommended labels on every
// object of b and on its pods, the version being tag.
func checkRecommendedLabels(t *testing.T, b kubeBuild, tag string) {
	t.Helper()
	want := map[string]string{
		"app.kubernetes.io/name":       "mailbot",
		"app.kubernetes.io/instance":   "mailbot",
		"app.kubernetes.io/version":    tag,
		"app.kubernetes.io/part-of":    "mailbot",
		"app.kubernetes.io/managed-by": "kustomize",
	}
	check := func(what string, got map[string]string) {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: label %s = %q, want %q", what, k, got[k], v)
			}
		}
		for k, v := range got {
			if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
				t.Errorf("%s: label %s = %q, which the API server rejects: %s", what, k, v, strings.Join(errs, "; "))
			}
		}
	}
	for _, o := range b.objects {
		check(o.GetName(), o.GetLabels())
	}
	check("the pod template", b.deploy.Spec.Template.Labels)
}

// TestKustomizeVersionFollowsImage checks that the version label follows an
// image set elsewhere than in the base's own images: an overlay of one's own
// that lists ../version as its transformer, a registry with a port, whose
// colon must not be taken for the tag's, and an image pinned by tag and
// digest, whose label is the tag alone (checkRecommendedLabels also checks
// that every label is one the API server accepts).
func TestKustomizeVersionFollowsImage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, image string
		overlayOn   string // the overlay of one's own builds on it; empty: the base's images: is edited, ha built
	}{
		{name: "own overlay on base", image: "ghcr.io/mailbot/mailbot:v9.8.7", overlayOn: "base"},
		{name: "own overlay on ha, registry with a port", image: "registry.local:5000/mailbot:v1.0.0", overlayOn: "ha"},
		{name: "own overlay, a local image", image: "mailbot:dev", overlayOn: "base"},
		{name: "base edited, registry with a port", image: "registry.local:5000/ops/mailbot:v1.0.0"},
		{name: "own overlay, tag and digest", image: "ghcr.io/mailbot/mailbot:v1.0.0@" + testDigest, overlayOn: "base"},
		{name: "own overlay on ha, registry with a port, tag and digest", image: "registry.local:5000/mailbot:v1.0.0-rc.1@" + testDigest, overlayOn: "ha"},
		{name: "base edited, tag and digest", image: "registry.local:5000/ops/mailbot:v1.0.0@" + testDigest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fsys := manifestsFS(t)
			dir := path.Join(kubernetesDir, "ha")
			if tc.overlayOn != "" {
				dir = path.Join(kubernetesDir, "mine")
				writeOwnOverlay(t, fsys, dir, tc.overlayOn, tc.image)
			} else {
				setBaseImage(t, fsys, path.Join(baseDir, "kustomization.yaml"), tc.image)
			}
			b := kustomizeObjects(t, fsys, dir)
			if b.container.Image != tc.image {
				t.Errorf("image = %q, want %q", b.container.Image, tc.image)
			}
			_, tag := imageTag(tc.image)
			checkRecommendedLabels(t, b, tag)
		})
	}
}

// testDigest is an image digest, as kustomize's images: takes it.
const testDigest = "sha256:8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4"

// imageDigest is the digest of an image reference ("sha256:…"), or "".
func imageDigest(image string) string {
	_, digest, _ := strings.Cut(image, "@")
	return digest
}

// imageEntry is the fields of an images: entry that give image: newName,
// and newTag and digest where image has them.
func imageEntry(image string) string {
	name, tag := imageTag(image)
	e := "    newName: " + name + "\n"
	if tag != "" {
		e += "    newTag: " + tag + "\n"
	}
	if d := imageDigest(image); d != "" {
		e += "    digest: " + d + "\n"
	}
	return e
}

// TestKustomizeVersionDigestAlone checks that an image pinned by digest
// alone, with no tag for the version label, fails the build, as the version
// transformer's comment and docs/operations.md say, rather than labelling
// the pods wrongly.
func TestKustomizeVersionDigestAlone(t *testing.T) {
	t.Parallel()
	fsys := manifestsFS(t)
	dir := path.Join(kubernetesDir, "mine")
	writeOwnOverlay(t, fsys, dir, "base", "registry.local:5000/mailbot@"+testDigest)
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fsys, dir)
	if err == nil {
		for _, r := range res.Resources() {
			t.Errorf("%s: labels %v", r.CurId(), r.GetLabels())
		}
		t.Fatal("an image pinned by digest alone builds; want the build to fail")
	}
	if !strings.Contains(err.Error(), "options.index 1 is out of bounds") {
		t.Errorf("kustomize build: %v; want the version transformer's failure to find the tag", err)
	}
}

// writeOwnOverlay writes, in dir, an overlay of one's own as the version
// transformer's comment shows it: built on ../on, with image in images:.
func writeOwnOverlay(t *testing.T, fsys filesys.FileSystem, dir, on, image string) {
	t.Helper()
	k := "resources: [../" + on + "]\nimages:\n  - name: ghcr.io/mailbot/mailbot\n" + imageEntry(image) +
		"transformers: [../version]\n"
	if err := fsys.WriteFile(path.Join(dir, "kustomization.yaml"), []byte(k)); err != nil {
		t.Fatal(err)
	}
}

// setBaseImage points the base's images: entry (in the kustomization at p)
// at image, as kustomize edit set image writes it.
func setBaseImage(t *testing.T, fsys filesys.FileSystem, p, image string) {
	t.Helper()
	b, err := fsys.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^(  - name: ghcr\.io/mailbot/mailbot\n)    newTag: .*\n`)
	out := re.ReplaceAllLiteralString(string(b), "  - name: ghcr.io/mailbot/mailbot\n"+imageEntry(image))
	if out == string(b) {
		t.Fatalf("%s: no images: entry for ghcr.io/mailbot/mailbot to change", p)
	}
	if err := fsys.WriteFile(p, []byte(out)); err != nil {
		t.Fatal(err)
	}
}

// TestKustomizeConfigMapRollsPods checks that the ConfigMap's name follows
// its content and that the Deployment follows the name: changing a setting
// changes the pod template, which rolls the pods.
func TestKustomizeConfigMapRollsPods(t *testing.T) {
	t.Parallel()
	fsys := manifestsFS(t)
	before := builtVariants(t)
	envPath := filepath.Join(baseDir, "mailbot.env")
	env, err := fsys.ReadFile(envPath)
	if err != nil {
		t.Fatal(err)
	}
	changed := regexp.MustCompile(`(?m)^MAILBOT_LOG_LEVEL=.*$`).ReplaceAll(env, []byte("MAILBOT_LOG_LEVEL=debug"))
	if string(changed) == string(env) {
		t.Fatalf("%s: no MAILBOT_LOG_LEVEL line to change", envPath)
	}
	if err := fsys.WriteFile(envPath, changed); err != nil {
		t.Fatal(err)
	}
	for _, dir := range variants {
		b, after := before[dir], kustomize(t, fsys, dir)
		name := b.configMap.Name
		if !strings.HasPrefix(name, "mailbot-") {
			t.Errorf("%s: ConfigMap %q has no content hash in its name", dir, name)
		}
		if refs := configMapRefs(b.container); !cmp.Equal(refs, []string{name}) {
			t.Errorf("%s: the container reads ConfigMaps %q, want [%s]", dir, refs, name)
		}
		if after.configMap.Data["MAILBOT_LOG_LEVEL"] != "debug" {
			t.Fatalf("%s: the changed setting did not reach the ConfigMap", dir)
		}
		if after.configMap.Name == name {
			t.Errorf("%s: the ConfigMap's name %q did not change with its content", dir, name)
		}
		if cmp.Equal(b.deploy.Spec.Template, after.deploy.Spec.Template) {
			t.Errorf("%s: a changed setting leaves the pod template as it was: the pods would not roll", dir)
		}
	}
}

// configMapRefs are the ConfigMaps a container reads through envFrom.
func configMapRefs(c *corev1.Container) []string {
	var names []string
	for _, ef := range c.EnvFrom {
		if ef.ConfigMapRef != nil {
			names = append(names, ef.ConfigMapRef.Name)
		}
	}
	return names
}

// TestKustomizeBase checks the base's shape: one replica, never two at once,
// state in the process.
func TestKustomizeBase(t *testing.T) {
	t.Parallel()
	b := builtVariants(t)[kubernetesDir]
	spec := b.deploy.Spec
	if spec.Replicas == nil || *spec.Replicas != 1 {
		t.Errorf("replicas = %s, want exactly 1: without a database the guard that runs an approval once is per process", ptrString(spec.Replicas))
	}
	if spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("strategy = %q, want Recreate, so that two pods never hold a socket at once", spec.Strategy.Type)
	}
	if env := envVar(b.container, databaseURLVar); env != nil {
		t.Errorf("the base sets %s: the base keeps its state in the process", databaseURLVar)
	}
	if len(b.pdbs) > 0 {
		t.Error("the base has a PodDisruptionBudget: with one replica it would block every drain")
	}
}

// envVar is the container's variable name, or nil.
func envVar(c *corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

// TestKustomizeHA checks the overlay: two replicas that roll without a gap,
// a disruption budget, spread over nodes, the database URL from the Secret,
// and otherwise the base's Deployment unchanged.
func TestKustomizeHA(t *testing.T) {
	t.Parallel()
	bs := builtVariants(t)
	base, ha := bs[kubernetesDir], bs[haDir]
	spec := ha.deploy.Spec
	if spec.Replicas == nil || *spec.Replicas < 2 {
		t.Errorf("replicas = %s, want at least 2", ptrString(spec.Replicas))
	}
	ru := spec.Strategy.RollingUpdate
	if spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || ru == nil ||
		ru.MaxUnavailable == nil || ru.MaxUnavailable.String() != "0" || ru.MaxSurge == nil || ru.MaxSurge.String() == "0" {
		t.Errorf("strategy = %+v, want RollingUpdate with maxUnavailable 0 and a surge", spec.Strategy)
	}
	podLabels := labels.Set(spec.Template.Labels)
	checkHAPDB(t, ha.pdbs, podLabels, spec.Replicas)
	checkHASpread(t, spec.Template.Spec.TopologySpreadConstraints, podLabels)

	if _, ok := configVars(t)[databaseURLVar]; !ok {
		t.Fatalf("config has no variable %s", databaseURLVar)
	}
	env := envVar(ha.container, databaseURLVar)
	if env == nil || env.ValueFrom == nil || env.ValueFrom.SecretKeyRef == nil {
		t.Fatalf("the overlay does not set %s from the Secret (secretKeyRef): %+v", databaseURLVar, env)
	}
	ref := env.ValueFrom.SecretKeyRef
	if ref.Name != ha.secret.Name || ha.secret.StringData[ref.Key] == "" {
		t.Errorf("%s: secretKeyRef %s/%s, want a key of the overlay's Secret example %q", databaseURLVar, ref.Name, ref.Key, ha.secret.Name)
	}
	if ref.Optional != nil && *ref.Optional {
		t.Errorf("%s: the secretKeyRef is optional: a pod without the database would run as a lone replica", databaseURLVar)
	}

	// Apart from what makes it highly available, the base's Deployment.
	want, got := base.deploy.DeepCopy(), ha.deploy.DeepCopy()
	want.Spec.Replicas, want.Spec.Strategy = got.Spec.Replicas, got.Spec.Strategy
	want.Spec.Template.Spec.TopologySpreadConstraints = got.Spec.Template.Spec.TopologySpreadConstraints
	c := &got.Spec.Template.Spec.Containers[0]
	c.Env = slices.DeleteFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == databaseURLVar })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the overlay's Deployment differs from the base's beyond replicas, strategy, spread and %s (-base +ha):\n%s", databaseURLVar, diff)
	}
	if diff := cmp.Diff(base.configMap, ha.configMap); diff != "" {
		t.Errorf("the overlay changes the base's ConfigMap (-base +ha):\n%s", diff)
	}
}

// checkHAPDB checks for one PodDisruptionBudget that keeps a pod of the
// Deployment up and still lets a drain evict the others.
func checkHAPDB(t *testing.T, pdbs []*policyv1.PodDisruptionBudget, pod labels.Set, replicas *int32) {
	t.Helper()
	if len(pdbs) != 1 {
		t.Fatalf("the overlay has %d PodDisruptionBudgets, want 1", len(pdbs))
	}
	pdb := pdbs[0]
	if pdb.Spec.MinAvailable == nil || pdb.Spec.MinAvailable.String() != "1" || pdb.Spec.MaxUnavailable != nil {
		t.Errorf("PodDisruptionBudget minAvailable = %v, maxUnavailable = %v, want minAvailable 1 only",
			pdb.Spec.MinAvailable, pdb.Spec.MaxUnavailable)
	}
	if replicas != nil && *replicas <= 1 {
		t.Errorf("minAvailable 1 with %d replicas would block every drain", *replicas)
	}
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil || sel.Empty() || !sel.Matches(pod) {
		t.Errorf("PodDisruptionBudget selector %v does not select the pods %v (%v)", pdb.Spec.Selector, pod, err)
	}
}

// checkHASpread checks for a hard spread of the Deployment's pods over nodes.
func checkHASpread(t *testing.T, tscs []corev1.TopologySpreadConstraint, pod labels.Set) {
	t.Helper()
	for _, c := range tscs {
		sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		if err != nil || sel.Empty() || !sel.Matches(pod) {
			t.Errorf("spread over %s: selector %v does not select the pods %v (%v)", c.TopologyKey, c.LabelSelector, pod, err)
			continue
		}
		if c.TopologyKey == corev1.LabelHostname && c.MaxSkew == 1 && c.WhenUnsatisfiable == corev1.DoNotSchedule {
			return
		}
	}
	t.Errorf("no topology spread constraint over %s with maxSkew 1 and DoNotSchedule: %+v", corev1.LabelHostname, tscs)
}
