package commands

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// HomeLimit bounds each list of the Home tab.
const HomeLimit = 20

// Home is what the Home tab shows a person (docs/approvals.md): an admin the
// pending requests with Approve and Deny, and the latest entries of the
// audit trail; anyone else their own pending requests with Cancel, and
// how to use the commands. It never holds a secret.
type Home struct {
	User    string
	Admin   bool
	Need    int // approvals a request needs
	Pending []HomeRequest
	Recent  []AuditEntry // newest first; admins only
	Help    []Field      // the commands' usage
	Problem string       // what went wrong reading the store, if anything
}

// HomeRequest is a pending request on the Home tab, with the buttons
// the person who sees it may click (their values are the signed request).
type HomeRequest struct {
	Record
	Value   string
	Buttons []Button
}

// PendingTitle names the list of pending requests for the person who
// sees it.
func (h Home) PendingTitle() string {
	if h.Admin {
		return "Pending requests"
	}
	return "Your pending requests"
}

// homeButtons are Approve and Deny for one who may decide r (Cancel too
// on their own request), Cancel for the requester.
func (h Home) homeButtons(r Record, value string, decide bool) []Button {
	var bs []Button
	if decide {
		bs = append(bs, Button{Kind: ButtonApprove, Label: "Approve", Value: value},
			Button{Kind: ButtonDeny, Label: "Deny", Value: value})
	}
	if r.Requester == h.User {
		bs = append(bs, Button{Kind: ButtonCancel, Label: "Cancel request", Value: value})
	}
	return bs
}

// Home is [Core.Home]'s work.
func (c *readService) Home(ctx context.Context, user string) Home {
	h := Home{User: user, Admin: c.access.IsAdmin(user), Need: c.cfg.ApprovalsRequired, Help: append(usageFields(""), c.routeFields()...)}
	mine := user
	if h.Admin || c.access.isDomainAdmin(user) {
		mine = "" // and a domain admin's are those they may decide, below
	}
	recs, err := c.store.Pending(ctx, mine, HomeLimit)
	if c.storeFailed(err, "home pending") {
		h.Problem = "mailbot cannot reach its database right now: the lists below may be incomplete."
	}
	for _, r := range recs {
		decide := c.access.mayDecide(user, r.Op)
		if !decide && r.Requester != user {
			continue
		}
		v := c.requests.EncodePending(r.Pending)
		h.Pending = append(h.Pending, HomeRequest{Record: r, Value: v, Buttons: h.homeButtons(r, v, decide)})
	}
	if h.Admin {
		h.Recent, err = c.store.Audit(ctx, time.Time{}, HomeLimit, true)
		if c.storeFailed(err, "home audit") {
			h.Problem = "mailbot cannot reach its database right now: the lists below may be incomplete."
		}
	}
	return h
}

// PlainText renders the Home tab for a console; mention renders user IDs.
func (h Home) PlainText(mention func(string) string) string {
	var b strings.Builder
	role := "you may ask for operations; an admin decides"
	if h.Admin {
		role = "you are a mailbot admin"
	}
	fmt.Fprintf(&b, "mailbot home for %s (%s)\n", mention(h.User), role)
	if h.Problem != "" {
		b.WriteString(h.Problem + "\n")
	}
	fmt.Fprintf(&b, "%s: %d\n", h.PendingTitle(), len(h.Pending))
	for _, r := range h.Pending {
		fmt.Fprintf(&b, "  %s  %s, expires %s", r.ID, r.Summary(mention), fmtTime(r.Expires))
		if len(r.Approvers) > 0 {
			fmt.Fprintf(&b, " (%d of %d approvals)", len(r.Approvers), h.Need)
		}
		b.WriteByte('\n')
	}
	if h.Admin {
		fmt.Fprintf(&b, "Latest entries of the audit trail: %d\n", len(h.Recent))
		for _, e := range h.Recent {
			b.WriteString("  " + e.Line(mention) + "\n")
		}
	}
	b.WriteString("Commands:\n")
	for _, f := range h.Help {
		if f.Label == CmdDomain || f.Label == CmdMailbox {
			continue // a form: a console has none
		}
		fmt.Fprintf(&b, "  %s  %s\n", f.Label, f.Value)
	}
	return b.String()
}
