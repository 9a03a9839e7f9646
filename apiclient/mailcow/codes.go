package mailcow

import "github.com/mailbot/mailbot/apiclient"

// meaning is what a mailcow code means: the reason of a refusal, in words.
type meaning struct {
	reason apiclient.Reason
	words  string
}

// codeAccessDenied is mailcow's answer both to what the key may not do and
// to an edit of a mailbox that does not exist: its meaning depends on the
// call.
const codeAccessDenied = "access_denied"

// codeMeaning is a mailcow code mailbot knows (functions.*.inc.php), in
// words, and whether it knows it. Any other code is shown as received.
// (A switch, not a map: a package-level map is built by an initialiser in
// every process, whichever provider it runs.)
func codeMeaning(code string) (meaning, bool) {
	switch code {
	case "domain_exists":
		return meaning{apiclient.ReasonExists, "the domain is already on the mailcow server"}, true
	case "object_exists":
		return meaning{apiclient.ReasonExists, "a mailbox or alias with that address already exists"}, true
	case "domain_invalid":
		return meaning{apiclient.ReasonInvalid, "the domain name is not valid"}, true
	case "domain_cannot_match_hostname":
		return meaning{apiclient.ReasonInvalid, "the domain is the mail server's own host name"}, true
	case "mailbox_invalid":
		return meaning{apiclient.ReasonInvalid, "the mailbox name is not valid"}, true
	case "domain_not_found":
		return meaning{apiclient.ReasonNotFound, "the domain is not on the mailcow server"}, true
	case "password_complexity":
		return meaning{apiclient.ReasonPassword, "the password does not meet the server's password policy"}, true
	case "password_mismatch":
		return meaning{apiclient.ReasonPassword, "the two copies of the password differ"}, true
	case "max_mailbox_exceeded":
		return meaning{apiclient.ReasonLimit, "the domain already has as many mailboxes as it may"}, true
	case "mailbox_quota_exceeded":
		return meaning{apiclient.ReasonLimit, "the mailbox's quota does not fit in the domain's quota"}, true
	case "domain_added_sogo_failed":
		return meaning{"", "the domain was added, but the webmail (SOGo) was not updated"}, true
	case "is_alias_or_mailbox":
		return meaning{apiclient.ReasonExists, "the address is already a mailbox or an alias"}, true
	case "goto_invalid":
		return meaning{apiclient.ReasonInvalid, "the mailbox the alias should deliver to is not a valid address"}, true
	case "alias_invalid":
		return meaning{apiclient.ReasonInvalid, "the alias is not a valid address, or no such alias"}, true
	case "max_alias_exceeded":
		return meaning{apiclient.ReasonLimit, "the domain already has as many aliases as it may"}, true
	case "is_alias":
		return meaning{apiclient.ReasonExists, "the address is already an alias"}, true
	case "is_spam_alias":
		return meaning{apiclient.ReasonExists, "the address is already a temporary (spam) alias"}, true
	case "mailbox_quota_left_exceeded":
		return meaning{apiclient.ReasonLimit, "the domain's quota has too little left for the mailbox's quota"}, true
	case "unlimited_quota_acl":
		return meaning{apiclient.ReasonNotAllowed, "the API key may not create a mailbox without a quota limit"}, true
	case "username_invalid":
		return meaning{apiclient.ReasonInvalid, "the mailbox address is not valid"}, true
	}
	return meaning{}, false
}

// deniedWords are access_denied's meanings (the reply shows the code
// beside them).
func deniedWords(r apiclient.Reason) string {
	switch r {
	case apiclient.ReasonNotAllowed:
		return "the API key may not do this"
	case apiclient.ReasonNotFound:
		return "the mailbox is not on the mailcow server"
	}
	return ""
}
