package commands

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Router picks the provider of a domain: the provider of the most
// specific pattern that matches it (an exact name before any *.suffix,
// a longer suffix before a shorter one), else the default provider
// (MAILBOT_PROVIDER). The core asks it once per command, from the
// command's domain.
type Router struct {
	def    Provider
	routes []routeEntry // most specific first
}

// RouteTo sends the domains Pattern matches (a domain name, or
// *.suffix for the subdomains of suffix, not suffix itself) to Provider.
type RouteTo struct {
	Pattern  string
	Provider Provider
}

type routeEntry struct {
	pattern string // normalised
	p       Provider
}

// NewRouter returns a router that sends each domain to the provider of
// the most specific route that matches it, and every other domain to
// def. A pattern given twice, and two providers of one name, are errors.
func NewRouter(def Provider, routes ...RouteTo) (*Router, error) {
	if def == nil {
		return nil, errors.New("commands: no default provider")
	}
	r := &Router{def: def}
	seen := map[string]bool{}
	for _, rt := range routes {
		if rt.Provider == nil {
			return nil, fmt.Errorf("commands: route %q: no provider", rt.Pattern)
		}
		ps, err := normalizePatterns([]string{rt.Pattern})
		if err != nil {
			return nil, fmt.Errorf("commands: route: %w", err)
		}
		if seen[ps[0]] {
			return nil, fmt.Errorf("commands: route %q given twice", ps[0])
		}
		seen[ps[0]] = true
		if q := r.Named(rt.Provider.Name()); q != nil && q != rt.Provider {
			return nil, fmt.Errorf("commands: route %q: a second %s provider", ps[0], rt.Provider.Name())
		}
		r.routes = append(r.routes, routeEntry{pattern: ps[0], p: rt.Provider})
	}
	slices.SortStableFunc(r.routes, func(a, b routeEntry) int { return specificity(b.pattern) - specificity(a.pattern) })
	return r, nil
}

// specificity orders patterns: an exact name above every *.suffix, and
// a longer suffix above a shorter one.
func specificity(pattern string) int {
	if suffix, wild := strings.CutPrefix(pattern, "*."); wild {
		return len(suffix)
	}
	return 1 << 20
}

// For returns the provider of domain (normalised).
func (r *Router) For(domain string) Provider {
	for _, e := range r.routes {
		if allowed([]string{e.pattern}, domain) {
			return e.p
		}
	}
	return r.def
}

// Providers returns each provider once: the default first, then the
// others in the order of their most specific route.
func (r *Router) Providers() []Provider {
	out := []Provider{r.def}
	for _, e := range r.routes {
		if !slices.Contains(out, e.p) {
			out = append(out, e.p)
		}
	}
	return out
}

// Patterns returns the patterns routed to p, most specific first; the
// default provider also has every domain no pattern names.
func (r *Router) Patterns(p Provider) []string {
	var out []string
	for _, e := range r.routes {
		if e.p == p {
			out = append(out, e.pattern)
		}
	}
	return out
}

// Named returns the provider called name, or nil.
func (r *Router) Named(name string) Provider {
	for _, p := range r.Providers() {
		if p.Name() == name {
			return p
		}
	}
	return nil
}

// Default is the provider of every domain no route names.
func (r *Router) Default() Provider { return r.def }

// Routed reports whether more than one provider is configured.
func (r *Router) Routed() bool { return len(r.Providers()) > 1 }

// oneProvider says why an operation's two addresses must share a
// provider.
func oneProvider(a Action) string {
	if a == ActionOffboard {
		return "an offboarded mailbox's aliases can move only to a successor at the same provider"
	}
	return "an alias and its mailbox must be at the same provider"
}

// routeFields say which domains go to which provider, a field each
// ("Domains at mailcow": "old.example, *.example.org"), when more than
// one provider is configured; none otherwise.
func (c *shared) routeFields() []Field {
	if !c.router.Routed() {
		return nil
	}
	var fs []Field
	for _, p := range c.router.Providers() {
		ds := strings.Join(c.router.Patterns(p), ", ")
		if p == c.router.Default() {
			ds = strings.TrimPrefix(ds+", every other domain", ", ")
		}
		fs = append(fs, Field{Label: "Domains at " + p.Capabilities().Title, Value: ds})
	}
	return fs
}
