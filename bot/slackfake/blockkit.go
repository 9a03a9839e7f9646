package slackfake

import "encoding/json"

// Payload is a Slack message, an ack payload or a view as the bot sent
// it, decoded as far as tests read it: the text, and the blocks with
// their elements. Tests of the bot and end-to-end tests share it.
type Payload struct {
	ResponseType    string  `json:"response_type"`
	ReplaceOriginal bool    `json:"replace_original"`
	Text            string  `json:"text"`
	Blocks          []Block `json:"blocks"`
}

// Block is a Block Kit block.
type Block struct {
	Type     string      `json:"type"`
	BlockID  string      `json:"block_id"`
	Optional bool        `json:"optional"` // of an input block
	Text     *TextObject `json:"text"`
	Elements []Element   `json:"elements"`
}

// TextObject is a text object (plain_text or mrkdwn).
type TextObject struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Element is an element of an actions or context block. Text stays raw:
// a button's is an object, a context element's a string or an object.
type Element struct {
	Type     string          `json:"type"`
	ActionID string          `json:"action_id"`
	Value    string          `json:"value"`
	Text     json.RawMessage `json:"text"`
	Style    string          `json:"style"`
	Confirm  json.RawMessage `json:"confirm"`
}

// DecodePayload decodes raw, the JSON of a message, an ack payload or a
// view.
func DecodePayload(raw string) (Payload, error) {
	var m Payload
	err := json.Unmarshal([]byte(raw), &m)
	return m, err
}

// Button returns the value of the button actionID in the block blockID,
// and whether there is one.
func (m Payload) Button(blockID, actionID string) (string, bool) {
	for _, b := range m.Blocks {
		for _, e := range b.Elements {
			if b.BlockID == blockID && e.ActionID == actionID && e.Type == "button" {
				return e.Value, true
			}
		}
	}
	return "", false
}

// HasButtons reports whether the message offers any button.
func (m Payload) HasButtons() bool {
	for _, b := range m.Blocks {
		for _, e := range b.Elements {
			if e.Type == "button" {
				return true
			}
		}
	}
	return false
}
