package commands

import (
	"context"

	"go.uber.org/zap"
)

// Click is a person's click on a button that mailbot offered.
type Click struct {
	Kind  ButtonKind
	Value string // the button's value, as the transport hands it back
	User  string // who clicked
	Route Route  // where to answer the person who clicked
	// Message is the request message clicked, when the click came from
	// it (the ops channel's Approve and Deny); zero from the Home tab
	// and for Cancel, which sits in the requester's own notice.
	Message MessageRef
}

// Click carries out a click: it checks the signed value and who clicked,
// takes the decision by compare-and-set in the store, runs an approved
// operation once, and tells everyone concerned through the messenger. It
// returns a label for metrics.
func (c *Core) Click(ctx context.Context, k Click) string {
	switch k.Kind {
	case ButtonCheckDNS:
		return c.reads.clickCheck(ctx, k)
	case ButtonMore:
		return c.reads.clickMore(ctx, k)
	case ButtonShow:
		return c.handovers.clickShow(ctx, k)
	}
	p, err := c.DecodePending(k.Value)
	if err != nil {
		c.logger.Warn("button value rejected", zap.String("user_id", k.User), zap.String("button", string(k.Kind)), zap.Error(err))
		c.deliver(ctx, k.Route, Reply{Title: "This request is not valid", Text: "mailbot cannot read it. Nothing was done.", Error: true})
		return LabelInvalid
	}
	if why := c.approvals.mayClick(k, p); why != "" {
		c.deliver(ctx, k.Route, Reply{Title: "Not allowed", Text: why + " Nothing was changed.", Error: true})
		return LabelRefused
	}
	if ok, label := c.approvals.confirmPending(ctx, &k, p); !ok {
		return label
	}
	switch k.Kind {
	case ButtonApprove:
		return c.approvals.approve(ctx, k, p)
	case ButtonDeny:
		return c.approvals.end(ctx, k, p, StateDenied)
	default:
		return c.approvals.end(ctx, k, p, StateCancelled)
	}
}
