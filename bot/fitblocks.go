package bot

import (
	"strconv"

	"github.com/slack-go/slack"
)

// The fitting of blocks within Slack's limits (limits.go has the limits
// and the fitting of texts).

// fitBlocks fits blocks within Slack's limits: every text within its
// block's limit (cut with [fitText]), a section's fields 10 at most (more
// go on in further sections), a context's elements 10 at most, and at most
// maxBlocks blocks ([maxMessageBlocks] for a message, [maxViewBlocks] for a
// modal or a Home tab), the last ones replaced by a context block "… N more
// not shown". A message's blocks also keep within [maxMessageBlocksText]
// characters together. The blocks given are not modified; when they all
// fit, the slice given is returned.
//
// What cannot be cut is left as it is: a button's value or URL, an actions
// block's elements. [checkUncuttable] reports them, so that the caller can
// refuse to send a broken button.
func fitBlocks(blocks []slack.Block, maxBlocks int) []slack.Block {
	out := blocks
	if !allFit(blocks) {
		out = make([]slack.Block, 0, len(blocks))
		for _, b := range blocks {
			out = appendFit(out, b)
		}
	}
	budget := -1
	if maxBlocks <= maxMessageBlocks {
		budget = maxMessageBlocksText
	}
	return fitCount(out, maxBlocks, budget)
}

// fitCount keeps the first blocks that fit in maxBlocks and, with a budget
// of 0 or more, in budget characters, and says how many more there were.
// The first block is kept whatever its length.
func fitCount(blocks []slack.Block, maxBlocks, budget int) []slack.Block {
	const reserve = 40 // the "… N more not shown" block
	total := 0
	for _, b := range blocks {
		total += blockTextLen(b)
	}
	if len(blocks) <= maxBlocks && (budget < 0 || total <= budget) {
		return blocks
	}
	keep := 0
	for total = 0; keep < len(blocks) && keep < maxBlocks-1; keep++ {
		total += blockTextLen(blocks[keep])
		if budget >= 0 && keep > 0 && total > budget-reserve {
			break
		}
	}
	return append(blocks[:keep:keep], moreNotShown(len(blocks)-keep))
}

// appendFit appends one block, fitted, to out; a section with more than
// 10 fields becomes several sections. A section or context that fits
// already is appended as it is, not copied.
func appendFit(out []slack.Block, b slack.Block) []slack.Block {
	switch b := b.(type) {
	case *slack.SectionBlock:
		return fitSection(out, b)
	case *slack.HeaderBlock:
		c := *b
		c.Text = fitTextObject(b.Text, maxHeaderText)
		return append(out, &c)
	case *slack.ContextBlock:
		return append(out, fitContext(b))
	case *slack.ActionBlock:
		return append(out, fitActions(b))
	case *slack.InputBlock:
		c := *b
		c.Label = fitTextObject(b.Label, maxInputLabel)
		c.Hint = fitTextObject(b.Hint, maxInputLabel)
		return append(out, &c)
	}
	return append(out, b)
}

// allFit reports whether every block is a section, a context or a
// divider within Slack's limits as it is.
func allFit(blocks []slack.Block) bool {
	for _, b := range blocks {
		switch b := b.(type) {
		case *slack.SectionBlock:
			if b == nil || !sectionFits(b) {
				return false
			}
		case *slack.ContextBlock:
			if b == nil || !contextFits(b) {
				return false
			}
		case *slack.DividerBlock:
		default:
			return false
		}
	}
	return true
}

// textFits reports whether a text object, or none, is within limit.
func textFits(t *slack.TextBlockObject, limit int) bool {
	return t == nil || len(t.Text) <= limit || textLen(t.Text) <= limit
}

// sectionFits reports whether a section without an accessory is within
// Slack's limits as it is.
func sectionFits(b *slack.SectionBlock) bool {
	if b.Accessory != nil || len(b.Fields) > maxSectionFields || !textFits(b.Text, maxSectionText) {
		return false
	}
	for _, f := range b.Fields {
		if !textFits(f, maxFieldText) {
			return false
		}
	}
	return true
}

func fitSection(out []slack.Block, b *slack.SectionBlock) []slack.Block {
	if b != nil && sectionFits(b) {
		return append(out, b)
	}
	c := *b
	c.Text = fitTextObject(b.Text, maxSectionText)
	if c.Accessory != nil && c.Accessory.ButtonElement != nil {
		a := *c.Accessory
		a.ButtonElement = fitButton(a.ButtonElement)
		c.Accessory = &a
	}
	fields := make([]*slack.TextBlockObject, len(b.Fields))
	for i, f := range b.Fields {
		fields[i] = fitTextObject(f, maxFieldText)
	}
	c.Fields = fields[:min(len(fields), maxSectionFields)]
	out = append(out, &c)
	for rest := fields[len(c.Fields):]; len(rest) > 0; rest = rest[min(len(rest), maxSectionFields):] {
		out = append(out, slack.NewSectionBlock(nil, rest[:min(len(rest), maxSectionFields)], nil))
	}
	return out
}

// contextFits reports whether a context is within Slack's limits as it
// is.
func contextFits(b *slack.ContextBlock) bool {
	if len(b.ContextElements.Elements) > maxContextElements {
		return false
	}
	for _, e := range b.ContextElements.Elements {
		if t, ok := e.(*slack.TextBlockObject); ok && !textFits(t, maxContextText) {
			return false
		}
	}
	return true
}

func fitContext(b *slack.ContextBlock) *slack.ContextBlock {
	if b != nil && contextFits(b) {
		return b
	}
	c := *b
	els := b.ContextElements.Elements
	if len(els) > maxContextElements {
		more := len(els) - (maxContextElements - 1)
		els = append(els[:maxContextElements-1:maxContextElements-1],
			slack.NewTextBlockObject(slack.MarkdownType, "… "+strconv.Itoa(more)+" more not shown", false, false))
	}
	fitted := make([]slack.MixedElement, len(els))
	for i, e := range els {
		if t, ok := e.(*slack.TextBlockObject); ok {
			e = fitTextObject(t, maxContextText)
		}
		fitted[i] = e
	}
	c.ContextElements.Elements = fitted
	return &c
}

func fitActions(b *slack.ActionBlock) *slack.ActionBlock {
	if b.Elements == nil {
		return b
	}
	c := *b
	els := make([]slack.BlockElement, len(b.Elements.ElementSet))
	for i, e := range b.Elements.ElementSet {
		if btn, ok := e.(*slack.ButtonBlockElement); ok {
			e = fitButton(btn)
		}
		els[i] = e
	}
	c.Elements = &slack.BlockElements{ElementSet: els}
	return &c
}

// fitButton fits a button's text and confirmation; its value and URL are
// left whole.
func fitButton(b *slack.ButtonBlockElement) *slack.ButtonBlockElement {
	c := *b
	c.Text = fitTextObject(b.Text, maxButtonText)
	if b.Confirm != nil {
		conf := *b.Confirm
		conf.Title = fitTextObject(conf.Title, maxConfirmTitle)
		conf.Text = fitTextObject(conf.Text, maxConfirmText)
		conf.Confirm = fitTextObject(conf.Confirm, maxConfirmButton)
		conf.Deny = fitTextObject(conf.Deny, maxConfirmButton)
		c.Confirm = &conf
	}
	return &c
}
