package bot

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/mailbot/mailbot/commands"
)

// nastyPieces are the characters where a JSON encoder can go wrong: quotes,
// backslashes, every kind of control character, the HTML characters
// encoding/json escapes, the line and paragraph separators it escapes,
// multi-byte and astral characters, and invalid UTF-8 (a lone continuation
// byte, a cut sequence, an encoded surrogate, an overlong form).
var nastyPieces = []string{"a", "\"", "\\", "\\\"", "/", "\x00", "\x01", "\x1f", "\x7f", "\b", "\f", "\n", "\r", "\t",
	"<", ">", "&", "\u2028", "\u2029", "\u2027", "\u202a", "é", "😀", "\U0001F1EB\U0001F1F7", "\ufffd", "\ufeff",
	"\x80", "\xff", "\xe2\x80", "\xed\xa0\x80", "\xc0\xaf", Mention("U1"), MentionGroup("S1"), "`", "*"}

// nastyText is a random text of up to n pieces of nastyPieces.
func nastyText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range rng.IntN(n + 1) {
		b.WriteString(nastyPieces[rng.IntN(len(nastyPieces))])
	}
	return b.String()
}

// nastyReply is a reply of random shape whose every text is nasty, with
// buttons some of the time.
func nastyReply(rng *rand.Rand) commands.Reply {
	size := []int{3, 40, 900}[rng.IntN(3)]
	r := commands.Reply{Title: nastyText(rng, size), Text: nastyText(rng, size), Note: nastyText(rng, size), Error: rng.IntN(2) == 0}
	for i := range rng.IntN(12) {
		r.Fields = append(r.Fields, commands.Field{Label: nastyText(rng, 8), Value: nastyText(rng, size), Secret: i == 0})
	}
	for range rng.IntN(8) {
		r.Steps = append(r.Steps, nastyText(rng, size))
	}
	kinds := []commands.ButtonKind{commands.ButtonApprove, commands.ButtonDeny, commands.ButtonCancel, "other"}
	for range rng.IntN(3) {
		r.Buttons = append(r.Buttons, commands.Button{Kind: kinds[rng.IntN(len(kinds))], Label: nastyText(rng, 10), Value: nastyText(rng, 40)})
	}
	return r
}

