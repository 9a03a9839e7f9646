package slackfake

import (
	"fmt"
	"unicode/utf8"
)

// Block Kit's limits, as Slack enforces them (characters are counted as
// runes).
const (
	maxMessageText    = 40000 // chat.* top-level text: msg_too_long beyond
	maxMessageBlocks  = 50
	maxViewBlocks     = 100 // modal or Home tab
	maxSectionText    = 3000
	maxSectionFields  = 10
	maxFieldText      = 2000
	maxHeaderText     = 150
	maxContextItems   = 10
	maxActionsItems   = 25
	maxButtonText     = 75
	maxButtonValue    = 2000
	maxURL            = 3000
	maxID             = 255 // action_id, block_id, callback_id, external_id
	maxViewTitle      = 24  // title, submit, close
	maxPrivateMeta    = 3000
	maxLabel          = 2000 // input label and hint
	maxPlaceholder    = 150
	maxInputLength    = 3000
	maxSelectOptions  = 100
	maxOptionText     = 75
	maxOptionValue    = 150
	maxConfirmTitle   = 100
	maxConfirmText    = 300
	maxConfirmButtons = 30
)

// checker collects what Slack would object to, each problem with the
// JSON pointer of the offending field, as Slack reports them.
type checker struct{ problems []string }

func (c *checker) add(path, format string, args ...any) {
	c.problems = append(c.problems, path+": "+fmt.Sprintf(format, args...))
}

func (c *checker) maxLen(path, s string, limit int) {
	if n := utf8.RuneCountInString(s); n > limit {
		c.add(path, "must be at most %d characters, is %d", limit, n)
	}
}

// optString checks an optional string field's length.
func (c *checker) optString(path string, v any, limit int) {
	if v == nil {
		return
	}
	s, ok := v.(string)
	if !ok {
		c.add(path, "must be a string")
		return
	}
	c.maxLen(path, s, limit)
}

// text checks a text object: its type, and a text of 1 to limit characters.
func (c *checker) text(path string, v any, limit int, plainOnly bool) {
	t, ok := v.(map[string]any)
	if !ok {
		c.add(path, "must be a text object")
		return
	}
	switch typ, _ := t["type"].(string); {
	case typ == "plain_text", typ == "mrkdwn" && !plainOnly:
	case plainOnly:
		c.add(path+"/type", "must be plain_text, is %q", typ)
	default:
		c.add(path+"/type", "must be plain_text or mrkdwn, is %q", typ)
	}
	s, _ := t["text"].(string)
	if s == "" {
		c.add(path+"/text", "must be more than 0 characters")
		return
	}
	c.maxLen(path+"/text", s, limit)
}

// optText checks a text object that may be absent.
func (c *checker) optText(path string, v any, limit int, plainOnly bool) {
	if v != nil {
		c.text(path, v, limit, plainOnly)
	}
}

// list returns v as a list of objects of 1 to limit items.
func (c *checker) list(path string, v any, limit int, what string) []map[string]any {
	items, ok := v.([]any)
	if !ok {
		c.add(path, "must be an array of %s", what)
		return nil
	}
	if len(items) == 0 {
		c.add(path, "must have at least 1 %s", what)
	}
	if len(items) > limit {
		c.add(path, "must have at most %d %s, has %d", limit, what, len(items))
	}
	var out []map[string]any
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			c.add(fmt.Sprintf("%s/%d", path, i), "must be an object")
			continue
		}
		out = append(out, m)
	}
	return out
}

// blocks checks a blocks array of at most limit blocks.
func (c *checker) blocks(path string, v any, limit int) {
	items, ok := v.([]any)
	if !ok {
		c.add(path, "must be an array of blocks")
		return
	}
	if len(items) > limit {
		c.add(path, "must have at most %d blocks, has %d", limit, len(items))
	}
	seen := map[string]bool{}
	for i, it := range items {
		p := fmt.Sprintf("%s/%d", path, i)
		b, ok := it.(map[string]any)
		if !ok {
			c.add(p, "must be a block object")
			continue
		}
		if id, ok := b["block_id"].(string); ok {
			c.maxLen(p+"/block_id", id, maxID)
			if seen[id] {
				c.add(p+"/block_id", "duplicate block_id %q", id)
			}
			seen[id] = true
		}
		c.block(p, b)
	}
}

