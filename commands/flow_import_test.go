package commands_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
)

// mailboxes is a provider that keeps its mailboxes and counts the adds
// of each address, to prove that no row runs twice.
type mailboxes struct {
	fakeProvider
	mu    sync.Mutex
	boxes map[string]bool
	adds  map[string]int
	sets  map[string]int
}

func newMailboxes(existing ...string) *mailboxes {
	m := &mailboxes{boxes: map[string]bool{}, adds: map[string]int{}, sets: map[string]int{}}
	for _, a := range existing {
		m.boxes[a] = true
	}
	return m
}

func (m *mailboxes) AddMailbox(_ context.Context, domain, login, pw string, _ bool) (*apiclient.Mailbox, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a := login + "@" + domain
	m.adds[a]++
	if m.boxes[a] {
		return nil, &apiclient.Error{Provider: apiclient.ProviderPDD, Op: apiclient.OpAdd, Class: apiclient.ClassRefused, Reason: apiclient.ReasonExists, Code: "occupied", Attempts: 1}
	}
	m.boxes[a] = true
	return &apiclient.Mailbox{Address: a, UID: "1", State: apiclient.StateActive}, nil
}

func (m *mailboxes) LookupMailbox(_ context.Context, domain, login string) (*apiclient.Mailbox, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.boxes[login+"@"+domain] {
		return &apiclient.Mailbox{Address: login + "@" + domain, State: apiclient.StateActive}, nil
	}
	return nil, notFound(apiclient.OpLookup)
}

func (m *mailboxes) SetPassword(_ context.Context, domain, login, pw string, _ bool) (*apiclient.Mailbox, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sets[login+"@"+domain]++
	return &apiclient.Mailbox{Address: login + "@" + domain, State: apiclient.StateActive}, nil
}

func (m *mailboxes) count(a string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.adds[a]
}

func (m *mailboxes) totalAdds() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, k := range m.adds {
		n += k
	}
	return n
}

// emailPeople is directory() that also finds people by e-mail.
type emailPeople struct{ *fakePeople }

func (p emailPeople) UserByEmail(_ context.Context, email string) (string, commands.Person, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, who := range p.people {
		if strings.EqualFold(who.Email, email) {
			return id, who, true, nil
		}
	}
	return "", commands.Person{}, false, nil
}

func importEnv(t *testing.T, api commands.Provider, cfg commands.Config) *env {
	cfg.People = emailPeople{directory()}
	cfg.Domains = []string{"example.com", "example.org"}
	return newEnv(t, api, cfg, nil)
}

func (e *env) importRows(user, text, reason string) (commands.Decision, map[string]string) {
	return e.core.PrepareImport(e.t.Context(), commands.Request{UserID: user, ChannelID: "C1", Command: commands.CmdMailbox},
		commands.ImportInput{Text: text, Reason: reason})
}

func TestImportRowsCheckedBeforeAnything(t *testing.T) {
	api := newMailboxes()
	e := importEnv(t, api, commands.Config{})
	text := strings.Join([]string{
		"address,owner,given,family",
		"# a comment",
		"",
		"ada@example.com,UADA,Ada,Lovelace",
		"bad name@example.com",
		"bob@elsewhere.net",
		"ada@Example.com",
		"carl@example.com,UGONE",
		"dora@example.com,nobody@example.com",
		"eve@example.com,ada@example.com,Eve",
		"a,b,c,d,e",
	}, "\n")
	_, errs := e.importRows(admin1, text, "")
	got := errs[commands.FieldRows]
	for _, want := range []string{"Line 5:", "Line 6:", "allowed domains", "Line 7: ada@example.com is in the import twice (first at line 4)",
		"Line 8:", "deactivated", "Line 9: nobody in Slack has the e-mail address nobody@example.com", "Line 11: has 5 fields"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Line 4:") || strings.Contains(got, "Line 10:") {
		t.Errorf("good rows reported as problems:\n%s", got)
	}
	if api.totalAdds() != 0 || len(e.msgr.all()) != 0 {
		t.Errorf("a refused import reached the provider (%d adds) or the messenger (%d calls)", api.totalAdds(), len(e.msgr.all()))
	}
}

func TestImportProblemsShowTwentyThenACount(t *testing.T) {
	e := importEnv(t, newMailboxes(), commands.Config{})
	var lines []string
	for i := range 30 {
		lines = append(lines, fmt.Sprintf("u%d@nowhere.net", i))
	}
	_, errs := e.importRows(admin1, strings.Join(lines, "\n"), "")
	got := strings.Split(errs[commands.FieldRows], "\n")
	if len(got) != 21 || got[20] != "…and 10 more problems." {
		t.Fatalf("problems = %d lines, last %q; want 20 and a count of 10 more", len(got), got[len(got)-1])
	}
}

