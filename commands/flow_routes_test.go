package commands_test

import (
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient/mailcow/mailcowsim"
	"github.com/mailbot/mailbot/commands"
)

// routedWorld is a core on two sandboxes: the PDD API for example.com
// (the default provider) and mailcow for shop.example and the
// subdomains of example.org.
type routedWorld struct {
	*env
	pdd *sandbox
	cow *mailcowsim.Server
}

func newRoutedWorld(t *testing.T, cfg commands.Config) *routedWorld {
	t.Helper()
	pdd := newSandbox(t)
	cow, cowAPI := mailcowWorld(t)
	cow.AddDomain("shop.example")
	cow.AddDomain("eu.example.org")
	r, err := commands.NewRouter(pdd.client,
		commands.RouteTo{Pattern: "shop.example", Provider: cowAPI},
		commands.RouteTo{Pattern: "*.example.org", Provider: cowAPI})
	if err != nil {
		t.Fatal(err)
	}
	return &routedWorld{env: newRoutedEnv(t, r, cfg, nil), pdd: pdd, cow: cow}
}

// Each command reaches its domain's provider and no other; the reply,
// the ops notice and the audit entry name that provider.
func TestRoutedCommandsReachTheirProvider(t *testing.T) {
	w := newRoutedWorld(t, commands.Config{})
	for _, tc := range []struct {
		line, provider, title string
		cow                   bool
	}{
		{"/mailbox add carol@shop.example", "mailcow", "mailcow", true},
		{"/mailbox add dave@example.com", "pdd", "the PDD API", false},
		{"/mailbox add erin@eu.example.org", "mailcow", "mailcow", true},
		{"/mailbox block carol@shop.example", "mailcow", "mailcow", true},
		{"/mailbox reset dave@example.com", "pdd", "the PDD API", false},
	} {
		pddBefore, cowBefore := w.pdd.sim.Requests(""), w.cow.Requests()
		if _, label := w.typed(admin1, tc.line); label != commands.LabelOK {
			t.Fatalf("%s: label %q: %s", tc.line, label, w.msgr.lastTo(admin1).PlainText())
		}
		pddSent, cowSent := w.pdd.sim.Requests("") > pddBefore, w.cow.Requests() > cowBefore
		if cowSent != tc.cow || pddSent == tc.cow {
			t.Errorf("%s: requests reached PDD %v, mailcow %v; want only %s", tc.line, pddSent, cowSent, tc.provider)
		}
		a := w.audit()
		if last := a[len(a)-1]; last.Provider != tc.provider {
			t.Errorf("%s: audit entry names %q, want %q", tc.line, last.Provider, tc.provider)
		}
	}
	if _, ok := w.cow.Mailbox("carol@shop.example"); !ok {
		t.Error("carol@shop.example is not at mailcow")
	}
	if _, ok := w.pdd.sim.Mailbox("dave@example.com"); !ok {
		t.Error("dave@example.com is not at PDD")
	}
	if _, ok := w.cow.Mailbox("dave@example.com"); ok {
		t.Error("dave@example.com reached mailcow too")
	}
	w.typed(admin1, "/mailbox block carol@shop.example")
	if r := w.msgr.lastTo(admin1); !strings.Contains(r.PlainText(), "Mailcow keeps accepting mail") && !strings.Contains(r.PlainText(), "already") {
		t.Errorf("block at mailcow says:\n%s", r.PlainText())
	}
	w.typed(admin1, "/mailbox list shop.example")
	if r := w.msgr.lastTo(admin1); !strings.Contains(r.PlainText(), "carol@shop.example") || strings.Contains(r.PlainText(), "dave@") {
		t.Errorf("the list of shop.example:\n%s", r.PlainText())
	}
	w.typed(admin1, "/maildomain status example.com")
	if r := w.msgr.lastTo(admin1); !strings.Contains(r.Title, "at the PDD API") {
		t.Errorf("status of example.com: %q, want it at the PDD API", r.Title)
	}
	w.typed(admin1, "/maildomain status shop.example")
	if r := w.msgr.lastTo(admin1); !strings.Contains(r.Title, "at mailcow") {
		t.Errorf("status of shop.example: %q, want it at mailcow", r.Title)
	}
}

