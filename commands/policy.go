package commands

import (
	"fmt"
	"slices"
	"strings"
)

// ParseApprovalMode parses MAILBOT_APPROVALS: off, requests or all, in any
// letter case; empty means off.
func ParseApprovalMode(s string) (ApprovalMode, error) {
	switch m := ApprovalMode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return ApprovalsOff, nil
	case ApprovalsOff, ApprovalsRequests, ApprovalsAll:
		return m, nil
	}
	return "", fmt.Errorf("must be off, requests or all, got %q", trunc(s, 20))
}

// IsAdmin reports whether userID is one of the admins: listed, or a
// member of a listed user group by the transport's last reading of it. It
// never waits on the network.
func (c *Core) IsAdmin(userID string) bool {
	if userID == "" {
		return false
	}
	if slices.Contains(c.cfg.Admins, userID) {
		return true
	}
	if c.cfg.InGroup == nil {
		return false
	}
	for _, a := range c.cfg.Admins {
		if IsGroupID(a) && c.cfg.InGroup(a, userID) {
			return true
		}
	}
	return false
}

// IsGroupID reports whether an entry of the admins is a Slack user group
// ID (S…) rather than a user ID.
func IsGroupID(id string) bool { return strings.HasPrefix(id, "S") }

// adminGroupNames names the admin user groups by handle ("@mail-admins"),
// as plain text that notifies nobody.
func (c *Core) adminGroupNames() []string {
	var names []string
	for _, g := range c.AdminGroups() {
		name := g
		if c.cfg.GroupHandle != nil {
			if h := c.cfg.GroupHandle(g); h != "" {
				name = "@" + h
			}
		}
		names = append(names, name)
	}
	return names
}

// AdminGroups returns the user group IDs among the admins.
func (c *Core) AdminGroups() []string {
	var gs []string
	for _, a := range c.cfg.Admins {
		if IsGroupID(a) {
			gs = append(gs, a)
		}
	}
	return gs
}

// checkOp re-validates op as the parser would and checks it against the
// allow-list. It returns a refusal in words, or nil.
func (c *Core) checkOp(op Operation) *UsageError {
	cmd, fix := CmdDomain, "/maildomain register example.com"
	if op.Action.OnMailbox() {
		cmd, fix = CmdMailbox, "/mailbox "+string(op.Action)+" alice@example.com"
	}
	if !op.Action.IsOperation() {
		return &UsageError{Command: cmd, Problem: fmt.Sprintf("Unknown operation %q.", trunc(string(op.Action), 20)), Fix: fix}
	}
	if d, err := NormalizeDomain(op.Domain); err != nil || d != op.Domain {
		return &UsageError{Command: cmd, Problem: fmt.Sprintf("%q is not a valid domain name.", trunc(op.Domain, 80)), Fix: fix}
	}
	if op.Action.OnMailbox() {
		if l, err := normalizeLogin(op.Login); err != nil || l != op.Login {
			return &UsageError{Command: cmd, Problem: fmt.Sprintf("%q is not a valid user name.", trunc(op.Login, 40)), Fix: fix}
		}
	} else if op.Login != "" {
		return &UsageError{Command: cmd, Problem: "Registering a domain takes no user name.", Fix: fix}
	}
	if !allowed(c.domains, op.Domain) {
		return &UsageError{Command: cmd,
			Problem: fmt.Sprintf("mailbot may not touch %s: it is not in the list of allowed domains (%s).", op.Domain, strings.Join(c.domains, ", ")),
			Fix:     "a domain from that list, or ask an operator to add it to MAILBOT_DOMAINS"}
	}
	return nil
}

// authorise decides, by the approval mode, whether userID may run op now,
// must ask for approval, or is refused (with the reason).
func (c *Core) authorise(userID string) (Outcome, string) {
	admin := c.IsAdmin(userID)
	switch {
	case c.cfg.Approvals == ApprovalsAll:
		return OutcomeApproval, ""
	case admin:
		return OutcomeRun, ""
	case c.cfg.Approvals == ApprovalsRequests:
		return OutcomeApproval, ""
	}
	return OutcomeReply, "Only mailbot admins may register domains and add mailboxes, and requests for approval are switched off (MAILBOT_APPROVALS=off)."
}
