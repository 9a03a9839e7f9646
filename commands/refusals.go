package commands

// Labels of what a transport answers by itself, beside those Execute and
// Click return: work it would not take, work that never ran, forms.
const (
	LabelRestarting = "restarting" // not taken: mailbot is stopping
	LabelBusy       = "busy"       // not taken: too much work waits
	LabelNotRun     = "not_run"    // taken, but the stop came before it started
	LabelForm       = "form"       // a bare command's form opened
	LabelUsage      = "usage"      // the form could not open: the usage was shown instead
	LabelPosted     = "requested"  // an approval request posted for the admins
)

// CommandOutcomes are the labels a command can end with: what Execute
// returns and what a transport answers by itself.
func CommandOutcomes() []string {
	return []string{LabelOK, LabelError, LabelStoreDown, LabelRequested, LabelAnswered, LabelRefused,
		LabelRestarting, LabelBusy, LabelForm, LabelUsage, LabelNotRun}
}

// ClickDecisions are the labels of clicks and of the requests' lives: what
// Click returns, a click not taken, a request posted and one expired.
func ClickDecisions() []string {
	return []string{LabelOK, LabelError, LabelStoreDown, LabelAnswered, LabelRefused, LabelInvalid,
		LabelCounted, LabelDenied, LabelCancelled, LabelExpired, LabelDecided,
		LabelRestarting, LabelBusy, LabelPosted, LabelShown}
}

// Refusal is a transport's answer to work it did not take. Nothing was
// done, and saying so is part of each wording.
type Refusal struct {
	Label string // LabelRestarting or LabelBusy
	Reply Reply  // for a command or a click
	Field string // for a form, shown under its first field; the form stays open
}

// The two reasons work is not taken.
var (
	RefusedRestarting = Refusal{Label: LabelRestarting,
		Reply: Reply{Title: "mailbot is restarting", Text: "Nothing was done. Try again in a minute.", Error: true},
		Field: "mailbot is restarting. Nothing was done; submit again in a minute."}
	RefusedBusy = Refusal{Label: LabelBusy,
		Reply: Reply{Title: "mailbot is busy", Text: "Too many operations are waiting. Nothing was done; try again in a minute.", Error: true},
		Field: "mailbot is busy: too many operations are waiting. Nothing was done; submit again in a minute."}
)

// Short answers a transport gives in its acknowledgement, before the work
// runs, and for work that never ran.
var (
	ReplyWorking  = Reply{Title: "Working on it…", Note: "The result will appear here, for your eyes only."}
	ReplySending  = Reply{Title: "Sending your request to the admins…"}
	ReplyChecking = Reply{Title: "Looking the domain up in DNS…"}
	ReplyNotRun   = Reply{Title: "Not run: mailbot is restarting", Error: true,
		Text: "mailbot stopped before it could start your command. Nothing was done: you can repeat it in a minute."}
)

// Interim is the acknowledgement of work handed to the workers for d. It
// depends on d's step alone: the Slack adapter encodes each step's once.
func (d Decision) Interim() Reply {
	switch d.Step {
	case StepApproval:
		return ReplySending
	case StepCheck:
		return ReplyChecking
	}
	return ReplyWorking
}

// FormWords is the wording of a form: its title, its button and the hint
// under its reason.
type FormWords struct {
	Title, Submit, ReasonHint string
}

// Words is the wording of the form.
func (f *Form) Words() FormWords {
	w := FormWords{Title: "Register a domain", Submit: "Register", ReasonHint: "Optional: why this is needed. The admins see it."}
	switch f.Action {
	case ActionAddMailbox:
		w.Title, w.Submit = "Create a mailbox", "Create"
	case ActionResetPassword:
		w.Title, w.Submit = "Reset a password", "Reset"
		w.ReasonHint = "Optional: why this is needed. The admins see it; the new password comes to you alone."
	case ActionBlock:
		w.Title, w.Submit = "Block a mailbox", "Block"
	case ActionUnblock:
		w.Title, w.Submit = "Unblock a mailbox", "Unblock"
	case ActionOffboard:
		w.Title, w.Submit = "Offboard a mailbox", "Offboard"
		w.ReasonHint = "Blocks the mailbox. To give its aliases to a successor, type /mailbox offboard <address> to <successor>."
	}
	if f.ReasonRequired {
		w.ReasonHint = "Required: this needs an admin's approval, and the admins see why."
	}
	return w
}
