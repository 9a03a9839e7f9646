package commands

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	t.Parallel()
	reg := func(d, reason string) Invocation {
		return Invocation{Command: CmdDomain, Op: Operation{Action: ActionRegisterDomain, Domain: d, Reason: reason}}
	}
	add := func(login, d, reason string) Invocation {
		return Invocation{Command: CmdMailbox, Op: Operation{Action: ActionAddMailbox, Login: login, Domain: d, Reason: reason}}
	}
	long63 := strings.Repeat("a", 63)
	tests := []struct {
		name    string
		command string
		text    string
		want    Invocation
	}{
		{"register", "/maildomain", "register example.com", reg("example.com", "")},
		// A mailbox that exists may have a user name a provider allowed
		// and mailbot would not give a new one (mailcow's john_doe).
		{"reset an existing user name", "/mailbox", "reset John_Doe+x@example.com forgot it",
			Invocation{Command: CmdMailbox, Op: Operation{Action: ActionResetPassword, Login: "john_doe+x", Domain: "example.com", Reason: "forgot it"}}},
		{"block a user name of digits", "/mailbox", "block 2024.intern example.com",
			Invocation{Command: CmdMailbox, Op: Operation{Action: ActionBlock, Login: "2024.intern", Domain: "example.com"}}},
		{"register with reason", "/maildomain", "register example.com  new brand,  ticket 42 ", reg("example.com", "new brand, ticket 42")},
		{"sub-command case", "/maildomain", "REGISTER Example.COM", reg("example.com", "")},
		{"command case and spaces", " /MailDomain ", "register example.com", reg("example.com", "")},
		{"trailing dot", "/maildomain", "register example.com.", reg("example.com", "")},
		{"tabs and nbsp", "/maildomain", "\tregister\u00a0example.com\t", reg("example.com", "")},
		{"idn", "/maildomain", "register пример.рф", reg("xn--e1afmkfd.xn--p1ai", "")},
		{"idn upper case", "/maildomain", "register Bücher.DE", reg("xn--bcher-kva.de", "")},
		{"idn fullwidth", "/maildomain", "register ｅｘａｍｐｌｅ.com", reg("example.com", "")},
		{"punycode", "/maildomain", "register xn--e1afmkfd.xn--p1ai", reg("xn--e1afmkfd.xn--p1ai", "")},
		{"slack link with text", "/maildomain", "register <http://example.com|example.com>", reg("example.com", "")},
		{"slack link bare", "/maildomain", "register <http://example.com>", reg("example.com", "")},
		{"slack link https slash", "/maildomain", "register <https://Example.com/|example.com>", reg("example.com", "")},
		{"label of 63", "/maildomain", "register " + long63 + ".com", reg(long63+".com", "")},
		{"name of 253", "/maildomain", "register " + name253(), reg(name253(), "")},
		{"digits in labels", "/maildomain", "register 1-2.3com", reg("1-2.3com", "")},
		{"reason with mention", "/maildomain", "register example.com for <@U123|ann> in <#C9|ops> <!here> &amp; co", reg("example.com", "for @ ann in #ops @ here & co")},
		{"reason with link", "/maildomain", "register example.com see <https://t.example/1|ticket 1>", reg("example.com", "see ticket 1")},
		{"help", "/maildomain", "help", Invocation{Command: CmdDomain, Help: true}},
		{"help case", "/mailbox", "HELP me", Invocation{Command: CmdMailbox, Help: true}},
		{"empty", "/mailbox", "", Invocation{Command: CmdMailbox, Bare: true, Op: Operation{Action: ActionAddMailbox}}},
		{"blank", "/maildomain", "  \t ", Invocation{Command: CmdDomain, Bare: true, Op: Operation{Action: ActionRegisterDomain}}},
		{"sub-command alone", "/mailbox", " ADD ", Invocation{Command: CmdMailbox, Bare: true, Op: Operation{Action: ActionAddMailbox}}},
		{"register alone", "/maildomain", "register", Invocation{Command: CmdDomain, Bare: true, Op: Operation{Action: ActionRegisterDomain}}},
		{"check", "/maildomain", "check Пример.РФ.", Invocation{Command: CmdDomain, Check: true, Op: Operation{Domain: "xn--e1afmkfd.xn--p1ai"}}},
		{"check link", "/maildomain", "CHECK <http://example.com|example.com>", Invocation{Command: CmdDomain, Check: true, Op: Operation{Domain: "example.com"}}},

		{"address", "/mailbox", "add alice@example.com", add("alice", "example.com", "")},
		{"address upper case", "/mailbox", "Add Alice@Example.COM.", add("alice", "example.com", "")},
		{"address with reason", "/mailbox", "add alice@example.com new hire", add("alice", "example.com", "new hire")},
		{"mailto", "/mailbox", "add <mailto:alice@example.com|alice@example.com>", add("alice", "example.com", "")},
		{"mailto bare", "/mailbox", "add <mailto:alice@example.com>", add("alice", "example.com", "")},
		{"user and domain", "/mailbox", "add alice example.com", add("alice", "example.com", "")},
		{"user and linked domain", "/mailbox", "add alice <http://example.com|example.com> why", add("alice", "example.com", "why")},
		{"address and same domain", "/mailbox", "add alice@example.com example.com", add("alice", "example.com", "")},
		{"bare user", "/mailbox", "add alice", add("alice", "", "")},
		{"bare user with reason", "/mailbox", "add alice for the team", add("alice", "", "for the team")},
		{"dotted user", "/mailbox", "add j.doe-2@example.com", add("j.doe-2", "example.com", "")},
		{"user of 30", "/mailbox", "add " + strings.Repeat("a", 30) + "@example.com", add(strings.Repeat("a", 30), "example.com", "")},
		{"user of one letter", "/mailbox", "add a@example.com", add("a", "example.com", "")},
		{"idn mailbox domain", "/mailbox", "add ivan@пример.рф", add("ivan", "xn--e1afmkfd.xn--p1ai", "")},
		{"long reason cut", "/mailbox", "add a@example.com " + strings.Repeat("x", 300), add("a", "example.com", strings.Repeat("x", maxReason-1)+"…")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tc.command, tc.text)
			if err != nil {
				t.Fatalf("Parse(%q, %q) error: %v", tc.command, tc.text, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse(%q, %q) mismatch (-want +got):\n%s", tc.command, tc.text, diff)
			}
		})
	}
}

