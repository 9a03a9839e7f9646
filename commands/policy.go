package commands

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
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
// ID (S012AB3CD) rather than a user ID.
func IsGroupID(id string) bool { return slackGroupID.MatchString(id) }

// IsUserID reports whether id has the shape of a Slack user ID
// (U012AB3CD, or W012AB3CD in an Enterprise Grid).
func IsUserID(id string) bool { return slackUserID.MatchString(id) }

// IsChannelID reports whether id has the shape of a Slack channel ID
// (C…, G… or D…).
func IsChannelID(id string) bool { return slackChannelID.MatchString(id) }

var (
	slackGroupID   = regexp.MustCompile(`^S[A-Z0-9]{2,}$`)
	slackUserID    = regexp.MustCompile(`^[UW][A-Z0-9]{2,}$`)
	slackChannelID = regexp.MustCompile(`^[CGD][A-Z0-9]{2,}$`)
)

// Setting names a field of [Config] that [Config.Check] can refuse.
type Setting string

// The settings of [Config] that [Config.Check] checks.
const (
	SettingApprovals         Setting = "Approvals"
	SettingApprovalTTL       Setting = "ApprovalTTL"
	SettingApprovalsRequired Setting = "ApprovalsRequired"
	SettingDomains           Setting = "Domains"
	SettingDefaultDomain     Setting = "DefaultDomain"
	SettingPasswordLength    Setting = "PasswordLength"
)

// SettingError is a setting of a [Config] that [Config.Check] refuses.
type SettingError struct {
	Setting Setting
	Err     error // what is wrong, in words; never a secret
}

func (e *SettingError) Error() string { return "commands: " + string(e.Setting) + ": " + e.Err.Error() }

// Unwrap returns the reason.
func (e *SettingError) Unwrap() error { return e.Err }

// Check checks the policy of cfg, each setting on its own, and returns cfg
// normalised (the approval mode in lower case, the default domain in its
// canonical form) and every setting it refuses. It is the one home of
// these rules: [New] runs it, and so does the configuration of the
// command line, which names the variable of each refused setting.
func (cfg Config) Check() (Config, []*SettingError) {
	var errs []*SettingError
	refuse := func(s Setting, err error) {
		if err != nil {
			errs = append(errs, &SettingError{Setting: s, Err: err})
		}
	}
	var err error
	cfg.Approvals, err = ParseApprovalMode(string(cfg.Approvals))
	refuse(SettingApprovals, err)
	if cfg.ApprovalTTL <= 0 {
		refuse(SettingApprovalTTL, fmt.Errorf("must be a positive duration, got %s", cfg.ApprovalTTL))
	}
	refuse(SettingApprovalsRequired, CheckRange(cfg.ApprovalsRequired, 1, MaxApprovalsRequired))
	refuse(SettingPasswordLength, CheckRange(cfg.PasswordLength, apiclient.MinPasswordLen, apiclient.MaxPasswordLen))
	refuse(SettingDomains, CheckDomainPatterns(cfg.Domains))
	cfg = cfg.checkHandover(refuse)
	cfg = cfg.checkImport(refuse)
	if cfg.DefaultDomain != "" {
		var d string
		if d, err = NormalizeDomain(cfg.DefaultDomain); err == nil {
			cfg.DefaultDomain = d
		}
		refuse(SettingDefaultDomain, err)
	}
	return cfg, errs
}

// withDefaults gives the zero values of the settings that have a default
// their default.
func (cfg Config) withDefaults() Config {
	if cfg.ApprovalTTL == 0 {
		cfg.ApprovalTTL = DefaultApprovalTTL
	}
	if cfg.ApprovalsRequired == 0 {
		cfg.ApprovalsRequired = 1
	}
	if cfg.PasswordLength == 0 {
		cfg.PasswordLength = DefaultPasswordLength
	}
	if cfg.HandoverTTL == 0 {
		cfg.HandoverTTL = DefaultHandoverTTL
	}
	if cfg.ImportMaxRows == 0 {
		cfg.ImportMaxRows = DefaultImportMaxRows
	}
	return cfg
}

// CheckRange is the rule for a whole-number setting: lo to hi, both
// included. The core's settings and main's variables both follow it.
func CheckRange(n, lo, hi int) error {
	if n < lo || n > hi {
		return fmt.Errorf("must be %d to %d, got %d", lo, hi, n)
	}
	return nil
}

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
	if op.Action == ActionImport {
		return nil // each row is checked when it runs
	}
	if !op.Action.IsOperation() {
		return &UsageError{Command: cmd, Problem: fmt.Sprintf("Unknown operation %q.", trunc(string(op.Action), 20)), Fix: fix}
	}
	if d, err := NormalizeDomain(op.Domain); err != nil || d != op.Domain {
		return &UsageError{Command: cmd, Problem: fmt.Sprintf("%q is not a valid domain name.", trunc(op.Domain, 80)), Fix: fix}
	}
	if op.Action.OnMailbox() {
		if l, err := normalizeLogin(op.Action, op.Login); err != nil || l != op.Login {
			return &UsageError{Command: cmd, Problem: fmt.Sprintf("%q is not a valid user name.", trunc(op.Login, 40)), Fix: fix}
		}
		if err := c.checkLogin(op.Login); err != nil {
			return &UsageError{Command: cmd, Problem: fmt.Sprintf("%q is not a valid user name at %s: %v.", trunc(op.Login, 40), c.providerName(), err), Fix: fix}
		}
	} else if op.Login != "" {
		return &UsageError{Command: cmd, Problem: "Registering a domain takes no user name.", Fix: fix}
	}
	if ue := checkFor(op); ue != nil {
		return ue
	}
	if ue := c.checkAliasOp(op, fix); ue != nil {
		return ue
	}
	return c.checkAllowed(cmd, op.Domain, op.Domain)
}

// checkAllowed refuses what, at domain, when the allow-list does not
// have domain: a refusal in words, or nil.
func (c *Core) checkAllowed(cmd, domain, what string) *UsageError {
	if allowed(c.domains, domain) {
		return nil
	}
	which := "it"
	if what != domain {
		which = domain
	}
	return &UsageError{Command: cmd,
		Problem: fmt.Sprintf("mailbot may not touch %s: %s is not in the list of allowed domains (%s).", what, which, strings.Join(c.domains, ", ")),
		Fix:     "a domain from that list, or ask an operator to add it to MAILBOT_DOMAINS"}
}

// authorise decides, by the approval mode, whether userID may run op now,
// must ask for approval, or is refused (with the reason).
func (c *Core) authorise(userID string) (Step, string) {
	admin := c.IsAdmin(userID)
	switch {
	case c.cfg.Approvals == ApprovalsAll:
		return StepApproval, ""
	case admin:
		return StepRun, ""
	case c.cfg.Approvals == ApprovalsRequests:
		return StepApproval, ""
	}
	return StepReply, "Only mailbot admins may register domains and add, reset, block or unblock mailboxes, and requests for approval are switched off (MAILBOT_APPROVALS=off)."
}
