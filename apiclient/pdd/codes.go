package pdd

import "github.com/mailbot/mailbot/apiclient"

// Code is an error code of the PDD API, the value of the "error" field of a
// response whose "success" is "error". A code this package does not know is
// kept as received, but cut to [apiclient.MaxCodeLen] characters and without anything
// that looks like a secret ([apiclient.CutCode]), so that no answer can make
// a message too long for Slack or carry a secret into a log.
type Code string

// PDD's documented error codes (the same list for both operations), with their alternates.
const (
	CodeUnknown            Code = "unknown"
	CodeNoToken            Code = "no_token"
	CodeNoDomain           Code = "no_domain"
	CodeNoIP               Code = "no_ip"
	CodeBadDomain          Code = "bad_domain"
	CodeProhibited         Code = "prohibited"
	CodeBadToken           Code = "bad_token"
	CodeBadLogin           Code = "bad_login"
	CodeBadPasswd          Code = "bad_passwd"
	CodeNoAuth             Code = "no_auth"
	CodeNotAllowed         Code = "not_allowed"
	CodeBlocked            Code = "blocked"
	CodeOccupied           Code = "occupied"
	CodeDomainLimitReached Code = "domain_limit_reached"
	CodeNoReply            Code = "no_reply"
)

// Codes the real service answers to email/add, beyond the documented list.
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

var meanings = map[Code]string{
	CodeUnknown:            "a temporary failure or API error occurred; repeat the request later",
	CodeNoToken:            "a mandatory parameter was omitted",
	CodeNoDomain:           "a mandatory parameter was omitted (the domain)",
	CodeNoIP:               "a mandatory parameter was omitted (the IP address)",
	CodeBadDomain:          "the domain name was not specified or does not conform to the RFC",
	CodeProhibited:         "the domain name is forbidden",
	CodeBadToken:           "the PDD token is invalid",
	CodeBadLogin:           "the PDD username is invalid",
	CodeBadPasswd:          "the PDD password is invalid",
	CodeNoAuth:             "the PddToken header was omitted",
	CodeNotAllowed:         "the operation is not allowed for this account (it is not the domain administrator)",
	CodeBlocked:            "the domain is blocked (for example, due to spam)",
	CodeOccupied:           "the domain name is in use by another user",
	CodeDomainLimitReached: "the account has reached the limit of connected domains (50)",
	CodeNoReply:            "the service cannot connect to the source server for the import",
	CodeNoLogin:            "the mailbox name was omitted",
	CodeNoPassword:         "the password was omitted",
	CodeBadLoginFormat:     "the mailbox name is not allowed (Latin letters, digits, '-' and '.', starting with a letter)",
	CodeLoginTooLong:       "the mailbox name is too long (at most 30 characters)",
	CodeLoginReserved:      "the mailbox name is reserved",
	CodePasswdTooShort:     "the password is too short (at least 6 characters)",
	CodePasswdTooLong:      "the password is too long (at most 20 characters)",
	CodeBadPasswdChars:     "the password is not allowed (wrong characters, or equal to the mailbox name)",
}

// Known reports whether the code is documented by PDD or seen on the
// real service.
func (c Code) Known() bool {
	_, ok := meanings[c]
	return ok
}

// Meaning describes the code in words, whatever the operation (the
// adapter's errors say what it means for theirs: for email/add, occupied
// means the mailbox exists already rather than that a domain is taken).
func (c Code) Meaning() string {
	if m, ok := meanings[c]; ok {
		return m
	}
	return apiclient.UnknownCode
}

// codeClasses sorts the PDD codes: what each means for the person who
// asked, and whether trying again can help. A code not listed is a
// refusal without a reason.
var codeClasses = map[Code]struct {
	class  apiclient.Class
	reason apiclient.Reason
}{
	CodeUnknown:            {apiclient.ClassTemporary, ""},
	CodeBadToken:           {apiclient.ClassCredentials, ""},
	CodeNoAuth:             {apiclient.ClassCredentials, ""},
	CodeBadLogin:           {apiclient.ClassCredentials, ""}, // the PDD account's user name
	CodeBadPasswd:          {apiclient.ClassCredentials, ""}, // the PDD account's password
	CodeNoToken:            {apiclient.ClassRefused, apiclient.ReasonInvalid},
	CodeNoDomain:           {apiclient.ClassRefused, apiclient.ReasonInvalid},
	CodeNoIP:               {apiclient.ClassRefused, apiclient.ReasonInvalid},
	CodeBadDomain:          {apiclient.ClassRefused, apiclient.ReasonInvalid},
	CodeNoPassword:         {apiclient.ClassRefused, apiclient.ReasonInvalid},
	CodeBadLoginFormat:     {apiclient.ClassRefused, apiclient.ReasonInvalid},
	CodeLoginTooLong:       {apiclient.ClassRefused, apiclient.ReasonInvalid},
	CodeLoginReserved:      {apiclient.ClassRefused, apiclient.ReasonInvalid},
	CodeNoLogin:            {apiclient.ClassRefused, apiclient.ReasonInvalid},
	CodePasswdTooShort:     {apiclient.ClassRefused, apiclient.ReasonPassword},
	CodePasswdTooLong:      {apiclient.ClassRefused, apiclient.ReasonPassword},
	CodeBadPasswdChars:     {apiclient.ClassRefused, apiclient.ReasonPassword},
	CodeProhibited:         {apiclient.ClassRefused, apiclient.ReasonNotAllowed},
	CodeNotAllowed:         {apiclient.ClassRefused, apiclient.ReasonNotAllowed},
	CodeBlocked:            {apiclient.ClassRefused, apiclient.ReasonNotAllowed},
	CodeOccupied:           {apiclient.ClassRefused, apiclient.ReasonExists},
	CodeDomainLimitReached: {apiclient.ClassRefused, apiclient.ReasonLimit},
}

// codeClass returns the class and reason of a PDD code answered to op.
// email/edit answers an unknown login no_login or not_allowed (the record
// does not say which): both are ReasonNotFound there, since the adapter
// always sends the login. domain/registration_status answers not_allowed
// for a domain the account does not hold: ReasonNotFound too.
func codeClass(op apiclient.Op, code Code) (apiclient.Class, apiclient.Reason) {
	if isEdit(op) && (code == CodeNoLogin || code == CodeNotAllowed) || op == apiclient.OpDomainStatus && code == CodeNotAllowed {
		return apiclient.ClassRefused, apiclient.ReasonNotFound
	}
	if c, ok := codeClasses[code]; ok {
		return c.class, c.reason
	}
	return apiclient.ClassRefused, ""
}

// meaning describes a PDD code answered to op in words.
func meaning(op apiclient.Op, code Code) string {
	switch {
	case op == apiclient.OpAdd && code == CodeOccupied:
		return "the mailbox already exists"
	case isEdit(op) && (code == CodeNoLogin || code == CodeNotAllowed):
		return "no such mailbox in this domain"
	case op == apiclient.OpDomainStatus && code == CodeNotAllowed:
		return "the domain is not in this account (PDD answers so for a domain the account does not hold, registered elsewhere or not)"
	}
	return code.Meaning()
}

// isEdit reports whether op is carried out by email/edit.
func isEdit(op apiclient.Op) bool {
	return op == apiclient.OpReset || op == apiclient.OpBlock || op == apiclient.OpUnblock
}
