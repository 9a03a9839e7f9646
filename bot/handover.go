package bot

import (
	"context"
	"fmt"

	"github.com/slack-go/slack"

	"github.com/mailbot/mailbot/commands"
)

// handoverBlockID is the block_id of a hand-over's Show my password button.
const handoverBlockID = "mailbot_handover"

// OfferHandover sends the hand-over to its owner in their direct message
// with the bot (conversations.open, chat.postMessage).
func (m *Messenger) OfferHandover(ctx context.Context, v commands.HandoverView) (commands.MessageRef, error) {
	blocks, err := handoverBlocks(v)
	if err != nil {
		return commands.MessageRef{}, err
	}
	dm, err := m.openDM(ctx, v.Handover.Owner)
	if err != nil {
		return commands.MessageRef{}, err
	}
	ch, ts, err := retryingPair(ctx, func() (string, string, error) {
		return m.post(ctx, dm, handoverFallback(v), blocks...)
	})
	if err != nil {
		return commands.MessageRef{}, fmt.Errorf("chat.postMessage: %w", err)
	}
	return commands.MessageRef{Channel: ch, TS: ts}, nil
}

// UpdateHandover shows the hand-over's state in its message; the button
// only while it is offered.
func (m *Messenger) UpdateHandover(ctx context.Context, ref commands.MessageRef, v commands.HandoverView) error {
	blocks, err := handoverBlocks(v)
	if err != nil {
		return err
	}
	return chatUpdate(m.update(ctx, ref, slack.MsgOptionText(handoverFallback(v), false), slack.MsgOptionBlocks(blocks...)))
}

// HandoverValue reads the hand-over's message back (conversations.history
// in the direct message, the one message at its ts) and returns the value
// of its Show button: "" when it offers none, or is gone.
func (m *Messenger) HandoverValue(ctx context.Context, ref commands.MessageRef) (string, error) {
	blocks, err := m.readBack(ctx, ref)
	return buttonValue(blocks, handoverBlockID, commands.ButtonShow), err
}

// handoverBlocks renders the owner's message: what is theirs, and the
// button while it works.
func handoverBlocks(v commands.HandoverView) ([]slack.Block, error) {
	title := "*Your mailbox " + escape(v.Handover.Target()) + "*"
	blocks := []slack.Block{plainSection(title + "\n" + escape(v.Text))}
	if !v.Button() {
		return blocks, nil
	}
	actions, err := buttons(handoverBlockID, []commands.Button{{Kind: commands.ButtonShow, Label: "Show my password", Value: v.Value}})
	if err != nil {
		return nil, err
	}
	actions.Elements.ElementSet[0].(*slack.ButtonBlockElement).Style = slack.StylePrimary
	return append(blocks, actions), nil
}

// handoverFallback is the message's notification text: no secret.
func handoverFallback(v commands.HandoverView) string {
	return fitText(escape("Your mailbox "+v.Handover.Target()+": "+string(v.State)), maxNoticeText)
}
