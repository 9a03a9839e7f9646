package providers

import (
	"context"
	"fmt"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
)

// The metered provider passes the alias calls on to a provider that has
// aliases (commands.Aliaser), counted and timed as the other operations;
// the core calls them only when the provider's capabilities say it has
// aliases.

// aliaser is the metered provider's aliases, or an error for a provider
// without them.
func (p *meteredProvider) aliaser(op apiclient.Op) (commands.Aliaser, error) {
	a, ok := p.Provider.(commands.Aliaser)
	if !ok {
		return nil, fmt.Errorf("mailbot: %s has no aliases (%s)", p.Name(), op)
	}
	return a, nil
}

func (p *meteredProvider) AddAlias(ctx context.Context, alias, mailbox string) (*apiclient.Alias, error) {
	a, err := p.aliaser(apiclient.OpAliasAdd)
	if err != nil {
		return nil, err
	}
	return metered(p, apiclient.OpAliasAdd, func() (*apiclient.Alias, error) { return a.AddAlias(ctx, alias, mailbox) })
}

func (p *meteredProvider) RemoveAlias(ctx context.Context, alias string) (*apiclient.Alias, error) {
	a, err := p.aliaser(apiclient.OpAliasRemove)
	if err != nil {
		return nil, err
	}
	return metered(p, apiclient.OpAliasRemove, func() (*apiclient.Alias, error) { return a.RemoveAlias(ctx, alias) })
}

func (p *meteredProvider) ListAliases(ctx context.Context, mailbox string) ([]string, error) {
	a, err := p.aliaser(apiclient.OpAliases)
	if err != nil {
		return nil, err
	}
	return metered(p, apiclient.OpAliases, func() ([]string, error) { return a.ListAliases(ctx, mailbox) })
}

func (p *meteredProvider) MoveAlias(ctx context.Context, alias, from, to string) (*apiclient.Alias, error) {
	a, err := p.aliaser(apiclient.OpAliasMove)
	if err != nil {
		return nil, err
	}
	return metered(p, apiclient.OpAliasMove, func() (*apiclient.Alias, error) { return a.MoveAlias(ctx, alias, from, to) })
}
