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

// TestParseRowsAsPeopleHaveThem: CSV files as spreadsheets and admin
// consoles write them: a UTF-8 byte-order mark, a header in any case with
// notes in brackets and other names for the columns, columns in any order
// and others ignored (the Google Admin console's bulk-user file as it is),
// and a header separated by ';' making the file ';'-separated.
func TestParseRowsAsPeopleHaveThem(t *testing.T) {
	nina := commands.RawRow{Line: 2, Address: "nina@example.com", Given: "Nina", Family: "van der Berg"}
	for _, tc := range []struct {
		name, text string
		want       commands.RawRow
	}{
		{"byte-order mark", "\uFEFFaddress,owner\nada@example.com,UADA\n", commands.RawRow{Line: 2, Address: "ada@example.com", Owner: "UADA"}},
		{"byte-order mark without header", "\uFEFFada@example.com,UADA\n", commands.RawRow{Line: 1, Address: "ada@example.com", Owner: "UADA"}},
		{"google admin console", "First Name [Required],Last Name [Required],Email Address [Required],Password [Required],Password Hash Function [UPLOAD ONLY],Org Unit Path [Required],New Primary Email [UPLOAD ONLY]\n" +
			"Nina,van der Berg,nina@example.com,Secret-123,,/,\n", nina},
		{"synonyms in any case", "E-Mail,SLACK USER,given name,Surname\nnina@example.com,,Nina,van der Berg\n", nina},
		{"synonyms in another order", "last,first,slack,mail,phone\nvan der Berg,Nina,,nina@example.com,+1 555\n", nina},
		{"more synonyms", "Family Name,First,Email address (work),Slack\nvan der Berg,Nina,nina@example.com,\n", nina},
		{"semicolons", "Email;First name;Last name\nnina@example.com;Nina;van der Berg\n", nina},
		{"semicolons after a comment", "# exported\nemail;owner;given;family\n\nnina@example.com;;Nina;van der Berg\n", commands.RawRow{Line: 4, Address: "nina@example.com", Given: "Nina", Family: "van der Berg"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, problems, _ := commands.ParseRows(tc.text, 10)
			if len(rows) != 1 || rows[0] != tc.want || len(problems) != 0 {
				t.Errorf("ParseRows = %+v, %v; want %+v", rows, problems, tc.want)
			}
		})
	}
	rows, problems, _ := commands.ParseRows("Email,First Name\n,Ada\nbob@example.com,Bob\n", 10)
	if len(rows) != 2 || rows[0].Given != "Ada" || rows[1].Address != "bob@example.com" || len(problems) != 0 {
		t.Errorf("a row without an address: %+v, %v; want it kept for the checks to refuse", rows, problems)
	}
	rows, problems, _ = commands.ParseRows("First Name,Last Name,Phone\nAda,Lovelace,+1\n", 10)
	if len(rows) != 0 || len(problems) != 1 || problems[0].Line != 1 {
		t.Errorf("a header without an address column: %+v, %v; want one problem at line 1", rows, problems)
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
