package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDocsCommandsResolve: every `go test` and `go run` command that the
// README and docs/ give does what they say it does: each package exists,
// a -run pattern (when it is what the command runs) names at least one
// test, a -bench pattern at least one benchmark, a -fuzz pattern exactly
// one fuzz target (go test refuses more), and `go run .`'s arguments parse
// as mailbot's command line. Test names are read from the packages' test
// files, so nothing is compiled.
func TestDocsCommandsResolve(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("docs/*.md")
	files = append(files, "README.md", "ARCHITECTURE.md")
	n := 0
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, cmd := range docCommands(string(text)) {
			n++
			if problem := checkDocCommand(cmd); problem != "" {
				t.Errorf("%s: `%s`: %s", file, cmd, problem)
			}
		}
	}
	if n < 10 {
		t.Errorf("found %d commands in the docs, want the many they give", n)
	}
}

var (
	fenceRe    = regexp.MustCompile("(?ms)^```[a-z]*\n(.*?)^```")
	codeSpanRe = regexp.MustCompile("`([^`]+)`")
	goCmdRe    = regexp.MustCompile(`go (test|run)\b.*`)
)

// docCommands is every go test and go run command in the markdown text:
// in code blocks (a line each, without a trailing # comment) and in code
// spans (which may run over a line end).
func docCommands(text string) []string {
	var snippets []string
	for _, m := range fenceRe.FindAllStringSubmatch(text, -1) {
		snippets = append(snippets, strings.Split(m[1], "\n")...)
	}
	for _, m := range codeSpanRe.FindAllStringSubmatch(fenceRe.ReplaceAllString(text, ""), -1) {
		snippets = append(snippets, strings.Join(strings.Fields(m[1]), " "))
	}
	var cmds []string
	for _, s := range snippets {
		if m := strings.TrimSpace(unquotedHead(goCmdRe.FindString(s))); strings.Count(m, " ") > 1 {
			cmds = append(cmds, m)
		}
	}
	return cmds
}

// unquotedHead is s up to its first unquoted |, ; or # (a pipe, the next
// command, a comment).
func unquotedHead(s string) string {
	quote := rune(0)
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '|' || r == ';' || r == '#':
			return s[:i]
		}
	}
	return s
}

// shellWords splits a command as a shell would, for the quoting the docs
// use: single and double quotes.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	quote, in := rune(0), false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words, in = append(words, cur.String()), false
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// checkDocCommand says what is wrong with one command, or "".
func checkDocCommand(cmd string) string {
	words := shellWords(cmd)
	if len(words) < 3 {
		return "incomplete"
	}
	if words[1] == "run" {
		if words[2] != "." {
			return "runs " + words[2] + ", not mailbot"
		}
		if _, err := parseArgs(words[3:], &bytes.Buffer{}); err != nil {
			return "mailbot refuses its arguments: " + err.Error()
		}
		return ""
	}
	flags, pkgs := testArgs(words[2:])
	names, problem := testNames(pkgs)
	if problem != "" {
		return problem
	}
	return checkPatterns(flags, names)
}

// testArgs splits go test's arguments into flags with values and packages.
func testArgs(args []string) (map[string]string, []string) {
	valued := map[string]bool{"run": true, "bench": true, "benchtime": true, "count": true, "fuzz": true, "fuzztime": true, "timeout": true, "cpu": true, "tags": true}
	flags := map[string]string{}
	var pkgs []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			pkgs = append(pkgs, a)
			continue
		}
		name, value, ok := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !ok && valued[name] && i+1 < len(args) {
			i++
			value = args[i]
		}
		flags[name] = value
	}
	if len(pkgs) == 0 {
		pkgs = []string{"."}
	}
	return flags, pkgs
}

// testNames lists the Test, Benchmark and Fuzz functions of the packages'
// test files, or says which package does not exist.
func testNames(pkgs []string) ([]string, string) {
	out, err := exec.Command("go", append([]string{"list", "-f", "{{.Dir}}|{{join .TestGoFiles \" \"}} {{join .XTestGoFiles \" \"}}"}, pkgs...)...).CombinedOutput()
	if err != nil {
		return nil, "no such package: " + strings.TrimSpace(string(out))
	}
	funcRe := regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz)\w*)\(`)
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		dir, files, _ := strings.Cut(line, "|")
		for _, f := range strings.Fields(files) {
			src, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				return nil, err.Error()
			}
			for _, m := range funcRe.FindAllStringSubmatch(string(src), -1) {
				names = append(names, m[1])
			}
		}
	}
	return names, ""
}

// checkPatterns checks -run, -bench and -fuzz against the names.
func checkPatterns(flags map[string]string, names []string) string {
	count := func(prefix, pattern string) (int, string) {
		re, err := regexp.Compile(strings.Split(pattern, "/")[0])
		if err != nil {
			return 0, "bad pattern " + pattern
		}
		n := 0
		for _, name := range names {
			if strings.HasPrefix(name, prefix) && re.MatchString(name) {
				n++
			}
		}
		return n, ""
	}
	if p, ok := flags["fuzz"]; ok {
		if n, bad := count("Fuzz", p); bad != "" || n != 1 {
			return "-fuzz " + p + " matches " + strconv.Itoa(n) + " fuzz targets, want exactly 1" + bad
		}
	}
	if p, ok := flags["bench"]; ok {
		if n, bad := count("Benchmark", p); bad != "" || n == 0 {
			return "-bench " + p + " matches no benchmark" + bad
		}
	}
	_, benchOrFuzz := flags["bench"]
	if _, ok := flags["fuzz"]; ok {
		benchOrFuzz = true
	}
	if p, ok := flags["run"]; ok && !benchOrFuzz {
		if n, bad := count("Test", p); bad != "" || n == 0 {
			return "-run " + p + " matches no test" + bad
		}
	}
	return ""
}
