package commands

import "testing"

// namedAPI is fakeAPI under another provider's name.
type namedAPI struct {
	fakeAPI
	name string
}

func (n *namedAPI) Name() string { return n.name }

func TestRouterMostSpecificWins(t *testing.T) {
	def, cow, goog, y := &namedAPI{name: "pdd"}, &namedAPI{name: "mailcow"}, &namedAPI{name: "google"}, &namedAPI{name: "yandex360"}
	r, err := NewRouter(def,
		RouteTo{Pattern: "*.example.org", Provider: cow},
		RouteTo{Pattern: "*.shop.example.org", Provider: goog},
		RouteTo{Pattern: "Old.Example.ORG", Provider: y})
	if err != nil {
		t.Fatal(err)
	}
	for domain, want := range map[string]Provider{
		"example.org":          def, // *.example.org is for subdomains only
		"a.example.org":        cow,
		"x.shop.example.org":   goog,
		"shop.example.org":     cow, // *.shop.example.org does not match shop.example.org itself
		"old.example.org":      y,   // an exact name beats every pattern
		"sub.old.example.org":  cow,
		"example.com":          def,
		"notexample.org":       def,
		"a.b.shop.example.org": goog,
	} {
		if got := r.For(domain); got != want {
			t.Errorf("For(%s) = %s, want %s", domain, got.Name(), want.Name())
		}
	}
	if got := r.Providers(); len(got) != 4 || got[0] != def {
		t.Errorf("Providers() = %d, first %v; want 4, the default first", len(got), got[0].Name())
	}
	if r.Named("mailcow") != cow || r.Named("m365") != nil {
		t.Error("Named does not find the provider by its name")
	}
	if got := r.Patterns(cow); len(got) != 1 || got[0] != "*.example.org" {
		t.Errorf("Patterns(mailcow) = %v", got)
	}
}

func TestRouterRefuses(t *testing.T) {
	def, cow := &namedAPI{name: "pdd"}, &namedAPI{name: "mailcow"}
	for name, routes := range map[string][]RouteTo{
		"pattern twice":      {{Pattern: "a.example", Provider: cow}, {Pattern: "A.example.", Provider: cow}},
		"bad pattern":        {{Pattern: "*.", Provider: cow}},
		"no provider":        {{Pattern: "a.example"}},
		"two of one name":    {{Pattern: "a.example", Provider: &namedAPI{name: "pdd"}}},
		"a pattern of a TLD": {{Pattern: "*.*.example", Provider: cow}},
	} {
		if _, err := NewRouter(def, routes...); err == nil {
			t.Errorf("%s: NewRouter accepted %+v", name, routes)
		}
	}
	if _, err := NewRouter(nil); err == nil {
		t.Error("NewRouter accepted no default provider")
	}
}

// BenchmarkRouterFor is the cost of choosing a command's provider with
// a few routes: what a second provider adds to each command.
func BenchmarkRouterFor(b *testing.B) {
	def, cow := &namedAPI{name: "pdd"}, &namedAPI{name: "mailcow"}
	r, err := NewRouter(def, RouteTo{Pattern: "old.example", Provider: cow}, RouteTo{Pattern: "*.example.org", Provider: cow},
		RouteTo{Pattern: "*.shop.example.org", Provider: &namedAPI{name: "google"}})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		_ = r.For("a.shop.example.org")
		_ = r.For("example.com")
	}
}
