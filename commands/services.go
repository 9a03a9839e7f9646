package commands

import "sync"

// Core is the transport-free core: the entry points that the transports
// call (facade.go), over services that each do one job, in the way an
// API client hangs its services off the client. Each service embeds the
// shared state and reaches another through an explicit field. It is safe
// for concurrent use.
type Core struct {
	*shared
	access    *accessService
	policy    *policyService
	aliases   *aliasService
	requests  *requestService
	approvals *approvalService
	handovers *handoverService
	imports   *importService
	runs      *runService
	mailboxes *mailboxService
	reads     *readService
}

// accessService says who is an admin, of which domains, and which domains
// the allow-list lets through (policy.go, domainadmins.go).
type accessService struct {
	*shared
}

// policyService decides what a request becomes before anything runs: the
// decision, the checks of an operation, the forms and help (policy.go,
// form.go, help.go, domain.go, and selfservice.go's choice of self-service).
type policyService struct {
	*shared
	access  *accessService
	aliases *aliasService
	imports *importService
}

// aliasService runs a mailbox's aliases (adding, removing, listing, their
// checks) and offboarding, which moves them (alias.go, aliasread.go,
// offboard.go).
type aliasService struct {
	*shared
	access    *accessService
	mailboxes *mailboxService
}

// requestService keeps a request waiting for approval: its signed value, its
// message in the requests channel and the store's record of it (pending.go,
// flow.go, sweep.go's retries).
type requestService struct {
	*shared
	access  *accessService
	imports *importService

	mu         sync.Mutex
	unfinished map[string]unfinished // ends of runs the store did not take, by request ID
	unattached map[string]MessageRef // request messages the store did not take, by request ID
}

// approvalService decides a pending request: approval, denial,
// cancellation, expiry and reminders (approvals.go, sweep.go).
type approvalService struct {
	*shared
	access   *accessService
	imports  *importService
	policy   *policyService
	requests *requestService
	runs     *runService
}

// handoverService hands credentials to their owner: the offer, the
// Show my password click, its voiding and expiry (handover*.go).
type handoverService struct {
	*shared
	imports   *importService
	mailboxes *mailboxService
}

// importService runs an import of many mailboxes: its rows' checks, owners,
// run, progress and passwords (import*.go).
type importService struct {
	*shared
	access    *accessService
	approvals *approvalService
	handovers *handoverService
	mailboxes *mailboxService
	policy    *policyService
	requests  *requestService
}

// runService is the one run sequence of an operation: resolve, begin,
// perform, record, complete (run.go, resolve.go).
type runService struct {
	*shared
	access    *accessService
	aliases   *aliasService
	handovers *handoverService
	mailboxes *mailboxService
	policy    *policyService
}

// mailboxService runs the mailbox lifecycle at the provider: a domain's
// registration, a mailbox's add, reset, block and unblock, self-service
// (run_mailbox.go, describe.go, selfservice.go).
type mailboxService struct {
	*shared
	access *accessService
	policy *policyService
	reads  *readService
	runs   *runService
}

// readService answers reads, which change nothing: a domain's status and list,
// the DNS checklist, verification, the Home tab (read.go, check.go,
// verify.go, home.go).
type readService struct {
	*shared
	access   *accessService
	aliases  *aliasService
	requests *requestService
}

// assemble makes the services over s and joins them: each is allocated
// first, then given the services it uses.
func assemble(s *shared) *Core {
	c := &Core{shared: s, access: new(accessService), policy: new(policyService), aliases: new(aliasService),
		requests: new(requestService), approvals: new(approvalService), handovers: new(handoverService),
		imports: new(importService), runs: new(runService), mailboxes: new(mailboxService), reads: new(readService)}
	*c.access = accessService{shared: s}
	*c.policy = policyService{shared: s, access: c.access, aliases: c.aliases, imports: c.imports}
	*c.aliases = aliasService{shared: s, access: c.access, mailboxes: c.mailboxes}
	*c.requests = requestService{shared: s, access: c.access, imports: c.imports,
		unfinished: map[string]unfinished{}, unattached: map[string]MessageRef{}}
	*c.approvals = approvalService{shared: s, access: c.access, imports: c.imports, policy: c.policy,
		requests: c.requests, runs: c.runs}
	*c.handovers = handoverService{shared: s, imports: c.imports, mailboxes: c.mailboxes}
	*c.imports = importService{shared: s, access: c.access, approvals: c.approvals, handovers: c.handovers,
		mailboxes: c.mailboxes, policy: c.policy, requests: c.requests}
	*c.runs = runService{shared: s, access: c.access, aliases: c.aliases, handovers: c.handovers,
		mailboxes: c.mailboxes, policy: c.policy}
	*c.mailboxes = mailboxService{shared: s, access: c.access, policy: c.policy, reads: c.reads, runs: c.runs}
	*c.reads = readService{shared: s, access: c.access, aliases: c.aliases, requests: c.requests}
	return c
}
