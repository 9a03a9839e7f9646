package bot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/mailbot/mailbot/commands"
)

// TestEscapeAsBefore compares escape with the outputs of the former
// implementation (a strings.Replacer, then a regexp for the marks),
// recorded when it was replaced.
func TestEscapeAsBefore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain text", "plain text"},
		{"a & b < c > d", "a &amp; b &lt; c &gt; d"},
		{"&amp; &lt; &gt;", "&amp;amp; &amp;lt; &amp;gt;"},
		{"<@U123> <!channel> <#C1|ops>", "&lt;@U123&gt; &lt;!channel&gt; &lt;#C1|ops&gt;"},
		{"\x00@U123\x00", "<@U123>"},
		{"by \x00@U1\x00, approved by \x00@W2ABC\x00.", "by <@U1>, approved by <@W2ABC>."},
		{"\x00@U1\x00\x00@U2\x00", "<@U1><@U2>"},
		{"\x00@u1\x00", "\x00@u1\x00"},
		{"\x00@\x00", "\x00@\x00"},
		{"\x00@U1", "\x00@U1"},
		{"\x00@U1 \x00", "\x00@U1 \x00"},
		{"\x00@\x00@A\x00", "\x00@<@A>"},
		{"\x00@A\x00@B\x00", "<@A>@B\x00"},
		{"\x00\x00@A\x00", "\x00<@A>"},
		{"\x00@A<\x00", "\x00@A&lt;\x00"},
		{"\x00@<U1>\x00", "\x00@&lt;U1&gt;\x00"},
		{"x\x00y", "x\x00y"},
		{"héllo ✓ & <пример> 😀", "héllo ✓ &amp; &lt;пример&gt; 😀"},
		{"\x00@U1\x00 & <\x00@U2\x00>", "<@U1> &amp; &lt;<@U2>&gt;"},
		{"\xff\xfe<&>", "\xff\xfe&lt;&amp;&gt;"},
	} {
		if got := escape(tc.in); got != tc.want {
			t.Errorf("escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEscapeGroupMentions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"ping " + MentionGroup("S0614TZR7") + " & " + Mention("U1"), "ping <!subteam^S0614TZR7> &amp; <@U1>"},
		{MentionGroup("S1") + MentionGroup("S2"), "<!subteam^S1><!subteam^S2>"},
		{"\x00!subteam^s1\x00", "\x00!subteam^s1\x00"},
		{"\x00!subteam^\x00", "\x00!subteam^\x00"},
		{"\x00!subteam^S1", "\x00!subteam^S1"},
		{"\x00!channel\x00", "\x00!channel\x00"},
		{"<!subteam^S1>", "&lt;!subteam^S1&gt;"},
	} {
		if got := escape(tc.in); got != tc.want {
			t.Errorf("escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRenderSecretNeverCut: a secret too long to show whole is left out,
// in the blocks and in the fallback text, never shown cut.
func TestRenderSecretNeverCut(t *testing.T) {
	t.Parallel()
	secret := strings.Repeat("s", 2990)
	r := commands.Reply{Title: "Mailbox created", Fields: []commands.Field{{Label: "Address", Value: "a@example.com"}, {Label: "Password", Value: secret, Secret: true}}}
	blocks := replyBlocks(r)
	if len(blocks) != 2 {
		t.Fatalf("got %d blocks, want the head and the fields", len(blocks))
	}
	if got := blocks[1].(*slack.SectionBlock).Text.Text; got != "*Address:* a@example.com\n*Password:*…" {
		t.Errorf("fields section = %q, want the password's label and an ellipsis", got)
	}
	if got, want := fallbackText(r), "Mailbox created\nAddress: a@example.com\n…"; got != want {
		t.Errorf("fallbackText = %q, want %q", got, want)
	}
	r.Fields[1].Value = "x&Y<9>qT!r2#Lm4z"
	r.Text = strings.Repeat("t", 2990)
	if got, want := fallbackText(r), "Mailbox created\n"+strings.Repeat("t", 2983)+"…"; got != want {
		t.Errorf("fallbackText with a long text = %q…, want %q…", got[:40], want[:40])
	}
	if got := blocks[0].(*slack.SectionBlock).Text.Text; !strings.HasPrefix(got, "*Mailbox created*") {
		t.Errorf("head = %q", got)
	}
	if got := replyBlocks(r)[1].(*slack.SectionBlock).Text.Text; got != "*Address:* a@example.com\n*Password:* `x&amp;Y&lt;9&gt;qT!r2#Lm4z`" {
		t.Errorf("fields with a long text = %q", got)
	}
}

// escapeBenchInputs are texts of the sizes the core produces: a notice with
// two mentions, a plain reply sentence, and a long text with markup
// characters.
var escapeBenchInputs = map[string]string{
	"notice": Mention("U012ABCDEF") + " added mailbox alice@example.com: uid 42, approved by " + Mention("U0ADMIN99") + "; reason: new hire <starts> Monday & Tuesday",
	"plain":  "The mailbox alice@example.com is ready. Only you can see this message.",
	"long":   strings.Repeat("a <b> & c "+Mention("U1")+" ", 100),
}

func BenchmarkEscape(b *testing.B) {
	for _, name := range []string{"notice", "plain", "long"} {
		s := escapeBenchInputs[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = escape(s)
			}
		})
	}
}

// benchReply is an add reply as the core writes it.
var benchReply = commands.Reply{
	Title: "Mailbox created",
	Text:  "The mailbox alice@example.com is ready.",
	Fields: []commands.Field{
		{Label: "Address", Value: "alice@example.com"},
		{Label: "Password", Value: "x&Y<9>qT!r2#Lm4z", Secret: true},
		{Label: "uid", Value: "1130000012345678"},
	},
	Note: "Only you can see this message. Requested by " + Mention("U012ABCDEF") + ".",
}

func BenchmarkRenderReply(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = ephemeralPayload(benchReply)
	}
}

// TestRenderWithinLimits renders random replies, some huge, and checks
// every message against Slack's documented limits; a short secret in the
// first field always shows whole.
func TestRenderWithinLimits(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		r := randomReply(rng)
		if problems := renderProblems(r); len(problems) > 0 {
			t.Fatalf("reply %d (%d fields, %d steps) is over Slack's limits:\n%s", i, len(r.Fields), len(r.Steps), strings.Join(problems, "\n"))
		}
	}
}

// FuzzRenderWithinLimits renders replies built from fuzzed texts, repeated
// and multiplied, and checks them against Slack's documented limits.
func FuzzRenderWithinLimits(f *testing.F) {
	f.Add("Mailbox created", "a <@U1> & b", "Password", "x&Y<9>", uint16(1), uint8(3), uint8(2))
	f.Add(strings.Repeat("T", 200), strings.Repeat("é\u0301", 2000), "`", "😀&lt;", uint16(900), uint8(60), uint8(70))
	f.Fuzz(func(t *testing.T, title, text, label, value string, repeat uint16, nFields, nSteps uint8) {
		rep := func(s string) string { return strings.Repeat(s, 1+int(repeat)%4000/max(1, len(s))) }
		r := commands.Reply{Title: rep(title), Text: rep(text), Note: rep(value), Error: nFields%2 == 0}
		for i := range int(nFields) {
			r.Fields = append(r.Fields, commands.Field{Label: label, Value: rep(value), Secret: i == 0})
		}
		for range int(nSteps) {
			r.Steps = append(r.Steps, rep(text))
		}
		if problems := renderProblems(r); len(problems) > 0 {
			t.Fatalf("reply over Slack's limits:\n%s", strings.Join(problems, "\n"))
		}
	})
}

// renderProblems renders r every way render.go does and checks the result.
func renderProblems(r commands.Reply) []string {
	p := ephemeralPayload(r)
	problems := blockProblems(p.Blocks, maxMessageBlocks)
	if n := utf16Len(p.Text); n > maxFallbackText || n > 40000 {
		problems = append(problems, fmt.Sprintf("text of %d characters", n))
	}
	if p.Text != fallbackText(r) || len(replyBlocks(r)) != len(p.Blocks) {
		problems = append(problems, "ephemeralPayload differs from fallbackText and replyBlocks")
	}
	total := 0
	for _, b := range p.Blocks {
		total += blockTextLen(b)
	}
	if total > maxMessageBlocksText {
		problems = append(problems, fmt.Sprintf("%d characters in all blocks", total))
	}
	if len(r.Fields) > 0 && r.Fields[0].Secret && utf8.RuneCountInString(r.Fields[0].Value) <= 64 && len(r.Fields[0].Label) <= 64 {
		if want := "`" + escape(r.Fields[0].Value) + "`"; !strings.Contains(mustJSONString(p.Blocks), jsonString(want)) {
			problems = append(problems, fmt.Sprintf("the secret %q does not show whole", r.Fields[0].Value))
		}
	}
	return problems
}

func mustJSONString(v any) string {
	j, _ := json.Marshal(v)
	return string(j)
}

// jsonString is s as it appears inside a JSON string.
func jsonString(s string) string {
	j := mustJSONString(s)
	return j[1 : len(j)-1]
}

// randomReply is a reply of random shape: sometimes huge texts, many
// fields or steps, values with markup characters, multi-byte and astral
// characters, mention marks.
func randomReply(rng *rand.Rand) commands.Reply {
	pieces := []string{"a", "é", "e\u0301", "😀", "\U0001F1EB\U0001F1F7", "&", "<", ">", "`", "*", " ", "\n", "ж", Mention("U1"), MentionGroup("S1"), "&amp;"}
	text := func(max int) string {
		n := rng.IntN(max + 1)
		var b strings.Builder
		for range n {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	size := []int{10, 200, 3500}[rng.IntN(3)]
	r := commands.Reply{Title: text(size), Text: text(size), Note: text(size), Error: rng.IntN(2) == 0}
	for i := range rng.IntN([]int{4, 20, 60}[rng.IntN(3)]) {
		r.Fields = append(r.Fields, commands.Field{Label: text(20), Value: text(size), Secret: i == 0})
	}
	for range rng.IntN([]int{4, 20, 60}[rng.IntN(3)]) {
		r.Steps = append(r.Steps, text(size))
	}
	if r.Title == "" {
		r.Title = "t"
	}
	return r
}

// TestRenderAddressLabelWhole: a list's lines are labelled with the
// mailbox's address, which runs to 254 characters: every one shows whole,
// in the blocks of one message within Slack's limits.
func TestRenderAddressLabelWhole(t *testing.T) {
	t.Parallel()
	local := strings.Repeat("a", 64)
	domain := strings.Repeat("d", 63) + "." + strings.Repeat("e", 63) + "." + strings.Repeat("f", 57) + ".org"
	r := commands.Reply{Title: "Mailboxes of " + domain}
	for i := range 20 {
		addr := fmt.Sprintf("%s%02d@%s", local[2:], i, domain)
		if len(addr) != 254 {
			t.Fatalf("test address of %d characters, want 254", len(addr))
		}
		r.Fields = append(r.Fields, commands.Field{Label: addr, Value: "active · uid 1130000061922106"})
	}
	if problems := renderProblems(r); len(problems) > 0 {
		t.Fatalf("over Slack's limits:\n%s", strings.Join(problems, "\n"))
	}
	blocks := mustJSONString(replyBlocks(r))
	for _, f := range r.Fields {
		if want := "*" + f.Label + ":* " + f.Value; !strings.Contains(blocks, jsonString(want)) {
			t.Errorf("the line of %s… does not show the address whole", f.Label[:20])
		}
	}
}

// TestRenderTitleAddressWhole: a title names an address of up to 254
// characters ("Mailbox … created", "New password for …"); the address shows
// whole in the title, and a title of free text is still cut.
func TestRenderTitleAddressWhole(t *testing.T) {
	t.Parallel()
	addr := strings.Repeat("a", 64) + "@" + strings.Repeat("d", 63) + "." + strings.Repeat("e", 63) + "." + strings.Repeat("f", 57) + ".org"
	if len(addr) != 254 {
		t.Fatalf("test address of %d characters, want 254", len(addr))
	}
	for _, title := range []string{"Mailbox " + addr + " created", "New password for " + addr, "Your password for " + addr, "Alias " + addr + " added"} {
		r := commands.Reply{Title: title, Text: "x", Fields: []commands.Field{{Label: "Mailbox", Value: addr}}}
		if problems := renderProblems(r); len(problems) > 0 {
			t.Fatalf("over Slack's limits:\n%s", strings.Join(problems, "\n"))
		}
		if blocks := mustJSONString(replyBlocks(r)); !strings.Contains(blocks, jsonString("*"+title+"*")) {
			t.Errorf("title %q… is cut", title[:30])
		}
	}
	long := strings.Repeat("word ", 1000)
	if blocks := mustJSONString(replyBlocks(commands.Reply{Title: long})); strings.Contains(blocks, strings.Repeat("word ", 200)) {
		t.Error("a title of 5000 characters of free text is not cut")
	}
}

// BenchmarkResponseBody encodes a reply as its response_url post's body.
func BenchmarkResponseBody(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := responseBody(benchReply, true); err != nil {
			b.Fatal(err)
		}
	}
}

// TestResponseBodyIsWebhookMessage: the body of a response_url post is,
// byte for byte, slack-go's WebhookMessage of the same reply, for random
// replies, some huge.
func TestResponseBodyIsWebhookMessage(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 50 {
		r, replace := randomReply(rng), i%2 == 0
		got, err := responseBody(r, replace)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(&slack.WebhookMessage{ResponseType: slack.ResponseTypeEphemeral, ReplaceOriginal: replace,
			Text: fallbackText(r), Blocks: &slack.Blocks{BlockSet: replyBlocks(r)}})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("reply %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestRenderAllocations bounds the allocations of a reply's rendering: the
// acknowledgement's payload and the response_url body of an add reply
// (47 and 51 allocations before blocks that fit were no longer copied, a
// mention no longer built apart, lines appended in place, the blocks
// encoded by hand and the plain text written into one buffer).
func TestRenderAllocations(t *testing.T) {
	for _, tc := range []struct {
		name   string
		max    float64
		render func()
	}{
		{"payload", 23, func() { _ = ephemeralPayload(benchReply) }},
		{"response_url body", 24, func() {
			if _, err := responseBody(benchReply, true); err != nil {
				t.Fatal(err)
			}
		}},
		{"escape of a notice", 1, func() { _ = escape(escapeBenchInputs["notice"]) }},
	} {
		if n := testing.AllocsPerRun(100, tc.render); n > tc.max {
			t.Errorf("%s: %.0f allocations, want at most %.0f", tc.name, n, tc.max)
		}
	}
}

// TestFallbackWholeAsLines: the plain text written whole into one buffer
// is its lines joined by newlines, as fallbackText joined them, and is
// taken exactly when that fits, for random replies, some huge.
func TestFallbackWholeAsLines(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 300 {
		r := randomReply(rng)
		if i%2 == 0 {
			r = nastyReply(rng)
		}
		lines := []string{escape(r.Title)}
		if r.Text != "" {
			lines = append(lines, escape(r.Text))
		}
		lines = stepLines(fieldLines(lines, r.Fields, false), r.Steps)
		if r.Note != "" {
			lines = append(lines, escape(r.Note))
		}
		joined := strings.Join(lines, "\n")
		whole, ok := fallbackWhole(r)
		if whole != joined {
			t.Fatalf("reply %d: written whole %q, joined %q", i, whole, joined)
		}
		if fits := textLen(joined) <= maxFallbackText; ok != fits {
			t.Fatalf("reply %d: whole taken %v, fits %v", i, ok, fits)
		}
		if ok && fallbackText(r) != joined {
			t.Fatalf("reply %d: fallbackText differs from its whole text", i)
		}
	}
}
