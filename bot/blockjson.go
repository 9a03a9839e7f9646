package bot

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/slack-go/slack"
)

// The hand encoder of mailbot's Block Kit. It writes the JSON of the
// blocks mailbot builds (sections, contexts of text, actions of buttons,
// dividers and headers) straight into a byte slice, the same bytes as
// json.Marshal of the same slack-go values: json.Marshal reaches the
// contexts' and actions' elements through slack-go's MarshalJSON methods
// and then checks and compacts their output again, which cost a reply's
// body most of its encoding time. A block, element or field the encoder
// does not know is encoded by json.Marshal, so every value still encodes.

// appendBlocks appends the JSON array of blocks to dst: "null" for a nil
// slice, as json.Marshal writes it.
func appendBlocks(dst []byte, blocks []slack.Block) ([]byte, error) {
	if blocks == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i, blk := range blocks {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendBlock(dst, blk); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// appendBlock appends the JSON of one block.
func appendBlock(dst []byte, blk slack.Block) ([]byte, error) {
	switch b := blk.(type) {
	case *slack.SectionBlock:
		if b != nil && b.Accessory == nil {
			return appendSection(dst, b), nil
		}
	case *slack.ContextBlock:
		if b != nil {
			return appendContext(dst, b)
		}
	case *slack.ActionBlock:
		if b != nil {
			return appendActions(dst, b)
		}
	case *slack.DividerBlock:
		if b != nil {
			return appendBlockID(appendType(dst, string(b.Type)), b.BlockID), nil
		}
	case *slack.HeaderBlock:
		if b != nil {
			return appendHeader(dst, b), nil
		}
	}
	return appendMarshal(dst, blk)
}

// appendMarshal appends json.Marshal's encoding of v.
func appendMarshal(dst []byte, v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, raw...), nil
}

// appendType opens an object with its "type" field.
func appendType(dst []byte, typ string) []byte {
	return appendString(append(dst, `{"type":`...), typ)
}

// appendBlockID appends a block_id field when there is one (omitempty)
// and closes the object.
func appendBlockID(dst []byte, id string) []byte {
	return append(appendOptString(dst, "block_id", id), '}')
}

// appendOptString appends ,"key":value when value is not empty
// (omitempty).
func appendOptString(dst []byte, key, value string) []byte {
	if value == "" {
		return dst
	}
	dst = append(append(append(dst, `,"`...), key...), `":`...)
	return appendString(dst, value)
}

func appendSection(dst []byte, b *slack.SectionBlock) []byte {
	dst = appendType(dst, string(b.Type))
	if b.Text != nil {
		dst = appendText(append(dst, `,"text":`...), b.Text)
	}
	dst = appendOptString(dst, "block_id", b.BlockID)
	if len(b.Fields) > 0 {
		dst = append(dst, `,"fields":[`...)
		for i, f := range b.Fields {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendText(dst, f)
		}
		dst = append(dst, ']')
	}
	if b.Expand {
		dst = append(dst, `,"expand":true`...)
	}
	return append(dst, '}')
}

func appendHeader(dst []byte, b *slack.HeaderBlock) []byte {
	dst = appendType(dst, string(b.Type))
	if b.Text != nil {
		dst = appendText(append(dst, `,"text":`...), b.Text)
	}
	dst = appendOptString(dst, "block_id", b.BlockID)
	if b.Level != 0 {
		dst = strconv.AppendInt(append(dst, `,"level":`...), int64(b.Level), 10)
	}
	return append(dst, '}')
}

// appendText appends a text object, "null" for none.
func appendText(dst []byte, t *slack.TextBlockObject) []byte {
	if t == nil {
		return append(dst, "null"...)
	}
	dst = appendType(dst, t.Type)
	dst = appendString(append(dst, `,"text":`...), t.Text)
	if t.Emoji != nil {
		dst = strconv.AppendBool(append(dst, `,"emoji":`...), *t.Emoji)
	}
	if t.Verbatim {
		dst = append(dst, `,"verbatim":true`...)
	}
	return append(dst, '}')
}

func appendContext(dst []byte, b *slack.ContextBlock) ([]byte, error) {
	dst = appendOptString(appendType(dst, string(b.Type)), "block_id", b.BlockID)
	dst = append(dst, `,"elements":`...)
	if b.ContextElements.Elements == nil {
		return append(dst, "null}"...), nil
	}
	dst = append(dst, '[')
	for i, el := range b.ContextElements.Elements {
		if i > 0 {
			dst = append(dst, ',')
		}
		if t, ok := el.(*slack.TextBlockObject); ok && t != nil {
			dst = appendText(dst, t)
			continue
		}
		var err error
		if dst, err = appendMarshal(dst, el); err != nil {
			return dst, err
		}
	}
	return append(dst, "]}"...), nil
}

func appendActions(dst []byte, b *slack.ActionBlock) ([]byte, error) {
	dst = appendOptString(appendType(dst, string(b.Type)), "block_id", b.BlockID)
	dst = append(dst, `,"elements":`...)
	if b.Elements == nil || b.Elements.ElementSet == nil {
		return append(dst, "null}"...), nil
	}
	dst = append(dst, '[')
	for i, el := range b.Elements.ElementSet {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if btn, ok := el.(*slack.ButtonBlockElement); ok && btn != nil && len(btn.VisibleToUserIDs) == 0 {
			dst = appendButton(dst, btn)
		} else if dst, err = appendMarshal(dst, el); err != nil {
			return dst, err
		}
	}
	return append(dst, "]}"...), nil
}

func appendButton(dst []byte, b *slack.ButtonBlockElement) []byte {
	dst = append(dst, '{')
	if b.Type != "" {
		dst = appendString(append(dst, `"type":`...), string(b.Type))
		dst = append(dst, ',')
	}
	dst = appendText(append(dst, `"text":`...), b.Text)
	dst = appendOptString(dst, "action_id", b.ActionID)
	dst = appendOptString(dst, "url", b.URL)
	dst = appendOptString(dst, "value", b.Value)
	if b.Confirm != nil {
		dst = appendConfirm(append(dst, `,"confirm":`...), b.Confirm)
	}
	dst = appendOptString(dst, "style", string(b.Style))
	dst = appendOptString(dst, "accessibility_label", b.AccessibilityLabel)
	dst = appendOptString(dst, "agent_prompt", b.AgentPrompt)
	dst = appendOptString(dst, "agent_prompt_display", b.AgentPromptDisplay)
	return append(dst, '}')
}

func appendConfirm(dst []byte, c *slack.ConfirmationBlockObject) []byte {
	dst = appendText(append(dst, `{"title":`...), c.Title)
	dst = appendText(append(dst, `,"text":`...), c.Text)
	dst = appendText(append(dst, `,"confirm":`...), c.Confirm)
	if c.Deny != nil {
		dst = appendText(append(dst, `,"deny":`...), c.Deny)
	}
	dst = appendOptString(dst, "style", string(c.Style))
	return append(dst, '}')
}

// appendString appends s as a JSON string by encoding/json's rules: ",
// \ and control characters escaped (\b, \f, \n, \r and \t short, the
// others as \u00XX), <, > and & as \u003c, \u003e and \u0026, U+2028 and
// U+2029 as \u2028 and \u2029, and each byte of invalid UTF-8 as \ufffd.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe(c) {
				i++
				continue
			}
			dst = appendEscapedByte(append(dst, s[start:i]...), c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		} else if r == '\u2028' || r == '\u2029' {
			dst = append(append(dst, s[start:i]...), `\u202`...)
			dst = append(dst, hexDigits[r&0xF])
		} else {
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}

