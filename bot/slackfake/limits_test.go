package slackfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
)

// blocksJSON decodes a blocks array written in JSON.
func blocksJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

func repeatBlocks(n int, block string) string {
	return "[" + strings.TrimSuffix(strings.Repeat(block+",", n), ",") + "]"
}

func txt(typ string, n int) string {
	return fmt.Sprintf(`{"type":%q,"text":%q}`, typ, strings.Repeat("é", n)) // é: runes, not bytes
}

func button(textLen, valueLen int) string {
	return fmt.Sprintf(`{"type":"button","action_id":"a","text":%s,"value":%q}`, txt("plain_text", textLen), strings.Repeat("v", valueLen))
}

// buttons returns n buttons with distinct action_ids.
func buttons(n int) []string {
	var out []string
	for i := range n {
		out = append(out, strings.Replace(button(1, 1), `"action_id":"a"`, fmt.Sprintf(`"action_id":"a%d"`, i), 1))
	}
	return out
}

func selectWith(n, textLen, valueLen int) string {
	var opts []string
	for i := range n {
		opts = append(opts, fmt.Sprintf(`{"text":%s,"value":"%03d%s"}`, txt("plain_text", textLen), i, strings.Repeat("v", valueLen-3)))
	}
	return `{"type":"static_select","action_id":"s","options":[` + strings.Join(opts, ",") + `]}`
}

func TestMessageLimits(t *testing.T) {
	sec := func(n int) string { return `{"type":"section","text":` + txt("mrkdwn", n) + `}` }
	fields := func(count, n int) string {
		return `{"type":"section","fields":[` + strings.TrimSuffix(strings.Repeat(txt("mrkdwn", n)+",", count), ",") + `]}`
	}
	actions := func(els ...string) string { return `{"type":"actions","elements":[` + strings.Join(els, ",") + `]}` }
	cases := []struct {
		name   string
		blocks string
		ok     bool
	}{
		{"50 blocks", repeatBlocks(50, `{"type":"divider"}`), true},
		{"51 blocks", repeatBlocks(51, `{"type":"divider"}`), false},
		{"section text 3000", "[" + sec(3000) + "]", true},
		{"section text 3001", "[" + sec(3001) + "]", false},
		{"empty section text", "[" + sec(0) + "]", false},
		{"10 fields of 2000", "[" + fields(10, 2000) + "]", true},
		{"11 fields", "[" + fields(11, 1) + "]", false},
		{"field of 2001", "[" + fields(1, 2001) + "]", false},
		{"header 150", `[{"type":"header","text":` + txt("plain_text", 150) + `}]`, true},
		{"header 151", `[{"type":"header","text":` + txt("plain_text", 151) + `}]`, false},
		{"header in mrkdwn", `[{"type":"header","text":` + txt("mrkdwn", 5) + `}]`, false},
		{"context of 10", `[{"type":"context","elements":[` + strings.TrimSuffix(strings.Repeat(txt("mrkdwn", 3)+",", 10), ",") + `]}]`, true},
		{"context of 11", `[{"type":"context","elements":[` + strings.TrimSuffix(strings.Repeat(txt("mrkdwn", 3)+",", 11), ",") + `]}]`, false},
		{"button 75 / 2000", "[" + actions(button(75, 2000)) + "]", true},
		{"button text 76", "[" + actions(button(76, 1)) + "]", false},
		{"button value 2001", "[" + actions(button(1, 2001)) + "]", false},
		{"25 elements", "[" + actions(buttons(25)...) + "]", true},
		{"26 elements", "[" + actions(buttons(26)...) + "]", false},
		{"duplicate action_id", "[" + actions(button(1, 1), button(1, 1)) + "]", false},
		{"action_id 256", `[{"type":"actions","elements":[{"type":"button","text":` + txt("plain_text", 1) + `,"action_id":"` + strings.Repeat("a", 256) + `"}]}]`, false},
		{"block_id 255", `[{"type":"divider","block_id":"` + strings.Repeat("b", 255) + `"}]`, true},
		{"block_id 256", `[{"type":"divider","block_id":"` + strings.Repeat("b", 256) + `"}]`, false},
		{"duplicate block_id", `[{"type":"divider","block_id":"x"},{"type":"divider","block_id":"x"}]`, false},
		{"100 options of 75/150", "[" + actions(selectWith(100, 75, 150)) + "]", true},
		{"101 options", "[" + actions(selectWith(101, 1, 3)) + "]", false},
		{"option text 76", "[" + actions(selectWith(1, 76, 3)) + "]", false},
		{"option value 151", "[" + actions(selectWith(1, 1, 151)) + "]", false},
		{"unknown block type", `[{"type":"sectoin"}]`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, problems := checkMessage("fallback", blocksJSON(t, tc.blocks))
			if (code == "") != tc.ok {
				t.Errorf("code %q, problems %v; want accepted=%v", code, problems, tc.ok)
			}
		})
	}
	if code, _ := checkMessage(strings.Repeat("x", 40001), nil); code != "msg_too_long" {
		t.Errorf("40001 characters of text: %q", code)
	}
	if code, _ := checkMessage(strings.Repeat("x", 40000), nil); code != "" {
		t.Errorf("40000 characters of text: %q", code)
	}
}

