package commands

import (
	"errors"
	"fmt"
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

// IsAdmin is [Core.IsAdmin]'s work.
func (c *accessService) IsAdmin(userID string) bool { return c.isListed(userID, c.cfg.Admins) }

// IsGroupID reports whether an entry of the admins is a Slack user group
// ID (S012AB3CD) rather than a user ID.
func IsGroupID(id string) bool { return slackID(id, "S") }

// IsUserID reports whether id has the shape of a Slack user ID
// (U012AB3CD, or W012AB3CD in an Enterprise Grid).
func IsUserID(id string) bool { return slackID(id, "UW") }

// IsChannelID reports whether id has the shape of a Slack channel ID
// (C…, G… or D…).
func IsChannelID(id string) bool { return slackID(id, "CGD") }

// slackID reports whether id is one of the letters of kinds followed by
// two or more upper-case letters and digits. It is the regular expression
// ^[kinds][A-Z0-9]{2,}$ without one: no compiled program built at
// start-up, and no regexp machine per call on the commands' path.
func slackID(id, kinds string) bool {
	if len(id) < 3 || !strings.Contains(kinds, id[:1]) {
		return false
	}
	for i := 1; i < len(id); i++ {
		if c := id[i]; (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

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
func (c *accessService) adminGroupNames() []string {
	var names []string
	for _, g := range c.AdminGroups() {
		names = append(names, c.groupName(g))
	}
	return names
}

// AdminGroups is [Core.AdminGroups]'s work.
func (c *accessService) AdminGroups() []string {
	var gs []string
	for _, a := range c.cfg.Admins {
		if IsGroupID(a) {
			gs = append(gs, a)
		}
	}
	return gs
}

// checkOp checks op again as the parser would, and against the
// allow-list. It returns a refusal in words, or nil.
func (c *policyService) checkOp(op Operation) *UsageError {
	cmd, fix := CmdDomain, "/maildomain register example.com"
	switch op.Action {
	case ActionAliasAdd, ActionAliasRemove, ActionListAliases, ActionOffboard:
		cmd, fix = CmdMailbox, "/mailbox "+aliasFix(op.Action)
	default:
		if op.Action.OnMailbox() {
			cmd, fix = CmdMailbox, "/mailbox "+string(op.Action)+" alice@example.com"
		}
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
		if err := c.checkLogin(op.Domain, op.Login); err != nil {
			return &UsageError{Command: cmd, Problem: fmt.Sprintf("%q is not a valid user name at %s: %v.", trunc(op.Login, 40), c.titleAt(op.Domain), err), Fix: fix}
		}
	} else if op.Login != "" {
		return &UsageError{Command: cmd, Problem: "Registering a domain takes no user name.", Fix: fix}
	}
	if ue := checkFor(op); ue != nil {
		return ue
	}
	if ue := c.aliases.checkAliasOp(op, fix); ue != nil {
		return ue
	}
	return c.access.checkAllowed(cmd, op.Domain, op.Domain)
}

// checkAllowed refuses what, at domain, when the allow-list does not
// have domain: a refusal in words, or nil.
func (c *accessService) checkAllowed(cmd, domain, what string) *UsageError {
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

// authorise decides, by the approval mode, whether userID may run an
// operation on domains now, must ask for approval, or is refused (with
// the reason). An admin of those domains (of some domain, when none is
// known yet) counts as an admin.
func (c *accessService) authorise(userID string, domains ...string) (Step, string) {
	admin := c.isAdminOfAll(userID, domains)
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

// Decide is [Core.Decide]'s work.
func (c *policyService) Decide(req Request) Decision {
	inv, err := Parse(req.Command, req.Text)
	if err != nil {
		return parseFailure(req.Command, err)
	}
	switch {
	case inv.Help:
		return Decision{Step: StepReply, Reply: c.help(inv.Command)}
	case inv.Check:
		return Decision{Step: StepCheck, Op: inv.Op}
	case inv.Bare && inv.Op.Action == ActionResetPassword && c.cfg.SelfService == SelfServiceReset:
		return Decision{Step: StepSelfService, Op: inv.Op}
	case inv.Bare:
		return c.decideBare(req, inv)
	case inv.Read && inv.Op.Action == ActionListAliases:
		return c.aliases.decideAliasesRead(req.UserID, inv.Op)
	case inv.Read:
		if !c.access.IsAdminOf(req.UserID, c.access.readDomain(inv.Op)) {
			return c.access.notAllowed("Only mailbot admins may read what the provider holds.")
		}
		return c.decideRead(inv.Op)
	}
	return c.decideChange(req, inv.Op)
}

// parseFailure answers a request that does not parse: with what is wrong and
// how to fix it for a usage error, with the command's help otherwise.
func parseFailure(command string, err error) Decision {
	var ue *UsageError
	if errors.As(err, &ue) {
		return Decision{Step: StepReply, Reply: usageReply(ue)}
	}
	return Decision{Step: StepReply, Reply: Help(command)}
}

// decideBare answers a command or sub-command given without arguments: a
// form to fill in, for those allowed to ask for the operation.
func (c *policyService) decideBare(req Request, inv Invocation) Decision {
	if outcome, why := c.access.authorise(req.UserID); outcome == StepReply {
		return c.access.notAllowed(why)
	}
	if inv.Op.Action == ActionImport {
		return Decision{Step: StepForm, Op: inv.Op, Form: c.imports.importForm(req), Reply: c.help(inv.Command)}
	}
	return Decision{Step: StepForm, Op: inv.Op, Form: c.form(req, inv.Op.Action), Reply: c.help(inv.Command)}
}

// decideChange completes and checks an operation that changes what the
// provider holds, then decides whether it runs now or needs approval.
func (c *policyService) decideChange(req Request, op Operation) Decision {
	op, aue := c.aliases.aliasDefaults(op)
	if aue != nil {
		return Decision{Step: StepReply, Reply: usageReply(aue)}
	}
	op, ue := c.withDefaultDomain(op)
	if ue == nil {
		ue = c.checkOp(op)
	}
	if ue != nil {
		return Decision{Step: StepReply, Reply: usageReply(ue)}
	}
	return c.selfServiceOr(req, op, c.decideOp(req, op))
}

// withDefaultDomain puts the configured default domain on a mailbox
// operation given without one; without a default domain that is a usage error.
func (c *policyService) withDefaultDomain(op Operation) (Operation, *UsageError) {
	if !op.Action.OnMailbox() || op.Domain != "" {
		return op, nil
	}
	if c.cfg.DefaultDomain == "" {
		return op, &UsageError{Command: CmdMailbox,
			Problem: fmt.Sprintf("No domain given for %s, and mailbot has no default domain (MAILBOT_DEFAULT_DOMAIN).", op.Login),
			Fix:     fmt.Sprintf("/mailbox %s %s@example.com or /mailbox %s %s example.com", op.Action, op.Login, op.Action, op.Login)}
	}
	op.Domain = c.cfg.DefaultDomain
	return op, nil
}

// decideOp decides, by the policy, what becomes of the valid operation op
// that req asks for.
func (c *policyService) decideOp(req Request, op Operation) Decision {
	outcome, why := c.access.authorise(req.UserID, c.access.opDomains(op)...)
	switch outcome {
	case StepReply:
		return c.access.notAllowed(why)
	case StepRun:
		return Decision{Step: StepRun, Op: op}
	}
	now := c.now()
	p := &Pending{ID: newID(), Requester: req.UserID, Channel: req.ChannelID, Op: op, Created: now, Expires: now.Add(c.cfg.ApprovalTTL)}
	return Decision{Step: StepApproval, Op: op, Pending: p}
}

// notAllowed refuses a person who may not run operations.
func (c *accessService) notAllowed(why string) Decision {
	return Decision{Step: StepReply, Reply: Reply{Title: "Not allowed", Text: why,
		Note: "Ask a mailbot admin to do it for you.", Error: true}}
}

// decideRead reads op.Domain, or the default domain when none is given
// (list), once the allow-list has it.
func (c *policyService) decideRead(op Operation) Decision {
	cmd := op.Action.Command()
	if op.Domain == "" {
		if c.cfg.DefaultDomain == "" {
			return Decision{Step: StepReply, Reply: usageReply(&UsageError{Command: cmd,
				Problem: "Give exactly one domain: mailbot has no default domain (MAILBOT_DEFAULT_DOMAIN).",
				Fix:     cmd + " " + string(op.Action) + " example.com", Usage: true})}
		}
		op.Domain = c.cfg.DefaultDomain
	}
	if ue := c.access.checkAllowed(cmd, op.Domain, op.Domain); ue != nil {
		return Decision{Step: StepReply, Reply: usageReply(ue)}
	}
	return Decision{Step: StepRead, Op: op}
}

// Decision is the core's answer to a [Request] before anything is run.
type Decision struct {
	Step    Step
	Op      Operation // for StepRun, StepApproval and StepCheck (its Domain)
	Reply   Reply     // for StepReply: the answer
	Pending *Pending  // for StepApproval: the request to post for the admins
	Form    *Form     // for StepForm: the form to show
	// Fallback is, for StepSelfService on a typed address, what the
	// reset is when the address is not the caller's own.
	Fallback *Decision
	// Import is, for an import, the checked rows to keep and run.
	Import *Import
}

// Step is what the core decided to do with a request.
type Step int

// The verdicts of [Core.Decide].
const (
	StepReply       Step = iota // Reply is the whole answer: help, usage, invalid input or refusal
	StepRun                     // run Op now (Execute)
	StepApproval                // Op needs an admin's approval: post Pending, tell the requester
	StepForm                    // a bare command: show Form (the shell answers with the usage)
	StepCheck                   // run the DNS checklist of Op.Domain
	StepRead                    // read Op.Domain at the provider (list, status): an admin's, no approval
	StepSelfService             // a reset that may be the caller's own mailbox: Execute checks and runs it
)