// name253 is a valid domain name of exactly 253 characters.
func name253() string {
	l := strings.Repeat("a", 63)
	return l + "." + l + "." + l + "." + strings.Repeat("b", 61) // 63*3+61+3
}

func TestParseRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		command string
		text    string
		problem string // a part of UsageError.Problem
		fix     string // a part of UsageError.Fix
	}{
		{"unknown command", "/mail", "add a@b.com", "does not know the command", "help"},
		{"unknown sub-command", "/maildomain", "delete example.com", `no sub-command "delete"`, "/maildomain help"},
		{"add is not a domain sub-command", "/maildomain", "add example.com", `no sub-command "add"`, "/maildomain help"},
		{"register is not a mailbox sub-command", "/mailbox", "register example.com", `no sub-command "register"`, "/mailbox help"},
		{"check without domain", "/maildomain", "check", "exactly one domain", "/maildomain check example.com"},
		{"check of an address", "/maildomain", "check a@example.com", "an email address", "/maildomain check example.com"},
		{"check of a bad domain", "/maildomain", "check exa_mple.com", "not a valid domain name", "/maildomain check example.com"},
		{"one label", "/maildomain", "register localhost", "at least two labels", "/maildomain register example.com"},
		{"underscore", "/maildomain", "register exa_mple.com", `label "exa_mple" has a character`, "example.com"},
		{"leading hyphen", "/maildomain", "register -a.com", "starts or ends with a hyphen", "example.com"},
		{"trailing hyphen", "/maildomain", "register a-.com", "starts or ends with a hyphen", "example.com"},
		{"label of 64", "/maildomain", "register " + strings.Repeat("a", 64) + ".com", "longer than 63", "example.com"},
		{"name of 254", "/maildomain", "register a" + name253(), "longer than 253", "example.com"},
		{"empty label", "/maildomain", "register a..com", "empty label", "example.com"},
		{"two trailing dots", "/maildomain", "register example.com..", "empty label", "example.com"},
		{"numeric tld", "/maildomain", "register 192.168.1.1", "all digits", "example.com"},
		{"bad idn", "/maildomain", "register \u200dx.com", "internationalised", "example.com"},
		{"email where domain", "/maildomain", "register alice@example.com", "is an email address", "/maildomain register example.com"},
		{"mailto where domain", "/maildomain", "register <mailto:a@example.com|a@example.com>", "is an email address", "/maildomain register"},
		{"user mention", "/maildomain", "register <@U123|bob>", "mention of a person", "/maildomain register"},
		{"channel mention", "/mailbox", "add <#C123|general>", "is a channel", "/mailbox add"},
		{"special mention", "/mailbox", "add <!here>", "special mention", "/mailbox add"},
		{"mention as domain", "/mailbox", "add bob <@U1|x.y>", "mention of a person", "/mailbox add"},
		{"unknown form", "/maildomain", "register <ftp://example.com>", "does not understand", "/maildomain register"},
		{"mixed form", "/maildomain", "register x<http://example.com>", "mixes text and Slack formatting", "/maildomain register"},
		{"link with path", "/maildomain", "register <http://example.com/a|example.com/a>", "is a web address", "example.com"},
		{"link text differs", "/maildomain", "register <http://evil.com|example.com>", "points to", "/maildomain register"},
		{"mailto text differs", "/mailbox", "add <mailto:eve@evil.com|alice@example.com>", "points to", "/mailbox add"},
		{"link as mailbox", "/mailbox", "add <http://example.com|example.com>", "is a web address, not a mailbox", "/mailbox add"},
		{"user ends with dot", "/mailbox", "add alice.@example.com", "may not start or end with '.'", "/mailbox add"},
		{"user not latin", "/mailbox", "add алиса@example.com", "only Latin letters", "/mailbox add"},
		{"existing user with a slash", "/mailbox", "reset jo/hn@example.com", "only Latin letters, digits, '.', '_', '+' and '-'", "/mailbox reset"},
		{"existing user with ..", "/mailbox", "unblock jo..hn@example.com", "nor hold '..'", "/mailbox unblock"},
		{"existing user of 65", "/mailbox", "block " + strings.Repeat("a", 65) + "@example.com", "longer than 64", "/mailbox block"},
		{"empty user", "/mailbox", "add @example.com", "it is empty", "/mailbox add"},
		{"two at signs", "/mailbox", "add a@b@example.com", "only Latin letters", "/mailbox add"},
		{"address bad domain", "/mailbox", "add alice@example", "at least two labels", "/mailbox add"},
		{"second word bad domain", "/mailbox", "add alice exa_mple.com", "is not a valid domain name", "/mailbox add alice example.com"},
		{"address and other domain", "/mailbox", "add alice@example.com example.org", "is not in the domain example.org", "/mailbox add alice@example.org"},
		{"entity in domain", "/maildomain", "register a&amp;b.com", "has a character", "example.com"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tc.command, tc.text)
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("Parse(%q, %q) = %+v, %v; want a *UsageError", tc.command, tc.text, got, err)
			}
			if got != (Invocation{}) {
				t.Errorf("Parse(%q, %q) returned %+v with the error", tc.command, tc.text, got)
			}
			if !strings.Contains(ue.Problem, tc.problem) {
				t.Errorf("Parse(%q, %q) problem = %q, want it to contain %q", tc.command, tc.text, ue.Problem, tc.problem)
			}
			if !strings.Contains(ue.Fix, tc.fix) {
				t.Errorf("Parse(%q, %q) fix = %q, want it to contain %q", tc.command, tc.text, ue.Fix, tc.fix)
			}
		})
	}
}

