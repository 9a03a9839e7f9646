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

// codes are the mailcow codes mailbot knows (functions.*.inc.php), in
// words. Any other code is shown as received.
var codes = map[string]meaning{
	"domain_exists":                {apiclient.ReasonExists, "the domain is already on the mailcow server"},
	"object_exists":                {apiclient.ReasonExists, "a mailbox or alias with that address already exists"},
	"domain_invalid":               {apiclient.ReasonInvalid, "the domain name is not valid"},
	"domain_cannot_match_hostname": {apiclient.ReasonInvalid, "the domain is the mail server's own host name"},
	"mailbox_invalid":              {apiclient.ReasonInvalid, "the mailbox name is not valid"},
	"domain_not_found":             {apiclient.ReasonNotFound, "the domain is not on the mailcow server"},
	"password_complexity":          {apiclient.ReasonPassword, "the password does not meet the server's password policy"},
	"password_mismatch":            {apiclient.ReasonPassword, "the two copies of the password differ"},
	"max_mailbox_exceeded":         {apiclient.ReasonLimit, "the domain already has as many mailboxes as it may"},
	"mailbox_quota_exceeded":       {apiclient.ReasonLimit, "the mailbox's quota does not fit in the domain's quota"},
	"domain_added_sogo_failed":     {"", "the domain was added, but the webmail (SOGo) was not updated"},
	"is_alias_or_mailbox":          {apiclient.ReasonExists, "the address is already a mailbox or an alias"},
	"goto_invalid":                 {apiclient.ReasonInvalid, "the mailbox the alias should deliver to is not a valid address"},
	"alias_invalid":                {apiclient.ReasonInvalid, "the alias is not a valid address, or no such alias"},
	"max_alias_exceeded":           {apiclient.ReasonLimit, "the domain already has as many aliases as it may"},
	"is_alias":                     {apiclient.ReasonExists, "the address is already an alias"},
	"is_spam_alias":                {apiclient.ReasonExists, "the address is already a temporary (spam) alias"},
	"mailbox_quota_left_exceeded":  {apiclient.ReasonLimit, "the domain's quota has too little left for the mailbox's quota"},
	"unlimited_quota_acl":          {apiclient.ReasonNotAllowed, "the API key may not create a mailbox without a quota limit"},
	"username_invalid":             {apiclient.ReasonInvalid, "the mailbox address is not valid"},
}

// deniedWords are access_denied's meanings (the reply shows the code
// beside them).
var deniedWords = map[apiclient.Reason]string{
	apiclient.ReasonNotAllowed: "the API key may not do this",
	apiclient.ReasonNotFound:   "the mailbox is not on the mailcow server",
}