func TestImportMoreThanTheLimitRefused(t *testing.T) {
	api := newMailboxes()
	e := importEnv(t, api, commands.Config{ImportMaxRows: 3})
	_, errs := e.importRows(admin1, "a@example.com\nb@example.com\nc@example.com\nd@example.com", "")
	if !strings.Contains(errs[commands.FieldRows], "more than 3 rows") {
		t.Fatalf("4 rows with a limit of 3: %q", errs[commands.FieldRows])
	}
	if _, errs := e.importRows(admin1, "a@example.com\nb@example.com\nc@example.com", ""); len(errs) != 0 {
		t.Fatalf("3 rows with a limit of 3 refused: %v", errs)
	}
}

// importText is n rows: even rows for UADA (by ID or e-mail), odd ones
// without an owner.
func importText(n int) string {
	var b strings.Builder
	for i := range n {
		switch {
		case i%4 == 0:
			fmt.Fprintf(&b, "user%03d@example.com,UADA\n", i)
		case i%4 == 2:
			fmt.Fprintf(&b, "user%03d@example.org,ada@example.com,Given,Family\n", i)
		default:
			fmt.Fprintf(&b, "user%03d@example.com\n", i)
		}
	}
	return b.String()
}

func TestImportOneRequestOneApprovalEachRowOnce(t *testing.T) {
	api := newMailboxes("user001@example.com") // one exists already
	e := importEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests, ApprovalsRequired: 2})
	d, errs := e.importRows(user1, importText(40), "new office")
	if len(errs) != 0 {
		t.Fatalf("valid import refused: %v", errs)
	}
	if label := e.core.Execute(t.Context(), commands.Route{User: user1, Channel: "C1"}, d); label != commands.LabelRequested {
		t.Fatalf("import by a non-admin: label %q, want a request", label)
	}
	posts := e.msgr.of("post")
	if len(posts) != 1 {
		t.Fatalf("%d request messages, want one for the whole import", len(posts))
	}
	view := posts[0].View
	for _, want := range []string{"40 mailboxes in example.com, example.org", "user000@example.com", "and 35 more"} {
		if !strings.Contains(view.Text+view.Pending.Op.String(), want) {
			t.Errorf("request message lacks %q: %q / %q", want, view.Pending.Op.String(), view.Text)
		}
	}
	if api.totalAdds() != 0 {
		t.Fatalf("%d adds before approval", api.totalAdds())
	}
	if got := e.click(commands.ButtonApprove, *d.Pending, admin1, posts[0].Ref); got != commands.LabelCounted {
		t.Fatalf("first approval: %q", got)
	}
	if api.totalAdds() != 0 {
		t.Fatalf("%d adds after one of two approvals", api.totalAdds())
	}
	e.click(commands.ButtonApprove, *d.Pending, admin2, posts[0].Ref)
	for i := range 40 {
		a := fmt.Sprintf("user%03d@example.com", i)
		if i%4 == 2 {
			a = fmt.Sprintf("user%03d@example.org", i)
		}
		if n := api.count(a); n != 1 {
			t.Errorf("%s added %d times, want once", a, n)
		}
	}
	summary := e.msgr.lastTo(user1)
	if !strings.Contains(summary.Title, "39 created, 1 already existing, 0 failed") {
		t.Errorf("summary = %q", summary.Title)
	}
	offers := e.msgr.handoverCalls("offer")
	owners := map[string]int{}
	for _, o := range offers {
		owners[o.View.Handover.Owner]++
	}
	if owners["UADA"] != 20 || owners[user1] != 1 {
		t.Fatalf("hand-overs: %v; want 20 to UADA (one per row) and one to the requester for the 19 rows without an owner", owners)
	}
	runs := 0
	imports := 0
	for _, a := range e.audit() {
		switch {
		case a.Event == commands.EventRun && a.Action == commands.ActionAddMailbox:
			runs++
		case a.Event == commands.EventRun && a.Action == commands.ActionImport:
			imports++
		}
	}
	if runs != 40 || imports != 1 {
		t.Errorf("audit: %d row entries and %d import entries; want 40 and 1", runs, imports)
	}
	for _, n := range e.msgr.of("notify") {
		if strings.Contains(n.Text, "added mailbox") {
			t.Errorf("an ops notice per row: %q", n.Text)
		}
	}
	var bundle commands.HandoverView
	for _, o := range offers {
		if o.View.Handover.Owner == user1 {
			bundle = o.View
		}
	}
	mark := e.msgr.mark()
	label := e.core.Click(t.Context(), commands.Click{Kind: commands.ButtonShow, Value: bundle.Value, User: user1,
		Route: commands.Route{User: user1, Channel: "D1"}, Message: commands.MessageRef{}})
	if label != commands.LabelShown {
		t.Fatalf("Show on the import's hand-over: %q", label)
	}
	secrets := 0
	for _, c := range e.msgr.since(mark) {
		for _, f := range c.Reply.Fields {
			if f.Secret {
				secrets++
			}
		}
	}
	if secrets != 19 {
		t.Errorf("%d passwords shown, want the 19 created rows without an owner", secrets)
	}
	label = e.core.Click(t.Context(), commands.Click{Kind: commands.ButtonShow, Value: bundle.Value, User: user1, Route: commands.Route{User: user1}})
	if label == commands.LabelShown {
		t.Error("the import's passwords were shown twice")
	}
}

