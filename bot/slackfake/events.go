package slackfake

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Event sends an events_api envelope whose inner event is event (it must
// hold "type"), wrapped as Slack wraps it: an event_callback with team_id,
// api_app_id, event_id, event_time and authorizations. The event's "user",
// if any, is the audience of the ack.
func (s *Server) Event(event map[string]any) (string, error) { return s.Via(0).Event(event) }

// RawEvent sends an events_api envelope whose inner event is the JSON text
// event as given, such as one that slack-go cannot parse.
func (s *Server) RawEvent(event string) (string, error) { return s.Via(0).RawEvent(event) }

// AppHomeOpened sends the app_home_opened event of user opening the app's
// Home tab; it carries the Home view last published for user, if any.
func (s *Server) AppHomeOpened(user string) (string, error) { return s.Via(0).AppHomeOpened(user) }

// SubteamMembersChanged changes the members of the user group groupID (set
// with SetGroup) and sends the subteam_members_changed event that tells of
// it; see Sender.SubteamMembersChanged.
func (s *Server) SubteamMembersChanged(groupID string, added, removed []string) (string, error) {
	return s.Via(0).SubteamMembersChanged(groupID, added, removed)
}

// Event sends an event; see Server.Event.
func (v Sender) Event(event map[string]any) (string, error) {
	if _, ok := event["type"].(string); !ok {
		return "", fmt.Errorf("slackfake: event without a type")
	}
	user, _ := event["user"].(string)
	return v.event(event, user)
}

// RawEvent sends an event given as JSON text; see Server.RawEvent.
func (v Sender) RawEvent(event string) (string, error) {
	if !json.Valid([]byte(event)) {
		return "", fmt.Errorf("slackfake: raw event is not JSON")
	}
	return v.event(json.RawMessage(event), "")
}

// AppHomeOpened sends app_home_opened; see Server.AppHomeOpened.
func (v Sender) AppHomeOpened(user string) (string, error) {
	ev := map[string]any{"type": "app_home_opened", "user": user, "channel": dmChannel(user), "tab": "home", "event_ts": v.s.newTS()}
	if home, ok := v.s.Home(user); ok {
		ev["view"] = home.JSON
	}
	return v.event(ev, user)
}

// SubteamMembersChanged applies the change to the group's members and sends
// subteam_members_changed as Slack's own captures show it (counts as
// numbers, which slack-go parses; the documentation's example has them as
// strings, which slack-go cannot parse: send that with RawEvent).
func (v Sender) SubteamMembersChanged(groupID string, added, removed []string) (string, error) {
	s := v.s
	s.mu.Lock()
	g := s.dir.groups[groupID]
	if g == nil {
		s.mu.Unlock()
		return "", fmt.Errorf("slackfake: no group %s (SetGroup first)", groupID)
	}
	prev := g.updated
	g.updated = time.Now().Unix()
	g.Members = slices.DeleteFunc(g.Members, func(u string) bool { return slices.Contains(removed, u) })
	for _, u := range added {
		if !slices.Contains(g.Members, u) {
			g.Members = append(g.Members, u)
		}
	}
	now := g.updated
	s.mu.Unlock()
	return v.event(map[string]any{
		"type": "subteam_members_changed", "subteam_id": groupID, "team_id": TeamID,
		"date_previous_update": prev, "date_update": now,
		"added_users": nonNil(added), "added_users_count": len(added),
		"removed_users": nonNil(removed), "removed_users_count": len(removed),
		"event_ts": s.newTS(),
	}, "")
}

// event sends an events_api envelope around inner.
func (v Sender) event(inner any, user string) (string, error) {
	id := v.s.Socket.newEnvelopeID()
	e := &envelope{id: id, typ: "events_api", user: user}
	return v.s.Socket.send(e, map[string]any{
		"token": "verification-token-unused", "team_id": TeamID, "context_team_id": TeamID,
		"api_app_id": AppID, "event": inner, "type": "event_callback",
		"event_id": "Ev0FAKE" + strings.TrimPrefix(id, "env-"), "event_time": time.Now().Unix(),
		"authorizations": []any{map[string]any{
			"enterprise_id": nil, "team_id": TeamID, "user_id": BotUser, "is_bot": true, "is_enterprise_install": false,
		}},
		"is_ext_shared_channel": false, "event_context": "4-fake-" + id,
	}, v.conn)
}

// dmChannel is the id of the direct-message channel between user and the
// bot, as conversations.open answers it.
func dmChannel(user string) string { return "D" + strings.TrimPrefix(user, "U") }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
