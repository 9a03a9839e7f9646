package commands

import "context"

// The entry points that the transports call, each the work of one service.

// CheckDomain returns the domain a "Check DNS" button's value names, for
// a transport that shows the button as a command to type.
func (c *Core) CheckDomain(value string) (string, bool) { return c.reads.CheckDomain(value) }

// IsAdminOf reports whether userID is an admin of domain (normalised): an
// admin of every domain (MAILBOT_ADMINS), or of this one
// (MAILBOT_DOMAIN_ADMINS, any pattern that matches it).
func (c *Core) IsAdminOf(userID, domain string) bool { return c.access.IsAdminOf(userID, domain) }

// SubmitForm checks a submitted form by the rules of typed text and the
// policy. When something is wrong it returns the problems by field (the
// form stays open and nothing runs); otherwise the decision to carry out,
// as [Core.Decide] would return it for the typed command, and the channel
// where the command was typed (from the signed metadata, never trusted
// unsigned).
func (c *Core) SubmitForm(user, metadata string, v FormValues) (d Decision, channel string, errs map[string]string) {
	return c.policy.SubmitForm(user, metadata, v)
}

// EncodeHandover returns h signed, for a Show button's value.
func (c *Core) EncodeHandover(h Handover) string { return c.handovers.EncodeHandover(h) }

// DecodeHandover checks the signature of s and returns the hand-over.
func (c *Core) DecodeHandover(s string) (Handover, error) { return c.handovers.DecodeHandover(s) }

// Home returns the Home tab of user.
func (c *Core) Home(ctx context.Context, user string) Home { return c.reads.Home(ctx, user) }

// SubmitImport checks a submitted import form (its metadata signed by
// mailbot): the policy, the limit, and every row but its owner. When the
// form or the policy refuses it, the problems by field (FieldRows,
// FieldReason); otherwise the check to finish with [Core.FinishImport],
// whose row problems so far are [ImportCheck.Problems].
func (c *Core) SubmitImport(user, metadata string, in ImportInput) (*ImportCheck, map[string]string) {
	return c.imports.SubmitImport(user, metadata, in)
}

// BeginImport checks an import for req's user, all but the rows' owners.
func (c *Core) BeginImport(req Request, in ImportInput) (*ImportCheck, map[string]string) {
	return c.imports.BeginImport(req, in)
}

// FinishImport checks the owners of ic's rows and decides what becomes
// of the import: the problems of every row, one a line, and nothing
// runs; or the decision to carry out with [Core.Execute], as for a typed
// command.
func (c *Core) FinishImport(ctx context.Context, ic *ImportCheck) (Decision, map[string]string) {
	return c.imports.FinishImport(ctx, ic)
}

// PrepareImport checks an import for req's user (the shell's import FILE
// comes here) and decides what becomes of it.
func (c *Core) PrepareImport(ctx context.Context, req Request, in ImportInput) (Decision, map[string]string) {
	return c.imports.PrepareImport(ctx, req, in)
}

// EncodePending returns p as a signed string of at most 2000 bytes, for a
// Slack button's value: "p1.<payload>.<HMAC-SHA256>", both base64url. When
// the reason would make it longer, the reason is cut.
func (c *Core) EncodePending(p Pending) string { return c.requests.EncodePending(p) }

// DecodePending checks the signature of s and returns the request.
func (c *Core) DecodePending(s string) (Pending, error) { return c.requests.DecodePending(s) }

// IsAdmin reports whether userID is one of the admins: listed, or a
// member of a listed user group by the transport's last reading of it. It
// never waits on the network.
func (c *Core) IsAdmin(userID string) bool { return c.access.IsAdmin(userID) }

// AdminGroups returns the user group IDs among the admins.
func (c *Core) AdminGroups() []string { return c.access.AdminGroups() }

// Decide parses and checks req and decides, by the policy, whether it is
// answered at once, run now, or needs approval. It never calls the API.
// Checking comes before authorisation, so that a person learns what is
// wrong with the input whoever they are.
func (c *Core) Decide(req Request) Decision { return c.policy.Decide(req) }

// MoreDomain returns the domain and the signed value of a "More" button,
// for a transport that shows the button as a line to type.
func (c *Core) MoreDomain(value string) (string, bool) { return c.reads.MoreDomain(value) }
