package bot

import (
	"context"
	"time"

	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/commands"
)

// importCheckingID is the callback_id of the view an import's form
// becomes while its owners are checked.
const importCheckingID = "mailbot_import_checking"

// checkLater hands the check of ic's owners to the workers and answers the
// form at once with a view that says so; the check then shows its outcome
// in the same view (views.update) or, once the requester has closed it,
// in a message (finishCheck). When the workers cannot take it, the form
// stays open with the refusal.
func (b *Bot) checkLater(to commands.Route, cb slack.InteractionCallback, ic *commands.ImportCheck, in commands.ImportInput) any {
	form := &commands.Form{Action: commands.ActionImport, Command: commands.CmdMailbox,
		ReasonRequired: ic.Approval(), Metadata: cb.View.PrivateMetadata}
	viewID := cb.View.ID
	refused, ok := b.take(job{
		run: func(ctx context.Context) { b.finishCheck(ctx, to, viewID, ic, importAgain(form, in)) },
		notRun: func(ctx context.Context) {
			b.showView(ctx, viewID, noticeView(commands.ReplyImportNotChecked.Text))
			b.tell(ctx, to, commands.ReplyImportNotChecked, commands.LabelNotRun, commands.CmdMailbox)
		},
	})
	if !ok {
		b.m.commands.WithLabelValues(commands.CmdMailbox, refused.Label).Inc()
		return slack.NewErrorsViewSubmissionResponse(map[string]string{importRowsBlock: refused.Field})
	}
	checking := noticeView(ic.Checking())
	return slack.NewUpdateViewSubmissionResponse(&checking)
}

// finishCheck checks ic's owners and gives the outcome: the form again
// with the problems (or, when the form is closed, a message with them);
// or the import on its way (the approval request, or its run).
func (b *Bot) finishCheck(ctx context.Context, to commands.Route, viewID string, ic *commands.ImportCheck, again func(string) slack.ModalViewRequest) {
	d, problems := b.core.FinishImport(ctx, ic)
	if problems != nil {
		b.m.commands.WithLabelValues("form", commands.LabelInvalid).Inc()
		text := problems[commands.FieldRows] + problems[commands.FieldReason]
		if !b.showView(ctx, viewID, again(text)) {
			b.tell(ctx, to, commands.ImportProblems(text), "", "")
		}
		return
	}
	b.showView(ctx, viewID, noticeView(commands.ImportChecked(d)))
	b.m.commands.WithLabelValues(commands.CmdMailbox, b.core.Execute(ctx, to, d)).Inc()
}

// showView replaces the open modal viewID with v; false when Slack
// refuses (the requester closed it: not_found).
func (b *Bot) showView(ctx context.Context, viewID string, v slack.ModalViewRequest) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_, err := retrying(ctx, func() (*slack.ViewResponse, error) {
		return b.api.UpdateViewContext(ctx, v, "", "", viewID)
	})
	if err != nil {
		b.log.Info("import form not updated", zap.String("view_id", viewID), zap.Error(err))
		return false
	}
	return true
}

// noticeView is a modal that only says text.
func noticeView(text string) slack.ModalViewRequest {
	return slack.ModalViewRequest{
		Type:       slack.VTModal,
		CallbackID: importCheckingID,
		Title:      slack.NewTextBlockObject(slack.PlainTextType, "Import mailboxes", false, false),
		Close:      slack.NewTextBlockObject(slack.PlainTextType, "Close", false, false),
		Blocks:     slack.Blocks{BlockSet: []slack.Block{plainTextSection(text)}},
	}
}

// importAgain returns the import's form as it was submitted (the typed
// rows and the reason; a file must be attached again) with the rows'
// problems above it.
func importAgain(f *commands.Form, in commands.ImportInput) func(problems string) slack.ModalViewRequest {
	return func(problems string) slack.ModalViewRequest {
		v := importView(f)
		blocks := v.Blocks.BlockSet
		if rows, ok := blocks[0].(*slack.InputBlock); ok {
			if el, ok := rows.Element.(*slack.PlainTextInputBlockElement); ok {
				el.InitialValue = in.Text
			}
		}
		if reason, ok := blocks[len(blocks)-1].(*slack.InputBlock); ok {
			if el, ok := reason.Element.(*slack.PlainTextInputBlockElement); ok {
				el.InitialValue = in.Reason
			}
		}
		lead := plainSection(escape(commands.ImportRefused + "\n" + problems))
		v.Blocks.BlockSet = append([]slack.Block{lead}, blocks...)
		return v
	}
}

// plainTextSection is a section of plain text, cut to Slack's limit.
func plainTextSection(text string) *slack.SectionBlock {
	return slack.NewSectionBlock(slack.NewTextBlockObject(slack.PlainTextType, fitText(text, maxSectionText), false, false), nil, nil)
}