func (c *checker) block(p string, b map[string]any) {
	switch typ, _ := b["type"].(string); typ {
	case "section":
		c.section(p, b)
	case "header":
		c.text(p+"/text", b["text"], maxHeaderText, true)
	case "context":
		for i, e := range c.list(p+"/elements", b["elements"], maxContextItems, "element") {
			if e["type"] != "image" {
				c.text(fmt.Sprintf("%s/elements/%d", p, i), e, maxSectionText, false)
			}
		}
	case "actions":
		c.elements(p+"/elements", c.list(p+"/elements", b["elements"], maxActionsItems, "element"))
	case "input":
		c.text(p+"/label", b["label"], maxLabel, true)
		c.optText(p+"/hint", b["hint"], maxLabel, true)
		if el, ok := b["element"].(map[string]any); ok {
			c.element(p+"/element", el)
		} else {
			c.add(p+"/element", "is required")
		}
	case "divider", "image", "rich_text", "markdown", "file", "video", "table", "context_actions":
	default:
		c.add(p+"/type", "unknown block type %q", typ)
	}
}

func (c *checker) section(p string, b map[string]any) {
	if b["text"] == nil && b["fields"] == nil {
		c.add(p, "must have text or fields")
	}
	c.optText(p+"/text", b["text"], maxSectionText, false)
	if b["fields"] != nil {
		for i, f := range c.list(p+"/fields", b["fields"], maxSectionFields, "field") {
			c.text(fmt.Sprintf("%s/fields/%d", p, i), f, maxFieldText, false)
		}
	}
	if acc, ok := b["accessory"].(map[string]any); ok {
		c.element(p+"/accessory", acc)
	}
}

// elements checks the elements of an actions block: each, and that their
// action_ids are unique in the block.
func (c *checker) elements(p string, els []map[string]any) {
	seen := map[string]bool{}
	for i, e := range els {
		ep := fmt.Sprintf("%s/%d", p, i)
		if id, ok := e["action_id"].(string); ok {
			if seen[id] {
				c.add(ep+"/action_id", "duplicate action_id %q", id)
			}
			seen[id] = true
		}
		c.element(ep, e)
	}
}

func (c *checker) element(p string, e map[string]any) {
	c.optString(p+"/action_id", e["action_id"], maxID)
	c.optText(p+"/placeholder", e["placeholder"], maxPlaceholder, true)
	switch e["type"] {
	case "button":
		c.text(p+"/text", e["text"], maxButtonText, true)
		c.optString(p+"/value", e["value"], maxButtonValue)
		c.optString(p+"/url", e["url"], maxURL)
	case "static_select", "multi_static_select":
		c.selectMenu(p, e)
	case "overflow":
		for i, o := range c.list(p+"/options", e["options"], 5, "option") {
			c.option(fmt.Sprintf("%s/options/%d", p, i), o)
		}
	case "plain_text_input":
		c.textInput(p, e)
	case "file_input":
		if n, ok := e["max_files"].(float64); ok && (n < 1 || n > 10) {
			c.add(p+"/max_files", "must be 1 to 10, got %v", n)
		}
	}
	if cf, ok := e["confirm"].(map[string]any); ok {
		c.text(p+"/confirm/title", cf["title"], maxConfirmTitle, true)
		c.text(p+"/confirm/text", cf["text"], maxConfirmText, false)
		c.text(p+"/confirm/confirm", cf["confirm"], maxConfirmButtons, true)
		c.text(p+"/confirm/deny", cf["deny"], maxConfirmButtons, true)
	}
}

