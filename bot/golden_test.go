package bot_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The -update flag rewrites the golden files in testdata. It is defined
// here unless another test file of the binary (package bot's own) defined
// it first.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata")
	}
}

func updating() bool { return flag.Lookup("update").Value.String() == "true" }

// golden compares v, as indented JSON with replace applied (old, new,
// old, new…: what differs between runs, such as request IDs and signed
// values), with testdata/name.golden.
func golden(t testing.TB, name string, v any, replace ...string) {
	t.Helper()
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.NewReplacer(replace...).Replace(string(raw)) + "\n"
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./bot -run %s -update to write it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

// signed replaces every signed value in v (a decoded JSON value: button
// values, private_metadata) by "SIGNED-kind", in place, and returns v.
func signed(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if s, ok := e.(string); ok && (k == "value" || k == "private_metadata") {
				for _, kind := range []string{"p1", "f1", "c1"} {
					if strings.HasPrefix(s, kind+".") && strings.Count(s, ".") == 2 {
						v[k] = "SIGNED-" + kind
					}
				}
				continue
			}
			signed(e)
		}
	case []any:
		for _, e := range v {
			signed(e)
		}
	}
	return v
}
