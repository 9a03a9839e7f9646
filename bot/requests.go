package bot

import (
	"fmt"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/mailbot/mailbot/commands"
)

// The block_ids of mailbot's buttons: the request message's, those of a
// private reply (Cancel, Check DNS) and the Home tab's. Slack hands a
// click to HandleInteractionBlockAction only when its block has an ID.
const (
	approvalBlockID = "mailbot_approval"
	replyBlockID    = "mailbot_reply"
	homeBlockPrefix = "mailbot_home_"
)

// maxNoticeText bounds the plain text of a message (Slack's limit is far
// higher; a notification is never this long).
const maxNoticeText = 3000

// requestBlocks renders a request message: who asks what and why, until
// when, what happened, and Approve and Deny while it is pending.
func requestBlocks(v commands.RequestView) ([]slack.Block, error) {
	p := v.Pending
	where := "the shell"
	if p.Channel != "" {
		where = "<#" + escape(p.Channel) + ">"
	}
	reason := p.Op.Reason
	if reason == "" {
		reason = "(none given)"
	}
	head := fmt.Sprintf("*Approval requested* by %s in %s\n*Operation:* %s\n*Reason:* %s\n*Expires:* %s",
		mention(p.Requester), where, escape(p.Op.String()), escape(reason), p.Expires.UTC().Format(time.RFC1123))
	if p.Op.For != "" {
		head += "\n*Credentials for:* " + mention(p.Op.For) + " alone, in a direct message"
	}
	if v.Need > 1 {
		head += fmt.Sprintf("\n*Approvals needed:* %d different admins", v.Need)
	}
	if len(v.AdminGroups) > 0 {
		head += "\n*Admins:* members of " + escape(strings.Join(v.AdminGroups, ", "))
	}
	blocks := []slack.Block{plainSection(head)}
	if v.Text != "" {
		blocks = append(blocks, slack.NewContextBlock("", verbatim(fitText(stateMark(v.State)+escape(v.Text), maxSectionText))))
	}
	blocks = fitBlocks(blocks, maxMessageBlocks-1)
	if !v.Buttons() {
		return blocks, nil
	}
	actions, err := buttons(approvalBlockID, []commands.Button{
		{Kind: commands.ButtonApprove, Label: "Approve", Value: v.Value},
		{Kind: commands.ButtonDeny, Label: "Deny", Value: v.Value},
	})
	if err != nil {
		return nil, err
	}
	return append(blocks, actions), nil
}

// stateMark is the emoji that leads a request's state line.
func stateMark(s commands.State) string {
	switch s {
	case commands.StateDone:
		return ":white_check_mark: "
	case commands.StateFailed, commands.StateUncertain:
		return ":warning: "
	case commands.StateDenied:
		return ":no_entry: "
	case commands.StateCancelled:
		return ":leftwards_arrow_with_hook: "
	case commands.StateExpired:
		return ":hourglass: "
	}
	return ":ballot_box_with_check: "
}

// buttons renders an actions block; a value over Slack's limit is an
// error, never cut (it is signed).
func buttons(blockID string, bs []commands.Button) (*slack.ActionBlock, error) {
	els := make([]slack.BlockElement, 0, len(bs))
	for _, b := range bs {
		if len(b.Value) > maxButtonValue {
			return nil, fmt.Errorf("button %s: value of %d bytes is over Slack's %d", b.Kind, len(b.Value), maxButtonValue)
		}
		el := slack.NewButtonBlockElement(string(b.Kind), b.Value, slack.NewTextBlockObject(slack.PlainTextType, fitText(b.Label, maxButtonText), false, false))
		switch b.Kind {
		case commands.ButtonApprove:
			el = el.WithStyle(slack.StylePrimary)
		case commands.ButtonDeny, commands.ButtonCancel:
			el = el.WithStyle(slack.StyleDanger)
			el.Confirm = confirm(b.Kind)
		}
		els = append(els, el)
	}
	return slack.NewActionBlock(blockID, els...), nil
}

// confirm asks before a Deny or a Cancel.
func confirm(k commands.ButtonKind) *slack.ConfirmationBlockObject {
	title, text, yes := "Deny this request?", "The requester will be told that you denied it.", "Deny"
	if k == commands.ButtonCancel {
		title, text, yes = "Cancel your request?", "The admins will see that you withdrew it.", "Cancel request"
	}
	return slack.NewConfirmationBlockObject(
		slack.NewTextBlockObject(slack.PlainTextType, title, false, false),
		slack.NewTextBlockObject(slack.PlainTextType, text, false, false),
		slack.NewTextBlockObject(slack.PlainTextType, yes, false, false),
		slack.NewTextBlockObject(slack.PlainTextType, "Keep it", false, false),
	)
}

// verbatim is mrkdwn that Slack shows as written: no automatic links or
// mentions from bare text (explicit <@U…> marks still render).
func verbatim(mrkdwn string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, mrkdwn, false, true)
}

// plainSection is a section of escaped, verbatim mrkdwn within Slack's
// limit.
func plainSection(mrkdwn string) *slack.SectionBlock {
	return slack.NewSectionBlock(verbatim(fitText(mrkdwn, maxSectionText)), nil, nil)
}