func TestNormalizeDomain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		wantErr  string
	}{
		{in: "Example.COM.", want: "example.com"},
		{in: "sub.example.co.uk", want: "sub.example.co.uk"},
		{in: "пример.рф.", want: "xn--e1afmkfd.xn--p1ai"},
		{in: "example。com", want: "example.com"},
		{in: "a.b", want: "a.b"},
		{in: "", wantErr: "empty domain name"},
		{in: ".", wantErr: "empty domain name"},
		{in: "com", wantErr: "at least two labels"},
		{in: ".example.com", wantErr: "empty label"},
		{in: "ex ample.com", wantErr: "has a character other than"},
		{in: "a." + strings.Repeat("b", 64), wantErr: "longer than 63"},
		{in: "example.123", wantErr: `top-level domain "123" is all digits`},
		{in: "ab--cd.com", want: "ab--cd.com"},
	}
	for _, tc := range tests {
		got, err := NormalizeDomain(tc.in)
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("NormalizeDomain(%q) = %q, %v; want error %q", tc.in, got, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || got != tc.want):
			t.Errorf("NormalizeDomain(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if err != nil && err.Error() != strings.ToLower(err.Error()[:1])+err.Error()[1:] {
			t.Errorf("NormalizeDomain(%q) error %q does not start in lower case", tc.in, err)
		}
	}
}

func TestCheckDomainPatterns(t *testing.T) {
	t.Parallel()
	if err := CheckDomainPatterns([]string{"example.com", "*.example.org", "Пример.рф"}); err != nil {
		t.Errorf("CheckDomainPatterns(valid) = %v", err)
	}
	if err := CheckDomainPatterns(nil); err != nil {
		t.Errorf("CheckDomainPatterns(nil) = %v", err)
	}
	for _, bad := range []string{"*", "*.", "*.com", "exa_mple.com", "a.*.com", "**.example.com", ""} {
		if err := CheckDomainPatterns([]string{"example.com", bad}); err == nil {
			t.Errorf("CheckDomainPatterns(%q) = nil, want an error", bad)
		}
	}
}

