package pdd

import "github.com/mailbot/mailbot/apiclient"

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
// always sends the login.
func codeClass(op apiclient.Op, code Code) (apiclient.Class, apiclient.Reason) {
	if isEdit(op) && (code == CodeNoLogin || code == CodeNotAllowed) {
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
	}
	return code.Meaning()
}

// isEdit reports whether op is carried out by email/edit.
func isEdit(op apiclient.Op) bool {
	return op == apiclient.OpReset || op == apiclient.OpBlock || op == apiclient.OpUnblock
}
