package dnsname

import "testing"

// TestCheck gives each rule's verdict, in the order the rules apply.
func TestCheck(t *testing.T) {
	for _, tc := range []struct{ name, err string }{
		{"example.com", ""},
		{"a.b.example.co", ""},
		{"xn--e1afmkfd.xn--p1ai", ""},
		{"localhost", "needs at least two labels, such as example.com"},
		{"", "needs at least two labels, such as example.com"},
		{"example..com", "has an empty label (two dots in a row, or a leading dot)"},
		{".example.com", "has an empty label (two dots in a row, or a leading dot)"},
		{"example.com.", "has an empty label (two dots in a row, or a leading dot)"},
		{"-a.com", `label "-a" starts or ends with a hyphen`},
		{"a_b.com", `label "a_b" has a character other than letters, digits and hyphens`},
		{"10.0.0.1", `top-level domain "1" is all digits`},
		{"bad_.-x.123", `label "bad_" has a character other than letters, digits and hyphens`},
	} {
		err := Check(tc.name)
		if got := errText(err); got != tc.err {
			t.Errorf("Check(%q) = %q, want %q", tc.name, got, tc.err)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestCheckAllocations: a valid name is checked without allocating
// (every command's domain is checked more than once).
func TestCheckAllocations(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = Check("mail.example.com") }); n != 0 {
		t.Errorf("Check allocates %.1f times per name; want 0", n)
	}
}