// sameJSON fails t when the hand encoding of v differs from json.Marshal's.
func sameJSON(t *testing.T, what string, got []byte, err error, v any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: json.Marshal: %v", what, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// TestHandEncodingIsJSONMarshal: for many random replies of nasty text,
// the hand encoder writes, byte for byte, what json.Marshal writes of the
// same slack-go values: the blocks, the ack's payload and the
// response_url body.
func TestHandEncodingIsJSONMarshal(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 400 {
		r := nastyReply(rng)
		blocks := replyBlocks(r)
		got, err := appendBlocks(nil, blocks)
		sameJSON(t, "blocks", got, err, blocks)
		p := ephemeralPayload(r)
		got, err = p.appendJSON([]byte("prefix"))
		if !bytes.HasPrefix(got, []byte("prefix")) {
			t.Fatalf("appendJSON dropped what was in the slice: %q", got)
		}
		sameJSON(t, "ack payload", got[len("prefix"):], err, p)
		got, err = encodePayload(p)
		sameJSON(t, "encodePayload", got, err, p)
		got, err = responseBody(r, i%2 == 0)
		sameJSON(t, "response_url body", got, err, &slack.WebhookMessage{ResponseType: slack.ResponseTypeEphemeral,
			ReplaceOriginal: i%2 == 0, Text: fallbackText(r), Blocks: &slack.Blocks{BlockSet: blocks}})
	}
}

// TestHandEncodingOfEveryBlock: the blocks of the request messages, the
// Home tab, the notices and the long lists (a section of fields) encode as
// json.Marshal encodes them, and so do blocks and elements the encoder
// leaves to json.Marshal.
func TestHandEncodingOfEveryBlock(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	for range 100 {
		s := nastyText(rng, 30)
		blocks := append(handBlocks(s), otherBlocks(s)...)
		for _, blk := range blocks {
			got, err := appendBlock(nil, blk)
			sameJSON(t, "block", got, err, blk)
		}
		got, err := appendBlocks(nil, blocks)
		sameJSON(t, "all blocks", got, err, blocks)
	}
	got, err := appendBlocks(nil, nil)
	sameJSON(t, "no blocks", got, err, []slack.Block(nil))
	got, err = appendBlocks(nil, []slack.Block{})
	sameJSON(t, "empty blocks", got, err, []slack.Block{})
	got, err = encodePayload(map[string]string{"response_action": "clear"})
	sameJSON(t, "another payload", got, err, map[string]string{"response_action": "clear"})
}

// handBlocks are the blocks mailbot builds, with s in every text.
func handBlocks(s string) []slack.Block {
	p := commands.Pending{Requester: "U1", Channel: "C1", Expires: time.Unix(1e9, 0),
		Op: commands.Operation{Action: commands.ActionAddMailbox, Domain: "example.com", Reason: s}}
	req, err := requestBlocks(commands.RequestView{Pending: p, State: commands.StatePending, Text: s, Value: s[:min(len(s), 100)], Need: 2, AdminGroups: []string{s}})
	if err != nil {
		panic(err)
	}
	plain := slack.NewTextBlockObject(slack.PlainTextType, s, true, false)
	blocks := append(req, plainSection(s), section(s), contextText(s), slack.NewDividerBlock(),
		slack.NewHeaderBlock(plain, slack.HeaderBlockOptionBlockID(s)),
		&slack.HeaderBlock{Type: slack.MBTHeader, Level: 3},
		slack.NewSectionBlock(nil, []*slack.TextBlockObject{plain, verbatim(s), nil}, nil, slack.SectionBlockOptionBlockID(s), slack.SectionBlockOptionExpand(true)),
		&slack.DividerBlock{Type: slack.MBTDivider, BlockID: s},
		slack.NewContextBlock(s, plain, nil),
		&slack.ContextBlock{Type: slack.MBTContext},
		&slack.ActionBlock{Type: slack.MBTAction}, &slack.ActionBlock{Type: slack.MBTAction, Elements: &slack.BlockElements{}})
	btn := slack.NewButtonBlockElement(s, s, plain).WithStyle(slack.Style(s)).WithURL(s)
	btn.AccessibilityLabel, btn.AgentPrompt, btn.AgentPromptDisplay = s, s, s
	btn.Confirm = slack.NewConfirmationBlockObject(plain, nil, plain, nil).WithStyle(slack.StyleDanger)
	return append(blocks, slack.NewActionBlock(s, btn, &slack.ButtonBlockElement{}))
}

// otherBlocks are blocks and elements the hand encoder leaves to
// json.Marshal.
func otherBlocks(s string) []slack.Block {
	img := slack.NewImageBlockElement("https://example.com/a.png", s)
	raw, err := slack.BlockFromJSON(`{ "type": "section", "text": {"type": "mrkdwn", "text": "<a> & b"} }`)
	if err != nil {
		panic(err)
	}
	shown := slack.NewButtonBlockElement("a", s, nil)
	shown.VisibleToUserIDs = []string{s}
	return []slack.Block{
		slack.NewSectionBlock(verbatim(s), nil, slack.NewAccessory(img)),
		slack.NewContextBlock("", img, verbatim(s)),
		slack.NewActionBlock("", shown, slack.NewOverflowBlockElement(s)),
		slack.SectionBlock{Type: slack.MBTSection, Text: verbatim(s)},
		(*slack.SectionBlock)(nil), (*slack.ContextBlock)(nil), (*slack.ActionBlock)(nil),
		(*slack.DividerBlock)(nil), (*slack.HeaderBlock)(nil), nil,
		slack.NewImageBlock("https://example.com/a.png", s, "", nil), raw,
	}
}

// FuzzHandEncoding compares the hand encoder with json.Marshal for
// arbitrary strings in every place a string goes, and for replies built of
// them.
func FuzzHandEncoding(f *testing.F) {
	f.Add("plain text", "Mailbox created")
	f.Add("\"quoted\" \\ back\\slash", "\x00\x01\x1f\x7f\b\f\n\r\t")
	f.Add("<@U1> & <!channel>", "\u2028\u2029😀\U0001F1EB\U0001F1F7")
	f.Add("\xff\x80\xe2\x80\xed\xa0\x80", "\xc0\xafé\ufffd")
	f.Fuzz(func(t *testing.T, a, b string) {
		blocks := append(handBlocks(a), otherBlocks(b)...)
		got, err := appendBlocks(nil, blocks)
		sameJSON(t, "blocks", got, err, blocks)
		r := commands.Reply{Title: a, Text: b, Note: a + b, Fields: []commands.Field{{Label: b, Value: a, Secret: true}, {Label: a, Value: b}},
			Steps: []string{a, b}, Buttons: []commands.Button{{Kind: commands.ButtonCancel, Label: b, Value: a[:min(len(a), 100)]}}}
		got, err = responseBody(r, len(a)%2 == 0)
		sameJSON(t, "response_url body", got, err, &slack.WebhookMessage{ResponseType: slack.ResponseTypeEphemeral,
			ReplaceOriginal: len(a)%2 == 0, Text: fallbackText(r), Blocks: &slack.Blocks{BlockSet: replyBlocks(r)}})
		p := ephemeralPayload(r)
		got, err = p.appendJSON(nil)
		sameJSON(t, "ack payload", got, err, p)
	})
}

// TestAckPayloadSized: the acknowledgement's payload, which is kept for an
// envelope Slack may send again, is not much larger than its JSON for
// replies of the core's kind (before, the room it was encoded into was
// about half as large again as it).
func TestAckPayloadSized(t *testing.T) {
	t.Parallel()
	steps := commands.Reply{Title: "Domain example.com registered", Text: "Publish these records:",
		Steps: []string{"MX example.com → mx.yandex.net (priority 10)", "TXT example.com → v=spf1 redirect=_spf.yandex.net", "CNAME mail.example.com → domain.mail.yandex.net"},
		Note:  "Only you can see this message."}
	for _, r := range []commands.Reply{benchReply, steps, {Title: "Working on it…", Note: "Requested by " + Mention("U012ABCDEF") + "."}} {
		raw, err := encodePayload(ephemeralPayload(r))
		if err != nil {
			t.Fatal(err)
		}
		if limit := len(raw) + len(raw)/4 + 64; cap(raw) > limit {
			t.Errorf("%q: payload of %d bytes in %d, want at most %d", r.Title, len(raw), cap(raw), limit)
		}
	}
}