func TestViewLimits(t *testing.T) {
	input := func(label int, el string) string {
		return `{"type":"input","block_id":"i","label":` + txt("plain_text", label) + `,"element":` + el + `}`
	}
	textInput := func(maxLen, initial int) string {
		return fmt.Sprintf(`{"type":"plain_text_input","action_id":"t","max_length":%d,"initial_value":%q}`, maxLen, strings.Repeat("x", initial))
	}
	modal := func(title int, extra string, blocks ...string) string {
		return `{"type":"modal","title":` + txt("plain_text", title) + `,"submit":` + txt("plain_text", 24) + extra + `,"blocks":[` + strings.Join(blocks, ",") + `]}`
	}
	cases := []struct {
		name, view, kind string
		ok               bool
	}{
		{"title 24", modal(24, ""), "modal", true},
		{"title 25", modal(25, ""), "modal", false},
		{"close 25", modal(5, `,"close":`+txt("plain_text", 25)), "modal", false},
		{"private_metadata 3000", modal(5, fmt.Sprintf(`,"private_metadata":%q`, strings.Repeat("m", 3000))), "modal", true},
		{"private_metadata 3001", modal(5, fmt.Sprintf(`,"private_metadata":%q`, strings.Repeat("m", 3001))), "modal", false},
		{"callback_id 256", modal(5, fmt.Sprintf(`,"callback_id":%q`, strings.Repeat("c", 256))), "modal", false},
		{"label 2000", modal(5, "", input(2000, textInput(10, 10))), "modal", true},
		{"label 2001", modal(5, "", input(2001, textInput(10, 0))), "modal", false},
		{"initial value over max_length", modal(5, "", input(5, textInput(10, 11))), "modal", false},
		{"input without submit", `{"type":"modal","title":` + txt("plain_text", 5) + `,"blocks":[` + input(5, textInput(10, 0)) + `]}`, "modal", false},
		{"initial_option not an option", modal(5, "", input(5, `{"type":"static_select","action_id":"s","options":[{"text":`+txt("plain_text", 1)+`,"value":"a"}],"initial_option":{"text":`+txt("plain_text", 1)+`,"value":"b"}}`)), "modal", false},
		{"100 blocks home", `{"type":"home","blocks":` + repeatBlocks(100, `{"type":"divider"}`) + `}`, "home", true},
		{"101 blocks home", `{"type":"home","blocks":` + repeatBlocks(101, `{"type":"divider"}`) + `}`, "home", false},
		{"modal published as home", modal(5, ""), "home", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, _ := blocksJSON(t, tc.view).(map[string]any)
			if problems := checkView(v, tc.kind); (len(problems) == 0) != tc.ok {
				t.Errorf("problems %v; want accepted=%v", problems, tc.ok)
			}
		})
	}
}

