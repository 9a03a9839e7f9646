package bot

import (
	"strconv"
	"strings"

	"github.com/slack-go/slack"

	"github.com/mailbot/mailbot/commands"
)

// Mention marks a user ID in the core's texts (commands.Config.Mention):
// rendering turns the mark into a real Slack mention, <@ID>, after
// escaping the text around it, so that user text can never form one.
func Mention(userID string) string { return "\x00@" + userID + "\x00" }

// MentionGroup marks a user group ID (S…) in the core's texts, as
// [Mention] does a user's: rendering turns it into <!subteam^ID>, which
// notifies the members of the group.
func MentionGroup(groupID string) string { return "\x00!subteam^" + groupID + "\x00" }

// escape applies Slack's escaping of &, < and >, so that text shows as it
// is and never forms a mention or a link, and renders the marks of
// [Mention] and [MentionGroup] as mentions, in one pass. A mark renders
// only with an ID of capital letters and digits; anything else is left as
// it is.
func escape(s string) string {
	grow, marks := escapeGrowth(s)
	if grow == 0 && !marks {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + grow) // a mark renders to as many bytes as it has
	start := 0
	for i := 0; i < len(s); i++ {
		with, n := escapeAt(s, i)
		if n == 0 {
			continue
		}
		b.WriteString(s[start:i])
		if with == "" { // a mark: its mention, the mark's text in angle brackets
			b.WriteByte('<')
			b.WriteString(s[i+1 : i+n-1])
			b.WriteByte('>')
		} else {
			b.WriteString(with)
		}
		start = i + n
		i += n - 1
	}
	b.WriteString(s[start:])
	return b.String()
}

// escapeGrowth is how many bytes escaping s adds, and whether s holds a
// NUL byte that may open a mark.
func escapeGrowth(s string) (grow int, marks bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '&':
			grow += len("&amp;") - 1
		case '<', '>':
			grow += len("&lt;") - 1
		case 0:
			marks = true
		}
	}
	return grow, marks
}

// escapeAt is what replaces the bytes at s[i:]: the entity of a special
// character, or "" for a mark (rendered by the caller in angle brackets),
// and how many bytes of s it replaces. It returns n == 0 when s[i] is kept
// as it is.
func escapeAt(s string, i int) (with string, n int) {
	switch s[i] {
	case '&':
		return "&amp;", 1
	case '<':
		return "&lt;", 1
	case '>':
		return "&gt;", 1
	case 0:
		return "", markLen(s[i:])
	}
	return "", 0
}

// markLen is the length of the mark at the start of s ("\x00@ID\x00" or
// "\x00!subteam^ID\x00", the ID of capital letters and digits), or 0.
func markLen(s string) int {
	var head int
	switch {
	case strings.HasPrefix(s, "\x00@"):
		head = len("\x00@")
	case strings.HasPrefix(s, "\x00!subteam^"):
		head = len("\x00!subteam^")
	default:
		return 0
	}
	i := head
	for i < len(s) && ('A' <= s[i] && s[i] <= 'Z' || '0' <= s[i] && s[i] <= '9') {
		i++
	}
	if i == head || i == len(s) || s[i] != 0 {
		return 0
	}
	return i + 1
}

// mention renders a user ID as a Slack mention. IDs come from Slack.
func mention(userID string) string { return escape(Mention(userID)) }

// replyBlocks renders a reply as Block Kit within Slack's limits: the
// title and text, the fields (secrets in code spans, verbatim), the steps,
// and the note. Fields and steps that do not fit in one section go on in
// more sections; a secret is never cut (a field too long to show whole is
// left out, ending in an ellipsis).
func replyBlocks(r commands.Reply) []slack.Block {
	mark, title := "", fitText(escape(r.Title), maxTitleText)
	if r.Error {
		mark = ":warning: "
	}
	head := mark + "*" + title + "*"
	if r.Text != "" {
		head = mark + "*" + title + "*\n" + escape(r.Text)
	}
	blocks := make([]slack.Block, 1, 4) // the head, the fields, the note, the buttons, as a rule
	blocks[0] = section(head)
	lines := fieldLines(make([]string, 0, max(len(r.Fields), len(r.Steps))), r.Fields, true)
	blocks = appendSections(blocks, lines)
	blocks = appendSections(blocks, stepLines(lines[:0], r.Steps))
	if r.Note != "" {
		blocks = append(blocks, contextText(escape(r.Note)))
	}
	blocks = fitBlocks(blocks, maxMessageBlocks-1)
	if len(r.Buttons) == 0 {
		return blocks
	}
	if a, err := buttons(replyBlockID, r.Buttons); err == nil {
		blocks = append(blocks, a) // a value over Slack's limit leaves the buttons out, never cut
	}
	return blocks
}

