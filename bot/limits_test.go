package bot

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"
)

func TestFitTextLimit(t *testing.T) {
	t.Parallel()
	x := func(n int) string { return strings.Repeat("x", n) }
	for _, tc := range []struct {
		name, in string
		max      int
		want     string
	}{
		{"under", "abc", 10, "abc"},
		{"at the limit", x(3000), 3000, x(3000)},
		{"one over", x(3001), 3000, x(2999) + "…"},
		{"multi-byte at the limit", strings.Repeat("ж", 150), 150, strings.Repeat("ж", 150)},
		{"multi-byte over", strings.Repeat("ж", 151), 150, strings.Repeat("ж", 149) + "…"},
		{"astral counts twice", strings.Repeat("😀", 40), 75, strings.Repeat("😀", 37) + "…"},
		{"entity at the cut", x(2997) + "&amp;yyy", 3000, x(2997) + "…"},
		{"entity before the cut", x(2994) + "&amp;yyy", 3000, x(2994) + "&amp;…"},
		{"lt at the cut", x(2997) + "&lt;yy", 3000, x(2997) + "…"},
		{"mention at the cut", x(2990) + "<@U12345678> zz", 3000, x(2990) + "…"},
		{"group mention at the cut", x(2980) + "<!subteam^S0614TZR7> zz", 3000, x(2980) + "…"},
		{"channel at the cut", x(2995) + "<#C123> zz", 3000, x(2995) + "…"},
		{"whole mention kept", x(2980) + "<@U1> " + x(30), 3000, x(2980) + "<@U1> " + x(13) + "…"},
		{"code span at the cut", "*Password:* `" + x(100) + "` done", 50, "*Password:*…"},
		{"code block at the cut", "a ```" + x(100) + "```", 50, "a…"},
		{"closed code span kept", "`ab` " + x(100), 10, "`ab` xxxx…"},
		{"combining mark kept with its base", x(7) + "e\u0301zz", 9, x(7) + "…"},
		{"flag not split", x(7) + "\U0001F1EB\U0001F1F7zz", 10, x(7) + "…"},
		{"skin tone kept", x(7) + "\U0001F44D\U0001F3FDzz", 10, x(7) + "…"},
		{"ZWJ sequence not split at the joiner", x(6) + "\U0001F469\u200D\U0001F4BBzz", 10, x(6) + "…"},
		{"space before the ellipsis trimmed", x(5) + "   yyyy", 8, x(5) + "…"},
		{"max 1", "abc", 1, "…"},
		{"max 0", "abc", 0, ""},
		{"invalid UTF-8 counts one", "\xff\xff\xff", 2, "\xff…"},
	} {
		got := fitText(tc.in, tc.max)
		if got != tc.want {
			t.Errorf("%s: fitText(…, %d) = %q, want %q", tc.name, tc.max, got, tc.want)
		}
		if n := len(utf16.Encode([]rune(got))); n > tc.max {
			t.Errorf("%s: %d UTF-16 units, over %d", tc.name, n, tc.max)
		}
	}
}

func TestFitBlocksLimitCount(t *testing.T) {
	t.Parallel()
	sections := func(n int) []slack.Block {
		bs := make([]slack.Block, n)
		for i := range bs {
			bs[i] = section(fmt.Sprintf("part %d", i))
		}
		return bs
	}
	for _, tc := range []struct {
		n, max, wantLen int
		wantMore        string
	}{
		{50, maxMessageBlocks, 50, ""},
		{51, maxMessageBlocks, 50, "… 2 more not shown"},
		{80, maxMessageBlocks, 50, "… 31 more not shown"},
		{100, maxViewBlocks, 100, ""},
		{101, maxViewBlocks, 100, "… 2 more not shown"},
	} {
		got := fitBlocks(sections(tc.n), tc.max)
		if len(got) != tc.wantLen {
			t.Errorf("%d blocks, max %d: got %d blocks, want %d", tc.n, tc.max, len(got), tc.wantLen)
			continue
		}
		last, _ := got[len(got)-1].(*slack.ContextBlock)
		switch {
		case tc.wantMore == "" && last != nil:
			t.Errorf("%d blocks, max %d: ends with a context block", tc.n, tc.max)
		case tc.wantMore != "" && (last == nil || contextString(last) != tc.wantMore):
			t.Errorf("%d blocks, max %d: last block %#v, want %q", tc.n, tc.max, got[len(got)-1], tc.wantMore)
		}
	}
}

