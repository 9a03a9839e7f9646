package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/internal/textcut"
)

// Route is one pair of MAILBOT_ROUTES: the domains Pattern matches (a
// name, or *.suffix for its subdomains) go to Provider.
type Route struct {
	Pattern  string // normalised
	Provider string
}

// ParseRoutes reads MAILBOT_ROUTES: domain=provider pairs, separated by
// commas (white space around each part is dropped; an empty value is no
// route). A provider must be one of known; a pattern is a domain name or
// *.suffix, given once.
func ParseRoutes(s string, known []string) ([]Route, error) {
	var out []Route
	for _, pair := range strings.Split(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		pattern, provider, ok := strings.Cut(pair, "=")
		pattern, provider = strings.TrimSpace(pattern), strings.ToLower(strings.TrimSpace(provider))
		if !ok || pattern == "" || provider == "" {
			return nil, fmt.Errorf("%q is not a domain=provider pair", textcut.Runes(strings.TrimSpace(pair), 80))
		}
		p, err := normalisePattern(pattern)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(known, provider) {
			return nil, fmt.Errorf("%s=%s: unknown provider %q (want one of %s)", p, textcut.Runes(provider, 40), textcut.Runes(provider, 40), strings.Join(known, ", "))
		}
		if i := slices.IndexFunc(out, func(r Route) bool { return r.Pattern == p }); i >= 0 {
			return nil, fmt.Errorf("%s is routed twice (to %s and to %s): a domain has one provider", p, out[i].Provider, provider)
		}
		out = append(out, Route{Pattern: p, Provider: provider})
	}
	return out, nil
}

// DomainAdmins is one pair of MAILBOT_DOMAIN_ADMINS.
type DomainAdmins = commands.DomainAdmins

// ParseDomainAdmins reads MAILBOT_DOMAIN_ADMINS: domain=ID ID … pairs
// separated by ';' (IDs separated by spaces or commas): Slack user IDs
// (U…, W…) and user group IDs (S…).
func ParseDomainAdmins(s string) ([]DomainAdmins, error) {
	var out []DomainAdmins
	for _, pair := range strings.Split(s, ";") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		pattern, ids, ok := strings.Cut(pair, "=")
		list := strings.FieldsFunc(ids, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
		if !ok || strings.TrimSpace(pattern) == "" || len(list) == 0 {
			return nil, fmt.Errorf("%q is not a domain=ID ID ... pair", textcut.Runes(strings.TrimSpace(pair), 80))
		}
		p, err := normalisePattern(strings.TrimSpace(pattern))
		if err != nil {
			return nil, err
		}
		if err := checkAdmins(list); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if i := slices.IndexFunc(out, func(d DomainAdmins) bool { return d.Pattern == p }); i >= 0 {
			out[i].IDs = append(out[i].IDs, list...)
			continue
		}
		out = append(out, DomainAdmins{Pattern: p, IDs: list})
	}
	return out, nil
}

// normalisePattern is a pattern of MAILBOT_DOMAINS' kind, normalised.
func normalisePattern(p string) (string, error) {
	if err := commands.CheckDomainPatterns([]string{p}); err != nil {
		return "", err
	}
	name, wild := strings.CutPrefix(p, "*.")
	d, _ := commands.NormalizeDomain(name) // checked above
	if wild {
		return "*." + d, nil
	}
	return d, nil
}

// reachable reports whether some domain the allow-list (patterns,
// normalised; none allows all) lets through matches pattern.
func reachable(allow []string, pattern string) bool {
	if len(allow) == 0 {
		return true
	}
	suffix, wild := strings.CutPrefix(pattern, "*.")
	for _, a := range allow {
		aSuffix, aWild := strings.CutPrefix(a, "*.")
		switch {
		case !wild && !aWild && a == pattern,
			!wild && aWild && strings.HasSuffix(pattern, "."+aSuffix),
			wild && !aWild && strings.HasSuffix(a, "."+suffix),
			wild && aWild && (aSuffix == suffix || strings.HasSuffix(aSuffix, "."+suffix) || strings.HasSuffix(suffix, "."+aSuffix)):
			return true
		}
	}
	return false
}

// unreachable is the first pattern of patterns that no domain of the
// allow-list could match, as an error, or nil.
func (c *Config) unreachable(patterns []string) error {
	allow := make([]string, 0, len(c.Domains))
	for _, d := range c.Domains {
		if p, err := normalisePattern(d); err == nil {
			allow = append(allow, p)
		}
	}
	for _, p := range patterns {
		if !reachable(allow, p) {
			return fmt.Errorf("%s: no domain of MAILBOT_DOMAINS (%s) matches it", p, strings.Join(allow, ", "))
		}
	}
	return nil
}

// checkRoutes parses MAILBOT_ROUTES into c.routes.
func (c *Config) checkRoutes() error {
	routes, err := ParseRoutes(c.RoutesSpec, c.providerNames())
	if err != nil {
		return err
	}
	c.routes = routes
	ps := make([]string, len(routes))
	for i, r := range routes {
		ps[i] = r.Pattern
	}
	return c.unreachable(ps)
}

// checkDomainAdmins parses MAILBOT_DOMAIN_ADMINS into c.domainAdmins.
func (c *Config) checkDomainAdmins() error {
	das, err := ParseDomainAdmins(c.DomainAdminsSpec)
	if err != nil {
		return err
	}
	c.domainAdmins = das
	ps := make([]string, len(das))
	for i, d := range das {
		ps[i] = d.Pattern
	}
	return c.unreachable(ps)
}

// Routes is MAILBOT_ROUTES, parsed.
func (c *Config) Routes() []Route { return slices.Clone(c.routes) }

// Selected is every provider in use: MAILBOT_PROVIDER first, then each
// one MAILBOT_ROUTES names, once.
func (c *Config) Selected() []string {
	out := []string{c.Provider}
	for _, r := range c.routes {
		if !slices.Contains(out, r.Provider) {
			out = append(out, r.Provider)
		}
	}
	return out
}

// selects reports whether provider is in use.
func (c *Config) selects(provider string) bool { return slices.Contains(c.Selected(), provider) }