func (c *checker) selectMenu(p string, e map[string]any) {
	if e["options"] == nil {
		if e["option_groups"] == nil {
			c.add(p, "must have options or option_groups")
		}
		return
	}
	opts := c.list(p+"/options", e["options"], maxSelectOptions, "option")
	for i, o := range opts {
		c.option(fmt.Sprintf("%s/options/%d", p, i), o)
	}
	if io, ok := e["initial_option"].(map[string]any); ok && findOption(opts, io["value"]) == nil {
		c.add(p+"/initial_option", "must match one of the options")
	}
}

// findOption returns the option whose value is value, or nil.
func findOption(opts []map[string]any, value any) map[string]any {
	for _, o := range opts {
		if o["value"] == value {
			return o
		}
	}
	return nil
}

func (c *checker) option(p string, o map[string]any) {
	c.text(p+"/text", o["text"], maxOptionText, true)
	v, _ := o["value"].(string)
	if v == "" {
		c.add(p+"/value", "must be more than 0 characters")
	}
	c.maxLen(p+"/value", v, maxOptionValue)
	c.optText(p+"/description", o["description"], maxOptionText, true)
}

func (c *checker) textInput(p string, e map[string]any) {
	maxLen, hasMax := e["max_length"].(float64)
	if hasMax && (maxLen < 1 || maxLen > maxInputLength) {
		c.add(p+"/max_length", "must be between 1 and %d", maxInputLength)
	}
	if minLen, ok := e["min_length"].(float64); ok && (minLen < 0 || minLen > maxInputLength) {
		c.add(p+"/min_length", "must be between 0 and %d", maxInputLength)
	}
	if iv, ok := e["initial_value"].(string); ok && hasMax {
		c.maxLen(p+"/initial_value", iv, int(maxLen))
	}
}

// checkMessage returns Slack's error code for a chat.* message or a
// response_url post, and the problems; "" when Slack accepts it.
func checkMessage(text string, blocks any) (string, []string) {
	if n := utf8.RuneCountInString(text); n > maxMessageText {
		return "msg_too_long", []string{fmt.Sprintf("/text: must be at most %d characters, is %d", maxMessageText, n)}
	}
	if blocks == nil {
		return "", nil
	}
	c := &checker{}
	c.blocks("/blocks", blocks, maxMessageBlocks)
	if len(c.problems) > 0 {
		return "invalid_blocks", c.problems
	}
	return "", nil
}

// checkView returns the problems of a modal or Home tab view; kind is the
// type the method needs ("modal", "home", or "" for either).
func checkView(v map[string]any, kind string) []string {
	c := &checker{}
	typ, _ := v["type"].(string)
	switch {
	case kind != "" && typ != kind:
		c.add("/view/type", "must be %q, is %q", kind, typ)
	case typ == "modal":
		c.text("/view/title", v["title"], maxViewTitle, true)
		c.optText("/view/submit", v["submit"], maxViewTitle, true)
		c.optText("/view/close", v["close"], maxViewTitle, true)
		if v["submit"] == nil && hasInput(v["blocks"]) {
			c.add("/view/submit", "is required when the view has input blocks")
		}
	case typ != "home":
		c.add("/view/type", "must be modal or home, is %q", typ)
	}
	c.blocks("/view/blocks", v["blocks"], maxViewBlocks)
	c.optString("/view/private_metadata", v["private_metadata"], maxPrivateMeta)
	c.optString("/view/callback_id", v["callback_id"], maxID)
	c.optString("/view/external_id", v["external_id"], maxID)
	return c.problems
}

func hasInput(blocks any) bool {
	list, _ := blocks.([]any)
	for _, b := range list {
		if m, ok := b.(map[string]any); ok && m["type"] == "input" {
			return true
		}
	}
	return false
}

// refusal is the answer of a chat.* method refusing a message.
func refusal(code string, problems []string) answer {
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = "[ERROR] " + p
	}
	return answer{"ok": false, "error": code, "errors": problems, "response_metadata": map[string]any{"messages": msgs}}
}