func TestImportResumesAfterAStop(t *testing.T) {
	api := newMailboxes()
	e := importEnv(t, api, commands.Config{})
	d, errs := e.importRows(admin1, importText(12), "")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	is := e.store.(commands.ImportStore)
	ctx := t.Context()
	if err := is.SaveImport(ctx, *d.Import); err != nil {
		t.Fatal(err)
	}
	id := d.Import.ID
	// A runner that stopped: row 0 done, row 1 sent (the mailbox exists,
	// the answer lost), row 3 claimed but never sent.
	now := e.clk.Now()
	if _, ok, err := is.LeaseImport(ctx, id, "dead", now, now.Add(-time.Minute)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	for _, i := range []int{0, 1, 3} {
		if st, err := is.ClaimRow(ctx, id, i, "dead"); st != commands.RowNew || err != nil {
			t.Fatal(st, err)
		}
	}
	for _, login := range []string{"user000", "user001"} {
		// As the runner does, the add's audit entry is begun before the add.
		if _, err := e.store.Begin(ctx, commands.AuditEntry{Time: now, RequestID: id, Event: commands.EventRun,
			Action: commands.ActionAddMailbox, Domain: "example.com", Login: login}); err != nil {
			t.Fatal(err)
		}
		if _, err := api.AddMailbox(ctx, "example.com", login, "x", true); err != nil {
			t.Fatal(err)
		}
	}
	if err := is.FinishRow(ctx, id, 0, "dead", commands.RowCreated, ""); err != nil {
		t.Fatal(err)
	}
	e.core.Sweep(ctx)
	if api.count("user002@example.org") != 0 {
		t.Fatal("a fresh lease was taken over")
	}
	e.clk.Advance(time.Minute)
	e.core.Sweep(ctx)
	rec, _, _ := is.GetImport(ctx, id)
	if rec.State != commands.ImportDone {
		t.Fatalf("import %s after the sweep", rec.State)
	}
	for i := range 12 {
		a := fmt.Sprintf("user%03d@example.com", i)
		if i%4 == 2 {
			a = fmt.Sprintf("user%03d@example.org", i)
		}
		if n := api.count(a); n != 1 {
			t.Errorf("%s added %d times, want once", a, n)
		}
		if rec.States[i].State != commands.RowCreated {
			t.Errorf("row %d: %s", i, rec.States[i].State)
		}
	}
	if !strings.Contains(e.msgr.lastTo(admin1).Title, "12 created") {
		t.Errorf("summary %q", e.msgr.lastTo(admin1).Title)
	}
}

func TestImportNonAdminWithoutApprovalsRefused(t *testing.T) {
	e := importEnv(t, newMailboxes(), commands.Config{})
	if _, errs := e.importRows(user1, "a@example.com", ""); errs[commands.FieldRows] == "" {
		t.Fatal("a non-admin's import with approvals off was not refused")
	}
}

// namedMailboxes is mailboxes that keeps the name each mailbox was
// created with.
type namedMailboxes struct {
	*mailboxes
	names sync.Map // address → name
}

func (n *namedMailboxes) AddNamedMailbox(ctx context.Context, domain, login string, name apiclient.PersonName, pw string, force bool) (*apiclient.Mailbox, error) {
	n.names.Store(login+"@"+domain, name)
	return n.mailboxes.AddMailbox(ctx, domain, login, pw, force)
}

// TestImportRowNamesReachTheProvider: a row's given and family names
// reach a provider that keeps a person's name as written, never joined and
// split again ("Nina", "van der Berg" stays so); a row without names sends
// none.
func TestImportRowNamesReachTheProvider(t *testing.T) {
	t.Parallel()
	api := &namedMailboxes{mailboxes: newMailboxes()}
	e := importEnv(t, api, commands.Config{})
	d, errs := e.importRows(admin1, "ada@example.com,,Ada King,Lovelace\nbob@example.com\nnina@example.com,,Nina,van der Berg\n", "")
	if len(errs) != 0 {
		t.Fatalf("valid import refused: %v", errs)
	}
	e.core.Execute(t.Context(), commands.Route{User: admin1, Channel: "C1"}, d)
	if api.count("ada@example.com") != 1 || api.count("bob@example.com") != 1 {
		t.Fatalf("adds: ada %d, bob %d; want one each", api.count("ada@example.com"), api.count("bob@example.com"))
	}
	for address, want := range map[string]apiclient.PersonName{"ada@example.com": {Given: "Ada King", Family: "Lovelace"}, "nina@example.com": {Given: "Nina", Family: "van der Berg"}} {
		if got, _ := api.names.Load(address); got != want {
			t.Errorf("%s's name at the provider = %+v, want %+v", address, got, want)
		}
	}
	if got, ok := api.names.Load("bob@example.com"); ok {
		t.Errorf("bob was added with the name %v, want none", got)
	}
}

func (m *mailboxes) ResolveMailbox(ctx context.Context, domain, login string) (*apiclient.Resolved, error) {
	return resolved(m.LookupMailbox(ctx, domain, login))
}
