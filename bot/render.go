package bot

import (
	"regexp"
	"strings"

	"github.com/slack-go/slack"

	"github.com/mailbot/mailbot/commands"
)

// Mention marks a user ID in the core's texts (commands.Config.Mention):
// rendering turns the mark into a real Slack mention, after escaping the
// text around it, so that user text can never form one.
func Mention(userID string) string { return "\x00@" + userID + "\x00" }

var (
	slackEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	mentionMark  = regexp.MustCompile("\x00@([A-Z0-9]+)\x00")
)

// escape applies Slack's escaping of &, < and >, so that text shows as it
// is and never forms a mention or a link; then it renders the marks of
// [Mention] as mentions.
func escape(s string) string {
	return mentionMark.ReplaceAllString(slackEscaper.Replace(s), "<@$1>")
}

// mention renders a user ID as a Slack mention. IDs come from Slack.
func mention(userID string) string { return escape(Mention(userID)) }

// replyBlocks renders a reply as Block Kit: the title and text, the fields
// (secrets in code spans, verbatim), the steps, and the note.
func replyBlocks(r commands.Reply) []slack.Block {
	head := "*" + escape(r.Title) + "*"
	if r.Error {
		head = ":warning: " + head
	}
	if r.Text != "" {
		head += "\n" + escape(r.Text)
	}
	blocks := []slack.Block{section(head)}
	if len(r.Fields) > 0 {
		blocks = append(blocks, section(fieldLines(r.Fields, true)))
	}
	if len(r.Steps) > 0 {
		blocks = append(blocks, section(stepLines(r.Steps)))
	}
	if r.Note != "" {
		blocks = append(blocks, slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, escape(r.Note), false, false)))
	}
	return blocks
}

func section(mrkdwn string) *slack.SectionBlock {
	return slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, mrkdwn, false, false), nil, nil)
}

func fieldLines(fields []commands.Field, markup bool) string {
	lines := make([]string, 0, len(fields))
	for _, f := range fields {
		v := escape(f.Value)
		if markup && f.Secret {
			v = "`" + v + "`"
		}
		if markup {
			lines = append(lines, "*"+escape(f.Label)+":* "+v)
		} else {
			lines = append(lines, escape(f.Label)+": "+v)
		}
	}
	return strings.Join(lines, "\n")
}

func stepLines(steps []string) string {
	lines := make([]string, len(steps))
	for i, s := range steps {
		lines[i] = "• " + escape(s)
	}
	return strings.Join(lines, "\n")
}

// fallbackText is the plain-text version of a reply, for notifications
// and clients that do not show blocks.
func fallbackText(r commands.Reply) string {
	parts := []string{escape(r.Title)}
	if r.Text != "" {
		parts = append(parts, escape(r.Text))
	}
	if len(r.Fields) > 0 {
		parts = append(parts, fieldLines(r.Fields, false))
	}
	if len(r.Steps) > 0 {
		parts = append(parts, stepLines(r.Steps))
	}
	if r.Note != "" {
		parts = append(parts, escape(r.Note))
	}
	return strings.Join(parts, "\n")
}

// ephemeral is the JSON of an acknowledgement's payload: a message for the
// person who typed the command alone.
type ephemeral struct {
	ResponseType string       `json:"response_type"`
	Text         string       `json:"text"`
	Blocks       slack.Blocks `json:"blocks"`
}

func ephemeralPayload(r commands.Reply) ephemeral {
	return ephemeral{ResponseType: slack.ResponseTypeEphemeral, Text: fallbackText(r), Blocks: slack.Blocks{BlockSet: replyBlocks(r)}}
}

// messageOptions renders a reply for chat.postEphemeral.
func messageOptions(r commands.Reply) []slack.MsgOption {
	return []slack.MsgOption{slack.MsgOptionText(fallbackText(r), false), slack.MsgOptionBlocks(replyBlocks(r)...)}
}

// noticeMessage renders an ops notice: the core's words, escaped, with
// real mentions for the user IDs.
func noticeMessage(n commands.Notice) string { return escape(n.Summary(Mention)) }
