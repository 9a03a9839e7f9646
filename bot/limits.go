package bot

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/slack-go/slack"

	"github.com/mailbot/mailbot/internal/textcut"
)

// Block Kit's limits, from Slack's reference, in characters. Lengths are
// counted here in UTF-16 code units, which is never less than the count in
// runes: text that fits by this count fits however Slack counts.
const (
	maxMessageBlocks   = 50  // blocks in a message
	maxViewBlocks      = 100 // blocks in a modal or a Home tab
	maxSectionText     = 3000
	maxSectionFields   = 10
	maxFieldText       = 2000
	maxHeaderText      = 150
	maxContextElements = 10
	maxContextText     = 2000
	maxActionElements  = 25
	maxButtonText      = 75
	maxButtonValue     = 2000 // never cut: a signed payload
	maxButtonURL       = 3000 // never cut
	maxConfirmTitle    = 100
	maxConfirmText     = 300
	maxConfirmButton   = 30
	maxInputLabel      = 2000 // an input block's label and hint
	maxSelectOptions   = 100
	maxOptionText      = 75
	maxOptionValue     = 150
	maxViewTitle       = 24   // a modal's title, submit and close
	maxPrivateMetadata = 3000 // never cut
)

// Limits mailbot keeps below Slack's.
const (
	// maxFallbackText bounds a message's top-level text, the notification
	// and fallback: Slack truncates at 40000, a notification needs far less.
	maxFallbackText = 3000
	// maxMessageBlocksText bounds the characters of all the blocks of a
	// message together: Slack refuses a message far below 50 full
	// sections (msg_blocks_too_long, seen from about 13000 characters).
	maxMessageBlocksText = 12000
	// maxTitleText bounds a reply's title, which is bold and sits in the
	// reply's first section (3000): room for a title's words (as much as a
	// header holds) and an address of the longest kind, 254 characters, so
	// that an address in a title is never cut; only a title of free text is.
	maxTitleText = maxHeaderText + maxAddressText
	// maxAddressText is the longest e-mail address (RFC 5321's path limit).
	maxAddressText = 254
	// maxFormError bounds a field's message in a view_submission's
	// "errors" (Slack documents no limit; an input's hint has 2000).
	maxFormError = maxInputLabel
)

// textLen is the length of s in UTF-16 code units (an invalid byte counts
// as one, as U+FFFD once encoded as JSON).
func textLen(s string) int {
	n := 0
	for _, r := range s {
		n += textcut.UTF16(r)
	}
	return n
}

// fitText returns s if it is within limit characters, else s cut so that
// it ends with an ellipsis within limit. The cut never splits a rune, keeps
// combining marks, variation selectors, skin tones and flags with their
// base, and never ends inside Slack markup: an entity (&amp; &lt; &gt;),
// a <…> mention or link, or a `code span` (cut before its opening
// backtick, so that no wrong secret is ever shown).
func fitText(s string, limit int) string {
	if len(s) <= limit || textLen(s) <= limit {
		return s
	}
	if limit < 1 {
		return ""
	}
	head := markupSafe(textcut.Head(s, limit-1, textcut.UTF16))
	return strings.TrimRight(head, " \t\n") + textcut.Ellipsis
}

// markupSafe shortens p, the head of escaped mrkdwn, until it does not end
// inside an entity, a <…> sequence or a code span.
func markupSafe(p string) string {
	for {
		n := len(p)
		if i := strings.LastIndexByte(p, '<'); i >= 0 && strings.IndexByte(p[i:], '>') < 0 {
			p = p[:i]
		}
		if i := strings.LastIndexByte(p, '&'); i >= 0 && partialEntity(p[i:]) {
			p = p[:i]
		}
		if i := openCode(p); i >= 0 {
			p = p[:i]
		}
		if len(p) == n {
			return p
		}
	}
}

// openCode is the start of the code span that p leaves open, or -1. Each
// run of backticks (` or ```) opens a span or closes the open one.
func openCode(p string) int {
	open := -1
	for i := 0; i < len(p); i++ {
		if p[i] != '`' {
			continue
		}
		if open < 0 {
			open = i
		} else {
			open = -1
		}
		for i+1 < len(p) && p[i+1] == '`' {
			i++
		}
	}
	return open
}

// partialEntity reports whether t is the start of an entity, cut short.
func partialEntity(t string) bool {
	for _, e := range [...]string{"&amp;", "&lt;", "&gt;"} {
		if len(t) < len(e) && strings.HasPrefix(e, t) {
			return true
		}
	}
	return false
}

// fitTextObject fits a text object, copying it when it must change.
func fitTextObject(t *slack.TextBlockObject, limit int) *slack.TextBlockObject {
	if t == nil || len(t.Text) <= limit || textLen(t.Text) <= limit {
		return t
	}
	c := *t
	c.Text = fitText(t.Text, limit)
	return &c
}

// moreNotShown is the context block that ends a message cut short.
func moreNotShown(n int) *slack.ContextBlock {
	return slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, "… "+strconv.Itoa(n)+" more not shown", false, false))
}