// TestSlackRefusesWhatSlackRefuses drives each refusal through slack-go.
func TestSlackRefusesWhatSlackRefuses(t *testing.T) {
	f := newFake(t)
	api := newAPI(f)
	long := section(strings.Repeat("x", 3001))
	if _, _, err := api.PostMessage("C1", slack.MsgOptionBlocks(long)); err == nil || err.Error() != "invalid_blocks" {
		t.Errorf("postMessage: %v", err)
	}
	if _, err := api.PostEphemeral("C1", "U1", slack.MsgOptionBlocks(long)); err == nil || err.Error() != "invalid_blocks" {
		t.Errorf("postEphemeral: %v", err)
	}
	_, ts := must2(t)(api.PostMessage("C1", slack.MsgOptionText("ok", false)))
	if _, _, _, err := api.UpdateMessage("C1", ts, slack.MsgOptionBlocks(long)); err == nil || err.Error() != "invalid_blocks" {
		t.Errorf("update: %v", err)
	}
	if _, _, err := api.PostMessage("C1", slack.MsgOptionText(strings.Repeat("x", 40001), false)); err == nil || err.Error() != "msg_too_long" {
		t.Errorf("long text: %v", err)
	}
	var blocks []slack.Block
	for range 51 {
		blocks = append(blocks, slack.NewDividerBlock())
	}
	var code slack.StatusCodeError
	err := slack.PostWebhook(f.ResponseURL("r"), &slack.WebhookMessage{Blocks: &slack.Blocks{BlockSet: blocks}})
	if !errors.As(err, &code) || code.Code != http.StatusBadRequest {
		t.Errorf("response_url: %v", err)
	}
	if _, err := api.PublishView("U1", slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: append(blocks, blocks...)}}, ""); err == nil || err.Error() != "invalid_arguments" {
		t.Errorf("publish: %v", err)
	}
	if got := len(f.Rejected()); got != 6 {
		t.Errorf("%d rejections recorded, want 6: %+v", got, f.Rejected())
	}
	if len(f.Messages("C1")) != 1 || len(f.Posts("r")) != 0 {
		t.Error("a refused message was kept")
	}
}

func TestRefusedModalAndAck(t *testing.T) {
	f := newFake(t)
	r := startReplica(t, f, 1, func(socketmode.Event) (bool, any) {
		return true, map[string]any{"blocks": []any{map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": strings.Repeat("y", 3001)}}}}
	})
	id := must[string](t)(f.SlashCommand("U1", "C1", "/mailbox", ""))
	cmd := r.next(t).Data.(slack.SlashCommand)
	must[Ack](t)(f.Socket.WaitAck(id, wait))
	bad := form()
	bad.Title = plain(strings.Repeat("t", 25))
	if _, err := newAPI(f).OpenView(cmd.TriggerID, bad); err == nil || err.Error() != "invalid_arguments" {
		t.Errorf("views.open of a long title: %v", err)
	}
	if _, err := newAPI(f).OpenView(cmd.TriggerID, form()); err != nil {
		t.Errorf("the trigger was spent by a refused view: %v", err)
	}
	rej := f.Rejected()
	if len(rej) != 2 || rej[0].Method != "ack" || rej[1].Method != "views.open" || rej[1].Error != "invalid_arguments" {
		t.Errorf("rejections %+v", rej)
	}
}

func FuzzCheckMessage(f *testing.F) {
	f.Add(`[{"type":"section","text":{"type":"mrkdwn","text":"hi"}}]`)
	f.Fuzz(func(t *testing.T, raw string) {
		var blocks any
		if json.Unmarshal([]byte(raw), &blocks) != nil {
			return
		}
		code, problems := checkMessage("", blocks)
		if (code == "") != (len(problems) == 0) {
			t.Fatalf("code %q with problems %v", code, problems)
		}
		if list, ok := blocks.([]any); code == "" && blocks != nil && (!ok || len(list) > maxMessageBlocks) {
			t.Fatalf("accepted %s", raw)
		}
		var v map[string]any
		_ = json.Unmarshal([]byte(raw), &v)
		_ = checkView(v, "")
	})
}
