package commands_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
)

// TestHome fills the store with 25 pending requests and 22 operations and
// checks the Home tab: an admin sees every pending request, oldest first,
// at most 20, with buttons that decide as the ops channel's do, and the
// latest 20 operations newest first; a requester sees only their own
// requests and no audit trail. No view holds a secret.
func TestHome(t *testing.T) {
	t.Parallel()
	api := &fakeProvider{}
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	var all, mine []commands.Pending
	for i := range 25 {
		user := []string{user1, user2}[i%2]
		p, _ := e.request(user, fmt.Sprintf("/mailbox add u%02d@example.com", i))
		all = append(all, p)
		if user == user1 {
			mine = append(mine, p)
		}
		e.clk.Advance(time.Minute)
	}
	for i := range 22 {
		e.typed(admin1, fmt.Sprintf("/maildomain register d%02d.example.com", i))
		e.clk.Advance(time.Minute)
	}
	h := e.core.Home(t.Context(), admin1)
	if !h.Admin || h.Problem != "" || len(h.Pending) != commands.HomeLimit || len(h.Recent) != commands.HomeLimit || len(h.Help) == 0 {
		t.Fatalf("admin Home: admin %v, problem %q, %d pending, %d recent, %d help lines; want admin, 20, 20, the usage",
			h.Admin, h.Problem, len(h.Pending), len(h.Recent), len(h.Help))
	}
	for i, r := range h.Pending {
		if r.ID != all[i].ID {
			t.Errorf("admin Home pending[%d] = %s, want %s (oldest first)", i, r.ID, all[i].ID)
		}
		if p, err := e.core.DecodePending(r.Value); err != nil || p != all[i] {
			t.Errorf("admin Home pending[%d] value decodes to %+v, %v; want the request", i, p, err)
		}
	}
	for i, a := range h.Recent {
		if want := fmt.Sprintf("d%02d.example.com", 21-i); a.Domain != want {
			t.Errorf("admin Home recent[%d] = %s, want %s (newest first)", i, a.Domain, want)
		}
	}
	u := e.core.Home(t.Context(), user1)
	if u.Admin || len(u.Recent) != 0 || len(u.Pending) != len(mine) || len(u.Help) == 0 {
		t.Fatalf("requester Home: admin %v, %d recent, %d pending, %d help lines; want only their %d requests and the usage",
			u.Admin, len(u.Recent), len(u.Pending), len(u.Help), len(mine))
	}
	for i, r := range u.Pending {
		if r.ID != mine[i].ID || r.Requester != user1 {
			t.Errorf("requester Home pending[%d] = %s by %s, want %s by %s", i, r.ID, r.Requester, mine[i].ID, user1)
		}
	}
	if n := e.core.Home(t.Context(), "UNOBODY"); len(n.Pending) != 0 || len(n.Recent) != 0 {
		t.Errorf("Home of someone without requests = %+v, want nothing pending", n)
	}
	for _, v := range []any{h, u} {
		if s := fmt.Sprintf("%+v", v); strings.Contains(s, secretContent) || strings.Contains(s, secretName) {
			t.Errorf("a Home view holds a verification secret: %s", s)
		}
	}
	text := u.PlainText(func(id string) string { return "@" + id })
	for _, p := range mine {
		text = strings.ReplaceAll(text, p.ID, "<id>")
	}
	commands.Golden(t, "flow/home-requester", text)
}

// TestHomeDecide approves a request with the value its Home tab button
// carries: it runs once, and the request message in the ops channel is
// updated as if the button there had been clicked.
func TestHomeDecide(t *testing.T) {
	t.Parallel()
	api := &fakeProvider{}
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	_, ref := e.request(user1, "/mailbox add pia@example.com")
	h := e.core.Home(t.Context(), admin1)
	if len(h.Pending) != 1 {
		t.Fatalf("admin Home has %d pending, want 1", len(h.Pending))
	}
	for range 2 {
		e.clickValue(commands.ButtonApprove, h.Pending[0].Value, admin1, commands.MessageRef{})
	}
	if n := api.calls.Load(); n != 1 {
		t.Errorf("API calls = %d, want 1", n)
	}
	if up, ok := e.msgr.last("update"); !ok || up.Ref != ref || up.View.State != commands.StateDone {
		t.Errorf("request message update = %+v, want the ops message, done", up)
	}
	if h := e.core.Home(t.Context(), admin1); len(h.Pending) != 0 || len(h.Recent) != 2 {
		t.Errorf("admin Home after the decision: %d pending, %d recent; want 0 and the approval and the run", len(h.Pending), len(h.Recent))
	}
}

