package manifests_test

// The release pipeline: the GitHub Actions workflows against .ci/run, the
// Dockerfile and the manifests, and the pinned image tag against the newest
// version of CHANGELOG.md. actionlint (run by .ci/run) checks the
// workflows' syntax and expressions; these tests check what they do.

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	yamlv3 "go.yaml.in/yaml/v3"
)

const (
	changelogPath   = "CHANGELOG.md"
	ciWorkflow      = ".github/workflows/ci.yml"
	releaseWorkflow = ".github/workflows/release.yml"
)

// workflow is the part of a GitHub Actions workflow these tests read.
type workflow struct {
	On   map[string]any `yaml:"on"`
	Jobs map[string]struct {
		Uses  string         `yaml:"uses"`
		Needs any            `yaml:"needs"`
		Steps []workflowStep `yaml:"steps"`
	} `yaml:"jobs"`
}

type workflowStep struct {
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
}

func readWorkflow(t *testing.T, path string) workflow {
	t.Helper()
	b, err := os.ReadFile(fromRoot(path))
	if err != nil {
		t.Fatal(err)
	}
	// YAML 1.2, as GitHub reads it: the key on is a string, not true.
	var w workflow
	if err := yamlv3.Unmarshal(b, &w); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return w
}

// changelogVersion matches a version heading: "## [1.2.3] - 2026-11-30",
// or "- Unreleased" while the release is being prepared.
var changelogVersion = regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\] - (\d{4}-\d{2}-\d{2}|Unreleased)$`)

// unreleasedTag is the base's pin while the newest version of
// CHANGELOG.md is not released: it names no image that could exist, so
// that nobody deploys a tag that was never published.
const unreleasedTag = "unreleased"

// TestManifestReleasePin checks that the manifests pin the newest version
// of CHANGELOG.md once it is released (dated), and unreleasedTag while it
// is not; CHANGELOG.md names the metrics this release renames.
func TestManifestReleasePin(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(fromRoot(changelogPath))
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	m := changelogVersion.FindStringSubmatch(log)
	if m == nil {
		t.Fatalf("%s has no version heading (## [X.Y.Z] - YYYY-MM-DD or - Unreleased)", changelogPath)
	}
	for _, l := range strings.Split(log, "\n") {
		if strings.HasPrefix(l, "## ") && l != "## [Unreleased]" && !changelogVersion.MatchString(l) {
			t.Errorf("%s: heading %q is neither ## [Unreleased] nor ## [X.Y.Z] - YYYY-MM-DD", changelogPath, l)
		}
	}
	want := "v" + m[1]
	if m[2] == "Unreleased" {
		want = unreleasedTag
	}
	forEachVariant(t, func(t *testing.T, kb kubeBuild) {
		if _, tag := imageTag(kb.container.Image); tag != want {
			t.Errorf("the manifests pin %s, want %s (the newest version of %s is %s, %s)", tag, want, changelogPath, m[1], m[2])
		}
	})
	for _, name := range []string{
		"mailbot_pdd_requests_total", "mailbot_provider_requests_total",
		"mailbot_pdd_request_duration_seconds", "mailbot_provider_request_duration_seconds",
		"mailbot_pdd_retries_total", "mailbot_provider_retries_total",
		"mailbot_database_up",
	} {
		if !strings.Contains(log, "`"+name) {
			t.Errorf("%s does not name the metric %s", changelogPath, name)
		}
	}
}

// TestManifestReleaseBuildMatchesCI checks that the release's binaries are
// built as CI and the image build them.
func TestManifestReleaseBuildMatchesCI(t *testing.T) {
	t.Parallel()
	ci, release := parseGoBuild(t, ciScript), parseGoBuild(t, releaseWorkflow)
	ci.Output, release.Output = "", ""
	if diff := cmp.Diff(ci, release); diff != "" {
		t.Errorf("the release workflow's go build differs from .ci/run's (-ci +release):\n%s", diff)
	}
}

