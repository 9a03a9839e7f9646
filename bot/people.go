package bot

import (
	"context"
	"errors"
	"fmt"
	"time"

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
		switch se := (slack.SlackErrorResponse{}); {
		case errors.As(err, &se) && se.Err == "user_not_found":
			return commands.Person{Unknown: true}, nil
		case errors.As(err, &se) && se.Err == "user_not_visible":
			return commands.Person{NotVisible: true}, nil
		}
		return commands.Person{}, fmt.Errorf("users.info: %w", err)
	}
	return p.person(u), nil
}

// person is what Slack's user object u says of a person.
func (p *People) person(u *slack.User) commands.Person {
	return commands.Person{
		Email:          u.Profile.Email,
		EmailConfirmed: u.IsEmailConfirmed,
		Deleted:        u.Deleted,
		Bot:            u.IsBot || u.ID == "USLACKBOT",
		Guest:          u.IsRestricted || u.IsUltraRestricted,
		OtherWorkspace: p.team != "" && u.TeamID != "" && u.TeamID != p.team,
	}
}

// usersPage is how many people a users.list call asks for: Slack's most.
const usersPage = 1000

// EachPerson lists the workspace's people with users.list, a page of
// 1,000 a call (Tier 2: 20 calls a minute), and calls fn for each. A 429
// waits its Retry-After and asks for the same page again, as long as ctx
// allows.
func (p *People) EachPerson(ctx context.Context, fn func(userID string, person commands.Person)) error {
	page := p.api.GetUsersPaginated(slack.GetUsersOptionLimit(usersPage))
	for {
		next, err := page.Next(ctx)
		if page.Done(err) {
			return nil
		}
		var rl *slack.RateLimitedError
		switch {
		case errors.As(err, &rl):
			if werr := waitFor(ctx, rl.RetryAfter); werr != nil {
				return fmt.Errorf("users.list: %w (after %w)", werr, err)
			}
			continue
		case err != nil:
			return fmt.Errorf("users.list: %w", err)
		}
		for i := range next.Users {
			fn(next.Users[i].ID, p.person(&next.Users[i]))
		}
		page = next
	}
}

var _ commands.PeopleDirectory = (*People)(nil)

// waitFor waits d, or until ctx ends.
func waitFor(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