// TestHomeStoreDown checks that the Home tab says so when the store
// cannot be read, instead of showing an empty list as the truth.
func TestHomeStoreDown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, &fakeProvider{}, commands.Config{Approvals: commands.ApprovalsRequests}, newDownStore(true, "Pending", "Audit"))
	for _, user := range []string{admin1, user1} {
		if h := e.core.Home(t.Context(), user); !strings.Contains(h.Problem, "cannot reach its database") {
			t.Errorf("Home of %s with the store down: problem %q, want that the database cannot be reached", user, h.Problem)
		}
	}
}

// TestFormFlow takes a bare /mailbox through its form: invalid values
// touch nothing, a valid form is carried out as the typed command, and
// the result goes to the channel where the command was typed, from the
// form's signed metadata.
func TestFormFlow(t *testing.T) {
	t.Parallel()
	api := &fakeProvider{}
	e := newEnv(t, api, commands.Config{Approvals: commands.ApprovalsRequests, Domains: []string{"example.com"}}, nil)
	for _, who := range []string{admin1, user1} {
		d := e.core.Decide(commands.Request{UserID: who, ChannelID: "CFORM", Command: commands.CmdMailbox})
		if d.Step != commands.StepForm {
			t.Fatalf("bare /mailbox by %s = %+v, want a form", who, d)
		}
		mark, calls := e.msgr.mark(), api.calls.Load()
		if _, _, errs := e.core.SubmitForm(who, d.Form.Metadata, commands.FormValues{Domain: "example.org", User: "quinn", Reason: "r"}); errs[commands.FieldDomain] == "" {
			t.Errorf("a form outside the allow-list by %s = %q, want a domain error", who, errs)
		}
		if n := len(e.msgr.since(mark)); n != 0 || api.calls.Load() != calls {
			t.Fatalf("an invalid form made %d messages, %d API calls; want none", n, api.calls.Load()-calls)
		}
		got, channel, errs := e.core.SubmitForm(who, d.Form.Metadata, commands.FormValues{Domain: "example.com", User: "quinn-" + strings.ToLower(who), Reason: "r"})
		if errs != nil || channel != "CFORM" {
			t.Fatalf("valid form by %s: channel %q, errors %q", who, channel, errs)
		}
		e.core.Execute(t.Context(), commands.Route{User: who, Channel: channel}, got)
	}
	p, ok := e.msgr.last("post")
	if !ok || p.View.Pending.Requester != user1 || p.View.Pending.Channel != "CFORM" {
		t.Fatalf("the user's form posted %+v, want a request from CFORM", p)
	}
	e.click(commands.ButtonApprove, p.View.Pending, admin2, p.Ref)
	for _, who := range []string{admin1, user1} {
		rs := e.msgr.of("deliver")
		var found bool
		for _, c := range rs {
			found = found || (c.Route.User == who && c.Route.Channel == "CFORM" && strings.Contains(c.Reply.Title, "created"))
		}
		if !found {
			t.Errorf("%s's result was not delivered to them in CFORM", who)
		}
	}
	if n := api.calls.Load(); n != 2 {
		t.Errorf("API calls = %d, want 2", n)
	}
}

// TestHomeButtons: the core decides which buttons each person sees on
// the Home tab: an admin Approve and Deny (and Cancel on a request of
// their own), a requester Cancel only, each carrying the signed request.
func TestHomeButtons(t *testing.T) {
	t.Parallel()
	e := newEnv(t, &fakeProvider{}, commands.Config{Approvals: commands.ApprovalsAll, Admins: []string{admin1, admin2}}, nil)
	e.request(user1, "/mailbox add u1@example.com")
	e.request(admin1, "/mailbox add a1@example.com")
	kinds := func(r commands.HomeRequest) string {
		var ks []string
		for _, b := range r.Buttons {
			if b.Value != r.Value {
				t.Errorf("button %s of %s carries another value", b.Label, r.ID)
			}
			ks = append(ks, b.Label)
		}
		return strings.Join(ks, ",")
	}
	want := map[string]map[string]string{
		admin1: {user1: "Approve,Deny", admin1: "Approve,Deny,Cancel request"},
		admin2: {user1: "Approve,Deny", admin1: "Approve,Deny"},
		user1:  {user1: "Cancel request"},
	}
	for viewer, byRequester := range want {
		h := e.core.Home(t.Context(), viewer)
		if len(h.Pending) != len(byRequester) {
			t.Fatalf("%s sees %d pending requests, want %d", viewer, len(h.Pending), len(byRequester))
		}
		for _, r := range h.Pending {
			if got := kinds(r); got != byRequester[r.Requester] {
				t.Errorf("%s sees buttons %q on %s's request, want %q", viewer, got, r.Requester, byRequester[r.Requester])
			}
		}
	}
	if got := e.core.Home(t.Context(), admin1).PendingTitle(); got != "Pending requests" {
		t.Errorf("admin's title = %q", got)
	}
	if got := e.core.Home(t.Context(), user1).PendingTitle(); got != "Your pending requests" {
		t.Errorf("requester's title = %q", got)
	}
}
