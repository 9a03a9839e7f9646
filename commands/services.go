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

// assemble makes the services over s and joins them.
func assemble(s *shared) *Core {
	c := &Core{shared: s}
	c.access = &accessService{shared: s}
	c.policy = &policyService{shared: s}
	c.aliases = &aliasService{shared: s}
	c.requests = &requestService{shared: s, unfinished: map[string]unfinished{}, unattached: map[string]MessageRef{}}
	c.approvals = &approvalService{shared: s}
	c.handovers = &handoverService{shared: s}
	c.imports = &importService{shared: s}
	c.runs = &runService{shared: s}
	c.mailboxes = &mailboxService{shared: s}
	c.reads = &readService{shared: s}
	c.policy.access, c.policy.aliases, c.policy.imports = c.access, c.aliases, c.imports
	c.aliases.access, c.aliases.mailboxes = c.access, c.mailboxes
	c.requests.access, c.requests.imports = c.access, c.imports
	c.approvals.access, c.approvals.imports, c.approvals.policy, c.approvals.requests, c.approvals.runs = c.access, c.imports, c.policy, c.requests, c.runs
	c.handovers.imports, c.handovers.mailboxes = c.imports, c.mailboxes
	c.imports.access, c.imports.approvals, c.imports.handovers, c.imports.mailboxes, c.imports.policy, c.imports.requests = c.access, c.approvals, c.handovers, c.mailboxes, c.policy, c.requests
	c.runs.access, c.runs.aliases, c.runs.handovers, c.runs.mailboxes, c.runs.policy = c.access, c.aliases, c.handovers, c.mailboxes, c.policy
	c.mailboxes.access, c.mailboxes.policy, c.mailboxes.reads, c.mailboxes.runs = c.access, c.policy, c.reads, c.runs
	c.reads.access, c.reads.aliases, c.reads.requests = c.access, c.aliases, c.requests
	return c
}
