package m365

import (
	"context"
	"slices"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// ErrAliasesReadOnly is the words for any change of an alias: Graph
// cannot make one.
const ErrAliasesReadOnly = "Microsoft Graph cannot change a mailbox's aliases (proxyAddresses are read-only there): use the Exchange admin center"

// ListAliases reads the mailbox's proxyAddresses: each lower-case
// "smtp:" entry is an alias (the "SMTP:" one is its own address; other
// types are no aliases), sorted, in lower case.
func (c *Client) ListAliases(ctx context.Context, mailbox string) ([]string, error) {
	op := apiclient.OpAliases
	login, domain, _ := strings.Cut(mailbox, "@")
	upn, err := address(op, domain, login)
	if err != nil {
		return nil, err
	}
	u, err := c.getUser(ctx, op, upn)
	if err != nil {
		return nil, err
	}
	return Aliases(u.ProxyAddresses), nil
}

// Aliases are the aliases among proxy addresses: the "smtp:" entries in
// lower case, sorted, without duplicates.
func Aliases(proxy []string) []string {
	out := []string{}
	for _, p := range proxy {
		if a, ok := strings.CutPrefix(p, "smtp:"); ok && strings.Contains(a, "@") {
			out = append(out, strings.ToLower(a))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// AddAlias is refused: Graph cannot add a proxy address.
func (c *Client) AddAlias(context.Context, string, string) (*apiclient.Alias, error) {
	return nil, refuse(apiclient.OpAliasAdd, apiclient.ReasonNotAllowed, ErrAliasesReadOnly)
}

// RemoveAlias is refused: Graph cannot remove a proxy address.
func (c *Client) RemoveAlias(context.Context, string) (*apiclient.Alias, error) {
	return nil, refuse(apiclient.OpAliasRemove, apiclient.ReasonNotAllowed, ErrAliasesReadOnly)
}

// MoveAlias is refused: Graph cannot move a proxy address.
func (c *Client) MoveAlias(context.Context, string, string, string) (*apiclient.Alias, error) {
	return nil, refuse(apiclient.OpAliasMove, apiclient.ReasonNotAllowed, ErrAliasesReadOnly)
}
