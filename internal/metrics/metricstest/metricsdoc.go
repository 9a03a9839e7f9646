package metricstest

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// DocFamily is one row of the metrics table of docs/metrics.md: the type
// and, by label name, the values the label may take (nil: any value).
type DocFamily struct {
	Kind   string
	Labels map[string][]string
}

var backticked = regexp.MustCompile("`([^`]*)`")

// ReadDoc reads the metrics table of the Markdown file at path (rows
// "| `mailbot_…` | type | `label`: `value`, …; … |"), failing t on a row
// it cannot read, a family listed twice, or a table of fewer than 10 rows.
func ReadDoc(t testing.TB, path string) map[string]DocFamily {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := make(map[string]DocFamily)
	for line := range strings.SplitSeq(string(raw), "\n") {
		if !strings.HasPrefix(line, "| `mailbot_") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) != 5 {
			t.Fatalf("%s: metrics row %q: want 3 cells", path, line)
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		f := DocFamily{Kind: strings.TrimSpace(cells[2]), Labels: make(map[string][]string)}
		for clause := range strings.SplitSeq(cells[3], ";") {
			label, values, ok := strings.Cut(clause, ":")
			if !ok {
				continue
			}
			var vs []string
			for _, m := range backticked.FindAllStringSubmatch(values, -1) {
				vs = append(vs, m[1])
			}
			f.Labels[strings.Trim(strings.TrimSpace(label), "`")] = vs
		}
		if _, dup := doc[name]; dup {
			t.Fatalf("%s lists %s twice", path, name)
		}
		doc[name] = f
	}
	if len(doc) < 10 {
		t.Fatalf("%s's metrics table has %d rows; did its format change?", path, len(doc))
	}
	return doc
}
