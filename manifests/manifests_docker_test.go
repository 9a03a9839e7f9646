package manifests_test

// The image and CI against the code and each other: the build flags, the
// final stage, OCI labels, the user, the build context, and the checks that
// CI runs.

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
	b, err := os.ReadFile(fromRoot(path))
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
	// The variables that -X stamps exist in package main, as strings.
	vars := mainStringVars(t)
	for _, v := range []string{"version", "commit"} {
		if !vars[v] {
			t.Errorf("-X main.%s: package main has no string variable %s", v, v)
		}
	}
}

// dockerStages reads a Dockerfile's instructions, continuation lines
// joined, comments and blank lines left out, stage by stage.
func dockerStages(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile(fromRoot(dockerfile))
	if err != nil {
		t.Fatal(err)
	}
	var stages [][]string
	for l := range strings.Lines(strings.ReplaceAll(string(b), "\\\n", " ")) {
		l = strings.TrimSpace(l)
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, "FROM "):
			stages = append(stages, []string{l})
		case len(stages) == 0:
			t.Fatalf("%s: %q before the first FROM", dockerfile, l)
		default:
			stages[len(stages)-1] = append(stages[len(stages)-1], l)
		}
	}
	if len(stages) < 2 {
		t.Fatalf("Dockerfile has %d stages, want a build stage and a final one", len(stages))
	}
	return stages
}

func TestManifestDockerfileImage(t *testing.T) {
	t.Parallel()
	stages := dockerStages(t)
	build, final := stages[0], stages[len(stages)-1]
	if !strings.Contains(build[0], "golang:1.26") {
		t.Errorf("build stage %q: want golang:1.26", build[0])
	}
	download := slices.IndexFunc(build, func(l string) bool { return strings.Contains(l, "go mod download") })
	copyAll := slices.Index(build, "COPY . .")
	if download < 0 || copyAll < 0 || download > copyAll {
		t.Error("go mod download does not run, in its own layer, before COPY . .")
	}
	image := strings.Fields(final[0])[1]
	if !regexp.MustCompile(`^gcr\.io/distroless/static-debian1\d:nonroot(@sha256:[0-9a-f]{64})?$`).MatchString(image) {
		t.Errorf("final image %q: want gcr.io/distroless/static-debian1x:nonroot", image)
	}
	uid := strconv.Itoa(distrolessNonrootUID)
	for _, want := range []string{
		"COPY --from=build " + parseGoBuild(t, dockerfile).Output + " /mailbot",
		// Numeric, so that the kubelet can check runAsNonRoot.
		"USER " + uid + ":" + uid,
		"EXPOSE " + strconv.Itoa(defaultHTTPPort(t)),
		`ENTRYPOINT ["/mailbot"]`,
		`CMD ["serve"]`,
	} {
		if !slices.Contains(final, want) {
			t.Errorf("final stage lacks %q", want)
		}
	}
	for _, l := range final {
		if strings.HasPrefix(l, "RUN ") || strings.HasPrefix(l, "SHELL ") {
			t.Errorf("final stage runs %q: the distroless image has no shell", l)
		}
	}
	checkOCILabels(t, final)
}

// checkOCILabels checks the final stage's OCI labels: the source, and the
// version, revision and creation time from build args declared in the stage
// (an ARG of an earlier stage is out of scope there and would expand empty).
func checkOCILabels(t *testing.T, stage []string) {
	t.Helper()
	labels, args := map[string]string{}, map[string]bool{}
	for _, l := range stage {
		kind, rest, _ := strings.Cut(l, " ")
		for _, w := range shellWords(rest) {
			k, v, _ := strings.Cut(w, "=")
			switch kind {
			case "LABEL":
				labels[k] = v
			case "ARG":
				args[k] = true
			}
		}
	}
	const p = "org.opencontainers.image."
	if src := labels[p+"source"]; !strings.HasPrefix(src, "https://") {
		t.Errorf("label %ssource = %q, want the repository's https URL", p, src)
	}
	for key, arg := range map[string]string{"version": "VERSION", "revision": "COMMIT", "created": "CREATED"} {
		if got := labels[p+key]; got != "${"+arg+"}" {
			t.Errorf("label %s%s = %q, want ${%s}", p, key, got, arg)
		}
		if !args[arg] {
			t.Errorf("the final stage does not declare ARG %s: %s%s would be empty", arg, p, key)
		}
	}
}

// TestManifestDockerignore checks that the build context leaves out what the
// build does not read, and keeps what it does.
func TestManifestDockerignore(t *testing.T) {
	t.Parallel()
	ignore, err := os.ReadFile(fromRoot(".dockerignore"))
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

// TestManifestCIRunsTheChecks checks that CI runs the linters pinned in
// go.mod (actionlint on the workflows), and the PostgreSQL tests without
// the skip.
func TestManifestCIRunsTheChecks(t *testing.T) {
	t.Parallel()
	ci, err := os.ReadFile(fromRoot(ciScript))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(fromRoot("go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for tool, pkg := range map[string]string{
		"staticcheck": "honnef.co/go/tools/cmd/staticcheck",
		"errcheck":    "github.com/kisielk/errcheck",
	} {
		if !regexp.MustCompile(`(?m)^\s*(tool\s+)?` + regexp.QuoteMeta(pkg) + `\s*$`).Match(mod) {
			t.Errorf("go.mod does not pin %s with a tool directive", pkg)
		}
		if !regexp.MustCompile(`(?m)^[^#\n]*go tool ` + tool + `\b[^#\n]* \./\.\.\.`).Match(ci) {
			t.Errorf("%s does not run go tool %s ./...", ciScript, tool)
		}
	}
	if !regexp.MustCompile(`(?m)^\s*(tool\s+)?github\.com/rhysd/actionlint/cmd/actionlint\s*$`).Match(mod) {
		t.Error("go.mod does not pin actionlint with a tool directive")
	}
	if !regexp.MustCompile(`(?m)^\s*go tool actionlint\s*$`).Match(ci) {
		t.Errorf("%s does not run go tool actionlint on the workflows", ciScript)
	}
	if !regexp.MustCompile(`(?m)^[^#\n]*MAILBOT_TEST_POSTGRES=required[^#\n]*go test `).Match(ci) {
		t.Errorf("%s does not run go test with MAILBOT_TEST_POSTGRES=required", ciScript)
	}
}
