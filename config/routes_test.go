package config

import (
	"strings"
	"testing"
)

func TestRoutesParsed(t *testing.T) {
	cfg, err := loadConfig(envFrom(with(serveBase(),
		"MAILBOT_ROUTES", " Old.Example = MAILCOW , *.example.org=yandex360,",
		"MAILCOW_URL", "https://mail.example.net", "MAILCOW_API_KEY", "k",
		"Y360_TOKEN", "y0_token",
		"MAILBOT_DOMAIN_ADMINS", "example.com=U123 S456;shop.example=W789,U111; example.com=U222")), "serve")
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Routes(); len(got) != 2 || got[0] != (Route{"old.example", "mailcow"}) || got[1] != (Route{"*.example.org", "yandex360"}) {
		t.Errorf("Routes() = %+v", got)
	}
	if got := strings.Join(cfg.Selected(), ","); got != "pdd,mailcow,yandex360" {
		t.Errorf("Selected() = %s", got)
	}
	das := cfg.CoreConfig().DomainAdmins
	if len(das) != 2 || das[0].Pattern != "example.com" || strings.Join(das[0].IDs, " ") != "U123 S456 U222" || strings.Join(das[1].IDs, " ") != "W789 U111" {
		t.Errorf("DomainAdmins = %+v", das)
	}
	if v := cfg.CoreConfig().CredentialsVariables; v["mailcow"] != "MAILCOW_API_KEY" || v["pdd"] != "PDD_TOKEN" {
		t.Errorf("CredentialsVariables = %v", v)
	}
}

// Each bad value stops start-up with one line naming the variable.
func TestRoutesRefused(t *testing.T) {
	for _, tc := range []struct{ name, key, value, want string }{
		{"unknown provider", "MAILBOT_ROUTES", "old.example=exchange", `MAILBOT_ROUTES: old.example=exchange: unknown provider "exchange"`},
		{"malformed pair", "MAILBOT_ROUTES", "old.example:mailcow", `MAILBOT_ROUTES: "old.example:mailcow" is not a domain=provider pair`},
		{"empty provider", "MAILBOT_ROUTES", "old.example=", "is not a domain=provider pair"},
		{"bad pattern", "MAILBOT_ROUTES", "*.=mailcow", "MAILBOT_ROUTES: pattern"},
		{"every domain of a TLD", "MAILBOT_ROUTES", "*.com=mailcow", `MAILBOT_ROUTES: pattern "*.com"`},
		{"routed twice", "MAILBOT_ROUTES", "a.example=mailcow,A.example=yandex360", "a.example is routed twice (to mailcow and to yandex360)"},
		{"outside the allow-list", "MAILBOT_ROUTES", "other.example=mailcow", "MAILBOT_ROUTES: other.example: no domain of MAILBOT_DOMAINS"},
		{"not a Slack ID", "MAILBOT_DOMAIN_ADMINS", "example.com=alice", `MAILBOT_DOMAIN_ADMINS: example.com: "alice" is not a Slack user ID`},
		{"a channel is no admin", "MAILBOT_DOMAIN_ADMINS", "example.com=C123ABC", `"C123ABC" is not a Slack user ID`},
		{"no IDs", "MAILBOT_DOMAIN_ADMINS", "example.com=", "is not a domain=ID ID ... pair"},
		{"admins outside the allow-list", "MAILBOT_DOMAIN_ADMINS", "*.other.example=U123", "MAILBOT_DOMAIN_ADMINS: *.other.example: no domain of MAILBOT_DOMAINS"},
	} {
		env := with(serveBase(), tc.key, tc.value, "MAILCOW_URL", "https://mail.example.net", "MAILCOW_API_KEY", "k",
			"MAILBOT_DOMAINS", "example.com,old.example,a.example,*.example.org")
		_, err := loadConfig(envFrom(env), "serve")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %s=%q: %v; want %q", tc.name, tc.key, tc.value, err, tc.want)
			continue
		}
		if n := strings.Count(err.Error(), "\n"); n != 0 {
			t.Errorf("%s: %d lines, want one:\n%v", tc.name, n+1, err)
		}
	}
}

// A routed provider's variables are required as the default's are.
func TestRoutedProviderNeedsItsVariables(t *testing.T) {
	_, err := loadConfig(envFrom(with(serveBase(), "MAILBOT_ROUTES", "old.example=mailcow")), "serve")
	if err == nil || !strings.Contains(err.Error(), "MAILCOW_URL: required by serve") || !strings.Contains(err.Error(), "MAILCOW_API_KEY: required by serve") {
		t.Errorf("mailcow routed without its variables: %v", err)
	}
}

func TestAllowListReach(t *testing.T) {
	for _, tc := range []struct {
		allow   []string
		pattern string
		want    bool
	}{
		{nil, "anything.example", true},
		{[]string{"a.example"}, "a.example", true},
		{[]string{"a.example"}, "b.example", false},
		{[]string{"*.example.org"}, "x.example.org", true},
		{[]string{"*.example.org"}, "example.org", false},
		{[]string{"x.example.org"}, "*.example.org", true},
		{[]string{"example.org"}, "*.example.org", false},
		{[]string{"*.example.org"}, "*.shop.example.org", true},
		{[]string{"*.shop.example.org"}, "*.example.org", true},
		{[]string{"*.shop.example.org"}, "*.other.example.org", false},
	} {
		if got := reachable(tc.allow, tc.pattern); got != tc.want {
			t.Errorf("reachable(%v, %s) = %v, want %v", tc.allow, tc.pattern, got, tc.want)
		}
	}
}

// FuzzParseRoutes: the parsers never panic, and what they accept is
// normalised patterns, known providers and Slack IDs.
func FuzzParseRoutes(f *testing.F) {
	for _, s := range []string{"old.example=mailcow,*.example.org=yandex360", "a=b", "=,=", "*.=pdd", "a.example=pdd,a.example=pdd",
		"example.com=U123 S456;shop.example=U789", "пример.рф=mailcow", ";;", "x=U1,,U2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if routes, err := ParseRoutes(s, names(testProviders)); err == nil {
			for _, r := range routes {
				if p, err := normalisePattern(r.Pattern); err != nil || p != r.Pattern || !containsString(names(testProviders), r.Provider) {
					t.Errorf("ParseRoutes(%q) accepted %+v", s, r)
				}
			}
		}
		if das, err := ParseDomainAdmins(s); err == nil {
			for _, d := range das {
				if p, err := normalisePattern(d.Pattern); err != nil || p != d.Pattern || len(d.IDs) == 0 || checkAdmins(d.IDs) != nil {
					t.Errorf("ParseDomainAdmins(%q) accepted %+v", s, d)
				}
			}
		}
	})
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
