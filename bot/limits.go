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