// section is a section of escaped mrkdwn, cut to Slack's limit.
func section(mrkdwn string) *slack.SectionBlock {
	return slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, fitText(mrkdwn, maxSectionText), false, false), nil, nil)
}

// contextText is a context block of escaped mrkdwn, cut to Slack's limit.
func contextText(mrkdwn string) *slack.ContextBlock {
	return slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, fitText(mrkdwn, maxContextText), false, false))
}

// appendSections appends lines in as few sections as hold them.
func appendSections(blocks []slack.Block, lines []string) []slack.Block {
	if len(lines) == 1 {
		return append(blocks, section(fitText(lines[0], maxSectionText)))
	}
	var b strings.Builder
	b.Grow(min(joinedLen(lines), 4*maxSectionText))
	n := 0
	for i, l := range lines {
		l = fitText(l, maxSectionText)
		w := textLen(l)
		if i > 0 && n+1+w > maxSectionText {
			blocks = append(blocks, section(b.String()))
			b.Reset()
			n = 0
		} else if i > 0 {
			b.WriteByte('\n')
			n++
		}
		b.WriteString(l)
		n += w
	}
	if len(lines) > 0 {
		blocks = append(blocks, section(b.String()))
	}
	return blocks
}

// Per-line bounds of a field, so that a line always fits in a section and
// a secret (a few dozen characters) always fits whole. A label is the
// core's words or an address (up to 254 characters, five times that
// escaped): it is never cut below maxFieldLabel. A value that is not a
// secret is cut to the room the label leaves.
const (
	maxFieldLabel = 1500
	maxFieldLine  = maxSectionText - 20
)

// joinedLen is the length of lines joined by newlines.
func joinedLen(lines []string) int {
	n := len(lines)
	for _, l := range lines {
		n += len(l)
	}
	return n
}

// fieldParts is a field's label and value, escaped and cut to their
// bounds (a secret is never cut).
func fieldParts(f commands.Field) (label, v string) {
	label = fitText(escape(f.Label), maxFieldLabel)
	v = escape(f.Value)
	if !f.Secret {
		v = fitText(v, maxFieldLine-textLen(label))
	}
	return label, v
}

func fieldLines(lines []string, fields []commands.Field, markup bool) []string {
	for _, f := range fields {
		label, v := fieldParts(f)
		switch {
		case markup && f.Secret:
			lines = append(lines, "*"+label+":* `"+v+"`")
		case markup:
			lines = append(lines, "*"+label+":* "+v)
		default:
			lines = append(lines, label+": "+v)
		}
	}
	return lines
}

func stepLines(lines []string, steps []string) []string {
	for _, s := range steps {
		lines = append(lines, "• "+escape(s))
	}
	return lines
}

// fallbackText is the plain-text version of a reply, for notifications
// and clients that do not show blocks, within maxFallbackText: what does
// not fit is cut with an ellipsis, and a secret that does not fit whole is
// left out.
func fallbackText(r commands.Reply) string {
	if whole, ok := fallbackWhole(r); ok {
		return whole
	}
	lines := make([]string, 1, 3+len(r.Fields)+len(r.Steps))
	lines[0] = escape(r.Title)
	if r.Text != "" {
		lines = append(lines, escape(r.Text))
	}
	firstField := len(lines)
	lines = fieldLines(lines, r.Fields, false)
	lines = stepLines(lines, r.Steps)
	if r.Note != "" {
		lines = append(lines, escape(r.Note))
	}
	secret := func(i int) bool {
		return i >= firstField && i < firstField+len(r.Fields) && r.Fields[i-firstField].Secret
	}
	var b strings.Builder
	n := 0
	for i, l := range lines {
		sep := min(i, 1) // a newline before every line but the first
		if w := textLen(l); n+sep+w < maxFallbackText {
			b.WriteString("\n"[:sep] + l)
			n += sep + w
			continue
		}
		if room := maxFallbackText - n - sep; !secret(i) && room >= 2 {
			b.WriteString("\n"[:sep] + fitText(l, room))
		} else if room >= 1 {
			b.WriteString("\n"[:sep] + "…")
		} else {
			b.WriteString("…")
		}
		break
	}
	return b.String()
}

