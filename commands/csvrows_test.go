package commands_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mailbot/mailbot/commands"
)

func TestParseRows(t *testing.T) {
	text := "address,owner,given,family\n\n# comment\nada@example.com, UADA ,Ada,Lovelace\n\"bob@example.com\",,Bob\n  \ncarl@example.com,\"x\"y\"\nd,e,f,g,h\n"
	rows, problems, more := commands.ParseRows(text, 10)
	if more || len(rows) != 2 {
		t.Fatalf("rows = %+v, more %v", rows, more)
	}
	if rows[0] != (commands.RawRow{Line: 4, Address: "ada@example.com", Owner: "UADA", Given: "Ada", Family: "Lovelace"}) {
		t.Errorf("row 1 = %+v", rows[0])
	}
	if rows[1] != (commands.RawRow{Line: 5, Address: "bob@example.com", Given: "Bob"}) {
		t.Errorf("row 2 = %+v", rows[1])
	}
	if len(problems) != 2 || problems[0].Line != 7 || problems[1].Line != 8 {
		t.Errorf("problems = %+v; want lines 7 (bad quote) and 8 (five fields)", problems)
	}
	if _, _, more := commands.ParseRows("a@x.com\nb@x.com\nc@x.com", 2); !more {
		t.Error("3 rows with a limit of 2: more not reported")
	}
}

// FuzzParseRows: whatever the input, the parser ends, keeps within the
// limit, gives rows with an address and at most four trimmed fields, and
// numbers rows and problems with lines of the input.
func FuzzParseRows(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/fuzz/FuzzParseRows/*")
	if len(seeds) == 0 {
		f.Fatal("no seeds under testdata/fuzz/FuzzParseRows")
	}
	f.Fuzz(func(t *testing.T, text string) {
		const limit = 50
		rows, problems, _ := commands.ParseRows(text, limit)
		lines := strings.Count(text, "\n") + 1
		if len(rows) > limit {
			t.Fatalf("%d rows past the limit %d", len(rows), limit)
		}
		last := 0
		for _, r := range rows {
			if r.Line < 1 || r.Line > lines || r.Line < last {
				t.Fatalf("row at line %d of %d (previous %d)", r.Line, lines, last)
			}
			last = r.Line
			for _, s := range []string{r.Address, r.Owner, r.Given, r.Family} {
				if s != strings.TrimSpace(s) {
					t.Fatalf("field %q not trimmed", s)
				}
			}
			if r.Address == "" && r.Owner == "" && r.Given == "" && r.Family == "" {
				t.Fatal("a blank row kept")
			}
		}
		for _, p := range problems {
			if p.Line < 0 || p.Line > lines || !utf8.ValidString(p.String()) && utf8.ValidString(text) {
				t.Fatalf("problem %+v", p)
			}
		}
	})
}

// TestFuzzParseRowsSeeds writes nothing: it checks that every seed is in
// the corpus format, so that the fuzz test reads them.
func TestFuzzParseRowsSeeds(t *testing.T) {
	seeds, _ := filepath.Glob("testdata/fuzz/FuzzParseRows/*")
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil || !strings.HasPrefix(string(b), "go test fuzz v1\n") {
			t.Errorf("%s: not a corpus file (%v)", s, err)
		}
	}
}