// TestManifestWorkflows checks the triggers, that CI runs .ci/run, and that
// the release pushes both platforms of the manifests' image, stamped by the
// Dockerfile's build args, after CI and the pin check.
func TestManifestWorkflows(t *testing.T) {
	t.Parallel()
	ci := readWorkflow(t, ciWorkflow)
	for _, event := range []string{"push", "pull_request", "workflow_call"} {
		if _, ok := ci.On[event]; !ok {
			t.Errorf("%s does not run on %s", ciWorkflow, event)
		}
	}
	if !slices.ContainsFunc(ci.Jobs["ci"].Steps, func(s workflowStep) bool { return strings.TrimSpace(s.Run) == ciScript }) {
		t.Errorf("%s: job ci does not run %s", ciWorkflow, ciScript)
	}

	rel := readWorkflow(t, releaseWorkflow)
	push, _ := rel.On["push"].(map[string]any)
	if tags, _ := push["tags"].([]any); !slices.Equal(tags, []any{"v*"}) {
		t.Errorf("%s runs on push tags %v, want [v*]", releaseWorkflow, push["tags"])
	}
	if rel.Jobs["ci"].Uses != "./"+ciWorkflow {
		t.Errorf("%s: job ci uses %q, want ./%s", releaseWorkflow, rel.Jobs["ci"].Uses, ciWorkflow)
	}
	checkReleaseImage(t, rel)
}

// checkReleaseImage checks the job that builds and pushes the image.
func checkReleaseImage(t *testing.T, rel workflow) {
	t.Helper()
	job := rel.Jobs["image"]
	if !slices.Equal(job.Needs.([]any), []any{"ci", "check"}) {
		t.Errorf("job image needs %v, want [ci check]", job.Needs)
	}
	with := map[string]map[string]string{}
	for _, s := range job.Steps {
		action, _, _ := strings.Cut(s.Uses, "@")
		with[action] = s.With
	}
	build, meta := with["docker/build-push-action"], with["docker/metadata-action"]
	if build == nil || meta == nil {
		t.Fatalf("job image has no docker/build-push-action or docker/metadata-action step")
	}
	if got := strings.Split(build["platforms"], ","); !slices.Equal(got, []string{"linux/amd64", "linux/arm64"}) {
		t.Errorf("platforms %q, want linux/amd64,linux/arm64", build["platforms"])
	}
	if build["push"] != "true" {
		t.Errorf("push %q, want true", build["push"])
	}
	// The image's name is the repository's in the registry: the one the
	// manifests pin for the repository that the Dockerfile's source names.
	if meta["images"] != "ghcr.io/${{ github.repository }}" {
		t.Errorf("images %q, want ghcr.io/${{ github.repository }}", meta["images"])
	}
	repo := strings.TrimPrefix(dockerLabel(t, "org.opencontainers.image.source"), "https://github.com/")
	forEachVariant(t, func(t *testing.T, kb kubeBuild) {
		if name, _ := imageTag(kb.container.Image); name != "ghcr.io/"+repo {
			t.Errorf("the manifests pin %s, want ghcr.io/%s, which the release pushes", name, repo)
		}
	})
	for _, arg := range []string{"VERSION", "COMMIT", "CREATED"} {
		if !regexp.MustCompile(`(?m)^` + arg + `=\S`).MatchString(build["build-args"]) {
			t.Errorf("build-args %q do not set %s, which the image's labels read", build["build-args"], arg)
		}
	}
}

// dockerLabel is the value of a LABEL of the Dockerfile's final stage.
func dockerLabel(t *testing.T, key string) string {
	t.Helper()
	stages := dockerStages(t)
	for _, l := range stages[len(stages)-1] {
		if rest, ok := strings.CutPrefix(l, "LABEL "); ok {
			for _, w := range shellWords(rest) {
				if k, v, _ := strings.Cut(w, "="); k == key {
					return v
				}
			}
		}
	}
	t.Fatalf("%s: no LABEL %s in the final stage", dockerfile, key)
	return ""
}

// pinnedAction is a step's uses: of an action of another repository,
// pinned to a full commit SHA with its tag in a comment.
var pinnedAction = regexp.MustCompile(`^\s*(?:- )?uses: [\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+(?:\.\d+){0,2}\s*$`)

// TestWorkflowActionsPinnedBySHA checks that every action the workflows
// take from another repository is pinned to a full commit SHA, with the
// tag it stands for in a comment: a tag can be moved, a commit cannot.
func TestWorkflowActionsPinnedBySHA(t *testing.T) {
	t.Parallel()
	for _, path := range []string{ciWorkflow, releaseWorkflow} {
		b, err := os.ReadFile(fromRoot(path))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if !strings.Contains(line, "uses:") || strings.Contains(line, "uses: ./") {
				continue
			}
			if !pinnedAction.MatchString(line) {
				t.Errorf("%s:%d: %q is not pinned to a commit SHA with its tag in a comment", path, i+1, strings.TrimSpace(line))
			}
		}
	}
}