// fallbackWhole is the plain-text version of r uncut, its lines written
// into one buffer, and whether it is within maxFallbackText; when it is
// not, fallbackText cuts it line by line.
func fallbackWhole(r commands.Reply) (string, bool) {
	var b strings.Builder
	b.Grow(fallbackSizeHint(r))
	b.WriteString(escape(r.Title))
	if r.Text != "" {
		b.WriteByte('\n')
		b.WriteString(escape(r.Text))
	}
	for _, f := range r.Fields {
		label, v := fieldParts(f)
		b.WriteByte('\n')
		b.WriteString(label)
		b.WriteString(": ")
		b.WriteString(v)
	}
	for _, s := range r.Steps {
		b.WriteString("\n• ")
		b.WriteString(escape(s))
	}
	if r.Note != "" {
		b.WriteByte('\n')
		b.WriteString(escape(r.Note))
	}
	full := b.String()
	return full, len(full) <= maxFallbackText || textLen(full) <= maxFallbackText
}

// fallbackSizeHint is about the length of r's plain text: its texts, the
// separators, and an eighth more for escapes.
func fallbackSizeHint(r commands.Reply) int {
	n := len(r.Title) + len(r.Text) + len(r.Note) + 8
	for _, f := range r.Fields {
		n += len(f.Label) + len(f.Value) + 3
	}
	for _, s := range r.Steps {
		n += len(s) + len("\n• ")
	}
	return n + n/8
}

// ephemeral is the JSON of an acknowledgement's payload: a message for the
// person who typed the command alone.
type ephemeral struct {
	ResponseType string        `json:"response_type"`
	Text         string        `json:"text"`
	Blocks       []slack.Block `json:"blocks"` // not slack.Blocks, whose output encoding/json compacts again
}

// appendJSON appends the payload's JSON, the bytes json.Marshal writes,
// by the hand encoder (blockjson.go).
func (e ephemeral) appendJSON(dst []byte) ([]byte, error) {
	dst = appendString(append(dst, `{"response_type":`...), e.ResponseType)
	dst = appendString(append(dst, `,"text":`...), e.Text)
	dst, err := appendBlocks(append(dst, `,"blocks":`...), e.Blocks)
	return append(dst, '}'), err
}

// ephemeralPayload renders a reply as an acknowledgement's payload, within
// Slack's limits.
func ephemeralPayload(r commands.Reply) ephemeral {
	return ephemeral{ResponseType: slack.ResponseTypeEphemeral, Text: fallbackText(r), Blocks: replyBlocks(r)}
}

// messageOptions renders a reply for chat.postEphemeral, within Slack's
// limits.
func messageOptions(r commands.Reply) []slack.MsgOption {
	return []slack.MsgOption{slack.MsgOptionText(fallbackText(r), false), slack.MsgOptionBlocks(replyBlocks(r)...)}
}

// responseBody is r as the body of a response_url post: the JSON of
// slack-go's WebhookMessage as Slack reads it, byte for byte, written by
// the hand encoder (blockjson.go) in one buffer.
func responseBody(r commands.Reply, replace bool) ([]byte, error) {
	text, blocks := fallbackText(r), replyBlocks(r)
	dst := make([]byte, 0, bodySizeHint(text, blocks))
	dst = append(dst, '{')
	if text != "" {
		dst = append(appendString(append(dst, `"text":`...), text), ',')
	}
	if len(blocks) > 0 {
		var err error
		if dst, err = appendBlocks(append(dst, `"blocks":`...), blocks); err != nil {
			return nil, err
		}
		dst = append(dst, ',')
	}
	dst = append(dst, `"response_type":"ephemeral","replace_original":`...)
	dst = strconv.AppendBool(dst, replace)
	return append(dst, `,"delete_original":false}`...), nil
}
