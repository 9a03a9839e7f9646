package bot

import (
	"context"
	"slices"
	"strings"

	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/commands"
)

// The form's callback_id, and the block_id of each field; each field's
// element has the action_id "value".
const (
	formCallbackID = "mailbot_form"
	formValue      = "value"
)

// formBlockIDs maps the core's field names to the form's block_ids, so
// that a problem shows next to its field.
var formBlockIDs = map[string]string{
	commands.FieldDomain: "mailbot_domain",
	commands.FieldUser:   "mailbot_user",
	commands.FieldReason: "mailbot_reason",
	commands.FieldFor:    "mailbot_for",
	commands.FieldName:   "mailbot_name",
}

// openForm opens the form of a command typed bare. Its trigger lives
// 3 s, so it goes on the forms' own workers, straight after the ack; when
// the form cannot open, the person gets the usage instead. It returns
// false when the form will not be opened at all (the caller answers with
// the usage in the ack).
func (b *Bot) openForm(cmd slack.SlashCommand, d commands.Decision, to commands.Route, log *zap.Logger) bool {
	view, err := fitModal(formView(d.Form))
	if err != nil { // the signed metadata never exceeds Slack's limit: a bug
		log.Error("form does not fit Slack's limits: answering with the usage", zap.Error(err))
		return false
	}
	return b.openSoon(func(ctx context.Context) {
		_, err := b.api.OpenViewContext(ctx, cmd.TriggerID, view)
		if err == nil {
			b.m.commands.WithLabelValues(cmd.Command, commands.LabelForm).Inc()
			return
		}
		log.Warn("form not opened: answering with the usage", zap.Error(err))
		b.tell(ctx, to, d.Reply, commands.LabelUsage, cmd.Command)
	})
}

// formView is the modal of a form: the fields of the typed command.
func formView(f *commands.Form) slack.ModalViewRequest {
	if f.Action == commands.ActionImport {
		return importView(f)
	}
	words := f.Words()
	var blocks []slack.Block
	if f.Action.OnMailbox() {
		blocks = append(blocks, textInput(commands.FieldUser, "User name", "alice", "", false))
	}
	if f.Action == commands.ActionAddMailbox {
		blocks = append(blocks, textInput(commands.FieldName, "Name (optional)", "Alice Smith", "", true))
	}
	blocks = append(blocks, domainInput(f))
	if f.OffersFor {
		blocks = append(blocks, forInput())
	}
	reason := textInput(commands.FieldReason, "Reason", "New hire in sales", "", !f.ReasonRequired)
	reason.Hint = slack.NewTextBlockObject(slack.PlainTextType, words.ReasonHint, false, false)
	blocks = append(blocks, reason)
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		CallbackID:      formCallbackID,
		Title:           slack.NewTextBlockObject(slack.PlainTextType, words.Title, false, false),
		Submit:          slack.NewTextBlockObject(slack.PlainTextType, words.Submit, false, false),
		Close:           slack.NewTextBlockObject(slack.PlainTextType, "Cancel", false, false),
		PrivateMetadata: f.Metadata,
		Blocks:          slack.Blocks{BlockSet: blocks},
	}
}

// domainInput is a choice of the allowed domains when the allow-list
// names exact domains, else a text input; the default is preselected.
func domainInput(f *commands.Form) *slack.InputBlock {
	if len(f.Domains) == 0 || len(f.Domains) > maxSelectOptions || slices.ContainsFunc(f.Domains, func(d string) bool { return len(d) > maxOptionValue }) {
		return textInput(commands.FieldDomain, "Domain", "example.com", f.DefaultDomain, false)
	}
	opts := make([]*slack.OptionBlockObject, len(f.Domains))
	var initial *slack.OptionBlockObject
	for i, d := range f.Domains {
		opts[i] = slack.NewOptionBlockObject(d, slack.NewTextBlockObject(slack.PlainTextType, fitText(d, maxOptionText), false, false), nil)
		if d == f.DefaultDomain {
			initial = opts[i]
		}
	}
	sel := slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, slack.NewTextBlockObject(slack.PlainTextType, "Choose a domain", false, false), formValue, opts...)
	sel.InitialOption = initial
	return slack.NewInputBlock(formBlockIDs[commands.FieldDomain], slack.NewTextBlockObject(slack.PlainTextType, "Domain", false, false), nil, sel)
}

// textInput is a one-line text field.
func textInput(field, label, placeholder, initial string, optional bool) *slack.InputBlock {
	el := slack.NewPlainTextInputBlockElement(slack.NewTextBlockObject(slack.PlainTextType, placeholder, false, false), formValue)
	el.InitialValue = initial
	el.MaxLength = 500
	in := slack.NewInputBlock(formBlockIDs[field], slack.NewTextBlockObject(slack.PlainTextType, label, false, false), nil, el)
	in.Optional = optional
	return in
}

// submitForm checks a submitted form with the core and returns the
// acknowledgement's payload: the problems by field (the form stays open,
// nothing runs) or "clear", with the operation handed to the workers.
func (b *Bot) submitForm(cb slack.InteractionCallback) any {
	if cb.View.CallbackID != formCallbackID {
		return nil
	}
	v := commands.FormValues{Domain: formField(cb, commands.FieldDomain), User: formField(cb, commands.FieldUser),
		Name: formField(cb, commands.FieldName), Reason: formField(cb, commands.FieldReason), For: formField(cb, commands.FieldFor)}
	d, channel, problems := b.core.SubmitForm(cb.User.ID, cb.View.PrivateMetadata, v)
	if len(problems) > 0 {
		errs := make(map[string]string, len(problems))
		for field, p := range problems {
			errs[formBlockIDs[field]] = fitText(p, maxFormError)
		}
		b.m.commands.WithLabelValues("form", commands.LabelInvalid).Inc()
		return slack.NewErrorsViewSubmissionResponse(errs)
	}
	to := commands.Route{User: cb.User.ID, Channel: channel}
	if refused, ok := b.takeCommand(d.Op.Action.Command(), to, d); !ok {
		// The form stays open with what was typed: nothing was done.
		return slack.NewErrorsViewSubmissionResponse(map[string]string{formBlockIDs[commands.FieldDomain]: refused.Field})
	}
	return slack.NewClearViewSubmissionResponse()
}

// formField is the value of a field of a submitted form: typed, or chosen.
func formField(cb slack.InteractionCallback, field string) string {
	a, ok := cb.View.State.Values[formBlockIDs[field]][formValue]
	if !ok {
		return ""
	}
	if a.SelectedOption.Value != "" {
		return a.SelectedOption.Value
	}
	if a.SelectedUser != "" {
		return a.SelectedUser
	}
	return strings.TrimSpace(a.Value)
}

// forInput is the optional person the credentials go to, a hand-over
// (users_select).
func forInput() *slack.InputBlock {
	sel := slack.NewOptionsSelectBlockElement(slack.OptTypeUser, slack.NewTextBlockObject(slack.PlainTextType, "Choose a person", false, false), formValue)
	in := slack.NewInputBlock(formBlockIDs[commands.FieldFor], slack.NewTextBlockObject(slack.PlainTextType, "For (optional)", false, false), nil, sel)
	in.Hint = slack.NewTextBlockObject(slack.PlainTextType, "They alone get the password, in a direct message from mailbot.", false, false)
	in.Optional = true
	return in
}