// jsonSafe reports whether the ASCII byte c stands for itself in a JSON
// string as encoding/json writes it (HTML-safe).
func jsonSafe(c byte) bool {
	return c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
}

const hexDigits = "0123456789abcdef"

// appendEscapedByte appends the escape of an ASCII byte that is not safe.
func appendEscapedByte(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}

// bodySizeHint is room enough, as a rule, for a message's JSON of text
// and blocks, and not much more (an acknowledgement's payload is kept
// for an envelope Slack may send again): the texts' bytes, each block's
// and text object's fixed parts, and an eighth more for escapes.
func bodySizeHint(text string, blocks []slack.Block) int {
	n := len(text) + 96
	for _, b := range blocks {
		n += blockSizeHint(b)
	}
	return n + n/8
}

// blockSizeHint is about the length of a block's JSON before escapes.
func blockSizeHint(b slack.Block) int {
	text := func(t *slack.TextBlockObject) int {
		if t == nil {
			return 4
		}
		return 48 + len(t.Text)
	}
	switch b := b.(type) {
	case *slack.SectionBlock:
		n := 24 + text(b.Text)
		for _, f := range b.Fields {
			n += text(f)
		}
		return n
	case *slack.ContextBlock:
		n := 32
		for _, e := range b.ContextElements.Elements {
			t, ok := e.(*slack.TextBlockObject)
			if !ok {
				return 512
			}
			n += text(t)
		}
		return n
	}
	return 512
}