func TestAllowed(t *testing.T) {
	t.Parallel()
	patterns, err := normalizePatterns([]string{"Example.com", "*.example.org"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		domain string
		want   bool
	}{
		{"example.com", true},
		{"sub.example.com", false},
		{"example.org", false},
		{"a.example.org", true},
		{"a.b.example.org", true},
		{"badexample.org", false},
		{"example.net", false},
	}
	for _, tc := range tests {
		if got := allowed(patterns, tc.domain); got != tc.want {
			t.Errorf("allowed(%q, %q) = %v, want %v", patterns, tc.domain, got, tc.want)
		}
	}
	if !allowed(nil, "anything.example") {
		t.Error("allowed(nil, ...) = false, want true: no list allows all")
	}
}

func TestCleanText(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain  text\n\tnext", "plain text next"},
		{"<@U1>", "@U1"},
		{"<@U1|ann>", "@ann"},
		{"<#C1>", "#C1"},
		{"<!channel>", "@channel"},
		{"<!subteam^S1|@devs>", "@devs"},
		{"<!date^1392734382^{date}|Feb 18>", "Feb 18"},
		{"<mailto:a@b.com>", "a@b.com"},
		{"&lt;b&gt; &amp;amp;", "<b> &amp;"},
		{"open <form", "open form"},
		{"bell\a", "bell"},
	}
	for _, tc := range tests {
		if got := cleanText(tc.in); got != tc.want {
			t.Errorf("cleanText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestDidYouMean: a mistyped sub-command is answered with the closest
// one, within two edits (a swap of neighbours is one); a word far from
// every sub-command gets no guess.
func TestDidYouMean(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ cmd, text, want string }{
		{CmdMailbox, "lsit example.com", "Did you mean /mailbox list?"},
		{CmdMailbox, "ad bob@example.com", "Did you mean /mailbox add?"},
		{CmdMailbox, "unblcok bob@example.com", "Did you mean /mailbox unblock?"},
		{CmdDomain, "regsiter example.com", "Did you mean /maildomain register?"},
		{CmdDomain, "stauts example.com", "Did you mean /maildomain status?"},
		{CmdMailbox, "frobnicate", ""},
		{CmdDomain, "list example.com", ""},
	} {
		_, err := Parse(tc.cmd, tc.text)
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Fatalf("Parse(%s %s) = %v, want a usage error", tc.cmd, tc.text, err)
		}
		if got := strings.Contains(ue.Problem, "Did you mean"); got != (tc.want != "") || tc.want != "" && !strings.Contains(ue.Problem, tc.want) {
			t.Errorf("Parse(%s %s): %q, want %q", tc.cmd, tc.text, ue.Problem, tc.want)
		}
	}
}

// TestDefaultLoginRule: with a provider that states no rule of its own,
// every command, add as block, takes user names by the default rule
// (PDD's): the core refuses the rest before any provider call.
func TestDefaultLoginRule(t *testing.T) {
	t.Parallel()
	api := &fakeAPI{}
	c := newCore(t, api, Config{})
	for _, tc := range []struct{ text, problem string }{
		{"add 1alice@example.com", "must start with a Latin letter"},
		{"block 1alice@example.com", "must start with a Latin letter"},
		{"add alice- example.com", "must end with a letter or a digit"},
		{"add al+ce@example.com", "only Latin letters, digits, '-' and '.'"},
		{"reset john_doe@example.com", "only Latin letters, digits, '-' and '.'"},
		{"add " + strings.Repeat("a", 31) + "@example.com", "longer than 30"},
		{"add bad..name@example.com", "nor hold '..'"},
	} {
		d := c.Decide(Request{UserID: "UADMIN1", Command: CmdMailbox, Text: tc.text})
		if d.Step != StepReply || !strings.Contains(d.Reply.Text, tc.problem) {
			t.Errorf("/mailbox %s: verdict %v, %q; want a refusal containing %q", tc.text, d.Step, d.Reply.Text, tc.problem)
		}
	}
	if n := api.calls.Load(); n != 0 {
		t.Errorf("%d provider calls", n)
	}
}

// TestUnescape decodes Slack's three entities, and a word without one
// costs no allocation.
func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		"example.com": "example.com", "a&amp;b": "a&b", "&lt;x&gt;": "<x>", "&amp;lt;": "&lt;", "&": "&", "&quot;": "&quot;",
	} {
		if got := unescape(in); got != want {
			t.Errorf("unescape(%q) = %q, want %q", in, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = unescape("alice@example.com") }); n != 0 {
		t.Errorf("unescape allocates %.1f times for a word without entities; want 0", n)
	}
}
