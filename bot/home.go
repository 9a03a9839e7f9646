package bot

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/slack-go/slack"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/commands"
)

// publishHome publishes user's Home tab (views.publish): what waits for a
// decision, the latest operations, and how to use the commands.
func (b *Bot) publishHome(ctx context.Context, user string) {
	view := homeView(b.core.Home(ctx, user))
	if _, err := b.api.PublishViewContext(ctx, slack.PublishViewContextRequest{UserID: user, View: view}); err != nil {
		b.log.Warn("home tab not published", zap.String("user_id", user), zap.Error(err))
		b.m.homes.WithLabelValues("failed").Inc()
		return
	}
	b.m.homes.WithLabelValues("ok").Inc()
}

// homeView renders a Home tab within Slack's 100 blocks: never a secret.
func homeView(h commands.Home) slack.HomeTabViewRequest {
	blocks := []slack.Block{slack.NewHeaderBlock(slack.NewTextBlockObject(slack.PlainTextType, "mailbot", false, false))}
	if h.Problem != "" {
		blocks = append(blocks, plainSection(":warning: "+escape(h.Problem)))
	}
	blocks = append(blocks, plainSection(fmt.Sprintf("*%s* (%d)", h.PendingTitle(), len(h.Pending))))
	if len(h.Pending) == 0 {
		blocks = append(blocks, slack.NewContextBlock("", verbatim("Nothing is waiting.")))
	}
	for i, r := range h.Pending {
		blocks = append(blocks, plainSection(homeRequestText(h, r)))
		if a, err := buttons(fmt.Sprintf("%s%d", homeBlockPrefix, i), r.Buttons); err == nil {
			blocks = append(blocks, a)
		}
	}
	if h.Admin {
		blocks = append(blocks, slack.NewDividerBlock(), plainSection(fmt.Sprintf("*Latest operations and decisions* (%d, newest first)", len(h.Recent))))
		if len(h.Recent) > 0 {
			lines := make([]string, len(h.Recent))
			for i, e := range h.Recent {
				lines[i] = "• " + escape(e.Line(Mention))
			}
			blocks = append(blocks, plainSection(strings.Join(lines, "\n")))
		}
	}
	help := make([]string, len(h.Help))
	for i, f := range h.Help {
		help[i] = "`" + escape(f.Label) + "`  " + escape(f.Value)
	}
	blocks = append(blocks, slack.NewDividerBlock(), plainSection("*How to use mailbot*\n"+strings.Join(help, "\n")))
	return slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: fitBlocks(blocks, maxViewBlocks)}}
}

// homeRequestText describes a pending request on the Home tab.
func homeRequestText(h commands.Home, r commands.HomeRequest) string {
	reason := r.Op.Reason
	if reason == "" {
		reason = "(none given)"
	}
	s := fmt.Sprintf("%s asks to *%s*\n*Reason:* %s\n*Expires:* %s · request `%s`",
		mention(r.Requester), escape(r.Op.String()), escape(reason), r.Expires.UTC().Format(time.RFC1123), escape(r.ID))
	if r.Op.For != "" {
		s += "\n*Credentials for:* " + mention(r.Op.For) + " alone"
	}
	if len(r.Approvers) > 0 {
		names := make([]string, len(r.Approvers))
		for i, a := range r.Approvers {
			names[i] = mention(a)
		}
		s += fmt.Sprintf("\n%d of %d approvals: %s", len(r.Approvers), h.Need, strings.Join(names, ", "))
	}
	return s
}
