package bot

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/slack-go/slack"
	"go.uber.org/zap"
)

// GroupRefreshEvery is how often the admin user groups are read again
// when no subteam_members_changed event arrives first (at least every 5 minutes;
// see docs/approvals.md). Slack sends that event to one of the app's
// sockets only, so with several replicas the others learn of a change at
// their next reading: once a minute keeps that window short, at one
// usergroups.users.list call a minute per group and replica (Slack's tier
// 2 allows 20).
const GroupRefreshEvery = time.Minute

// Groups keeps the members of the admin user groups (the S… entries of
// MAILBOT_ADMINS), read with usergroups.users.list at start, again every
// GroupRefreshEvery and whenever Slack says a group changed. Deciding
// who is an admin asks Contains, which never waits on Slack: it answers
// from the last reading. A failed reading keeps the last known members.
type Groups struct {
	api   *slack.Client
	ids   []string
	every time.Duration
	log   *zap.Logger
	m     *Metrics

	mu      sync.RWMutex
	members map[string]map[string]bool
	handles map[string]string

	changed chan string
}

// NewGroups returns the keeper of the user groups ids; call Load before
// anything asks Contains.
func NewGroups(api *slack.Client, ids []string, every time.Duration, logger *zap.Logger, m *Metrics) *Groups {
	if every <= 0 {
		every = GroupRefreshEvery
	}
	return &Groups{api: api, ids: ids, every: every, log: logger, m: m,
		members: map[string]map[string]bool{}, handles: map[string]string{}, changed: make(chan string, 64)}
}

// GroupError is a user group that could not be read at start.
type GroupError struct {
	Group string
	Code  string // Slack's error, such as plan_upgrade_required
}

func (e *GroupError) Error() string {
	why := e.Code
	switch e.Code {
	case "missing_scope":
		why += ": the Slack app lacks the usergroups:read scope"
	case "plan_upgrade_required":
		why += ": user groups need a paid Slack plan; list user IDs instead"
	case "no_such_subteam":
		why += ": no such user group"
	}
	return fmt.Sprintf("MAILBOT_ADMINS: cannot read the members of user group %s (%s)", e.Group, why)
}

// Load reads every group once; the first that cannot be read is an
// error (mailbot does not start on admins it cannot know).
func (g *Groups) Load(ctx context.Context) error {
	for _, id := range g.ids {
		if err := g.refresh(ctx, id); err != nil {
			code := slackCode(err)
			if code == "" {
				code = err.Error()
			}
			return &GroupError{Group: id, Code: code}
		}
	}
	g.loadHandles(ctx)
	return nil
}

// loadHandles reads the groups' handles, to name them in logs; a failure
// only leaves the IDs.
func (g *Groups) loadHandles(ctx context.Context) {
	gs, err := g.api.GetUserGroupsContext(ctx)
	if err != nil {
		g.log.Warn("user group handles not read", zap.Error(err))
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, ug := range gs {
		g.handles[ug.ID] = ug.Handle
	}
}

// Handle is the handle of group id ("mail-admins"), or "" when unknown.
func (g *Groups) Handle(id string) string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.handles[id]
}

// Contains reports whether user is a member of group, by the last reading.
func (g *Groups) Contains(group, user string) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.members[group][user]
}

// Changed asks for group to be read again soon (subteam_members_changed).
// It never blocks.
func (g *Groups) Changed(group string) {
	select {
	case g.changed <- group:
	default:
	}
}

// Run reads the groups again every GroupRefreshEvery, and a group at once
// when it changed, until ctx ends.
func (g *Groups) Run(ctx context.Context) {
	t := time.NewTicker(g.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case id := <-g.changed:
			if g.known(id) {
				g.refreshLogged(ctx, id)
			}
		case <-t.C:
			for _, id := range g.ids {
				g.refreshLogged(ctx, id)
			}
		}
	}
}

func (g *Groups) known(id string) bool {
	for _, x := range g.ids {
		if x == id {
			return true
		}
	}
	return false
}

// refreshLogged reads a group again; on failure it keeps the last known
// members, logs a warning and counts it.
func (g *Groups) refreshLogged(ctx context.Context, id string) {
	if err := g.refresh(ctx, id); err != nil {
		g.m.groupRefresh.WithLabelValues("failed").Inc()
		g.log.Warn("user group not read again: keeping the last known members", zap.String("group", id), zap.Error(err))
		return
	}
	g.m.groupRefresh.WithLabelValues("ok").Inc()
}

// refresh reads the members of group id.
func (g *Groups) refresh(ctx context.Context, id string) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	users, err := retrying(ctx, func() ([]string, error) { return g.api.GetUserGroupMembersContext(ctx, id) })
	if err != nil {
		return err
	}
	set := make(map[string]bool, len(users))
	for _, u := range users {
		set[u] = true
	}
	g.mu.Lock()
	changed := !maps.Equal(g.members[id], set)
	g.members[id] = set
	g.mu.Unlock()
	if changed {
		g.log.Info("user group read", zap.String("group", id), zap.Int("members", len(set)))
	}
	return nil
}
