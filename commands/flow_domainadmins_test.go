package commands_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/commands"
)

const domAdmin = "UDOMSHOP"

// domainWorld is the routed world with MAILBOT_APPROVALS=requests and
// domAdmin an admin of shop.example only.
func domainWorld(t *testing.T, mode commands.ApprovalMode) *routedWorld {
	t.Helper()
	return newRoutedWorld(t, commands.Config{Approvals: mode,
		DomainAdmins: []commands.DomainAdmins{{Pattern: "shop.example", IDs: []string{domAdmin}}}})
}

// A domain admin runs operations and reads on their domain without
// approval, and is a member elsewhere: a request there, and no read.
func TestDomainAdminOperatesOnTheirDomainOnly(t *testing.T) {
	w := domainWorld(t, commands.ApprovalsRequests)
	if d, label := w.typed(domAdmin, "/mailbox add carol@shop.example"); d.Step != commands.StepRun || label != commands.LabelOK {
		t.Fatalf("add on their domain: step %v, label %q: %s", d.Step, label, w.msgr.lastTo(domAdmin).PlainText())
	}
	if _, label := w.typed(domAdmin, "/mailbox list shop.example"); label != commands.LabelAnswered && label != commands.LabelOK {
		t.Errorf("list of their domain: label %q: %s", label, w.msgr.lastTo(domAdmin).PlainText())
	}
	pddBefore := w.pdd.sim.Requests("")
	if d, _ := w.typed(domAdmin, "/mailbox add dave@example.com for the team"); d.Step != commands.StepApproval {
		t.Errorf("add on another domain: step %v, want an approval request", d.Step)
	}
	if d, _ := w.typed(domAdmin, "/mailbox list example.com"); d.Step != commands.StepReply || !d.Reply.Error {
		t.Errorf("list of another domain: step %v: %s", d.Step, d.Reply.PlainText())
	}
	if n := w.pdd.sim.Requests("") - pddBefore; n != 0 {
		t.Errorf("the domain admin's commands elsewhere sent %d requests to PDD, want none", n)
	}
	off := domainWorld(t, commands.ApprovalsOff)
	if d, _ := off.typed(domAdmin, "/mailbox add dave@example.com"); d.Step != commands.StepReply || !d.Reply.Error {
		t.Errorf("with approvals off, an add on another domain: step %v, want refused", d.Step)
	}
}

// A domain admin decides requests on their domain, and a click on any
// other request is refused and changes nothing; the request message
// names them as one who may decide; the Home tab shows them only the
// requests they may decide.
func TestDomainAdminDecidesTheirDomainsRequests(t *testing.T) {
	w := domainWorld(t, commands.ApprovalsRequests)
	shop, shopRef := w.request(user1, "/mailbox add erin@shop.example new hire")
	other, otherRef := w.request(user1, "/mailbox add frank@example.com new hire")
	views := w.msgr.of("post")
	if !strings.Contains(views[0].View.Text, "<@"+domAdmin+">") || strings.Contains(views[1].View.Text, "<@"+domAdmin+">") {
		t.Errorf("request messages: %q and %q; want the domain admin named on shop.example's only", views[0].View.Text, views[1].View.Text)
	}
	home := w.core.Home(t.Context(), domAdmin)
	if len(home.Pending) != 1 || home.Pending[0].ID != shop.ID || len(home.Pending[0].Buttons) != 2 {
		t.Errorf("the domain admin's Home shows %d requests: %+v; want the one on shop.example, with Approve and Deny", len(home.Pending), home.Pending)
	}
	pddBefore := w.pdd.sim.Requests("")
	if label := w.click(commands.ButtonApprove, other, domAdmin, otherRef); label != commands.LabelRefused {
		t.Errorf("the domain admin approving a request on example.com: label %q, want refused", label)
	}
	if label := w.click(commands.ButtonDeny, other, domAdmin, otherRef); label != commands.LabelRefused {
		t.Errorf("the domain admin denying a request on example.com: label %q, want refused", label)
	}
	if rec := w.record(other.ID); rec.State != commands.StatePending || len(rec.Approvers) != 0 || w.pdd.sim.Requests("") != pddBefore {
		t.Errorf("after refused clicks the request is %s with approvers %v, %d PDD requests", rec.State, rec.Approvers, w.pdd.sim.Requests("")-pddBefore)
	}
	if label := w.click(commands.ButtonApprove, shop, domAdmin, shopRef); label != commands.LabelOK {
		t.Errorf("the domain admin approving a request on shop.example: label %q, want ok", label)
	}
	if _, ok := w.cow.Mailbox("erin@shop.example"); !ok {
		t.Error("erin@shop.example was not created at mailcow")
	}
	if label := w.click(commands.ButtonApprove, other, admin1, otherRef); label != commands.LabelOK {
		t.Errorf("an admin approving the request on example.com: label %q", label)
	}
}

// N-of-M counts a domain admin and an admin alike.
func TestDomainAdminCountsInNofM(t *testing.T) {
	w := newRoutedWorld(t, commands.Config{Approvals: commands.ApprovalsRequests, ApprovalsRequired: 2,
		DomainAdmins: []commands.DomainAdmins{{Pattern: "shop.example", IDs: []string{domAdmin}}}})
	p, ref := w.request(user1, "/mailbox add gina@shop.example new hire")
	if label := w.click(commands.ButtonApprove, p, domAdmin, ref); label != commands.LabelCounted {
		t.Fatalf("first approval by the domain admin: %q", label)
	}
	if label := w.click(commands.ButtonApprove, p, admin1, ref); label != commands.LabelOK {
		t.Fatalf("second approval by an admin: %q", label)
	}
	if _, ok := w.cow.Mailbox("gina@shop.example"); !ok {
		t.Error("gina@shop.example was not created")
	}
}

// A reminder of a request on a domain with its own admins mentions them
// beside the admins.
func TestDomainAdminReminded(t *testing.T) {
	w := newRoutedWorld(t, commands.Config{Approvals: commands.ApprovalsRequests, RemindAfter: 30 * time.Minute,
		DomainAdmins: []commands.DomainAdmins{{Pattern: "shop.example", IDs: []string{domAdmin}}}})
	w.request(user1, "/mailbox add hana@shop.example new hire")
	w.request(user1, "/mailbox add ivan@example.com new hire")
	w.clk.Advance(31 * time.Minute)
	w.sweep(0, 2)
	rs := w.msgr.of("remind")
	if len(rs) != 2 {
		t.Fatalf("%d reminders, want 2", len(rs))
	}
	for _, r := range rs {
		if shop := strings.Contains(r.Text, "hana@shop.example"); shop != strings.Contains(r.Text, "<@"+domAdmin+">") {
			t.Errorf("reminder %q; want the domain admin mentioned on shop.example's only", r.Text)
		}
	}
}