func contextString(b *slack.ContextBlock) string {
	var parts []string
	for _, e := range b.ContextElements.Elements {
		if t, ok := e.(*slack.TextBlockObject); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}

func TestFitBlocksLimitTotalText(t *testing.T) {
	t.Parallel()
	blocks := []slack.Block{section(strings.Repeat("a", 3000)), section(strings.Repeat("b", 3000)), section(strings.Repeat("c", 3000)),
		section(strings.Repeat("d", 3000)), section(strings.Repeat("e", 3000))}
	got := fitBlocks(blocks, maxMessageBlocks)
	if len(got) != 4 || contextString(got[3].(*slack.ContextBlock)) != "… 2 more not shown" {
		t.Fatalf("5 full sections in a message: got %d blocks, want 3 and a context block", len(got))
	}
	if got := fitBlocks(blocks, maxViewBlocks); len(got) != 5 {
		t.Errorf("5 full sections in a view: got %d blocks, want 5 (no total for views)", len(got))
	}
	if got := fitBlocks(blocks[:4], maxMessageBlocks); len(got) != 4 {
		t.Errorf("4 full sections (12000 characters) in a message: got %d blocks, want 4", len(got))
	}
}

func TestFitBlocksLimitEachBlock(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("y", 5000)
	fields := make([]*slack.TextBlockObject, 25)
	for i := range fields {
		fields[i] = slack.NewTextBlockObject(slack.MarkdownType, long, false, false)
	}
	elements := make([]slack.MixedElement, 15)
	for i := range elements {
		elements[i] = slack.NewTextBlockObject(slack.MarkdownType, long, false, false)
	}
	btn := slack.NewButtonBlockElement("approve", strings.Repeat("v", maxButtonValue), slack.NewTextBlockObject(slack.PlainTextType, long, false, false))
	btn.Confirm = slack.NewConfirmationBlockObject(plain(long), plain(long), plain(long), plain(long))
	in := []slack.Block{
		slack.NewHeaderBlock(plain(long)),
		slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, long, false, false), fields, slack.NewAccessory(btn)),
		slack.NewContextBlock("", elements...),
		slack.NewActionBlock("actions", btn),
		slack.NewInputBlock("in", plain(long), plain(long), slack.NewPlainTextInputBlockElement(nil, "v")),
	}
	before := mustJSON(t, in)
	got := fitBlocks(in, maxViewBlocks)
	if after := mustJSON(t, in); after != before {
		t.Fatalf("fitBlocks modified the blocks it was given")
	}
	if problems := blockProblems(got, maxViewBlocks); len(problems) > 0 {
		t.Fatalf("fitted blocks are over Slack's limits:\n%s", strings.Join(problems, "\n"))
	}
	var nFields []int
	for _, b := range got {
		if s, ok := b.(*slack.SectionBlock); ok {
			nFields = append(nFields, len(s.Fields))
		}
	}
	if diff := cmp.Diff([]int{10, 10, 5}, nFields); diff != "" {
		t.Errorf("25 fields: sections' fields (-want +got):\n%s", diff)
	}
	if ctx := got[4].(*slack.ContextBlock); len(ctx.ContextElements.Elements) != 10 || !strings.HasSuffix(contextString(ctx), "… 6 more not shown") {
		t.Errorf("15 context elements: got %d, ending %q", len(ctx.ContextElements.Elements), contextString(ctx)[len(contextString(ctx))-30:])
	}
	if v := got[5].(*slack.ActionBlock).Elements.ElementSet[0].(*slack.ButtonBlockElement).Value; v != btn.Value {
		t.Errorf("button value changed")
	}
	if err := checkUncuttable(got); err != nil {
		t.Errorf("checkUncuttable with a value at the limit: %v", err)
	}
}

func plain(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, s, false, false)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(j)
}

func TestCheckUncuttableLimit(t *testing.T) {
	t.Parallel()
	over := slack.NewButtonBlockElement("approve", strings.Repeat("v", maxButtonValue+1), plain("Approve"))
	blocks := []slack.Block{slack.NewActionBlock("a", over)}
	got := fitBlocks(blocks, maxMessageBlocks)
	if v := got[0].(*slack.ActionBlock).Elements.ElementSet[0].(*slack.ButtonBlockElement).Value; v != over.Value {
		t.Fatalf("a value over the limit was changed to %d characters", len(v))
	}
	if err := checkUncuttable(got); err == nil || !strings.Contains(err.Error(), "2001") {
		t.Errorf("checkUncuttable = %v, want an error naming the length", err)
	}
	accessory := []slack.Block{slack.NewSectionBlock(plain("x"), nil, slack.NewAccessory(over))}
	if err := checkUncuttable(accessory); err == nil {
		t.Errorf("checkUncuttable(accessory over the limit) = nil")
	}
	many := make([]slack.BlockElement, maxActionElements+1)
	for i := range many {
		many[i] = slack.NewButtonBlockElement(fmt.Sprint("b", i), "v", plain("b"))
	}
	if err := checkUncuttable([]slack.Block{slack.NewActionBlock("a", many...)}); err == nil {
		t.Errorf("checkUncuttable(26 buttons) = nil")
	}
}

