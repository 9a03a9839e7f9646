package bot

import (
	"context"
	"errors"
	"fmt"

	"github.com/slack-go/slack"

	"github.com/mailbot/mailbot/commands"
)

// People reads people from Slack (users.info, scopes users:read and
// users:read.email) for the core: whether a direct message reaches them,
// and their confirmed e-mail address. It implements commands.People.
type People struct {
	api  *slack.Client
	team string // the workspace of the bot (auth.test's team_id); empty: not checked
}

var _ commands.People = (*People)(nil)

// NewPeople returns People reading through api, for the workspace team.
func NewPeople(api *slack.Client, team string) *People { return &People{api: api, team: team} }

// Person reads userID with users.info.
func (p *People) Person(ctx context.Context, userID string) (commands.Person, error) {
	u, err := retrying(ctx, func() (*slack.User, error) { return p.api.GetUserInfoContext(ctx, userID) })
	if err != nil {
		if se := (slack.SlackErrorResponse{}); errors.As(err, &se) && se.Err == "user_not_found" {
			return commands.Person{Unknown: true}, nil
		}
		return commands.Person{}, fmt.Errorf("users.info: %w", err)
	}
	return commands.Person{
		Email:          u.Profile.Email,
		EmailConfirmed: u.IsEmailConfirmed,
		Deleted:        u.Deleted,
		Bot:            u.IsBot || u.ID == "USLACKBOT",
		Guest:          u.IsRestricted || u.IsUltraRestricted,
		OtherWorkspace: p.team != "" && u.TeamID != "" && u.TeamID != p.team,
	}, nil
}