// fitBlocks fits blocks within Slack's limits: every text within its
// block's limit (cut with [fitText]), a section's fields 10 at most (more
// go on in further sections), a context's elements 10 at most, and at most
// maxBlocks blocks ([maxMessageBlocks] for a message, [maxViewBlocks] for a
// modal or a Home tab), the last ones replaced by a context block "… N more
// not shown". A message's blocks also keep within [maxMessageBlocksText]
// characters together. The blocks given are not modified.
//
// What cannot be cut is left as it is: a button's value or URL, an actions
// block's elements. [checkUncuttable] reports them, so that the caller can
// refuse to send a broken button.
func fitBlocks(blocks []slack.Block, maxBlocks int) []slack.Block {
	out := make([]slack.Block, 0, len(blocks))
	for _, b := range blocks {
		out = append(out, fitBlock(b)...)
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

// fitBlock fits one block; a section with more than 10 fields becomes
// several sections.
func fitBlock(b slack.Block) []slack.Block {
	switch b := b.(type) {
	case *slack.SectionBlock:
		return fitSection(b)
	case *slack.HeaderBlock:
		c := *b
		c.Text = fitTextObject(b.Text, maxHeaderText)
		return []slack.Block{&c}
	case *slack.ContextBlock:
		return []slack.Block{fitContext(b)}
	case *slack.ActionBlock:
		return []slack.Block{fitActions(b)}
	case *slack.InputBlock:
		c := *b
		c.Label = fitTextObject(b.Label, maxInputLabel)
		c.Hint = fitTextObject(b.Hint, maxInputLabel)
		return []slack.Block{&c}
	}
	return []slack.Block{b}
}

func fitSection(b *slack.SectionBlock) []slack.Block {
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
	out := []slack.Block{&c}
	for rest := fields[len(c.Fields):]; len(rest) > 0; rest = rest[min(len(rest), maxSectionFields):] {
		out = append(out, slack.NewSectionBlock(nil, rest[:min(len(rest), maxSectionFields)], nil))
	}
	return out
}

func fitContext(b *slack.ContextBlock) *slack.ContextBlock {
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

// blockTextLen is the number of characters of the texts of a block.
func blockTextLen(b slack.Block) int {
	n := 0
	add := func(t *slack.TextBlockObject) {
		if t != nil {
			n += textLen(t.Text)
		}
	}
	switch b := b.(type) {
	case *slack.SectionBlock:
		add(b.Text)
		for _, f := range b.Fields {
			add(f)
		}
	case *slack.HeaderBlock:
		add(b.Text)
	case *slack.ContextBlock:
		for _, e := range b.ContextElements.Elements {
			if t, ok := e.(*slack.TextBlockObject); ok {
				add(t)
			}
		}
	}
	return n
}

// checkUncuttable reports what fitBlocks cannot fit without breaking it: a
// button's value (a signed payload) or URL over Slack's limit, an actions
// block with more than 25 elements.
func checkUncuttable(blocks []slack.Block) error {
	var errs []error
	button := func(where string, b *slack.ButtonBlockElement) {
		if n := textLen(b.Value); n > maxButtonValue {
			errs = append(errs, fmt.Errorf("%s: button %q: value of %d characters, over Slack's %d", where, b.ActionID, n, maxButtonValue))
		}
		if n := textLen(b.URL); n > maxButtonURL {
			errs = append(errs, fmt.Errorf("%s: button %q: URL of %d characters, over Slack's %d", where, b.ActionID, n, maxButtonURL))
		}
	}
	for i, b := range blocks {
		where := "block " + strconv.Itoa(i)
		switch b := b.(type) {
		case *slack.SectionBlock:
			if b.Accessory != nil && b.Accessory.ButtonElement != nil {
				button(where, b.Accessory.ButtonElement)
			}
		case *slack.ActionBlock:
			if b.Elements == nil {
				continue
			}
			if n := len(b.Elements.ElementSet); n > maxActionElements {
				errs = append(errs, fmt.Errorf("%s: %d elements, over Slack's %d", where, n, maxActionElements))
			}
			for _, e := range b.Elements.ElementSet {
				if btn, ok := e.(*slack.ButtonBlockElement); ok {
					button(where, btn)
				}
			}
		}
	}
	return errors.Join(errs...)
}

// fitModal fits a modal: its title, submit and close labels, and its
// blocks. Its private_metadata, like a button's value, is never cut: when
// it is over Slack's limit, or a button cannot fit, fitModal returns an
// error and the modal must not be sent.
func fitModal(v slack.ModalViewRequest) (slack.ModalViewRequest, error) {
	v.Title = fitTextObject(v.Title, maxViewTitle)
	v.Submit = fitTextObject(v.Submit, maxViewTitle)
	v.Close = fitTextObject(v.Close, maxViewTitle)
	v.Blocks = slack.Blocks{BlockSet: fitBlocks(v.Blocks.BlockSet, maxViewBlocks)}
	err := checkUncuttable(v.Blocks.BlockSet)
	if n := textLen(v.PrivateMetadata); n > maxPrivateMetadata {
		err = errors.Join(err, fmt.Errorf("private_metadata of %d characters, over Slack's %d", n, maxPrivateMetadata))
	}
	return v, err
}
