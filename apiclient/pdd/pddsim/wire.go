package pddsim

// The sandbox's wire vocabulary, written from the API reference and the
// real service's public record, apart from the client's: a constant the
// client gets wrong is then caught by the tests that run the client
// against this sandbox, instead of being shared by both.

// Code is an error code, the value of an answer's "error" field.
type Code string

// The error codes of the API reference, the same list for every operation.
const (
	CodeUnknown            Code = "unknown" // temporary: repeat the request later
	CodeNoToken            Code = "no_token"
	CodeNoDomain           Code = "no_domain" // an alternate of no_token
	CodeNoIP               Code = "no_ip"     // an alternate of no_token
	CodeBadDomain          Code = "bad_domain"
	CodeProhibited         Code = "prohibited"
	CodeBadToken           Code = "bad_token"
	CodeBadLogin           Code = "bad_login"  // an alternate of bad_token
	CodeBadPasswd          Code = "bad_passwd" // an alternate of bad_token
	CodeNoAuth             Code = "no_auth"
	CodeNotAllowed         Code = "not_allowed"
	CodeBlocked            Code = "blocked"
	CodeOccupied           Code = "occupied"
	CodeDomainLimitReached Code = "domain_limit_reached"
	CodeNoReply            Code = "no_reply"
)

// The codes the real service answers to email/add beyond the reference's
// list: a missing login or password, a login or password that breaks the
// rules (the reference names no code for these).
const (
	CodeNoLogin        Code = "no_login"
	CodeNoPassword     Code = "no_password"
	CodeBadLoginFormat Code = "badlogin"
	CodeLoginTooLong   Code = "login-toolong"
	CodeLoginReserved  Code = "login_reserved"
	CodePasswdTooShort Code = "passwd-tooshort"
	CodePasswdTooLong  Code = "passwd-toolong"
	CodeBadPasswdChars Code = "badpasswd"
)

// Op is an operation: its path below /api2/admin/.
type Op string

// The reference's two operations and the real service's lifecycle calls.
const (
	OpRegisterDomain     Op = "domain/register"
	OpAddMailbox         Op = "email/add"
	OpEditMailbox        Op = "email/edit"
	OpListMailboxes      Op = "email/list"
	OpRegistrationStatus Op = "domain/registration_status"
)

// ops are the operations, in the order /sim/requests lists them.
var ops = []Op{OpRegisterDomain, OpAddMailbox, OpEditMailbox, OpListMailboxes, OpRegistrationStatus}

// Status is a domain's status, the "status" field of register and
// registration_status.
type Status string

// The reference's three domain statuses.
const (
	StatusDomainActivate Status = "domain-activate" // added, ownership not verified
	StatusMXActivate     Status = "mx-activate"     // verified, MX record not set up
	StatusAdded          Status = "added"           // verified, MX set up
)

// stage is the "stage" field, which duplicates the status.
type stage string

// stageOf is the stage of each status, as the reference's table pairs
// them, or "" for a status it does not know. A switch, not a map: the
// package has no initialiser, so serve, which never runs the sandbox,
// never maps its code.
func stageOf(st Status) stage {
	switch st {
	case StatusDomainActivate:
		return "owner-check"
	case StatusMXActivate:
		return "mx-check"
	case StatusAdded:
		return "added"
	}
	return ""
}

// known reports whether st is one of the three statuses.
func (st Status) known() bool { return stageOf(st) != "" }

// domainSecrets is the "secrets" object: the secret part of the verification
// file's (or CNAME record's) name, and the file's content.
type domainSecrets struct {
	Name    string `json:"name"`
	Content string `json:"content"`
}