// An alias and its mailbox, and an offboarding and its successor, at two
// providers are refused in words, with nothing sent to either.
func TestRoutedAliasAcrossProvidersRefused(t *testing.T) {
	w := newRoutedWorld(t, commands.Config{})
	pddBefore, cowBefore := w.pdd.sim.Requests(""), w.cow.Requests()
	for _, line := range []string{
		"/mailbox alias add sales@shop.example alice@example.com",
		"/mailbox offboard alice@shop.example to bob@example.com",
	} {
		d, label := w.typed(admin1, line)
		r := w.msgr.lastTo(admin1)
		if d.Step != commands.StepReply || !strings.Contains(r.PlainText(), "at the same provider") || !strings.Contains(r.PlainText(), "Nothing was sent") {
			t.Errorf("%s: step %v, label %q:\n%s", line, d.Step, label, r.PlainText())
		}
	}
	if w.pdd.sim.Requests("") != pddBefore || w.cow.Requests() != cowBefore {
		t.Errorf("a refused command reached a provider: PDD %d, mailcow %d requests", w.pdd.sim.Requests("")-pddBefore, w.cow.Requests()-cowBefore)
	}
}

// Help and the Home tab say which domains go to which provider.
func TestRoutedHelpListsDomains(t *testing.T) {
	w := newRoutedWorld(t, commands.Config{})
	d, _ := w.typed(user1, "/mailbox help")
	text := d.Reply.PlainText()
	for _, want := range []string{"Domains at mailcow: shop.example, *.example.org", "Domains at the PDD API: every other domain"} {
		if !strings.Contains(text, want) {
			t.Errorf("help has no %q:\n%s", want, text)
		}
	}
	if home := w.core.Home(t.Context(), user1).PlainText(func(s string) string { return s }); !strings.Contains(home, "Domains at mailcow") {
		t.Errorf("the Home tab does not list the routes:\n%s", home)
	}
}

// An import whose rows span two providers is one request: each row is
// created at its own domain's provider, once, with one summary, and the
// import's audit entry names both providers.
func TestRoutedImportAcrossProviders(t *testing.T) {
	w := newRoutedWorld(t, commands.Config{People: emailPeople{directory()}})
	d, errs := w.importRows(admin1, "ann@example.com\nbea@shop.example\ncal@eu.example.org", "")
	if len(errs) != 0 {
		t.Fatalf("import refused: %v", errs)
	}
	if label := w.core.Execute(t.Context(), commands.Route{User: admin1, Channel: "C1"}, d); label != commands.LabelOK {
		t.Fatalf("import label %q: %s", label, w.msgr.lastTo(admin1).PlainText())
	}
	if _, ok := w.pdd.sim.Mailbox("ann@example.com"); !ok {
		t.Error("ann@example.com is not at PDD")
	}
	for _, a := range []string{"bea@shop.example", "cal@eu.example.org"} {
		if _, ok := w.cow.Mailbox(a); !ok {
			t.Errorf("%s is not at mailcow", a)
		}
	}
	summaries := 0
	for _, c := range w.msgr.of("deliver") {
		if strings.Contains(c.Reply.Title, "3 created, 0 already existing, 0 failed") {
			summaries++
		}
	}
	if summaries != 1 {
		t.Errorf("%d summaries, want one", summaries)
	}
	var rows []string
	for _, a := range w.audit() {
		switch {
		case a.Event == commands.EventRun && a.Action == commands.ActionImport && a.Provider != "pdd,mailcow":
			t.Errorf("the import's audit entry names %q, want pdd,mailcow", a.Provider)
		case a.Event == commands.EventRun && a.Action == commands.ActionAddMailbox:
			rows = append(rows, a.Login+"@"+a.Domain+"="+a.Provider)
		}
	}
	if got := strings.Join(rows, " "); !strings.Contains(got, "ann@example.com=pdd") || !strings.Contains(got, "bea@shop.example=mailcow") || !strings.Contains(got, "cal@eu.example.org=mailcow") {
		t.Errorf("row audit entries: %s", got)
	}
}
