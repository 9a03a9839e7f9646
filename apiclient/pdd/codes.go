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

// codeMeaning is what a code PDD documents (or the real service was seen to
// answer) means, and whether it is one of those. (Switches, not maps: a
// package-level map is built by an initialiser in every process,
// whichever provider it runs.)
func codeMeaning(c Code) (string, bool) {
	switch c {
	case CodeUnknown:
		return "a temporary failure or API error occurred; repeat the request later", true
	case CodeNoToken:
		return "a mandatory parameter was omitted", true
	case CodeNoDomain:
		return "a mandatory parameter was omitted (the domain)", true
	case CodeNoIP:
		return "a mandatory parameter was omitted (the IP address)", true
	case CodeBadDomain:
		return "the domain name was not specified or does not conform to the RFC", true
	case CodeProhibited:
		return "the domain name is forbidden", true
	case CodeBadToken:
		return "the PDD token is invalid", true
	case CodeBadLogin:
		return "the PDD username is invalid", true
	case CodeBadPasswd:
		return "the PDD password is invalid", true
	case CodeNoAuth:
		return "the PddToken header was omitted", true
	case CodeNotAllowed:
		return "the operation is not allowed for this account (it is not the domain administrator)", true
	case CodeBlocked:
		return "the domain is blocked (for example, due to spam)", true
	case CodeOccupied:
		return "the domain name is in use by another user", true
	case CodeDomainLimitReached:
		return "the account has reached the limit of connected domains (50)", true
	case CodeNoReply:
		return "the service cannot connect to the source server for the import", true
	case CodeNoLogin:
		return "the mailbox name was omitted", true
	case CodeNoPassword:
		return "the password was omitted", true
	case CodeBadLoginFormat:
		return "the mailbox name is not allowed (Latin letters, digits, '-' and '.', starting with a letter)", true
	case CodeLoginTooLong:
		return "the mailbox name is too long (at most 30 characters)", true
	case CodeLoginReserved:
		return "the mailbox name is reserved", true
	case CodePasswdTooShort:
		return "the password is too short (at least 6 characters)", true
	case CodePasswdTooLong:
		return "the password is too long (at most 20 characters)", true
	case CodeBadPasswdChars:
		return "the password is not allowed (wrong characters, or equal to the mailbox name)", true
	}
	return "", false
}

// Known reports whether the code is documented by PDD or seen on the
// real service.
func (c Code) Known() bool {
	_, ok := codeMeaning(c)
	return ok
}

// Meaning describes the code in words, whatever the operation (the
// adapter's errors say what it means for theirs: for email/add, occupied
// means the mailbox exists already rather than that a domain is taken).
func (c Code) Meaning() string {
	if m, ok := codeMeaning(c); ok {
		return m
	}
	return apiclient.UnknownCode
}

// codeClasses sorts the PDD codes: what each means for the person who
// asked, and whether trying again can help. A code not listed is a
// refusal without a reason.
func codeClasses(code Code) (apiclient.Class, apiclient.Reason, bool) {
	switch code {
	case CodeUnknown:
		return apiclient.ClassTemporary, "", true
	// CodeBadLogin: the PDD account's user name
	// CodeBadPasswd: the PDD account's password
	case CodeBadToken, CodeNoAuth, CodeBadLogin, CodeBadPasswd:
		return apiclient.ClassCredentials, "", true
	case CodeNoToken, CodeNoDomain, CodeNoIP, CodeBadDomain, CodeNoPassword, CodeBadLoginFormat, CodeLoginTooLong, CodeLoginReserved, CodeNoLogin:
		return apiclient.ClassRefused, apiclient.ReasonInvalid, true
	case CodePasswdTooShort, CodePasswdTooLong, CodeBadPasswdChars:
		return apiclient.ClassRefused, apiclient.ReasonPassword, true
	case CodeProhibited, CodeNotAllowed, CodeBlocked:
		return apiclient.ClassRefused, apiclient.ReasonNotAllowed, true
	case CodeOccupied:
		return apiclient.ClassRefused, apiclient.ReasonExists, true
	case CodeDomainLimitReached:
		return apiclient.ClassRefused, apiclient.ReasonLimit, true
	}
	return 0, "", false
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
	if class, reason, ok := codeClasses(code); ok {
		return class, reason
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