func TestFitModalLimit(t *testing.T) {
	t.Parallel()
	v := slack.ModalViewRequest{Type: slack.VTModal, Title: plain("Register a domain for the team"), Submit: plain(strings.Repeat("s", 30)),
		Close: plain("Cancel"), PrivateMetadata: strings.Repeat("m", maxPrivateMetadata)}
	got, err := fitModal(v)
	if err != nil {
		t.Fatalf("fitModal, metadata at the limit: %v", err)
	}
	if got.Title.Text != "Register a domain for t…" || len(got.Submit.Text) > maxViewTitle+2 || got.Close.Text != "Cancel" || got.PrivateMetadata != v.PrivateMetadata {
		t.Errorf("fitModal = title %q, submit %q, close %q", got.Title.Text, got.Submit.Text, got.Close.Text)
	}
	v.PrivateMetadata += "m"
	if got, err := fitModal(v); err == nil || got.PrivateMetadata != v.PrivateMetadata {
		t.Errorf("fitModal, metadata over the limit: err %v, metadata cut: %v", err, got.PrivateMetadata != v.PrivateMetadata)
	}
}

// blockProblems checks blocks against Block Kit's limits as Slack
// documents them, counting characters as UTF-16 units (which is never
// less than Slack's count) and refusing text that ends inside Slack's
// markup.
func blockProblems(blocks []slack.Block, maxBlocks int) []string {
	var c limitChecker
	var raw []map[string]any
	j, err := json.Marshal(blocks)
	if err == nil {
		err = json.Unmarshal(j, &raw)
	}
	if err != nil {
		return []string{err.Error()}
	}
	if len(raw) > maxBlocks {
		c.add("blocks", "%d blocks, over %d", len(raw), maxBlocks)
	}
	for i, b := range raw {
		c.block(fmt.Sprintf("block %d", i), b)
	}
	return c.problems
}

type limitChecker struct{ problems []string }

func (c *limitChecker) add(where, format string, args ...any) {
	c.problems = append(c.problems, where+": "+fmt.Sprintf(format, args...))
}

func (c *limitChecker) block(where string, b map[string]any) {
	switch b["type"] {
	case "section":
		c.text(where+" text", b["text"], 3000)
		fields, _ := b["fields"].([]any)
		if len(fields) > 10 {
			c.add(where, "%d fields, over 10", len(fields))
		}
		for i, f := range fields {
			c.text(fmt.Sprintf("%s field %d", where, i), f, 2000)
		}
		if a, ok := b["accessory"].(map[string]any); ok {
			c.element(where+" accessory", a)
		}
	case "header":
		c.text(where+" text", b["text"], 150)
	case "context":
		els, _ := b["elements"].([]any)
		if len(els) > 10 {
			c.add(where, "%d elements, over 10", len(els))
		}
		for i, e := range els {
			c.text(fmt.Sprintf("%s element %d", where, i), e, 2000)
		}
	case "actions":
		els, _ := b["elements"].([]any)
		if len(els) > 25 {
			c.add(where, "%d elements, over 25", len(els))
		}
		for i, e := range els {
			c.element(fmt.Sprintf("%s element %d", where, i), e.(map[string]any))
		}
	case "input":
		c.text(where+" label", b["label"], 2000)
		c.text(where+" hint", b["hint"], 2000)
	}
}

func (c *limitChecker) element(where string, e map[string]any) {
	if e["type"] != "button" {
		return
	}
	c.text(where+" text", e["text"], 75)
	if v, _ := e["value"].(string); utf16Len(v) > 2000 {
		c.add(where, "value of %d, over 2000", utf16Len(v))
	}
	if conf, ok := e["confirm"].(map[string]any); ok {
		c.text(where+" confirm title", conf["title"], 100)
		c.text(where+" confirm text", conf["text"], 300)
		c.text(where+" confirm confirm", conf["confirm"], 30)
		c.text(where+" confirm deny", conf["deny"], 30)
	}
}

// text checks a text object: present text is not empty, within max, valid
// UTF-8, and its mrkdwn is not cut inside an entity or a <…> sequence.
func (c *limitChecker) text(where string, v any, max int) {
	t, ok := v.(map[string]any)
	if !ok {
		return
	}
	s, _ := t["text"].(string)
	switch {
	case s == "":
		c.add(where, "empty text")
	case utf16Len(s) > max:
		c.add(where, "%d characters, over %d", utf16Len(s), max)
	case !utf8.ValidString(s):
		c.add(where, "invalid UTF-8")
	}
	if t["type"] == "mrkdwn" {
		if p := markupProblem(s); p != "" {
			c.add(where, "%s in %q", p, s)
		}
	}
}

func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }

// markupProblem finds Slack markup that a cut broke: an "&" that does not
// start an entity, or a "<" without its ">".
func markupProblem(s string) string {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '&':
			t := s[i:]
			if !strings.HasPrefix(t, "&amp;") && !strings.HasPrefix(t, "&lt;") && !strings.HasPrefix(t, "&gt;") {
				return fmt.Sprintf("a bare & at %d", i)
			}
		case '<':
			if j := strings.IndexAny(s[i+1:], "<>"); j < 0 || s[i+1+j] != '>' {
				return fmt.Sprintf("an unclosed < at %d", i)
			}
		case '>':
			if !strings.Contains(s[:i], "<") {
				return fmt.Sprintf("a bare > at %d", i)
			}
		}
	}
	return ""
}
