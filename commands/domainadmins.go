package commands

import (
	"slices"
	"strings"
)

// isListed reports whether userID is one of ids: listed, or a member of a
// listed user group by the transport's last reading of it.
func (c *accessService) isListed(userID string, ids []string) bool {
	if userID == "" {
		return false
	}
	if slices.Contains(ids, userID) {
		return true
	}
	if c.cfg.InGroup == nil {
		return false
	}
	for _, a := range ids {
		if IsGroupID(a) && c.cfg.InGroup(a, userID) {
			return true
		}
	}
	return false
}

// IsAdminOf is [Core.IsAdminOf]'s work.
func (c *accessService) IsAdminOf(userID, domain string) bool {
	if c.IsAdmin(userID) {
		return true
	}
	for _, da := range c.cfg.DomainAdmins {
		if domain != "" && allowed([]string{da.Pattern}, domain) && c.isListed(userID, da.IDs) {
			return true
		}
	}
	return false
}

// isAdminOfAll reports whether userID is an admin of every one of
// domains; of none given, whether they are an admin of some domain.
func (c *accessService) isAdminOfAll(userID string, domains []string) bool {
	if c.IsAdmin(userID) {
		return true
	}
	if len(domains) == 0 {
		return c.isDomainAdmin(userID)
	}
	for _, d := range domains {
		if !c.IsAdminOf(userID, d) {
			return false
		}
	}
	return true
}

// isDomainAdmin reports whether userID is an admin of some domain only.
func (c *accessService) isDomainAdmin(userID string) bool {
	for _, da := range c.cfg.DomainAdmins {
		if c.isListed(userID, da.IDs) {
			return true
		}
	}
	return false
}

// opDomains are the domains op touches: its own, its second address's,
// or an import's (as its operation names them; one that names only some,
// "… and N more", gives none, so that only an admin of every domain
// decides it). An alias change, or aliases moved by an offboarding, at a
// provider whose aliases are names at every domain of the organisation
// touches domains mailbot may not know, so it too gives none beside its
// own.
func (c *accessService) opDomains(op Operation) []string {
	if orgWide := c.at(op.Domain).Capabilities().OrgWideAliases; orgWide && movesAliases(op) {
		return []string{op.Domain, ""}
	}
	if op.Action != ActionImport {
		ds := []string{op.Domain}
		if _, d, ok := cutAddress(op.To); ok && d != op.Domain {
			ds = append(ds, d)
		}
		return ds
	}
	if strings.Contains(op.Domain, " and ") || op.Domain == "" {
		return []string{""}
	}
	return strings.Split(op.Domain, ", ")
}

// movesAliases reports whether op adds, removes or moves aliases.
func movesAliases(op Operation) bool {
	return op.Action == ActionAliasAdd || op.Action == ActionAliasRemove || op.Action == ActionOffboard && op.To != ""
}

// mayDecide reports whether userID may approve or deny a request on op:
// an admin of every domain it touches.
func (c *accessService) mayDecide(userID string, op Operation) bool {
	for _, d := range c.opDomains(op) {
		if !c.IsAdminOf(userID, d) {
			return false
		}
	}
	return true
}

// decidersText names who may decide a request on op, in words: the
// admins, and the admins of its domains where MAILBOT_DOMAIN_ADMINS names
// some; "" when only the admins may.
func (c *accessService) decidersText(op Operation) string {
	var parts []string
	for _, da := range c.cfg.DomainAdmins {
		if !coversAll(da.Pattern, c.opDomains(op)) {
			continue
		}
		for _, id := range da.IDs {
			if IsGroupID(id) {
				parts = append(parts, c.groupName(id))
			} else {
				parts = append(parts, c.cfg.Mention(id))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "May decide: the mailbot admins, or an admin of " + strings.Join(c.opDomains(op), ", ") + ": " + strings.Join(slices.Compact(parts), ", ") + "."
}

// coversAll reports whether pattern matches every one of domains.
func coversAll(pattern string, domains []string) bool {
	for _, d := range domains {
		if d == "" || !allowed([]string{pattern}, d) {
			return false
		}
	}
	return true
}

// groupName names a user group by its handle ("@mail-admins"), as plain
// text that notifies nobody, or by its ID.
func (c *accessService) groupName(id string) string {
	if c.cfg.GroupHandle != nil {
		if h := c.cfg.GroupHandle(id); h != "" {
			return "@" + h
		}
	}
	return id
}

// readDomain is the domain a read is about: its own, or the default
// domain for a mailbox given without one.
func (c *accessService) readDomain(op Operation) string {
	if op.Domain == "" && op.Action.OnMailbox() {
		return c.cfg.DefaultDomain
	}
	return op.Domain
}

// rowsTheirs makes an import that its requester, an admin of some
// domains only, may run without approval follow the approval mode as a
// member's would when a row is on another domain: it then needs approval
// (and a reason), or is refused when approvals are off.
func (c *accessService) rowsTheirs(ic *ImportCheck) map[string]string {
	if ic.approval || c.IsAdmin(ic.req.UserID) {
		return nil
	}
	for _, r := range ic.rows {
		if c.IsAdminOf(ic.req.UserID, r.row.Domain) {
			continue
		}
		switch {
		case c.cfg.Approvals != ApprovalsRequests:
			return map[string]string{FieldRows: "You are an admin of some domains only, and row " + r.row.Target() +
				" is on another: only a mailbot admin may import there, and requests for approval are switched off (MAILBOT_APPROVALS=off). Nothing was done."}
		case ic.reason == "":
			return map[string]string{FieldReason: "Row " + r.row.Target() + " is on a domain you are no admin of, so the import needs an admin's approval: say why it is needed."}
		}
		ic.approval = true
		return nil
	}
	return nil
}
